import { assert, describe, it } from "@effect/vitest"
import { TokenCounter } from "@heed/schema"
import * as fc from "fast-check"
import { Node, Pipeline, Render } from "../src/index.ts"
import { lazyCounters, o200kWordPieces } from "../src/internal/lowerBound.ts"
import type { Node as NodeT } from "../src/Node.ts"
import { arbitraryTree, leaves, n } from "./fixtures.ts"

const ids = (node: NodeT | undefined) => (node?.children ?? []).map((child) => child.id)

const pinnedIds = (node: NodeT, out: Array<string> = []): Array<string> => {
  if (node.meta?.pinned === true) out.push(node.id)
  for (const child of node.children ?? []) pinnedIds(child, out)
  return out
}

/** The fewest nodes a view can have: pinned subtrees whole, and every list holding a pinned node unwindowed. */
const smallest = (node: NodeT): number => {
  if (node.meta?.pinned === true) return Node.count(node)
  if (pinnedIds(node).length === 0) return 1
  return 1 + (node.children ?? []).reduce((sum, child) => sum + smallest(child), 0)
}

describe("Pipeline: truncate (depth)", () => {
  const tree = n("root", [n("a", [n("a1")]), n("b", [n("b1", [n("b11")], { meta: { summary: "kept" } })])], {
    type: "root"
  })

  it("depth 0 collapses the root into a stub with total_children", () => {
    const out = Pipeline.optimize(tree, { depth: 0 })
    assert.strictEqual(out.children, undefined)
    assert.strictEqual(out.meta?.total_children, 2)
  })

  it("depth 1 keeps the root's children; a child with kids becomes a stub", () => {
    const out = Pipeline.optimize(tree, { depth: 1 })
    assert.deepStrictEqual(ids(out), ["a", "b"])
    assert.deepStrictEqual(out.children![0], { id: "a", type: "item", meta: { total_children: 1 } })
  })

  it("depth 2 keeps an existing meta.summary on the stub", () => {
    const out = Pipeline.optimize(tree, { depth: 2 })
    const b1 = Node.find(out, "/b/b1")!
    assert.strictEqual(b1.meta?.summary, "kept")
    assert.strictEqual(b1.meta?.total_children, 1)
    assert.strictEqual(b1.children, undefined)
  })

  it("a depth larger than the tree changes nothing", () => {
    assert.strictEqual(Pipeline.optimize(tree, { depth: 10 }), tree)
  })

  it("leaves at the boundary are untouched, with properties and affordances", () => {
    const leaf = n("leaf", undefined, { properties: { label: "L" }, affordances: [{ action: "open" }] })
    const out = Pipeline.optimize(n("root", [leaf, n("x", [n("y")])]), { depth: 1 })
    assert.strictEqual(out.children![0], leaf)
  })

  it("depth stubs drop properties, affordances and content_ref (per the seed; old SLOP kept properties)", () => {
    const t = n("root", [
      n("a", [n("a1")], {
        properties: { label: "A" },
        affordances: [{ action: "x" }],
        content_ref: { type: "text", mime: "text/plain", summary: "s" }
      })
    ])
    const stub = Pipeline.optimize(t, { depth: 1 }).children![0]!
    assert.deepStrictEqual(stub, { id: "a", type: "item", meta: { total_children: 1 } })
  })

  it("a provider maxDepth applies when the request depth is absent or -1, and caps larger depths", () => {
    const chain = Array.from({ length: 20 }, (_, i) => i).reduceRight<NodeT | undefined>(
      (child, i) => n(`c${i}`, child ? [child] : undefined),
      undefined
    )!
    const depthOf = (node: NodeT): number => (node.children?.length ? 1 + depthOf(node.children[0]!) : 0)
    assert.strictEqual(depthOf(Pipeline.optimize(chain, {})), 19)
    assert.strictEqual(depthOf(Pipeline.optimize(chain, { depth: -1 }, { maxDepth: 4 })), 4)
    assert.strictEqual(depthOf(Pipeline.optimize(chain, { depth: 10 }, { maxDepth: 4 })), 4)
  })

  it("a provider maxDepth of 0 serves the root alone; a negative maxDepth sets no ceiling", () => {
    const t = n("root", [n("a", [n("a1")])])
    assert.deepStrictEqual(Pipeline.optimize(t, {}, { maxDepth: 0 }), {
      id: "root",
      type: "item",
      meta: { total_children: 1 }
    })
    assert.strictEqual(Pipeline.effectiveDepth({ depth: 2 }, { maxDepth: 0 }), 0)
    assert.strictEqual(Pipeline.effectiveDepth({ depth: 2 }, { maxDepth: -1 }), 2)
    assert.strictEqual(Pipeline.optimize(t, { depth: 5 }, { maxDepth: -1 }), t)
  })
})

