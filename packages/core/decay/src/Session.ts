/**
 * One conversation's efforts: the effort tools (open, close, status, expand, collapse, switch, search,
 * reopen), per-turn salience decay with banners and metrics, and the assembly of the working context.
 *
 * A turn runs as: `buildContext()` for the model call, any effort tools the model calls, then
 * `processTurn({ user, assistant })`, which logs the exchange, checks decay and returns the banners and
 * metrics. Tools called during a turn act on that turn's number (the first turn is turn 1), exactly as CCM's
 * turn counter incremented at the start of a turn.
 *
 * @since 0.1.0
 */
import { TokenCounter } from "@heed/schema"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import * as Schema from "effect/Schema"
import * as Semaphore from "effect/Semaphore"
import * as Banner from "./Banner.ts"
import * as Decay from "./Decay.ts"
import type { Effort, LogMessage, MetricTotals, ToolCall } from "./Model.ts"
import { emptyTotals } from "./Model.ts"
import * as References from "./References.ts"
import { SessionStore, type SessionStoreError } from "./SessionStore.ts"
import { Summarizer, type SummarizerError } from "./Summarizer.ts"

// ---------------------------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------------------------

/**
 * No effort with the given id (or no open effort, for `closeEffort`).
 *
 * @category errors
 * @since 0.1.0
 */
export class EffortNotFound extends Schema.TaggedError<EffortNotFound>()("EffortNotFound", {
  id: Schema.String,
  message: Schema.String
}) {}

/**
 * The effort exists but is in the wrong state for the operation (CCM's error texts).
 *
 * @category errors
 * @since 0.1.0
 */
export class EffortStateError extends Schema.TaggedError<EffortStateError>()("EffortStateError", {
  id: Schema.optional(Schema.String),
  message: Schema.String
}) {}

/**
 * `openEffort` with an id that already exists (CCM silently created a second entry).
 *
 * @category errors
 * @since 0.1.0
 */
export class DuplicateEffortId extends Schema.TaggedError<DuplicateEffortId>()("DuplicateEffortId", {
  id: Schema.String,
  message: Schema.String
}) {}

/**
 * An effort id that cannot name a log file, or a bad per-call setting.
 *
 * @category errors
 * @since 0.1.0
 */
export class InvalidEffortInput extends Schema.TaggedError<InvalidEffortInput>()("InvalidEffortInput", {
  id: Schema.optional(Schema.String),
  message: Schema.String
}) {}

/**
 * Every error an effort tool can fail with.
 *
 * @category errors
 * @since 0.1.0
 */
export type EffortError =
  | EffortNotFound
  | EffortStateError
  | DuplicateEffortId
  | InvalidEffortInput
  | SessionStoreError
  | SummarizerError

// ---------------------------------------------------------------------------------------------------------------
// Replies (shaped like CCM's tool replies)
// ---------------------------------------------------------------------------------------------------------------

/**
 * Reply of `openEffort`: `{status: "opened", effort_id}`.
 *
 * @category models
 * @since 0.1.0
 */
export interface OpenReply {
  readonly status: "opened"
  readonly effort_id: string
}

/**
 * Reply of `closeEffort`: `{status: "concluded", effort_id, summary}`.
 *
 * @category models
 * @since 0.1.0
 */
export interface CloseReply {
  readonly status: "concluded"
  readonly effort_id: string
  readonly summary: string
}

/**
 * One effort in {@link StatusReply}.
 *
 * @category models
 * @since 0.1.0
 */
export interface StatusEntry {
  readonly id: string
  readonly status: "open" | "concluded"
  readonly summary: string | null
  /** Open efforts: whether it is the active one. */
  readonly active?: boolean
  /** Concluded efforts: whether it is expanded. */
  readonly expanded?: boolean
  /** Tokens of the raw log's content. */
  readonly raw_tokens?: number
  /** Concluded efforts: tokens of the summary. */
  readonly summary_tokens?: number
}

/**
 * Reply of `effortStatus`: `{efforts}`, plus `message: "No efforts yet."` when there are none.
 *
 * @category models
 * @since 0.1.0
 */
export interface StatusReply {
  readonly efforts: ReadonlyArray<StatusEntry>
  readonly message?: string
}

/**
 * Reply of `expandEffort`: `{status: "expanded", effort_id, tokens_loaded}`; `tokens_loaded` counts the log's
 * message contents (not its JSON syntax).
 *
 * @category models
 * @since 0.1.0
 */
export interface ExpandReply {
  readonly status: "expanded"
  readonly effort_id: string
  readonly tokens_loaded: number
}

/**
 * Reply of `collapseEffort`: `{status: "collapsed", effort_id}`.
 *
 * @category models
 * @since 0.1.0
 */
export interface CollapseReply {
  readonly status: "collapsed"
  readonly effort_id: string
}

/**
 * Reply of `switchEffort`: `{status: "switched", effort_id}`.
 *
 * @category models
 * @since 0.1.0
 */
export interface SwitchReply {
  readonly status: "switched"
  readonly effort_id: string
}

/**
 * One result of `searchEfforts`.
 *
 * @category models
 * @since 0.1.0
 */
export interface SearchResult {
  readonly id: string
  readonly summary: string | null
  readonly status: "concluded"
}

/**
 * Reply of `searchEfforts`: `{results, query}`, best match first.
 *
 * @category models
 * @since 0.1.0
 */
export interface SearchReply {
  readonly results: ReadonlyArray<SearchResult>
  readonly query: string
}

/**
 * Reply of `reopenEffort`: `{status: "reopened", effort_id, prior_summary}`.
 *
 * @category models
 * @since 0.1.0
 */
export interface ReopenReply {
  readonly status: "reopened"
  readonly effort_id: string
  readonly prior_summary: string | null
}

