/**
 * The optimal allocator's exact dynamic programme over (expands, collapses) counts, and the LP bound reported
 * beside it (see `Allocator.optimal`).
 *
 * @since 0.1.0
 */
import type { Config, Cooldowns, OptimalStats, Result } from "../Allocator.ts"
import type { WorkingContext } from "../WorkingContext.ts"
import { byRank, emptyCooldowns, finish, validate } from "./allocation.ts"
import { better, collect, type RawCandidate, topValues } from "./core.ts"

const interpolate = (values: ReadonlyArray<number>, prefix: ReadonlyArray<number>, x: number): number => {
  const whole = Math.floor(x)
  if (whole >= values.length) return prefix[values.length]!
  return prefix[whole]! + (x - whole) * values[whole]!
}

const prefixSums = (values: ReadonlyArray<number>): Array<number> => {
  const prefix = [0]
  for (const v of values) prefix.push(prefix[prefix.length - 1]! + v)
  return prefix
}

/**
 * The LP relaxation of the selection problem with conflicts dropped: at most `m` actions, and
 * (when anything is expanded) at most `sigma` more expands than collapses. `E` and `C` are expand and
 * collapse values in descending order. An upper bound on the optimum.
 *
 * @internal
 */
const lpBound = (E: ReadonlyArray<number>, C: ReadonlyArray<number>, m: number, sigma: number): number => {
  const PE = prefixSums(E)
  const PC = prefixSums(C)
  const F = (a: number) => interpolate(E, PE, a)
  const G = (b: number) => interpolate(C, PC, b)
  let best = G(Math.min(m, C.length))
  for (let a = 1; a <= Math.min(m, E.length); a++) {
    const b = Math.min(m - a, C.length)
    if (b >= a - sigma) best = Math.max(best, F(a) + G(b))
  }
  for (let b = 0; b <= Math.min(m, C.length); b++) {
    const a = Math.min(m - b, b + sigma, E.length)
    if (a > 0) best = Math.max(best, F(a) + G(b))
  }
  const va = (m + sigma) / 2
  const vb = (m - sigma) / 2
  if (va > 0 && va <= E.length && vb >= 0 && vb <= C.length) best = Math.max(best, F(va) + G(vb))
  return best
}

const topCandidates = (list: ReadonlyArray<RawCandidate>, k: number): Array<RawCandidate> => {
  const top: Array<RawCandidate> = []
  if (k <= 0) return top
  for (const candidate of list) {
    if (top.length === k && !better(candidate, top[k - 1]!)) continue
    let pos = top.length < k ? top.length : k - 1
    if (top.length < k) top.push(candidate)
    while (pos > 0 && better(candidate, top[pos - 1]!)) {
      top[pos] = top[pos - 1]!
      pos--
    }
    top[pos] = candidate
  }
  return top
}

/** Expands grouped by the collapse candidate whose span contains them; the others form the free group. */
const groupExpands = (
  expands: ReadonlyArray<RawCandidate>,
  collapses: ReadonlyArray<RawCandidate>,
  n: number,
  K: number
) => {
  const groupOf = new Int32Array(n).fill(-1)
  for (let g = 0; g < collapses.length; g++) groupOf.fill(g, collapses[g]!.index, collapses[g]!.index + K)
  const inGroup: Array<Array<RawCandidate>> = collapses.map(() => [])
  const free: Array<RawCandidate> = []
  for (const e of expands) {
    const g = groupOf[e.index]!
    if (g >= 0) inGroup[g]!.push(e)
    else free.push(e)
  }
  return { inGroup, free }
}

/** The DP table's shape: cells for (expands, collapses) counts up to the caps, one row of choices per item. */
interface Table {
  readonly eMax: number
  readonly cMax: number
  readonly m: number
  readonly width: number
  readonly cells: number
}

/**
 * One item (the free group, or a collapse with the expands inside its span) folded into the DP: from every
 * reachable cell, take the collapse, or the best `t` of the item's expands, or nothing (the copy; choice 0).
 */