describe("Pipeline: filter", () => {
  const tree = n("root", [
    n("hi", undefined, { salience: 0.9 }),
    n("mid", undefined, { salience: 0.5 }),
    n("lo", undefined, { salience: 0.1 })
  ])

  it("min_salience 0.5 keeps 0.9 and 0.5 and drops 0.1", () => {
    assert.deepStrictEqual(ids(Pipeline.optimize(tree, { filter: { min_salience: 0.5 } })), ["hi", "mid"])
  })

  it("types filter", () => {
    const t = n("root", [n("a", undefined, { type: "item" }), n("b", undefined, { type: "notification" })])
    assert.deepStrictEqual(ids(Pipeline.optimize(t, { filter: { types: ["notification"] } })), ["b"])
  })

  it("missing salience counts as 0.5", () => {
    const t = n("root", [n("plain"), n("low", undefined, { salience: 0.3 })])
    assert.deepStrictEqual(ids(Pipeline.optimize(t, { filter: { min_salience: 0.4 } })), ["plain"])
  })

  it("filters recursively, and the root is never filtered", () => {
    const t = n(
      "root",
      [n("a", [n("a1", undefined, { salience: 0.9 }), n("a2", undefined, { salience: 0.1 })], { salience: 0.8 })],
      {
        salience: 0
      }
    )
    const out = Pipeline.optimize(t, { filter: { min_salience: 0.5 } })
    assert.strictEqual(out.id, "root")
    assert.deepStrictEqual(ids(out.children![0]), ["a1"])
  })

  it("salience and types combined", () => {
    const t = n("root", [
      n("a", undefined, { type: "item", salience: 0.9 }),
      n("b", undefined, { type: "item", salience: 0.1 }),
      n("c", undefined, { type: "view", salience: 0.9 })
    ])
    assert.deepStrictEqual(ids(Pipeline.optimize(t, { filter: { min_salience: 0.5, types: ["item"] } })), ["a"])
  })

  it("heed differs: filtering reports hidden children (total_children = original count, filtered = hidden)", () => {
    const out = Pipeline.optimize(tree, { filter: { min_salience: 0.5 } })
    assert.strictEqual(out.meta?.total_children, 3)
    assert.strictEqual(out.meta?.filtered, 1)
    assert.include(Render.text(out), "(1 hidden by filter)")
  })

  it("heed differs: a stub at the depth limit counts children hidden by the filter", () => {
    const t = n("root", [n("a", [n("x", undefined, { salience: 0.9 }), n("y", undefined, { salience: 0.1 })])])
    const stub = Pipeline.optimize(t, { depth: 1, filter: { min_salience: 0.5 } }).children![0]!
    assert.deepStrictEqual(stub.meta, { total_children: 2, filtered: 1 })
  })

  it("heed adds keep_ancestors: a buried alert under a low-salience parent stays reachable", () => {
    const t = n("root", [
      n(
        "sidebar",
        [
          n("alert", undefined, { salience: 1, properties: { label: "Disk full" } }),
          n("noise", undefined, { salience: 0 })
        ],
        {
          salience: 0.1,
          properties: { label: "Sidebar" }
        }
      )
    ])
    assert.deepStrictEqual(ids(Pipeline.optimize(t, { filter: { min_salience: 0.7 } })), [])
    const out = Pipeline.optimize(t, { filter: { min_salience: 0.7, keep_ancestors: true } })
    const sidebar = out.children![0]!
    assert.strictEqual(sidebar.properties, undefined)
    assert.deepStrictEqual(sidebar.meta, { salience: 0.1, total_children: 2, filtered: 1 })
    assert.strictEqual(Node.find(out, "/sidebar/alert")?.properties?.label, "Disk full")
  })

  it("heed differs: filtering keeps content_ref (SLOP's Python SDK dropped it)", () => {
    const ref = { type: "text", mime: "text/plain", summary: "log" } as const
    const t = n("root", [n("a", [n("b", undefined, { salience: 0.1 })], { content_ref: ref, salience: 0.9 })])
    assert.deepStrictEqual(Pipeline.optimize(t, { filter: { min_salience: 0.5 } }).children![0]!.content_ref, ref)
  })
})

