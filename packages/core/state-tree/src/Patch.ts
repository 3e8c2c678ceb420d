/**
 * Patches between two versions of a tree: SLOP's RFC 6902-style ops with node-id path segments, in two formats:
 * `"slop"`, which SLOP's own consumer SDK applies exactly, and heed's `"compact"` one, with `index` on `add` and
 * SLOP's `move` extension.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { escapeSegment, unescapeSegment } from "./internal/pointer.ts"
import type { Node } from "./Node.ts"
import { validateId } from "./Node.ts"

/**
 * Schema of an {@link Op}.
 *
 * @category schemas
 * @since 0.1.0
 */
export const OpSchema = Schema.Union([
  Schema.Struct({
    op: Schema.Literal("add"),
    path: Schema.String,
    value: Schema.Unknown,
    index: Schema.optional(Schema.Int)
  }),
  Schema.Struct({ op: Schema.Literal("remove"), path: Schema.String }),
  Schema.Struct({ op: Schema.Literal("replace"), path: Schema.String, value: Schema.Unknown }),
  Schema.Struct({ op: Schema.Literal("move"), path: Schema.String, index: Schema.Int })
])

/**
 * One patch op. Paths are `/`-separated node ids from the served root (`""` is the root itself), followed by a
 * field (`properties`, `meta`, `affordances`, `content_ref`, or `children` for a whole child list) and, under
 * `properties`, an RFC 6901-escaped key. Ids holding `/` or `~` are escaped the same way.
 *
 * - `add`: a child (`value` = the node, `index` = its position) or a field or property;
 * - `remove`: a child or a field or property;
 * - `replace`: a field, a property, a node's whole `children` list, or with path `""` the whole tree;
 * - `move`: reorder a child to `index` (a SLOP extension, not RFC 6902's `from`/`path` move).
 *
 * @category models
 * @since 0.1.0
 */
export type Op = typeof OpSchema.Type

/**
 * Raised by {@link apply} when an op does not fit the tree (unknown node, bad field).
 *
 * @category errors
 * @since 0.1.0
 */
export class PatchError extends Schema.TaggedError<PatchError>()("PatchError", {
  path: Schema.String,
  message: Schema.String
}) {}

/**
 * Escapes a property key for a path (RFC 6901: `~` → `~0`, `/` → `~1`).
 *
 * @category paths
 * @since 0.1.0
 */
export const escapeKey: (key: string) => string = escapeSegment

/**
 * Reverses {@link escapeKey}.
 *
 * @category paths
 * @since 0.1.0
 */
export const unescapeKey: (segment: string) => string = unescapeSegment

/**
 * Structural equality of JSON-like values (key order ignored; `undefined` properties count as absent, and an
 * `undefined` array element equals `null`, as in JSON).
 *
 * @category comparisons
 * @since 0.1.0
 */
export const equals = (a: unknown, b: unknown): boolean => {
  if (a === b) return true
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) {
      const va = a[i]
      const vb = b[i]
      // JSON writes an `undefined` array element as `null`
      if (va !== vb && (typeof va !== "object" || !equals(va, vb)) && !(va == null && vb == null)) return false
    }
    return true
  }
  if (Array.isArray(b)) return false
  return equalRecords(a as Record<string, unknown>, b as Record<string, unknown>)
}

// Records are compared in two `for…in` passes (no key arrays allocated); primitive values are compared inline and
// only nested objects recurse, so the flat records that make up most nodes (`properties`, `meta`) cost no calls.
const equalRecords = (a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>): boolean => {
  let na = 0
  for (const key in a) {
    const va = a[key]
    if (va === undefined) continue
    na++
    const vb = b[key]
    if (va !== vb && (typeof va !== "object" || !equals(va, vb))) return false
  }
  let nb = 0
  for (const key in b) if (b[key] !== undefined) nb++
  return na === nb
}

