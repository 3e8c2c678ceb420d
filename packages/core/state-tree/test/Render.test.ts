import { assert, describe, it } from "@effect/vitest"
import { Render } from "../src/index.ts"
import { leaves, n } from "./fixtures.ts"

describe("Render.text", () => {
  it("header: [type] id, and : Label when the label differs from the id", () => {
    assert.strictEqual(Render.text(n("root", undefined, { type: "root" })), "[root] root")
    assert.strictEqual(Render.line(n("a", undefined, { properties: { label: "Alpha" } })), "[item] a: Alpha")
    assert.strictEqual(Render.line(n("a", undefined, { properties: { title: "Alpha" } })), "[item] a: Alpha")
    assert.strictEqual(Render.line(n("a", undefined, { properties: { label: "a" } })), "[item] a")
  })

  it("extra properties as (k=JSON, …)", () => {
    assert.strictEqual(
      Render.line(n("m", undefined, { properties: { label: "Mail", unread: true, from: "boss", n: 3 } })),
      '[item] m: Mail (unread=true, from="boss", n=3)'
    )
  })

  it("summary with an em dash and salience rounded to 2 decimals", () => {
    assert.strictEqual(
      Render.line(n("s", undefined, { meta: { summary: "5 unread", salience: 0.8567 } })),
      '[item] s  — "5 unread"  salience=0.86'
    )
  })

  it("inline actions with param types", () => {
    const node = n("c", undefined, {
      affordances: [
        {
          action: "reply",
          params: { type: "object", properties: { body: { type: "string" }, cc: { type: "array" } } }
        },
        { action: "archive" }
      ]
    })
    assert.strictEqual(Render.line(node), "[item] c  actions: {reply(body: string, cc: array), archive}")
  })

  it("(showing N of M) for a window, right after the node's line, and (N children not loaded) when nothing is inline", () => {
    const windowed = n("list", leaves("i", 2), { meta: { window: [0, 2], total_children: 10 } })
    assert.strictEqual(Render.text(windowed), "[item] list\n  (showing 2 of 10)\n  [item] i0\n  [item] i1")
    assert.strictEqual(
      Render.text(n("lazy", undefined, { meta: { total_children: 7 } })),
      "[item] lazy\n  (7 children not loaded)"
    )
    assert.strictEqual(
      Render.text(n("lazy", undefined, { meta: { total_children: 1 } })),
      "[item] lazy\n  (1 child not loaded)"
    )
  })

  it("indents two spaces per level", () => {
    const tree = n("root", [n("a", [n("b")])], { type: "root" })
    assert.strictEqual(Render.text(tree), "[root] root\n  [item] a\n    [item] b")
  })

  it("heed adds attention flags, reason, digest paths and hidden counts", () => {
    const node = n("d", undefined, {
      meta: { pinned: true, focus: true, changed: true, urgency: "critical", reason: "deploy failing", path: "/ops/d" }
    })
    assert.strictEqual(
      Render.line(node),
      '[item] d  [pinned, focus, changed, CRITICAL]  reason: "deploy failing"  path=/ops/d'
    )
    const filtered = n("p", [n("x")], { meta: { total_children: 3, filtered: 2 } })
    assert.strictEqual(Render.text(filtered), "[item] p\n  (2 hidden by filter)\n  [item] x")
  })

  it("the spec's canonical Pet Store example, line for line: incomplete-children lines come before the children", () => {
    // spec/core/state-tree.md "Consumer display format"
    const store = n(
      "store",
      [
        n(
          "catalog",
          [
            n("prod-1", undefined, {
              properties: { label: "Rubber Duck", price: 4.99, in_stock: true },
              affordances: [
                { action: "add_to_cart", params: { type: "object", properties: { quantity: { type: "number" } } } },
                { action: "view" }
              ]
            })
          ],
          {
            type: "collection",
            properties: { label: "Catalog", count: 142 },
            meta: { total_children: 142, window: [0, 25], summary: "142 products, 12 on sale" }
          }
        ),
        n("cart", undefined, {
          type: "collection",
          properties: { label: "Cart" },
          meta: { total_children: 3, summary: "3 items, $24.97" }
        })
      ],
      {
        type: "root",
        properties: { label: "Pet Store" },
        meta: { salience: 0.9 },
        affordances: [{ action: "search", params: { type: "object", properties: { query: { type: "string" } } } }]
      }
    )
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

  it("a windowed, filtered list prints both extra lines before its children", () => {
    const list = n("p", [n("x"), n("y")], { meta: { total_children: 9, filtered: 3, window: [0, 2] } })
    assert.strictEqual(
      Render.text(n("root", [list], { type: "root" })),
      "[root] root\n  [item] p\n    (showing 2 of 9)\n    (3 hidden by filter)\n    [item] x\n    [item] y"
    )
  })
})
