import { assert, describe, it } from "@effect/vitest"
import { countO200k } from "@heed/schema"
import * as fc from "fast-check"
import { Digest, Render } from "../src/index.ts"
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

  it("max_nodes caps the entries under the root and the summary says how many were left out", () => {
    const digest = Digest.make(tree, { max_nodes: 2 })
    assert.deepStrictEqual(
      digest.children!.map((c) => c.id),
      ["deploy-status", "msg-99"]
    )
    assert.include(digest.meta!.summary!, "showing 2 of 4 salient nodes")
  })

  it("min_salience selects nodes; high and critical urgency are always included", () => {
    const ids = Digest.make(tree, { min_salience: 0.95 }).children!.map((c) => c.id)
    assert.deepStrictEqual(ids, ["deploy-status", "msg-99"])
  })

  it("max_tokens bounds the rendered digest", () => {
    const big = n("root", leaves("item-with-a-long-name-", 200, 0.9))
    const digest = Digest.make(big, { max_tokens: 300 })
    assert.isAtMost(countO200k(Render.text(digest)), 300)
    assert.isAbove(digest.children!.length, 5)
  })

  it("property: the bounded top-k of max_nodes equals the first max_nodes of the fully sorted digest", () => {
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
          const all = Digest.make(tree, { min_salience: min }).children!
          const top = Digest.make(tree, { min_salience: min, max_nodes: k })
          assert.deepStrictEqual(top.children, all.slice(0, k))
          if (all.length > k) assert.include(top.meta!.summary!, `showing ${k} of ${all.length} salient nodes`)
        }
      ),
      { numRuns: 500 }
    )
  })
})