describe("Pipeline: compact (max_nodes)", () => {
  it("under budget: the same tree", () => {
    const t = n("root", [n("a", [n("a1")])])
    assert.strictEqual(Pipeline.optimize(t, { max_nodes: 10 }), t)
  })

  it("a 13-node tree with budget 5 ends at <= 5 nodes", () => {
    const t = n("root", [n("a", [n("a1", leaves("x", 4)), n("a2", leaves("y", 2))]), n("b", [n("b1", leaves("z", 1))])])
    assert.strictEqual(Node.count(t), 13)
    assert.isAtMost(Node.count(Pipeline.optimize(t, { max_nodes: 5 })), 5)
  })

  it("a low-salience sibling collapses before a high-salience one", () => {
    const t = n("root", [
      n("v", [n("low", leaves("l", 3), { salience: 0.1 }), n("high", leaves("h", 3), { salience: 1 })])
    ])
    const out = Pipeline.optimize(t, { max_nodes: 7 })
    assert.strictEqual(Node.find(out, "/v/low")?.children, undefined)
    assert.strictEqual(Node.find(out, "/v/high")?.children?.length, 3)
  })

  it("compacted nodes keep properties, affordances and an existing summary; total_children = 10", () => {
    const t = n("root", [
      n("v", [
        n("g", leaves("i", 10), {
          properties: { label: "G" },
          affordances: [{ action: "open" }],
          meta: { summary: "ten items" }
        })
      ])
    ])
    const g = Node.find(Pipeline.optimize(t, { max_nodes: 3 }), "/v/g")!
    assert.deepStrictEqual(g, {
      id: "g",
      type: "item",
      properties: { label: "G" },
      affordances: [{ action: "open" }],
      meta: { summary: "ten items", total_children: 10 }
    })
  })

  it('a missing summary becomes "5 children"', () => {
    const t = n("root", [n("v", [n("g", leaves("i", 5))])])
    assert.strictEqual(Node.find(Pipeline.optimize(t, { max_nodes: 3 }), "/v/g")?.meta?.summary, "5 children")
  })

  it("root children are never collapsed (3 views, budget 4); heed differs: their lists are windowed to fit", () => {
    const t = n("root", [n("v1", leaves("a", 3)), n("v2", leaves("b", 3)), n("v3", leaves("c", 3))])
    const out = Pipeline.optimize(t, { max_nodes: 4 })
    assert.deepStrictEqual(ids(out), ["v1", "v2", "v3"])
    for (const view of out.children!) {
      assert.strictEqual(view.meta?.summary, undefined)
      assert.deepStrictEqual(view.meta?.window, [0, 0])
      assert.strictEqual(view.meta?.total_children, 3)
    }
    assert.strictEqual(Node.count(out), 4)
  })

  it("the budget is the smaller of request and provider ceiling", () => {
    const t = n("root", [n("v", [n("g", leaves("i", 10))])])
    assert.isAtMost(Node.count(Pipeline.optimize(t, { max_nodes: 100 }, { maxNodes: 3 })), 3)
    assert.isAtMost(Node.count(Pipeline.optimize(t, {}, { maxNodes: 3 })), 3)
    assert.strictEqual(Pipeline.nodeBudget({ max_nodes: 5 }, { maxNodes: 500 }), 5)
  })

  it("equal salience: the deeper, bigger subtree collapses first (score − depth×0.01 − descendants×0.001)", () => {
    assert.isBelow(Pipeline.score(0.5, 3, 0), Pipeline.score(0.5, 2, 0))
    assert.isBelow(Pipeline.score(0.5, 2, 10), Pipeline.score(0.5, 2, 1))
    const t = n("root", [n("v", [n("deep", [n("d1", leaves("x", 3))]), n("shallow", leaves("s", 1))])])
    const out = Pipeline.optimize(t, { max_nodes: 5 })
    assert.isAtMost(Node.count(out), 5)
    assert.strictEqual(Node.find(out, "/v/deep")?.meta?.total_children, 1)
  })
})

describe("Pipeline: pinned", () => {
  it("a pinned ui view survives while a 10-item data group collapses", () => {
    const t = n("root", [
      n("app", [n("ui", leaves("u", 3), { meta: { pinned: true }, salience: 0.1 }), n("data", leaves("d", 10))])
    ])
    const out = Pipeline.optimize(t, { max_nodes: 7 })
    assert.strictEqual(Node.find(out, "/app/ui")?.children?.length, 3)
    assert.strictEqual(Node.find(out, "/app/data")?.children, undefined)
  })

  it("a pinned node with salience 0.1 survives; its unpinned sibling collapses", () => {
    const t = n("root", [
      n("v", [
        n("p", leaves("p", 3), { meta: { pinned: true, salience: 0.1 } }),
        n("q", leaves("q", 3), { salience: 0.9 })
      ])
    ])
    const out = Pipeline.optimize(t, { max_nodes: 6 })
    assert.strictEqual(Node.find(out, "/v/p")?.children?.length, 3)
    assert.strictEqual(Node.find(out, "/v/q")?.children, undefined)
  })

  it("all pinned: nothing can be collapsed (5 nodes with budget 2)", () => {
    const pin = { meta: { pinned: true } }
    const t = n("root", [n("a", [n("a1", undefined, pin), n("a2", undefined, pin)], pin), n("b", undefined, pin)], pin)
    assert.strictEqual(Node.count(Pipeline.optimize(t, { max_nodes: 2 })), 5)
  })

  it("heed differs: pinned protects the whole subtree, not just the node", () => {
    const t = n("root", [
      n("v", [
        n("ui", [n("panel", leaves("w", 5), { salience: 0 })], { meta: { pinned: true } }),
        n("data", leaves("d", 3))
      ])
    ])
    const out = Pipeline.optimize(t, { max_nodes: 4 })
    assert.strictEqual(Node.find(out, "/v/ui/panel")?.children?.length, 5)
  })

  it("heed differs: an ancestor of a pinned node is never collapsed", () => {
    const t = n("root", [
      n("v", [n("box", [n("inner", [n("alert", undefined, { meta: { pinned: true } })])], { salience: 0 })])
    ])
    const out = Pipeline.optimize(t, { max_nodes: 2 })
    assert.isDefined(Node.find(out, "/v/box/inner/alert"))
  })
})

