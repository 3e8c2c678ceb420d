/**
 * Allocation internals: candidate collection, heaps, application of non-overlapping edits, cooldown
 * bookkeeping. Plain synchronous code over plain data and typed arrays.
 *
 * @since 0.1.0
 */
import type { Candidate, ResolvedConfig } from "../Allocator.ts"
import type { Entry, WorkingContext } from "../WorkingContext.ts"

/** @internal */
export type ActionKind = "expand" | "collapse"

/** @internal */
export interface CooldownState {
  readonly action: ActionKind
  readonly remaining: number
}

/**
 * A legal candidate edit (the public `Allocator.Candidate`): `index` is the working-context index of the gist
 * (expand) or of the first of the `blockSize` siblings (collapse); `value` is the objective gain.
 *
 * @internal
 */
export type RawCandidate = Candidate

/** @internal */
export const cooldownKey = (level: number, start: number): string => `${level}:${start}`

/**
 * Scans the context once and returns the legal expand and collapse candidates, in context order.
 * Assumes a structurally valid context (see `validateInput`).
 *
 * @internal
 */
export const collect = (
  wc: WorkingContext,
  scores: ArrayLike<number>,
  config: ResolvedConfig,
  cooldowns: ReadonlyMap<string, CooldownState>
): { readonly expands: Array<RawCandidate>; readonly collapses: Array<RawCandidate> } => {
  const { blockSize: K, maxLevel, entries, totalTokens } = wc
  const tail = Math.max(0, totalTokens - config.recentTokens)
  const n = entries.length
  const expands: Array<RawCandidate> = []
  const collapses: Array<RawCandidate> = []
  const hasCooldowns = cooldowns.size > 0
  // Float32 scores (what a scorer returns) are compared at their own precision, so a score or a mean equal
  // to the threshold once both are rounded to float32 (say `Float32Array.of(0.2)`) stays strictly not above it.
  const single = scores instanceof Float32Array
  const tauExpand = single ? Math.fround(config.tauExpand) : config.tauExpand
  const tauCollapse = single ? Math.fround(config.tauCollapse) : config.tauCollapse
  // Built by multiplication so small spans stay small integers (fast integer `%`).
  const spans: Array<number> = [1]
  for (let level = 1; level <= maxLevel + 1; level++) spans.push(spans[level - 1]! * K)
  for (let i = 0; i < n; i++) {
    const entry = entries[i]!
    const level = entry.level
    const score = scores[i]!
    if (level > 0 && score > tauExpand) {
      const cd = hasCooldowns ? cooldowns.get(cooldownKey(level, entry.start)) : undefined
      if (cd === undefined || cd.action !== "collapse" || cd.remaining <= 0) {
        expands.push({ kind: "expand", level, start: entry.start, index: i, score, value: score })
      }
    }
    if (level < maxLevel && i + K <= n) {
      const span = spans[level]!
      const parentSpan = spans[level + 1]!
      const start = entry.start
      if (start % parentSpan === 0 && start + parentSpan <= tail) {
        const last = entries[i + K - 1]!
        if (last.level === level && last.start === start + parentSpan - span) {
          let sum = 0
          let same = true
          for (let j = i; j < i + K; j++) {
            if (entries[j]!.level !== level) {
              same = false
              break
            }
            sum += scores[j]!
          }
          const mean = sum / K
          if (same && (single ? Math.fround(mean) : mean) < -tauCollapse) {
            const cd = hasCooldowns ? cooldowns.get(cooldownKey(level + 1, start)) : undefined
            if (cd === undefined || cd.action !== "expand" || cd.remaining <= 0) {
              collapses.push({ kind: "collapse", level, start, index: i, score: mean, value: -mean })
            }
          }
        }
      }
    }
  }
  return { expands, collapses }
}

/**
 * Orders candidates best first: higher value, then more recent (higher start). Deterministic.
 *
 * @internal
 */
export const better = (a: RawCandidate, b: RawCandidate): boolean =>
  a.value > b.value || (a.value === b.value && a.start > b.start)

/**
 * A binary max-heap over candidates using {@link better}, built in O(n).
 *
 * @internal
 */
export class Heap {
  private readonly items: Array<RawCandidate>
  constructor(items: Array<RawCandidate>) {
    this.items = items
    for (let i = (items.length >> 1) - 1; i >= 0; i--) this.down(i)
  }
  get size(): number {
    return this.items.length
  }
  peek(): RawCandidate | undefined {
    return this.items[0]
  }
  pop(): RawCandidate | undefined {
    const items = this.items
    const top = items[0]
    const last = items.pop()
    if (items.length > 0 && last !== undefined) {
      items[0] = last
      this.down(0)
    }
    return top
  }
  private down(start: number): void {
    const items = this.items
    const n = items.length
    let i = start
    for (;;) {
      const l = 2 * i + 1
      if (l >= n) return
      const r = l + 1
      const best = r < n && better(items[r]!, items[l]!) ? r : l
      if (!better(items[best]!, items[i]!)) return
      const tmp = items[i]!
      items[i] = items[best]!
      items[best] = tmp
      i = best
    }
  }
}

/**
 * Tracks which entries applied edits already touch, so edits within one step never overlap.
 *
 * @internal
 */
