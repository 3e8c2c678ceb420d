/**
 * LSD radix sort of `(key, value)` pairs with unsigned 32-bit keys, 11 bits per pass and only as many passes as the
 * largest key needs. Linear in the number of pairs, so ordering a tick's due targets costs O(due).
 *
 * @since 0.1.0
 * @internal
 */

const BITS = 11
const RADIX = 1 << BITS
const MASK = RADIX - 1

/** @internal */
export class RadixSorter {
  private keys = new Uint32Array(0)
  private values = new Int32Array(0)
  private keysTmp = new Uint32Array(0)
  private valuesTmp = new Int32Array(0)
  private readonly counts = new Uint32Array(RADIX)

  /** Room for `count` pairs; returns the key and value buffers to fill (indices `0 .. count - 1`). */
  prepare(count: number): { readonly keys: Uint32Array; readonly values: Int32Array } {
    const capacity = this.keys.length
    // Grow by doubling; give memory back after a burst (e.g. the first tick, when every target is due).
    if (capacity < count || (capacity > 8 * count && capacity > 4096)) {
      const size = capacity < count ? Math.max(count, capacity * 2) : Math.max(2 * count, 1024)
      this.keys = new Uint32Array(size)
      this.values = new Int32Array(size)
      this.keysTmp = new Uint32Array(size)
      this.valuesTmp = new Int32Array(size)
    }
    return { keys: this.keys, values: this.values }
  }

  /** Sorts the first `count` pairs by key (stable) and returns the value buffer holding the sorted values. */
  sort(count: number, maxKey: number): Int32Array {
    let keys = this.keys
    let values = this.values
    let keysOut = this.keysTmp
    let valuesOut = this.valuesTmp
    const counts = this.counts
    for (let shift = 0; shift < 32 && maxKey >>> shift > 0; shift += BITS) {
      counts.fill(0)
      for (let i = 0; i < count; i++) counts[(keys[i]! >>> shift) & MASK]!++
      let total = 0
      for (let b = 0; b < RADIX; b++) {
        const c = counts[b]!
        counts[b] = total
        total += c
      }
      for (let i = 0; i < count; i++) {
        const key = keys[i]!
        const slot = counts[(key >>> shift) & MASK]!++
        keysOut[slot] = key
        valuesOut[slot] = values[i]!
      }
      const swapKeys = keys
      keys = keysOut
      keysOut = swapKeys
      const swapValues = values
      values = valuesOut
      valuesOut = swapValues
    }
    return values
  }
}
