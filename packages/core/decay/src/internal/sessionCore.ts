/**
 * The state of a running session and the small steps every operation shares: finding efforts, the active effort,
 * thresholds, persistence (store first, memory after), summaries and the view handed to the decay functions.
 * The session's operations (efforts, turn, context, metrics) are functions of one {@link SessionCore}; the
 * session service serialises them with a lock.
 *
 * @since 0.1.0
 */
import type { TokenCounter } from "@heed/schema"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Decay from "../Decay.ts"
import type { Effort, LogMessage, MetricTotals, Snapshot } from "../Model.ts"
import { emptyTotals } from "../Model.ts"
import { EffortNotFound, EffortStateError } from "../SessionError.ts"
import type { SessionStoreShape } from "../SessionStore.ts"
import type { SummarizerShape } from "../Summarizer.ts"
import type { Settings } from "./sessionConfig.ts"

/** A session's mutable state with its settings and services. */
export interface SessionCore {
  readonly settings: Settings
  readonly store: SessionStoreShape
  readonly summarizer: SummarizerShape
  readonly counter: TokenCounter.TokenCounterShape
  manifest: Array<Effort>
  readonly logs: Map<string, Array<LogMessage>>
  /** Tokens of each effort log's message contents. */
  readonly logTokens: Map<string, number>
  readonly ambient: Array<LogMessage>
  readonly ambientTokens: Array<number>
  ambientTotal: number
  expanded: Array<string>
  readonly expandedAt: Record<string, string>
  lastReferenced: Record<string, number>
  summaryReferenced: Record<string, number>
  readonly decayThresholds: Record<string, number>
  readonly expandedTurn: Record<string, number>
  readonly autoCollapsedTurn: Record<string, number>
  readonly falseDecays: Record<string, number>
  turnCount: number
  totals: MetricTotals
  /** The effort active when the current turn began: the turn's exchange is logged there. */
  activeAtTurnStart: string | undefined
  readonly closedThisTurn: Set<string>
  /** Tool banners of the current turn, logged before the assistant's text. */
  pendingBanners: Array<string>
  readonly cache: Decay.PreparedCache
  readonly summaryLineTokens: Map<string, { readonly summary: string | null; readonly tokens: number }>
}

const prune = (record: Readonly<Record<string, number>> | undefined, keep: (id: string) => boolean) => {
  const out: Record<string, number> = {}
  for (const [id, value] of Object.entries(record ?? {})) if (keep(id)) out[id] = value
  return out
}

/** The state of a stored session; records naming efforts that no longer exist (or are not expanded) are dropped. */
export const load = (
  snapshot: Snapshot,
  services: Pick<SessionCore, "settings" | "store" | "summarizer" | "counter">
): SessionCore => {
  const count = (message: LogMessage) => services.counter.count(message.content)
  const manifest: Array<Effort> = [...snapshot.manifest]
  const logs = new Map<string, Array<LogMessage>>()
  const logTokens = new Map<string, number>()
  for (const effort of manifest) {
    const log = [...(snapshot.logs.get(effort.id) ?? [])]
    logs.set(effort.id, log)
    logTokens.set(
      effort.id,
      log.reduce((sum, message) => sum + count(message), 0)
    )
  }
  const ambient: Array<LogMessage> = [...snapshot.ambient]
  const ambientTokens = ambient.map(count)
  const known = new Set(manifest.map((effort) => effort.id))
  const isConcluded = (id: string) => manifest.some((effort) => effort.id === id && effort.status === "concluded")
  const stored = snapshot.expanded
  const expanded = [...new Set(stored.expanded)].filter(isConcluded)
  const expandedAt: Record<string, string> = {}
  for (const id of expanded) expandedAt[id] = stored.expanded_at[id] ?? ""
  const isExpanded = (id: string) => expanded.includes(id)
  const isKnown = (id: string) => known.has(id)
  return {
    ...services,
    manifest,
    logs,
    logTokens,
    ambient,
    ambientTokens,
    ambientTotal: ambientTokens.reduce((a, b) => a + b, 0),
    expanded,
    expandedAt,
    lastReferenced: prune(stored.last_referenced_turn, isExpanded),
    summaryReferenced: prune(stored.summary_last_referenced_turn, isKnown),
    decayThresholds: prune(stored.decay_thresholds, isKnown),
    expandedTurn: prune(stored.expanded_turn, isExpanded),
    autoCollapsedTurn: prune(stored.auto_collapsed_turn, isKnown),
    falseDecays: prune(stored.false_decays, isKnown),
    turnCount: Math.max(0, Math.floor(snapshot.session.turn_count)),
    totals: snapshot.session.metrics ?? emptyTotals,
    activeAtTurnStart: manifest.find((effort) => effort.status === "open" && effort.active)?.id,
    closedThisTurn: new Set(),
    pendingBanners: [],
    cache: Decay.makeCache(),
    summaryLineTokens: new Map()
  }
}

/** Tools called during a turn act on that turn's number (the first turn is turn 1). */
export const currentTurn = (core: SessionCore) => core.turnCount + 1

export const nowIso = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis).toISOString())

export const find = (core: SessionCore, id: string) => core.manifest.find((effort) => effort.id === id)

export const active = (core: SessionCore) =>
  core.manifest.find((effort) => effort.status === "open" && effort.active === true)

export const baseThreshold = (core: SessionCore, id: string) =>
  core.settings.effortThresholds[id] ?? core.settings.config.decay_threshold

export const thresholdOf = (core: SessionCore, id: string) => core.decayThresholds[id] ?? baseThreshold(core, id)

