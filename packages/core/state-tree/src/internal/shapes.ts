/**
 * The nodes the pipeline outputs: depth stubs, compacted nodes, windowed lists, and the view of a working tree under
 * a plan.
 *
 * @since 0.1.0
 * @internal
 */
import type { Node, NodeMeta } from "../Node.ts"
import { totalChildrenOf } from "../Node.ts"
import type { Range, Work } from "./workTree.ts"
import { ANCESTOR, FULL, kidsOf, rootKids, STUB, settle } from "./workTree.ts"

/** `meta` with `extra` merged in. */
export const withMeta = (meta: NodeMeta | undefined, extra: NodeMeta): NodeMeta =>
  meta ? { ...meta, ...extra } : extra

/** A node at the depth limit: `{ id, type, meta: { ...meta, total_children } }` (and `filtered`). */
export const depthStub = (node: Node, hidden: number): Node => ({
  id: node.id,
  type: node.type,
  meta: withMeta(
    node.meta,
    hidden > 0 ? { total_children: totalChildrenOf(node), filtered: hidden } : { total_children: totalChildrenOf(node) }
  )
})

/**
 * A collapsed node: `properties` and `affordances` kept (not on a `keep_ancestors` stub), `meta.total_children` and
 * a default `"{N} children"` summary.
 */
export const compacted = (node: Node, stub: boolean, hidden: number): Node => {
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

/** A query window on the root: the part of its list it shows and the window as requested. */
export interface QueryWindow {
  readonly range: Range
  readonly requested: readonly [number, number]
}

/**
 * The view of working node `i` under a plan (`collapsed` nodes, `keep` = children kept per list, `-1` = all):
 * unchanged subtrees are the input's own objects.
 */
export const buildView = (
  work: Work,
  i: number,
  collapsed: Uint8Array,
  keep: Int32Array,
  window?: QueryWindow
): Node => {
  const node = work.src[i]!
  settle(work, i)
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
    const child = buildView(work, list[c]!, collapsed, keep)
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
export const windowRange = (length: number, window: readonly [number, number]): Range => {
  const start = Math.min(length, Math.max(0, Math.floor(window[0])))
  return [start, Math.min(length, start + Math.max(0, Math.floor(window[1])))]
}

// The window of a view that needed no planning. A node served with no inline children is left as it is: a window
// there would claim items none of which are shown.
export const sliceWindow = (node: Node, window: readonly [number, number]): Node => {
  const children = node.children
  if (!children || children.length === 0) return node
  const [start, end] = windowRange(children.length, window)
  return {
    ...node,
    children: children.slice(start, end),
    meta: withMeta(node.meta, { window: [window[0], window[1]], total_children: totalChildrenOf(node) })
  }
}
