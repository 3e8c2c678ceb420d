/**
 * An exact o200k_base token counter in a few megabytes: the vocabulary is decoded on the first count from one
 * base64 string into typed arrays, text is split into pieces by the encoding's pattern, and each piece is
 * byte-pair merged.
 *
 * **Details**
 *
 * - Vocabulary: `packed` holds, per rank, one length byte and the token's bytes; `starts[rank]` is where the bytes
 *   begin; `table` is an open-addressing hash table (linear probing) from token bytes to rank. About 4.5 MB in
 *   all, built in some tens of milliseconds on the first count, never at import.
 * - Pieces: the o200k_base pattern. Its `\s` is Unicode's White_Space, which differs from JavaScript's `\s` (that
 *   one also has U+FEFF and lacks U+0085), and its contractions are case-insensitive under Unicode case folding,
 *   so `s` also stands for U+017F (long s). Both are spelled out below.
 * - Merging: repeatedly join the adjacent pair of parts whose joined bytes have the lowest rank, the leftmost
 *   among equals, until no adjacent pair is a token; the count is the number of parts left. Short pieces scan
 *   for the lowest pair; long ones keep the pairs in a min-heap so that a long run stays near-linear.
 * - A small cache remembers the counts of recent pieces that needed merging.
 *
 * @since 0.1.0
 */
import { packedBase64, tokenCount } from "./o200kVocabulary.js"

/** Unicode's White_Space, the `\s` of the encoding's own (Rust) expression. */
const space = String.raw`\t-\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000`
const upper = String.raw`\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}`
const lower = String.raw`\p{Ll}\p{Lm}\p{Lo}\p{M}`
/** `(?i:'s|'t|'re|'ve|'m|'ll|'d)`: JavaScript has no inline flags, and case folding maps U+017F to s. */
const contraction = String.raw`(?:'(?:[sS\u017f]|[tT]|[rR][eE]|[vV][eE]|[mM]|[lL][lL]|[dD]))?`

/** The o200k_base split pattern, alternative by alternative (sticky: `countO200k` steps `lastIndex` along). */
const splitPattern: RegExp = new RegExp(
  [
    String.raw`[^\r\n\p{L}\p{N}]?[${upper}]*[${lower}]+${contraction}`,
    String.raw`[^\r\n\p{L}\p{N}]?[${upper}]+[${lower}]*${contraction}`,
    String.raw`\p{N}{1,3}`,
    String.raw` ?[^${space}\p{L}\p{N}]+[\r\n/]*`,
    String.raw`[${space}]*[\r\n]+`,
    `[${space}]+(?![^${space}])`,
    `[${space}]+`
  ].join("|"),
  "uy"
)

/**
 * The decoded vocabulary.
 *
 * @category models
 * @since 0.1.0
 */
export interface Vocabulary {
  /** Per rank: one length byte, then the token's bytes. */
  readonly packed: Uint8Array
  /** Where each rank's bytes begin in `packed` (its length byte is just before). */
  readonly starts: Uint32Array
  /** Open addressing, linear probing: a rank and a fingerprint of its hash, or -1 for an empty slot. */
  readonly table: Int32Array
}

const base64Values = (() => {
  const values = new Uint8Array(128).fill(255)
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
  for (let i = 0; i < alphabet.length; i++) values[alphabet.charCodeAt(i)] = i
  return values
})()

/** Standard base64 with padding, decoded without `atob` or `Buffer` (an intermediate string of 1.6 MB). */
const decodeBase64 = (text: string): Uint8Array => {
  let padding = 0
  while (padding < 2 && text.charCodeAt(text.length - 1 - padding) === 61) padding++
  const out = new Uint8Array((text.length / 4) * 3 - padding)
  let at = 0
  for (let i = 0; i < text.length; i += 4) {
    const word =
      (base64Values[text.charCodeAt(i)]! << 18) |
      (base64Values[text.charCodeAt(i + 1)]! << 12) |
      ((base64Values[text.charCodeAt(i + 2)]! & 63) << 6) |
      (base64Values[text.charCodeAt(i + 3)]! & 63)
    out[at++] = word >>> 16
    if (at < out.length) out[at++] = (word >>> 8) & 255
    if (at < out.length) out[at++] = word & 255
  }
  return out
}

/** FNV-1a over `bytes[start, end)`, with its high bits folded in: the table's hash. */
const hashBytes = (bytes: Uint8Array, start: number, end: number): number => {
  let hash = 0x811c9dc5
  for (let i = start; i < end; i++) hash = Math.imul(hash ^ bytes[i]!, 0x01000193)
  return hash ^ (hash >>> 16)
}