/**
 * How {@link diff} writes a patch.
 *
 * - `"slop"`: what SLOP's own consumer SDK applies exactly. That consumer knows only `add`, `remove` and `replace`,
 *   appends every added child at the end, ignores `move`, does not unescape path segments, and reads a whole-field
 *   `add` or `remove` of a field of a node below the root (`/x/meta`) as a child op. So inserts and reorders are sent
 *   as a `replace` of the child list (`/x/children`), a field that appears is `replace`d, a field that disappears
 *   below the root or a child list that becomes empty or absent replaces the parent's child list, properties are
 *   changed per key unless a key holds `/` or `~` or is empty (then `properties` is replaced whole), and a node whose
 *   id is not a valid SLOP id (see `Node.validateId`) is only ever sent inside its parent's child list. What cannot
 *   be said below the root is a `replace` of the whole tree (path `""`).
 * - `"compact"`: heed's form: removes, adds with `index`, `move`s, per-key property ops and whole-field ops; ids and
 *   keys holding `/` or `~` are escaped per RFC 6901.
 *
 * @category models
 * @since 0.1.0
 */
export type Format = "slop" | "compact"

// The path of the node being compared, as a stack of (escaped) ids; strings are only built when an op is emitted.
const stack: Array<string> = []
const pathTo = (suffix: string): string => (stack.length === 0 ? suffix : `/${stack.join("/")}${suffix}`)

const diffField = (field: string, va: unknown, vb: unknown, ops: Array<Op>): void => {
  if (va === vb) return
  if (va === undefined) ops.push({ op: "add", path: pathTo(`/${field}`), value: vb })
  else if (vb === undefined) ops.push({ op: "remove", path: pathTo(`/${field}`) })
  else if (!equals(va, vb)) ops.push({ op: "replace", path: pathTo(`/${field}`), value: vb })
}

