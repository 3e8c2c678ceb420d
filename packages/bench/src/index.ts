/**
 * @heed/bench: heed's benchmark harness (private to the workspace).
 *
 * @since 0.1.0
 */

/**
 * Timed cases with extra figures: `Bench.run(suite, cases)` times them, `Bench.record(suite, rows)` reports figures
 * measured elsewhere; `./heed bench` collects the results into `bench-results/<package>.json`.
 *
 * @since 0.1.0
 */
export * as Bench from "./Bench.ts"
