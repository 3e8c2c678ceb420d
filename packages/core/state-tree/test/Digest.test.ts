import { assert, describe, it } from "@effect/vitest"
import { TokenCounter } from "@heed/schema"
import * as fc from "fast-check"
import { Digest, Patch, Render } from "../src/index.ts"
import type { Node } from "../src/Node.ts"
import { arbitraryTree, leaves, n } from "./fixtures.ts"

const tree = n(
  "root",
  [
    n(
      "inbox",
      [
        n("msg-1", undefined, { meta: { salience: 0.2 } }),
        n("msg-99", undefined, {
          properties: { from: "boss", subject: "Urgent: client escalation" },
          meta: { salience: 0.95, urgency: "high", changed: true }
        }),
        n("msg-7", undefined, { meta: { salience: 0.9, focus: true } })
      ],
      { meta: { salience: 0.3 } }
    ),
    n(
      "ops",
      [
        n("deploy-status", undefined, {
          type: "status",
          properties: { status: "failing" },
          meta: { salience: 1, urgency: "critical", reason: "Production deploy is failing" }
        }),
        n("cpu", undefined, { meta: { salience: 0.9, changed: true } })
      ],
      { meta: { salience: 0.1 } }
    )
  ],
  { type: "root" }
)

describe("Digest.make", () => {
  it("builds the attention-digest root with salient nodes from anywhere, flattened", () => {
    const digest = Digest.make(tree)
    assert.strictEqual(digest.id, "attention-digest")
    assert.strictEqual(digest.type, "root")
    for (const child of digest.children!) assert.strictEqual(child.children, undefined)
    assert.deepStrictEqual(
      digest.children!.map((c) => c.id),
      ["deploy-status", "msg-99", "msg-7", "cpu"]
    )
  })

  it("orders by urgency, salience, focus, then changed", () => {
    const t = n("root", [
      n("plain", undefined, { meta: { salience: 0.8 } }),
      n("changed", undefined, { meta: { salience: 0.8, changed: true } }),
      n("focused", undefined, { meta: { salience: 0.8, focus: true } }),
      n("urgent", undefined, { meta: { salience: 0.75, urgency: "medium" } })
    ])
    assert.deepStrictEqual(
      Digest.make(t).children!.map((c) => c.id),
      ["urgent", "focused", "changed", "plain"]
    )
  })

  it("each entry carries its path and child count for drill-down", () => {
    const t = n("root", [n("a", [n("b", leaves("x", 3), { meta: { salience: 0.9 } })])])
    const [entry] = Digest.make(t).children!
    assert.strictEqual(entry!.meta?.path, "/a/b")
    assert.strictEqual(entry!.meta?.total_children, 3)
  })

  it("summarises critical items and changes", () => {
    assert.strictEqual(
      Digest.make(tree).meta?.summary,
      "1 critical item, 1 high-urgency item, 2 changes since last check"
    )
    assert.strictEqual(Digest.make(n("root", [])).meta?.summary, "no changes since last check")
  })

  it("maxNodes caps the entries under the root and the summary says how many were left out", () => {
    const digest = Digest.make(tree, { maxNodes: 2 })
    assert.deepStrictEqual(
      digest.children!.map((c) => c.id),
      ["deploy-status", "msg-99"]
    )
    assert.include(digest.meta!.summary!, "showing 2 of 4 salient nodes")
  })

  it("minSalience selects nodes; high and critical urgency are always included", () => {
    const ids = Digest.make(tree, { minSalience: 0.95 }).children!.map((c) => c.id)
    assert.deepStrictEqual(ids, ["deploy-status", "msg-99"])
  })

  it("the deprecated snake_case options min_salience, max_nodes and max_tokens still work; the camelCase name wins", () => {
    const big = n("root", leaves("item-with-a-long-name-", 200, 0.9))
    assert.deepStrictEqual(Digest.make(tree, { min_salience: 0.95 }), Digest.make(tree, { minSalience: 0.95 }))
    assert.deepStrictEqual(Digest.make(tree, { max_nodes: 2 }), Digest.make(tree, { maxNodes: 2 }))
    assert.deepStrictEqual(Digest.make(big, { max_tokens: 300 }), Digest.make(big, { maxTokens: 300 }))
    assert.strictEqual(Digest.make(tree, { max_nodes: 2 }).children!.length, 2)
    assert.strictEqual(Digest.make(tree, { maxNodes: 1, max_nodes: 3 }).children!.length, 1)
    assert.deepStrictEqual(
      Digest.make(tree, { minSalience: 0.95, min_salience: 0 }).children!.map((c) => c.id),
      ["deploy-status", "msg-99"]
    )
  })

  it("maxTokens bounds the rendered digest", () => {
    const big = n("root", leaves("item-with-a-long-name-", 200, 0.9))
    const digest = Digest.make(big, { maxTokens: 300 })
    assert.isAtMost(TokenCounter.countO200k(Render.text(digest)), 300)
    assert.isAbove(digest.children!.length, 5)
  })

  it("property: the bounded top-k of maxNodes equals the first maxNodes of the fully sorted digest", () => {
    const urgencies = [undefined, "low", "medium", "high", "critical"] as const
    // decorate random trees with urgency, focus and changed (many ties, to exercise tree-order tie breaking)
    const decorate = (node: Node, seed: number): Node => {
      const salience = node.meta?.salience
      const meta = {
        ...node.meta,
        ...(salience !== undefined ? { salience: Math.round(salience * 4) / 4 } : {}),
        ...(urgencies[seed % 5] !== undefined ? { urgency: urgencies[seed % 5] } : {}),
        ...(seed % 3 === 0 ? { focus: true } : {}),
        ...(seed % 4 === 0 ? { changed: true } : {})
      }
      const out: { -readonly [K in keyof Node]: Node[K] } = { ...node, meta }
      if (node.children) out.children = node.children.map((child, i) => decorate(child, seed * 7 + i + 1))
      return out
    }
    fc.assert(
      fc.property(
        arbitraryTree(5),
        fc.nat(),
        fc.integer({ min: 0, max: 12 }),
        fc.constantFrom(0, 0.5, 0.7),
        (t, seed, k, min) => {
          const tree = decorate(t, seed)
          const all = Digest.make(tree, { minSalience: min }).children!
          const top = Digest.make(tree, { minSalience: min, maxNodes: k })
          assert.deepStrictEqual(top.children, all.slice(0, k))
          if (all.length > k) assert.include(top.meta!.summary!, `showing ${k} of ${all.length} salient nodes`)
        }
      ),
      { numRuns: 500 }
    )
  })

  describe("entries that share an id", () => {
    const services = (v: number, dbUrgency?: "critical") =>
      n("root", [
        n("deploy", [n("status", undefined, { meta: { salience: 1, urgency: "critical" }, properties: { v: 0 } })]),
        n("db", [n("status", undefined, { meta: { salience: 0.9, urgency: dbUrgency }, properties: { v } })]),
        n("status.extra", undefined, { meta: { salience: 0.8 } })
      ])

    it("get unique ids: the most important keeps its id, the others an id made from their path", () => {
      const digest = Digest.make(services(0))
      assert.deepStrictEqual(
        digest.children!.map((c) => [c.id, c.meta?.path]),
        [
          ["status", "/deploy/status"],
          ["db.status", "/db/status"],
          ["status.extra", "/status.extra"]
        ]
      )
      // a derived id never takes an id another entry has
      const clash = Digest.make(
        n("root", [n("a", [n("b", undefined, { salience: 0.9 })]), n("b", undefined, { salience: 0.8 })], {
          type: "root"
        })
      )
      const ids = clash.children!.map((c) => c.id)
      assert.strictEqual(new Set(ids).size, ids.length)
    })

    it("so patches between digests apply: apply(a, diff(a, b)) equals b", () => {
      const pairs: Array<[Node, Node]> = [
        [services(0), services(1)],
        [services(1), services(1, "critical")],
        [services(2, "critical"), services(3)]
      ]
      for (const [x, y] of pairs) {
        const a = Digest.make(x)
        const b = Digest.make(y)
        assert.deepStrictEqual(Patch.apply(a, Patch.diff(a, b)), b)
      }
    })

    it("property: ids under the digest root are unique and patches round-trip", () => {
      fc.assert(
        fc.property(arbitraryTree(4), arbitraryTree(4), fc.constantFrom(0, 0.5), (x, y, min) => {
          const a = Digest.make(x, { minSalience: min })
          const b = Digest.make(y, { minSalience: min })
          const ids = a.children!.map((c) => c.id)
          assert.strictEqual(new Set(ids).size, ids.length)
          assert.deepStrictEqual(Patch.apply(a, Patch.diff(a, b)), b)
        }),
        { numRuns: 300 }
      )
    })
  })

  it("path: the SLOP path of the digested subtree prefixes every entry's meta.path", () => {
    const inbox = n("inbox", [n("m1", [n("part", undefined, { salience: 0.9 })], { salience: 0.9 })])
    assert.deepStrictEqual(
      Digest.make(inbox, { path: "/mail/inbox" }).children!.map((c) => c.meta?.path),
      ["/mail/inbox/m1", "/mail/inbox/m1/part"]
    )
    assert.deepStrictEqual(
      Digest.make(inbox, { path: "/" }).children!.map((c) => c.meta?.path),
      ["/m1", "/m1/part"]
    )
  })

  describe("maxTokens uses the budget", () => {
    const budgetTree = n(
      "root",
      [
        n(
          "inbox",
          [
            n("m1", undefined, { meta: { salience: 0.9, changed: true } }),
            n("m2", undefined, { meta: { salience: 0.2, changed: true } })
          ],
          { salience: 0.3 }
        ),
        n("deploy", [n("failing", undefined, { meta: { salience: 1, urgency: "critical", changed: true } })], {
          meta: { salience: 0.4, changed: true }
        }),
        n("db", [n("down", undefined, { meta: { salience: 1, urgency: "critical", changed: true } })], {
          salience: 0.4
        }),
        n("focused", undefined, { meta: { salience: 0.8, focus: true } }),
        n("calm", undefined, { salience: 0.8 })
      ],
      { type: "root" }
    )
    // The digest with `entries`, as make would render it (summary included).
    const withEntries = (full: Node, entries: ReadonlyArray<Node>, budgeted: Node): Node => ({
      ...full,
      meta: { summary: budgeted.meta!.summary! },
      children: [...entries]
    })

    it("fits every budget, and no left-out entry would still have fitted", () => {
      const full = Digest.make(budgetTree)
      const fullTokens = TokenCounter.countO200k(Render.text(full))
      assert.strictEqual(Digest.make(budgetTree, { maxTokens: fullTokens }).children!.length, 5)
      for (let budget = 10; budget <= fullTokens + 30; budget++) {
        const digest = Digest.make(budgetTree, { maxTokens: budget })
        const shown = digest.children!
        const tokens = TokenCounter.countO200k(Render.text(digest))
        if (shown.length > 0) assert.isAtMost(tokens, budget, `budget ${budget}`)
        const kept = new Set(shown.map((c) => c.id))
        for (const candidate of full.children!) {
          if (kept.has(candidate.id)) continue
          const bigger = full.children!.filter((c) => kept.has(c.id) || c === candidate)
          const text = Render.text(withEntries(full, bigger, Digest.make(budgetTree, { maxNodes: bigger.length })))
          assert.isAbove(TokenCounter.countO200k(text), budget, `budget ${budget}: ${candidate.id} would have fitted`)
        }
      }
    })

    it("a budget that fits one entry shows it", () => {
      const one = Digest.make(budgetTree, { maxNodes: 1 })
      const budget = TokenCounter.countO200k(Render.text(one))
      const digest = Digest.make(budgetTree, { maxTokens: budget })
      assert.strictEqual(digest.children!.length, 1)
      assert.isAtMost(TokenCounter.countO200k(Render.text(digest)), budget)
    })

    it("a custom counter is used and maxNodes still caps the entries", () => {
      const chars = (text: string) => text.length
      for (const budget of [60, 120, 200, 400]) {
        const digest = Digest.make(budgetTree, { maxTokens: budget, countTokens: chars })
        if (digest.children!.length > 0) assert.isAtMost(Render.text(digest).length, budget)
      }
      assert.strictEqual(Digest.make(budgetTree, { maxTokens: 10_000, maxNodes: 2 }).children!.length, 2)
    })
  })
})
