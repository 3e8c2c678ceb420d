/**
 * The SLOP optimisation pipeline — Filter → Truncate → Compact → Window — that right-sizes a state tree for one
 * consumer's request. Pure and synchronous.
 *
 * @since 0.1.0
 */
import { countO200k } from "@heed/schema"
import * as Schema from "effect/Schema"
import { lazyCounters, o200kWordPieces } from "./internal/lowerBound.ts"
import type { Node, NodeMeta } from "./Node.ts"
import { find, totalChildrenOf } from "./Node.ts"
import * as Render from "./Render.ts"

/**
 * The filter of a request: keep nodes with `salience >= min_salience` (missing salience counts as `0.5`) and whose
 * type is in `types`. With `keep_ancestors`, a node that fails the filter but has matching descendants stays as a
 * stub (`id`, `type`, `meta`) holding the path to them.
 *
 * @category models
 * @since 0.1.0
 */
export interface Filter {
  readonly min_salience?: number | undefined
  readonly types?: ReadonlyArray<string> | undefined
  readonly keep_ancestors?: boolean | undefined
}

/**
 * A consumer's request, in SLOP wire names (the fields of `subscribe` and `query`).
 *
 * - `path`: the subtree to serve (`"/"` by default);
 * - `depth`: levels below the path (`0` = the node only, `-1` = unlimited, the default);
 * - `max_nodes`: node budget; `max_tokens`: budget on the {@link Render.text} output;
 * - `filter`: see {@link Filter};
 * - `window`: `[offset, count]` slice of the served node's children.
 *
 * @category models
 * @since 0.1.0
 */
export interface Request {
  readonly path?: string | undefined
  readonly depth?: number | undefined
  readonly max_nodes?: number | undefined
  readonly max_tokens?: number | undefined
  readonly filter?: Filter | undefined
  readonly window?: readonly [number, number] | undefined
}

/**
 * Provider-side settings: `maxNodes` and `maxDepth` are ceilings (the more restrictive of request and ceiling wins;
 * a request depth of `-1` does not lift `maxDepth`); `countTokens` counts `max_tokens` (o200k by default).
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly maxNodes?: number | undefined
  readonly maxDepth?: number | undefined
  readonly countTokens?: ((text: string) => number) | undefined
}

/**
 * Raised by {@link optimize} when `request.path` names no node. Check with `Node.find` first to avoid it.
 *
 * @category errors
 * @since 0.1.0
 */
export class PathNotFound extends Schema.TaggedError<PathNotFound>()("PathNotFound", {
  path: Schema.String,
  message: Schema.String
}) {}

/**
 * The compaction score of a node: `salience − depth × 0.01 − descendants × 0.001` (SLOP's formula). Lower scores
 * are collapsed first.
 *
 * @category scoring
 * @since 0.1.0
 */
export const score = (salience: number, depth: number, descendants: number): number =>
  salience - depth * 0.01 - descendants * 0.001

// ---------------------------------------------------------------------------------------------------------------
// Token costs. Each line is counted as a unit with its indentation and newline: o200k's pre-tokenizer never joins
// text across a line break (line-leading spaces form their own pre-token), so the sum of the units is the count of
// the whole text, except for the last line, which has no newline (a difference of at most a token; the planner
// keeps a margin for it). Unit costs are cached per counter, depth and node object (nodes are immutable), so a
// rebuild that shares unchanged nodes only counts the new ones. With o200k, lines are counted lazily: the planner
// works on provable lower bounds and counts a line only when a decision depends on it (see `Costs` and `plan`), so
// a first request on a large tree tokenizes roughly the lines near its output instead of every line.

/** Tokens kept free for the last line's missing newline when planning with o200k. */
const LAST_LINE_MARGIN = 2

/** Extra plans tried to give back budget once a shrunken plan fits (query windows, non-additive counters). */
const MAX_BISECTIONS = 6

const costCaches = new WeakMap<(text: string) => number, Array<WeakMap<Node, number>>>()