describe("Pipeline: budget windowing (heed)", () => {
  it("a flat list under the root is windowed to meet max_nodes: keeps the first N, meta.window and total_children", () => {
    const t = n("root", leaves("i", 1000))
    const out = Pipeline.optimize(t, { max_nodes: 11 })
    assert.strictEqual(Node.count(out), 11)
    assert.deepStrictEqual(ids(out).slice(0, 3), ["i0", "i1", "i2"])
    assert.deepStrictEqual(out.meta?.window, [0, 10])
    assert.strictEqual(out.meta?.total_children, 1000)
    assert.include(Render.text(out), "(showing 10 of 1000)")
  })

  it("lists with the lowest mean salience are windowed first", () => {
    const t = n("root", [n("hot", leaves("h", 4, 0.9)), n("cold", leaves("c", 4, 0.1))])
    const out = Pipeline.optimize(t, { max_nodes: 7 })
    assert.strictEqual(Node.find(out, "/hot")?.children?.length, 4)
    assert.strictEqual(Node.find(out, "/cold")?.children?.length, 0)
    assert.deepStrictEqual(Node.find(out, "/cold")?.meta?.window, [0, 0])
  })

  it("a list holding a pinned child is never windowed", () => {
    const t = n("root", [n("list", [...leaves("i", 5), n("p", undefined, { meta: { pinned: true } })])])
    const out = Pipeline.optimize(t, { max_nodes: 3 })
    assert.strictEqual(Node.find(out, "/list")?.children?.length, 6)
  })
})

describe("Pipeline: window (query)", () => {
  it("query window [1, 2] returns i1 and i2, meta.window [1, 2], total_children 5", () => {
    const out = Pipeline.optimize(n("root", leaves("i", 5)), { window: [1, 2] })
    assert.deepStrictEqual(ids(out), ["i1", "i2"])
    assert.deepStrictEqual(out.meta?.window, [1, 2])
    assert.strictEqual(out.meta?.total_children, 5)
  })

  it("an offset of 999999 gives no children and keeps the total", () => {
    const out = Pipeline.optimize(n("root", leaves("i", 5)), { window: [999999, 10] })
    assert.deepStrictEqual(ids(out), [])
    assert.strictEqual(out.meta?.total_children, 5)
  })

  it("heed differs: the window keeps a provider-declared total_children", () => {
    const t = n("root", leaves("i", 50), { meta: { total_children: 1000 } })
    assert.strictEqual(Pipeline.optimize(t, { window: [0, 10] }).meta?.total_children, 1000)
  })

  it("a window on a node served without inline children (depth 0, a lone root) adds no children and no window", () => {
    const stub = Pipeline.optimize(n("root", leaves("i", 5)), { depth: 0, window: [0, 3] })
    assert.deepStrictEqual(stub, { id: "root", type: "item", meta: { total_children: 5 } })
    const lone = n("root", undefined, { properties: { label: "alone" } })
    assert.deepStrictEqual(Pipeline.optimize(lone, { window: [0, 3] }), lone)
    assert.deepStrictEqual(Pipeline.optimize(lone, { window: [0, 3], max_nodes: 10 }), lone)
    // and so with a token budget, which plans the view without a window
    assert.deepStrictEqual(Pipeline.optimize(lone, { window: [3, 0], max_tokens: 100 }), lone)
    assert.deepStrictEqual(
      Pipeline.optimize(n("root", leaves("i", 5)), { depth: 0, window: [0, 3], max_tokens: 100 }),
      {
        id: "root",
        type: "item",
        meta: { total_children: 5 }
      }
    )
    // a filter that hides every child leaves nothing inline either
    const hidden = Pipeline.optimize(n("root", leaves("i", 3, 0.1)), { filter: { min_salience: 0.5 }, window: [0, 2] })
    assert.isUndefined(hidden.children)
    assert.isUndefined(hidden.meta?.window)
    assert.strictEqual(hidden.meta?.filtered, 3)
  })

  it("the budget is spent on the children the window shows: [100, 10] of 1,000 with max_nodes 50", () => {
    const tree = n("root", leaves("i", 1000), { type: "root" })
    const out = Pipeline.optimize(tree, { window: [100, 10], max_nodes: 50 })
    assert.deepStrictEqual(
      ids(out),
      Array.from({ length: 10 }, (_, i) => `i${100 + i}`)
    )
    assert.deepStrictEqual(out.meta?.window, [100, 10])
    assert.strictEqual(out.meta?.total_children, 1000)
  })

  it("a budget that cuts the window's slice keeps its marker: window [100, 5] when 5 of 10 fit", () => {
    const tree = n("root", leaves("i", 1000), { type: "root" })
    const out = Pipeline.optimize(tree, { window: [100, 10], max_nodes: 6 })
    assert.deepStrictEqual(ids(out), ["i100", "i101", "i102", "i103", "i104"])
    assert.deepStrictEqual(out.meta?.window, [100, 5])
    assert.include(Render.text(out), "(showing 5 of 1000)")
  })

  it("property: the window's children are the served list's [offset, offset + count) slice, cut to the budget", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 0, max: 45 }),
        fc.integer({ min: 0, max: 12 }),
        fc.integer({ min: 1, max: 30 }),
        (size, offset, count, budget) => {
          const tree = n("root", leaves("i", size), { type: "root" })
          const out = Pipeline.optimize(tree, { window: [offset, count], max_nodes: budget })
          const shown = ids(out)
          const slice = ids(tree).slice(offset, offset + count)
          assert.deepStrictEqual(shown, slice.slice(0, shown.length))
          assert.isAtMost(Node.count(out), Math.max(1, budget))
          if (size === 0) assert.isUndefined(out.meta?.window)
          else assert.deepStrictEqual(out.meta?.window, [offset, shown.length < slice.length ? shown.length : count])
        }
      )
    )
  })
})

