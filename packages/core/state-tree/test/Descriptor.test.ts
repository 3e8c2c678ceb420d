import { assert, describe, it } from "@effect/vitest"
import { Descriptor } from "../src/index.ts"

describe("Descriptor.toNode", () => {
  it("summary maps to meta.summary and wins over meta.summary; an empty string gives no summary", () => {
    assert.strictEqual(Descriptor.toNode("a", { type: "view", summary: "3 open" }).meta?.summary, "3 open")
    assert.strictEqual(
      Descriptor.toNode("a", { type: "view", summary: "field", meta: { summary: "meta" } }).meta?.summary,
      "field"
    )
    assert.strictEqual(Descriptor.toNode("a", { type: "view", summary: "", meta: { summary: "meta" } }).meta, undefined)
  })

  it("window sets total_children and window [offset, items.length], and wins over items", () => {
    const node = Descriptor.toNode("inbox", {
      type: "collection",
      items: [{ id: "ignored", type: "item" }],
      window: {
        items: [
          { id: "m20", type: "item" },
          { id: "m21", type: "item" }
        ],
        total: 1000,
        offset: 20
      }
    })
    assert.deepStrictEqual(
      node.children!.map((c) => c.id),
      ["m20", "m21"]
    )
    assert.deepStrictEqual(node.meta, { total_children: 1000, window: [20, 2] })
    const empty = Descriptor.toNode("inbox", { type: "collection", window: { items: [], total: 0, offset: 0 } })
    assert.isFalse("children" in empty)
  })

  it("contentRef becomes content_ref with slop://content/{path}, keeps an explicit uri, and stays out of properties", () => {
    const ref = { type: "text", mime: "text/markdown", summary: "Readme" } as const
    const node = Descriptor.toNode(
      "readme",
      { type: "document", props: { title: "Readme" }, contentRef: ref },
      "/docs/readme"
    )
    assert.strictEqual(node.content_ref?.uri, "slop://content/docs/readme")
    assert.deepStrictEqual(node.properties, { title: "Readme" })
    const explicit = Descriptor.toNode("r", { type: "document", contentRef: { ...ref, uri: "https://x/r" } })
    assert.strictEqual(explicit.content_ref?.uri, "https://x/r")
  })

  it("actions become affordances; the params shorthand makes every listed param required", () => {
    const node = Descriptor.toNode("compose", {
      type: "form",
      actions: {
        send: { label: "Send", params: { to: "string", body: "string" }, dangerous: true },
        attach: { params: { type: "object", properties: { file: { type: "string" } } } }
      },
      children: { draft: { type: "field", props: { value: "" } } }
    })
    assert.deepStrictEqual(node.affordances![0], {
      action: "send",
      label: "Send",
      params: {
        type: "object",
        properties: { to: { type: "string" }, body: { type: "string" } },
        required: ["to", "body"]
      },
      dangerous: true
    })
    assert.deepStrictEqual(node.affordances![1]!.params, { type: "object", properties: { file: { type: "string" } } })
    assert.strictEqual(node.children![0]!.id, "draft")
  })
})
