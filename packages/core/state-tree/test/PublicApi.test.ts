/**
 * Acceptance-style tests of the public API promised by issue 3, imported only from the package name, exactly as the
 * issue text writes each call. One small test per contract detail.
 */
import { assert, describe, it } from "@effect/vitest"
import { TokenCounter } from "@heed/schema"
import { Consumer, Digest, Message, Node, Patch, Pipeline, Provider, Render } from "@heed/state-tree"
import { Effect, Exit, Fiber, Queue, Schema, Stream } from "effect"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"

type N = Node.Node

const node = (
  id: string,
  children?: ReadonlyArray<N>,
  extra: Omit<N, "id" | "type" | "children"> & { type?: string } = {}
) => {
  const out: { -readonly [K in keyof N]: N[K] } = { id, type: extra.type ?? "item", ...extra }
  if (children !== undefined) out.children = children
  return out as N
}
const sal = (salience: number, more: Node.NodeMeta = {}) => ({ meta: { salience, ...more } })
const items = (prefix: string, count: number, salience?: number): Array<N> =>
  Array.from({ length: count }, (_, i) => node(`${prefix}${i}`, undefined, salience === undefined ? {} : sal(salience)))
const root = (children: ReadonlyArray<N>, meta?: Node.NodeMeta): N =>
  meta === undefined ? { id: "root", type: "root", children } : { id: "root", type: "root", children, meta }
const ids = (tree: N | undefined) => (tree?.children ?? []).map((child) => child.id)

// ---------------------------------------------------------------------------------------------------------------
// Node

describe("contract: Node", () => {
  it.effect("Node.decode(unknown) accepts the SLOP node shape with every field", () =>
    Effect.gen(function* () {
      const input = {
        id: "root",
        type: "root",
        properties: { label: "App" },
        children: [{ id: "user.42", type: "item", children: null, meta: { total_children: 3 } }],
        affordances: [{ action: "refresh", params: { type: "object", properties: {} } }],
        meta: { salience: 0.5, pinned: true, changed: false, focus: true, urgency: "high", reason: "why" },
        content_ref: { type: "text", mime: "text/plain", uri: "slop://content/x", summary: "a file" }
      }
      const decoded = yield* Node.decode(input)
      assert.strictEqual(decoded.id, "root")
      assert.strictEqual(decoded.children?.[0]?.id, "user.42")
      assert.strictEqual(decoded.content_ref?.mime, "text/plain")
    })
  )

  it.effect("Node.decode rejects empty ids, reserved words, '/' and '~' with clear typed errors", () =>
    Effect.gen(function* () {
      const bad: Array<[string, string]> = [
        ["", "empty"],
        ["properties", "reserved"],
        ["children", "reserved"],
        ["affordances", "reserved"],
        ["meta", "reserved"],
        ["content_ref", "reserved"],
        ["id", "reserved"],
        ["type", "reserved"],
        ["a/b", '"/"'],
        ["c~d", '"~"']
      ]
      for (const [id, words] of bad) {
        const exit = yield* Effect.exit(Node.decode({ id: "root", type: "root", children: [{ id, type: "item" }] }))
        assert.isTrue(Exit.isFailure(exit), `id ${JSON.stringify(id)} must be rejected`)
        const error = yield* Effect.flip(Node.decode({ id, type: "item" }))
        assert.strictEqual(error._tag, "NodeDecodeError")
        assert.include(error.message, words)
      }
      const nested = yield* Effect.flip(Node.decode({ id: "root", type: "root", children: [{ id: "a/b", type: "x" }] }))
      assert.include(nested.message, "children")
    })
  )
})

// ---------------------------------------------------------------------------------------------------------------
// Pipeline: SLOP-exact behaviour

