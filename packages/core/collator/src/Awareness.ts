/**
 * The awareness service: one method per mcp-awareness tool (camelCase names taking one object with upstream's
 * snake_case parameters), with upstream's defaults, validation and structured errors, over the {@link Store} port.
 *
 * It keeps the collation layer the seed describes: a cached briefing, rebuilt when the store's `version` changes or
 * when time makes it out of date (`Collator.Result.valid_until`), so `staleness_sec` is real. Time comes from
 * Effect's `Clock`.
 *
 * @since 0.1.0
 */
import { TokenCounter } from "@heed/schema"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Random from "effect/Random"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as Semaphore from "effect/Semaphore"
import type { Briefing } from "./Briefing.ts"
import * as Collator from "./Collator.ts"
import { type Entry, EntryType, IntentionState } from "./Entry.ts"
import { didYouMean as closestValid, words } from "./internal/text.ts"
import { isTimeZone, parseIso, toIso } from "./internal/time.ts"
import { type EntryFilter, Store, type StoreError } from "./Store.ts"

/**
 * A structured tool error, as upstream's `{"status":"error","error":{...}}` envelope: `code`
 * (`invalid_parameter`, `not_found`, `unavailable`, `schema_immutable`, ...), an actionable `message`,
 * `retryable`, and where relevant the offending `param` and `value`, the `valid` values and a did-you-mean
 * `suggestion` (edit distance at most 2), or a `help_url`.
 *
 * @category errors
 * @since 0.1.0
 */
export class AwarenessError extends Schema.TaggedError<AwarenessError>()("AwarenessError", {
  code: Schema.String,
  message: Schema.String,
  retryable: Schema.Boolean,
  param: Schema.optionalKey(Schema.String),
  value: Schema.optionalKey(Schema.Unknown),
  valid: Schema.optionalKey(Schema.Array(Schema.String)),
  suggestion: Schema.optionalKey(Schema.String),
  help_url: Schema.optionalKey(Schema.String)
}) {
  /** The JSON envelope upstream's tools return as error text. */
  toEnvelope(): { status: "error"; error: Record<string, unknown> } {
    const { _tag, ...error } = { ...this }
    return { status: "error", error: { ...error, message: this.message } }
  }
}

/**
 * A page of entries, as upstream's list tools return it.
 *
 * @category models
 * @since 0.1.0
 */
export interface Page {
  readonly entries: ReadonlyArray<Record<string, unknown>>
  readonly limit: number
  readonly offset: number
  readonly has_more: boolean
}

/**
 * A write tool's response: `status: "ok"` and the entry `id`, plus tool-specific handles (never the caller's
 * payload).
 *
 * @category models
 * @since 0.1.0
 */
export interface WriteResponse {
  readonly status: "ok"
  readonly id: string
  readonly [key: string]: unknown
}

/**
 * A search hit, as upstream returns it: the entry itself (full or list form) with its lexical `similarity` in
 * `[0, 1]` added as a field.
 *
 * @category models
 * @since 0.1.0
 */
export interface SearchHit {
  readonly [key: string]: unknown
  readonly similarity: number
}

/**
 * The `get_stats` response: entry counts for all ten types, the sources, and the total.
 *
 * @category models
 * @since 0.1.0
 */
export interface Stats {
  readonly entries: Readonly<Record<EntryType, number>>
  readonly sources: ReadonlyArray<string>
  readonly total: number
}

/**
 * Untrusted tool input: a JSON object of snake_case parameters. Every method validates what it reads.
 *
 * @category models
 * @since 0.1.0
 */
export type Params = Readonly<Record<string, unknown>>

/**
 * The awareness service's interface: one method per tool. Each takes one object of upstream's snake_case
 * parameters (see the README for the full list and defaults) and fails with {@link AwarenessError}.
 *
 * @category models
 * @since 0.1.0
 */
export interface AwarenessShape {
  readonly reportStatus: (params: Params) => Effect.Effect<WriteResponse, AwarenessError>
  readonly reportAlert: (params: Params) => Effect.Effect<WriteResponse, AwarenessError>
  readonly learnPattern: (params: Params) => Effect.Effect<WriteResponse, AwarenessError>
  readonly remember: (params: Params) => Effect.Effect<WriteResponse, AwarenessError>
  readonly addContext: (params: Params) => Effect.Effect<WriteResponse, AwarenessError>
  readonly setPreference: (params: Params) => Effect.Effect<WriteResponse, AwarenessError>
  readonly suppressAlert: (params: Params) => Effect.Effect<WriteResponse, AwarenessError>
  readonly clearSuppression: (params: Params) => Effect.Effect<WriteResponse, AwarenessError>
  readonly remind: (params: Params) => Effect.Effect<WriteResponse, AwarenessError>
  readonly updateIntention: (params: Params) => Effect.Effect<WriteResponse, AwarenessError>
  readonly actedOn: (params: Params) => Effect.Effect<WriteResponse, AwarenessError>
  readonly getBriefing: (params?: Params) => Effect.Effect<Briefing, AwarenessError>
  readonly getAlerts: (params?: Params) => Effect.Effect<Page, AwarenessError>
  readonly getStatus: (params: Params) => Effect.Effect<Record<string, unknown>, AwarenessError>
  readonly getKnowledge: (params?: Params) => Effect.Effect<Page, AwarenessError>
  readonly getSuppressions: (params?: Params) => Effect.Effect<ReadonlyArray<Record<string, unknown>>, AwarenessError>
  readonly getIntentions: (params?: Params) => Effect.Effect<Page, AwarenessError>
  readonly getStats: (params?: Params) => Effect.Effect<Stats, AwarenessError>
  readonly getTags: (
    params?: Params
  ) => Effect.Effect<ReadonlyArray<{ readonly tag: string; readonly count: number }>, AwarenessError>
  readonly updateEntry: (params: Params) => Effect.Effect<WriteResponse, AwarenessError>
  readonly deleteEntry: (params: Params) => Effect.Effect<Record<string, unknown>, AwarenessError>
  readonly restoreEntry: (params: Params) => Effect.Effect<Record<string, unknown>, AwarenessError>
  readonly search: (params: Params) => Effect.Effect<ReadonlyArray<SearchHit>, AwarenessError>
}

