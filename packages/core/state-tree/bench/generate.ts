import type { Node } from "../src/Node.ts"

/** A deterministic pseudo-random generator (mulberry32). */
export const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = seed
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

/**
 * A tree of about `size` nodes, fan-out about 10, salience spread over 0..1, two pinned status nodes under the
 * root and a few focused nodes.
 */
export const generate = (size: number, seed = 1): Node => {
  const next = random(seed)
  let made = 1
  const make = (id: string, level: number): Node => {
    const sal = Math.round(next() * 100) / 100
    const meta: Record<string, unknown> = { salience: sal }
    if (next() < 0.0005) meta.focus = true
    if (sal > 0.97) meta.urgency = "high"
    return {
      id,
      type: level === 0 ? "root" : level < 3 ? "collection" : "item",
      properties: { label: `Node ${id}`, count: made },
      meta,
      affordances: level >= 3 && next() < 0.2 ? [{ action: "open" }] : undefined
    } as Node
  }
  const root = make("root", 0) as unknown as { children?: Array<Node> }
  let frontier: Array<{ node: { children?: Array<Node> }; id: string; level: number }> = [
    { node: root, id: "r", level: 0 }
  ]
  while (made < size && frontier.length > 0) {
    const nextFrontier: typeof frontier = []
    for (const entry of frontier) {
      const children: Array<Node> = []
      for (let i = 0; i < 10 && made < size; i++) {
        const id = `${entry.id}-${i}`
        const child = make(id, entry.level + 1)
        made++
        children.push(child)
        nextFrontier.push({ node: child as unknown as { children?: Array<Node> }, id, level: entry.level + 1 })
      }
      if (children.length > 0) entry.node.children = children
    }
    frontier = nextFrontier
  }
  // a few pinned status nodes under the root (like a fullstack app's ui node)
  root.children = [
    ...(root.children ?? []),
    { id: "status", type: "status", properties: { label: "Build", state: "green" }, meta: { pinned: true } },
    {
      id: "alert",
      type: "notification",
      properties: { label: "Disk almost full" },
      meta: { pinned: true, salience: 1, urgency: "critical", focus: true }
    }
  ]
  return root as unknown as Node
}

/** A copy of `tree` with about `fraction` of its nodes' properties changed (structure shared elsewhere). */
export const mutate = (tree: Node, fraction: number, seed = 2): Node => {
  const next = random(seed)
  const walk = (node: Node): Node => {
    let children = node.children
    if (children) {
      let copied: Array<Node> | undefined
      for (let i = 0; i < children.length; i++) {
        const child = walk(children[i]!)
        if (child !== children[i]) {
          copied ??= [...children]
          copied[i] = child
        }
      }
      if (copied) children = copied
    }
    const touched = next() < fraction
    if (!touched && children === node.children) return node
    return touched ? { ...node, children, properties: { ...node.properties, count: -1 } } : { ...node, children }
  }
  return walk(tree)
}

/** A deep copy (no shared structure), as a provider rebuilding its tree from scratch would produce. */
export const deepCopy = (tree: Node): Node => JSON.parse(JSON.stringify(tree))
