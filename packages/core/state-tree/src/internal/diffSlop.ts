/**
 * The `"slop"` patch format: what SLOP's own consumer SDK applies exactly (see `Patch.Format` for what that consumer
 * cannot read, and what is sent instead).
 *
 * @since 0.1.0
 * @internal
 */
import type { Node } from "../Node.ts"
import { validateId } from "../Node.ts"
import type { Op } from "../Patch.ts"
import { diffProperties, pathTo, stack } from "./diffCompact.ts"
import { equals } from "./equals.ts"

// Each function returns false when the change cannot be written in place for SLOP's consumer;
// the caller then replaces the enclosing child list (or, at the root, the whole tree).

// A whole field: SLOP's consumer sets a field on `replace` whether or not it exists, but reads `add`/`remove` of
// `/x/<field>` below the root as a child op.
const slopField = (field: string, va: unknown, vb: unknown, ops: Array<Op>, root: boolean): boolean => {
  if (vb === undefined) {
    if (va === undefined) return true
    if (!root) return false
    ops.push({ op: "remove", path: `/${field}` })
    return true
  }
  if (va !== undefined && equals(va, vb)) return true
  ops.push({ op: va === undefined && root ? "add" : "replace", path: pathTo(`/${field}`), value: vb })
  return true
}

const slopProperties = (
  pa: Readonly<Record<string, unknown>> | undefined,
  pb: Readonly<Record<string, unknown>> | undefined,
  ops: Array<Op>,
  root: boolean
): boolean => {
  if (pa === undefined || pb === undefined) return slopField("properties", pa, pb, ops, root)
  const start = ops.length
  diffProperties(pa, pb, ops)
  for (let i = start; i < ops.length; i++) {
    // the escaped key: empty, or holding `~` when the key holds `/` or `~`
    const path = ops[i]!.path
    const key = path.slice(path.lastIndexOf("/properties/") + 12)
    if (key === "" || key.includes("~")) {
      // a key SLOP's consumer would misread: send the properties whole
      ops.length = start
      ops.push({ op: "replace", path: pathTo("/properties"), value: pb })
      break
    }
  }
  return true
}

const slopNode = (a: Node, b: Node, ops: Array<Op>, root: boolean): boolean =>
  (a.properties === b.properties || slopProperties(a.properties, b.properties, ops, root)) &&
  (a.meta === b.meta || slopField("meta", a.meta, b.meta, ops, root)) &&
  (a.affordances === b.affordances || slopField("affordances", a.affordances, b.affordances, ops, root)) &&
  (a.content_ref === b.content_ref || slopField("content_ref", a.content_ref, b.content_ref, ops, root)) &&
  (a.children === b.children || slopChildren(a.children, b.children, ops))

// SLOP's consumer cannot delete a `children` key (removing the last child leaves `[]`), so a list that becomes
// absent is lifted to the parent; every other change of the list is written here, if need be as a replace of it.
const slopChildren = (
  ca: ReadonlyArray<Node> | null | undefined,
  cb: ReadonlyArray<Node> | null | undefined,
  ops: Array<Op>
): boolean => {
  if (cb === undefined) return false
  if (cb !== null && ca != null && ca.length > 0 && cb.length > 0) {
    const start = ops.length
    if (slopList(ca, cb, ops)) return true
    ops.length = start
  } else if (cb !== null && ca != null && ca.length === 0 && cb.length === 0) return true
  ops.push({ op: "replace", path: pathTo("/children"), value: cb })
  return true
}

// Removes, then appends, then changes inside kept children, when the kept children keep their order and every new
// child comes after them; false otherwise (the caller replaces the list).
const slopList = (ca: ReadonlyArray<Node>, cb: ReadonlyArray<Node>, ops: Array<Op>): boolean => {
  let same = 0
  const shortest = Math.min(ca.length, cb.length)
  while (same < shortest && ca[same]!.id === cb[same]!.id && ca[same]!.type === cb[same]!.type) same++
  let kept = same
  let previous: Map<string, Node> | undefined
  if (same < ca.length || same < cb.length) {
    const next = new Map<string, Node>()
    for (const child of cb) next.set(child.id, child)
    previous = new Map<string, Node>()
    for (const child of ca) previous.set(child.id, child)
    if (next.size !== cb.length || previous.size !== ca.length) return false
    for (let i = same; i < ca.length; i++) {
      const child = ca[i]!
      const match = next.get(child.id)
      if (match !== undefined && match.type === child.type) {
        // a kept child must stay where the removals leave it
        if (cb[kept]?.id !== child.id) return false
        kept++
        continue
      }
      if (validateId(child.id) !== undefined) return false
      ops.push({ op: "remove", path: pathTo(`/${child.id}`) })
    }
    for (let i = kept; i < cb.length; i++) {
      if (validateId(cb[i]!.id) !== undefined) return false
      ops.push({ op: "add", path: pathTo(`/${cb[i]!.id}`), value: cb[i] })
    }
  }
  for (let i = 0; i < kept; i++) {
    const x = i < same ? ca[i]! : previous!.get(cb[i]!.id)!
    const y = cb[i]!
    if (x === y) continue
    if (validateId(x.id) !== undefined) {
      if (equals(x, y)) continue
      return false
    }
    stack.push(x.id)
    const ok = slopNode(x, y, ops, false)
    stack.pop()
    if (!ok) return false
  }
  return true
}

/** The slop ops that turn `previous` into `next` (same id and type), or `undefined` when only a whole replace can. */
export const slopOps = (previous: Node, next: Node): Array<Op> | undefined => {
  const ops: Array<Op> = []
  stack.length = 0
  return slopNode(previous, next, ops, true) ? ops : undefined
}