const indents: Array<string> = [""]
const indent = (depth: number): string => {
  while (indents.length <= depth) indents.push(`${indents[indents.length - 1]}  `)
  return indents[depth]!
}

const unitCost = (count: (text: string) => number, text: string, depth: number): number =>
  count(`${indent(depth)}${text}\n`)

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
const nodeCost = (count: (text: string) => number, node: Node, depth: number): number => {
  let cost = unitCost(count, Render.line(node), depth)
  const extra = Render.extraLines(node)
  for (let i = 0; i < extra.length; i++) cost += unitCost(count, extra[i]!, depth + 1)
  return cost
}

// ---------------------------------------------------------------------------------------------------------------
// The working tree: filter and truncate fused into one walk that never descends below the depth limit.

const FULL = 0
const STUB = 1
const ANCESTOR = 2

interface Work {
  readonly src: Array<Node>
  readonly kind: Uint8Array
  readonly parent: Int32Array
  readonly depth: Int32Array
  /** direct children in the working tree (a subtree is contiguous in pre-order: children are enumerated by
   * skipping each child's descendants) */
  readonly childCount: Int32Array
  readonly hidden: Int32Array
  /** descendants in the working tree */
  readonly desc: Int32Array
  /** the subtree holds a pinned node */
  readonly pinnedIn: Uint8Array
  /** the node or an ancestor is pinned */
  readonly underPin: Uint8Array
  readonly size: number
  /** compaction candidates sorted by score, computed on first use */
  candidates?: Array<number>
  /** token costs per counter, created on first use and refined as the planner counts lines */
  readonly costs: Map<(text: string) => number, Costs>
}

/**
 * Token costs of a working tree for one counter. A node's own cost (its line, plus its extra lines when shown as a
 * stub, plus its "hidden by filter" line) is exact once counted and a lower bound until then: for counters in
 * `lazyCounters` (o200k) the bound comes from the node's type and id ({@link o200kWordPieces}), at least 1 per
 * node; other counters are counted exactly up front. The planner counts a node only when a decision cannot be made
 * on the bounds, so on a large tree it counts the few lines that can end up in the output, not all of them.
 */
interface Costs {
  readonly own: Float64Array
  readonly exact: Uint8Array
  /** subtree sums of `own` */
  readonly sum: Float64Array
  /** nodes of the subtree whose own cost is still a bound */
  readonly open: Int32Array
  /** exact cost of each node's compacted form, NaN until counted */
  readonly after: Float64Array
}

// Working trees are shared by requests on the same subtree object with the same depth and filter (e.g. the
// subscriptions of one provider rebuild); nodes are immutable, so a cached working tree never goes stale.
const workCache = new WeakMap<Node, Map<string, Work>>()

const workFor = (root: Node, maxDepth: number, filter: Filter | undefined): Work => {
  const key =
    filter === undefined
      ? `${maxDepth}`
      : `${maxDepth}|${filter.min_salience}|${filter.types?.join("\u0000")}|${filter.keep_ancestors === true}`
  let byKey = workCache.get(root)
  if (byKey === undefined) {
    byKey = new Map()
    workCache.set(root, byKey)
  }
  let work = byKey.get(key)
  if (work === undefined) {
    work = buildWork(root, maxDepth, filter)
    if (byKey.size >= 16) byKey.clear()
    byKey.set(key, work)
  }
  return work
}

const grow = <A extends Int32Array | Uint8Array>(array: A, capacity: number): A => {
  const next = new (array.constructor as new (length: number) => A)(capacity)
  next.set(array)
  return next
}

