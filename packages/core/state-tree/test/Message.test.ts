import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import { Message } from "../src/index.ts"

describe("Message", () => {
  it("decodes every consumer message", () => {
    const messages = [
      {
        type: "subscribe",
        id: "s",
        path: "/",
        depth: 2,
        max_nodes: 200,
        filter: { types: ["item"], min_salience: 0.3 }
      },
      { type: "unsubscribe", id: "s" },
      { type: "query", id: "q", path: "/inbox", depth: -1, max_nodes: 100, window: [0, 50] },
      { type: "invoke", id: "i", path: "/compose", action: "send", params: { body: "hi" } }
    ]
    for (const message of messages) {
      const decoded = Message.decodeInbound(message)
      assert.strictEqual(decoded._tag, "Success")
    }
  })

  it("an unknown type is a MessageDecodeError naming the type and carrying the id; a malformed field is named too", () => {
    const unknown = Result.flip(Message.decodeInbound({ type: "pause", id: "p" }))
    assert.isTrue(Result.isSuccess(unknown))
    const error = Result.getOrThrow(unknown)
    assert.strictEqual(error._tag, "MessageDecodeError")
    assert.strictEqual(error.id, "p")
    assert.include(error.message, '"pause"')
    const malformed = Result.flip(Message.decodeInbound({ type: "query", id: "q", window: [0] }))
    assert.include(Result.isSuccess(malformed) ? malformed.success.message : "", "window")
    assert.strictEqual(Message.decodeInbound(null)._tag, "Failure")
    assert.strictEqual(Message.decodeInbound({ type: "invoke", id: "x" })._tag, "Failure")
  })

  it("decodes every provider message, including nested batches", () => {
    const tree = { id: "root", type: "root" }
    const messages: Array<Message.Outbound> = [
      { type: "hello", provider: { id: "p", name: "P", slop_version: "0.1", capabilities: ["state"] } },
      { type: "snapshot", id: "s", version: 1, tree },
      { type: "patch", subscription: "s", version: 2, ops: [{ op: "move", path: "/a", index: 0 }] },
      { type: "result", id: "i", status: "accepted", data: { taskId: "task-1" } },
      { type: "event", name: "saved" },
      { type: "error", error: { code: "bad_request", message: "no" } }
    ]
    for (const message of messages) assert.deepStrictEqual(Message.decodeOutbound(message), Result.succeed(message))
    assert.strictEqual(Message.Error, Message.ErrorMessage)
    const batch: Message.Outbound = { type: "batch", messages }
    assert.deepStrictEqual(Message.decodeOutbound(batch), Result.succeed(batch))
    const bad = Message.decodeOutbound({ type: "snapshot", id: "s", version: 1, tree: { id: "a/b", type: "x" } })
    assert.include(Result.isFailure(bad) ? bad.failure.message : "", "a/b")
  })
})
