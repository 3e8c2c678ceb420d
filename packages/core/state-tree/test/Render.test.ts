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

  it("(showing N of M) for a window and (N children not loaded) when nothing is inline", () => {
    const windowed = n("list", leaves("i", 2), { meta: { window: [0, 2], total_children: 10 } })
    assert.strictEqual(Render.text(windowed), "[item] list\n  [item] i0\n  [item] i1\n  (showing 2 of 10)")
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
    assert.strictEqual(Render.text(filtered), "[item] p\n  [item] x\n  (2 hidden by filter)")
  })
})
