/**
 * The attention digest: the salient nodes of a whole tree, flattened under one synthetic root and ordered by what
 * needs attention first, each carrying its path for drill-down.
 *
 * @since 0.1.0
 */
import { TokenCounter } from "@heed/schema"
import { fill } from "./internal/digestFill.ts"
import { escapeSegment as escapeKey } from "./internal/pointer.ts"
import type { Node, NodeMeta } from "./Node.ts"
import { parsePath, totalChildrenOf } from "./Node.ts"

/**
 * Digest options (in-process, so camelCase; a SLOP request on the wire keeps `min_salience`, `max_nodes` and
 * `max_tokens`): `minSalience` (default `0.7`) selects nodes; `maxNodes` caps the entries under the root;
 * `maxTokens` caps the rendered text (counted by `countTokens`, o200k by default); `path` is the SLOP path of the
 * digested node when it is not the app's root (e.g. `"/inbox"`), so that entries' `meta.path` stay valid for
 * drill-down queries (default `"/"`). The snake_case spellings are still accepted (the camelCase one wins when both
 * are set).
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly minSalience?: number | undefined
  readonly maxNodes?: number | undefined
  readonly maxTokens?: number | undefined
  readonly countTokens?: ((text: string) => number) | undefined
  readonly path?: string | undefined
  /**
   * The old name of `minSalience`, still accepted.
   *
   * @deprecated Use `minSalience`.
   */
  readonly min_salience?: number | undefined
  /**
   * The old name of `maxNodes`, still accepted.
   *
   * @deprecated Use `maxNodes`.
   */
  readonly max_nodes?: number | undefined
  /**
   * The old name of `maxTokens`, still accepted.
   *
   * @deprecated Use `maxTokens`.
   */
  readonly max_tokens?: number | undefined
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
 * @category combinators
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