/** The effort named by a tool call, which must be in `status` for `verb`; otherwise upstream's error replies. */
export const effortIn = (core: SessionCore, id: unknown, status: Effort["status"], verb: string) =>
  Effect.gen(function* () {
    const effort = typeof id === "string" ? find(core, id) : undefined
    if (effort === undefined)
      return yield* new EffortNotFound({ id: String(id), message: `No effort with id '${id}'.` })
    if (effort.status !== status) {
      return yield* new EffortStateError({
        id: effort.id,
        message: `Cannot ${verb} '${effort.id}': status is '${effort.status}', must be '${status}'.`
      })
    }
    return effort
  })

export const update = (core: SessionCore, id: string, patch: (effort: Effort) => Effort) => {
  core.manifest = core.manifest.map((effort) => (effort.id === id ? patch(effort) : effort))
}

export const withoutActive = (effort: Effort): Effort => {
  const { active: _active, ...rest } = effort
  return rest
}

export const setActive = (core: SessionCore, id: string | undefined) => {
  core.manifest = core.manifest.map((effort) =>
    effort.status !== "open" ? effort : { ...effort, active: effort.id === id }
  )
}

/** Ends an expansion (collapse, decay or reopen) and counts its duration. */
export const finishExpansion = (core: SessionCore, id: string, endTurn: number) => {
  core.expanded = core.expanded.filter((other) => other !== id)
  delete core.expandedAt[id]
  delete core.lastReferenced[id]
  const started = core.expandedTurn[id]
  delete core.expandedTurn[id]
  core.totals = {
    ...core.totals,
    completed_expansions: core.totals.completed_expansions + 1,
    expansion_turns: core.totals.expansion_turns + Math.max(0, endTurn - (started ?? endTurn))
  }
}

export const saveExpanded = (core: SessionCore) =>
  Effect.suspend(() =>
    core.store.saveExpanded({
      expanded: core.expanded,
      expanded_at: core.expandedAt,
      last_referenced_turn: core.lastReferenced,
      summary_last_referenced_turn: core.summaryReferenced,
      decay_thresholds: core.decayThresholds,
      expanded_turn: core.expandedTurn,
      auto_collapsed_turn: core.autoCollapsedTurn,
      false_decays: core.falseDecays
    })
  )

export const saveManifest = (core: SessionCore) => Effect.suspend(() => core.store.saveManifest(core.manifest))

export const saveSession = (core: SessionCore) =>
  Effect.flatMap(nowIso, (updated) =>
    core.store.saveSession({ turn_count: core.turnCount, updated, metrics: core.totals })
  )

/** Below this many characters of content an effort gets the brief-effort line instead of a summary. */
const BRIEF_LIMIT = 50

export const summarize = (core: SessionCore, id: string) =>
  Effect.suspend(() => {
    const log = core.logs.get(id) ?? []
    const content = log
      .filter((message) => message.role !== "system")
      .map((message) => message.content)
      .join("\n")
    if (content.trim().length < BRIEF_LIMIT) return Effect.succeed(`Brief effort: ${id} (too short to summarize)`)
    return Effect.map(core.summarizer.summarize({ effort_id: id, messages: log }), (summary) =>
      summary.trim().length === 0 ? `Brief effort: ${id} (too short to summarize)` : summary.trim()
    )
  })

const appendAmbient = (core: SessionCore, messages: ReadonlyArray<LogMessage>) =>
  Effect.tap(core.store.appendAmbient(messages), () =>
    Effect.sync(() => {
      for (const message of messages) {
        const tokens = core.counter.count(message.content)
        core.ambient.push(message)
        core.ambientTokens.push(tokens)
        core.ambientTotal += tokens
      }
    })
  )

const appendEffort = (core: SessionCore, target: string, messages: ReadonlyArray<LogMessage>) =>
  Effect.tap(core.store.appendEffort(target, messages), () =>
    Effect.sync(() => {
      let log = core.logs.get(target)
      if (log === undefined) {
        log = []
        core.logs.set(target, log)
      }
      let tokens = core.logTokens.get(target) ?? 0
      for (const message of messages) {
        log.push(message)
        tokens += core.counter.count(message.content)
      }
      core.logTokens.set(target, tokens)
    })
  )

/** Appends to an effort's log (or the ambient log): the store first, memory only once the write succeeded. */
export const append = (core: SessionCore, target: string | undefined, messages: ReadonlyArray<LogMessage>) =>
  target === undefined ? appendAmbient(core, messages) : appendEffort(core, target, messages)

/** The view the pure decay functions take; `withTokens` adds the expanded logs' sizes (for a token budget). */
export const decayState = (core: SessionCore, withTokens: boolean): Decay.DecayState => {
  const thresholds: Record<string, number> = {}
  for (const id of core.expanded) thresholds[id] = thresholdOf(core, id)
  const sizes: Record<string, number> | undefined = withTokens ? {} : undefined
  if (sizes !== undefined) for (const id of core.expanded) sizes[id] = core.logTokens.get(id) ?? 0
  return {
    efforts: core.manifest,
    expanded: core.expanded,
    last_referenced_turn: core.lastReferenced,
    summary_last_referenced_turn: core.summaryReferenced,
    decay_thresholds: thresholds,
    expanded_tokens: sizes
  }
}

/** Ids whose summaries are evicted from the system prompt at the current turn. */
export const evictedNow = (core: SessionCore) =>
  Decay.evicted(
    {
      efforts: core.manifest,
      expanded: core.expanded,
      last_referenced_turn: {},
      summary_last_referenced_turn: core.summaryReferenced
    },
    currentTurn(core),
    core.settings.config
  )