// ---------------------------------------------------------------------------------------------------------------
// Turns, context and metrics
// ---------------------------------------------------------------------------------------------------------------

/**
 * A tool call made during a turn and its result, logged between the user message and the final assistant
 * message. A call and its result are always kept (or collapsed) together.
 *
 * @category models
 * @since 0.1.0
 */
export interface ToolExchange {
  /** The call id. */
  readonly id: string
  /** The tool name. */
  readonly name: string
  /** The call's arguments. */
  readonly arguments: unknown
  /** The result (a string is logged as is, anything else as JSON). */
  readonly result: unknown
}

/**
 * Input of `processTurn`.
 *
 * @category models
 * @since 0.1.0
 */
export interface TurnInput {
  /** The user's message. */
  readonly user: string
  /** The model's final text (without banners; the session adds them). */
  readonly assistant: string
  /** Tool calls made during the turn, in order. */
  readonly tool_calls?: ReadonlyArray<ToolExchange> | undefined
}

/**
 * The decay (slice 3) and context (slice 2) metrics.
 *
 * @category models
 * @since 0.1.0
 */
export interface DecayMetrics {
  /** The last completed turn. */
  readonly turn: number
  /** Auto-collapses so far. */
  readonly auto_collapses: number
  /** Manual `collapseEffort` calls so far. */
  readonly manual_collapses: number
  /** Average turns an expansion stayed expanded, over finished expansions (0 when none finished). */
  readonly avg_expansion_duration: number
  /** Share of collapses that were manual: manual / (manual + auto), 0 when there were none. */
  readonly manual_vs_auto_collapse: number
  /** Re-expansions within 2 turns of an auto-collapse. */
  readonly false_decays: number
  /** `false_decays / auto_collapses` (0 without auto-collapses). */
  readonly false_decay_rate: number
  /** Tokens freed by auto-collapses so far (the raw size of each decayed effort, summed). */
  readonly tokens_saved_by_decay: number
  /** Tokens in the working context for the next turn (sum over its parts). */
  readonly context_tokens: number
  /** Tokens of expanded efforts in that context. */
  readonly expansion_tokens: number
  /** `expansion_tokens / context_tokens`. */
  readonly expansion_overhead: number
  /** `1 − context_tokens / naive_tokens`, where naive keeps every message of the session. */
  readonly savings_vs_naive: number
}

/**
 * Output of `processTurn`.
 *
 * @category models
 * @since 0.1.0
 */
export interface TurnResult {
  /** The completed turn's number. */
  readonly turn: number
  /** Efforts auto-collapsed this turn. */
  readonly decayed: ReadonlyArray<string>
  /** The turn's banners: tool banners first (as logged), then decay banners (not logged). */
  readonly banners: ReadonlyArray<string>
  /** The text to show: tool banners, the assistant text, then decay banners. */
  readonly response: string
  /** Metrics after the turn. */
  readonly metrics: DecayMetrics
}

/**
 * A message of the working context.
 *
 * @category models
 * @since 0.1.0
 */
export interface ContextMessage {
  readonly role: "system" | "user" | "assistant" | "tool"
  readonly content: string
  readonly tool_calls?: ReadonlyArray<ToolCall>
  readonly tool_call_id?: string
}

/**
 * A read-only view of the session state.
 *
 * @category models
 * @since 0.1.0
 */
export interface SessionView {
  /** Completed turns. */
  readonly turn_count: number
  /** The manifest. */
  readonly manifest: ReadonlyArray<Effort>
  /** Expanded effort ids. */
  readonly expanded: ReadonlyArray<string>
  /** Last reference turn per expanded effort. */
  readonly last_referenced_turn: Readonly<Record<string, number>>
  /** Last reference turn per concluded summary. */
  readonly summary_last_referenced_turn: Readonly<Record<string, number>>
  /** Effective decay threshold per expanded effort. */
  readonly thresholds: Readonly<Record<string, number>>
  /** Ids whose summaries are currently evicted from the system prompt. */
  readonly evicted: ReadonlyArray<string>
}

/**
 * Session settings: the decay settings (upstream defaults) plus heed's per-effort thresholds and hysteresis.
 *
 * @category models
 * @since 0.1.0
 */
export interface SessionConfig extends Partial<Decay.DecayConfig> {
  /** Per-effort decay thresholds. */
  readonly effort_thresholds?: Readonly<Record<string, number>> | undefined
  /** A re-expansion this many turns or fewer after an auto-collapse is a false decay (default 2). */
  readonly hysteresis_window?: number | undefined
  /** Turns added to an effort's threshold per false decay (default: the session's `decay_threshold`). */
  readonly hysteresis_extension?: number | undefined
  /** Replaces the default system prompt (tool-usage rules). */
  readonly system_prompt?: string | undefined
}

/**
 * The default system prompt: how to use the effort tools.
 *
 * @category constants
 * @since 0.1.0
 */
export const DEFAULT_SYSTEM_PROMPT = [
  "You work in efforts: an effort is a piece of work that can be concluded.",
  "- open_effort when the user starts such work; never for greetings or one-off questions.",
  "- While an effort is active, follow-ups and sub-topics belong to it.",
  "- close_effort only when the user says the work is done or resolved, never to pause or switch.",
  "- expand_effort when a concluded effort's summary cannot answer the question; collapse_effort when done.",
  "  Expanded efforts also collapse on their own when the conversation moves on.",
  "- search_efforts when the topic is not among the visible summaries; reopen_effort when the user names one.",
  "When in doubt, answer without calling tools."
].join("\n")

/**
 * The `## Memory` paragraph added whenever concluded efforts exist.
 *
 * @category constants
 * @since 0.1.0
 */
export const MEMORY_SECTION =
  "## Memory\nOnly summaries referenced recently are listed above. Older concluded efforts still exist: " +
  "find them with search_efforts and load one in full with expand_effort."