const diffProperties = (
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

// ---------------------------------------------------------------------------------------------------------------
// The "slop" format. Each function returns false when the change cannot be written in place for SLOP's consumer;
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

/**
 * The ops that turn `previous` into `next`, in the given {@link Format} (`"compact"` by default):
 *
 * - properties: one `add`/`remove`/`replace` per key (keys escaped per RFC 6901);
 * - `meta`, `affordances`, `content_ref`: replaced wholesale when they differ;
 * - children (compact): `remove` for gone children, `add` with `index` for new ones, `move` for reordering, then
 *   recursion. A child whose `type` changed under the same id is removed and re-added (SLOP emits nothing), and so is
 *   a child whose children change between an empty list (`children: []`) and none or some, which child ops cannot
 *   express;
 * - children (slop): removes and appends when the kept children keep their order, a `replace` of the child list
 *   otherwise (see {@link Format}).
 *
 * When the roots differ in id or type, or in the same way between an empty and a missing or non-empty children
 * list, or (slop) in a way SLOP's consumer cannot apply at the root, the result is one `replace` of the whole tree
 * (path `""`). Subtrees shared by reference are skipped without comparison.
 *
 * @category diffing
 * @since 0.1.0
 */
export const diff = (previous: Node, next: Node, format: Format = "compact"): Array<Op> => {
  const whole: Array<Op> = [{ op: "replace", path: "", value: next }]
  if (previous.id !== next.id || previous.type !== next.type) return whole
  const ops: Array<Op> = []
  stack.length = 0
  if (format === "slop") return slopNode(previous, next, ops, true) ? ops : whole
  if (emptied(previous, next)) return whole
  diffNode(previous, next, ops)
  return ops
}

// ---------------------------------------------------------------------------------------------------------------
// apply: copy-on-write along op paths; nodes copied once per call are then edited in place.

type Mutable = {
  id: string
  type: string
  properties?: Record<string, unknown> | undefined
  children?: Array<Node> | null | undefined
  affordances?: unknown
  meta?: unknown
  content_ref?: unknown
}

const fieldNames = new Set(["properties", "children", "affordances", "meta", "content_ref", "id", "type"])

/**
 * Applies ops (of either {@link Format}) to a tree and returns the new tree; the input is not modified and untouched
 * subtrees are shared. Path segments are unescaped per RFC 6901. Removing the last child removes the `children` key
 * (SLOP treats absent and empty children alike).
 * Throws {@link PatchError} when an op does not fit (use `Consumer` for an error-safe mirror).
 *
 * @category diffing
 * @since 0.1.0
 */
export const apply = (tree: Node, ops: ReadonlyArray<Op>): Node => {
  const fresh = new WeakSet<object>()
  const own = (node: Node): Mutable => {
    if (fresh.has(node)) return node as Mutable
    const copy: Mutable = { ...node } as Mutable
    fresh.add(copy)
    return copy
  }
  let root = tree as Node
  for (const op of ops) {
    if (op.path === "" || op.path === "/") {
      if (op.op !== "replace") throw new PatchError({ path: op.path, message: `cannot ${op.op} the root` })
      root = op.value as Node
      continue
    }
    const segments = op.path.split("/").slice(1)
    const fail = (message: string) => new PatchError({ path: op.path, message })
    // walk node ids, copying each node on the way
    root = own(root) as unknown as Node
    let node = root as Mutable
    let s = 0
    for (; s < segments.length - 1; s++) {
      const segment = segments[s]!
      if (fieldNames.has(segment)) break
      const id = unescapeKey(segment)
      const children = node.children
      const index = children ? children.findIndex((child) => child.id === id) : -1
      if (index < 0) throw fail(`no node "${id}"`)
      const list = fresh.has(children!) ? (children as Array<Node>) : [...children!]
      fresh.add(list)
      const child = own(list[index]!)
      list[index] = child as Node
      node.children = list
      node = child
    }
    const last = segments[s]!
    if (s === segments.length - 1 && !fieldNames.has(last)) {
      // child op
      const id = unescapeKey(last)
      const children = node.children ?? []
      const list = fresh.has(children) ? (children as Array<Node>) : [...children]
      fresh.add(list)
      const at = list.findIndex((child) => child.id === id)
      if (op.op === "add") {
        const value = op.value as Node
        if (at >= 0) list.splice(at, 1)
        const index = op.index === undefined ? list.length : Math.max(0, Math.min(op.index, list.length))
        list.splice(index, 0, value)
      } else if (op.op === "remove") {
        if (at < 0) throw fail(`no child "${id}" to remove`)
        list.splice(at, 1)
        if (list.length === 0) {
          delete node.children
          continue
        }
      } else if (op.op === "move") {
        if (at < 0) throw fail(`no child "${id}" to move`)
        const [moved] = list.splice(at, 1)
        list.splice(Math.max(0, Math.min(op.index, list.length)), 0, moved!)
      } else {
        if (at < 0) throw fail(`no child "${id}" to replace`)
        list[at] = op.value as Node
      }
      node.children = list
      continue
    }
    // field op
    const field = segments[s]!
    if (field === "children" && s === segments.length - 1 && op.op === "replace") {
      // a whole child list (the "slop" format's inserts and reorders)
      node.children = op.value as Array<Node> | null
      continue
    }
    if (field === "id" || field === "type" || field === "children") throw fail(`cannot ${op.op} "${field}"`)
    const rest = segments.slice(s + 1).map(unescapeKey)
    if (rest.length === 0) {
      if (op.op === "remove") delete node[field as keyof Mutable]
      else if (op.op === "add" || op.op === "replace") (node as Record<string, unknown>)[field] = op.value
      else throw fail(`cannot move a field`)
      continue
    }
    // nested JSON pointer inside a field (usually properties/<key>)
    const holder = node as Record<string, unknown>
    let container = holder[field]
    if (typeof container !== "object" || container === null) {
      if (op.op === "remove") throw fail(`no "${field}" to remove from`)
      container = {}
    }
    const copyOf = (value: object): Record<string, unknown> | Array<unknown> => {
      if (fresh.has(value)) return value as Record<string, unknown>
      const copy = Array.isArray(value) ? [...value] : { ...(value as Record<string, unknown>) }
      fresh.add(copy)
      return copy
    }
    let target = copyOf(container as object) as Record<string, unknown>
    holder[field] = target
    for (let r = 0; r < rest.length - 1; r++) {
      const inner = target[rest[r]!]
      if (typeof inner !== "object" || inner === null) throw fail(`no "${rest[r]}" under "${field}"`)
      const copy = copyOf(inner) as Record<string, unknown>
      target[rest[r]!] = copy
      target = copy
    }
    const key = rest[rest.length - 1]!
    if (op.op === "remove") {
      if (Array.isArray(target)) target.splice(Number(key), 1)
      else delete target[key]
    } else if (op.op === "add" || op.op === "replace") {
      if (Array.isArray(target) && op.op === "add")
        target.splice(key === "-" ? target.length : Number(key), 0, op.value)
      else target[key] = op.value
    } else throw fail(`cannot move a property`)
  }
  return root as Node
}
