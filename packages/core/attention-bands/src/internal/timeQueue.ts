/**
 * A time-ordered index of `(key, id)` entries: a calendar queue. Entries fall into buckets of `width` seconds
 * (`floor(key / width)`), buckets are visited in time order through a small heap of bucket numbers, and entries
 * inside a bucket are unordered. Pushing is O(1) amortised (plus O(log buckets) for a new bucket) and draining
 * everything up to a time costs O(drained entries), so a tick costs O(due), independent of the number of targets.
 *
 * Buckets are lists of fixed-size typed-array chunks recycled through a pool, so a steady stream of ticks
 * allocates (and leaves for the garbage collector) almost nothing. Entries are never removed early; owners invalidate them lazily (an entry whose
 * key no longer matches the owner's current key is skipped when it is drained).
 *
 * @since 0.1.0
 * @internal
 */
import { KeyHeap } from "./heap.ts"

const CHUNK = 256
const POOL_LIMIT = 512

/** A fixed-size block of entries; buckets are lists of chunks, recycled through the queue's pool. */
interface Chunk {
  readonly keys: Float64Array
  readonly ids: Int32Array
  size: number
}

type Bucket = Array<Chunk>

/** @internal */
export class TimeQueue {
  private readonly width: number
  private readonly buckets = new Map<number, Bucket>()
  private readonly order = new KeyHeap(16)
  private readonly pool: Array<Chunk> = []
  // The bucket pushed to last: consecutive pushes (e.g. marking a tick's polls) usually share it.
  private lastIndex = Number.NaN
  private lastBucket: Bucket | undefined
  size = 0

  constructor(width: number) {
    this.width = width > 0 && Number.isFinite(width) ? width : 1
  }

  private bucketOf(key: number): number {
    return key === -Infinity ? -Infinity : Math.floor(key / this.width)
  }

  push(key: number, id: number): void {
    const index = this.bucketOf(key)
    let bucket = index === this.lastIndex ? this.lastBucket : this.buckets.get(index)
    if (bucket === undefined) {
      bucket = [this.chunk()]
      this.buckets.set(index, bucket)
      this.order.push(index, 0)
    }
    this.lastIndex = index
    this.lastBucket = bucket
    let chunk = bucket[bucket.length - 1]!
    if (chunk.size === CHUNK) {
      chunk = this.chunk()
      bucket.push(chunk)
    }
    chunk.keys[chunk.size] = key
    chunk.ids[chunk.size] = id
    chunk.size++
    this.size++
  }

  private chunk(): Chunk {
    return this.pool.pop() ?? { keys: new Float64Array(CHUNK), ids: new Int32Array(CHUNK), size: 0 }
  }

  /**
   * Removes every entry with `key <= limit` and calls `visit(key, id)` for each, in no particular order. `visit`
   * may push new entries; entries pushed at or before `limit` are not visited in the same drain.
   */
  drain(limit: number, visit: (key: number, id: number) => void): void {
    const last = this.bucketOf(limit)
    const order = this.order
    // Detach the buckets first, so entries that `visit` pushes land in fresh buckets for the next drain.
    const detached: Array<Bucket> = []
    while (order.size > 0 && order.peekKey() <= last) {
      const index = order.peekKey()
      order.pop()
      detached.push(this.buckets.get(index)!)
      this.buckets.delete(index)
    }
    this.lastIndex = Number.NaN
    this.lastBucket = undefined
    const laterKeys: Array<number> = []
    const laterIds: Array<number> = []
    for (const bucket of detached) {
      for (const chunk of bucket) {
        const { ids, keys } = chunk
        const count = chunk.size
        this.size -= count
        for (let i = 0; i < count; i++) {
          const key = keys[i]!
          if (key <= limit) visit(key, ids[i]!)
          else {
            laterKeys.push(key)
            laterIds.push(ids[i]!)
          }
        }
        chunk.size = 0
        if (this.pool.length < POOL_LIMIT) this.pool.push(chunk)
      }
    }
    // Entries of the last bucket that lie after `limit` go back in.
    for (let i = 0; i < laterKeys.length; i++) this.push(laterKeys[i]!, laterIds[i]!)
  }
}
