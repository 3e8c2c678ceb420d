/**
 * Input checks that run only after a graph reported a non-finite result: scanning every embedding up
 * front would cost more than the scoring itself.
 *
 * @internal
 */

/** The first row of a `rows × dim` matrix holding NaN or ±Infinity, or -1. */
export const firstNonFinite = (data: Float32Array, dim: number): number => {
  for (let i = 0; i < data.length; i++) {
    const x = data[i]!
    if (x - x !== 0) return dim > 0 ? Math.floor(i / dim) : 0
  }
  return -1
}
