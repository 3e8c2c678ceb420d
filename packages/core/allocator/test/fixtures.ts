import * as fc from "fast-check"
import { type Allocator, Invariants, WorkingContext } from "../src/index.ts"

export interface Params {
  readonly blockSize: number
  readonly maxLevel: number
  readonly totalTokens: number
  readonly recentTokens: number
}

/** Walks the history from token 0, choosing a legal level at each step from `choices`. */
export const build = (p: Params, choices: ReadonlyArray<number>): WorkingContext.WorkingContext => {
  const K = p.blockSize
  const tail = Invariants.tailStart(p.totalTokens, p.recentTokens)
  const entries: Array<WorkingContext.Entry> = []
  let pos = 0
  let k = 0
  while (pos < p.totalTokens) {
    const allowed = [0]
    for (let L = 1; L <= p.maxLevel; L++) {
      const span = K ** L
      if (pos % span === 0 && pos + span <= tail) allowed.push(L)
    }
    const level = allowed[(choices[k++ % Math.max(1, choices.length)] ?? 0) % allowed.length]!
    entries.push({ level, start: pos })
    pos += K ** level
  }
  return WorkingContext.make(entries, { ...p })
}

export const paramsArb = (max = 160): fc.Arbitrary<Params> =>
  fc.record({
    blockSize: fc.integer({ min: 2, max: 4 }),
    maxLevel: fc.integer({ min: 1, max: 3 }),
    totalTokens: fc.integer({ min: 0, max: max }),
    recentTokens: fc.integer({ min: 0, max: 24 })
  })

export const contextArb = (max = 160) =>
  paramsArb(max).chain((p) =>
    fc
      .array(fc.nat({ max: 12 }), { minLength: 1, maxLength: 64 })
      .map((choices) => ({ params: p, wc: build(p, choices) }))
  )

export const scoresArb = (n: number) =>
  fc.array(fc.oneof(fc.double({ min: -1, max: 1, noNaN: true }), fc.constantFrom(-1, -0.5, 0, 0.5, 1)), {
    minLength: n,
    maxLength: n
  })

/** Applies one action by itself, checking its legality like an independent referee. */
export const applyOne = (
  wc: WorkingContext.WorkingContext,
  action: Allocator.Action
): WorkingContext.WorkingContext => {
  const K = wc.blockSize
  const index = wc.entries.findIndex((e) => e.start === action.start)
  if (index < 0) throw new Error(`no entry starts at ${action.start}`)
  const entries = wc.entries.slice()
  if (action.kind === "expand") {
    const entry = entries[index]!
    if (entry.level !== action.level || action.level < 1) throw new Error("expand of a non-gist")
    const span = K ** (action.level - 1)
    const children = Array.from({ length: K }, (_, c) => ({ level: action.level - 1, start: action.start + c * span }))
    entries.splice(index, 1, ...children)
  } else {
    const span = K ** action.level
    if (action.start % (span * K) !== 0) throw new Error("misaligned collapse")
    for (let c = 0; c < K; c++) {
      const e = entries[index + c]
      if (e === undefined || e.level !== action.level || e.start !== action.start + c * span) {
        throw new Error("collapse of non-siblings")
      }
    }
    entries.splice(index, K, { level: action.level + 1, start: action.start })
  }
  return { ...wc, entries }
}

/** Brute-force optimum over explicit candidates (exponential; for tiny inputs). */
export const bruteForce = (
  wc: WorkingContext.WorkingContext,
  candidates: {
    readonly expands: ReadonlyArray<Allocator.Candidate>
    readonly collapses: ReadonlyArray<Allocator.Candidate>
  },
  budget: number,
  maxActions: number
): number => {
  const all = [...candidates.expands, ...candidates.collapses]
  const K = wc.blockSize
  const cost = wc.entries.length
  let best = 0
  for (let mask = 0; mask < 1 << all.length; mask++) {
    const chosen = all.filter((_, i) => (mask >> i) & 1)
    if (chosen.length > maxActions) continue
    const e = chosen.filter((c) => c.kind === "expand")
    const c = chosen.filter((x) => x.kind === "collapse")
    if (e.length > 0 && cost + (e.length - c.length) * (K - 1) > budget) continue
    const conflict = e.some((x) => c.some((y) => x.index >= y.index && x.index < y.index + K))
    if (conflict) continue
    const value = chosen.reduce((s, x) => s + x.value, 0)
    if (value > best) best = value
  }
  return best
}