describe("Pipeline: paths and combinations", () => {
  const tree = n("root", [n("inbox", [n("m1", undefined, { salience: 0.9 }), n("m2", undefined, { salience: 0.2 })])])

  it('serves the subtree at a path; / and "" are the root; a missing path throws PathNotFound', () => {
    assert.strictEqual(Pipeline.optimize(tree, { path: "/inbox" }).id, "inbox")
    assert.strictEqual(Node.find(tree, "/"), tree)
    assert.strictEqual(Node.find(tree, ""), tree)
    assert.strictEqual(Node.find(tree, "/inbox/m2")?.id, "m2")
    assert.strictEqual(Node.find(tree, "/nope"), undefined)
    assert.throws(() => Pipeline.optimize(tree, { path: "/nope" }), /no node at path "\/nope"/)
  })

  it("a missing path is a PathNotFound error carrying the path", () => {
    try {
      Pipeline.optimize(tree, { path: "/inbox/gone" })
      assert.fail("expected PathNotFound")
    } catch (error) {
      assert.instanceOf(error, Pipeline.PathNotFound)
      assert.strictEqual((error as Pipeline.PathNotFound)._tag, "PathNotFound")
      assert.strictEqual((error as Pipeline.PathNotFound).path, "/inbox/gone")
    }
  })

  it("depth 1 + min_salience 0.5 + max_nodes 10 together; no options means no change", () => {
    const out = Pipeline.optimize(tree, { depth: 1, filter: { min_salience: 0.5 }, max_nodes: 10 })
    assert.deepStrictEqual(out.children![0], { id: "inbox", type: "item", meta: { total_children: 2, filtered: 1 } })
    assert.strictEqual(Pipeline.optimize(tree, {}), tree)
  })

  it("a single node and a 1000-wide list are handled", () => {
    const single = n("root")
    assert.strictEqual(Pipeline.optimize(single, { depth: 0, max_nodes: 1 }), single)
    assert.strictEqual(Pipeline.optimize(n("root", leaves("i", 1000)), { depth: 1 }).children?.length, 1000)
  })
})

describe("Pipeline: max_tokens (heed)", () => {
  const wide = n(
    "root",
    Array.from({ length: 40 }, (_, i) =>
      n(`group-${i}`, leaves(`g${i}-`, 20, (i % 10) / 10), {
        properties: { label: `Group number ${i}` },
        salience: (i % 7) / 7
      })
    )
  )

  it("the rendered text fits the token budget (o200k by default)", () => {
    const out = Pipeline.optimize(wide, { max_tokens: 1000 })
    assert.isAtMost(TokenCounter.countO200k(Render.text(out)), 1000)
    assert.isAbove(Node.count(out), 10)
  })

  it("windowing gives back what still fits, so most of the budget is used", () => {
    for (const budget of [300, 500, 1000]) {
      const tokens = TokenCounter.countO200k(Render.text(Pipeline.optimize(wide, { max_tokens: budget })))
      assert.isAtMost(tokens, budget)
      assert.isAtLeast(tokens, budget * 0.8)
    }
  })

  it("a custom counter is used, and max_tokens combines with max_nodes", () => {
    const chars = (text: string) => text.length
    const out = Pipeline.optimize(wide, { max_tokens: 3000, max_nodes: 30 }, { countTokens: chars })
    assert.isAtMost(Render.text(out).length, 3000)
    assert.isAtMost(Node.count(out), 30)
  })
})