/**
 * Options for `Awareness.layerWith`: the collator options (time zone, horizon, budgets, inhibition, flap damping,
 * acknowledgement and escalation timeouts; `staleness_sec` is managed by the cache) and `max_cache_age_sec`
 * (default 300): a cached briefing older than this is rebuilt even if nothing changed.
 *
 * The owner's time zone is the `timezone` preference (`set_preference({ key: "timezone", value: "Europe/Berlin" })`)
 * when set, else `timezone` here, else UTC. An unknown `timezone` here makes building the layer die with a
 * `Collator.CollatorInputError` defect (a configuration mistake).
 *
 * The token budget is counted with `countTokens` when given, else with `@heed/schema`'s `TokenCounter` when the
 * environment provides one (an optional service: the layer still requires only `Store`), else with o200k.
 *
 * @category models
 * @since 0.1.0
 */
export interface AwarenessOptions extends Omit<Collator.Options, "staleness_sec"> {
  readonly max_cache_age_sec?: number
}

// ---------------------------------------------------------------------------------------------------------------
// Validation

const invalid = (param: string, message: string, extra: Partial<AwarenessError> = {}) =>
  Effect.fail(new AwarenessError({ code: "invalid_parameter", message, retryable: false, param, ...extra }))

const notFound = (message: string) => Effect.fail(new AwarenessError({ code: "not_found", message, retryable: false }))

const unavailable = (error: StoreError) =>
  new AwarenessError({
    code: "unavailable",
    message: `store unavailable: ${error.message}`,
    retryable: error.retryable
  })

const requiredString = (params: Params, name: string): Effect.Effect<string, AwarenessError> => {
  const value = params[name]
  if (typeof value !== "string" || value.trim().length === 0) {
    return invalid(name, `${name} is required and must be a non-empty string`, value === undefined ? {} : { value })
  }
  return Effect.succeed(value)
}

const optionalString = (params: Params, name: string): Effect.Effect<string | undefined, AwarenessError> => {
  const value = params[name]
  if (value === undefined || value === null) return Effect.succeed(undefined)
  if (typeof value !== "string") return invalid(name, `${name} must be a string`, { value })
  return Effect.succeed(value)
}

const stringWithDefault = (params: Params, name: string, fallback: string) =>
  Effect.map(optionalString(params, name), (value) => value ?? fallback)

const tagsParam = (params: Params, name = "tags"): Effect.Effect<ReadonlyArray<string>, AwarenessError> => {
  const value = params[name]
  if (value === undefined || value === null) return Effect.succeed([])
  if (typeof value === "string") return Effect.succeed([value])
  if (!Array.isArray(value) || !value.every((tag) => typeof tag === "string")) {
    return invalid(name, `${name} must be a list of strings`, { value })
  }
  return Effect.succeed(value as ReadonlyArray<string>)
}

const enumParam = <const A extends string>(
  params: Params,
  name: string,
  valid: ReadonlyArray<A>,
  fallback?: A
): Effect.Effect<A, AwarenessError> => {
  const value = params[name]
  if ((value === undefined || value === null) && fallback !== undefined) return Effect.succeed(fallback)
  if (typeof value === "string" && (valid as ReadonlyArray<string>).includes(value)) return Effect.succeed(value as A)
  const suggestion = typeof value === "string" ? closestValid(value, valid) : undefined
  return invalid(
    name,
    `${name} must be one of ${valid.join(", ")}${suggestion === undefined ? "" : ` (did you mean "${suggestion}"?)`}`,
    { value, valid: [...valid], ...(suggestion === undefined ? {} : { suggestion }) }
  )
}

const intParam = (
  params: Params,
  name: string,
  fallback: number,
  minimum: number
): Effect.Effect<number, AwarenessError> => {
  const value = params[name]
  if (value === undefined || value === null) return Effect.succeed(fallback)
  if (typeof value !== "number" || !Number.isInteger(value) || value < minimum) {
    return invalid(name, `${name} must be a whole number of at least ${minimum}`, { value })
  }
  return Effect.succeed(value)
}

const boolParam = (params: Params, name: string, fallback: boolean): Effect.Effect<boolean, AwarenessError> => {
  const value = params[name]
  if (value === undefined || value === null) return Effect.succeed(fallback)
  if (typeof value !== "boolean") return invalid(name, `${name} must be true or false`, { value })
  return Effect.succeed(value)
}

const numberParam = (params: Params, name: string): Effect.Effect<number | undefined, AwarenessError> => {
  const value = params[name]
  if (value === undefined || value === null) return Effect.succeed(undefined)
  if (typeof value !== "number" || !Number.isFinite(value))
    return invalid(name, `${name} must be a finite number`, { value })
  return Effect.succeed(value)
}

/**
 * `suppress_alert`'s level: upstream's `level`, or `suppress_level` (the name the entry stores it under) as an
 * alias. Both may be given only with the same value.
 */
const suppressLevelParam = (params: Params): Effect.Effect<"warning" | "critical", AwarenessError> =>
  Effect.gen(function* () {
    const levels = ["warning", "critical"] as const
    const given = (name: string) => params[name] !== undefined && params[name] !== null
    const level = given("level") ? yield* enumParam(params, "level", levels) : undefined
    const alias = given("suppress_level") ? yield* enumParam(params, "suppress_level", levels) : undefined
    if (level !== undefined && alias !== undefined && level !== alias) {
      return yield* invalid(
        "suppress_level",
        `level and suppress_level disagree ("${level}" vs "${alias}"): give one`,
        {
          value: alias,
          valid: [...levels]
        }
      )
    }
    return level ?? alias ?? "warning"
  })

const objectParam = (
  params: Params,
  name: string
): Effect.Effect<Record<string, unknown> | undefined, AwarenessError> => {
  const value = params[name]
  if (value === undefined || value === null) return Effect.succeed(undefined)
  if (typeof value !== "object" || Array.isArray(value))
    return invalid(name, `${name} must be a JSON object`, { value })
  return Effect.succeed(value as Record<string, unknown>)
}

const timestampParam = (params: Params, name: string): Effect.Effect<string | undefined, AwarenessError> => {
  const value = params[name]
  if (value === undefined || value === null) return Effect.succeed(undefined)
  if (typeof value !== "string" || value.trim() === "") {
    return invalid(name, `${name} must be an ISO 8601 timestamp, not an empty value`, { value })
  }
  const ms = parseIso(value)
  if (ms === undefined) {
    return invalid(name, `${name} is not a valid ISO 8601 timestamp (e.g. "2026-03-19T15:00:00Z")`, {
      value,
      help_url: "https://en.wikipedia.org/wiki/ISO_8601"
    })
  }
  return Effect.succeed(toIso(ms))
}

const pagingParams = (params: Params) =>
  Effect.all({ limit: intParam(params, "limit", 100, 0), offset: intParam(params, "offset", 0, 0) })

// ---------------------------------------------------------------------------------------------------------------
// Entry views