/**
 * A table entry is `rank << FINGERPRINT_BITS | fingerprint`, the fingerprint being the hash's top bits (the slot
 * uses the low ones): a probe that meets another token's entry almost always tells from the entry alone, without
 * reading that token's bytes elsewhere in memory. Ranks are below 2^18, so an entry stays a positive Int32.
 */
const FINGERPRINT_BITS = 13
const FINGERPRINT_MASK = (1 << FINGERPRINT_BITS) - 1
const fingerprintOf = (hash: number): number => hash >>> (32 - FINGERPRINT_BITS)

/**
 * Decodes the packed vocabulary and builds the hash table. Throws when the data is inconsistent (a generator bug,
 * never the input's fault).
 *
 * @category constructors
 * @since 0.1.0
 */
export const decodeVocabulary = (base64: string = packedBase64, count: number = tokenCount): Vocabulary => {
  if (count >= 1 << (31 - FINGERPRINT_BITS)) throw new Error(`o200k vocabulary: ${count} tokens do not fit the table`)
  const packed = decodeBase64(base64)
  const starts = new Uint32Array(count)
  // At least twice as many slots as tokens keeps linear probing short.
  let size = 1
  while (size < count * 2) size *= 2
  const mask = size - 1
  const table = new Int32Array(size).fill(-1)
  let at = 0
  for (let rank = 0; rank < count; rank++) {
    const start = at + 1
    const end = start + packed[at]!
    if (end > packed.length) throw new Error(`o200k vocabulary: token ${rank} runs past the data`)
    starts[rank] = start
    const hash = hashBytes(packed, start, end)
    let slot = hash & mask
    while (table[slot] !== -1) slot = (slot + 1) & mask
    table[slot] = (rank << FINGERPRINT_BITS) | fingerprintOf(hash)
    at = end
  }
  if (at !== packed.length) throw new Error(`o200k vocabulary: ${packed.length - at} bytes left after ${count} tokens`)
  return { packed, starts, table }
}

/**
 * The rank of `bytes[start, end)`, or -1 when those bytes are not a token.
 *
 * @category getters
 * @since 0.1.0
 */
export const rankOf = (vocabulary: Vocabulary, bytes: Uint8Array, start: number, end: number): number => {
  const { packed, starts, table } = vocabulary
  const mask = table.length - 1
  const length = end - start
  const hash = hashBytes(bytes, start, end)
  const fingerprint = fingerprintOf(hash)
  let slot = hash & mask
  for (;;) {
    const entry = table[slot]!
    if (entry === -1) return -1
    if ((entry & FINGERPRINT_MASK) === fingerprint) {
      const rank = entry >>> FINGERPRINT_BITS
      const at = starts[rank]!
      if (packed[at - 1] === length) {
        let i = 0
        while (i < length && packed[at + i] === bytes[start + i]) i++
        if (i === length) return rank
      }
    }
    slot = (slot + 1) & mask
  }
}

/** No pair: higher than any rank. */
const NONE = 0x7fffffff

/** Pieces longer than this (in bytes) merge through the heap; shorter ones scan, which is faster for them. */
const HEAP_FROM = 64

// Scratch space shared by every count (counting is synchronous, so nothing interleaves). A piece longer than the
// scratch gets arrays of its own size, and those are dropped after it, so one huge piece does not stay in memory.
const SCRATCH = 4096
let bytes = new Uint8Array(SCRATCH)
let bounds = new Int32Array(SCRATCH + 1)
let pairRanks = new Int32Array(SCRATCH + 1)
let previous = new Int32Array(SCRATCH + 1)
let heap = new Float64Array(3 * SCRATCH)

const ensureBytes = (length: number): void => {
  if (length > bytes.length) bytes = new Uint8Array(length)
}

const ensureParts = (length: number, withHeap: boolean): void => {
  if (length + 1 > bounds.length) {
    bounds = new Int32Array(length + 1)
    pairRanks = new Int32Array(length + 1)
    previous = new Int32Array(length + 1)
  }
  // At most length - 1 initial pairs plus two per merge.
  if (withHeap && 3 * length > heap.length) heap = new Float64Array(3 * length)
}

const releaseScratch = (): void => {
  if (bytes.length > SCRATCH) bytes = new Uint8Array(SCRATCH)
  if (bounds.length > SCRATCH + 1) {
    bounds = new Int32Array(SCRATCH + 1)
    pairRanks = new Int32Array(SCRATCH + 1)
    previous = new Int32Array(SCRATCH + 1)
  }
  if (heap.length > 3 * SCRATCH) heap = new Float64Array(3 * SCRATCH)
}

