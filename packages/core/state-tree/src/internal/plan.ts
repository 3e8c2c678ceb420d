/**
 * Compaction and budget windowing over a working tree: which nodes to collapse and how many children of each list
 * to keep so the view meets `max_nodes` and `max_tokens`.
 *
 * @since 0.1.0
 * @internal
 */
import { totalChildrenOf } from "../Node.ts"
import type { Costs } from "./tokenCosts.ts"
import { afterCost, costsFor, ownCost, unitCost } from "./tokenCosts.ts"
import type { Range, Work } from "./workTree.ts"
import { kidsOf, rootKids } from "./workTree.ts"

/** A plan: collapsed nodes and the children kept per list (`-1` = all; under a query window, of its slice). */
export interface Plan {
  readonly collapsed: Uint8Array
  readonly keep: Int32Array
}

/** SLOP's compaction score: `salience − depth × 0.01 − descendants × 0.001`; lower scores collapse first. */
export const compactionScore = (salience: number, depth: number, descendants: number): number =>
  salience - depth * 0.01 - descendants * 0.001

// SLOP's candidates: nodes with children below the root's children; heed skips pinned subtrees and ancestors of
// pinned nodes. Sorted once per working tree.
const sortedCandidates = (work: Work): Array<number> => {
  if (work.candidates !== undefined) return work.candidates
  const { childCount, depth, desc, parent, pinnedIn, src, underPin } = work
  const candidates: Array<number> = []
  for (let i = 1; i < work.size; i++) {
    if (childCount[i]! > 0 && parent[i] !== 0 && underPin[i] === 0 && pinnedIn[i] === 0) candidates.push(i)
  }
  const scores = new Float64Array(work.size)
  for (const i of candidates) scores[i] = compactionScore(src[i]!.meta?.salience ?? 0.5, depth[i]!, desc[i]!)
  candidates.sort((a, b) => scores[a]! - scores[b]! || a - b)
  work.candidates = candidates
  return candidates
}

/** The plan that changes nothing (`buildView` reads missing entries as "not collapsed, keep all"). */
const unchanged: Plan = { collapsed: new Uint8Array(0), keep: new Int32Array(0) }

/**
 * Plans compaction and windowing for one budget. Token decisions are made on lower bounds while they settle the
 * question (a view whose bound is over the budget is over it; a collapse whose bound saves tokens saves them) and
 * otherwise on exact counts of the lines involved, which are counted then; so the plan is the one a planner that
 * counted every line up front would make. Each count it triggers is bounded by the budget in question, since every
 * uncounted line is bounded by at least one token.
 */
export const plan = (
  work: Work,
  maxNodes: number,
  maxTokens: number,
  count: ((text: string) => number) | undefined,
  range: Range | undefined
): Plan => {
  const planner = new Planner(work, maxNodes, maxTokens, count)
  // A query window shows part of the root's list: the budget is planned for that part only, so compaction and
  // budget windowing never spend it on children the window does not show.
  if (range !== undefined) planner.hideOutside(range)
  if (!planner.over()) return range === undefined ? unchanged : planner.plan()
  planner.compact()
  if (!planner.over()) return planner.plan()
  const trimmed = planner.trim(planner.lists(range))
  planner.refill(trimmed)
  return planner.plan()
}

/** A child list the budget may trim: its parent and its working children. */
interface List {
  readonly parent: number
  readonly kids: Array<number>
}

// The state of the view being planned. `cur[i]` is the token cost of what node i shows (a lower bound while
// `curOpen[i] > 0` of its shown nodes are uncounted), `cur[0]` the whole view's; `curDesc[i]` its shown descendants.
class Planner {
  readonly withTokens: boolean
  readonly costs: Costs | undefined
  readonly cur: Float64Array
  readonly curOpen: Int32Array
  readonly curDesc: Int32Array
  readonly collapsed: Uint8Array
  readonly removed: Uint8Array
  readonly keep: Int32Array
  nodes: number