const withoutHistory = (data: Record<string, unknown>): Record<string, unknown> => {
  if (!("changelog" in data)) return data
  const { changelog: _, ...rest } = data
  return rest
}

const fullView = (entry: Entry, keepHistory = true): Record<string, unknown> => {
  const data = keepHistory ? entry.data : withoutHistory(entry.data)
  return {
    id: entry.id,
    type: entry.type,
    source: entry.source,
    tags: entry.tags,
    created: entry.created,
    updated: entry.updated,
    expires: entry.expires,
    data,
    ...(entry.logical_key === undefined || entry.logical_key === null ? {} : { logical_key: entry.logical_key })
  }
}

const listView = (entry: Entry): Record<string, unknown> => {
  const description = entry.data.description ?? entry.data.message ?? entry.data.goal
  return {
    id: entry.id,
    type: entry.type,
    source: entry.source,
    tags: entry.tags,
    ...(typeof description === "string" ? { description } : {}),
    created: entry.created,
    updated: entry.updated,
    ...(entry.type === "intention" ? { goal: entry.data.goal, state: entry.data.state } : {}),
    ...(entry.logical_key === undefined || entry.logical_key === null ? {} : { logical_key: entry.logical_key })
  }
}

const modeParam = (params: Params) => enumParam(params, "mode", ["full", "list"], "full")

const page = (
  rows: ReadonlyArray<Entry>,
  limit: number,
  offset: number,
  view: (e: Entry) => Record<string, unknown>
): Page => ({
  entries: rows.slice(0, limit).map(view),
  limit,
  offset,
  has_more: rows.length > limit
})

const allTypes: ReadonlyArray<EntryType> = EntryType.literals

/**
 * The closest valid value within an edit distance of 2 (case-insensitive), as upstream's did-you-mean suggestions;
 * `undefined` when nothing is close enough. Adapters use it to phrase their own parameter errors like the tools do.
 *
 * @category errors
 * @since 0.1.0
 */
export const didYouMean = (value: string, valid: ReadonlyArray<string>): string | undefined =>
  closestValid(value, valid)

const transitions: Readonly<Record<string, ReadonlyArray<string>>> = {
  pending: ["fired", "active", "completed", "snoozed", "cancelled"],
  fired: ["active", "completed", "snoozed", "cancelled"],
  active: ["completed", "snoozed", "cancelled"],
  snoozed: ["pending", "active", "completed", "cancelled"],
  completed: [],
  cancelled: []
}

const appendChangelog = (data: Record<string, unknown>, now: string, changed: Record<string, unknown>) => {
  const previous = Array.isArray(data.changelog) ? data.changelog : []
  return [...previous, { updated: now, changed }]
}

const softDelete = (entry: Entry, nowMs: number): Entry => ({
  ...entry,
  deleted: toIso(nowMs),
  expires: toIso(nowMs + 30 * 86_400_000),
  data: { ...entry.data, _original_expires: entry.expires }
})

const restore = (entry: Entry): Entry => {
  const { _original_expires, ...data } = entry.data
  return { ...entry, deleted: null, expires: typeof _original_expires === "string" ? _original_expires : null, data }
}

/** A light English stemmer for lexical search: "walking", "walked" and "walks" all become "walk". */
const stem = (word: string): string => (word.length > 4 ? word.replace(/(ing|ed|es|s)$/, "") : word)

const isDeleted = (entry: Entry) => entry.deleted !== null && entry.deleted !== undefined

// ---------------------------------------------------------------------------------------------------------------
// The service

interface Cached {
  readonly version: number
  readonly generatedMs: number
  readonly validUntilMs: number
  readonly briefing: Briefing
}