const buildWork = (root: Node, maxDepth: number, filter: Filter | undefined): Work => {
  const src: Array<Node> = []
  let capacity = 1024
  let kind = new Uint8Array(capacity)
  let parent = new Int32Array(capacity)
  let depth = new Int32Array(capacity)
  let childCount = new Int32Array(capacity)
  let desc = new Int32Array(capacity)
  let hidden = new Int32Array(capacity)
  let pinnedIn = new Uint8Array(capacity)
  let underPin = new Uint8Array(capacity)
  const min = filter?.min_salience
  const types = filter?.types !== undefined ? new Set(filter.types) : undefined
  const active = min !== undefined || types !== undefined
  const keepAncestors = active && filter?.keep_ancestors === true
  const passes = (node: Node): boolean =>
    (min === undefined || (node.meta?.salience ?? 0.5) >= min) && (types === undefined || types.has(node.type))
  const matchMemo = new Map<Node, boolean>()
  const hasMatch = (node: Node): boolean => {
    const children = node.children
    if (!children) return false
    const known = matchMemo.get(node)
    if (known !== undefined) return known
    let found = false
    for (let i = 0; i < children.length && !found; i++) found = passes(children[i]!) || hasMatch(children[i]!)
    matchMemo.set(node, found)
    return found
  }
  // returns whether the visited subtree holds a pinned node
  const visit = (
    node: Node,
    remaining: number,
    level: number,
    up: number,
    k: number,
    pinnedAbove: boolean
  ): boolean => {
    const index = src.length
    if (index === capacity) {
      capacity *= 2
      kind = grow(kind, capacity)
      parent = grow(parent, capacity)
      depth = grow(depth, capacity)
      childCount = grow(childCount, capacity)
      desc = grow(desc, capacity)
      hidden = grow(hidden, capacity)
      pinnedIn = grow(pinnedIn, capacity)
      underPin = grow(underPin, capacity)
    }
    src.push(node)
    kind[index] = k
    parent[index] = up
    depth[index] = level
    const pinned = node.meta?.pinned === true
    const below = pinnedAbove || pinned
    if (below) underPin[index] = 1
    let holdsPin = pinned
    const children = node.children
    if (children && children.length > 0) {
      if (remaining <= 0) {
        let visible = children.length
        if (active) {
          visible = 0
          for (let i = 0; i < children.length; i++) {
            const child = children[i]!
            if (passes(child) || (keepAncestors && hasMatch(child))) visible++
          }
        }
        hidden[index] = children.length - visible
        if (visible > 0) kind[index] = STUB
      } else {
        let dropped = 0
        let kept = 0
        for (let i = 0; i < children.length; i++) {
          const child = children[i]!
          let childHolds = false
          if (!active || passes(child)) {
            childHolds = visit(child, remaining - 1, level + 1, index, FULL, below)
            kept++
          } else if (keepAncestors && hasMatch(child)) {
            childHolds = visit(child, remaining - 1, level + 1, index, ANCESTOR, below)
            kept++
          } else dropped++
          if (childHolds) holdsPin = true
        }
        hidden[index] = dropped
        childCount[index] = kept
        desc[index] = src.length - index - 1
      }
    }
    if (holdsPin) pinnedIn[index] = 1
    return holdsPin
  }
  visit(root, maxDepth < 0 ? Infinity : maxDepth, 0, -1, FULL, false)
  const size = src.length
  return {
    src,
    kind: kind.subarray(0, size),
    parent: parent.subarray(0, size),
    depth: depth.subarray(0, size),
    childCount: childCount.subarray(0, size),
    hidden: hidden.subarray(0, size),
    desc: desc.subarray(0, size),
    pinnedIn: pinnedIn.subarray(0, size),
    underPin: underPin.subarray(0, size),
    size,
    costs: new Map()
  }
}

/** The working-tree indices of node `i`'s children. */
const kidsOf = (work: Work, i: number): Array<number> => {
  const out: Array<number> = []
  const end = i + work.desc[i]!
  for (let c = i + 1; c <= end; c += work.desc[c]! + 1) out.push(c)
  return out
}

// ---------------------------------------------------------------------------------------------------------------
// Output shapes.

const withMeta = (meta: NodeMeta | undefined, extra: NodeMeta): NodeMeta => (meta ? { ...meta, ...extra } : extra)

