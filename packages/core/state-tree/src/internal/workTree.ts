/**
 * The pipeline's working tree: Filter and Truncate fused into one walk that never descends below the depth limit,
 * stored as columns in pre-order (a subtree is contiguous: node `i`'s descendants are `i + 1 … i + desc[i]`).
 *
 * A node at the depth limit is settled lazily: whether it is a depth stub and how many of its children the filter
 * hides are needed only to show it or to count its tokens, and with a node budget most such nodes end up inside a
 * collapsed subtree. Settling it reads every child (a cold read each on a tree nobody walked yet), so the walk
 * leaves it to {@link settle}, which the view and the token costs call first.
 *
 * @since 0.1.0
 * @internal
 */
import type { Node } from "../Node.ts"
import type { Filter } from "../Pipeline.ts"
import type { Costs } from "./tokenCosts.ts"

/** A node shown whole. */
export const FULL = 0
/** A node at the depth limit whose children are not shown (a depth stub). */
export const STUB = 1
/** A node that fails the filter, kept as a stub on the way to matching descendants (`keep_ancestors`). */
export const ANCESTOR = 2

/** A working tree: one entry per node the view may show, with its kind and structure. */
export interface Work {
  readonly src: Array<Node>
  /** {@link FULL}, {@link STUB} or {@link ANCESTOR} */
  readonly kind: Uint8Array
  readonly parent: Int32Array
  readonly depth: Int32Array
  /** direct children in the working tree (children are enumerated by skipping each child's descendants) */
  readonly childCount: Int32Array
  /** direct children hidden by the filter */
  readonly hidden: Int32Array
  /** descendants in the working tree */
  readonly desc: Int32Array
  /** the subtree holds a pinned node */
  readonly pinnedIn: Uint8Array
  /** the node or an ancestor is pinned */
  readonly underPin: Uint8Array
  /** a node at the depth limit whose `kind` and `hidden` are not computed yet (see {@link settle}) */
  readonly unsettled: Uint8Array
  /** computes `kind` and `hidden` of an unsettled node */
  readonly settleAt: (i: number) => void
  readonly size: number
  /** compaction candidates sorted by score, computed on first use */
  candidates?: Array<number>
  /** token costs per counter, created on first use and refined as the planner counts lines */
  readonly costs: Map<(text: string) => number, Costs>
}

// Working trees are shared by requests on the same subtree object with the same depth and filter (e.g. the
// subscriptions of one provider rebuild); nodes are immutable, so a cached working tree never goes stale.
const workCache = new WeakMap<Node, Map<string, Work>>()

const workKey = (maxDepth: number, filter: Filter | undefined): string =>
  filter === undefined
    ? `${maxDepth}`
    : `${maxDepth}|${filter.min_salience}|${filter.types?.join("\u0000")}|${filter.keep_ancestors === true}`

const cacheOf = (root: Node): Map<string, Work> => {
  let byKey = workCache.get(root)
  if (byKey === undefined) {
    byKey = new Map()
    workCache.set(root, byKey)
  }
  return byKey
}

/** The working tree of `root` for a depth limit (`-1`: none) and an active filter, built once per root object. */
export const workFor = (root: Node, maxDepth: number, filter: Filter | undefined): Work => {
  const key = workKey(maxDepth, filter)
  const byKey = cacheOf(root)
  let work = byKey.get(key)
  if (work === undefined) {
    work = new Builder(filter).build(root, maxDepth < 0 ? Infinity : maxDepth)
    if (byKey.size >= 16) byKey.clear()
    byKey.set(key, work)
  }
  return work
}

/** Stores a working tree built elsewhere as `workFor`'s answer (tests: a reference builder's tree). */
export const primeWork = (root: Node, maxDepth: number, filter: Filter | undefined, work: Work): void => {
  cacheOf(root).set(workKey(maxDepth, filter), work)
}

/** Makes `kind[i]` and `hidden[i]` final: call it before reading them. */
export const settle = (work: Work, i: number): void => {
  if (work.unsettled[i] === 1) work.settleAt(i)
}

/** Settles every node (for token costs, which read every node's kind). */
export const settleAll = (work: Work): void => {
  const unsettled = work.unsettled
  for (let i = 0; i < work.size; i++) if (unsettled[i] === 1) work.settleAt(i)
}

/** The working-tree indices of node `i`'s children. */
export const kidsOf = (work: Work, i: number): Array<number> => {
  const out: Array<number> = []
  const end = i + work.desc[i]!
  for (let c = i + 1; c <= end; c += work.desc[c]! + 1) out.push(c)
  return out
}

/** The part `[start, end)` of the root's working child list a query window shows. */
export type Range = readonly [number, number]

/** The root's working children inside `range` (all of them without one). */
export const rootKids = (work: Work, range: Range | undefined): Array<number> => {
  const kids = kidsOf(work, 0)
  return range === undefined ? kids : kids.slice(range[0], range[1])
}

/** The columns of a builder with room for `capacity` nodes, all in one buffer (one allocation, not nine). */
const columns = (capacity: number) => {
  const buffer = new ArrayBuffer(capacity * 24)
  let offset = 0
  const ints = () => {
    const column = new Int32Array(buffer, offset, capacity)
    offset += capacity * 4
    return column
  }
  const bytes = () => {
    const column = new Uint8Array(buffer, offset, capacity)
    offset += capacity
    return column
  }
  return {
    parent: ints(),
    depth: ints(),
    childCount: ints(),
    desc: ints(),
    hidden: ints(),
    kind: bytes(),
    pinnedIn: bytes(),
    underPin: bytes(),
    unsettled: bytes()
  }
}

type Columns = ReturnType<typeof columns>