const uuid = Effect.gen(function* () {
  let hex = ""
  for (let i = 0; i < 4; i++) {
    const chunk = Math.floor((yield* Random.next) * 0x1_0000_0000)
    hex += chunk.toString(16).padStart(8, "0")
  }
  const variant = ((Number.parseInt(hex[16] ?? "0", 16) & 0x3) | 0x8).toString(16)
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`
})

const make = (options: AwarenessOptions) =>
  Effect.gen(function* () {
    const store = yield* Store
    if (options.timezone !== undefined && !isTimeZone(options.timezone)) {
      // A configuration mistake, not a runtime condition: building the layer dies with a clear, typed defect.
      return yield* Effect.die(
        new Collator.CollatorInputError({
          param: "timezone",
          message: `timezone must be an IANA time zone such as "Europe/Berlin" (got ${JSON.stringify(options.timezone)})`
        })
      )
    }
    // The budget is counted with @heed/schema's TokenCounter when one is provided (an optional service: the layer
    // still requires only Store); an explicit `countTokens` option wins; the collator's default is o200k.
    const counter = yield* Effect.serviceOption(TokenCounter)
    const countTokens =
      options.countTokens ?? (Option.isSome(counter) ? (text: string) => counter.value.count(text) : undefined)
    const cache = yield* Ref.make(Option.none<Cached>())
    const lock = yield* Semaphore.make(1)
    const maxAgeMs = (options.max_cache_age_sec ?? 300) * 1000
    const flapWindowMs = (options.flap_window_minutes ?? 60) * 60_000
    const resurfaceMs = (options.resurface_window_minutes ?? 1440) * 60_000

    const s = <A>(effect: Effect.Effect<A, StoreError>) => Effect.mapError(effect, unavailable)
    const now = Clock.currentTimeMillis

    const newEntry = (
      type: EntryType,
      source: string,
      tags: ReadonlyArray<string>,
      data: Record<string, unknown>,
      nowMs: number,
      extra: { expires?: string | null; logical_key?: string } = {}
    ) =>
      Effect.map(
        uuid,
        (id): Entry => ({
          id,
          type,
          source,
          tags: [...tags],
          created: toIso(nowMs),
          updated: null,
          expires: extra.expires ?? null,
          deleted: null,
          data,
          ...(extra.logical_key === undefined ? {} : { logical_key: extra.logical_key })
        })
      )

    const liveEntry = (id: string, types?: ReadonlyArray<EntryType>) =>
      Effect.gen(function* () {
        const nowMs = yield* now
        const found = yield* s(store.get(id))
        if (Option.isNone(found)) return yield* notFound(`no entry with id ${id}`)
        const entry = found.value
        const expires = parseIso(entry.expires)
        if (
          isDeleted(entry) ||
          (expires !== undefined && expires <= nowMs) ||
          (types !== undefined && !types.includes(entry.type))
        ) {
          return yield* notFound(`no ${types === undefined ? "" : `${types.join(" or ")} `}entry with id ${id}`)
        }
        return entry
      })

    // -- writes -------------------------------------------------------------------------------------------------

    const reportStatus = Effect.fn("Awareness.reportStatus")(function* (params: Params) {
      const source = yield* requiredString(params, "source")
      const tags = yield* tagsParam(params)
      const metrics = (yield* objectParam(params, "metrics")) ?? {}
      const inventory = yield* objectParam(params, "inventory")
      const ttl = yield* intParam(params, "ttl_sec", 120, 1)
      const headline = yield* optionalString(params, "headline")
      const nowMs = yield* now
      const entry = yield* newEntry(
        "status",
        source,
        tags,
        {
          metrics,
          ...(inventory === undefined ? {} : { inventory }),
          ttl_sec: ttl,
          ...(headline === undefined ? {} : { headline })
        },
        nowMs
      )
      const result = yield* s(store.upsert({ type: "status", source }, () => entry))
      return { status: "ok", id: result.entry.id, source } as const
    })

    const reportAlert = Effect.fn("Awareness.reportAlert")(function* (params: Params) {
      const source = yield* requiredString(params, "source")
      const tags = yield* tagsParam(params)
      const alertId = yield* requiredString(params, "alert_id")
      const level = yield* enumParam(params, "level", ["warning", "critical"])
      const alertType = yield* enumParam(params, "alert_type", ["threshold", "structural", "baseline"], "threshold")
      const message = yield* requiredString(params, "message")
      const resolved = yield* boolParam(params, "resolved", false)
      const metric = yield* optionalString(params, "metric")
      const value = yield* numberParam(params, "value")
      const threshold = yield* numberParam(params, "threshold")
      const labels = yield* objectParam(params, "labels")
      if (labels !== undefined && !Object.values(labels).every((v) => typeof v === "string")) {
        return yield* invalid("labels", "labels must map label names to strings", { value: labels })
      }
      const nowMs = yield* now
      const nowIso = toIso(nowMs)
      const incoming: Record<string, unknown> = {
        alert_id: alertId,
        level,
        alert_type: alertType,
        message,
        resolved,
        ...(params.details === undefined ? {} : { details: params.details }),
        ...(params.diagnostics === undefined ? {} : { diagnostics: params.diagnostics }),
        ...(metric === undefined ? {} : { metric }),
        ...(value === undefined ? {} : { value }),
        ...(threshold === undefined ? {} : { threshold }),
        ...(labels === undefined ? {} : { labels })
      }
      const fresh = yield* newEntry(
        "alert",
        source,
        tags,
        { ...incoming, state_changes: resolved ? [] : [nowIso] },
        nowMs
      )
      const result = yield* s(
        store.upsert({ type: "alert", source, data: { alert_id: alertId } }, (existing) => {
          if (existing === undefined) return fresh
          const changes = Array.isArray(existing.data.state_changes) ? existing.data.state_changes : []
          const toggled = (existing.data.resolved === true) !== resolved
          return {
            ...existing,
            tags: [...tags],
            updated: nowIso,
            data: {
              ...existing.data,
              ...incoming,
              state_changes: toggled ? [...changes, nowIso].slice(-20) : changes
            }
          }
        })
      )
      return {
        status: "ok",
        id: result.entry.id,
        action: resolved ? "resolved" : "reported",
        alert_id: alertId
      } as const
    })

    const learnPattern = Effect.fn("Awareness.learnPattern")(function* (params: Params) {
      const source = yield* requiredString(params, "source")
      const tags = yield* tagsParam(params)
      const description = yield* requiredString(params, "description")
      const conditions = (yield* objectParam(params, "conditions")) ?? {}
      const problem = Collator.validateConditions(conditions)
      if (problem !== undefined) {
        return yield* invalid("conditions", problem.message, {
          value: problem.key,
          valid: [...Collator.conditionKeys],
          ...(problem.suggestion === undefined ? {} : { suggestion: problem.suggestion })
        })
      }
      const effect = yield* stringWithDefault(params, "effect", "")
      const learnedFrom = yield* stringWithDefault(params, "learned_from", "conversation")
      const nowMs = yield* now
      const entry = yield* newEntry(
        "pattern",
        source,
        tags,
        { description, conditions, effect, learned_from: learnedFrom },
        nowMs
      )
      yield* s(store.insert(entry))
      return { status: "ok", id: entry.id } as const
    })

    const remember = Effect.fn("Awareness.remember")(function* (params: Params) {
      const source = yield* requiredString(params, "source")
      const tags = yield* tagsParam(params)
      const description = yield* requiredString(params, "description")
      const rawContent = params.content
      const content =
        rawContent === undefined || rawContent === null
          ? undefined
          : typeof rawContent === "string"
            ? rawContent
            : JSON.stringify(rawContent)
      const contentType = yield* stringWithDefault(params, "content_type", "text/plain")
      const learnedFrom = yield* stringWithDefault(params, "learned_from", "conversation")
      const logicalKey = yield* optionalString(params, "logical_key")
      const nowMs = yield* now
      const nowIso = toIso(nowMs)
      const data: Record<string, unknown> = {
        description,
        ...(content === undefined ? {} : { content }),
        content_type: contentType,
        learned_from: learnedFrom
      }
      const fresh = yield* newEntry(
        "note",
        source,
        tags,
        data,
        nowMs,
        logicalKey === undefined ? {} : { logical_key: logicalKey }
      )
      if (logicalKey === undefined) {
        yield* s(store.insert(fresh))
        return { status: "ok", id: fresh.id } as const
      }
      const result = yield* s(
        store.upsert({ type: "note", source, logical_key: logicalKey }, (existing) => {
          if (existing === undefined) return fresh
          const changed: Record<string, unknown> = {}
          if (existing.data.description !== description) changed.description = existing.data.description
          if (content !== undefined && existing.data.content !== content)
            changed.content = existing.data.content ?? null
          if (existing.data.content_type !== contentType) changed.content_type = existing.data.content_type
          if (JSON.stringify([...existing.tags].sort()) !== JSON.stringify([...tags].sort()))
            changed.tags = existing.tags
          if (Object.keys(changed).length === 0) return existing
          return {
            ...existing,
            tags: [...tags],
            updated: nowIso,
            data: {
              ...existing.data,
              description,
              ...(content === undefined ? {} : { content }),
              content_type: contentType,
              changelog: appendChangelog(existing.data, nowIso, changed)
            }
          }
        })
      )
      return {
        status: "ok",
        id: result.entry.id,
        action: Option.isSome(result.previous) ? "updated" : "created"
      } as const
    })

    const addContext = Effect.fn("Awareness.addContext")(function* (params: Params) {
      const source = yield* requiredString(params, "source")
      const tags = yield* tagsParam(params)
      const description = yield* requiredString(params, "description")
      const days = yield* intParam(params, "expires_days", 30, 1)
      const nowMs = yield* now
      const expires = toIso(nowMs + days * 86_400_000)
      const entry = yield* newEntry("context", source, tags, { description }, nowMs, { expires })
      yield* s(store.insert(entry))
      return { status: "ok", id: entry.id, expires } as const
    })

    const setPreference = Effect.fn("Awareness.setPreference")(function* (params: Params) {
      const key = yield* requiredString(params, "key")
      const rawValue = params.value
      if (rawValue === undefined || rawValue === null) return yield* invalid("value", "value is required")
      const value = typeof rawValue === "string" ? rawValue : JSON.stringify(rawValue)
      const scope = yield* stringWithDefault(params, "scope", "global")
      if (key === "timezone" && !isTimeZone(value)) {
        return yield* invalid("value", `timezone must be an IANA time zone such as "Europe/Berlin"`, { value })
      }
      const nowMs = yield* now
      const fresh = yield* newEntry("preference", scope, [], { key, value, scope }, nowMs)
      const result = yield* s(
        store.upsert({ type: "preference", data: { key, scope } }, (existing) =>
          existing === undefined ? fresh : { ...existing, updated: toIso(nowMs), data: { ...existing.data, value } }
        )
      )
      return { status: "ok", id: result.entry.id, key, scope } as const
    })

    const suppressAlert = Effect.fn("Awareness.suppressAlert")(function* (params: Params) {
      const source = (yield* optionalString(params, "source")) ?? ""
      const tags = yield* tagsParam(params)
      const metric = (yield* optionalString(params, "metric")) ?? null
      const level = yield* suppressLevelParam(params)
      const duration = yield* intParam(params, "duration_minutes", 60, 1)
      const override = yield* boolParam(params, "escalation_override", true)
      const reason = yield* stringWithDefault(params, "reason", "")
      const intervals = params.time_intervals
      if (intervals !== undefined && intervals !== null) {
        const problem = Collator.validateTimeIntervals(intervals)
        if (problem !== undefined) return yield* invalid("time_intervals", problem, { value: intervals })
      }
      const nowMs = yield* now
      const expires = toIso(nowMs + duration * 60_000)
      const entry = yield* newEntry(
        "suppression",
        source,
        tags,
        {
          metric,
          suppress_level: level,
          escalation_override: override,
          reason,
          ...(intervals === undefined || intervals === null ? {} : { time_intervals: intervals })
        },
        nowMs,
        { expires }
      )
      yield* s(store.insert(entry))
      return { status: "ok", id: entry.id, expires } as const
    })

    const clearSuppression = Effect.fn("Awareness.clearSuppression")(function* (params: Params) {
      const id = yield* requiredString(params, "entry_id")
      const nowMs = yield* now
      const result = yield* s(
        store.update(id, (current) => {
          const expires = parseIso(current.expires)
          if (current.type !== "suppression" || isDeleted(current) || (expires !== undefined && expires <= nowMs)) {
            return undefined
          }
          return softDelete(current, nowMs)
        })
      )
      if (Option.isNone(result)) return yield* notFound(`no active suppression with id ${id}`)
      return { status: "ok", id, cleared: true } as const
    })

    const remind = Effect.fn("Awareness.remind")(function* (params: Params) {
      const goal = yield* requiredString(params, "goal")
      const source = yield* requiredString(params, "source")
      const tags = yield* tagsParam(params)
      const deliverAt = yield* timestampParam(params, "deliver_at")
      const constraints = yield* optionalString(params, "constraints")
      const urgency = yield* enumParam(params, "urgency", ["low", "normal", "high"], "normal")
      const recurrence = yield* optionalString(params, "recurrence")
      const learnedFrom = yield* stringWithDefault(params, "learned_from", "conversation")
      const nowMs = yield* now
      const entry = yield* newEntry(
        "intention",
        source,
        tags,
        {
          goal,
          state: "pending",
          ...(deliverAt === undefined ? {} : { deliver_at: deliverAt }),
          ...(constraints === undefined ? {} : { constraints }),
          urgency,
          ...(recurrence === undefined ? {} : { recurrence }),
          learned_from: learnedFrom
        },
        nowMs
      )
      yield* s(store.insert(entry))
      return { status: "ok", id: entry.id, state: "pending" } as const
    })

    const updateIntention = Effect.fn("Awareness.updateIntention")(function* (params: Params) {
      const id = yield* requiredString(params, "entry_id")
      const state = yield* enumParam(params, "state", IntentionState.literals)
      const reason = yield* optionalString(params, "reason")
      const deliverAt = yield* timestampParam(params, "deliver_at")
      const entry = yield* liveEntry(id, ["intention"])
      const current = typeof entry.data.state === "string" ? entry.data.state : "pending"
      const allowed = transitions[current] ?? []
      if (!allowed.includes(state)) {
        return yield* invalid("state", `an intention cannot go from ${current} to ${state}`, {
          value: state,
          valid: [...allowed]
        })
      }
      const nowMs = yield* now
      if (state === "snoozed" && (deliverAt === undefined || (parseIso(deliverAt) ?? 0) <= nowMs)) {
        return yield* invalid("deliver_at", "snoozing needs a future deliver_at: the intention fires again then")
      }
      const nowIso = toIso(nowMs)
      const result = yield* s(
        store.update(id, (latest) => {
          if ((latest.data.state ?? "pending") !== current) return undefined
          const changed: Record<string, unknown> = { state: current }
          if (deliverAt !== undefined) changed.deliver_at = latest.data.deliver_at ?? null
          return {
            ...latest,
            updated: nowIso,
            data: {
              ...latest.data,
              state,
              ...(reason === undefined ? {} : { state_reason: reason }),
              ...(deliverAt === undefined ? {} : { deliver_at: deliverAt }),
              changelog: appendChangelog(latest.data, nowIso, changed)
            }
          }
        })
      )
      if (Option.isNone(result)) {
        return yield* Effect.fail(
          new AwarenessError({
            code: "unavailable",
            message: "the intention changed concurrently; retry",
            retryable: true
          })
        )
      }
      return { status: "ok", id } as const
    })

    const actedOn = Effect.fn("Awareness.actedOn")(function* (params: Params) {
      const entryId = yield* requiredString(params, "entry_id")
      const action = yield* requiredString(params, "action")
      const platform = yield* optionalString(params, "platform")
      const detail = yield* optionalString(params, "detail")
      const entry = yield* liveEntry(entryId)
      const tags = params.tags === undefined ? entry.tags : yield* tagsParam(params)
      const nowMs = yield* now
      const timestamp = toIso(nowMs)
      const actionId = yield* uuid
      const record = {
        id: actionId,
        action,
        timestamp,
        tags,
        ...(platform === undefined ? {} : { platform }),
        ...(detail === undefined ? {} : { detail })
      }
      yield* s(
        store.update(entryId, (current) => ({
          ...current,
          data: {
            ...current.data,
            ...(current.type === "alert" ? { acknowledged_at: timestamp } : {}),
            acted_on: [...(Array.isArray(current.data.acted_on) ? current.data.acted_on : []), record].slice(-20)
          }
        }))
      )
      return { status: "ok", id: actionId, entry_id: entryId, action, timestamp } as const
    })

    // -- briefing -------------------------------------------------------------------------------------------------

    const loadSnapshot = (nowMs: number) =>
      Effect.gen(function* () {
        const at = toIso(nowMs)
        const [statuses, firing, recentlyResolved, suppressions, patterns, pending, snoozed, zone] = yield* Effect.all([
          store.query({ types: ["status"], activeAt: at }),
          store.query({ types: ["alert"], data: { resolved: false }, activeAt: at }),
          store.query({ types: ["alert"], data: { resolved: true }, activeAt: at, since: toIso(nowMs - flapWindowMs) }),
          store.query({ types: ["suppression"], activeAt: toIso(nowMs - resurfaceMs) }),
          store.query({ types: ["pattern"], activeAt: at }),
          store.query({ types: ["intention"], data: { state: "pending" }, activeAt: at }),
          store.query({ types: ["intention"], data: { state: "snoozed" }, activeAt: at }),
          store.query({ types: ["preference"], data: { key: "timezone", scope: "global" }, limit: 1 })
        ])
        const preferred = zone[0]?.data.value
        const timezone =
          typeof preferred === "string" && isTimeZone(preferred) ? preferred : (options.timezone ?? "UTC")
        const snapshot: Collator.Snapshot = {
          statuses,
          alerts: [...firing, ...recentlyResolved],
          suppressions,
          patterns,
          intentions: [...pending, ...snoozed]
        }
        return { snapshot, timezone }
      })

    const claim = (entry: Entry, nowIso: string) =>
      store.update(entry.id, (current) => {
        const state = current.data.state ?? "pending"
        if (isDeleted(current) || (state !== "pending" && state !== "snoozed")) return undefined
        return {
          ...current,
          updated: nowIso,
          data: {
            ...current.data,
            state: "fired",
            state_reason: "Delivered via briefing",
            changelog: appendChangelog(current.data, nowIso, { state })
          }
        }
      })

    const rebuild = (nowMs: number) =>
      Effect.gen(function* () {
        const version = yield* store.version
        const loaded = yield* loadSnapshot(nowMs)
        const collatorOptions: Collator.Options = {
          ...options,
          timezone: loaded.timezone,
          staleness_sec: 0,
          ...(countTokens === undefined ? {} : { countTokens })
        }
        let snapshot = loaded.snapshot
        let result = Collator.generate(snapshot, new Date(nowMs), collatorOptions)
        const claimed = new Set<string>()
        // Fire exactly once: claim each intention with a compare-and-set; drop the ones another reader won.
        for (let attempt = 0; attempt < 3 && result.fired.length > 0; attempt++) {
          const lost = new Set<string>()
          for (const entry of result.fired) {
            if (claimed.has(entry.id)) continue
            const won = yield* claim(entry, toIso(nowMs))
            if (Option.isSome(won)) claimed.add(entry.id)
            else lost.add(entry.id)
          }
          if (lost.size === 0) break
          snapshot = { ...snapshot, intentions: snapshot.intentions.filter((entry) => !lost.has(entry.id)) }
          result = Collator.generate(snapshot, new Date(nowMs), collatorOptions)
        }
        // A briefing that delivered intentions is served once, never from the cache.
        const cachedVersion = claimed.size > 0 ? -1 : version
        const validUntilMs =
          result.valid_until === null ? Number.POSITIVE_INFINITY : (parseIso(result.valid_until) ?? 0)
        const cached: Cached = {
          version: cachedVersion,
          generatedMs: nowMs,
          validUntilMs,
          briefing: result.briefing
        }
        return cached
      })

    const getBriefing = Effect.fn("Awareness.getBriefing")(function* (_params?: Params) {
      return yield* Semaphore.withPermits(
        lock,
        1
      )(
        Effect.gen(function* () {
          const nowMs = yield* now
          const version = yield* store.version
          const current = yield* Ref.get(cache)
          if (
            Option.isSome(current) &&
            current.value.version === version &&
            nowMs < current.value.validUntilMs &&
            nowMs - current.value.generatedMs < maxAgeMs
          ) {
            return {
              ...current.value.briefing,
              staleness_sec: Math.floor((nowMs - current.value.generatedMs) / 1000)
            }
          }
          const fresh = yield* rebuild(nowMs)
          yield* Ref.set(cache, Option.some(fresh))
          return fresh.briefing
        })
      ).pipe(Effect.mapError(unavailable))
    })

    // -- reads ----------------------------------------------------------------------------------------------------

    const getAlerts = Effect.fn("Awareness.getAlerts")(function* (params: Params = {}) {
      const source = yield* optionalString(params, "source")
      const since = yield* timestampParam(params, "since")
      const mode = yield* modeParam(params)
      const { limit, offset } = yield* pagingParams(params)
      const nowMs = yield* now
      const filter: EntryFilter = {
        types: ["alert"],
        data: { resolved: false },
        activeAt: toIso(nowMs),
        ...(source === undefined ? {} : { source }),
        ...(since === undefined ? {} : { since }),
        limit: limit + 1,
        offset
      }
      const rows = yield* s(store.query(filter))
      return page(rows, limit, offset, mode === "list" ? listView : (e) => fullView(e))
    })

    const getStatus = Effect.fn("Awareness.getStatus")(function* (params: Params) {
      const source = yield* requiredString(params, "source")
      const nowMs = yield* now
      const rows = yield* s(store.query({ types: ["status"], source, activeAt: toIso(nowMs), limit: 1 }))
      const status = rows[0]
      if (status === undefined) return yield* notFound(`no status reported by source ${source}`)
      return fullView(status)
    })

    const getKnowledge = Effect.fn("Awareness.getKnowledge")(function* (params: Params = {}) {
      const source = yield* optionalString(params, "source")
      const tags = yield* tagsParam(params)
      const rawType = params.entry_type
      const types: Array<EntryType> = []
      for (const value of rawType === undefined || rawType === null
        ? []
        : Array.isArray(rawType)
          ? rawType
          : [rawType]) {
        types.push(yield* enumParam({ entry_type: value }, "entry_type", allTypes))
      }
      const history = yield* enumParam(params, "include_history", ["false", "true", "only"], "false")
      const since = yield* timestampParam(params, "since")
      const until = yield* timestampParam(params, "until")
      const createdAfter = yield* timestampParam(params, "created_after")
      const createdBefore = yield* timestampParam(params, "created_before")
      const learnedFrom = yield* optionalString(params, "learned_from")
      const mode = yield* modeParam(params)
      const { limit, offset } = yield* pagingParams(params)
      const nowMs = yield* now
      const filter: EntryFilter = {
        types: types.length > 0 ? types : ["pattern", "context", "preference", "note"],
        activeAt: toIso(nowMs),
        ...(source === undefined ? {} : { source }),
        ...(tags.length === 0 ? {} : { tags }),
        ...(learnedFrom === undefined ? {} : { data: { learned_from: learnedFrom } }),
        ...(since === undefined ? {} : { since }),
        ...(until === undefined ? {} : { until }),
        ...(createdAfter === undefined ? {} : { createdAfter }),
        ...(createdBefore === undefined ? {} : { createdBefore })
      }
      let rows: ReadonlyArray<Entry>
      if (history === "only") {
        const all = yield* s(store.query(filter))
        rows = all
          .filter((entry) => Array.isArray(entry.data.changelog) && entry.data.changelog.length > 0)
          .slice(offset, offset + limit + 1)
      } else {
        rows = yield* s(store.query({ ...filter, limit: limit + 1, offset }))
      }
      return page(rows, limit, offset, mode === "list" ? listView : (e) => fullView(e, history !== "false"))
    })

    const getSuppressions = Effect.fn("Awareness.getSuppressions")(function* (_params?: Params) {
      const nowMs = yield* now
      const rows = yield* s(store.query({ types: ["suppression"], activeAt: toIso(nowMs) }))
      return rows.map((entry) => fullView(entry))
    })

    const getIntentions = Effect.fn("Awareness.getIntentions")(function* (params: Params = {}) {
      const state =
        params.state === undefined || params.state === null
          ? undefined
          : yield* enumParam(params, "state", ["pending", "fired", "active", "completed", "snoozed", "cancelled"])
      const source = yield* optionalString(params, "source")
      const tags = yield* tagsParam(params)
      const mode = yield* modeParam(params)
      const { limit, offset } = yield* pagingParams(params)
      const rows = yield* s(
        store.query({
          types: ["intention"],
          ...(state === undefined ? {} : { data: { state } }),
          ...(source === undefined ? {} : { source }),
          ...(tags.length === 0 ? {} : { tags }),
          limit: limit + 1,
          offset
        })
      )
      return page(rows, limit, offset, mode === "list" ? listView : (e) => fullView(e))
    })

    const getStats = Effect.fn("Awareness.getStats")(function* (_params?: Params) {
      const nowMs = yield* now
      const rows = yield* s(store.query({ activeAt: toIso(nowMs) }))
      const entries = Object.fromEntries(allTypes.map((type) => [type, 0])) as Record<EntryType, number>
      const sources = new Set<string>()
      for (const entry of rows) {
        entries[entry.type]++
        sources.add(entry.source)
      }
      return { entries, sources: [...sources].sort(), total: rows.length }
    })

    const getTags = Effect.fn("Awareness.getTags")(function* (_params?: Params) {
      const nowMs = yield* now
      const rows = yield* s(store.query({ activeAt: toIso(nowMs) }))
      const counts = new Map<string, number>()
      for (const entry of rows) for (const tag of entry.tags) counts.set(tag, (counts.get(tag) ?? 0) + 1)
      return [...counts]
        .map(([tag, count]) => ({ tag, count }))
        .sort((a, b) => b.count - a.count || (a.tag < b.tag ? -1 : 1))
    })

    // -- maintenance ----------------------------------------------------------------------------------------------

    const updateEntry = Effect.fn("Awareness.updateEntry")(function* (params: Params) {
      const id = yield* requiredString(params, "entry_id")
      const description = yield* optionalString(params, "description")
      const tags = params.tags === undefined || params.tags === null ? undefined : yield* tagsParam(params)
      const source = yield* optionalString(params, "source")
      const content = yield* optionalString(params, "content")
      const contentType = yield* optionalString(params, "content_type")
      const entry = yield* liveEntry(id)
      if (entry.type === "schema") {
        return yield* Effect.fail(
          new AwarenessError({ code: "schema_immutable", message: "schemas cannot be updated", retryable: false })
        )
      }
      if (!["note", "pattern", "context", "preference", "record"].includes(entry.type)) {
        return yield* notFound(`no updatable entry with id ${id} (status, alert and suppression entries are immutable)`)
      }
      const nowIso = toIso(yield* now)
      const result = yield* s(
        store.update(id, (current) => {
          const changed: Record<string, unknown> = {}
          const data = { ...current.data }
          if (description !== undefined && data.description !== description) {
            changed.description = data.description ?? null
            data.description = description
          }
          if (content !== undefined && data.content !== content) {
            changed.content = data.content ?? null
            data.content = content
          }
          if (contentType !== undefined && data.content_type !== contentType) {
            changed.content_type = data.content_type ?? null
            data.content_type = contentType
          }
          let next: Entry = current
          if (tags !== undefined && JSON.stringify(current.tags) !== JSON.stringify(tags)) {
            changed.tags = current.tags
            next = { ...next, tags: [...tags] }
          }
          if (source !== undefined && current.source !== source) {
            changed.source = current.source
            next = { ...next, source }
          }
          if (Object.keys(changed).length === 0) return undefined
          return {
            ...next,
            updated: nowIso,
            data: { ...data, changelog: appendChangelog(current.data, nowIso, changed) }
          }
        })
      )
      return { status: "ok", id, updated: Option.isSome(result) ? nowIso : entry.updated } as const
    })

    const deleteEntry = Effect.fn("Awareness.deleteEntry")(function* (params: Params) {
      const entryId = yield* optionalString(params, "entry_id")
      const source = yield* optionalString(params, "source")
      const entryType =
        params.entry_type === undefined || params.entry_type === null
          ? undefined
          : yield* enumParam(params, "entry_type", allTypes)
      const tags = yield* tagsParam(params)
      const confirm = yield* boolParam(params, "confirm", false)
      const nowMs = yield* now
      if (entryId !== undefined) {
        yield* s(store.update(entryId, (current) => (isDeleted(current) ? undefined : softDelete(current, nowMs))))
        return {
          status: "acknowledged",
          entry_id: entryId,
          recoverable_days: 30,
          note: "If the entry exists it was moved to trash; restore_entry brings it back within 30 days."
        }
      }
      if (source === undefined && tags.length === 0) {
        return yield* invalid("entry_id", "give entry_id, tags or source to choose what to delete")
      }
      const rows = yield* s(
        store.query({
          ...(source === undefined ? {} : { source }),
          ...(entryType === undefined ? {} : { types: [entryType] }),
          ...(tags.length === 0 ? {} : { tags })
        })
      )
      if (!confirm) {
        return {
          status: "dry_run",
          would_trash: rows.length,
          note: "Nothing was deleted. Call again with confirm=true to move these entries to trash."
        }
      }
      let trashed = 0
      for (const entry of rows) {
        const result = yield* s(
          store.update(entry.id, (current) => (isDeleted(current) ? undefined : softDelete(current, nowMs)))
        )
        if (Option.isSome(result)) trashed++
      }
      return { status: "ok", trashed, recoverable_days: 30 }
    })

    const restoreEntry = Effect.fn("Awareness.restoreEntry")(function* (params: Params) {
      const entryId = yield* optionalString(params, "entry_id")
      const tags = yield* tagsParam(params)
      if (entryId === undefined && tags.length === 0) {
        return yield* invalid("entry_id", "give entry_id or tags to choose what to restore")
      }
      const ids =
        entryId !== undefined ? [entryId] : (yield* s(store.query({ tags, deleted: "only" }))).map((entry) => entry.id)
      let restored = 0
      for (const id of ids) {
        const result = yield* s(store.update(id, (current) => (isDeleted(current) ? restore(current) : undefined)))
        if (Option.isSome(result)) restored++
      }
      if (entryId !== undefined && restored === 0) return yield* notFound(`no deleted entry with id ${entryId}`)
      return { status: "ok", restored }
    })

    const search = Effect.fn("Awareness.search")(function* (params: Params) {
      const query = yield* requiredString(params, "query")
      const source = yield* optionalString(params, "source")
      const tags = yield* tagsParam(params)
      const entryType =
        params.entry_type === undefined || params.entry_type === null
          ? undefined
          : yield* enumParam(params, "entry_type", allTypes)
      const since = yield* timestampParam(params, "since")
      const until = yield* timestampParam(params, "until")
      const rawLimit = params.limit
      if (rawLimit !== undefined && (typeof rawLimit !== "number" || !Number.isFinite(rawLimit))) {
        return yield* invalid("limit", "limit must be a number", { value: rawLimit })
      }
      const limit = Math.min(100, Math.max(1, Math.floor((rawLimit as number | undefined) ?? 10)))
      const mode = yield* modeParam(params)
      const terms = [...new Set(words(query).map(stem))]
      if (terms.length === 0) return []
      const nowMs = yield* now
      const rows = yield* s(
        store.query({
          activeAt: toIso(nowMs),
          ...(source === undefined ? {} : { source }),
          ...(tags.length === 0 ? {} : { tags }),
          ...(entryType === undefined ? {} : { types: [entryType] }),
          ...(since === undefined ? {} : { since }),
          ...(until === undefined ? {} : { until })
        })
      )
      // Lexical ranking (FTS-only; no embedding provider needed): weighted term hits, as upstream's tsv weights
      // description/goal/message A, content B, tags C.
      const hits: Array<SearchHit> = []
      for (const entry of rows) {
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
        if (score > 0) {
          hits.push({
            ...(mode === "list" ? listView(entry) : fullView(entry, false)),
            similarity: Math.round((score / terms.length) * 1000) / 1000
          })
        }
      }
      return hits.sort((a, b) => b.similarity - a.similarity).slice(0, limit)
    })

    // Untyped callers (MCP, REST) may pass null or a non-object: treat it as "no parameters", so validation
    // reports the missing ones instead of a TypeError escaping as a defect.
    const guard =
      <A>(method: (params: Params) => Effect.Effect<A, AwarenessError>) =>
      (params?: Params): Effect.Effect<A, AwarenessError> =>
        method(typeof params === "object" && params !== null && !Array.isArray(params) ? params : {})
    return Awareness.of({
      reportStatus: guard(reportStatus),
      reportAlert: guard(reportAlert),
      learnPattern: guard(learnPattern),
      remember: guard(remember),
      addContext: guard(addContext),
      setPreference: guard(setPreference),
      suppressAlert: guard(suppressAlert),
      clearSuppression: guard(clearSuppression),
      remind: guard(remind),
      updateIntention: guard(updateIntention),
      actedOn: guard(actedOn),
      getBriefing: guard(getBriefing),
      getAlerts: guard(getAlerts),
      getStatus: guard(getStatus),
      getKnowledge: guard(getKnowledge),
      getSuppressions: guard(getSuppressions),
      getIntentions: guard(getIntentions),
      getStats: guard(getStats),
      getTags: guard(getTags),
      updateEntry: guard(updateEntry),
      deleteEntry: guard(deleteEntry),
      restoreEntry: guard(restoreEntry),
      search: guard(search)
    })
  })

/**
 * The awareness service behind every tool. `Awareness.layer` requires a {@link Store};
 * `Awareness.layerWith(options)` configures the collator and the cache (see {@link AwarenessOptions}).
 *
 * **Example** (Reporting an alert and reading the briefing)
 *
 * ```ts
 * import { Awareness, Store } from "@heed/collator"
 * import { Effect, Layer } from "effect"
 *
 * const program = Effect.gen(function*() {
 *   const awareness = yield* Awareness
 *   yield* awareness.reportStatus({ source: "nas", tags: [], metrics: { cpu_pct: 97 } })
 *   yield* awareness.reportAlert({
 *     source: "nas", tags: ["infra"], alert_id: "cpu", level: "warning", alert_type: "threshold",
 *     message: "CPU at 97%"
 *   })
 *   return yield* awareness.getBriefing()
 * }).pipe(Effect.provide(Awareness.layer.pipe(Layer.provide(Store.layerMemory))))
 * ```
 *
 * @category services
 * @since 0.1.0
 */
export class Awareness extends Context.Service<Awareness, AwarenessShape>()("@heed/collator/Awareness") {
  /** The service with the given options; requires a {@link Store}. */
  static readonly layerWith = (options: AwarenessOptions = {}): Layer.Layer<Awareness, never, Store> =>
    Layer.effect(Awareness, make(options))

  /** The service with default options; requires a {@link Store}. */
  static readonly layer: Layer.Layer<Awareness, never, Store> = Layer.effect(Awareness, make({}))
}
