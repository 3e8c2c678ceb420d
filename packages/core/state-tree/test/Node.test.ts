import { assert, describe, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import { Node } from "../src/index.ts"

describe("Node", () => {
  it("validateId rejects empty ids, reserved keywords and / or ~; allows user.42", () => {
    assert.include(Node.validateId("")!, "empty")
    for (const id of Node.reservedIds) assert.include(Node.validateId(id)!, "reserved")
    assert.include(Node.validateId("a/b")!, '"/" or "~"')
    assert.include(Node.validateId("a~b")!, '"/" or "~"')
    assert.strictEqual(Node.validateId("user.42"), undefined)
  })

  it.effect("decode accepts a valid tree, with children: null as a lazy subtree", () =>
    Effect.gen(function* () {
      const input = {
        id: "root",
        type: "root",
        children: [
          {
            id: "user.42",
            type: "item",
            properties: { label: "U" },
            meta: { salience: 0.9, urgency: "high", custom: 1 }
          },
          { id: "lazy", type: "collection", children: null, meta: { total_children: 100 } }
        ]
      }
      const node = yield* Node.decode(input)
      assert.strictEqual(node.children![0]!.id, "user.42")
      assert.strictEqual(node.children![0]!.meta?.custom, 1)
      assert.strictEqual(Node.totalChildrenOf(node.children![1]!), 100)
    })
  )

  it.effect("decode fails with a clear message naming the problem and where", () =>
    Effect.gen(function* () {
      const badId = yield* Effect.flip(
        Node.decode({ id: "root", type: "root", children: [{ id: "a/b", type: "item" }] })
      )
      assert.strictEqual(badId._tag, "NodeDecodeError")
      assert.include(badId.message, "must not contain")
      assert.include(badId.message, "children")
      const reserved = yield* Effect.flip(Node.decode({ id: "meta", type: "item" }))
      assert.include(reserved.message, "reserved")
      const salience = yield* Effect.flip(Node.decode({ id: "a", type: "item", meta: { salience: 3 } }))
      assert.include(salience.message, "salience")
      const missing = yield* Effect.flip(Node.decode({ id: "a" }))
      assert.include(missing.message, "type")
    })
  )

  it('find resolves / and "" to the root, nested paths, and undefined for missing ones', () => {
    const tree = {
      id: "root",
      type: "root",
      children: [{ id: "a", type: "item", children: [{ id: "b", type: "item" }] }]
    }
    assert.strictEqual(Node.find(tree, "/"), tree)
    assert.strictEqual(Node.find(tree, ""), tree)
    assert.strictEqual(Node.find(tree, "/a/b")?.id, "b")
    assert.strictEqual(Node.find(tree, "/a/x"), undefined)
    assert.strictEqual(Node.count(tree), 3)
    assert.strictEqual(Node.salienceOf(tree), 0.5)
    assert.strictEqual(Node.urgencyOf(tree), "none")
  })

  it("decodeResult gives the node, or a NodeDecodeError naming the problem, without throwing", () => {
    const bad = Node.decodeResult({ id: "", type: "item" })
    assert.include(Result.isFailure(bad) ? bad.failure.message : "", "must not be empty")
    assert.deepStrictEqual(Node.decodeResult({ id: "ok", type: "item" }), Result.succeed({ id: "ok", type: "item" }))
    // the deprecated decodeSync keeps its `{ node } | { error }` shape
    assert.deepStrictEqual(Node.decodeSync({ id: "ok", type: "item" }), { node: { id: "ok", type: "item" } })
    assert.isTrue("error" in Node.decodeSync({ id: "", type: "item" }))
  })
})