describe("contract: Pipeline.optimize (SLOP-exact)", () => {
  it("is pure and synchronous: the input is untouched and an empty request returns the tree unchanged", () => {
    const tree = root([node("a", items("x", 5)), node("b", undefined, sal(0.1))])
    const before = JSON.stringify(tree)
    const out = Pipeline.optimize(tree, { depth: 1, max_nodes: 3, filter: { min_salience: 0.3 } })
    assert.strictEqual(JSON.stringify(tree), before)
    assert.deepStrictEqual(Pipeline.optimize(tree, {}), tree)
    assert.deepStrictEqual(Pipeline.optimize(tree, { depth: 1, max_nodes: 3, filter: { min_salience: 0.3 } }), out)
  })

  it("outputs are plain JSON-compatible objects (a JSON round trip changes nothing)", () => {
    const tree = root([
      node("a", items("x", 6, 0.2), sal(0.3)),
      node("b", [node("c", items("y", 3))], sal(0.9, { pinned: true }))
    ])
    for (const request of [
      { depth: 1 },
      { max_nodes: 5 },
      { filter: { min_salience: 0.5, keep_ancestors: true } },
      { window: [0, 1] as const },
      { max_tokens: 30 }
    ]) {
      const out = Pipeline.optimize(tree, request)
      assert.deepStrictEqual(JSON.parse(JSON.stringify(out)), out)
    }
    const digest = Digest.make(tree, {})
    assert.deepStrictEqual(JSON.parse(JSON.stringify(digest)), digest)
  })

  it("missing salience counts as 0.5 when filtering", () => {
    const tree = root([node("none"), node("low", undefined, sal(0.3)), node("high", undefined, sal(0.9))])
    assert.deepStrictEqual(ids(Pipeline.optimize(tree, { filter: { min_salience: 0.5 } })), ["none", "high"])
    assert.deepStrictEqual(ids(Pipeline.optimize(tree, { filter: { min_salience: 0.51 } })), ["high"])
    assert.deepStrictEqual(ids(Pipeline.optimize(tree, { filter: { types: ["item"] } })), ["none", "low", "high"])
  })

  it("depth: 0 = the node only (a stub), 1 = plus direct children, -1 = unlimited", () => {
    const tree = root([node("a", [node("a1", [node("a11")])]), node("leaf", undefined, { properties: { v: 1 } })])
    assert.deepStrictEqual(Pipeline.optimize(tree, { depth: 0 }), {
      id: "root",
      type: "root",
      meta: { total_children: 2 }
    })
    const one = Pipeline.optimize(tree, { depth: 1 })
    assert.deepStrictEqual(one.children, [
      { id: "a", type: "item", meta: { total_children: 1 } },
      { id: "leaf", type: "item", properties: { v: 1 } }
    ])
    assert.strictEqual(Node.count(Pipeline.optimize(tree, { depth: -1 })), 5)
  })

  it("depth stub shape: { id, type, meta: { ...meta, total_children } } — properties, affordances, content_ref dropped", () => {
    const deep = node("a", items("x", 3), {
      properties: { label: "A" },
      affordances: [{ action: "open" }],
      meta: { salience: 0.4, summary: "kept" },
      content_ref: { type: "text", mime: "text/plain", summary: "c" }
    })
    const out = Pipeline.optimize(root([deep]), { depth: 1 })
    assert.deepStrictEqual(out.children![0], {
      id: "a",
      type: "item",
      meta: { salience: 0.4, summary: "kept", total_children: 3 }
    })
  })

  it("compaction collapses lowest score first (salience − depth×0.01 − descendants×0.001)", () => {
    assert.strictEqual(Pipeline.score(0.5, 2, 10), 0.5 - 0.02 - 0.01)
    const tree = root([node("view", [node("low", items("l", 4), sal(0.1)), node("high", items("h", 4), sal(1))])])
    const out = Pipeline.optimize(tree, { max_nodes: 8 })
    const view = Node.find(out, "/view")!
    assert.isUndefined(Node.find(out, "/view/low")!.children)
    assert.strictEqual(Node.find(out, "/view/high")!.children?.length, 4)
    assert.strictEqual(view.children?.length, 2)
  })

  it("compacted node shape: { id, type, properties?, affordances?, meta: { ...meta, total_children, summary } }", () => {
    const group = node("grp", items("i", 5), {
      properties: { p: 1 },
      affordances: [{ action: "a" }],
      meta: { salience: 0.1 },
      content_ref: { type: "text", mime: "text/plain", summary: "s" }
    })
    const out = Pipeline.optimize(root([node("v", [group])]), { max_nodes: 3 })
    assert.deepStrictEqual(Node.find(out, "/v/grp"), {
      id: "grp",
      type: "item",
      properties: { p: 1 },
      affordances: [{ action: "a" }],
      meta: { salience: 0.1, total_children: 5, summary: "5 children" }
    })
    const summarised = node("grp", items("i", 10), { meta: { summary: "ten things" } })
    const kept = Node.find(Pipeline.optimize(root([node("v", [summarised])]), { max_nodes: 3 }), "/v/grp")!
    assert.strictEqual(kept.meta?.summary, "ten things")
    assert.strictEqual(kept.meta?.total_children, 10)
  })

  it("window [offset, count] slices the served node's children; meta.window is the requested window", () => {
    const tree = root(items("i", 5))
    const out = Pipeline.optimize(tree, { window: [1, 2] })
    assert.deepStrictEqual(ids(out), ["i1", "i2"])
    assert.deepStrictEqual(out.meta?.window, [1, 2])
    assert.strictEqual(out.meta?.total_children, 5)
    const far = Pipeline.optimize(tree, { window: [999999, 10] })
    assert.deepStrictEqual(ids(far), [])
    assert.strictEqual(far.meta?.total_children, 5)
  })

  it("budget = min(request.max_nodes, provider ceiling options.maxNodes)", () => {
    const tree = root([node("a", items("x", 10)), node("b", items("y", 10))])
    assert.isAtMost(Node.count(Pipeline.optimize(tree, { max_nodes: 20 }, { maxNodes: 6 })), 6)
    assert.isAtMost(Node.count(Pipeline.optimize(tree, { max_nodes: 6 }, { maxNodes: 20 })), 6)
    assert.isAtMost(Node.count(Pipeline.optimize(tree, {}, { maxNodes: 6 })), 6)
    assert.strictEqual(Node.count(Pipeline.optimize(tree, { max_nodes: 100 }, { maxNodes: 200 })), 23)
  })

  it("options.maxDepth caps the depth; a request depth of -1 does not lift it", () => {
    const tree = root([node("a", [node("b", [node("c")])])])
    assert.strictEqual(Node.count(Pipeline.optimize(tree, { depth: -1 }, { maxDepth: 1 })), 2)
    assert.strictEqual(Node.count(Pipeline.optimize(tree, {}, { maxDepth: 2 })), 3)
    assert.strictEqual(Node.count(Pipeline.optimize(tree, { depth: 1 }, { maxDepth: 5 })), 2)
  })

  it("order filter → truncate: a depth stub counts original children and hides filtered ones", () => {
    const tree = root([node("a", [node("keep", undefined, sal(0.9)), node("drop", undefined, sal(0.1))])])
    const out = Pipeline.optimize(tree, { depth: 1, filter: { min_salience: 0.5 } })
    assert.deepStrictEqual(out.children![0], { id: "a", type: "item", meta: { total_children: 2, filtered: 1 } })
  })

  it("order compact → window: the window slices the compacted output", () => {
    const tree = root([node("a", items("x", 5)), node("b", items("y", 5)), node("c")])
    const out = Pipeline.optimize(tree, { max_nodes: 100, window: [1, 1] })
    assert.deepStrictEqual(ids(out), ["b"])
    assert.strictEqual(out.children![0]!.children?.length, 5)
  })

  it('paths use SLOP syntax: "/a/b" serves that subtree; "/" and "" are the root', () => {
    const tree = root([node("a", [node("b", items("x", 2))])])
    assert.strictEqual(Pipeline.optimize(tree, { path: "/a/b" }).id, "b")
    assert.strictEqual(Pipeline.optimize(tree, { path: "/" }).id, "root")
    assert.strictEqual(Pipeline.optimize(tree, { path: "" }).id, "root")
    // depth is measured from the served node
    assert.deepStrictEqual(Pipeline.optimize(tree, { path: "/a", depth: 0 }), {
      id: "a",
      type: "item",
      meta: { total_children: 1 }
    })
  })
})

