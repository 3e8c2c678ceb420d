/**
 * The attention digest: the salient nodes of a whole tree, flattened under one synthetic root and ordered by what
 * needs attention first, each carrying its path for drill-down.
 *
 * @since 0.1.0
 */
import { countO200k } from "@heed/schema"
import { escapeSegment as escapeKey } from "./internal/pointer.ts"
import type { Node, NodeMeta } from "./Node.ts"
import { parsePath, totalChildrenOf } from "./Node.ts"
import * as Render from "./Render.ts"

/**
 * Digest options: `min_salience` (default `0.7`) selects nodes; `max_nodes` caps the entries under the root;
 * `max_tokens` caps the rendered text (counted by `countTokens`, o200k by default); `path` is the SLOP path of the
 * digested node when it is not the app's root (e.g. `"/inbox"`), so that entries' `meta.path` stay valid for
 * drill-down queries (default `"/"`).
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly min_salience?: number | undefined
  readonly max_nodes?: number | undefined
  readonly max_tokens?: number | undefined
  readonly countTokens?: ((text: string) => number) | undefined
  readonly path?: string | undefined
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
 * - Each entry is the node without its children, `meta.path` set to its SLOP path (prefixed with `options.path`)
 *   and `meta.total_children` to its child count when it has children, so the consumer can drill in with a query.
 * - Entry ids are unique under the digest root, so patches between digests apply cleanly: when two entries share
 *   an id (`/deploy/status`, `/db/status`), the more important keeps it and the other gets one made from its path
 *   (`db.status`, then `-2`, `-3`, … if that is taken too). `meta.path` always names the real node.
 * - At most `max_nodes` entries; with `max_tokens`, entries are taken most important first while the rendered
 *   digest fits (an entry that does not fit is skipped, so a smaller, less important one may still be shown), and
 *   the result is measured exactly.
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
  // the escaped ids from the app root to the node being walked (starting with `options.path`)
  const trail: Array<string> = options.path === undefined ? [] : parsePath(options.path).map(escapeKey)
  const pathOf = (id: string) => (trail.length === 0 ? `/${escapeKey(id)}` : `/${trail.join("/")}/${escapeKey(id)}`)
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
        trail.push(escapeKey(child.id))
        walk(child)
        trail.pop()
      }
    }
  }
  walk(tree)
  let order = picked.map((_, i) => i)
  if (!bounded) order.sort((a, b) => compare(picked[a]!, picked[b]!) || a - b)
  const summaryOf = (shown: number): string => {
    const parts: Array<string> = []
    if (critical > 0) parts.push(plural(critical, "critical item", "critical items"))
    if (high > 0) parts.push(plural(high, "high-urgency item", "high-urgency items"))
    parts.push(changed > 0 ? `${plural(changed, "change", "changes")} since last check` : "no changes since last check")
    if (shown < salient) parts.push(`showing ${shown} of ${salient} salient nodes`)
    return parts.join(", ")
  }
  if (options.max_tokens === undefined) {
    if (order.length > limit) order = order.slice(0, limit)
    const candidates = order.map((i) => picked[i]!)
    const paths = order.map((i) => pickedPaths[i]!)
    const ids = uniqueIds(candidates, paths)
    return root(
      summaryOf(candidates.length),
      candidates.map((node, r) => flatten(node, paths[r]!, ids[r]!))
    )
  }
  const candidates = order.map((i) => picked[i]!)
  const paths = order.map((i) => pickedPaths[i]!)
  const ids = uniqueIds(candidates, paths)
  return fill(
    candidates.map((node, r) => () => flatten(node, paths[r]!, ids[r]!)),
    limit,
    options.max_tokens,
    options.countTokens ?? countO200k,
    summaryOf
  )
}

// ---------------------------------------------------------------------------------------------------------------
// Unique entry ids: entries come from different parents, and patch paths find children by id, so two entries with
// the same id would make patches land on the wrong one. The first (most important) keeps its id; a later one whose
// id is taken gets an id made from its path (`/db/status` → `db.status`), with `-2`, `-3`, … when that is taken too.
// An entry's id depends only on the entries before it, so a digest cut short by `max_nodes` has the same ids as the
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

// ---------------------------------------------------------------------------------------------------------------
// max_tokens: fill the budget most-important-first. Each line is costed as a unit with its indentation and newline
// (exact for o200k up to the last line's missing newline); entries that do not fit are skipped, so a smaller, less
// important one may still be shown. The rendered digest is then measured exactly: entries are dropped from the end
// while it is over, and skipped entries that the measured slack may still hold are tried one by one.

/** Consecutive entries that do not fit before the search for smaller ones stops. */
const MAX_MISSES = 64
/** Exact tries of skipped entries near the budget. */
const MAX_TRIES = 16

const fill = (
  entries: ReadonlyArray<() => Node>,
  limit: number,
  maxTokens: number,
  count: (text: string) => number,
  summaryOf: (shown: number) => string
): Node => {
  const built: Array<Node | undefined> = []
  const entryAt = (r: number): Node => {
    let entry = built[r]
    if (entry === undefined) {
      entry = entries[r]!()
      built[r] = entry
    }
    return entry
  }
  const costs: Array<number> = []
  const costAt = (r: number): number => {
    let cost = costs[r]
    if (cost === undefined) {
      const entry = entryAt(r)
      cost = count(`  ${Render.line(entry)}\n`)
      for (const extra of Render.extraLines(entry)) cost += count(`    ${extra}\n`)
      costs[r] = cost
    }
    return cost
  }
  const rootCosts = new Map<number, number>()
  const rootCost = (shown: number): number => {
    let cost = rootCosts.get(shown)
    if (cost === undefined) {
      cost = count(`${Render.line(root(summaryOf(shown), []))}\n`)
      rootCosts.set(shown, cost)
    }
    return cost
  }
  const build = (chosen: ReadonlyArray<number>): Node =>
    root(
      summaryOf(chosen.length),
      chosen.map((r) => entryAt(r))
    )

  // 1. greedy on unit costs
  const chosen: Array<number> = []
  const skipped: Array<number> = []
  let sum = 0
  let misses = 0
  for (let r = 0; r < entries.length && chosen.length < limit && misses < MAX_MISSES; r++) {
    const cost = costAt(r)
    if (rootCost(chosen.length + 1) + sum + cost <= maxTokens) {
      chosen.push(r)
      sum += cost
      misses = 0
    } else {
      skipped.push(r)
      misses++
    }
  }
  // 2. exact: drop from the end while over
  let out = build(chosen)
  let exact = count(Render.text(out))
  while (chosen.length > 0 && exact > maxTokens) {
    sum -= costAt(chosen.pop()!)
    out = build(chosen)
    exact = count(Render.text(out))
  }
  // 3. exact: try skipped entries the measured slack may still hold (unit sums can overestimate a little)
  let tries = 0
  for (let s = 0; s < skipped.length && chosen.length < limit && tries < MAX_TRIES; s++) {
    const r = skipped[s]!
    const drift = exact - (rootCost(chosen.length) + sum)
    if (rootCost(chosen.length + 1) + sum + costAt(r) + drift - 2 > maxTokens) continue
    tries++
    let at = chosen.length
    while (at > 0 && chosen[at - 1]! > r) at--
    const next = [...chosen.slice(0, at), r, ...chosen.slice(at)]
    const candidate = build(next)
    const measured = count(Render.text(candidate))
    if (measured > maxTokens) continue
    chosen.splice(at, 0, r)
    sum += costAt(r)
    out = candidate
    exact = measured
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