/**
 * The header before the summary lines in the system message.
 *
 * @category constants
 * @since 0.1.0
 */
export const SUMMARIES_HEADER = "Concluded efforts (summaries only):"

const BRIEF_LIMIT = 50

/**
 * The session service interface.
 *
 * @category models
 * @since 0.1.0
 */
export interface SessionShape {
  /** Opens an effort and makes it the active one. Fails on an existing id. */
  readonly openEffort: (input: { readonly name: string }) => Effect.Effect<OpenReply, EffortError>
  /** Concludes the given open effort (or the active one) with a summary. */
  readonly closeEffort: (input?: { readonly id?: string | undefined }) => Effect.Effect<CloseReply, EffortError>
  /** Lists the efforts. */
  readonly effortStatus: () => Effect.Effect<StatusReply>
  /** Loads a concluded effort's raw log into the context; `decay_threshold` overrides its threshold. */
  readonly expandEffort: (input: {
    readonly id: string
    readonly decay_threshold?: number | undefined
  }) => Effect.Effect<ExpandReply, EffortError>
  /** Collapses an expanded effort back to its summary. */
  readonly collapseEffort: (input: { readonly id: string }) => Effect.Effect<CollapseReply, EffortError>
  /** Makes an open effort the active one. */
  readonly switchEffort: (input: { readonly id: string }) => Effect.Effect<SwitchReply, EffortError>
  /** Finds concluded efforts by id or summary keywords, ranked by rarity-weighted keyword overlap. */
  readonly searchEfforts: (input: { readonly query: string }) => Effect.Effect<SearchReply>
  /** Reopens a concluded effort as the active one. */
  readonly reopenEffort: (input: { readonly id: string }) => Effect.Effect<ReopenReply, EffortError>
  /** Completes a turn: logs it, runs decay and returns banners and metrics. */
  readonly processTurn: (input: TurnInput) => Effect.Effect<TurnResult, SessionStoreError>
  /** The ordered messages of the working context for the next model call. */
  readonly buildContext: () => Effect.Effect<ReadonlyArray<ContextMessage>>
  /** The current metrics. */
  readonly metrics: () => Effect.Effect<DecayMetrics>
  /** A view of the state. */
  readonly state: () => Effect.Effect<SessionView>
}

/**
 * The Effect metrics a session updates, named as in the slice-3 and slice-2 specs: counters
 * `auto_collapses`, `manual_collapses`, `false_decays`, `tokens_saved_by_decay`; gauges
 * `avg_expansion_duration`, `manual_vs_auto_collapse`, `false_decay_rate`, `context_tokens`,
 * `expansion_tokens`, `expansion_overhead`, `savings_vs_naive`.
 *
 * @category metrics
 * @since 0.1.0
 */
export const SessionMetrics = {
  auto_collapses: Metric.counter("auto_collapses", { description: "Auto-collapse events" }),
  manual_collapses: Metric.counter("manual_collapses", { description: "Explicit collapse_effort calls" }),
  false_decays: Metric.counter("false_decays", { description: "Re-expansions within 2 turns of a decay" }),
  tokens_saved_by_decay: Metric.counter("tokens_saved_by_decay", { description: "Tokens freed by auto-collapses" }),
  avg_expansion_duration: Metric.gauge("avg_expansion_duration", { description: "Average turns per expansion" }),
  manual_vs_auto_collapse: Metric.gauge("manual_vs_auto_collapse", { description: "Manual share of collapses" }),
  false_decay_rate: Metric.gauge("false_decay_rate", { description: "False decays per auto-collapse" }),
  context_tokens: Metric.gauge("context_tokens", { description: "Tokens in the working context" }),
  expansion_tokens: Metric.gauge("expansion_tokens", { description: "Tokens of expanded efforts in context" }),
  expansion_overhead: Metric.gauge("expansion_overhead", { description: "expansion_tokens / context_tokens" }),
  savings_vs_naive: Metric.gauge("savings_vs_naive", { description: "1 - context / full history tokens" })
}
const autoCollapsesCounter = SessionMetrics.auto_collapses
const manualCollapsesCounter = SessionMetrics.manual_collapses
const falseDecaysCounter = SessionMetrics.false_decays
const tokensSavedCounter = SessionMetrics.tokens_saved_by_decay
const gauges = SessionMetrics

const hasForbiddenChar = (id: string): boolean => {
  for (let i = 0; i < id.length; i++) {
    const code = id.charCodeAt(i)
    if (code < 0x20 || code === 0x7f || id[i] === "/" || id[i] === "\\") return true
  }
  return false
}

const validateId = (id: unknown): InvalidEffortInput | undefined => {
  if (typeof id !== "string" || id.trim().length === 0) {
    return new InvalidEffortInput({ message: "An effort id must be a non-empty string." })
  }
  if (id !== id.trim() || id === "." || id === ".." || id.length > 120 || hasForbiddenChar(id)) {
    return new InvalidEffortInput({
      id,
      message: `Invalid effort id '${id}': use up to 120 characters without slashes, control characters or surrounding spaces.`
    })
  }
  return undefined
}

const validThreshold = (value: unknown): value is number =>
  typeof value === "number" && Number.isInteger(value) && value >= 1

const stringify = (value: unknown): string => {
  if (typeof value === "string") return value
  try {
    return JSON.stringify(value) ?? ""
  } catch {
    return String(value)
  }
}

