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

export * from "./Model.ts"

/**
 * Reference detection: `References.extractKeywords(summary)` and
 * `References.isReferenced(message, effortId, keywords, options?)`.
 *
 * @since 0.1.0
 */
export * as References from "./References.ts"

export * from "./Session.ts"

export * from "./SessionStore.ts"

export * from "./Summarizer.ts"

/**
 * The eight effort tools as `effect/ai` Tool definitions, their toolkit and handlers.
 *
 * @since 0.1.0
 */
export * as Tools from "./Tools.ts"