// ---------------------------------------------------------------------------------------------------------------
// Pipeline: contract details and "better than SLOP" 1–4

describe("contract: total_children and filtered", () => {
  it("a parent whose children were filtered keeps the original total_children and gets filtered = hidden", () => {
    const tree = root([
      node(
        "a",
        [node("a1", undefined, sal(0.1)), node("a2", undefined, sal(0.9)), node("a3", undefined, sal(0.2))],
        sal(0.9)
      ),
      node("b", undefined, sal(0.1))
    ])
    const out = Pipeline.optimize(tree, { filter: { min_salience: 0.5 } })
    assert.strictEqual(out.meta?.total_children, 2)
    assert.strictEqual(out.meta?.filtered, 1)
    const a = Node.find(out, "/a")!
    assert.strictEqual(a.meta?.total_children, 3)
    assert.strictEqual(a.meta?.filtered, 2)
    assert.deepStrictEqual(ids(a), ["a2"])
  })

  it("total_children stays the original count after a query window and after a compaction", () => {
    const tree = root([node("v", [node("g", items("i", 7), sal(0.1))]), node("w")])
    const compacted = Pipeline.optimize(tree, { max_nodes: 4 })
    assert.strictEqual(Node.find(compacted, "/v/g")!.meta?.total_children, 7)
    const windowed = Pipeline.optimize(root(items("i", 6, 0.9)), { window: [0, 2] })
    assert.strictEqual(windowed.meta?.total_children, 6)
  })
})

describe("pinned protects the whole subtree and its ancestors (beyond SLOP)", () => {
  it("descendants of a pinned node are never collapsed", () => {
    const tree = root([
      node("ui", [node("panel", [node("deep", items("d", 5))])], sal(0.0, { pinned: true })),
      node("data", [node("g", items("x", 10), sal(0.2))])
    ])
    const out = Pipeline.optimize(tree, { max_nodes: 12 })
    assert.strictEqual(Node.find(out, "/ui/panel/deep")?.children?.length, 5)
    assert.isUndefined(Node.find(out, "/data/g")?.children)
    assert.isAtMost(Node.count(out), 12)
  })

  it("an ancestor of a pinned node is never collapsed (that would hide it)", () => {
    const tree = root([
      node("other", [
        node("h", [node("holder", [node("pl", undefined, sal(0.1, { pinned: true })), node("q")])], sal(0))
      ])
    ])
    const out = Pipeline.optimize(tree, { max_nodes: 2 })
    assert.isDefined(Node.find(out, "/other/h/holder/pl"))
  })
})

describe("budget windowing when compaction runs out of candidates (beyond SLOP)", () => {
  it("a flat list under the root is windowed to meet max_nodes: first N kept, meta.window [0, N], total_children", () => {
    const out = Pipeline.optimize(root(items("i", 10)), { max_nodes: 4 })
    assert.strictEqual(Node.count(out), 4)
    assert.deepStrictEqual(ids(out), ["i0", "i1", "i2"])
    assert.deepStrictEqual(out.meta?.window, [0, 3])
    assert.strictEqual(out.meta?.total_children, 10)
    assert.include(Render.text(out), "(showing 3 of 10)")
  })

  it("the list with the lowest mean salience is windowed first", () => {
    const tree = root([node("hot", items("h", 4, 0.9), sal(0.9)), node("cold", items("c", 4, 0.1), sal(0.9))])
    const out = Pipeline.optimize(tree, { max_nodes: 8 })
    assert.strictEqual(Node.count(out), 8)
    assert.strictEqual(Node.find(out, "/hot")!.children?.length, 4)
    assert.deepStrictEqual(Node.find(out, "/cold")!.meta?.window, [0, 1])
  })

  it("a list holding a pinned child is never windowed", () => {
    const tree = root([...items("i", 5), node("p", undefined, sal(0, { pinned: true }))])
    const out = Pipeline.optimize(tree, { max_nodes: 2 })
    assert.strictEqual(out.children?.length, 6)
    assert.isUndefined(out.meta?.window)
  })
})

describe("filtering reports what it hid; keep_ancestors (beyond SLOP)", () => {
  it("keep_ancestors keeps the ancestor chain of a matching descendant as stubs", () => {
    const tree = root([
      node(
        "low",
        [
          node("mid", [node("alert", undefined, sal(1)), node("noise", undefined, sal(0.1))], {
            properties: { secret: 1 },
            ...sal(0.1)
          })
        ],
        sal(0.1)
      )
    ])
    const plain = Pipeline.optimize(tree, { filter: { min_salience: 0.7 } })
    assert.isUndefined(Node.find(plain, "/low"))
    assert.strictEqual(plain.meta?.filtered, 1)
    const kept = Pipeline.optimize(tree, { filter: { min_salience: 0.7, keep_ancestors: true } })
    assert.isDefined(Node.find(kept, "/low/mid/alert"))
    assert.isUndefined(Node.find(kept, "/low/mid/noise"))
    assert.isUndefined(Node.find(kept, "/low/mid")!.properties)
    assert.strictEqual(Node.find(kept, "/low/mid")!.meta?.filtered, 1)
  })
})