/**
 * Writes `text[start, end)` as UTF-8 into `bytes`, a lone surrogate as U+FFFD (as `TextEncoder` does), and returns
 * the length. Encoding from the text itself spares a substring for the pieces that are whole tokens.
 */
const encodeUtf8 = (text: string, start: number, end: number): number => {
  ensureBytes((end - start) * 3)
  let at = 0
  for (let i = start; i < end; i++) {
    let code = text.charCodeAt(i)
    if (code < 0x80) {
      bytes[at++] = code
      continue
    }
    if (code < 0x800) {
      bytes[at++] = 0xc0 | (code >>> 6)
      bytes[at++] = 0x80 | (code & 63)
      continue
    }
    if (code >= 0xd800 && code <= 0xdfff) {
      const next = i + 1 < end ? text.charCodeAt(i + 1) : 0
      if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        code = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00)
        i++
        bytes[at++] = 0xf0 | (code >>> 18)
        bytes[at++] = 0x80 | ((code >>> 12) & 63)
        bytes[at++] = 0x80 | ((code >>> 6) & 63)
        bytes[at++] = 0x80 | (code & 63)
        continue
      }
      code = 0xfffd
    }
    bytes[at++] = 0xe0 | (code >>> 12)
    bytes[at++] = 0x80 | ((code >>> 6) & 63)
    bytes[at++] = 0x80 | (code & 63)
  }
  return at
}

const pairRank = (vocabulary: Vocabulary, start: number, end: number): number => {
  const rank = rankOf(vocabulary, bytes, start, end)
  return rank === -1 ? NONE : rank
}

/**
 * Merges `bytes[0, length)` by scanning for the lowest pair each round: `bounds[0..parts]` are the parts' edges
 * and `pairRanks[i]` the rank of parts i and i + 1 joined. Quadratic, but with the fewest steps for short pieces.
 */
const mergeByScan = (vocabulary: Vocabulary, length: number): number => {
  let parts = length
  for (let i = 0; i <= length; i++) bounds[i] = i
  for (let i = 0; i < length - 1; i++) pairRanks[i] = pairRank(vocabulary, i, i + 2)
  for (;;) {
    let lowest = NONE
    let at = -1
    for (let i = 0; i < parts - 1; i++) {
      // Strictly lower: the leftmost of equal ranks wins.
      if (pairRanks[i]! < lowest) {
        lowest = pairRanks[i]!
        at = i
      }
    }
    if (at === -1) return parts
    // Part at + 1 joins part at: drop its left edge and its pair.
    // (Plain loops: copyWithin is a runtime call, slower on the few elements a short piece has.)
    for (let i = at + 1; i < parts; i++) {
      bounds[i] = bounds[i + 1]!
      pairRanks[i] = pairRanks[i + 1]!
    }
    parts--
    pairRanks[at] = at + 1 < parts ? pairRank(vocabulary, bounds[at]!, bounds[at + 2]!) : NONE
    if (at > 0) pairRanks[at - 1] = pairRank(vocabulary, bounds[at - 1]!, bounds[at + 1]!)
  }
}

/** The heap's key: lower rank first, then the leftmost position (exact in a double: rank < 2^18, position < 2^32). */
const SHIFT = 4294967296

/**
 * The same merge for long pieces, in O(n log n): a part is named by the byte it starts at, `bounds[i]` is where
 * part i ends (the next part's start), `previous[i]` the part before, `pairRanks[i]` the rank of part i joined with
 * the next one (`NONE` for a part that was merged away or has no pair). The heap holds (rank, part) keys; a key is
 * stale when the part's pair rank has changed since, and a pair's bytes only grow, so an old rank never comes back.
 */
const mergeByHeap = (vocabulary: Vocabulary, length: number): number => {
  let size = 0
  const push = (key: number): void => {
    let i = size++
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (heap[parent]! <= key) break
      heap[i] = heap[parent]!
      i = parent
    }
    heap[i] = key
  }
  const pop = (): number => {
    const top = heap[0]!
    const last = heap[--size]!
    let i = 0
    for (;;) {
      let child = 2 * i + 1
      if (child >= size) break
      if (child + 1 < size && heap[child + 1]! < heap[child]!) child++
      if (heap[child]! >= last) break
      heap[i] = heap[child]!
      i = child
    }
    heap[i] = last
    return top
  }
  for (let i = 0; i < length; i++) {
    bounds[i] = i + 1
    previous[i] = i - 1
    const rank = i + 1 < length ? pairRank(vocabulary, i, i + 2) : NONE
    pairRanks[i] = rank
    if (rank !== NONE) push(rank * SHIFT + i)
  }
  let parts = length
  while (size > 0) {
    const key = pop()
    const rank = Math.floor(key / SHIFT)
    const part = key - rank * SHIFT
    if (pairRanks[part] !== rank) continue
    const absorbed = bounds[part]!
    const end = bounds[absorbed]!
    bounds[part] = end
    pairRanks[absorbed] = NONE
    if (end < length) previous[end] = part
    parts--
    const after = end < length ? pairRank(vocabulary, part, bounds[end]!) : NONE
    pairRanks[part] = after
    if (after !== NONE) push(after * SHIFT + part)
    const before = previous[part]!
    if (before >= 0) {
      const joined = pairRank(vocabulary, before, end)
      pairRanks[before] = joined
      if (joined !== NONE) push(joined * SHIFT + before)
    }
  }
  return parts
}