export class Touched {
  private readonly marks: Uint8Array
  readonly blockSize: number
  constructor(n: number, blockSize: number) {
    this.marks = new Uint8Array(n)
    this.blockSize = blockSize
  }
  free(candidate: RawCandidate): boolean {
    if (candidate.kind === "expand") return this.marks[candidate.index] === 0
    const end = candidate.index + this.blockSize
    for (let j = candidate.index; j < end; j++) if (this.marks[j] !== 0) return false
    return true
  }
  mark(candidate: RawCandidate): void {
    if (candidate.kind === "expand") this.marks[candidate.index] = 1
    else this.marks.fill(1, candidate.index, candidate.index + this.blockSize)
  }
}

/**
 * Applies non-overlapping edits (in any order) in one pass. When `ages` is given, returns the new
 * ages too: untouched entries keep theirs, entries an edit created start at 0.
 *
 * @internal
 */
export const applyEdits = (
  wc: WorkingContext,
  edits: ReadonlyArray<RawCandidate>,
  ages?: Float64Array
): { readonly context: WorkingContext; readonly ages: Float64Array | undefined } => {
  if (edits.length === 0) return { context: wc, ages }
  const K = wc.blockSize
  const sorted = edits.slice().sort((a, b) => a.index - b.index)
  const entries = wc.entries
  let length = entries.length
  for (const edit of sorted) length += edit.kind === "expand" ? K - 1 : 1 - K
  const out = new Array<Entry>(length)
  const outAges = ages === undefined ? undefined : new Float64Array(length)
  let i = 0
  let o = 0
  for (const edit of sorted) {
    for (; i < edit.index; i++, o++) {
      out[o] = entries[i]!
      if (outAges !== undefined) outAges[o] = ages![i]!
    }
    if (edit.kind === "expand") {
      const childLevel = edit.level - 1
      let childSpan = 1
      for (let l = 0; l < childLevel; l++) childSpan *= K
      for (let c = 0; c < K; c++, o++) out[o] = { level: childLevel, start: edit.start + c * childSpan }
      i = edit.index + 1
    } else {
      out[o++] = { level: edit.level + 1, start: edit.start }
      i = edit.index + K
    }
  }
  for (; i < entries.length; i++, o++) {
    out[o] = entries[i]!
    if (outAges !== undefined) outAges[o] = ages![i]!
  }
  return { context: { ...wc, entries: out }, ages: outAges }
}

/**
 * The cooldowns after one allocator step: existing ones count down by one (and vanish at zero), then
 * every edit applied in this step blocks the opposite action on its gist for `steps` further calls.
 *
 * @internal
 */
export const nextCooldowns = (
  previous: ReadonlyMap<string, CooldownState>,
  applied: ReadonlyArray<RawCandidate>,
  steps: number
): Map<string, CooldownState> => {
  const next = new Map<string, CooldownState>()
  for (const [key, state] of previous) {
    if (state.remaining > 1) next.set(key, { action: state.action, remaining: state.remaining - 1 })
  }
  if (steps > 0) addCooldowns(next, applied, steps)
  return next
}

/** @internal */
export const addCooldowns = (
  into: Map<string, CooldownState>,
  applied: ReadonlyArray<RawCandidate>,
  steps: number
): void => {
  if (steps <= 0) return
  for (const edit of applied) {
    const key = edit.kind === "expand" ? cooldownKey(edit.level, edit.start) : cooldownKey(edit.level + 1, edit.start)
    into.set(key, { action: edit.kind, remaining: steps })
  }
}

/**
 * The top `k` values of `values` in descending order (k small: insertion into a sorted buffer).
 *
 * @internal
 */
export const topValues = (candidates: ReadonlyArray<RawCandidate>, k: number): Array<number> => {
  const top: Array<number> = []
  if (k <= 0) return top
  for (const candidate of candidates) {
    const v = candidate.value
    if (top.length === k && v <= top[k - 1]!) continue
    let pos = top.length < k ? top.length : k - 1
    if (top.length < k) top.push(v)
    while (pos > 0 && top[pos - 1]! < v) {
      top[pos] = top[pos - 1]!
      pos--
    }
    top[pos] = v
  }
  return top
}

/**
 * Locates applied actions in the context they were applied to (binary search on span starts), so a
 * caller can replay them with {@link applyEdits} (for instance to carry residency ages along).
 *
 * @internal
 */
export const locate = (
  wc: WorkingContext,
  actions: ReadonlyArray<{ readonly kind: ActionKind; readonly level: number; readonly start: number }>
): Array<RawCandidate> => {
  const entries = wc.entries
  return actions.map((action) => {
    let lo = 0
    let hi = entries.length - 1
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (entries[mid]!.start < action.start) lo = mid + 1
      else hi = mid
    }
    return { kind: action.kind, level: action.level, start: action.start, index: lo, score: 0, value: 0 }
  })
}

/**
 * Token embeddings as one flat `n · dim` Float32Array, or as one Float32Array of `dim` floats per token
 * (copied into a flat array). `undefined` when the input is neither, or a row has the wrong width.
 *
 * @internal
 */
export const flattenEmbeddings = (embeddings: unknown, dim: number): Float32Array | undefined => {
  if (embeddings instanceof Float32Array) return embeddings.length % dim === 0 ? embeddings : undefined
  if (!Array.isArray(embeddings)) return undefined
  const out = new Float32Array(embeddings.length * dim)
  for (let i = 0; i < embeddings.length; i++) {
    const row: unknown = embeddings[i]
    if (!(row instanceof Float32Array) || row.length !== dim) return undefined
    out.set(row, i * dim)
  }
  return out
}