  readonly work: Work
  readonly maxNodes: number
  readonly maxTokens: number
  readonly count: ((text: string) => number) | undefined

  constructor(work: Work, maxNodes: number, maxTokens: number, count: ((text: string) => number) | undefined) {
    this.work = work
    this.maxNodes = maxNodes
    this.maxTokens = maxTokens
    this.count = count
    const size = work.size
    this.withTokens = count !== undefined && maxTokens < Infinity
    this.costs = this.withTokens ? costsFor(work, count!) : undefined
    this.cur = this.costs !== undefined ? this.costs.sum.slice() : new Float64Array(1)
    this.curOpen = this.costs !== undefined ? this.costs.open.slice() : new Int32Array(1)
    this.curDesc = work.desc.slice()
    // the two flag columns share one buffer
    const flags = new ArrayBuffer(size * 2)
    this.collapsed = new Uint8Array(flags, 0, size)
    this.removed = new Uint8Array(flags, size, size)
    this.keep = new Int32Array(size).fill(-1)
    this.nodes = size
  }

  plan(): Plan {
    return { collapsed: this.collapsed, keep: this.keep }
  }

  /** Counts node j's own cost, correcting the bounds of the working tree and of the view up to the first removed
   * node (a removed subtree is not part of its ancestors' view). */
  resolve(j: number): void {
    const { costs, cur, curOpen, removed } = this
    const parent = this.work.parent
    const exact = ownCost(this.work, this.count!, j)
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
  resolveShown(i: number): void {
    if (this.curOpen[i] === 0) return
    if (this.costs!.exact[i] === 0) this.resolve(i)
    const desc = this.work.desc
    const end = i + desc[i]!
    for (let c = i + 1; c <= end && this.curOpen[i]! > 0; c += desc[c]! + 1) {
      if (this.removed[c] === 0 && this.collapsed[c] === 0) this.resolveShown(c)
    }
  }

  /** Whether the view is over budget (exact: decided on the bound only when the bound is over). */
  over(): boolean {
    if (this.nodes > this.maxNodes) return true
    if (!this.withTokens || this.cur[0]! > this.maxTokens) return this.withTokens
    this.resolveShown(0)
    return this.cur[0]! > this.maxTokens
  }

  /** Whether node `i` is out of the view (removed, or under a collapsed or removed ancestor). */
  isHidden(i: number): boolean {
    if (this.removed[i] === 1) return true
    const parent = this.work.parent
    for (let up = parent[i]!; up >= 0; up = parent[up]!) {
      if (this.collapsed[up] === 1 || this.removed[up] === 1) return true
    }
    return false
  }

  /** Takes nodes, tokens and uncounted nodes out of the view of `from` and its ancestors (negative: gives back). */
  subtract(from: number, removedNodes: number, removedTokens: number, removedOpen: number): void {
    const parent = this.work.parent
    for (let up = from; up >= 0; up = parent[up]!) {
      this.curDesc[up]! -= removedNodes
      this.cur[up]! -= removedTokens
      this.curOpen[up]! -= removedOpen
    }
    this.nodes -= removedNodes
  }

  /** Removes child `k` of `parent` (and its subtree) from the view. */
  remove(parent: number, k: number): void {
    this.removed[k] = 1
    this.subtract(parent, this.curDesc[k]! + 1, this.cur[k]!, this.curOpen[k]!)
  }

  hideOutside(range: Range): void {
    const kids = kidsOf(this.work, 0)
    for (let p = 0; p < kids.length; p++) if (p < range[0] || p >= range[1]) this.remove(0, kids[p]!)
  }

  /** Compact: collapse candidates by ascending score while over budget, when a collapse saves something. */
  compact(): void {
    const { cur, curDesc, curOpen } = this
    for (const i of sortedCandidates(this.work)) {
      if (!this.over()) break
      if (this.isHidden(i)) continue
      let removedTokens = 0
      if (this.withTokens) {
        const after = afterCost(this.work, this.costs!, this.count!, i)
        if (this.nodes <= this.maxNodes) {
          // collapse only when it saves tokens: decided on the bound when it already exceeds `after`
          if (cur[i]! <= after) this.resolveShown(i)
          if (cur[i]! <= after) continue
        }
        removedTokens = cur[i]! - after
      }
      this.collapsed[i] = 1
      // the collapsed node now shows `after`, counted exactly: its uncounted nodes leave the view
      this.subtract(i, curDesc[i]!, removedTokens, curOpen[i]!)
    }
  }

  /** The lists budget windowing may trim, lowest mean child salience first (deeper first on ties): every shown list
   * except those holding or inside a pinned node. */
  lists(range: Range | undefined): Array<List> {
    const { childCount, desc, pinnedIn, src, underPin, depth, size } = this.work
    const lists: Array<List> = []
    const means = new Float64Array(size)
    for (let i = 0; i < size; i++) {
      // visit only nodes that are still shown: skip collapsed and pinned subtrees whole
      if (this.collapsed[i] === 1 || underPin[i] === 1) {
        i += desc[i]!
        continue
      }
      if (childCount[i] === 0) continue
      const kids = i === 0 ? rootKids(this.work, range) : kidsOf(this.work, i)
      if (kids.length === 0) continue
      let holdsPin = false
      let sum = 0
      for (const k of kids) {
        if (pinnedIn[k] === 1) holdsPin = true
        sum += src[k]!.meta?.salience ?? 0.5
      }
      if (holdsPin) continue
      means[i] = sum / kids.length
      lists.push({ parent: i, kids })
    }
    return lists.sort(
      (a, b) => means[a.parent]! - means[b.parent]! || depth[b.parent]! - depth[a.parent]! || a.parent - b.parent
    )
  }

  /** Window: trims lists from the end, in order, while over budget; returns the lists it trimmed. */
  trim(lists: ReadonlyArray<List>): Array<List> {
    const trimmed: Array<List> = []
    for (const list of lists) {
      if (!this.over()) break
      const i = list.parent
      if (this.isHidden(i)) continue
      if (this.withTokens) {
        const total = totalChildrenOf(this.work.src[i]!)
        const showing = unitCost(this.count!, `(showing ${total} of ${total})`, this.work.depth[i]! + 1)
        for (let up = i; up >= 0; up = this.work.parent[up]!) this.cur[up]! += showing
      }
      let kept = list.kids.length
      while (kept > 0 && this.over()) this.remove(i, list.kids[--kept]!)
      this.keep[i] = kept
      trimmed.push(list)
    }
    return trimmed
  }

  /** Refill: a trimmed list may have dropped a large child that overshot the budget; gives back, in list order, the
   * children that still fit, starting with the last list trimmed. */
  refill(trimmed: ReadonlyArray<List>): void {
    for (let t = trimmed.length - 1; t >= 0; t--) {
      const { parent: i, kids } = trimmed[t]!
      if (this.isHidden(i)) continue
      let kept = this.keep[i]!
      while (kept < kids.length) {
        const k = kids[kept]!
        const addNodes = this.curDesc[k]! + 1
        if (!this.fits(k, addNodes)) break
        this.removed[k] = 0
        this.subtract(i, -addNodes, -this.cur[k]!, -this.curOpen[k]!)
        kept++
      }
      this.keep[i] = kept === kids.length ? -1 : kept
    }
  }

  fits(k: number, addNodes: number): boolean {
    if (this.nodes + addNodes > this.maxNodes) return false
    if (!this.withTokens) return true
    // bounds first: the view and the child cost at least `cur`
    if (this.cur[0]! + this.cur[k]! > this.maxTokens) return false
    this.resolveShown(0)
    this.resolveShown(k)
    return this.cur[0]! + this.cur[k]! <= this.maxTokens
  }
}
