/**
 * A small seeded pseudo-random generator, for seeded weights here and seeded inputs in tests and benches.
 *
 * @internal
 */

/** mulberry32: uniform in [0, 1), the same sequence for the same seed on every platform. */
export const mulberry32 = (seed: number): (() => number) => {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