/**
 * Builds the digest `{ id: "attention-digest", type: "root", meta: { summary }, children }`.
 *
 * - Entries: every node other than the root whose salience (missing = `0.5`) is at least `minSalience`, or whose
 *   urgency is `high` or `critical`, from anywhere in the tree, ordered by {@link compare} (ties keep tree order).
 * - Each entry is the node without its children, `meta.path` set to its SLOP path (prefixed with `options.path`)
 *   and `meta.total_children` to its child count when it has children, so the consumer can drill in with a query.
 * - Entry ids are unique under the digest root, so patches between digests apply cleanly: when two entries share
 *   an id (`/deploy/status`, `/db/status`), the more important keeps it and the other gets one made from its path
 *   (`db.status`, then `-2`, `-3`, … if that is taken too). `meta.path` always names the real node.
 * - At most `maxNodes` entries; with `maxTokens`, entries are taken most important first while the rendered
 *   digest fits (an entry that does not fit is skipped, so a smaller, less important one may still be shown), and
 *   the result is measured exactly.
 * - The summary counts critical and high items and changed nodes, e.g.
 *   `"2 critical items, 5 changes since last check"`, and says how many were left out.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (tree: Node, options: Options = {}): Node => {
  const maxNodes = options.maxNodes ?? options.max_nodes
  const maxTokens = options.maxTokens ?? options.max_tokens
  const limit = maxNodes !== undefined ? Math.max(0, Math.floor(maxNodes)) : Infinity
  // With maxNodes (and no maxTokens) only the best `limit` are kept while walking.
  const selection = new Selection(limit < Infinity && maxTokens === undefined ? limit : Infinity)
  selection.walk(tree, options.minSalience ?? options.min_salience ?? defaultMinSalience, options.path)
  const order = selection.order()
  const summaryOf = (shown: number) => selection.summary(shown)
  const candidates = order.map((i) => selection.picked[i]!)
  const paths = order.map((i) => selection.paths[i]!)
  const ids = uniqueIds(candidates, paths)
  if (maxTokens === undefined) {
    const shown = Math.min(candidates.length, limit)
    const entries = candidates.slice(0, shown).map((node, r) => flatten(node, paths[r]!, ids[r]!))
    return root(summaryOf(shown), entries)
  }
  return fill(
    candidates.map((node, r) => () => flatten(node, paths[r]!, ids[r]!)),
    limit,
    maxTokens,
    options.countTokens ?? TokenCounter.countO200k,
    (shown, entries) => root(summaryOf(shown), entries)
  )
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`

// The salient nodes of a tree and the counts of the summary. With a finite `limit` it keeps only the best `limit`,
// in a sorted array (a bounded top-k: a node that cannot make the cut is rejected by two number comparisons and never
// gets a path).
class Selection {
  readonly picked: Array<Node> = []
  readonly paths: Array<string> = []
  salient = 0
  critical = 0
  high = 0
  changed = 0
  // the sort keys of the last kept entry, once the array is full
  worstRank = -1
  worstSalience = -Infinity
  // the escaped ids from the app root to the node being walked (starting with the digested node's path)
  readonly trail: Array<string> = []
  readonly limit: number

  constructor(limit: number) {
    this.limit = limit
  }

  pathOf(id: string): string {
    return this.trail.length === 0 ? `/${escapeKey(id)}` : `/${this.trail.join("/")}/${escapeKey(id)}`
  }

  walk(tree: Node, min: number, path: string | undefined): void {
    if (path !== undefined) for (const id of parsePath(path)) this.trail.push(escapeKey(id))
    this.visit(tree, min)
  }

  visit(node: Node, min: number): void {
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
          if (urgency === "critical") this.critical++
          else if (urgency === "high") this.high++
        }
        if (meta.changed === true) this.changed++
        const salience = meta.salience ?? 0.5
        if (salience >= min || urgency === "critical" || urgency === "high") this.offer(child, rank, salience)
      } else if (0.5 >= min) this.offer(child, 0, 0.5)
      const grandchildren = child.children
      if (grandchildren && grandchildren.length > 0) {
        this.trail.push(escapeKey(child.id))
        this.visit(child, min)
        this.trail.pop()
      }
    }
  }

  offer(node: Node, rank: number, salience: number): void {
    this.salient++
    const { picked, paths, limit } = this
    if (limit === Infinity) {
      picked.push(node)
      paths.push(this.pathOf(node.id))
      return
    }
    if (picked.length >= limit) {
      if (limit === 0 || rank < this.worstRank || (rank === this.worstRank && salience < this.worstSalience)) return
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
    paths.splice(lo, 0, this.pathOf(node.id))
    if (picked.length > limit) {
      picked.pop()
      paths.pop()
    }
    if (picked.length >= limit) {
      const worst = picked[picked.length - 1]!.meta
      this.worstRank = rankOf(worst)
      this.worstSalience = worst?.salience ?? 0.5
    }
  }

  /** Indices of the picked nodes, most important first (a bounded selection is kept in order already). */
  order(): Array<number> {
    const order = this.picked.map((_, i) => i)
    if (this.limit === Infinity) order.sort((a, b) => compare(this.picked[a]!, this.picked[b]!) || a - b)
    return order
  }

  summary(shown: number): string {
    const parts: Array<string> = []
    if (this.critical > 0) parts.push(plural(this.critical, "critical item", "critical items"))
    if (this.high > 0) parts.push(plural(this.high, "high-urgency item", "high-urgency items"))
    parts.push(
      this.changed > 0 ? `${plural(this.changed, "change", "changes")} since last check` : "no changes since last check"
    )
    if (shown < this.salient) parts.push(`showing ${shown} of ${this.salient} salient nodes`)
    return parts.join(", ")
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Unique entry ids: entries come from different parents, and patch paths find children by id, so two entries with
// the same id would make patches land on the wrong one. The first (most important) keeps its id; a later one whose
// id is taken gets an id made from its path (`/db/status` → `db.status`), with `-2`, `-3`, … when that is taken too.
// An entry's id depends only on the entries before it, so a digest cut short by `maxNodes` has the same ids as the
// first entries of the full digest.

const uniqueIds = (nodes: ReadonlyArray<Node>, paths: ReadonlyArray<string>): Array<string> => {
  const used = new Set<string>()
  const out: Array<string> = []
  for (let r = 0; r < nodes.length; r++) {
    let id = nodes[r]!.id
    if (used.has(id)) {
      const base = paths[r]!.split("/")
        .filter((segment) => segment !== "")
        .join(".")
      id = base
      for (let k = 2; used.has(id); k++) id = `${base}-${k}`
    }
    used.add(id)
    out.push(id)
  }
  return out
}

const root = (summary: string, children: Array<Node>): Node => ({
  id: "attention-digest",
  type: "root",
  meta: { summary },
  children
})

const flatten = (node: Node, path: string, id: string): Node => {
  const total = totalChildrenOf(node)
  const out: { -readonly [K in keyof Node]: Node[K] } = { id, type: node.type }
  if (node.properties !== undefined) out.properties = node.properties
  if (node.affordances !== undefined) out.affordances = node.affordances
  out.meta = total > 0 ? { ...node.meta, path, total_children: total } : { ...node.meta, path }
  if (node.content_ref !== undefined) out.content_ref = node.content_ref
  return out
}
