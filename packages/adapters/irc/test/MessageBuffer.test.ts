import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as MessageBuffer from "../src/MessageBuffer.ts"

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

  it.effect("since() returns at most 50 messages however many are asked for, oldest first after the cursor", () =>
    Effect.gen(function* () {
      const buffer = MessageBuffer.make()
      for (let i = 1; i <= 600; i++) yield* buffer.append(message("#a", `m${i}`))
      const page = yield* buffer.since("#a", 0, 1000)
      assert.strictEqual(page.messages.length, 50)
      assert.strictEqual(page.messages[0]!.text, "m101")
      assert.strictEqual(page.messages[49]!.text, "m150")
      assert.strictEqual(page.skipped, 100)
      assert.strictEqual((yield* buffer.since("#a", 0)).messages.length, 50)
      // a configured read limit caps since() too
      const small = MessageBuffer.make({ readLimit: 3 })
      for (let i = 1; i <= 10; i++) yield* small.append(message("#a", `s${i}`))
      assert.deepStrictEqual(
        (yield* small.since("#a", 0, 8)).messages.map((m) => m.text),
        ["s1", "s2", "s3"]
      )
      // since() only looks: the messages stay unread
      assert.strictEqual(yield* buffer.unread("#a"), 500)
    })
  )

  it.effect("claimed messages stay out of later reads; a release returns them, an ack settles them for good", () =>
    Effect.gen(function* () {
      const buffer = MessageBuffer.make()
      for (const text of ["one", "two"]) yield* buffer.append(message("#a", text))
      const claimed = yield* buffer.claim("#a")
      const seqs = claimed.messages.map((m) => m.seq)
      assert.deepStrictEqual(
        claimed.messages.map((m) => m.text),
        ["one", "two"]
      )
      yield* buffer.append(message("#a", "three"))
      // While the claim stands, only the newer message is unread.
      assert.strictEqual(yield* buffer.unread("#a"), 1)
      assert.deepStrictEqual(
        (yield* buffer.claim("#a")).messages.map((m) => m.text),
        ["three"]
      )
      // The first delivery failed: its messages come back; the second succeeded: its message is gone.
      yield* buffer.release("#a", seqs)
      yield* buffer.ack("#a", [3])
      assert.deepStrictEqual(
        (yield* buffer.read("#a")).messages.map((m) => m.text),
        ["one", "two"]
      )
      assert.strictEqual(yield* buffer.unread("#a"), 0)
      assert.deepStrictEqual((yield* buffer.read("#a")).messages, [])
    })
  )

  it.effect("a claim of given messages takes only those still unread, and acks move the cursor in order", () =>
    Effect.gen(function* () {
      const buffer = MessageBuffer.make()
      for (const text of ["one", "two", "three"]) yield* buffer.append(message("#a", text))
      const mention = yield* buffer.claim("#a", [2, 2, 9])
      assert.deepStrictEqual(
        mention.messages.map((m) => m.text),
        ["two"]
      )
      assert.deepStrictEqual((yield* buffer.claim("#a", [2])).messages, [])
      const rest = yield* buffer.claim("#a")
      assert.deepStrictEqual(
        rest.messages.map((m) => m.text),
        ["one", "three"]
      )
      // Settling 1 and 3 leaves the cursor at 1 until 2 is settled too.
      yield* buffer.ack("#a", [1, 3])
      assert.strictEqual((yield* buffer.claim("#a")).cursor, 1)
      yield* buffer.ack("#a", [2])
      assert.strictEqual((yield* buffer.claim("#a")).cursor, 3)
    })
  )

  // `read_limit` is the deprecated spelling of `readLimit`: both must cap a read.
  for (const options of [{ readLimit: 2 }, { read_limit: 2 }, { readLimit: 2, read_limit: 5 }]) {
    it.effect(`a read returns the newest ${JSON.stringify(options)} messages and skips the older ones`, () =>
      Effect.gen(function* () {
        const buffer = MessageBuffer.make(options)
        for (const text of ["one", "two", "three", "four"]) yield* buffer.append(message("#a", text))
        const read = yield* buffer.read("#a")
        assert.deepStrictEqual(
          read.messages.map((m) => m.text),
          ["three", "four"]
        )
        assert.strictEqual(read.skipped, 2)
      })
    )
  }

  it.effect("forget drops a target", () =>
    Effect.gen(function* () {
      const buffer = MessageBuffer.make({ capacity: 3 })
      yield* buffer.append(message("#a", "x"))
      assert.isTrue(yield* buffer.forget("#a"))
      assert.deepStrictEqual(yield* buffer.targets, [])
    })
  )

  it.effect("the cursor a read reports is the newest seq taken, or the settled cursor when nothing is new", () =>
    Effect.gen(function* () {
      const buffer = MessageBuffer.make()
      for (const text of ["one", "two", "three"]) yield* buffer.append(message("#a", text))
      assert.strictEqual((yield* buffer.read("#a")).cursor, 3)
      assert.deepStrictEqual(yield* buffer.read("#a"), { messages: [], cursor: 3, skipped: 0 })
      for (const text of ["four", "five", "six"]) yield* buffer.append(message("#a", text))
      const claimed = yield* buffer.claim("#a", [6, 4, 5, 4])
      assert.deepStrictEqual(
        claimed.messages.map((m) => m.seq),
        [4, 5, 6]
      )
      assert.strictEqual(claimed.cursor, 6)
      yield* buffer.ack("#a", [4, 5, 6])
      assert.deepStrictEqual(yield* buffer.read("#a"), { messages: [], cursor: 6, skipped: 0 })
    })
  )

  it.effect("a claim of given messages ignores ones already settled or not yet written", () =>
    Effect.gen(function* () {
      const buffer = MessageBuffer.make()
      for (const text of ["one", "two", "three"]) yield* buffer.append(message("#a", text))
      yield* buffer.read("#a")
      yield* buffer.append(message("#a", "four"))
      assert.deepStrictEqual((yield* buffer.claim("#a", [0, 1, 3, 5])).messages, [])
      assert.deepStrictEqual(
        (yield* buffer.claim("#a", [3, 4])).messages.map((m) => m.text),
        ["four"]
      )
    })
  )

  it.effect("acks outside the unread range change nothing; an out-of-order ack counts once in unread", () =>
    Effect.gen(function* () {
      const buffer = MessageBuffer.make()
      for (const text of ["one", "two"]) yield* buffer.append(message("#a", text))
      yield* buffer.read("#a")
      yield* buffer.append(message("#a", "three"))
      yield* buffer.ack("#a", [0, 2, 99])
      assert.strictEqual(yield* buffer.unread("#a"), 1)
      for (const text of ["four", "five"]) yield* buffer.append(message("#a", text))
      yield* buffer.claim("#a", [5])
      yield* buffer.ack("#a", [5])
      assert.strictEqual(yield* buffer.unread("#a"), 2)
      assert.deepStrictEqual(
        (yield* buffer.read("#a")).messages.map((m) => m.text),
        ["three", "four"]
      )
    })
  )

  it.effect("overwriting only counts unsettled messages as skipped, and frees the claims on them", () =>
    Effect.gen(function* () {
      const settled = MessageBuffer.make({ capacity: 3 })
      for (const text of ["1", "2", "3"]) yield* settled.append(message("#a", text))
      yield* settled.read("#a")
      for (const text of ["4", "5", "6"]) yield* settled.append(message("#a", text))
      assert.deepStrictEqual(yield* settled.read("#a"), {
        messages: ["4", "5", "6"].map((text, i) => ({ ...message("#a", text), seq: 4 + i })),
        cursor: 6,
        skipped: 0
      })
      const claimed = MessageBuffer.make({ capacity: 2 })
      for (const text of ["1", "2"]) yield* claimed.append(message("#a", text))
      yield* claimed.claim("#a")
      for (const text of ["3", "4"]) yield* claimed.append(message("#a", text))
      assert.strictEqual(yield* claimed.unread("#a"), 2)
      const read = yield* claimed.read("#a")
      assert.deepStrictEqual([read.messages.map((m) => m.text), read.skipped], [["3", "4"], 2])
    })
  )

  it.effect("an out-of-order ack is folded into the cursor when the messages before it are overwritten", () =>
    Effect.gen(function* () {
      const buffer = MessageBuffer.make({ capacity: 3 })
      for (const text of ["1", "2", "3"]) yield* buffer.append(message("#a", text))
      yield* buffer.claim("#a", [2, 3])
      yield* buffer.ack("#a", [2, 3])
      yield* buffer.append(message("#a", "4"))
      yield* buffer.claim("#a", [4])
      assert.deepStrictEqual(yield* buffer.read("#a"), { messages: [], cursor: 3, skipped: 1 })
    })
  )

  it.effect("since() pages after the cursor: the next messages, the new cursor, nothing skipped", () =>
    Effect.gen(function* () {
      const buffer = MessageBuffer.make()
      for (let i = 1; i <= 10; i++) yield* buffer.append(message("#a", `m${i}`))
      const page = yield* buffer.since("#a", 5, 2)
      assert.deepStrictEqual([page.messages.map((m) => m.text), page.cursor, page.skipped], [["m6", "m7"], 7, 0])
      assert.deepStrictEqual(yield* buffer.since("#a", 10, 5), { messages: [], cursor: 10, skipped: 0 })
      assert.deepStrictEqual(yield* buffer.since("#b", 4), { messages: [], cursor: 4, skipped: 0 })
    })
  )

  it.effect("targets lists every target with messages; the layer provides a buffer", () =>
    Effect.gen(function* () {
      const buffer = yield* MessageBuffer.MessageBuffer
      yield* buffer.append(message("#a", "x"))
      yield* buffer.append(message("#b", "y"))
      assert.deepStrictEqual(yield* buffer.targets, ["#a", "#b"])
    }).pipe(Effect.provide(MessageBuffer.layer({ capacity: 3 })))
  )
})