describe("max_tokens on the Render.text output (beyond SLOP)", () => {
  const big = root(
    Array.from({ length: 30 }, (_, i) =>
      node(
        `v${i}`,
        items(`v${i}x`, 5).map((x) => ({ ...x, properties: { label: "hello world" } })),
        sal((i % 10) / 10)
      )
    )
  )

  it("defaults to o200k: the rendered text fits, alone or with max_nodes", () => {
    for (const max_tokens of [60, 200, 500, 1000]) {
      const out = Pipeline.optimize(big, { max_tokens })
      assert.isAtMost(TokenCounter.countO200k(Render.text(out)), max_tokens)
      const both = Pipeline.optimize(big, { max_tokens, max_nodes: 20 })
      assert.isAtMost(TokenCounter.countO200k(Render.text(both)), max_tokens)
      assert.isAtMost(Node.count(both), 20)
    }
  })

  it("options.countTokens (a synchronous (text) => number) is the counter", () => {
    let calls = 0
    const chars = (text: string) => {
      calls++
      return text.length
    }
    for (const max_tokens of [300, 600, 1200]) {
      const out = Pipeline.optimize(big, { max_tokens }, { countTokens: chars })
      assert.isAtMost(Render.text(out).length, max_tokens)
      assert.isAbove(Render.text(out).length, max_tokens / 3)
    }
    assert.isAbove(calls, 0)
  })

  it("max_tokens is met with depth and filter too (no window)", () => {
    for (const max_tokens of [150, 400, 900]) {
      const out = Pipeline.optimize(big, { max_tokens, depth: 1, filter: { min_salience: 0.35 } })
      assert.isAtMost(TokenCounter.countO200k(Render.text(out)), max_tokens)
    }
  })
})

describe("contract: optimize properties", () => {
  const arbitrary: fc.Arbitrary<N> = fc
    .array(
      fc.record({
        kids: fc.integer({ min: 0, max: 6 }),
        salience: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
        pinned: fc.boolean()
      }),
      { minLength: 1, maxLength: 8 }
    )
    .map((groups) =>
      root(
        groups.map((g, i) =>
          node(
            `g${i}`,
            [node(`s${i}`, items(`x${i}_`, g.kids))],
            g.salience === undefined
              ? {}
              : { meta: { salience: g.salience, ...(g.pinned && i === 0 ? { pinned: true } : {}) } }
          )
        )
      )
    )

  it("never drops the root, meets max_nodes when nothing is pinned, and is deterministic", () => {
    fc.assert(
      fc.property(arbitrary, fc.integer({ min: 1, max: 40 }), (tree, max_nodes) => {
        const out = Pipeline.optimize(tree, { max_nodes })
        assert.strictEqual(out.id, "root")
        assert.deepStrictEqual(Pipeline.optimize(tree, { max_nodes }), out)
        const pinned = tree.children![0]!.meta?.pinned === true
        if (!pinned) assert.isAtMost(Node.count(out), max_nodes)
        else assert.strictEqual(Node.count(Node.find(out, "/g0")!), Node.count(tree.children![0]!))
      }),
      { numRuns: 200 }
    )
  })
})

// ---------------------------------------------------------------------------------------------------------------
// Digest (better than SLOP 5)

describe("contract: Digest.make", () => {
  const tree = root([
    node(
      "inbox",
      [node("m1", undefined, sal(0.9, { changed: true })), node("m2", undefined, sal(0.2, { changed: true }))],
      sal(0.3)
    ),
    node(
      "deploy",
      [node("failing", undefined, sal(1, { urgency: "critical", changed: true }))],
      sal(0.4, { changed: true })
    ),
    node("db", [node("down", undefined, sal(1, { urgency: "critical", changed: true }))], sal(0.4)),
    node("focused", undefined, sal(0.8, { focus: true })),
    node("calm", undefined, sal(0.8))
  ])

  it('is { id: "attention-digest", type: "root", meta: { summary }, children }', () => {
    const digest = Digest.make(tree, {})
    assert.deepStrictEqual(Object.keys(digest).sort(), ["children", "id", "meta", "type"])
    assert.strictEqual(digest.id, "attention-digest")
    assert.strictEqual(digest.type, "root")
    assert.deepStrictEqual(Object.keys(digest.meta!), ["summary"])
  })

  it('summarises like "2 critical items, 5 changes since last check"', () => {
    assert.strictEqual(Digest.make(tree, {}).meta?.summary, "2 critical items, 5 changes since last check")
  })

  it("flattens salient nodes from anywhere, ordered by urgency, salience, focus, changed, each with meta.path", () => {
    const digest = Digest.make(tree, { minSalience: 0.7 })
    assert.deepStrictEqual(ids(digest), ["failing", "down", "m1", "focused", "calm"])
    assert.deepStrictEqual(
      digest.children!.map((entry) => entry.meta?.path),
      ["/deploy/failing", "/db/down", "/inbox/m1", "/focused", "/calm"]
    )
    for (const entry of digest.children!) assert.isUndefined(entry.children)
    const path = digest.children![0]!.meta!.path!
    assert.strictEqual(Node.find(tree, path)?.id, "failing")
  })

  it("minSalience selects; maxNodes caps the entries under the root; maxTokens caps the rendered text", () => {
    assert.deepStrictEqual(ids(Digest.make(tree, { minSalience: 0.85 })), ["failing", "down", "m1"])
    assert.strictEqual(Digest.make(tree, { maxNodes: 2 }).children?.length, 2)
    for (const maxTokens of [30, 70, 100]) {
      const small = Digest.make(tree, { maxTokens })
      assert.isAtMost(TokenCounter.countO200k(Render.text(small)), maxTokens)
      assert.isBelow(small.children?.length ?? 0, 5)
    }
    const full = Digest.make(tree, {})
    assert.deepStrictEqual(Digest.make(tree, { maxTokens: TokenCounter.countO200k(Render.text(full)) + 40 }), full)
  })
})

// ---------------------------------------------------------------------------------------------------------------
// Patch (better than SLOP 8)

