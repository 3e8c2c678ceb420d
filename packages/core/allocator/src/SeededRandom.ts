/**
 * A small seeded pseudo-random generator (mulberry32): the same sequence for the same seed on every platform. The
 * `stochastic` allocator draws from it, and adapters use it for seeded weights and inputs, so that a run replays from
 * its seed.
 *
 * @since 0.1.0
 */

/**
 * A generator of floats uniform in `[0, 1)` from `seed` (taken as an unsigned 32-bit integer): each call returns the
 * next number of the sequence.
 *
 * **Example** (Replaying a sequence)
 *
 * ```ts
 * import { SeededRandom } from "@heed/allocator"
 *
 * const a = SeededRandom.make(42)
 * const b = SeededRandom.make(42)
 * console.log(a() === b())
 * // => true
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (seed: number): (() => number) => {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
