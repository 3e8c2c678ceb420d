/**
 * The attention digest: the salient nodes of a whole tree, flattened under one synthetic root and ordered by what
 * needs attention first, each carrying its path for drill-down.
 *
 * @since 0.1.0
 */
import { countO200k } from "@heed/schema"
import type { Node, NodeMeta } from "./Node.ts"
import { totalChildrenOf } from "./Node.ts"
import * as Render from "./Render.ts"

/**
 * Digest options: `min_salience` (default `0.7`) selects nodes; `max_nodes` caps the entries under the root;
 * `max_tokens` caps the rendered text (counted by `countTokens`, o200k by default).
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly min_salience?: number | undefined
  readonly max_nodes?: number | undefined
  readonly max_tokens?: number | undefined
  readonly countTokens?: ((text: string) => number) | undefined
}

/**
 * The default selection threshold, `0.7` (SLOP's digest example).
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultMinSalience = 0.7

const urgencyRank: Record<string, number> = { none: 0, low: 1, medium: 2, high: 3, critical: 4 }

const rankOf = (meta: NodeMeta | undefined): number => urgencyRank[meta?.urgency ?? "none"] ?? 0

/**
 * Orders two nodes for the digest: higher urgency first, then higher salience, then focused, then changed.
 * Returns a negative number when `a` comes first.
 *
 * @category ordering
 * @since 0.1.0
 */
export const compare = (a: Node, b: Node): number => {
  const ma = a.meta
  const mb = b.meta
  return (
    rankOf(mb) - rankOf(ma) ||
    (mb?.salience ?? 0.5) - (ma?.salience ?? 0.5) ||
    (mb?.focus === true ? 1 : 0) - (ma?.focus === true ? 1 : 0) ||
    (mb?.changed === true ? 1 : 0) - (ma?.changed === true ? 1 : 0)
  )
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`

/**
 * Builds the digest `{ id: "attention-digest", type: "root", meta: { summary }, children }`.
 *
 * - Entries: every node other than the root whose salience (missing = `0.5`) is at least `min_salience`, or whose
 *   urgency is `high` or `critical`, from anywhere in the tree, ordered by {@link compare} (ties keep tree order).
 * - Each entry is the node without its children, `meta.path` set to its SLOP path and `meta.total_children` to its
 *   child count when it has children, so the consumer can drill in with a query.
 * - At most `max_nodes` entries; with `max_tokens`, entries are added while the rendered digest fits.
 * - The summary counts critical and high items and changed nodes, e.g.
 *   `"2 critical items, 5 changes since last check"`, and says how many were left out.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (tree: Node, options: Options = {}): Node => {
  const min = options.min_salience ?? defaultMinSalience
  const limit = options.max_nodes !== undefined ? Math.max(0, Math.floor(options.max_nodes)) : Infinity
  // With max_nodes (and no max_tokens) only the best `limit` are kept while walking, in a sorted array (a bounded
  // top-k: a node that cannot make the cut is rejected by two number comparisons and never gets a path).
  const bounded = limit < Infinity && options.max_tokens === undefined
  const picked: Array<Node> = []
  const pickedPaths: Array<string> = []
  let salient = 0
  let critical = 0
  let high = 0
  let changed = 0
  // the sort keys of the last kept entry, once the array is full
  let worstRank = -1
  let worstSalience = -Infinity
  const ids: Array<string> = []
  const pathOf = (id: string) => (ids.length === 0 ? `/${id}` : `/${ids.join("/")}/${id}`)
  const offer = (node: Node, rank: number, salience: number) => {
    salient++
    if (!bounded) {
      picked.push(node)
      pickedPaths.push(pathOf(node.id))
      return
    }
    if (picked.length >= limit) {
      if (limit === 0 || rank < worstRank || (rank === worstRank && salience < worstSalience)) return
      if (compare(node, picked[picked.length - 1]!) >= 0) return
    }
    // binary search for the first entry that ranks after `node` (ties keep tree order)
    let lo = 0
    let hi = picked.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (compare(node, picked[mid]!) < 0) hi = mid
      else lo = mid + 1
    }
    picked.splice(lo, 0, node)
    pickedPaths.splice(lo, 0, pathOf(node.id))
    if (picked.length > limit) {
      picked.pop()
      pickedPaths.pop()
    }
    if (picked.length >= limit) {
      const worst = picked[picked.length - 1]!.meta
      worstRank = rankOf(worst)
      worstSalience = worst?.salience ?? 0.5
    }
  }
  const walk = (node: Node): void => {
    const children = node.children
    if (!children) return
    for (let i = 0; i < children.length; i++) {
      const child = children[i]!
      const meta = child.meta
      if (meta !== undefined) {
        const urgency = meta.urgency
        let rank = 0
        if (urgency !== undefined) {
          rank = rankOf(meta)
          if (urgency === "critical") critical++
          else if (urgency === "high") high++
        }
        if (meta.changed === true) changed++
        const salience = meta.salience ?? 0.5
        if (salience >= min || urgency === "critical" || urgency === "high") offer(child, rank, salience)
      } else if (0.5 >= min) offer(child, 0, 0.5)
      const grandchildren = child.children
      if (grandchildren && grandchildren.length > 0) {
        ids.push(child.id)
        walk(child)
        ids.pop()
      }
    }
  }
  walk(tree)
  let order = picked.map((_, i) => i)
  if (!bounded) order.sort((a, b) => compare(picked[a]!, picked[b]!) || a - b)
  if (order.length > limit) order = order.slice(0, limit)
  const entries: Array<Node> = []
  const count = options.max_tokens !== undefined ? (options.countTokens ?? countO200k) : undefined
  let tokens = 0
  const summaryOf = (shown: number): string => {
    const parts: Array<string> = []
    if (critical > 0) parts.push(plural(critical, "critical item", "critical items"))
    if (high > 0) parts.push(plural(high, "high-urgency item", "high-urgency items"))
    parts.push(changed > 0 ? `${plural(changed, "change", "changes")} since last check` : "no changes since last check")
    if (shown < salient) parts.push(`showing ${shown} of ${salient} salient nodes`)
    return parts.join(", ")
  }
  if (count !== undefined) tokens = count(Render.line(root(summaryOf(0), []))) + 16
  for (let r = 0; r < order.length; r++) {
    const i = order[r]!
    const entry = flatten(picked[i]!, pickedPaths[i]!)
    if (count !== undefined) {
      let cost = count(Render.line(entry)) + 3
      for (const extra of Render.extraLines(entry)) cost += count(extra) + 3
      if (tokens + cost > options.max_tokens!) continue
      tokens += cost
    }
    entries.push(entry)
  }
  if (count !== undefined) {
    // Exact check on the rendered text; drop the last entries until it fits.
    while (entries.length > 0 && count(Render.text(root(summaryOf(entries.length), entries))) > options.max_tokens!) {
      entries.pop()
    }
  }
  return root(summaryOf(entries.length), entries)
}

const root = (summary: string, children: Array<Node>): Node => ({
  id: "attention-digest",
  type: "root",
  meta: { summary },
  children
})

const flatten = (node: Node, path: string): Node => {
  const total = totalChildrenOf(node)
  const out: { -readonly [K in keyof Node]: Node[K] } = { id: node.id, type: node.type }
  if (node.properties !== undefined) out.properties = node.properties
  if (node.affordances !== undefined) out.affordances = node.affordances
  out.meta = total > 0 ? { ...node.meta, path, total_children: total } : { ...node.meta, path }
  if (node.content_ref !== undefined) out.content_ref = node.content_ref
  return out
}
