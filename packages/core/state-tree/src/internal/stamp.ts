/**
 * Stamping `meta.changed` on the nodes a rebuild modified, and clearing the previous stamps.
 *
 * @since 0.1.0
 * @internal
 */
import type { Node, NodeMeta } from "../Node.ts"
import { equals } from "./equals.ts"

const none: ReadonlyArray<Node> = []

const metaEqual = (a: NodeMeta | undefined, b: NodeMeta | undefined): boolean => {
  if (a === b) return true
  const { changed: _a, ...ra } = a ?? {}
  const { changed: _b, ...rb } = b ?? {}
  return equals(ra, rb)
}

const sameOwn = (a: Node, b: Node): boolean =>
  a.type === b.type &&
  equals(a.properties, b.properties) &&
  equals(a.affordances, b.affordances) &&
  equals(a.content_ref, b.content_ref) &&
  metaEqual(a.meta, b.meta)

const mark = (node: Node, children: ReadonlyArray<Node> | null | undefined): Node => {
  const out: { -readonly [K in keyof Node]: Node[K] } = { ...node, meta: { ...node.meta, changed: true } }
  if (children !== node.children) out.children = children
  return out
}

/**
 * Stamps `meta.changed: true` on the nodes of `next` that differ from `previous` (new nodes, nodes whose own
 * content changed, parents that lost or reordered children) and clears the stamps of the last rebuild.
 * `previousOut` is the last stamped tree (same shape as `previous`); `stamped` holds the stamped nodes and their
 * ancestors, so unchanged and unstamped subtrees are reused as they are. Returns the new tree and how many nodes
 * changed (0 = nothing changed).
 */
export const stamp = (
  previous: Node,
  next: Node,
  previousOut: Node,
  stamped: WeakSet<Node>
): { readonly tree: Node; readonly changes: number } => {
  let changes = 0
  const visit = (prev: Node, node: Node, prevOut: Node | undefined): Node => {
    if (prev === node && prevOut !== undefined && !stamped.has(prevOut)) return prevOut
    let own = !sameOwn(prev, node)
    const nc = node.children
    let children = nc
    let childStamped = false
    if (nc && nc.length > 0) {
      const pc = prev.children ?? none
      const poc = prevOut?.children ?? none
      let byId: Map<string, number> | undefined
      let list: Array<Node> | undefined
      let matched = 0
      let ordered = pc.length === nc.length
      for (let i = 0; i < nc.length; i++) {
        const child = nc[i]!
        let j = i < pc.length && pc[i]!.id === child.id ? i : -1
        if (j < 0) {
          ordered = false
          if (byId === undefined) {
            byId = new Map()
            for (let k = 0; k < pc.length; k++) byId.set(pc[k]!.id, k)
          }
          j = byId.get(child.id) ?? -1
        }
        let out: Node
        if (j >= 0 && pc[j]!.type === child.type) {
          matched++
          out = visit(pc[j]!, child, poc[j]?.id === child.id ? poc[j] : undefined)
        } else {
          changes++
          out = mark(child, child.children)
          stamped.add(out)
        }
        if (stamped.has(out)) childStamped = true
        if (out !== child) {
          list ??= nc.slice(0, i)
          list.push(out)
        } else if (list !== undefined) list.push(out)
      }
      if (list !== undefined) children = list
      if (!ordered || matched < pc.length) own = true
    } else if ((prev.children?.length ?? 0) > 0) own = true
    let result: Node
    if (own) {
      changes++
      result = mark(node, children)
    } else result = children !== nc ? { ...node, children } : node
    if (own || childStamped) stamped.add(result)
    return result
  }
  const tree = visit(previous, next, previousOut)
  return { tree, changes }
}