const make = (options: SessionConfig = {}) =>
  Effect.gen(function* () {
    const store = yield* SessionStore
    const summarizer = yield* Summarizer
    const counter = yield* TokenCounter
    const config = Decay.resolveConfig(options)
    const hysteresisWindow = validThreshold(options.hysteresis_window) ? options.hysteresis_window : 2
    const hysteresisExtension =
      typeof options.hysteresis_extension === "number" &&
      Number.isFinite(options.hysteresis_extension) &&
      options.hysteresis_extension >= 0
        ? Math.floor(options.hysteresis_extension)
        : config.decay_threshold
    const effortThresholds: Record<string, number> = {}
    for (const [id, value] of Object.entries(options.effort_thresholds ?? {})) {
      if (validThreshold(value)) effortThresholds[id] = value
    }
    const systemPrompt = options.system_prompt ?? DEFAULT_SYSTEM_PROMPT
    const systemPromptTokens = counter.count(systemPrompt)
    const fixedSystemTokens = counter.count(`${SUMMARIES_HEADER}\n${MEMORY_SECTION}`)

    const snapshot = yield* store.load
    let manifest: Array<Effort> = [...snapshot.manifest]
    const logs = new Map<string, Array<LogMessage>>()
    const logTokens = new Map<string, number>()
    const messageTokens = (message: LogMessage) => counter.count(message.content)
    for (const effort of manifest) {
      const log = [...(snapshot.logs.get(effort.id) ?? [])]
      logs.set(effort.id, log)
      logTokens.set(
        effort.id,
        log.reduce((sum, message) => sum + messageTokens(message), 0)
      )
    }
    const ambient: Array<LogMessage> = [...snapshot.ambient]
    const ambientTokens: Array<number> = ambient.map(messageTokens)
    let ambientTotal = ambientTokens.reduce((a, b) => a + b, 0)

    const known = new Set(manifest.map((effort) => effort.id))
    const prune = (record: Readonly<Record<string, number>> | undefined, keep: (id: string) => boolean) => {
      const out: Record<string, number> = {}
      for (const [id, value] of Object.entries(record ?? {})) if (keep(id)) out[id] = value
      return out
    }
    const isConcluded = (id: string) => manifest.some((effort) => effort.id === id && effort.status === "concluded")
    let expanded: Array<string> = [...new Set(snapshot.expanded.expanded)].filter(isConcluded)
    const expandedAt: Record<string, string> = {}
    for (const id of expanded) expandedAt[id] = snapshot.expanded.expanded_at[id] ?? ""
    let lastReferenced: Record<string, number> = prune(snapshot.expanded.last_referenced_turn, (id) =>
      expanded.includes(id)
    )
    let summaryReferenced: Record<string, number> = prune(snapshot.expanded.summary_last_referenced_turn, (id) =>
      known.has(id)
    )
    const decayThresholds: Record<string, number> = prune(snapshot.expanded.decay_thresholds, (id) => known.has(id))
    const expandedTurn: Record<string, number> = prune(snapshot.expanded.expanded_turn, (id) => expanded.includes(id))
    const autoCollapsedTurn: Record<string, number> = prune(snapshot.expanded.auto_collapsed_turn, (id) =>
      known.has(id)
    )
    const falseDecays: Record<string, number> = prune(snapshot.expanded.false_decays, (id) => known.has(id))
    let turnCount = Math.max(0, Math.floor(snapshot.session.turn_count))
    let totals: MetricTotals = snapshot.session.metrics ?? emptyTotals
    let activeAtTurnStart: string | undefined = manifest.find((effort) => effort.status === "open" && effort.active)?.id
    const closedThisTurn = new Set<string>()
    let pendingBanners: Array<string> = []
    const cache = Decay.makeCache()
    const summaryLineTokens = new Map<string, { readonly summary: string | null; readonly tokens: number }>()

    const lock = yield* Semaphore.make(1)
    const currentTurn = () => turnCount + 1
    const nowIso = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis).toISOString())
    const find = (id: string) => manifest.find((effort) => effort.id === id)

    // The effort named by a tool call, which must be in `status` for `verb`; otherwise upstream's error replies.
    const effortIn = (id: unknown, status: Effort["status"], verb: string) =>
      Effect.gen(function* () {
        const effort = typeof id === "string" ? find(id) : undefined
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
    const active = () => manifest.find((effort) => effort.status === "open" && effort.active === true)
    const baseThreshold = (id: string) => effortThresholds[id] ?? config.decay_threshold
    const thresholdOf = (id: string) => decayThresholds[id] ?? baseThreshold(id)

    const saveExpanded = Effect.suspend(() =>
      store.saveExpanded({
        expanded,
        expanded_at: expandedAt,
        last_referenced_turn: lastReferenced,
        summary_last_referenced_turn: summaryReferenced,
        decay_thresholds: decayThresholds,
        expanded_turn: expandedTurn,
        auto_collapsed_turn: autoCollapsedTurn,
        false_decays: falseDecays
      })
    )
    const saveManifest = Effect.suspend(() => store.saveManifest(manifest))
    const saveSession = Effect.flatMap(nowIso, (updated) =>
      store.saveSession({ turn_count: turnCount, updated, metrics: totals })
    )

    const update = (id: string, patch: (effort: Effort) => Effort) => {
      manifest = manifest.map((effort) => (effort.id === id ? patch(effort) : effort))
    }
    const withoutActive = (effort: Effort): Effort => {
      const { active: _active, ...rest } = effort
      return rest
    }
    const setActive = (id: string | undefined) => {
      manifest = manifest.map((effort) => (effort.status !== "open" ? effort : { ...effort, active: effort.id === id }))
    }

    const finishExpansion = (id: string, endTurn: number) => {
      expanded = expanded.filter((other) => other !== id)
      delete expandedAt[id]
      delete lastReferenced[id]
      const started = expandedTurn[id]
      delete expandedTurn[id]
      totals = {
        ...totals,
        completed_expansions: totals.completed_expansions + 1,
        expansion_turns: totals.expansion_turns + Math.max(0, endTurn - (started ?? endTurn))
      }
    }

    const summarize = (id: string) =>
      Effect.suspend(() => {
        const log = logs.get(id) ?? []
        const content = log
          .filter((message) => message.role !== "system")
          .map((message) => message.content)
          .join("\n")
        if (content.trim().length < BRIEF_LIMIT) return Effect.succeed(`Brief effort: ${id} (too short to summarize)`)
        return Effect.map(summarizer.summarize({ effort_id: id, messages: log }), (summary) =>
          summary.trim().length === 0 ? `Brief effort: ${id} (too short to summarize)` : summary.trim()
        )
      })

    // Writes to the store first and updates memory only once the write succeeded.
    const append = (target: string | undefined, messages: ReadonlyArray<LogMessage>) =>
      target === undefined
        ? Effect.tap(store.appendAmbient(messages), () =>
            Effect.sync(() => {
              for (const message of messages) {
                const tokens = messageTokens(message)
                ambient.push(message)
                ambientTokens.push(tokens)
                ambientTotal += tokens
              }
            })
          )
        : Effect.tap(store.appendEffort(target, messages), () =>
            Effect.sync(() => {
              let log = logs.get(target)
              if (log === undefined) {
                log = []
                logs.set(target, log)
              }
              let tokens = logTokens.get(target) ?? 0
              for (const message of messages) {
                log.push(message)
                tokens += messageTokens(message)
              }
              logTokens.set(target, tokens)
            })
          )

    const decayState = (withTokens: boolean): Decay.DecayState => {
      const thresholds: Record<string, number> = {}
      for (const id of expanded) thresholds[id] = thresholdOf(id)
      const sizes: Record<string, number> | undefined = withTokens ? {} : undefined
      if (sizes !== undefined) for (const id of expanded) sizes[id] = logTokens.get(id) ?? 0
      return {
        efforts: manifest,
        expanded,
        last_referenced_turn: lastReferenced,
        summary_last_referenced_turn: summaryReferenced,
        decay_thresholds: thresholds,
        expanded_tokens: sizes
      }
    }

    // The ambient window: the last `2 × ambient_window` messages, widened so a tool result never loses its call.
    const ambientStart = () => {
      let start = Math.max(0, ambient.length - config.ambient_window * 2)
      while (start > 0 && ambient[start]!.role === "tool") start--
      return start
    }

    const evictedNow = () =>
      Decay.evicted(
        { efforts: manifest, expanded, last_referenced_turn: {}, summary_last_referenced_turn: summaryReferenced },
        currentTurn(),
        config
      )

    const visibleSummaries = () => {
      const evicted = evictedNow()
      const open = new Set(expanded)
      return manifest.filter(
        (effort) => effort.status === "concluded" && !open.has(effort.id) && !evicted.has(effort.id)
      )
    }

    const summaryLine = (effort: Effort) => `- ${effort.id}: ${effort.summary ?? ""}`

    const computeMetrics = (): DecayMetrics => {
      const hasConcluded = manifest.some((effort) => effort.status === "concluded")
      let system = systemPromptTokens + (hasConcluded ? fixedSystemTokens : 0)
      for (const effort of visibleSummaries()) {
        const cached = summaryLineTokens.get(effort.id)
        if (cached !== undefined && cached.summary === effort.summary) system += cached.tokens
        else {
          const tokens = counter.count(summaryLine(effort))
          summaryLineTokens.set(effort.id, { summary: effort.summary, tokens })
          system += tokens
        }
      }
      let ambientWindow = 0
      for (let i = ambientStart(); i < ambient.length; i++) ambientWindow += ambientTokens[i]!
      let expansion = 0
      for (const id of expanded) expansion += logTokens.get(id) ?? 0
      let open = 0
      let allLogs = 0
      for (const effort of manifest) {
        const tokens = logTokens.get(effort.id) ?? 0
        allLogs += tokens
        if (effort.status === "open") open += tokens
      }
      const context = system + ambientWindow + expansion + open
      const naive = systemPromptTokens + ambientTotal + allLogs
      const collapses = totals.manual_collapses + totals.auto_collapses
      return {
        turn: turnCount,
        auto_collapses: totals.auto_collapses,
        manual_collapses: totals.manual_collapses,
        avg_expansion_duration:
          totals.completed_expansions === 0 ? 0 : totals.expansion_turns / totals.completed_expansions,
        manual_vs_auto_collapse: collapses === 0 ? 0 : totals.manual_collapses / collapses,
        false_decays: totals.false_decays,
        false_decay_rate: totals.auto_collapses === 0 ? 0 : totals.false_decays / totals.auto_collapses,
        tokens_saved_by_decay: totals.tokens_saved_by_decay,
        context_tokens: context,
        expansion_tokens: expansion,
        expansion_overhead: context === 0 ? 0 : expansion / context,
        savings_vs_naive: naive <= 0 ? 0 : Math.max(0, 1 - context / naive)
      }
    }

    const emitGauges = (metrics: DecayMetrics) =>
      Effect.all(
        [
          Metric.update(gauges.avg_expansion_duration, metrics.avg_expansion_duration),
          Metric.update(gauges.manual_vs_auto_collapse, metrics.manual_vs_auto_collapse),
          Metric.update(gauges.false_decay_rate, metrics.false_decay_rate),
          Metric.update(gauges.context_tokens, metrics.context_tokens),
          Metric.update(gauges.expansion_tokens, metrics.expansion_tokens),
          Metric.update(gauges.expansion_overhead, metrics.expansion_overhead),
          Metric.update(gauges.savings_vs_naive, metrics.savings_vs_naive)
        ],
        { discard: true }
      )

    const openEffort = (input: { readonly name: string }) =>
      Effect.gen(function* () {
        const id = input?.name
        const invalid = validateId(id)
        if (invalid !== undefined) return yield* invalid
        const existing = find(id)
        if (existing !== undefined) {
          return yield* new DuplicateEffortId({
            id,
            message:
              `Effort '${id}' already exists (status '${existing.status}'). ` +
              (existing.status === "concluded"
                ? "Use reopen_effort to continue it, or choose another name."
                : "Use switch_effort to make it active, or choose another name.")
          })
        }
        const now = yield* nowIso
        setActive(undefined)
        manifest = [
          ...manifest,
          {
            id,
            status: "open",
            active: true,
            summary: null,
            raw_file: `efforts/${id}.jsonl`,
            created: now,
            updated: now
          }
        ]
        logs.set(id, [])
        logTokens.set(id, 0)
        yield* saveManifest
        pendingBanners.push(Banner.started(id))
        return { status: "opened", effort_id: id } satisfies OpenReply
      })

    const closeEffort = (input?: { readonly id?: string | undefined }) =>
      Effect.gen(function* () {
        const requested = input?.id
        let effort: Effort | undefined
        if (requested !== undefined) {
          effort = manifest.find((entry) => entry.id === requested && entry.status === "open")
          if (effort === undefined) {
            return yield* new EffortNotFound({ id: requested, message: `No open effort with id '${requested}'.` })
          }
        } else {
          effort = active()
          if (effort === undefined) return yield* new EffortStateError({ message: "No active effort to close." })
        }
        const id = effort.id
        const wasActive = effort.active === true
        const summary = yield* summarize(id)
        const now = yield* nowIso
        update(id, (entry) => ({ ...withoutActive(entry), status: "concluded", summary, updated: now }))
        if (wasActive) {
          const next = manifest.find((entry) => entry.status === "open")
          if (next !== undefined) setActive(next.id)
        }
        closedThisTurn.add(id)
        yield* saveManifest
        pendingBanners.push(Banner.concluded(id, summary))
        return { status: "concluded", effort_id: id, summary } satisfies CloseReply
      })

    const effortStatus = () =>
      Effect.sync((): StatusReply => {
        if (manifest.length === 0) return { efforts: [], message: "No efforts yet." }
        return {
          efforts: manifest.map((effort): StatusEntry => {
            const raw_tokens = logTokens.get(effort.id) ?? 0
            return effort.status === "open"
              ? { id: effort.id, status: "open", summary: effort.summary, active: effort.active === true, raw_tokens }
              : {
                  id: effort.id,
                  status: "concluded",
                  summary: effort.summary,
                  expanded: expanded.includes(effort.id),
                  raw_tokens,
                  summary_tokens: counter.count(effort.summary ?? "")
                }
          })
        }
      })

    const expandEffort = (input: { readonly id: string; readonly decay_threshold?: number | undefined }) =>
      Effect.gen(function* () {
        const effort = yield* effortIn(input?.id, "concluded", "expand")
        const id = effort.id
        if (expanded.includes(id)) {
          return yield* new EffortStateError({ id, message: `Effort '${id}' is already expanded.` })
        }
        if (input.decay_threshold !== undefined && !validThreshold(input.decay_threshold)) {
          return yield* new InvalidEffortInput({
            id,
            message: `decay_threshold must be a whole number of turns, at least 1 (got ${input.decay_threshold}).`
          })
        }
        const turn = currentTurn()
        const collapsedAt = autoCollapsedTurn[id]
        if (collapsedAt !== undefined) {
          delete autoCollapsedTurn[id]
          if (turn - collapsedAt <= hysteresisWindow) {
            // A false decay: the effort was still needed. Lengthen its threshold (hysteresis).
            const count = (falseDecays[id] ?? 0) + 1
            falseDecays[id] = count
            decayThresholds[id] = baseThreshold(id) + hysteresisExtension * count
            totals = { ...totals, false_decays: totals.false_decays + 1 }
            yield* Metric.update(falseDecaysCounter, 1)
          }
        }
        if (input.decay_threshold !== undefined) decayThresholds[id] = input.decay_threshold
        expanded = [...expanded, id]
        expandedAt[id] = yield* nowIso
        lastReferenced[id] = turn
        expandedTurn[id] = turn
        const tokens = logTokens.get(id) ?? 0
        yield* saveExpanded
        pendingBanners.push(Banner.expanded(id, tokens))
        return { status: "expanded", effort_id: id, tokens_loaded: tokens } satisfies ExpandReply
      })

    const collapseEffort = (input: { readonly id: string }) =>
      Effect.gen(function* () {
        const id = input?.id
        if (typeof id !== "string" || !expanded.includes(id)) {
          return yield* new EffortStateError({ id: String(id), message: `Effort '${id}' is not currently expanded.` })
        }
        finishExpansion(id, currentTurn())
        totals = { ...totals, manual_collapses: totals.manual_collapses + 1 }
        yield* Metric.update(manualCollapsesCounter, 1)
        yield* saveExpanded
        yield* saveSession
        pendingBanners.push(Banner.collapsed(id))
        return { status: "collapsed", effort_id: id } satisfies CollapseReply
      })

    const switchEffort = (input: { readonly id: string }) =>
      Effect.gen(function* () {
        const { id } = yield* effortIn(input?.id, "open", "switch to")
        setActive(id)
        yield* saveManifest
        pendingBanners.push(Banner.switched(id))
        return { status: "switched", effort_id: id } satisfies SwitchReply
      })

    const searchEfforts = (input: { readonly query: string }) =>
      Effect.sync((): SearchReply => {
        const query = typeof input?.query === "string" ? input.query : ""
        const concluded = manifest.filter((effort) => effort.status === "concluded")
        const message = References.prepareMessage(query)
        const prepared = concluded.map((effort) => ({
          effort,
          prepared: References.prepareEffort(effort.id, References.extractKeywords(effort.summary))
        }))
        const documentFrequency = new Map<string, number>()
        for (const { prepared: p } of prepared) {
          for (const keyword of p.keywords) documentFrequency.set(keyword, (documentFrequency.get(keyword) ?? 0) + 1)
        }
        const n = prepared.length
        const scored: Array<{ effort: Effort; score: number; index: number }> = []
        prepared.forEach(({ effort, prepared: p }, index) => {
          const idHit = References.mentionsId(message, p)
          let hits = 0
          let score = 0
          for (const keyword of p.keywords) {
            if (!message.words.has(keyword)) continue
            hits++
            score += Math.log(1 + n / (documentFrequency.get(keyword) ?? 1))
          }
          if (!idHit && hits < config.min_keyword_overlap) return
          scored.push({ effort, score: score + (idHit ? 10 : 0), index })
        })
        scored.sort((a, b) => b.score - a.score || a.index - b.index)
        return {
          results: scored.map(({ effort }) => ({ id: effort.id, summary: effort.summary, status: "concluded" })),
          query
        }
      })

    const reopenEffort = (input: { readonly id: string }) =>
      Effect.gen(function* () {
        const effort = yield* effortIn(input?.id, "concluded", "reopen")
        const id = effort.id
        const prior = effort.summary
        const now = yield* nowIso
        if (expanded.includes(id)) finishExpansion(id, currentTurn())
        delete summaryReferenced[id]
        delete autoCollapsedTurn[id]
        update(id, (entry) => ({ ...entry, status: "open", updated: now }))
        setActive(id)
        yield* append(id, [{ role: "system", content: Banner.REOPENED_LOG_LINE, ts: now }])
        yield* saveManifest
        yield* saveExpanded
        pendingBanners.push(Banner.reopened(id))
        return { status: "reopened", effort_id: id, prior_summary: prior } satisfies ReopenReply
      })

    const processTurn = (input: TurnInput) =>
      Effect.gen(function* () {
        const turn = turnCount + 1
        const now = yield* nowIso
        const user = typeof input?.user === "string" ? input.user : ""
        const assistantText = typeof input?.assistant === "string" ? input.assistant : ""
        const toolBanners = pendingBanners
        const logged = toolBanners.length === 0 ? assistantText : `${toolBanners.join("\n\n")}\n\n${assistantText}`

        // Route: the effort active when the turn began (even if the turn closed it), else the one active now.
        const startedIn = activeAtTurnStart !== undefined && find(activeAtTurnStart) ? activeAtTurnStart : undefined
        const target = startedIn ?? active()?.id
        const messages: Array<LogMessage> = [{ role: "user", content: user, ts: now }]
        const calls = input?.tool_calls ?? []
        if (calls.length > 0) {
          messages.push({
            role: "assistant",
            content: "",
            ts: now,
            tool_calls: calls.map((call) => ({ id: call.id, name: call.name, arguments: call.arguments }))
          })
          for (const call of calls) {
            messages.push({ role: "tool", content: stringify(call.result), ts: now, tool_call_id: call.id })
          }
        }
        messages.push({ role: "assistant", content: logged, ts: now })
        yield* append(target, messages)
        // The exchange is stored: the turn is complete from here on.
        turnCount = turn
        pendingBanners = []

        // The closing exchange belongs to the effort: summarize again now that it is logged.
        // If that second summary fails, the summary made at close time stays (the turn is already stored).
        if (target !== undefined && closedThisTurn.has(target) && find(target)?.status === "concluded") {
          const summary = yield* summarize(target).pipe(
            Effect.tapError((error) =>
              Effect.logWarning(`keeping the close-time summary of '${target}': ${error.message}`)
            ),
            Effect.orElseSucceed(() => undefined)
          )
          if (summary !== undefined) {
            update(target, (entry) => ({ ...entry, summary }))
            yield* saveManifest
          }
        }
        closedThisTurn.clear()

        const result = Decay.checkPrepared(
          decayState(config.token_budget !== undefined),
          turn,
          [References.prepareMessage(user), References.prepareMessage(logged)],
          config,
          cache
        )
        const stillExpanded = new Set(result.state.expanded)
        const decayBanners: Array<string> = []
        let freed = 0
        for (const collapse of result.collapses) {
          const tokens = logTokens.get(collapse.id) ?? 0
          freed += tokens
          finishExpansion(collapse.id, turn)
          autoCollapsedTurn[collapse.id] = turn
          decayBanners.push(
            Banner.autoCollapsed(collapse.id, collapse.inactive_turns, collapse.reason === "token_budget")
          )
        }
        expanded = expanded.filter((id) => stillExpanded.has(id))
        lastReferenced = { ...result.state.last_referenced_turn }
        summaryReferenced = { ...result.state.summary_last_referenced_turn }
        if (result.collapses.length > 0) {
          totals = {
            ...totals,
            auto_collapses: totals.auto_collapses + result.collapses.length,
            tokens_saved_by_decay: totals.tokens_saved_by_decay + freed
          }
          yield* Metric.update(autoCollapsesCounter, result.collapses.length)
          yield* Metric.update(tokensSavedCounter, freed)
        }
        activeAtTurnStart = active()?.id
        yield* saveExpanded
        yield* saveSession
        const metrics = computeMetrics()
        yield* emitGauges(metrics)
        return {
          turn,
          decayed: result.decayed,
          banners: [...toolBanners, ...decayBanners],
          response: decayBanners.length === 0 ? logged : `${logged}\n\n${decayBanners.join("\n")}`,
          metrics
        } satisfies TurnResult
      })

    const toContext = (message: LogMessage): ContextMessage => {
      const out: { -readonly [K in keyof ContextMessage]: ContextMessage[K] } = {
        role: message.role,
        content: message.content
      }
      if (message.tool_calls !== undefined) out.tool_calls = message.tool_calls
      if (message.tool_call_id !== undefined) out.tool_call_id = message.tool_call_id
      return out
    }

    const buildContext = () =>
      Effect.sync((): ReadonlyArray<ContextMessage> => {
        const parts = [systemPrompt]
        const summaries = visibleSummaries()
        if (summaries.length > 0) parts.push(`${SUMMARIES_HEADER}\n${summaries.map(summaryLine).join("\n")}`)
        if (manifest.some((effort) => effort.status === "concluded")) parts.push(MEMORY_SECTION)
        const out: Array<ContextMessage> = [{ role: "system", content: parts.join("\n\n") }]
        for (let i = ambientStart(); i < ambient.length; i++) out.push(toContext(ambient[i]!))
        for (const id of [...expanded].sort()) for (const message of logs.get(id) ?? []) out.push(toContext(message))
        const current = active()
        for (const effort of manifest) {
          if (effort.status !== "open" || effort.id === current?.id) continue
          for (const message of logs.get(effort.id) ?? []) out.push(toContext(message))
        }
        if (current !== undefined) for (const message of logs.get(current.id) ?? []) out.push(toContext(message))
        return out
      })

    const state = () =>
      Effect.sync(
        (): SessionView => ({
          turn_count: turnCount,
          manifest: [...manifest],
          expanded: [...expanded],
          last_referenced_turn: { ...lastReferenced },
          summary_last_referenced_turn: { ...summaryReferenced },
          thresholds: Object.fromEntries(expanded.map((id) => [id, thresholdOf(id)])),
          evicted: [...evictedNow()]
        })
      )

    const locked =
      <Args extends ReadonlyArray<unknown>, A, E>(f: (...args: Args) => Effect.Effect<A, E>) =>
      (...args: Args): Effect.Effect<A, E> =>
        lock.withPermit(f(...args))

    return Session.of({
      openEffort: locked(openEffort),
      closeEffort: locked(closeEffort),
      effortStatus: locked(effortStatus),
      expandEffort: locked(expandEffort),
      collapseEffort: locked(collapseEffort),
      switchEffort: locked(switchEffort),
      searchEfforts: locked(searchEfforts),
      reopenEffort: locked(reopenEffort),
      processTurn: locked(processTurn),
      buildContext: locked(buildContext),
      metrics: locked(() => Effect.sync(computeMetrics)),
      state: locked(state)
    })
  })

