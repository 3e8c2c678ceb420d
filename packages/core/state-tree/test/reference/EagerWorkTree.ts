/**
 * The working-tree builder as it was before depth-limit nodes were settled lazily (issue 28): it counts the visible
 * children of every node at the depth limit during the walk. Kept as the reference the lazy builder must match.
 */

import type { Work } from "../../src/internal/workTree.ts"
import { ANCESTOR, FULL, STUB } from "../../src/internal/workTree.ts"
import type { Node } from "../../src/Node.ts"
import type { Filter } from "../../src/Pipeline.ts"

/** The working tree of `root` built eagerly (every node settled during the walk). */
export const eagerWork = (root: Node, maxDepth: number, filter: Filter | undefined): Work =>
  new Builder(filter).build(root, maxDepth < 0 ? Infinity : maxDepth)

const grow = <A extends Int32Array | Uint8Array>(array: A, capacity: number): A => {
  const next = new (array.constructor as new (length: number) => A)(capacity)
  next.set(array)
  return next
}

class Builder {
  readonly src: Array<Node> = []
  capacity = 1024
  kind = new Uint8Array(this.capacity)
  parent = new Int32Array(this.capacity)
  depth = new Int32Array(this.capacity)
  childCount = new Int32Array(this.capacity)
  desc = new Int32Array(this.capacity)
  hidden = new Int32Array(this.capacity)
  pinnedIn = new Uint8Array(this.capacity)
  underPin = new Uint8Array(this.capacity)
  readonly min: number | undefined
  readonly types: ReadonlySet<string> | undefined
  readonly active: boolean
  readonly keepAncestors: boolean
  readonly matchMemo = new Map<Node, boolean>()

  constructor(filter: Filter | undefined) {
    this.min = filter?.min_salience
    this.types = filter?.types !== undefined ? new Set(filter.types) : undefined
    this.active = this.min !== undefined || this.types !== undefined
    this.keepAncestors = this.active && filter?.keep_ancestors === true
  }

  passes(node: Node): boolean {
    const min = this.min
    return (min === undefined || (node.meta?.salience ?? 0.5) >= min) && (this.types?.has(node.type) ?? true)
  }

  /** Whether a descendant of `node` passes the filter. */
  hasMatch(node: Node): boolean {
    const children = node.children
    if (!children) return false
    const known = this.matchMemo.get(node)
    if (known !== undefined) return known
    let found = false
    for (let i = 0; i < children.length && !found; i++) found = this.passes(children[i]!) || this.hasMatch(children[i]!)
    this.matchMemo.set(node, found)
    return found
  }

  build(root: Node, maxDepth: number): Work {
    this.visit(root, maxDepth, 0, -1, FULL, false)
    const size = this.src.length
    return {
      src: this.src,
      kind: this.kind.subarray(0, size),
      parent: this.parent.subarray(0, size),
      depth: this.depth.subarray(0, size),
      childCount: this.childCount.subarray(0, size),
      hidden: this.hidden.subarray(0, size),
      desc: this.desc.subarray(0, size),
      pinnedIn: this.pinnedIn.subarray(0, size),
      underPin: this.underPin.subarray(0, size),
      unsettled: new Uint8Array(size),
      settleAt: () => {},
      size,
      costs: new Map()
    }
  }

  /** Adds `node` and, above the depth limit, its visible subtree; returns whether that holds a pinned node. */
  visit(node: Node, remaining: number, level: number, up: number, k: number, pinnedAbove: boolean): boolean {
    const index = this.push(node, level, up, k)
    const pinned = node.meta?.pinned === true
    const below = pinnedAbove || pinned
    if (below) this.underPin[index] = 1
    const children = node.children
    let holdsPin = pinned
    if (children && children.length > 0) {
      if (remaining <= 0) this.stub(index, children)
      else if (this.visitChildren(index, children, remaining - 1, level + 1, below)) holdsPin = true
    }
    if (holdsPin) this.pinnedIn[index] = 1
    return holdsPin
  }

  push(node: Node, level: number, up: number, k: number): number {
    const index = this.src.length
    if (index === this.capacity) {
      this.capacity *= 2
      const capacity = this.capacity
      this.kind = grow(this.kind, capacity)
      this.parent = grow(this.parent, capacity)
      this.depth = grow(this.depth, capacity)
      this.childCount = grow(this.childCount, capacity)
      this.desc = grow(this.desc, capacity)
      this.hidden = grow(this.hidden, capacity)
      this.pinnedIn = grow(this.pinnedIn, capacity)
      this.underPin = grow(this.underPin, capacity)
    }
    this.src.push(node)
    this.kind[index] = k
    this.parent[index] = up
    this.depth[index] = level
    return index
  }

  /** A node at the depth limit: a depth stub when any child would be visible, counting the hidden ones. */
  stub(index: number, children: ReadonlyArray<Node>): void {
    let visible = children.length
    if (this.active) {
      visible = 0
      for (let i = 0; i < children.length; i++) {
        const child = children[i]!
        if (this.passes(child) || (this.keepAncestors && this.hasMatch(child))) visible++
      }
    }
    this.hidden[index] = children.length - visible
    if (visible > 0) this.kind[index] = STUB
  }

  visitChildren(index: number, children: ReadonlyArray<Node>, remaining: number, level: number, below: boolean) {
    let dropped = 0
    let kept = 0
    let holdsPin = false
    for (let i = 0; i < children.length; i++) {
      const child = children[i]!
      let k: number = FULL
      if (this.active && !this.passes(child)) {
        if (!this.keepAncestors || !this.hasMatch(child)) {
          dropped++
          continue
        }
        k = ANCESTOR
      }
      if (this.visit(child, remaining, level, index, k, below)) holdsPin = true
      kept++
    }
    this.hidden[index] = dropped
    this.childCount[index] = kept
    this.desc[index] = this.src.length - index - 1
    return holdsPin
  }
}