describe("contract: Patch.diff / Patch.apply", () => {
  it("paths are node ids; property keys are RFC 6901 escaped", () => {
    const a = root([node("editor", [node("file", undefined, { properties: { dirty: false, "a/b": 1, "c~d": 1 } })])])
    const b = root([node("editor", [node("file", undefined, { properties: { dirty: true, "a/b": 2, "c~d": 2 } })])])
    const ops = Patch.diff(a, b)
    assert.deepStrictEqual(ops, [
      { op: "replace", path: "/editor/file/properties/dirty", value: true },
      { op: "replace", path: "/editor/file/properties/a~1b", value: 2 },
      { op: "replace", path: "/editor/file/properties/c~0d", value: 2 }
    ])
    assert.deepStrictEqual(Patch.apply(a, ops), b)
  })

  it("a type change under the same id becomes remove + add", () => {
    const ops = Patch.diff(root([node("x")]), root([node("x", undefined, { type: "status" })]))
    assert.deepStrictEqual(
      ops.map((op) => [op.op, op.path]),
      [
        ["remove", "/x"],
        ["add", "/x"]
      ]
    )
  })

  it("add carries index; reordering emits move", () => {
    const added = Patch.diff(root([node("a"), node("c")]), root([node("a"), node("b"), node("c")]))
    assert.deepStrictEqual(added, [{ op: "add", path: "/b", value: node("b"), index: 1 }])
    const moved = Patch.diff(root([node("a"), node("b"), node("c")]), root([node("c"), node("a"), node("b")]))
    assert.deepStrictEqual(moved[0], { op: "move", path: "/c", index: 0 })
  })

  it("Patch.apply(a, Patch.diff(a, b)) equals b", () => {
    const child = fc.record({ id: fc.constantFrom("a", "b", "c", "d", "e"), v: fc.integer({ min: 0, max: 3 }) })
    const tree = fc
      .uniqueArray(child, { selector: (c) => c.id, minLength: 1, maxLength: 5 })
      .map((list) => root(list.map((c) => node(c.id, [node("k", undefined, { properties: { v: c.v } })]))))
    fc.assert(
      fc.property(tree, tree, (a, b) => {
        assert.deepStrictEqual(Patch.apply(a, Patch.diff(a, b)), b)
      })
    )
  })
})

// ---------------------------------------------------------------------------------------------------------------
// Render

describe("contract: Render.text", () => {
  it("renders the canonical one-line-per-node format, two spaces per level", () => {
    const tree = root([
      node("msg", [node("reply", undefined, { properties: { label: "reply" } })], {
        properties: { label: "Hello", unread: true },
        meta: { summary: "a message", salience: 0.856 },
        affordances: [{ action: "send", params: { type: "object", properties: { body: { type: "string" } } } }]
      }),
      node("lazy", undefined, { meta: { total_children: 1 } }),
      node("many", undefined, { meta: { total_children: 4 } })
    ])
    assert.strictEqual(
      Render.text(tree),
      [
        "[root] root",
        '  [item] msg: Hello (unread=true)  — "a message"  salience=0.86  actions: {send(body: string)}',
        "    [item] reply",
        "  [item] lazy",
        "    (1 child not loaded)",
        "  [item] many",
        "    (4 children not loaded)"
      ].join("\n")
    )
  })

  it("the spec's canonical example renders exactly, line for line and in order", () => {
    // spec/core/state-tree.md "Consumer display format" example
    const store: N = {
      id: "store",
      type: "root",
      properties: { label: "Pet Store" },
      meta: { salience: 0.9 },
      affordances: [{ action: "search", params: { type: "object", properties: { query: { type: "string" } } } }],
      children: [
        {
          id: "catalog",
          type: "collection",
          properties: { label: "Catalog", count: 142 },
          meta: { total_children: 142, window: [0, 25], summary: "142 products, 12 on sale" },
          children: [
            {
              id: "prod-1",
              type: "item",
              properties: { label: "Rubber Duck", price: 4.99, in_stock: true },
              affordances: [
                { action: "add_to_cart", params: { type: "object", properties: { quantity: { type: "number" } } } },
                { action: "view" }
              ]
            }
          ]
        },
        {
          id: "cart",
          type: "collection",
          properties: { label: "Cart" },
          meta: { total_children: 3, summary: "3 items, $24.97" }
        }
      ]
    }
    assert.strictEqual(
      Render.text(store),
      [
        "[root] store: Pet Store  salience=0.9  actions: {search(query: string)}",
        '  [collection] catalog: Catalog (count=142)  — "142 products, 12 on sale"',
        "    (showing 1 of 142)",
        "    [item] prod-1: Rubber Duck (price=4.99, in_stock=true)  actions: {add_to_cart(quantity: number), view}",
        '  [collection] cart: Cart  — "3 items, $24.97"',
        "    (3 children not loaded)"
      ].join("\n")
    )
  })
})

// ---------------------------------------------------------------------------------------------------------------
// Message

describe("contract: Message schemas (SLOP wire shapes)", () => {
  const decodes = (schema: Schema.Top, value: unknown) =>
    assert.isTrue(Exit.isSuccess(Schema.decodeUnknownExit(schema as never)(value)), JSON.stringify(value))

  it("every consumer message", () => {
    decodes(Message.Subscribe, {
      type: "subscribe",
      id: "s",
      path: "/",
      depth: -1,
      max_nodes: 50,
      filter: { types: ["item"], min_salience: 0.5 }
    })
    decodes(Message.Unsubscribe, { type: "unsubscribe", id: "s" })
    decodes(Message.Query, { type: "query", id: "q", path: "/inbox", depth: 1, window: [0, 25] })
    decodes(Message.Invoke, { type: "invoke", id: "i", path: "/inbox/msg-1", action: "archive", params: { x: 1 } })
  })

  it("every provider message", () => {
    decodes(Message.Hello, {
      type: "hello",
      provider: { id: "app", name: "App", slop_version: "0.1", capabilities: ["state", "patches"] }
    })
    decodes(Message.Snapshot, { type: "snapshot", id: "s", version: 1, tree: { id: "root", type: "root" } })
    decodes(Message.Patch, {
      type: "patch",
      subscription: "s",
      version: 2,
      ops: [
        { op: "add", path: "/a", value: { id: "a", type: "item" }, index: 0 },
        { op: "remove", path: "/b" },
        { op: "replace", path: "/c/properties/x", value: 1 },
        { op: "move", path: "/d", index: 1 }
      ]
    })
    decodes(Message.Result, { type: "result", id: "i", status: "ok", data: { x: 1 } })
    decodes(Message.Result, { type: "result", id: "i", status: "accepted", data: { taskId: "t" } })
    decodes(Message.Result, {
      type: "result",
      id: "i",
      status: "error",
      error: { code: "invalid_params", message: "m" }
    })
    decodes(Message.Event, { type: "event", name: "toast", data: { text: "hi" } })
    decodes(Message.Error, { type: "error", id: "s", error: { code: "not_found", message: "m" } })
    decodes(Message.Error, { type: "error", error: { code: "bad_request", message: "m" } })
    decodes(Message.Batch, { type: "batch", messages: [{ type: "event", name: "x" }] })
  })
})