const depthStub = (node: Node, hidden: number): Node => ({
  id: node.id,
  type: node.type,
  meta: withMeta(
    node.meta,
    hidden > 0 ? { total_children: totalChildrenOf(node), filtered: hidden } : { total_children: totalChildrenOf(node) }
  )
})

const compacted = (node: Node, stub: boolean, hidden: number): Node => {
  const total = totalChildrenOf(node)
  const meta = withMeta(node.meta, {
    total_children: total,
    summary: node.meta?.summary ?? `${total} children`,
    ...(hidden > 0 ? { filtered: hidden } : {})
  })
  if (stub) return { id: node.id, type: node.type, meta }
  const out: { -readonly [K in keyof Node]: Node[K] } = { id: node.id, type: node.type }
  if (node.properties !== undefined) out.properties = node.properties
  if (node.affordances !== undefined) out.affordances = node.affordances
  out.meta = meta
  return out
}

// ---------------------------------------------------------------------------------------------------------------
// Compaction and budget windowing over the working tree.

interface Plan {
  readonly collapsed: Uint8Array
  /** kept children per list, -1 = all (the root's list under a query window: of the window's slice) */
  readonly keep: Int32Array
}

/** The part `[start, end)` of the root's working child list a query window shows. */
type Range = readonly [number, number]

/** The root's working children inside `range` (all of them without one). */
const rootKids = (work: Work, range: Range | undefined): Array<number> => {
  const kids = kidsOf(work, 0)
  return range === undefined ? kids : kids.slice(range[0], range[1])
}