/**
 * Validation failure of a {@link SessionConfig}.
 *
 * @category errors
 * @since 0.1.0
 */
export class SessionConfigError extends Schema.TaggedError<SessionConfigError>()("SessionConfigError", {
  message: Schema.String
}) {}

const checkConfig = (config: SessionConfig): SessionConfigError | undefined => {
  const turns = ["decay_threshold", "min_keyword_overlap", "summary_eviction_threshold", "ambient_window"] as const
  for (const key of turns) {
    const value = config[key]
    if (value !== undefined && !validThreshold(value)) {
      return new SessionConfigError({ message: `${key} must be a whole number of at least 1 (got ${String(value)}).` })
    }
  }
  if (
    config.token_budget !== undefined &&
    !(typeof config.token_budget === "number" && Number.isFinite(config.token_budget) && config.token_budget >= 0)
  ) {
    return new SessionConfigError({ message: `token_budget must be a finite number of tokens, at least 0.` })
  }
  for (const [id, value] of Object.entries(config.effort_thresholds ?? {})) {
    if (!validThreshold(value)) {
      return new SessionConfigError({ message: `effort_thresholds['${id}'] must be a whole number of at least 1.` })
    }
  }
  if (config.hysteresis_window !== undefined && !validThreshold(config.hysteresis_window)) {
    return new SessionConfigError({ message: "hysteresis_window must be a whole number of at least 1." })
  }
  if (
    config.hysteresis_extension !== undefined &&
    !(Number.isInteger(config.hysteresis_extension) && config.hysteresis_extension >= 0)
  ) {
    return new SessionConfigError({ message: "hysteresis_extension must be a whole number of at least 0." })
  }
  return undefined
}