// ---------------------------------------------------------------------------------------------------------------
// Provider (better than SLOP 6, 7, 9, 11) and wire compatibility

const settle = Effect.forEach(Array.from({ length: 30 }), () => Effect.yieldNow, { discard: true })

const open = (provider: Provider.Provider) =>
  Effect.gen(function* () {
    const connection = yield* provider.connect()
    const inbox: Array<Message.Outbound> = []
    yield* Effect.forkScoped(Stream.runForEach(connection.messages, (m) => Effect.sync(() => inbox.push(m))))
    yield* settle
    const send = (message: unknown) => connection.send(message).pipe(Effect.andThen(settle))
    return { connection, inbox, send }
  })

const ofType = <T extends Message.Outbound["type"]>(inbox: ReadonlyArray<Message.Outbound>, type: T) =>
  inbox.filter((m): m is Extract<Message.Outbound, { type: T }> => m.type === type)

const isOutbound = Schema.is(Message.Outbound as never)

describe("contract: Provider.make and connect()", () => {
  it.effect("connect() yields { send, messages }; messages start with hello (SLOP shape, version 0.1)", () =>
    Effect.gen(function* () {
      const provider = yield* Provider.make()
      yield* provider.setTree(root([node("a")]))
      const { inbox } = yield* open(provider)
      const hello = inbox[0] as Message.Hello
      assert.strictEqual(hello.type, "hello")
      assert.strictEqual(hello.provider.slop_version, "0.1")
      assert.isString(hello.provider.id)
      assert.isString(hello.provider.name)
      assert.includeMembers(
        [...hello.provider.capabilities],
        ["state", "patches", "affordances", "attention", "windowing", "async", "content_refs"]
      )
    })
  )

  it.effect(
    "subscribe → snapshot {type, id, version: 1, tree}; changes → patch {type, subscription, version, ops}",
    () =>
      Effect.gen(function* () {
        const provider = yield* Provider.make({ coalesce_ms: 0 })
        const tree = (dirty: boolean) => root([node("editor", [node("file", undefined, { properties: { dirty } })])])
        yield* provider.setTree(tree(false))
        const { inbox, send } = yield* open(provider)
        yield* send({ type: "subscribe", id: "sub-1", path: "/", depth: -1 })
        const snapshot = ofType(inbox, "snapshot")[0]!
        assert.deepStrictEqual(Object.keys(snapshot).sort(), ["id", "tree", "type", "version"])
        assert.strictEqual(snapshot.id, "sub-1")
        assert.strictEqual(snapshot.version, 1)
        yield* provider.setTree(tree(true))
        yield* settle
        const patch = ofType(inbox, "patch")[0]!
        assert.deepStrictEqual(Object.keys(patch).sort(), ["ops", "subscription", "type", "version"])
        assert.strictEqual(patch.subscription, "sub-1")
        assert.strictEqual(patch.version, 2)
        assert.deepStrictEqual(
          patch.ops.find((op) => op.path === "/editor/file/properties/dirty"),
          { op: "replace", path: "/editor/file/properties/dirty", value: true }
        )
        for (const message of inbox) assert.isTrue(isOutbound(message), JSON.stringify(message))
      })
  )

  it.effect("options maxNodes and maxDepth are ceilings on every subscription", () =>
    Effect.gen(function* () {
      const provider = yield* Provider.make({ coalesce_ms: 0, maxNodes: 5, maxDepth: 1 })
      yield* provider.setTree(root([node("a", items("x", 10)), node("b", items("y", 10))]))
      const { inbox, send } = yield* open(provider)
      yield* send({ type: "subscribe", id: "s", depth: -1, max_nodes: 100 })
      const tree = ofType(inbox, "snapshot")[0]!.tree
      assert.isAtMost(Node.count(tree), 5)
      assert.strictEqual(Node.find(tree, "/a")?.meta?.total_children, 10)
    })
  )

  it.effect("coalesce_ms defaults to 50 ms", () =>
    Effect.gen(function* () {
      const provider = yield* Provider.make()
      yield* provider.setTree(root([node("a", undefined, { properties: { v: 0 } })]))
      yield* TestClock.adjust("50 millis")
      const { inbox, send } = yield* open(provider)
      yield* send({ type: "subscribe", id: "s" })
      yield* provider.setTree(root([node("a", undefined, { properties: { v: 1 } })]))
      yield* provider.setTree(root([node("a", undefined, { properties: { v: 2 } })]))
      yield* TestClock.adjust("49 millis")
      yield* settle
      assert.strictEqual(ofType(inbox, "patch").length, 0)
      yield* TestClock.adjust("1 millis")
      yield* settle
      const patches = ofType(inbox, "patch")
      assert.strictEqual(patches.length, 1)
      assert.deepStrictEqual(
        patches[0]!.ops.find((op) => op.path === "/a/properties/v"),
        {
          op: "replace",
          path: "/a/properties/v",
          value: 2
        }
      )
    })
  )

  it.effect("query → one-shot snapshot with the same id, windowed; unsubscribe stops patches", () =>
    Effect.gen(function* () {
      const provider = yield* Provider.make({ coalesce_ms: 0 })
      yield* provider.setTree(root(items("i", 5)))
      const { inbox, send } = yield* open(provider)
      yield* send({ type: "query", id: "q", path: "/", depth: 1, window: [1, 2] })
      const answer = ofType(inbox, "snapshot").find((s) => s.id === "q")!
      assert.deepStrictEqual(ids(answer.tree), ["i1", "i2"])
      assert.deepStrictEqual(answer.tree.meta?.window, [1, 2])
      assert.strictEqual(answer.tree.meta?.total_children, 5)
      yield* send({ type: "subscribe", id: "s" })
      yield* send({ type: "unsubscribe", id: "s" })
      yield* provider.setTree(root(items("j", 2)))
      yield* settle
      assert.strictEqual(ofType(inbox, "patch").length, 0)
    })
  )
})

