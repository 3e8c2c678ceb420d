/**
 * Applying patch ops, copy-on-write: each node, child list and field on an op's path is copied once per patch and
 * then edited in place, so untouched subtrees stay shared with the input.
 *
 * @since 0.1.0
 * @internal
 */
import type { Node } from "../Node.ts"
import type { Op } from "../Patch.ts"
import { unescapeSegment } from "./pointer.ts"

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

/** Applies ops to a tree one at a time; `root` is the tree so far. */
export class Applier {
  root: Node
  // objects copied by this applier, which it may edit
  readonly fresh = new WeakSet<object>()

  constructor(tree: Node) {
    this.root = tree
  }

  /** Applies one op; returns why it does not fit, or `undefined`. */
  apply(op: Op): string | undefined {
    if (op.path === "" || op.path === "/") {
      if (op.op !== "replace") return `cannot ${op.op} the root`
      this.root = op.value as Node
      return undefined
    }
    const segments = op.path.split("/").slice(1)
    let node = this.own(this.root)
    this.root = node as Node
    // walk node ids, copying each node on the way
    let s = 0
    for (; s < segments.length - 1 && !fieldNames.has(segments[s]!); s++) {
      const id = unescapeSegment(segments[s]!)
      const child = this.enter(node, id)
      if (child === undefined) return `no node "${id}"`
      node = child
    }
    const last = segments[s]!
    if (s === segments.length - 1 && !fieldNames.has(last)) return this.childOp(node, unescapeSegment(last), op)
    return this.fieldOp(node, last, segments.slice(s + 1), op)
  }

  own(node: Node): Mutable {
    if (this.fresh.has(node)) return node as Mutable
    const copy: Mutable = { ...node } as Mutable
    this.fresh.add(copy)
    return copy
  }

  /** A copy of `value` this applier may edit (the value itself when it made it). */
  copyOf<A extends object>(value: A): A {
    if (this.fresh.has(value)) return value
    const copy = (Array.isArray(value) ? [...value] : { ...value }) as A
    this.fresh.add(copy)
    return copy
  }

  /** The child `id` of `node`, copied (with the child list) so it can be edited, or `undefined` when there is none. */
  enter(node: Mutable, id: string): Mutable | undefined {
    const children = node.children
    const index = children ? children.findIndex((child) => child.id === id) : -1
    if (index < 0) return undefined
    const list = this.copyOf(children as Array<Node>)
    const child = this.own(list[index]!)
    list[index] = child as Node
    node.children = list
    return child
  }

  childOp(node: Mutable, id: string, op: Op): string | undefined {
    const list = this.copyOf((node.children ?? []) as Array<Node>)
    const at = list.findIndex((child) => child.id === id)
    if (op.op === "add") {
      if (at >= 0) list.splice(at, 1)
      const index = op.index === undefined ? list.length : Math.max(0, Math.min(op.index, list.length))
      list.splice(index, 0, op.value as Node)
    } else if (at < 0) return `no child "${id}" to ${op.op}`
    else if (op.op === "remove") {
      list.splice(at, 1)
      if (list.length === 0) {
        // SLOP treats absent and empty children alike
        delete node.children
        return undefined
      }
    } else if (op.op === "move") {
      const [moved] = list.splice(at, 1)
      list.splice(Math.max(0, Math.min(op.index, list.length)), 0, moved!)
    } else list[at] = op.value as Node
    node.children = list
    return undefined
  }

  fieldOp(node: Mutable, field: string, keys: ReadonlyArray<string>, op: Op): string | undefined {
    if (field === "children" && keys.length === 0 && op.op === "replace") {
      // a whole child list (the "slop" format's inserts and reorders)
      node.children = op.value as Array<Node> | null
      return undefined
    }
    if (field === "id" || field === "type" || field === "children") return `cannot ${op.op} "${field}"`
    if (keys.length > 0) return this.nestedOp(node as Record<string, unknown>, field, keys.map(unescapeSegment), op)
    if (op.op === "remove") delete node[field as keyof Mutable]
    else if (op.op === "add" || op.op === "replace") (node as Record<string, unknown>)[field] = op.value
    else return "cannot move a field"
    return undefined
  }

  // A JSON pointer inside a field (usually `properties/<key>`).
  nestedOp(holder: Record<string, unknown>, field: string, rest: ReadonlyArray<string>, op: Op): string | undefined {
    let container = holder[field]
    if (typeof container !== "object" || container === null) {
      if (op.op === "remove") return `no "${field}" to remove from`
      container = {}
    }
    let target = this.copyOf(container as Record<string, unknown>)
    holder[field] = target
    for (let r = 0; r < rest.length - 1; r++) {
      const inner = target[rest[r]!]
      if (typeof inner !== "object" || inner === null) return `no "${rest[r]}" under "${field}"`
      const copy = this.copyOf(inner as Record<string, unknown>)
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
    } else return "cannot move a property"
    return undefined
  }
}
