/**
 * The `"compact"` patch format: removes, adds with `index`, `move`s, per-key property ops and whole-field ops; ids
 * and keys holding `/` or `~` are escaped per RFC 6901.
 *
 * @since 0.1.0
 * @internal
 */
import type { Node } from "../Node.ts"
import type { Op } from "../Patch.ts"
import { equals } from "./equals.ts"
import { escapeSegment as escapeKey } from "./pointer.ts"

// The path of the node being compared, as a stack of (escaped) ids; strings are only built when an op is emitted.
export const stack: Array<string> = []
export const pathTo = (suffix: string): string => (stack.length === 0 ? suffix : `/${stack.join("/")}${suffix}`)

const diffField = (field: string, va: unknown, vb: unknown, ops: Array<Op>): void => {
  if (va === vb) return
  if (va === undefined) ops.push({ op: "add", path: pathTo(`/${field}`), value: vb })
  else if (vb === undefined) ops.push({ op: "remove", path: pathTo(`/${field}`) })
  else if (!equals(va, vb)) ops.push({ op: "replace", path: pathTo(`/${field}`), value: vb })
}

export const diffProperties = (
  pa: Readonly<Record<string, unknown>> | undefined,
  pb: Readonly<Record<string, unknown>> | undefined,
  ops: Array<Op>
): void => {
  if (pa === pb) return
  if (pa === undefined) {
    ops.push({ op: "add", path: pathTo("/properties"), value: pb })
    return
  }
  if (pb === undefined) {
    ops.push({ op: "remove", path: pathTo("/properties") })
    return
  }
  for (const key in pa) {
    const va = pa[key]
    if (va === undefined) continue
    const vb = pb[key]
    if (vb === undefined) ops.push({ op: "remove", path: pathTo(`/properties/${escapeKey(key)}`) })
    else if (va !== vb && (typeof va !== "object" || !equals(va, vb))) {
      ops.push({ op: "replace", path: pathTo(`/properties/${escapeKey(key)}`), value: vb })
    }
  }
  for (const key in pb) {
    const vb = pb[key]
    if (vb !== undefined && pa[key] === undefined) {
      ops.push({ op: "add", path: pathTo(`/properties/${escapeKey(key)}`), value: vb })
    }
  }
}

// Each field is compared by reference first, so shared objects cost one comparison and no call.
const diffNode = (a: Node, b: Node, ops: Array<Op>): void => {
  if (a.properties !== b.properties) diffProperties(a.properties, b.properties, ops)
  if (a.meta !== b.meta) diffField("meta", a.meta, b.meta, ops)
  if (a.affordances !== b.affordances) diffField("affordances", a.affordances, b.affordances, ops)
  if (a.content_ref !== b.content_ref) diffField("content_ref", a.content_ref, b.content_ref, ops)
  const ca = a.children
  const cb = b.children
  if (ca !== cb) diffChildren(ca ?? none, cb ?? none, ops)
}

const none: ReadonlyArray<Node> = []

// Child ops cannot tell `children: []` (or `null`) from no `children` key: `apply` drops the key when the last child
// goes and leaves it as it was when there are no ops. When the next node's list is empty or null and the previous
// one's was not the same (or the other way round), the node is replaced: a child is removed and re-added, the root
// is replaced wholesale.
const emptied = (a: Node, b: Node): boolean => {
  const ca = a.children
  const cb = b.children
  if (ca === cb) return false
  if (cb === undefined) return ca === null || ca!.length === 0
  if (cb === null) return true
  return cb.length === 0 && (ca == null || ca.length > 0)
}

const diffChildren = (ca: ReadonlyArray<Node>, cb: ReadonlyArray<Node>, ops: Array<Op>): void => {
  // Fast path: same ids, same types, same order. Children are compared as the walk goes (their ops address
  // nodes by id, so they stay valid if list ops are added after them); on the first mismatch the rest of the list
  // goes through the general path.
  let start = 0
  if (ca.length === cb.length) {
    for (; start < ca.length; start++) {
      const x = ca[start]!
      const y = cb[start]!
      if (x.id !== y.id || x.type !== y.type) break
      if (x === y) continue
      if (emptied(x, y)) break
      stack.push(escapeKey(x.id))
      diffNode(x, y, ops)
      stack.pop()
    }
    if (start === ca.length) return
  }
  diffReordered(ca, cb, ops, start)
}

const diffReordered = (ca: ReadonlyArray<Node>, cb: ReadonlyArray<Node>, ops: Array<Op>, done: number): void => {
  const next = new Map<string, Node>()
  for (const child of cb) next.set(child.id, child)
  const previous = new Map<string, Node>()
  // 1. removes (gone, or the type changed: remove + add)
  const working: Array<string> = []
  for (const child of ca) {
    const match = next.get(child.id)
    if (match === undefined || match.type !== child.type || previous.has(child.id) || emptied(child, match)) {
      ops.push({ op: "remove", path: pathTo(`/${escapeKey(child.id)}`) })
    } else {
      previous.set(child.id, child)
      working.push(child.id)
    }
  }
  // 2. adds, with their index
  for (let i = 0; i < cb.length; i++) {
    const child = cb[i]!
    if (previous.has(child.id)) continue
    ops.push({ op: "add", path: pathTo(`/${escapeKey(child.id)}`), value: child, index: i })
    working.splice(Math.min(i, working.length), 0, child.id)
  }
  // 3. moves until the order matches
  for (let i = 0; i < cb.length; i++) {
    const id = cb[i]!.id
    if (working[i] === id) continue
    const from = working.indexOf(id, i + 1)
    if (from < 0) continue
    working.splice(from, 1)
    working.splice(i, 0, id)
    ops.push({ op: "move", path: pathTo(`/${escapeKey(id)}`), index: i })
  }
  // 4. recurse into kept children (the first `done` were compared already)
  for (let i = done; i < cb.length; i++) {
    const child = cb[i]!
    const old = previous.get(child.id)
    if (old === undefined || old === child) continue
    stack.push(escapeKey(child.id))
    diffNode(old, child, ops)
    stack.pop()
  }
}

/** The compact ops that turn `previous` into `next` (same id and type), or `undefined` when only a whole replace can. */
export const compactOps = (previous: Node, next: Node): Array<Op> | undefined => {
  if (emptied(previous, next)) return undefined
  const ops: Array<Op> = []
  stack.length = 0
  diffNode(previous, next, ops)
  return ops
}
