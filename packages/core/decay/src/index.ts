/**
 * @heed/decay: efforts, reference detection, salience decay and working-context assembly.
 *
 * @since 0.1.0
 */

/**
 * The programmatic effort banners (`--- Auto-collapsed effort: {id} (inactive for {n} turns) ---` and others).
 *
 * @since 0.1.0
 */
export * as Banner from "./Banner.ts"

/**
 * Salience decay and summary eviction as pure functions: `Decay.check(state, turn, user, assistant, config?)`.
 *
 * @since 0.1.0
 */
export * as Decay from "./Decay.ts"

/**
 * The data of one session, in CCM's file format: manifest entries, log lines, the expansion state (`expanded.json`) and
 * the session state (`session_state.json`). heed's extra fields are optional, so files written by CCM load unchanged.
 *
 * @since 0.1.0
 */
export * as Model from "./Model.ts"

/**
 * Reference detection: `References.extractKeywords(summary)` and
 * `References.isReferenced(message, effortId, keywords, options?)`.
 *
 * @since 0.1.0
 */
export * as References from "./References.ts"

/**
 * One conversation's efforts: the effort tools (open, close, status, expand, collapse, switch, search, reopen),
 * per-turn salience decay with banners and metrics, and the assembly of the working context.
 *
 * @since 0.1.0
 */
export * as Session from "./Session.ts"

/**
 * The working context a session hands to the model: one system message (the tool-usage rules, the visible concluded
 * summaries and the memory paragraph), then the ambient window, the expanded efforts' logs, the other open efforts'
 * logs and the active effort's log last.
 *
 * @since 0.1.0
 */
export * as SessionContext from "./SessionContext.ts"

/**
 * The errors of a session: the effort tools' errors (CCM's error texts, as typed errors) and the validation failure of
 * a session's settings. `SessionStoreError` and `SummarizerError` stay beside their services.
 *
 * @since 0.1.0
 */
export * as SessionError from "./SessionError.ts"

/**
 * What a session measures: the {@link DecayMetrics} returned with every turn and the Effect metrics updated alongside
 * them, named as in the slice-3 (decay) and slice-2 (context) specs.
 *
 * @since 0.1.0
 */
export * as SessionMetrics from "./SessionMetrics.ts"

/**
 * The storage port of a session. `SessionStore.layerMemory` keeps everything in memory;
 * `SessionStore.layerFile(directory)` reads and writes CCM's session directory on Effect's `FileSystem`:
 *
 * @since 0.1.0
 */
export * as SessionStore from "./SessionStore.ts"

/**
 * The summarizer port used when an effort closes.
 *
 * @since 0.1.0
 */
export * as Summarizer from "./Summarizer.ts"

/**
 * The eight effort tools as `effect/ai` Tool definitions, their toolkit and handlers.
 *
 * @since 0.1.0
 */
export * as Tools from "./Tools.ts"