describe("Pipeline: max_tokens with a query window", () => {
  it("the (showing N of M) line the window adds is counted: 8 leaves, window [0, 7]", () => {
    const tree = n("root", leaves("a", 8), { type: "root" })
    for (let budget = 40; budget <= 80; budget++) {
      const out = Pipeline.optimize(tree, { window: [0, 7], max_tokens: budget })
      assert.isAtMost(TokenCounter.countO200k(Render.text(out)), budget, `budget ${budget}`)
    }
  })

  it("a filter, a window and max_tokens together stay within the budget", () => {
    const tree = n(
      "root",
      Array.from({ length: 8 }, (_, i) => n(`item${i}`, undefined, { salience: i % 2 ? 0.9 : 0.1 })),
      { type: "root" }
    )
    for (let budget = 40; budget <= 90; budget++) {
      const out = Pipeline.optimize(tree, { filter: { min_salience: 0.5 }, window: [0, 10], max_tokens: budget })
      assert.isAtMost(TokenCounter.countO200k(Render.text(out)), budget, `budget ${budget}`)
    }
    // a generous budget still shows everything the filter and window let through
    const all = Pipeline.optimize(tree, { filter: { min_salience: 0.5 }, window: [0, 10], max_tokens: 1000 })
    assert.strictEqual(all.children!.length, 4)
  })

  it("property: with a window the output fits max_tokens when nothing is pinned", () => {
    const unpinned = (node: NodeT): NodeT => {
      const { meta, ...rest } = node
      const out: { -readonly [K in keyof NodeT]: NodeT[K] } = { ...rest }
      if (meta?.salience !== undefined) out.meta = { salience: meta.salience }
      if (node.children) out.children = node.children.map(unpinned)
      return out
    }
    fc.assert(
      fc.property(
        arbitraryTree(5),
        fc.integer({ min: 30, max: 300 }),
        fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 6 })),
        fc.option(fc.constantFrom(0.3, 0.6), { nil: undefined }),
        (tree, budget, window, min) => {
          const input = unpinned(tree)
          const request = {
            max_tokens: budget,
            window,
            ...(min !== undefined ? { filter: { min_salience: min } } : {})
          }
          const out = Pipeline.optimize(input, request)
          // the smallest possible view: the root with nothing inline, with the meta the window and filter give it
          const { children: _, ...bare } = Pipeline.optimize(input, { ...request, max_tokens: undefined })
          const floor = TokenCounter.countO200k(Render.text({ ...bare, children: [] }))
          assert.isAtMost(TokenCounter.countO200k(Render.text(out)), Math.max(budget, floor))
        }
      ),
      { numRuns: 300 }
    )
  })
})

describe("Pipeline: properties", () => {
  it("never drops the root, never collapses pinned subtrees, meets max_nodes when feasible, is deterministic", () => {
    fc.assert(
      fc.property(
        arbitraryTree(),
        fc.integer({ min: 1, max: 30 }),
        fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined }),
        (tree, budget, depth) => {
          const request = { max_nodes: budget, ...(depth !== undefined ? { depth } : {}) }
          const out = Pipeline.optimize(tree, request)
          assert.strictEqual(out.id, tree.id)
          assert.deepStrictEqual(Pipeline.optimize(tree, request), out)
          // every pinned node reachable at the served depth keeps its whole subtree
          const truncated = depth !== undefined ? Pipeline.optimize(tree, { depth }) : tree
          for (const id of pinnedIds(truncated)) {
            const find = (node: NodeT): NodeT | undefined =>
              node.id === id && node.meta?.pinned === true
                ? node
                : (node.children ?? []).map(find).find((x) => x !== undefined)
            const before = find(truncated)!
            const after = find(out)
            assert.isDefined(after, `pinned ${id} dropped`)
            assert.strictEqual(Node.count(after!), Node.count(before))
          }
          // the budget is met whenever pinned subtrees allow it
          assert.isAtMost(Node.count(out), Math.max(budget, smallest(truncated)))
        }
      )
    )
  })
})

describe("Pipeline: max_tokens properties", () => {
  const unpin = (node: NodeT): NodeT => {
    const { meta, ...rest } = node
    const out: { -readonly [K in keyof NodeT]: NodeT[K] } = { ...rest }
    if (meta?.salience !== undefined) out.meta = { salience: meta.salience }
    if (node.children) out.children = node.children.map(unpin)
    return out
  }

  it("o200k counts are additive over lines with their indentation and newline", () => {
    fc.assert(
      fc.property(arbitraryTree(), (tree) => {
        const lines = Render.text(tree).split("\n")
        const last = lines.at(-1)!
        const sum = lines.slice(0, -1).reduce((total, line) => total + TokenCounter.countO200k(`${line}\n`), 0)
        const exact = TokenCounter.countO200k(Render.text(tree))
        assert.strictEqual(sum + TokenCounter.countO200k(last), exact)
        assert.isAtMost(Math.abs(TokenCounter.countO200k(`${last}\n`) - TokenCounter.countO200k(last)), 2)
      })
    )
  })

  it("the output always fits max_tokens when nothing is pinned", () => {
    fc.assert(
      fc.property(arbitraryTree(5), fc.integer({ min: 40, max: 400 }), (tree, budget) => {
        const input = unpin(tree)
        const out = Pipeline.optimize(input, { max_tokens: budget })
        // the smallest possible view: the root with its list windowed to nothing
        const { children: _, ...bare } = input
        const total = input.children?.length ?? 0
        const smallest =
          total > 0
            ? { ...bare, children: [], meta: { ...input.meta, window: [0, 0] as const, total_children: total } }
            : bare
        assert.isAtMost(
          TokenCounter.countO200k(Render.text(out)),
          Math.max(budget, TokenCounter.countO200k(Render.text(smallest)))
        )
        assert.strictEqual(out.id, "root")
      })
    )
  })
})

