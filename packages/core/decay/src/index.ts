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