/** The exact own cost of working node `i` (see {@link Costs}). */
const ownCost = (work: Work, count: (text: string) => number, i: number): number => {
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

const costsFor = (work: Work, count: (text: string) => number): Costs => {
  const cached = work.costs.get(count)
  if (cached !== undefined) return cached
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
const afterCost = (work: Work, costs: Costs, count: (text: string) => number, i: number): number => {
  let after = costs.after[i]!
  if (Number.isNaN(after)) {
    after = nodeCost(count, compacted(work.src[i]!, work.kind[i] === ANCESTOR, work.hidden[i]!), work.depth[i]!)
    costs.after[i] = after
  }
  return after
}

const sortedCandidates = (work: Work): Array<number> => {
  if (work.candidates !== undefined) return work.candidates
  const { childCount, depth, desc, parent, pinnedIn, src, underPin } = work
  const candidates: Array<number> = []
  for (let i = 1; i < work.size; i++) {
    if (childCount[i]! > 0 && parent[i] !== 0 && underPin[i] === 0 && pinnedIn[i] === 0) candidates.push(i)
  }
  const scores = new Float64Array(work.size)
  for (const i of candidates) scores[i] = score(src[i]!.meta?.salience ?? 0.5, depth[i]!, desc[i]!)
  candidates.sort((a, b) => scores[a]! - scores[b]! || a - b)
  work.candidates = candidates
  return candidates
}

/** The plan that changes nothing (render reads missing entries as "not collapsed, keep all"). */
const unchanged: Plan = { collapsed: new Uint8Array(0), keep: new Int32Array(0) }

/**
 * Plans compaction and windowing for one budget. Token decisions are made on lower bounds while they settle the
 * question (a view whose bound is over the budget is over it; a collapse whose bound saves tokens saves them) and
 * otherwise on exact counts of the lines involved, which are counted then; so the plan is the one a planner that
 * counted every line up front would make. Each count it triggers is bounded by the budget in question, since every
 * uncounted line is bounded by at least one token.
 */
const plan = (
  work: Work,
  maxNodes: number,
  maxTokens: number,
  count: ((text: string) => number) | undefined,
  range: Range | undefined
): Plan => {
  const size = work.size
  const { childCount, depth, desc, parent, pinnedIn, src, underPin } = work
  let nodes = size
  const withTokens = count !== undefined && maxTokens < Infinity
  const costs = withTokens ? costsFor(work, count!) : undefined
  // Token state of the view being planned: `cur[i]` is the cost of what node i shows (a lower bound while
  // `curOpen[i] > 0` of its shown nodes are uncounted); `cur[0]` is the whole view.
  const cur = costs !== undefined ? Float64Array.from(costs.sum) : new Float64Array(1)
  const curOpen = costs !== undefined ? Int32Array.from(costs.open) : new Int32Array(1)
  const collapsed = new Uint8Array(size)
  const removed = new Uint8Array(size)

  /** Counts node j's own cost, correcting the bounds of the working tree and of the view up to the first removed
   * node (a removed subtree is not part of its ancestors' view). */
  const resolve = (j: number): void => {
    const exact = ownCost(work, count!, j)
    const delta = exact - costs!.own[j]!
    costs!.own[j] = exact
    costs!.exact[j] = 1
    for (let up = j; up >= 0; up = parent[up]!) {
      costs!.sum[up]! += delta
      costs!.open[up]! -= 1
    }
    for (let up = j; up >= 0; up = parent[up]!) {
      cur[up]! += delta
      curOpen[up]! -= 1
      if (removed[up] === 1) break
    }
  }
  /** Counts every uncounted node shown under `i` (collapsed nodes are exact, removed children are skipped), so
   * `cur[i]` becomes exact. Called only when `cur[i]` is within a budget, so it counts at most that many lines. */
  const resolveShown = (i: number): void => {
    if (curOpen[i] === 0) return
    if (costs!.exact[i] === 0) resolve(i)
    const end = i + desc[i]!
    for (let c = i + 1; c <= end && curOpen[i]! > 0; c += desc[c]! + 1) {
      if (removed[c] === 0 && collapsed[c] === 0) resolveShown(c)
    }
  }
  const over = (): boolean => {
    if (nodes > maxNodes) return true
    if (!withTokens || cur[0]! > maxTokens) return withTokens
    resolveShown(0)
    return cur[0]! > maxTokens
  }
  const keep = new Int32Array(size).fill(-1)
  const curDesc = Int32Array.from(desc)
  const isHidden = (i: number): boolean => {
    if (removed[i] === 1) return true
    for (let up = parent[i]!; up >= 0; up = parent[up]!) if (collapsed[up] === 1 || removed[up] === 1) return true
    return false
  }
  const subtract = (from: number, removedNodes: number, removedTokens: number, removedOpen: number) => {
    for (let up = from; up >= 0; up = parent[up]!) {
      curDesc[up]! -= removedNodes
      cur[up]! -= removedTokens
      curOpen[up]! -= removedOpen
    }
    nodes -= removedNodes
  }
  // A query window shows part of the root's list: the budget is planned for that part only, so compaction and
  // budget windowing never spend it on children the window does not show.
  if (range !== undefined) {
    const kids = kidsOf(work, 0)
    for (let p = 0; p < kids.length; p++) {
      if (p >= range[0] && p < range[1]) continue
      const k = kids[p]!
      removed[k] = 1
      subtract(0, curDesc[k]! + 1, cur[k]!, curOpen[k]!)
    }
  }
  if (!over()) return range === undefined ? unchanged : { collapsed, keep }

  // Compact: SLOP's candidates and score; heed skips pinned subtrees and ancestors of pinned nodes.
  for (const i of sortedCandidates(work)) {
    if (!over()) break
    if (isHidden(i)) continue
    const removedNodes = curDesc[i]!
    let removedTokens = 0
    if (withTokens) {
      const after = afterCost(work, costs!, count!, i)
      if (nodes <= maxNodes) {
        // collapse only when it saves tokens: decided on the bound when it already exceeds `after`
        if (cur[i]! <= after) resolveShown(i)
        if (cur[i]! <= after) continue
      }
      removedTokens = cur[i]! - after
    }
    collapsed[i] = 1
    // the collapsed node now shows `after`, counted exactly: its uncounted nodes leave the view
    subtract(i, removedNodes, removedTokens, curOpen[i]!)
  }
  if (!over()) return { collapsed, keep }

  // Window: trim child lists, lowest mean child salience first, never a list holding (or inside) a pinned node.
  const lists: Array<number> = []
  const means = new Float64Array(size)
  const listOf = new Map<number, Array<number>>()
  for (let i = 0; i < size; i++) {
    // visit only nodes that are still shown: skip collapsed and pinned subtrees whole
    if (collapsed[i] === 1 || underPin[i] === 1) {
      i += desc[i]!
      continue
    }
    if (childCount[i] === 0) continue
    const list = i === 0 ? rootKids(work, range) : kidsOf(work, i)
    if (list.length === 0) continue
    let holdsPin = false
    let sum = 0
    for (const k of list) {
      if (pinnedIn[k] === 1) holdsPin = true
      sum += src[k]!.meta?.salience ?? 0.5
    }
    if (holdsPin) continue
    means[i] = sum / list.length
    lists.push(i)
    listOf.set(i, list)
  }
  lists.sort((a, b) => means[a]! - means[b]! || depth[b]! - depth[a]! || a - b)
  const trimmed: Array<number> = []
  for (const i of lists) {
    if (!over()) break
    if (isHidden(i)) continue
    const list = listOf.get(i)!
    let kept = list.length
    if (withTokens) {
      const total = totalChildrenOf(src[i]!)
      const showing = unitCost(count!, `(showing ${total} of ${total})`, depth[i]! + 1)
      for (let up = i; up >= 0; up = parent[up]!) cur[up]! += showing
    }
    while (kept > 0 && over()) {
      const k = list[--kept]!
      removed[k] = 1
      subtract(i, curDesc[k]! + 1, cur[k]!, curOpen[k]!)
    }
    keep[i] = kept
    trimmed.push(i)
  }
  // Refill: a trimmed list may have dropped a large child that overshot the budget; give back, in list order,
  // the children that still fit, starting with the last list trimmed.
  const fits = (k: number, addNodes: number): boolean => {
    if (nodes + addNodes > maxNodes) return false
    if (!withTokens) return true
    // bounds first: the view and the child cost at least `cur`
    if (cur[0]! + cur[k]! > maxTokens) return false
    resolveShown(0)
    resolveShown(k)
    return cur[0]! + cur[k]! <= maxTokens
  }
  for (let t = trimmed.length - 1; t >= 0; t--) {
    const i = trimmed[t]!
    if (isHidden(i)) continue
    const list = listOf.get(i)!
    let kept = keep[i]!
    while (kept < list.length) {
      const k = list[kept]!
      const addNodes = curDesc[k]! + 1
      if (!fits(k, addNodes)) break
      removed[k] = 0
      subtract(i, -addNodes, -cur[k]!, -curOpen[k]!)
      kept++
    }
    keep[i] = kept === list.length ? -1 : kept
  }
  return { collapsed, keep }
}

/** A query window on the root: the part of its list it shows and the window as requested. */
interface QueryWindow {
  readonly range: Range
  readonly requested: readonly [number, number]
}

const render = (work: Work, i: number, collapsed: Uint8Array, keep: Int32Array, window?: QueryWindow): Node => {
  const node = work.src[i]!
  const k = work.kind[i]!
  const hidden = work.hidden[i]!
  if (k === STUB) return depthStub(node, hidden)
  if (collapsed[i] === 1) return compacted(node, k === ANCESTOR, hidden)
  const list = window === undefined ? kidsOf(work, i) : rootKids(work, window.range)
  const kept = keep[i]
  const limit = kept !== undefined && kept >= 0 ? kept : list.length
  const children: Array<Node> = []
  let same = window === undefined && k === FULL && hidden === 0 && limit === list.length
  for (let c = 0; c < limit; c++) {
    const child = render(work, list[c]!, collapsed, keep)
    children.push(child)
    if (same && child !== node.children![c]) same = false
  }
  if (same) return node
  const total = totalChildrenOf(node)
  let meta = node.meta
  if (hidden > 0 || limit < list.length || k === ANCESTOR || window !== undefined) {
    const extra: { -readonly [K in keyof NodeMeta]: NodeMeta[K] } = { total_children: total }
    if (hidden > 0) extra.filtered = hidden
    // a budget that cut the query window's slice says how many of it are shown, from the window's offset
    if (window !== undefined) extra.window = limit < list.length ? [window.requested[0], limit] : window.requested
    else if (limit < list.length) extra.window = [0, limit]
    meta = withMeta(meta, extra)
  }
  const out: { -readonly [K in keyof Node]: Node[K] } = { id: node.id, type: node.type }
  if (k !== ANCESTOR) {
    if (node.properties !== undefined) out.properties = node.properties
  }
  if (children.length > 0 || window !== undefined || (list.length > 0 && limit === 0)) out.children = children
  else if (node.children !== undefined && hidden === 0 && list.length === 0) out.children = node.children
  if (k !== ANCESTOR) {
    if (node.affordances !== undefined) out.affordances = node.affordances
  }
  if (meta !== undefined) out.meta = meta
  if (k !== ANCESTOR && node.content_ref !== undefined) out.content_ref = node.content_ref
  return out
}

/** The slice `[start, end)` of a list of `length` children that `window` shows. */
const windowRange = (length: number, window: readonly [number, number]): Range => {
  const start = Math.min(length, Math.max(0, Math.floor(window[0])))
  return [start, Math.min(length, start + Math.max(0, Math.floor(window[1])))]
}

// The window of a view that needed no planning. A node served with no inline children is left as it is: a window
// there would claim items none of which are shown.
const sliceWindow = (node: Node, window: readonly [number, number]): Node => {
  const children = node.children
  if (!children || children.length === 0) return node
  const [start, end] = windowRange(children.length, window)
  return {
    ...node,
    children: children.slice(start, end),
    meta: withMeta(node.meta, { window: [window[0], window[1]], total_children: totalChildrenOf(node) })
  }
}

const finiteBudget = (value: number | undefined): number =>
  value === undefined || !Number.isFinite(value) ? Infinity : Math.max(0, Math.floor(value))

/**
 * Resolves the effective budget: the smaller of the request's `max_nodes` and the provider's `maxNodes`, whichever
 * are set (`undefined` when neither is).
 *
 * @category budgets
 * @since 0.1.0
 */
export const nodeBudget = (request: Request, options: Options = {}): number | undefined => {
  const a = request.max_nodes
  const b = options.maxNodes
  if (a === undefined) return b
  if (b === undefined) return a
  return Math.min(a, b)
}

/**
 * Resolves the effective depth: the request's depth when non-negative, capped by the provider's `maxDepth`; a
 * missing or negative request depth falls back to `maxDepth` (or `-1`, unlimited).
 *
 * @category budgets
 * @since 0.1.0
 */
export const effectiveDepth = (request: Request, options: Options = {}): number => {
  const requested = request.depth
  const ceiling = options.maxDepth !== undefined && options.maxDepth >= 0 ? options.maxDepth : undefined
  if (requested === undefined || requested < 0) return ceiling ?? -1
  return ceiling === undefined ? requested : Math.min(requested, ceiling)
}

/**
 * Right-sizes `tree` for one request, running only the steps whose parameters are present, in SLOP's mandatory
 * order:
 *
 * 1. **Filter** (`filter`): drop children below `min_salience` (missing = `0.5`) or not in `types`, with their
 *    subtrees; the root is never filtered. A parent that lost children gets `meta.total_children` (the original
 *    count) and `meta.filtered` (how many it hid). `keep_ancestors` keeps stubs leading to matching descendants.
 * 2. **Truncate** (`depth`): nodes at the depth limit that still have children become depth stubs
 *    `{ id, type, meta: { ...meta, total_children } }`; leaves stay whole.
 * 3. **Compact** (`max_nodes`, `max_tokens`): collapse subtrees by ascending {@link score} into compacted nodes
 *    (`properties` and `affordances` kept, `meta.total_children` and a default `"{N} children"` summary). Root
 *    children, pinned subtrees and ancestors of pinned nodes are never collapsed. When candidates run out, child
 *    lists are windowed, lowest mean salience first (deeper lists first on ties), keeping their first N children
 *    (`meta.window: [0, N]`), so the budget is met whenever pinned subtrees allow it; a last pass gives back, in
 *    order, children that still fit. A list holding a pinned node is never windowed.
 * 4. **Window** (`window`): slice the served node's children; `meta.window` is the requested window and
 *    `meta.total_children` the original child count.
 *
 * `max_tokens` bounds the {@link Render.text} output as counted by `options.countTokens` (o200k by default).
 * Unchanged subtrees are shared with the input, not copied.
 *
 * Throws {@link PathNotFound} when `request.path` names no node.
 *
 * **Example** (A budgeted view)
 *
 * ```ts
 * import { Pipeline } from "@heed/state-tree"
 *
 * const view = Pipeline.optimize(tree, { depth: 3, filter: { min_salience: 0.3 }, max_nodes: 200 })
 * ```
 *
 * @category optimisation
 * @since 0.1.0
 */
export const optimize = (tree: Node, request: Request, options: Options = {}): Node => {
  const path = request.path ?? "/"
  const root = find(tree, path)
  if (root === undefined) {
    throw new PathNotFound({ path, message: `no node at path "${path}": check the ids along the path` })
  }
  const depth = effectiveDepth(request, options)
  const filter = request.filter
  const filtering = filter !== undefined && (filter.min_salience !== undefined || filter.types !== undefined)
  const maxNodes = finiteBudget(nodeBudget(request, options))
  const maxTokens = finiteBudget(request.max_tokens)
  if (filtering || depth >= 0 || maxNodes < Infinity || maxTokens < Infinity) {
    const work = workFor(root, depth, filtering ? filter : undefined)
    const count = maxTokens < Infinity ? (options.countTokens ?? countO200k) : undefined
    let tokenBudget = count === countO200k ? Math.max(0, maxTokens - LAST_LINE_MARGIN) : maxTokens
    const window = request.window
    // The window applies to the root's list as served (after the filter), and only when the root shows children:
    // a depth stub or a root without children is served as it is.
    const range =
      window === undefined || work.kind[0] === STUB || work.childCount[0] === 0
        ? undefined
        : windowRange(work.childCount[0]!, window)
    const query = range === undefined ? undefined : { range, requested: window! }
    // Unit costs are exact for o200k, but the plan does not count the "(showing N of M)" line a query window adds;
    // other counters need not be additive. Then the real text is measured: while it is over, the planning budget
    // shrinks (faster each time), then a short bisection between the largest budget that fit and the smallest that
    // did not gives back what it can.
    const measure = count !== undefined && (count !== countO200k || query !== undefined)
    let out: Node = root
    let fitted: Node | undefined
    let low = -1
    let high = Infinity
    let bisections = 0
    for (let attempt = 0; ; attempt++) {
      const { collapsed, keep } = plan(work, maxNodes, tokenBudget, count, range)
      out = render(work, 0, collapsed, keep, query)
      if (!measure) break
      const measured = count!(Render.text(out))
      if (measured <= maxTokens) {
        fitted = out
        low = tokenBudget
      } else {
        high = tokenBudget
        if (tokenBudget === 0) break
      }
      if (high === Infinity || high - low <= 1 || (low >= 0 && ++bisections > MAX_BISECTIONS)) break
      tokenBudget =
        low < 0 ? Math.max(0, tokenBudget - (measured - maxTokens) * 2 ** attempt) : Math.floor((low + high) / 2)
    }
    return fitted ?? out
  }
  return request.window === undefined ? root : sliceWindow(root, request.window)
}
