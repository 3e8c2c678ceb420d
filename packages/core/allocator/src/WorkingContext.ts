/**
 * The working context: a contiguous run of entries that tiles the whole token history, each entry a
 * node of the LOD tree (raw token at LOD0, gist at LOD1+). An entry costs one slot of the budget
 * whatever its level.
 *
 * @since 0.1.0
 */

/**
 * One working-context entry: the LOD-tree node at `level` whose span starts at token `start` and covers
 * `[start, start + blockSize ** level)`.
 *
 * @category models
 * @since 0.1.0
 */
export interface Entry {
  /** Level of detail: 0 = raw token, 1 = gist of `blockSize` tokens, 2 = gist of `blockSize` LOD1 gists, ... */
  readonly level: number
  /** First token the entry covers. */
  readonly start: number
}

/**
 * A working context over `totalTokens` tokens of history. Entries are in chronological order.
 *
 * @category models
 * @since 0.1.0
 */
export interface WorkingContext {
  /** Children per gist (K); 32 in MegaContext. */
  readonly blockSize: number
  /** Highest level of detail the tree builds (LOD2 in the POC). */
  readonly maxLevel: number
  /** Tokens of history the context must cover. */
  readonly totalTokens: number
  /** The entries, contiguous and in order. */
  readonly entries: ReadonlyArray<Entry>
}

/**
 * The tree shape of a working context: children per gist and highest level.
 *
 * @category models
 * @since 0.1.0
 */
export interface Shape {
  readonly blockSize: number
  readonly maxLevel: number
}

const tokenCount = (n: number): number => (Number.isFinite(n) ? Math.max(0, Math.floor(n)) : 0)

/**
 * Builds the all-LOD0 working context over `totalTokens` tokens (a negative, fractional or non-finite
 * count is read as the whole number of tokens it allows: `max(0, floor(n))`, 0 when not finite).
 *
 * @category constructors
 * @since 0.1.0
 */
export const fromTokens = (totalTokens: number, shape: Shape): WorkingContext => {
  const total = tokenCount(totalTokens)
  const entries = new Array<Entry>(total)
  for (let i = 0; i < total; i++) entries[i] = { level: 0, start: i }
  return { blockSize: shape.blockSize, maxLevel: shape.maxLevel, totalTokens: total, entries }
}

/**
 * Builds a working context from explicit entries (no validation; see `Invariants.check`).
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (
  entries: ReadonlyArray<Entry>,
  options: Shape & { readonly totalTokens: number }
): WorkingContext => ({
  blockSize: options.blockSize,
  maxLevel: options.maxLevel,
  totalTokens: options.totalTokens,
  entries
})

/**
 * The budget a working context uses: one slot per entry, whatever its level.
 *
 * @category getters
 * @since 0.1.0
 */
export const cost = (wc: WorkingContext): number => wc.entries.length

/**
 * Tokens covered by one entry at `level`: `blockSize ** level`.
 *
 * @category getters
 * @since 0.1.0
 */
export const spanOf = (blockSize: number, level: number): number => blockSize ** level

/**
 * The token-equivalent of the context: the sum of every entry's span. Equals `totalTokens` when the
 * context has full coverage.
 *
 * @category getters
 * @since 0.1.0
 */
export const coverage = (wc: WorkingContext): number => {
  let tokens = 0
  for (const entry of wc.entries) tokens += wc.blockSize ** entry.level
  return tokens
}

/**
 * Entries per level, index = level.
 *
 * @category getters
 * @since 0.1.0
 */
export const levelCounts = (wc: WorkingContext): ReadonlyArray<number> => {
  const counts = new Array<number>(wc.maxLevel + 1).fill(0)
  for (const entry of wc.entries) if (entry.level >= 0 && entry.level <= wc.maxLevel) counts[entry.level]!++
  return counts
}

/**
 * The cooldown key of the gist at `level` starting at token `start`: `"<level>:<start>"`.
 *
 * @category getters
 * @since 0.1.0
 */
export const key = (level: number, start: number): string => `${level}:${start}`

/**
 * Appends `count` new raw tokens (LOD0 entries) to the end of the history. Partial tail blocks stay
 * LOD0; nothing is ever dropped from the head.
 *
 * @category combinators
 * @since 0.1.0
 */
export const append = (wc: WorkingContext, count: number): WorkingContext => {
  const n = tokenCount(count)
  if (n === 0) return wc
  const entries = wc.entries.slice()
  for (let i = 0; i < n; i++) entries.push({ level: 0, start: wc.totalTokens + i })
  return { ...wc, totalTokens: wc.totalTokens + n, entries }
}

/**
 * Options for {@link assemble}: the tree shape, the budget in entries and the protected recent tail in
 * tokens (default 128).
 *
 * @category models
 * @since 0.1.0
 */
export interface AssembleOptions extends Shape {
  readonly budget: number
  readonly recentTokens?: number | undefined
}

/**
 * Initial assembly (cold start) of a context over `totalTokens` tokens within `budget` entries. A history
 * that fits stays all LOD0. Otherwise the recent tail (grown down to a block boundary) stays LOD0, the
 * head starts at its coarsest aligned representation, and the most recent gists are expanded one at a
 * time while the budget allows, giving the docs' recency gradient (LOD0 tail, then LOD1, then LOD2). The
 * result always covers the whole history; it exceeds the budget only when even the coarsest head plus
 * the tail cannot fit (check with `Invariants.check`). Never throws: an unusable shape (say `blockSize`
 * 0) gives the all-LOD0 context, which `Invariants.check` reports.
 *
 * @category constructors
 * @since 0.1.0
 */
export const assemble = (totalTokens: number, options: AssembleOptions): WorkingContext => {
  const { blockSize: K, maxLevel, budget } = options
  const total = tokenCount(totalTokens)
  const validShape = Number.isInteger(K) && K >= 2 && Number.isInteger(maxLevel) && maxLevel >= 0
  // An unusable shape or a history that fits: all LOD0 (Invariants.check reports a bad shape).
  if (!validShape || total <= budget) return fromTokens(total, options)
  const recent = Math.max(0, options.recentTokens ?? 128)
  const headEnd = Math.floor(Math.max(0, total - recent) / K) * K
  const spans: Array<number> = [1]
  for (let level = 1; level <= maxLevel; level++) spans.push(spans[level - 1]! * K)
  // Coarsest aligned head: at each position the largest level that is aligned and fits.
  const head: Array<Entry> = []
  for (let pos = 0; pos < headEnd; ) {
    let level = maxLevel
    while (level > 0 && (pos % spans[level]! !== 0 || pos + spans[level]! > headEnd)) level--
    head.push({ level, start: pos })
    pos += spans[level]!
  }
  const tail = total - headEnd
  let cost = head.length + tail
  // Expand the most recent gist while the budget allows; children of an expanded gist come next.
  let cursor = head.length - 1
  while (cursor >= 0 && cost + K - 1 <= budget) {
    const entry = head[cursor]!
    if (entry.level === 0) {
      cursor--
      continue
    }
    const childSpan = spans[entry.level - 1]!
    const children: Array<Entry> = []
    for (let c = 0; c < K; c++) children.push({ level: entry.level - 1, start: entry.start + c * childSpan })
    head.splice(cursor, 1, ...children)
    cost += K - 1
    cursor += K - 1
  }
  for (let t = headEnd; t < total; t++) head.push({ level: 0, start: t })
  return { blockSize: K, maxLevel, totalTokens: total, entries: head }
}