describe("changed auto-clears (beyond SLOP)", () => {
  it.effect("nodes modified by a rebuild are stamped changed and cleared on the next rebuild", () =>
    Effect.gen(function* () {
      const provider = yield* Provider.make({ coalesce_ms: 0 })
      const tree = (a: number, b: number) =>
        root([node("a", undefined, { properties: { a } }), node("b", undefined, { properties: { b } })])
      yield* provider.setTree(tree(0, 0))
      const { inbox, send } = yield* open(provider)
      yield* send({ type: "subscribe", id: "s" })
      yield* provider.setTree(tree(1, 0))
      yield* settle
      const mirror = Consumer.mirror()
      for (const message of inbox) mirror.apply(message)
      assert.isTrue(Node.find(mirror.tree("s")!, "/a")?.meta?.changed)
      assert.notStrictEqual(Node.find(mirror.tree("s")!, "/b")?.meta?.changed, true)
      yield* provider.setTree(tree(1, 1))
      yield* settle
      const again = Consumer.mirror()
      for (const message of inbox) again.apply(message)
      assert.notStrictEqual(Node.find(again.tree("s")!, "/a")?.meta?.changed, true)
      assert.isTrue(Node.find(again.tree("s")!, "/b")?.meta?.changed)
    })
  )
})

describe("per-subscription versions (beyond SLOP)", () => {
  it.effect("each subscription's versions are monotonic and gapless, independent of the others", () =>
    Effect.gen(function* () {
      const provider = yield* Provider.make({ coalesce_ms: 0 })
      const tree = (a: number, b: number) =>
        root([node("a", undefined, { properties: { v: a } }), node("b", undefined, { properties: { v: b } })])
      yield* provider.setTree(tree(0, 0))
      const { inbox, send } = yield* open(provider)
      yield* send({ type: "subscribe", id: "A", path: "/a" })
      yield* send({ type: "subscribe", id: "B", path: "/b" })
      for (const [a, b] of [
        [1, 0],
        [2, 0],
        [3, 0],
        [3, 1]
      ] as const) {
        yield* provider.setTree(tree(a, b))
        yield* settle
      }
      for (const id of ["A", "B"]) {
        const versions = ofType(inbox, "patch")
          .filter((p) => p.subscription === id)
          .map((p) => p.version)
        assert.isAbove(versions.length, 0)
        assert.deepStrictEqual(
          versions,
          versions.map((_, i) => i + 2),
          id
        )
      }
    })
  )

  it.effect("a consumer that sees a gap resubscribes", () =>
    Effect.gen(function* () {
      const inbound = yield* Queue.unbounded<Message.Outbound>()
      const sent: Array<unknown> = []
      const consumer = yield* Consumer.make({
        send: (message) => Effect.sync(() => void sent.push(message)),
        messages: Stream.fromQueue(inbound)
      })
      const subscribing = yield* Effect.forkScoped(consumer.subscribe({ id: "s", path: "/" }))
      yield* settle
      yield* Queue.offer(inbound, { type: "snapshot", id: "s", version: 1, tree: root([node("a")]) })
      yield* settle
      assert.strictEqual(yield* Fiber.join(subscribing), "s")
      yield* Queue.offer(inbound, { type: "patch", subscription: "s", version: 3, ops: [] })
      yield* settle
      assert.strictEqual(yield* consumer.resubscriptions, 1)
      assert.deepStrictEqual(sent.at(-1), { type: "subscribe", id: "s", path: "/", patch_format: "compact" })
    })
  )
})

describe("Provider invoke, slow consumers, tasks (beyond SLOP)", () => {
  const app = root([
    node("compose", undefined, {
      affordances: [
        { action: "send", params: { type: "object", properties: { body: { type: "string" } }, required: ["body"] } },
        { action: "fail" },
        { action: "later", estimate: "async" }
      ]
    })
  ])

  const setup = Effect.gen(function* () {
    const provider = yield* Provider.make({ coalesce_ms: 0 })
    let count = 0
    const bump = () => root([...app.children!, node("sent", undefined, { properties: { count: ++count } })])
    yield* provider.setTree(app)
    yield* provider.handle("/compose", "send", (params) =>
      provider.setTree(bump()).pipe(Effect.as({ echo: params.body }))
    )
    yield* provider.handle("/compose", "fail", () =>
      provider
        .setTree(bump())
        .pipe(Effect.andThen(Effect.fail(new Provider.ActionError({ code: "conflict", message: "stale" }))))
    )
    yield* provider.handle("/compose", "later", () =>
      provider.startTask("later", () => Effect.sleep("1 second")).pipe(Effect.map(Provider.accepted))
    )
    const client = yield* open(provider)
    yield* client.send({ type: "subscribe", id: "s" })
    return { provider, ...client }
  })

  it.effect("rebuild-and-broadcast comes before the result, also when the handler fails", () =>
    Effect.gen(function* () {
      const { inbox, send } = yield* setup
      yield* send({ type: "invoke", id: "ok", path: "/compose", action: "send", params: { body: "hi" } })
      assert.deepStrictEqual(
        inbox.slice(-2).map((m) => m.type),
        ["patch", "result"]
      )
      assert.deepStrictEqual(inbox.at(-1), { type: "result", id: "ok", status: "ok", data: { echo: "hi" } })
      yield* send({ type: "invoke", id: "bad", path: "/compose", action: "fail" })
      assert.deepStrictEqual(
        inbox.slice(-2).map((m) => m.type),
        ["patch", "result"]
      )
      assert.deepStrictEqual(inbox.at(-1), {
        type: "result",
        id: "bad",
        status: "error",
        error: { code: "conflict", message: "stale" }
      })
    })
  )

  it.effect("params are validated: invalid_params names the field", () =>
    Effect.gen(function* () {
      const { inbox, send } = yield* setup
      yield* send({ type: "invoke", id: "i", path: "/compose", action: "send", params: {} })
      const result = inbox.at(-1) as Message.Result
      assert.strictEqual(result.status, "error")
      assert.strictEqual(result.error?.code, "invalid_params")
      assert.include(result.error?.message, "body")
      yield* send({ type: "invoke", id: "j", path: "/compose", action: "send", params: { body: 3 } })
      assert.strictEqual((inbox.at(-1) as Message.Result).error?.code, "invalid_params")
    })
  )

  it.effect("async actions answer accepted with data.taskId and a task node under /tasks", () =>
    Effect.gen(function* () {
      const { inbox, provider, send } = yield* setup
      yield* send({ type: "invoke", id: "t", path: "/compose", action: "later" })
      const result = inbox.at(-1) as Message.Result
      assert.strictEqual(result.status, "accepted")
      const taskId = (result.data as { taskId: string }).taskId
      assert.isString(taskId)
      const task = Node.find((yield* provider.tree)!, `/tasks/${taskId}`)!
      assert.strictEqual(task.type, "status")
      assert.strictEqual(task.properties?.status, "running")
    })
  )

  it.effect("a slow consumer gets a fresh snapshot instead of an unbounded backlog", () =>
    Effect.gen(function* () {
      const provider = yield* Provider.make({ coalesce_ms: 0 })
      const tree = (v: number) => root([node("x", undefined, { properties: { v } })])
      yield* provider.setTree(tree(0))
      const connection = yield* provider.connect()
      yield* connection.send({ type: "subscribe", id: "s" })
      for (let v = 1; v <= 1000; v++) yield* provider.setTree(tree(v))
      const received: Array<Message.Outbound> = []
      yield* Effect.forkScoped(Stream.runForEach(connection.messages, (m) => Effect.sync(() => void received.push(m))))
      yield* settle
      assert.isBelow(received.length, 600)
      const mirror = Consumer.mirror()
      for (const message of received) assert.notStrictEqual(mirror.apply(message), "gap")
      assert.strictEqual(Node.find(mirror.tree("s")!, "/x")?.properties?.v, 1000)
    })
  )
})

