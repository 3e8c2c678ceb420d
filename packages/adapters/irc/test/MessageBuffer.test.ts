import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { MessageBuffer } from "../src/MessageBuffer.ts"

const message = (target: string, text: string) => ({
  target,
  sender: "alice",
  text,
  mention: false,
  thread: undefined,
  at: 0
})

describe("MessageBuffer", () => {
  it.effect("a read returns only unread messages and moves the cursor", () =>
    Effect.gen(function* () {
      const buffer = MessageBuffer.make()
      yield* buffer.append(message("#a", "one"))
      yield* buffer.append(message("#b", "other"))
      yield* buffer.append(message("#a", "two"))
      const first = yield* buffer.read("#a")
      assert.deepStrictEqual(
        first.messages.map((m) => m.text),
        ["one", "two"]
      )
      assert.strictEqual(first.cursor, 2)
      assert.deepStrictEqual((yield* buffer.read("#a")).messages, [])
      yield* buffer.append(message("#a", "three"))
      assert.deepStrictEqual(
        (yield* buffer.read("#a")).messages.map((m) => m.text),
        ["three"]
      )
    })
  )

  it.effect("the ring keeps the last 500 and a read returns at most 50, the newest, reporting the skipped", () =>
    Effect.gen(function* () {
      const buffer = MessageBuffer.make()
      for (let i = 1; i <= 600; i++) yield* buffer.append(message("#a", `m${i}`))
      assert.strictEqual(yield* buffer.unread("#a"), 500)
      const early = yield* buffer.since("#a", 0, 10)
      assert.strictEqual(early.messages[0]!.text, "m101")
      assert.strictEqual(early.skipped, 100)
      const read = yield* buffer.read("#a")
      assert.strictEqual(read.messages.length, 50)
      assert.strictEqual(read.messages[0]!.text, "m551")
      assert.strictEqual(read.messages[49]!.text, "m600")
      assert.strictEqual(read.skipped, 550)
      assert.strictEqual(yield* buffer.unread("#a"), 0)
    })
  )

  it.effect("forget drops a target", () =>
    Effect.gen(function* () {
      const buffer = MessageBuffer.make({ capacity: 3 })
      yield* buffer.append(message("#a", "x"))
      assert.isTrue(yield* buffer.forget("#a"))
      assert.deepStrictEqual(yield* buffer.targets, [])
    })
  )
})