/**
 * How a piece that is not one token is merged: `auto` scans short pieces and uses the heap for long ones; `scan`
 * and `heap` force one way (for tests: both must agree).
 *
 * @category models
 * @since 0.1.0
 */
export type Merge = "auto" | "scan" | "heap"

/** Tokens in `bytes[0, length)`, one piece's UTF-8. */
const countEncoded = (vocabulary: Vocabulary, length: number, merge: Merge): number => {
  // Every single byte is a token, and most pieces are whole tokens.
  if (length === 1 || rankOf(vocabulary, bytes, 0, length) !== -1) return 1
  const byHeap = merge === "auto" ? length >= HEAP_FROM : merge === "heap"
  ensureParts(length, byHeap)
  return byHeap ? mergeByHeap(vocabulary, length) : mergeByScan(vocabulary, length)
}

/**
 * Tokens in one piece of the split pattern, counted afresh (no cache).
 *
 * @category combinators
 * @since 0.1.0
 */
export const countPiece = (vocabulary: Vocabulary, piece: string, merge: Merge = "auto"): number => {
  const parts = countEncoded(vocabulary, encodeUtf8(piece, 0, piece.length), merge)
  releaseScratch()
  return parts
}

/** How many merged pieces one generation of the cache holds (two generations are kept). */
const GENERATION = 4096

/** Longer pieces are not cached: they seldom repeat, and each would hold its length in memory. */
const CACHED_LENGTH = 256

// Pieces that are not one token, with their counts: they repeat within a text and across texts (identifiers,
// names, rare words), and merging them is most of the cost of counting. Two generations make a cheap
// least-recently-used cache: a full generation becomes the older one, and a hit there moves back into the newer.
let newer = new Map<string, number>()
let older = new Map<string, number>()

/**
 * Keeps `parts` for `piece`, under a copy of it: a substring may share its text's memory, and a cache entry must
 * not keep a whole text alive.
 */
const remember = (piece: string, parts: number): void => {
  if (piece.length > CACHED_LENGTH) return
  if (newer.size >= GENERATION) {
    older = newer
    newer = new Map()
  }
  const codes = new Array<number>(piece.length)
  for (let i = 0; i < piece.length; i++) codes[i] = piece.charCodeAt(i)
  newer.set(String.fromCharCode(...codes), parts)
}

const countMerged = (vocabulary: Vocabulary, piece: string, length: number): number => {
  const known = newer.get(piece)
  if (known !== undefined) return known
  const aged = older.get(piece)
  if (aged !== undefined) {
    remember(piece, aged)
    return aged
  }
  const parts = countEncoded(vocabulary, length, "auto")
  remember(piece, parts)
  return parts
}

let loaded: Vocabulary | undefined

/**
 * The vocabulary, decoded on the first call.
 *
 * @category getters
 * @since 0.1.0
 */
export const vocabulary = (): Vocabulary => {
  loaded ??= decodeVocabulary()
  return loaded
}

/**
 * Exact o200k_base token count of `text`, special-token markers counted as ordinary text.
 *
 * @category combinators
 * @since 0.1.0
 */
export const countO200k = (text: string): number => {
  const decoded = loaded ?? vocabulary()
  let total = 0
  let start = 0
  splitPattern.lastIndex = 0
  // Sticky, and every character starts some alternative (letters, digits, white space, anything else), so each
  // match is the piece at `start`. `test` builds no match array, and the piece is encoded straight from the text.
  while (start < text.length) {
    if (!splitPattern.test(text)) throw new Error(`o200k: no piece matches at offset ${start}`)
    const end = splitPattern.lastIndex
    const length = encodeUtf8(text, start, end)
    total +=
      length === 1 || rankOf(decoded, bytes, 0, length) !== -1
        ? 1
        : countMerged(decoded, text.slice(start, end), length)
    start = end
  }
  releaseScratch()
  return total
}