describe("Pipeline: lazy o200k counting (fast path)", () => {
  it("the word-piece bound never exceeds the o200k count, alone or as the [type] id of a rendered line", () => {
    const text = fc.oneof(
      fc.string({ unit: "binary", maxLength: 40 }),
      fc.stringMatching(/^[a-zA-Z0-9' _.:/-]{0,40}$/),
      // letters, digits, apostrophes, a combining mark, an Arabic digit, a no-break space, separators
      fc
        .array(fc.constantFrom("a", "Z", "0", "9", "'", "\u00e9", "\u0301", "\u0663", "\u00a0", " ", "-"), {
          maxLength: 20
        })
        .map((chars) => chars.join(""))
    )
    fc.assert(
      fc.property(text, (s) => {
        assert.isAtMost(o200kWordPieces(s), TokenCounter.countO200k(s), JSON.stringify(s))
      }),
      { numRuns: 3000 }
    )
    fc.assert(
      fc.property(
        text,
        text.filter((s) => s.length > 0),
        fc.nat({ max: 6 }),
        (type, id, depth) => {
          const unit = `${"  ".repeat(depth)}${Render.line({ id, type, properties: { label: "x" } })}\n`
          assert.isAtMost(
            o200kWordPieces(type) + o200kWordPieces(id),
            TokenCounter.countO200k(unit),
            JSON.stringify(unit)
          )
        }
      ),
      { numRuns: 2000 }
    )
  })

  it("counts exactly on ASCII words: letter runs, digits in threes", () => {
    assert.strictEqual(o200kWordPieces("[item] r-0-1-2345"), 1 + 1 + 1 + 1 + 2)
    assert.strictEqual(o200kWordPieces("abc123def"), 3)
    assert.strictEqual(o200kWordPieces("don't caf\u00e9 \u2014"), 2)
  })

  it("gives the same view as counting every line up front (property)", () => {
    fc.assert(
      fc.property(
        arbitraryTree(5),
        fc.integer({ min: 0, max: 500 }),
        fc.option(fc.integer({ min: 1, max: 40 }), { nil: undefined }),
        fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined }),
        fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
        fc.boolean(),
        (tree, budget, maxNodes, depth, min, keep) => {
          const request: Pipeline.Request = {
            max_tokens: budget,
            ...(maxNodes !== undefined ? { max_nodes: maxNodes } : {}),
            ...(depth !== undefined ? { depth } : {}),
            ...(min !== undefined ? { filter: { min_salience: min, keep_ancestors: keep } } : {})
          }
          // fresh copies: working trees and their costs are cached per tree object
          const lazy = Pipeline.optimize(structuredClone(tree), request)
          lazyCounters.delete(TokenCounter.countO200k)
          try {
            const eager = Pipeline.optimize(structuredClone(tree), request)
            assert.deepStrictEqual(lazy, eager)
          } finally {
            lazyCounters.add(TokenCounter.countO200k)
          }
          // and a second request on the same tree object, with counts cached by the first, agrees too
          const shared = structuredClone(tree)
          Pipeline.optimize(shared, { ...request, max_tokens: budget * 2 + 50 })
          assert.deepStrictEqual(Pipeline.optimize(shared, request), lazy)
        }
      ),
      { numRuns: 400 }
    )
  })

  it("on a wide tree the view still uses most of the budget and fits it", () => {
    const wide = n(
      "root",
      Array.from({ length: 60 }, (_, i) =>
        n(`section-${i}`, leaves(`s${i}-item-`, 30, (i % 10) / 10), { salience: (i % 7) / 7 })
      )
    )
    const tokens = TokenCounter.countO200k(Render.text(Pipeline.optimize(wide, { max_tokens: 800 })))
    assert.isAtMost(tokens, 800)
    assert.isAtLeast(tokens, 640)
  })
})

describe("Pipeline: filter properties", () => {
  const salience = (node: NodeT) => node.meta?.salience ?? 0.5
  const all = (node: NodeT, out: Array<NodeT> = []): Array<NodeT> => {
    out.push(node)
    for (const child of node.children ?? []) all(child, out)
    return out
  }

  it("every non-root node shown passes the filter (or is a kept ancestor stub), and hidden counts add up", () => {
    fc.assert(
      fc.property(
        arbitraryTree(),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.boolean(),
        fc.option(fc.integer({ min: 1, max: 20 }), { nil: undefined }),
        (tree, min, keep, budget) => {
          const request = { filter: { min_salience: min, keep_ancestors: keep }, max_nodes: budget }
          const out = Pipeline.optimize(tree, request)
          assert.strictEqual(out.id, "root")
          assert.deepStrictEqual(Pipeline.optimize(tree, request), out)
          for (const node of all(out).slice(1)) {
            const isAncestorStub = keep && node.properties === undefined && salience(node) < min
            assert.isTrue(salience(node) >= min || isAncestorStub, `${node.id} shown below ${min}`)
          }
          for (const node of all(out)) {
            if (node.meta?.filtered !== undefined) {
              assert.isAtMost(node.meta.filtered, node.meta.total_children ?? 0)
            }
          }
        }
      )
    )
  })
})

