/**
 * @heed/allocator: working context, LOD tree, invariants, and greedy and optimal focus allocators.
 *
 * @since 0.1.0
 */

/**
 * Focus allocators: `greedy`, `optimal` (exact DP with an LP bound), `stochastic`, `relieve` and
 * `adaptThresholds`.
 *
 * @since 0.1.0
 */
export * as Allocator from "./Allocator.ts"

/**
 * The `Focus` service: append → refocus loop with telemetry.
 *
 * @since 0.1.0
 */
export * as Focus from "./Focus.ts"

/**
 * The `Gister` port and its mean-pool reference layer.
 *
 * @since 0.1.0
 */
export * as Gister from "./Gister.ts"

/**
 * Working-context invariants: `check` lists every violation.
 *
 * @since 0.1.0
 */
export * as Invariants from "./Invariants.ts"

/**
 * The `LensScorer` port and its analytic reference layer.
 *
 * @since 0.1.0
 */
export * as LensScorer from "./LensScorer.ts"

/**
 * The multi-level LOD tree over token embeddings.
 *
 * @since 0.1.0
 */
export * as LodTree from "./LodTree.ts"

/**
 * A seeded pseudo-random generator: the same sequence for the same seed on every platform.
 *
 * @since 0.1.0
 */
export * as SeededRandom from "./SeededRandom.ts"

/**
 * The working context: entries tiling the history, one budget slot each.
 *
 * @since 0.1.0
 */
export * as WorkingContext from "./WorkingContext.ts"
