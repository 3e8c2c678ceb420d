/**
 * The read tools of the awareness service (the briefing aside): alerts, statuses, knowledge, suppressions,
 * intentions, statistics, tags and lexical search.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type { Input, Reply } from "../AwarenessTools.ts"
import { type Entry, EntryType } from "../Entry.ts"
import type { EntryFilter } from "../Store.ts"
import { type Deps, stem } from "./entries.ts"
import { notFound } from "./errors.ts"
import { words } from "./text.ts"
import { toIso } from "./time.ts"
import { fullView, listView, page, viewFor } from "./views.ts"

const getAlerts = (deps: Deps) =>
  Effect.fn("Awareness.getAlerts")(function* (input: Input<"get_alerts"> = {}) {
    const limit = input.limit ?? 100
    const offset = input.offset ?? 0
    const filter: EntryFilter = {
      types: ["alert"],
      data: { resolved: false },
      activeAt: toIso(yield* deps.now),
      ...(input.source === undefined ? {} : { source: input.source }),
      ...(input.since === undefined ? {} : { since: input.since }),
      limit: limit + 1,
      offset
    }
    const rows = yield* deps.s(deps.store.query(filter))
    return page(rows, limit, offset, viewFor(input.mode)) satisfies Reply<"get_alerts">
  })

const getStatus = (deps: Deps) =>
  Effect.fn("Awareness.getStatus")(function* (input: Input<"get_status">) {
    const { source } = input
    const nowMs = yield* deps.now
    const rows = yield* deps.s(deps.store.query({ types: ["status"], source, activeAt: toIso(nowMs), limit: 1 }))
    const status = rows[0]
    if (status === undefined) return yield* Effect.fail(notFound(`no status reported by source ${source}`))
    return fullView(status)
  })

const hasHistory = (entry: Entry) => Array.isArray(entry.data.changelog) && entry.data.changelog.length > 0

const getKnowledge = (deps: Deps) =>
  Effect.fn("Awareness.getKnowledge")(function* (input: Input<"get_knowledge"> = {}) {
    const types =
      input.entry_type === undefined ? [] : typeof input.entry_type === "string" ? [input.entry_type] : input.entry_type
    const history = input.include_history ?? "false"
    const limit = input.limit ?? 100
    const offset = input.offset ?? 0
    const filter: EntryFilter = {
      types: types.length > 0 ? types : ["pattern", "context", "preference", "note"],
      activeAt: toIso(yield* deps.now),
      ...(input.source === undefined ? {} : { source: input.source }),
      ...(input.tags === undefined || input.tags.length === 0 ? {} : { tags: input.tags }),
      ...(input.learned_from === undefined ? {} : { data: { learned_from: input.learned_from } }),
      ...(input.since === undefined ? {} : { since: input.since }),
      ...(input.until === undefined ? {} : { until: input.until }),
      ...(input.created_after === undefined ? {} : { createdAfter: input.created_after }),
      ...(input.created_before === undefined ? {} : { createdBefore: input.created_before })
    }
    const rows =
      history === "only"
        ? (yield* deps.s(deps.store.query(filter))).filter(hasHistory).slice(offset, offset + limit + 1)
        : yield* deps.s(deps.store.query({ ...filter, limit: limit + 1, offset }))
    const view = input.mode === "list" ? listView : (entry: Entry) => fullView(entry, history !== "false")
    return page(rows, limit, offset, view) satisfies Reply<"get_knowledge">
  })

const getSuppressions = (deps: Deps) =>
  Effect.fn("Awareness.getSuppressions")(function* (_input: Input<"get_suppressions"> = {}) {
    const rows = yield* deps.s(deps.store.query({ types: ["suppression"], activeAt: toIso(yield* deps.now) }))
    return rows.map((entry) => fullView(entry))
  })

const getIntentions = (deps: Deps) =>
  Effect.fn("Awareness.getIntentions")(function* (input: Input<"get_intentions"> = {}) {
    const limit = input.limit ?? 100
    const offset = input.offset ?? 0
    const rows = yield* deps.s(
      deps.store.query({
        types: ["intention"],
        ...(input.state === undefined ? {} : { data: { state: input.state } }),
        ...(input.source === undefined ? {} : { source: input.source }),
        ...(input.tags === undefined || input.tags.length === 0 ? {} : { tags: input.tags }),
        limit: limit + 1,
        offset
      })
    )
    return page(rows, limit, offset, viewFor(input.mode)) satisfies Reply<"get_intentions">
  })

const getStats = (deps: Deps) =>
  Effect.fn("Awareness.getStats")(function* (_input: Input<"get_stats"> = {}) {
    const rows = yield* deps.s(deps.store.query({ activeAt: toIso(yield* deps.now) }))
    const entries = Object.fromEntries(EntryType.literals.map((type) => [type, 0])) as Record<EntryType, number>
    const sources = new Set<string>()
    for (const entry of rows) {
      entries[entry.type]++
      sources.add(entry.source)
    }
    return { entries, sources: [...sources].sort(), total: rows.length }
  })

const getTags = (deps: Deps) =>
  Effect.fn("Awareness.getTags")(function* (_input: Input<"get_tags"> = {}) {
    const rows = yield* deps.s(deps.store.query({ activeAt: toIso(yield* deps.now) }))
    const counts = new Map<string, number>()
    for (const entry of rows) for (const tag of entry.tags) counts.set(tag, (counts.get(tag) ?? 0) + 1)
    return [...counts]
      .map(([tag, count]) => ({ tag, count }))
      .sort((a, b) => b.count - a.count || (a.tag < b.tag ? -1 : 1))
  })

/**
 * A search hit, as upstream returns it: the entry itself (full or list form) with its lexical `similarity` in
 * `[0, 1]` added as a field.
 */