describe("Consumer mirror and tools (beyond SLOP)", () => {
  it("the mirror applies snapshots and patches and detects version gaps", () => {
    const mirror = Consumer.mirror()
    assert.strictEqual(mirror.apply({ type: "snapshot", id: "s", version: 1, tree: root([node("a")]) }), "applied")
    const ops = Patch.diff(root([node("a")]), root([node("a"), node("b")]))
    assert.strictEqual(mirror.apply({ type: "patch", subscription: "s", version: 2, ops }), "applied")
    assert.deepStrictEqual(ids(mirror.tree("s")), ["a", "b"])
    assert.strictEqual(mirror.apply({ type: "patch", subscription: "s", version: 4, ops: [] }), "gap")
    assert.strictEqual(mirror.version("s"), 2)
  })

  it("affordances become tools: {nodeId}__{action}, grouped by action+schema with a required target", () => {
    const schema = { type: "object", properties: { reason: { type: "string" } } }
    const tree = root([
      node("compose", undefined, { affordances: [{ action: "send-mail" }] }),
      node("inbox", [
        node("m1", undefined, { affordances: [{ action: "archive", params: schema }] }),
        node("m2", undefined, { affordances: [{ action: "archive", params: schema, dangerous: true }] })
      ])
    ])
    const set = Consumer.tools(tree)
    const names = set.tools.map((t) => t.name).sort()
    assert.deepStrictEqual(names, ["archive", "compose__send_mail"])
    assert.deepStrictEqual(set.resolve("compose__send_mail"), { path: "/compose", action: "send-mail" })
    const grouped = set.tools.find((t) => t.name === "archive")!
    assert.isTrue(grouped.dangerous)
    assert.isTrue(grouped.description.endsWith(" [DANGEROUS - confirm first]"))
    assert.include(grouped.inputSchema.required ?? [], "target")
    assert.deepStrictEqual(set.resolve("archive"), {
      path: null,
      action: "archive",
      targets: ["/inbox/m1", "/inbox/m2"]
    })
  })
})

describe("bad input (beyond SLOP)", () => {
  it.effect("malformed, unknown type, bad path and bad params get the right codes; others keep being served", () =>
    Effect.gen(function* () {
      const provider = yield* Provider.make({ coalesce_ms: 0 })
      yield* provider.setTree(root([node("a", undefined, { properties: { v: 0 } })]))
      const bad = yield* open(provider)
      const good = yield* open(provider)
      yield* good.send({ type: "subscribe", id: "g" })
      yield* bad.send(42)
      yield* bad.send({ type: "teleport", id: "t" })
      yield* bad.send({ type: "subscribe" })
      yield* bad.send({ type: "subscribe", id: "p", path: "/missing" })
      yield* bad.send({ type: "query", id: "q", path: "/missing" })
      yield* bad.send({ type: "invoke", id: "i", path: "/missing", action: "x" })
      yield* bad.send({ type: "invoke", id: "k", path: "/a", action: "nope" })
      const errors = ofType(bad.inbox, "error")
      assert.deepStrictEqual(
        errors.map((e) => [e.id, e.error.code]),
        [
          [undefined, "bad_request"],
          ["t", "bad_request"],
          [undefined, "bad_request"],
          ["p", "not_found"],
          ["q", "not_found"]
        ]
      )
      assert.include(errors[1]!.error.message, "teleport")
      assert.strictEqual(ofType(bad.inbox, "snapshot").length, 0)
      const results = ofType(bad.inbox, "result")
      assert.deepStrictEqual(
        results.map((r) => [r.id, r.status, r.error?.code]),
        [
          ["i", "error", "not_found"],
          ["k", "error", "not_found"]
        ]
      )
      yield* provider.setTree(root([node("a", undefined, { properties: { v: 1 } })]))
      yield* settle
      assert.strictEqual(ofType(good.inbox, "patch").length, 1)
    })
  )
})