/**
 * The filter's verdicts on the child lists a builder is visiting, a stack: each list takes the slots above its
 * parent's. One for every build: a build runs no code but its own, so two never overlap.
 */
let verdicts = new Uint8Array(256)

class Builder {
  readonly src: Array<Node> = []
  capacity = 1024
  c: Columns = columns(this.capacity)
  readonly min: number | undefined
  readonly types: ReadonlySet<string> | undefined
  readonly active: boolean
  readonly keepAncestors: boolean
  readonly matchMemo = new Map<Node, boolean>()
  /** The top of {@link verdicts}. */
  top = 0

  constructor(filter: Filter | undefined) {
    this.min = filter?.min_salience
    this.types = filter?.types !== undefined ? new Set(filter.types) : undefined
    this.active = this.min !== undefined || this.types !== undefined
    this.keepAncestors = this.active && filter?.keep_ancestors === true
  }

  passes(node: Node): boolean {
    const min = this.min
    return (min === undefined || (node.meta?.salience ?? 0.5) >= min) && (this.types?.has(node.type) ?? true)
  }

  /** Whether a descendant of `node` passes the filter. */
  hasMatch(node: Node): boolean {
    const children = node.children
    if (!children) return false
    const known = this.matchMemo.get(node)
    if (known !== undefined) return known
    let found = false
    for (let i = 0; i < children.length && !found; i++) found = this.passes(children[i]!) || this.hasMatch(children[i]!)
    this.matchMemo.set(node, found)
    return found
  }

  build(root: Node, maxDepth: number): Work {
    this.visit(root, maxDepth, 0, -1, FULL, false)
    const size = this.src.length
    const unsettled = this.c.unsettled.subarray(0, size)
    const src = this.src
    return {
      src,
      kind: this.c.kind.subarray(0, size),
      parent: this.c.parent.subarray(0, size),
      depth: this.c.depth.subarray(0, size),
      childCount: this.c.childCount.subarray(0, size),
      hidden: this.c.hidden.subarray(0, size),
      desc: this.c.desc.subarray(0, size),
      pinnedIn: this.c.pinnedIn.subarray(0, size),
      underPin: this.c.underPin.subarray(0, size),
      unsettled,
      settleAt: (i) => {
        unsettled[i] = 0
        const children = src[i]!.children
        if (children && children.length > 0) this.stub(i, children)
      },
      size,
      costs: new Map()
    }
  }

  /** Adds `node` and, above the depth limit, its visible subtree; returns whether that holds a pinned node. */
  visit(node: Node, remaining: number, level: number, up: number, k: number, pinnedAbove: boolean): boolean {
    const index = this.push(node, level, up, k)
    const pinned = node.meta?.pinned === true
    const below = pinnedAbove || pinned
    if (below) this.c.underPin[index] = 1
    const children = node.children
    let holdsPin = pinned
    if (remaining <= 0) {
      if (children !== undefined) this.c.unsettled[index] = 1
    } else if (children && children.length > 0) {
      if (this.visitChildren(index, children, remaining - 1, level + 1, below)) holdsPin = true
    }
    if (holdsPin) this.c.pinnedIn[index] = 1
    return holdsPin
  }

  push(node: Node, level: number, up: number, k: number): number {
    const index = this.src.length
    if (index === this.capacity) {
      this.capacity *= 2
      const next = columns(this.capacity)
      for (const name of Object.keys(next) as Array<keyof Columns>) next[name].set(this.c[name])
      this.c = next
    }
    this.src.push(node)
    this.c.kind[index] = k
    this.c.parent[index] = up
    this.c.depth[index] = level
    return index
  }

  /** A node at the depth limit: a depth stub when any child would be visible, counting the hidden ones (the kind and
   * the hidden count of a node at the limit are written only here, when {@link settle} asks). */
  stub(index: number, children: ReadonlyArray<Node>): void {
    let visible = children.length
    if (this.active) {
      visible = 0
      for (let i = 0; i < children.length; i++) {
        const child = children[i]!
        if (this.passes(child) || (this.keepAncestors && this.hasMatch(child))) visible++
      }
    }
    this.c.hidden[index] = children.length - visible
    if (visible > 0) this.c.kind[index] = STUB
  }

  /**
   * Pushes the verdicts of the filter on `children` (1: passes) and returns where they start. They are read in a
   * loop of their own because on a fresh tree each child is a cold read: a short loop keeps several of those reads
   * in flight at once, where the visit between two children would leave the processor waiting on each in turn.
   */
  judge(children: ReadonlyArray<Node>): number {
    const base = this.top
    this.top += children.length
    if (this.top > verdicts.length) {
      const grown = new Uint8Array(this.top * 2)
      grown.set(verdicts)
      verdicts = grown
    }
    for (let i = 0; i < children.length; i++) verdicts[base + i] = this.passes(children[i]!) ? 1 : 0
    return base
  }

  visitChildren(index: number, children: ReadonlyArray<Node>, remaining: number, level: number, below: boolean) {
    let dropped = 0
    let kept = 0
    let holdsPin = false
    const base = this.active ? this.judge(children) : this.top
    for (let i = 0; i < children.length; i++) {
      const child = children[i]!
      let k: number = FULL
      if (this.active && verdicts[base + i] === 0) {
        if (!this.keepAncestors || !this.hasMatch(child)) {
          dropped++
          continue
        }
        k = ANCESTOR
      }
      if (this.visit(child, remaining, level, index, k, below)) holdsPin = true
      kept++
    }
    this.top = base
    this.c.hidden[index] = dropped
    this.c.childCount[index] = kept
    this.c.desc[index] = this.src.length - index - 1
    return holdsPin
  }
}