export interface SearchHit {
  readonly [key: string]: unknown
  readonly similarity: number
}

/**
 * Lexical relevance of an entry to the query terms (FTS-only; no embedding provider needed): weighted term hits,
 * as upstream's tsv weights description/goal/message A, content B, tags C. 0 when no term matches.
 */
const relevance = (entry: Entry, terms: ReadonlyArray<string>): number => {
  const weighted: ReadonlyArray<readonly [number, unknown]> = [
    [1, entry.data.description],
    [1, entry.data.goal],
    [1, entry.data.message],
    [0.6, entry.data.content],
    [0.6, entry.data.effect],
    [0.3, entry.tags.join(" ")]
  ]
  let score = 0
  for (const term of terms) {
    let best = 0
    for (const [weight, text] of weighted) {
      if (typeof text === "string" && weight > best && words(text).some((w) => stem(w).startsWith(term))) {
        best = weight
      }
    }
    score += best
  }
  return score / terms.length
}

const search = (deps: Deps) =>
  Effect.fn("Awareness.search")(function* (input: Input<"search">) {
    const limit = Math.min(100, Math.max(1, Math.floor(input.limit ?? 10)))
    const terms = [...new Set(words(input.query).map(stem))]
    if (terms.length === 0) return []
    const rows = yield* deps.s(
      deps.store.query({
        activeAt: toIso(yield* deps.now),
        ...(input.source === undefined ? {} : { source: input.source }),
        ...(input.tags === undefined || input.tags.length === 0 ? {} : { tags: input.tags }),
        ...(input.entry_type === undefined ? {} : { types: [input.entry_type] }),
        ...(input.since === undefined ? {} : { since: input.since }),
        ...(input.until === undefined ? {} : { until: input.until })
      })
    )
    const hits: Array<SearchHit> = []
    for (const entry of rows) {
      const score = relevance(entry, terms)
      if (score > 0) {
        const view = input.mode === "list" ? listView(entry) : fullView(entry, false)
        hits.push({ ...view, similarity: Math.round(score * 1000) / 1000 })
      }
    }
    return hits.sort((a, b) => b.similarity - a.similarity).slice(0, limit)
  })

/** The read tools over `deps`. */
export const make = (deps: Deps) => ({
  getAlerts: getAlerts(deps),
  getStatus: getStatus(deps),
  getKnowledge: getKnowledge(deps),
  getSuppressions: getSuppressions(deps),
  getIntentions: getIntentions(deps),
  getStats: getStats(deps),
  getTags: getTags(deps),
  search: search(deps)
})