describe("Pipeline: fitting max_tokens when the plan's count is not the real one", () => {
  // a counter the plan underestimates: each line is counted alone, but the whole text costs more per line
  const superadditive = (text: string) => text.length + text.split("\n").length ** 2
  const shown = (node: NodeT) => node.children?.length ?? 0
  const list = n("root", leaves("item-", 40), { type: "root" })

  it("a superadditive counter: the plan is shrunk until the view fits, then grown back to the most children that fit", () => {
    for (const window of [undefined, [2, 30] as const]) {
      for (let budget = 87; budget <= 1200; budget += 7) {
        const request = { max_tokens: budget, ...(window ? { window } : {}) }
        const out = Pipeline.optimize(list, request, { countTokens: superadditive })
        const k = shown(out)
        assert.isAtMost(superadditive(Render.text(out)), budget, `budget ${budget}`)
        // one more child is over the budget (or there is none to add)
        const more = Pipeline.optimize(list, { ...(window ? { window } : {}), max_nodes: k + 2 })
        if (shown(more) > k) assert.isAbove(superadditive(Render.text(more)), budget, `budget ${budget}: ${k} shown`)
      }
    }
  })

  it("an additive custom counter is planned with no margin: one more child would cost more than the budget", () => {
    for (let budget = 49; budget <= 500; budget++) {
      let measured = 0
      const chars = (text: string) => {
        if (!text.endsWith("\n")) measured++
        return text.length
      }
      const out = Pipeline.optimize(list, { max_tokens: budget }, { countTokens: chars })
      const k = shown(out)
      assert.isAtMost(Render.text(out).length, budget)
      // the first plan fits, so the view is measured once and served: no larger budget is tried
      assert.strictEqual(measured, 1, `budget ${budget}`)
      // the plan counts every line with its newline, the last one included
      const more = Pipeline.optimize(list, { max_nodes: k + 2 })
      assert.isAbove(Render.text(more).length + 2, budget, `budget ${budget}: ${k} shown`)
    }
  })

  it("o200k: a last line that costs more without its newline still fits (the plan keeps a margin for it)", () => {
    // "x !!}" is one token more than "x !!}\n" in o200k
    assert.isAbove(TokenCounter.countO200k("x !!}"), TokenCounter.countO200k("x !!}\n"))
    const tree = n(
      "root",
      leaves("x !!}", 12).map((leaf, i) => ({ ...leaf, id: `x${i} !!}` })),
      { type: "root" }
    )
    const floor = TokenCounter.countO200k(Render.text(Pipeline.optimize(tree, { max_nodes: 1 })))
    for (let budget = 10; budget <= 120; budget++) {
      const out = Pipeline.optimize(tree, { max_tokens: budget })
      assert.isAtMost(TokenCounter.countO200k(Render.text(out)), Math.max(floor, budget), `budget ${budget}`)
    }
  })

  it("a fine-grained superadditive counter: one retry cut by the overshoot fits, and the bisection stops once its bounds meet", () => {
    const big = n("root", leaves("e", 400), { type: "root" })
    const fine = (text: string) => {
      const lines = text.split("\n").filter((line) => line.length > 0).length
      return lines + Math.floor((lines * lines) / 40)
    }
    for (const budget of [20, 35, 120, 200]) {
      const measured: Array<number> = []
      const counting = (text: string) => {
        const cost = fine(text)
        if (!text.endsWith("\n")) measured.push(cost)
        return cost
      }
      const out = Pipeline.optimize(big, { max_tokens: budget }, { countTokens: counting })
      assert.isAtMost(fine(Render.text(out)), budget)
      const firstFit = measured.findIndex((cost) => cost <= budget)
      assert.strictEqual(firstFit, 1, `budget ${budget}: ${measured.join(", ")}`)
      // a small overshoot (budget 20): the plan shrunk by it keeps most of the budget
      if (budget === 20) assert.isAbove(measured[1]!, budget / 2, `budget ${budget}: ${measured.join(", ")}`)
      if (budget <= 35) {
        // a narrow range: the bisection converges before its cap
        assert.isBelow(measured.length - 1 - firstFit, 6, `budget ${budget}: ${measured.join(", ")}`)
      }
    }
  })

  it("with a counter the plan keeps underestimating, 6 more plans give back budget once a shrunken plan fits", () => {
    const big = n("root", leaves("entry-", 300), { type: "root" })
    const cube = (text: string) => text.length + text.split("\n").length ** 3
    for (const budget of [3161, 9504, 25271, 59459]) {
      // the plan counts lines (each ends with a newline); the fit measures whole views (no final newline)
      const measured: Array<number> = []
      const counting = (text: string) => {
        const cost = cube(text)
        if (!text.endsWith("\n")) measured.push(cost)
        return cost
      }
      const out = Pipeline.optimize(big, { max_tokens: budget }, { countTokens: counting })
      assert.isAtMost(cube(Render.text(out)), budget)
      const firstFit = measured.findIndex((cost) => cost <= budget)
      assert.isAbove(firstFit, 0, `budget ${budget}: the first plan is over`)
      // the range between the view that fits and the one that did not is wide: the bisection runs to its cap
      assert.strictEqual(measured.length - 1 - firstFit, 6, `budget ${budget}: ${measured.join(", ")}`)
      assert.strictEqual(cube(Render.text(out)), Math.max(...measured.filter((cost) => cost <= budget)))
    }
  })
})
