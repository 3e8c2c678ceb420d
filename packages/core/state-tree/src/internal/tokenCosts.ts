/**
 * Token costs of a working tree's lines, for the planner. Each line is counted as a unit with its indentation and
 * newline: o200k's pre-tokenizer never joins text across a line break (line-leading spaces form their own pre-token),
 * so the sum of the units is the count of the whole text, except for the last line, which has no newline (a
 * difference of at most a token; the planner keeps a margin for it). Unit costs are cached per counter, depth and
 * node object (nodes are immutable), so a rebuild that shares unchanged nodes only counts the new ones. With o200k,
 * lines are counted lazily: the planner works on provable lower bounds and counts a line only when a decision depends
 * on it (see `Costs` and `plan`), so a first request on a large tree tokenizes roughly the lines near its output
 * instead of every line.
 *
 * @since 0.1.0
 * @internal
 */
import type { Node } from "../Node.ts"
import * as Render from "../Render.ts"
import { lazyCounters, o200kWordPieces } from "./lowerBound.ts"
import { compacted, depthStub } from "./shapes.ts"
import type { Work } from "./workTree.ts"
import { ANCESTOR, FULL, STUB, settleAll } from "./workTree.ts"

const costCaches = new WeakMap<(text: string) => number, Array<WeakMap<Node, number>>>()

const indents: Array<string> = [""]
const indent = (depth: number): string => {
  while (indents.length <= depth) indents.push(`${indents[indents.length - 1]}  `)
  return indents[depth]!
}

/** The cost of one line of text at `depth` (indentation and newline included). */
export const unitCost = (count: (text: string) => number, text: string, depth: number): number =>
  count(`${indent(depth)}${text}\n`)

// A node's own line, cached per counter, depth and node object.
const lineCost = (count: (text: string) => number, node: Node, depth: number): number => {
  let caches = costCaches.get(count)
  if (caches === undefined) {
    caches = []
    costCaches.set(count, caches)
  }
  let cache = caches[depth]
  if (cache === undefined) {
    cache = new WeakMap()
    caches[depth] = cache
  }
  let cost = cache.get(node)
  if (cost === undefined) {
    cost = unitCost(count, Render.line(node), depth)
    cache.set(node, cost)
  }
  return cost
}

/** The cost of a node shown without children: its line plus its extra lines. */
export const nodeCost = (count: (text: string) => number, node: Node, depth: number): number => {
  let cost = unitCost(count, Render.line(node), depth)
  const extra = Render.extraLines(node)
  for (let i = 0; i < extra.length; i++) cost += unitCost(count, extra[i]!, depth + 1)
  return cost
}

/**
 * Token costs of a working tree for one counter. A node's own cost (its line, plus its extra lines when shown as a
 * stub, plus its "hidden by filter" line) is exact once counted and a lower bound until then: for counters in
 * `lazyCounters` (o200k) the bound comes from the node's type and id ({@link o200kWordPieces}), at least 1 per
 * node; other counters are counted exactly up front. The planner counts a node only when a decision cannot be made
 * on the bounds, so on a large tree it counts the few lines that can end up in the output, not all of them.
 */
export interface Costs {
  readonly own: Float64Array
  readonly exact: Uint8Array
  /** subtree sums of `own` */
  readonly sum: Float64Array
  /** nodes of the subtree whose own cost is still a bound */
  readonly open: Int32Array
  /** exact cost of each node's compacted form, NaN until counted */
  readonly after: Float64Array
}

/** The exact own cost of working node `i` (see {@link Costs}). */
export const ownCost = (work: Work, count: (text: string) => number, i: number): number => {
  const node = work.src[i]!
  const hidden = work.hidden[i]!
  const d = work.depth[i]!
  const k = work.kind[i]!
  if (k === STUB) return nodeCost(count, depthStub(node, hidden), d)
  const line =
    k === FULL
      ? lineCost(count, node, d)
      : unitCost(count, Render.line({ id: node.id, type: node.type, meta: node.meta }), d)
  return hidden > 0 ? line + unitCost(count, `(${hidden} hidden by filter)`, d + 1) : line
}

/** A lower bound on the o200k own cost of working node `i`: its line holds `[type] id` between separators. */
const ownLowerBound = (work: Work, i: number, typePieces: Map<string, number>): number => {
  const node = work.src[i]!
  let type = typePieces.get(node.type)
  if (type === undefined) {
    type = o200kWordPieces(node.type)
    typePieces.set(node.type, type)
  }
  const line = Math.max(1, type + o200kWordPieces(node.id))
  return work.hidden[i]! > 0 && work.kind[i] !== STUB ? line + 1 : line
}

/** The costs of a working tree for one counter, created on first use and kept with the working tree. */
export const costsFor = (work: Work, count: (text: string) => number): Costs => {
  const cached = work.costs.get(count)
  if (cached !== undefined) return cached
  settleAll(work)
  const size = work.size
  const { parent } = work
  const own = new Float64Array(size)
  const exact = new Uint8Array(size)
  const sum = new Float64Array(size)
  const open = new Int32Array(size)
  const lazy = lazyCounters.has(count)
  const typePieces = new Map<string, number>()
  // own costs in pre-order (the order the nodes were visited in, kinder to memory), then sums bottom-up
  for (let i = 0; i < size; i++) {
    if (lazy) {
      own[i] = ownLowerBound(work, i, typePieces)
      open[i] = 1
    } else {
      own[i] = ownCost(work, count, i)
      exact[i] = 1
    }
  }
  for (let i = size - 1; i >= 0; i--) {
    sum[i]! += own[i]!
    const up = parent[i]!
    if (up >= 0) {
      sum[up]! += sum[i]!
      open[up]! += open[i]!
    }
  }
  const costs: Costs = { own, exact, sum, open, after: new Float64Array(size).fill(Number.NaN) }
  work.costs.set(count, costs)
  return costs
}

/** The exact cost of working node `i` compacted (its line and extra lines), counted once per working tree. */
export const afterCost = (work: Work, costs: Costs, count: (text: string) => number, i: number): number => {
  let after = costs.after[i]!
  if (Number.isNaN(after)) {
    after = nodeCost(count, compacted(work.src[i]!, work.kind[i] === ANCESTOR, work.hidden[i]!), work.depth[i]!)
    costs.after[i] = after
  }
  return after
}