const foldItem = (
  table: Table,
  current: Float64Array,
  choice: Int32Array,
  base: number,
  exps: ReadonlyArray<RawCandidate>,
  collapseValue: number | undefined
) => {
  const { eMax, cMax, m, width } = table
  const gains = prefixSums(exps.map((x) => x.value))
  const next = current.slice()
  for (let e = 0; e <= eMax; e++) {
    for (let c = 0; c <= cMax && e + c <= m; c++) {
      const from = current[e * width + c]!
      if (from === Number.NEGATIVE_INFINITY) continue
      if (collapseValue !== undefined && c < cMax && e + c + 1 <= m) {
        const to = e * width + c + 1
        const v = from + collapseValue
        if (v > next[to]!) {
          next[to] = v
          choice[base + to] = 1
        }
      }
      for (let t = 1; t <= exps.length && e + t <= eMax && e + t + c <= m; t++) {
        const to = (e + t) * width + c
        const v = from + gains[t]!
        if (v > next[to]!) {
          next[to] = v
          choice[base + to] = t + 1
        }
      }
    }
  }
  return next
}

/** The best reachable cell whose expands still fit the budget (a cell with no expands always does). */
const bestCell = (table: Table, values: Float64Array, fits: (e: number, c: number) => boolean) => {
  let cell = 0
  let best = 0
  for (let e = 0; e <= table.eMax; e++) {
    for (let c = 0; c <= table.cMax && e + c <= table.m; c++) {
      const v = values[e * table.width + c]!
      if (v === Number.NEGATIVE_INFINITY) continue
      if (e > 0 && !fits(e, c)) continue
      if (v > best) {
        best = v
        cell = e * table.width + c
      }
    }
  }
  return cell
}

export const optimal = (
  wc: WorkingContext,
  scores: ArrayLike<number>,
  config: Config,
  cooldowns: Cooldowns = emptyCooldowns
): Result<OptimalStats> => {
  const resolved = validate(wc, scores, config)
  const { expands, collapses } = collect(wc, scores, resolved, cooldowns)
  const K = wc.blockSize
  const m = resolved.maxActions
  const cost0 = wc.entries.length
  const { inGroup, free } = groupExpands(expands, collapses, wc.entries.length, K)
  // DP over (expands, collapses) counts; only reachable counts get cells.
  const eMax = Math.min(m, expands.length)
  const cMax = Math.min(m, collapses.length)
  const table: Table = { eMax, cMax, m, width: cMax + 1, cells: (eMax + 1) * (cMax + 1) }
  const items = collapses.length + 1
  const choice = new Int32Array(items * table.cells)
  let current = new Float64Array(table.cells).fill(Number.NEGATIVE_INFINITY)
  current[0] = 0
  const itemExpands: Array<Array<RawCandidate>> = []
  for (let item = 0; item < items; item++) {
    const exps = topCandidates(item === 0 ? free : inGroup[item - 1]!, eMax)
    itemExpands.push(exps)
    const collapseValue = item === 0 ? undefined : collapses[item - 1]!.value
    current = foldItem(table, current, choice, item * table.cells, exps, collapseValue)
  }
  let cell = bestCell(table, current, (e, c) => cost0 + (e - c) * (K - 1) <= resolved.budget)
  // Trace the choices back from the best cell.
  const chosenCollapses: Array<RawCandidate> = []
  const chosenExpands: Array<RawCandidate> = []
  for (let item = items - 1; item >= 0; item--) {
    const option = choice[item * table.cells + cell]!
    if (option === 1) {
      chosenCollapses.push(collapses[item - 1]!)
      cell -= 1
    } else if (option >= 2) {
      const t = option - 1
      for (let i = 0; i < t; i++) chosenExpands.push(itemExpands[item]![i]!)
      cell -= t * table.width
    }
  }
  chosenCollapses.sort(byRank)
  chosenExpands.sort(byRank)
  const applied = chosenCollapses.concat(chosenExpands)
  const bound = lpBound(topValues(expands, m), topValues(collapses, m), m, (resolved.budget - cost0) / (K - 1))
  let value = 0
  for (const edit of applied) value += edit.value
  return finish<OptimalStats>(wc, applied, cooldowns, resolved, expands.length + collapses.length, {
    bound,
    gap: Math.max(0, bound - value)
  })
}
