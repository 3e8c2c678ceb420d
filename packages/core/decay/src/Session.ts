/**
 * One conversation's efforts: the effort tools (open, close, status, expand, collapse, switch, search,
 * reopen), per-turn salience decay with banners and metrics, and the assembly of the working context.
 *
 * A turn runs as: `buildContext()` for the model call, any effort tools the model calls, then
 * `processTurn({ user, assistant })`, which logs the exchange, checks decay and returns the banners and
 * metrics. Tools called during a turn act on that turn's number (the first turn is turn 1), exactly as CCM's
 * turn counter incremented at the start of a turn.
 *
 * The errors live in the `SessionError` module, the metrics in `SessionMetrics` and the context's messages and
 * texts in `SessionContext`.
 *
 * @since 0.1.0
 */
import { TokenCounter } from "@heed/schema"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Semaphore from "effect/Semaphore"
import type * as Decay from "./Decay.ts"
import * as Efforts from "./internal/efforts.ts"
import { search } from "./internal/search.ts"
import { checkConfig, resolveSettings } from "./internal/sessionConfig.ts"
import { buildContext } from "./internal/sessionContext.ts"
import { evictedNow, load, type SessionCore, thresholdOf } from "./internal/sessionCore.ts"
import { compute } from "./internal/sessionMetrics.ts"
import { processTurn } from "./internal/turn.ts"
import type { Effort } from "./Model.ts"
import type { ContextMessage } from "./SessionContext.ts"
import type { EffortError, SessionConfigError } from "./SessionError.ts"
import type { DecayMetrics } from "./SessionMetrics.ts"
import { SessionStore, type SessionStoreError } from "./SessionStore.ts"
import { Summarizer } from "./Summarizer.ts"

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

const view = (core: SessionCore): SessionView => ({
  turn_count: core.turnCount,
  manifest: [...core.manifest],
  expanded: [...core.expanded],
  last_referenced_turn: { ...core.lastReferenced },
  summary_last_referenced_turn: { ...core.summaryReferenced },
  thresholds: Object.fromEntries(core.expanded.map((id) => [id, thresholdOf(core, id)])),
  evicted: [...evictedNow(core)]
})

const build = (options: SessionConfig = {}) =>
  Effect.gen(function* () {
    const store = yield* SessionStore
    const summarizer = yield* Summarizer
    const counter = yield* TokenCounter.TokenCounter
    const settings = resolveSettings(options, counter)
    const core = load(yield* store.load, { settings, store, summarizer, counter })
    const lock = yield* Semaphore.make(1)
    // One operation at a time: every operation reads and writes the one state.
    const locked =
      <Args extends ReadonlyArray<unknown>, A, E>(f: (core: SessionCore, ...args: Args) => Effect.Effect<A, E>) =>
      (...args: Args): Effect.Effect<A, E> =>
        lock.withPermit(Effect.suspend(() => f(core, ...args)))
    return Session.of({
      openEffort: locked(Efforts.openEffort),
      closeEffort: locked(Efforts.closeEffort),
      effortStatus: locked((core) => Effect.sync(() => Efforts.effortStatus(core))),
      expandEffort: locked(Efforts.expandEffort),
      collapseEffort: locked(Efforts.collapseEffort),
      switchEffort: locked(Efforts.switchEffort),
      searchEfforts: locked((core, input: { readonly query: string }) =>
        Effect.sync(() =>
          search(
            core.manifest,
            typeof input?.query === "string" ? input.query : "",
            core.settings.config.min_keyword_overlap
          )
        )
      ),
      reopenEffort: locked(Efforts.reopenEffort),
      processTurn: locked(processTurn),
      buildContext: locked((core) => Effect.sync(() => buildContext(core))),
      metrics: locked((core) => Effect.sync(() => compute(core))),
      state: locked((core) => Effect.sync(() => view(core)))
    })
  })

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
 *   const session = yield* Session.Session
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
export class Session extends Context.Service<Session, SessionShape>()("@heed/decay/Session") {}

/**
 * Builds the session from the stored one.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (
  config: SessionConfig = {}
): Effect.Effect<
  SessionShape,
  SessionConfigError | SessionStoreError,
  SessionStore | Summarizer | TokenCounter.TokenCounter
> => {
  const invalid = checkConfig(config)
  return invalid !== undefined ? Effect.fail(invalid) : build(config)
}

/**
 * A layer for the given settings.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (
  config: SessionConfig = {}
): Layer.Layer<
  Session,
  SessionConfigError | SessionStoreError,
  SessionStore | Summarizer | TokenCounter.TokenCounter
> => Layer.effect(Session, make(config))