/**
 * The session service: one conversation's efforts, decay and working context.
 *
 * `Session.layer(config?)` requires `SessionStore`, `Summarizer` and `TokenCounter` and loads the stored
 * session when built; it fails with {@link SessionConfigError} on bad settings or `SessionStoreError` when the
 * stored session cannot be read.
 *
 * **Example** (Expand, then let decay collapse)
 *
 * ```ts
 * import { Session, SessionStore, Summarizer } from "@heed/decay"
 * import { TokenCounter } from "@heed/schema"
 * import { Effect, Layer } from "effect"
 *
 * const program = Effect.gen(function*() {
 *   const session = yield* Session
 *   yield* session.openEffort({ name: "auth-bug" })
 *   yield* session.processTurn({ user: "401s after an hour", assistant: "The refresh token is never sent." })
 *   yield* session.closeEffort({})
 *   yield* session.expandEffort({ id: "auth-bug" })
 *   const { decayed, banners } = yield* session.processTurn({ user: "and the weather?", assistant: "Sunny." })
 * }).pipe(
 *   Effect.provide(
 *     Session.layer().pipe(
 *       Layer.provide([SessionStore.layerMemory, Summarizer.layerExtractive, TokenCounter.layerO200k])
 *     )
 *   )
 * )
 * ```
 *
 * @category services
 * @since 0.1.0
 */
export class Session extends Context.Service<Session, SessionShape>()("@heed/decay/Session") {
  /** Builds the session from the stored one. */
  static readonly make = (
    config: SessionConfig = {}
  ): Effect.Effect<SessionShape, SessionConfigError | SessionStoreError, SessionStore | Summarizer | TokenCounter> => {
    const invalid = checkConfig(config)
    return invalid !== undefined ? Effect.fail(invalid) : make(config)
  }

  /** A layer for the given settings. */
  static readonly layer = (
    config: SessionConfig = {}
  ): Layer.Layer<Session, SessionConfigError | SessionStoreError, SessionStore | Summarizer | TokenCounter> =>
    Layer.effect(Session, Session.make(config))
}
