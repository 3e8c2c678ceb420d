import { assert, describe, it } from "@effect/vitest"
import { type Cause, Effect, Fiber, Queue, Stream } from "effect"
import type { Message } from "../src/index.ts"
import { Consumer, Node, Patch, Provider } from "../src/index.ts"
import { n } from "./fixtures.ts"

const settle = Effect.forEach(Array.from({ length: 20 }), () => Effect.yieldNow, { discard: true })

describe("Consumer.mirror", () => {
  const base = n("root", [n("a", undefined, { properties: { v: 0 } })])
  const next = n("root", [n("a", undefined, { properties: { v: 1 } }), n("b")])

  it("applies a snapshot then consecutive patches, and unwraps batches in order", () => {
    const mirror = Consumer.mirror()
    assert.strictEqual(mirror.apply({ type: "snapshot", id: "s", version: 1, tree: base }), "applied")
    const patch: Message.Patch = { type: "patch", subscription: "s", version: 2, ops: Patch.diff(base, next) }
    assert.strictEqual(mirror.apply({ type: "batch", messages: [patch] }), "applied")
    assert.deepStrictEqual(mirror.tree("s"), next)
    assert.strictEqual(mirror.version("s"), 2)
  })

  it("detects a version gap and keeps the last good tree", () => {
    const mirror = Consumer.mirror()
    mirror.apply({ type: "snapshot", id: "s", version: 1, tree: base })
    const outcome = mirror.apply({ type: "patch", subscription: "s", version: 3, ops: Patch.diff(base, next) })
    assert.strictEqual(outcome, "gap")
    assert.deepStrictEqual(mirror.tree("s"), base)
  })

  it("a patch that does not fit is a gap; unknown subscriptions are ignored", () => {
    const mirror = Consumer.mirror()
    mirror.apply({ type: "snapshot", id: "s", version: 1, tree: base })
    assert.strictEqual(
      mirror.apply({ type: "patch", subscription: "s", version: 2, ops: [{ op: "remove", path: "/zzz" }] }),
      "gap"
    )
    assert.strictEqual(mirror.apply({ type: "patch", subscription: "other", version: 2, ops: [] }), "ignored")
  })
})

describe("Consumer.make", () => {
  it.effect("the mirror stays in sync with a provider through patches; query and invoke round trip", () =>
    Effect.gen(function* () {
      const provider = yield* Provider.make({ coalesce_ms: 0 })
      const tree = (count: number) =>
        n("root", [n("counter", undefined, { properties: { count }, affordances: [{ action: "increment" }] })])
      let count = 0
      yield* provider.setTree(tree(0))
      yield* provider.handle("/counter", "increment", () => provider.setTree(tree(++count)))
      const consumer = yield* Consumer.make(yield* provider.connect())
      const hello = yield* consumer.hello
      assert.strictEqual(hello.provider.slop_version, "0.1")
      const id = yield* consumer.subscribe({ path: "/" })
      const result = yield* consumer.invoke("/counter", "increment")
      assert.strictEqual(result.status, "ok")
      yield* consumer.invoke("/counter", "increment")
      yield* settle
      assert.deepStrictEqual(yield* consumer.tree(id), yield* provider.tree)
      assert.strictEqual(Node.find((yield* consumer.tree(id))!, "/counter")?.properties?.count, 2)
      const queried = yield* consumer.query({ path: "/counter" })
      assert.strictEqual(queried.id, "counter")
      const failure = yield* Effect.flip(consumer.query({ path: "/missing" }))
      assert.strictEqual(failure.code, "not_found")
      const invokeFailure = yield* Effect.flip(consumer.invoke("/counter", "nope"))
      assert.strictEqual(invokeFailure.code, "not_found")
    })
  )

  it.effect("a version gap makes the consumer resubscribe and resync", () =>
    Effect.gen(function* () {
      const provider = yield* Provider.make({ coalesce_ms: 0 })
      yield* provider.setTree(n("root", [n("a", undefined, { properties: { v: 0 } })]))
      const connection = yield* provider.connect()
      // drop the first patch on the way, as a lossy transport would
      let dropped = false
      const lossy = Stream.filter(connection.messages, (m) => {
        if (m.type === "patch" && !dropped) {
          dropped = true
          return false
        }
        return true
      })
      const consumer = yield* Consumer.make({ send: connection.send, messages: lossy })
      const id = yield* consumer.subscribe()
      for (let v = 1; v <= 3; v++) {
        yield* provider.setTree(n("root", [n("a", undefined, { properties: { v } })]))
        yield* settle
      }
      assert.strictEqual(yield* consumer.resubscriptions, 1)
      assert.strictEqual(Node.find((yield* consumer.tree(id))!, "/a")?.properties?.v, 3)
    })
  )
})

describe("Consumer: resubscribing", () => {
  it.effect("several out-of-order patches before the fresh snapshot cause one resubscribe, not one each", () =>
    Effect.gen(function* () {
      const inbound = yield* Queue.unbounded<Message.Outbound, Cause.Done>()
      const sent: Array<{ readonly type?: unknown }> = []
      const consumer = yield* Consumer.make({
        send: (message) => Effect.sync(() => void sent.push(message as { readonly type?: unknown })),
        messages: Stream.fromQueue(inbound)
      })
      const resubscribes = () => sent.filter((m) => m.type === "subscribe").length
      const tree = n("root", [n("a", undefined, { properties: { v: 0 } })])
      const patch = (version: number, v: number): Message.Outbound => ({
        type: "patch",
        subscription: "s",
        version,
        ops: [{ op: "replace", path: "/a/properties/v", value: v }]
      })
      const subscribed = yield* Effect.forkScoped(consumer.subscribe({ id: "s" }))
      yield* settle
      Queue.offerUnsafe(inbound, { type: "snapshot", id: "s", version: 1, tree })
      assert.strictEqual(yield* Fiber.join(subscribed), "s")
      assert.strictEqual(resubscribes(), 1)
      // v2 was lost: v3, v4, v5 all show the gap, but one resubscribe is enough
      Queue.offerAllUnsafe(inbound, [patch(3, 3), patch(4, 4), patch(5, 5)])
      yield* settle
      assert.strictEqual(resubscribes(), 2)
      assert.strictEqual(yield* consumer.resubscriptions, 1)
      // the fresh snapshot ends the resync; a later gap resubscribes again
      Queue.offerAllUnsafe(inbound, [
        { type: "snapshot", id: "s", version: 1, tree: n("root", [n("a", undefined, { properties: { v: 5 } })]) },
        patch(2, 6)
      ])
      yield* settle
      assert.strictEqual(Node.find((yield* consumer.tree("s"))!, "/a")?.properties?.v, 6)
      Queue.offerAllUnsafe(inbound, [patch(4, 8), patch(5, 9)])
      yield* settle
      assert.strictEqual(resubscribes(), 3)
      assert.strictEqual(yield* consumer.resubscriptions, 2)
    })
  )
})

describe("Consumer.tools", () => {
  const tree = n("root", [
    n("inbox", [
      n("msg-1", undefined, {
        affordances: [
          { action: "archive", dangerous: true },
          { action: "reply", params: { type: "object", properties: { body: { type: "string" } } } }
        ]
      }),
      n("msg-2", undefined, { affordances: [{ action: "archive" }] })
    ]),
    n("drafts", [
      n("d-1", undefined, {
        affordances: [{ action: "reply", params: { type: "object", properties: { text: { type: "string" } } } }]
      })
    ]),
    n("compose", undefined, { affordances: [{ action: "send", label: "Send mail" }] })
  ])

  it("singletons are named {nodeId}__{action}, sanitised, and resolve to their path", () => {
    const set = Consumer.tools(tree)
    const send = set.tools.find((t) => t.name === "compose__send")!
    assert.isDefined(send)
    assert.include(send.description, "Send mail")
    assert.deepStrictEqual(set.resolve("compose__send"), { path: "/compose", action: "send" })
    const odd = Consumer.tools(n("root", [n("user.42", undefined, { affordances: [{ action: "do-it" }] })]))
    assert.strictEqual(odd.tools[0]!.name, "user_42__do_it")
  })

  it("same action and schema on several nodes → one grouped tool with a required target; dangerous propagates", () => {
    const set = Consumer.tools(tree)
    const archive = set.tools.find((t) => t.name === "archive")!
    assert.isTrue(archive.dangerous)
    assert.isTrue(archive.description.endsWith(" [DANGEROUS - confirm first]"))
    assert.deepStrictEqual(archive.inputSchema.required, ["target"])
    assert.deepStrictEqual(set.resolve("archive"), {
      path: null,
      action: "archive",
      targets: ["/inbox/msg-1", "/inbox/msg-2"]
    })
  })

  it("the same action with different schemas gives separate tools; grouping works across parents", () => {
    const set = Consumer.tools(tree)
    assert.isDefined(set.tools.find((t) => t.name === "msg_1__reply"))
    assert.isDefined(set.tools.find((t) => t.name === "d_1__reply"))
    const across = Consumer.tools(
      n("root", [
        n("a", [n("x", undefined, { affordances: [{ action: "open" }] })]),
        n("b", [n("y", undefined, { affordances: [{ action: "open" }] })]),
        n("c", [
          n("z", undefined, { affordances: [{ action: "open", params: { type: "object" } }] }),
          n("w", undefined, { affordances: [{ action: "open", params: { type: "object" } }] })
        ])
      ])
    )
    assert.deepStrictEqual(
      across.tools.map((t) => t.name),
      ["open", "open__z"]
    )
  })

  it("name collisions prepend ancestor ids; a provider prefix; long names are cut with a hash", () => {
    const clash = Consumer.tools(
      n("root", [
        n("a", [
          n("item", undefined, { affordances: [{ action: "edit", params: { type: "object", properties: { x: {} } } }] })
        ]),
        n("b", [n("item", undefined, { affordances: [{ action: "edit" }] })])
      ])
    )
    assert.deepStrictEqual(clash.tools.map((t) => t.name).sort(), ["a__item__edit", "b__item__edit"])
    assert.strictEqual(
      Consumer.tools(tree, { provider: "mail" }).tools.find((t) => t.name.endsWith("compose__send"))?.name,
      "mail__compose__send"
    )
    const long = Consumer.tools(n("root", [n("x".repeat(80), undefined, { affordances: [{ action: "go" }] })]))
      .tools[0]!
    assert.strictEqual(long.name.length, 64)
    assert.match(long.name, /^x{56}_[0-9a-f]{7}$/)
  })
})

describe("Consumer: events", () => {
  it.effect("keeps the most recent maxEvents events, oldest dropped first, however many arrive", () =>
    Effect.gen(function* () {
      const inbound = yield* Queue.unbounded<Message.Outbound, Cause.Done>()
      const consumer = yield* Consumer.make(
        { send: () => Effect.void, messages: Stream.fromQueue(inbound) },
        { maxEvents: 3 }
      )
      const event = (i: number): Message.Outbound => ({ type: "event", name: `e${i}`, data: { i } })
      Queue.offerUnsafe(inbound, event(1))
      yield* settle
      assert.deepStrictEqual(
        (yield* consumer.events).map((e) => e.name),
        ["e1"]
      )
      Queue.offerAllUnsafe(
        inbound,
        Array.from({ length: 10 }, (_, i) => event(i + 2))
      )
      // events inside a batch count too
      Queue.offerUnsafe(inbound, { type: "batch", messages: [event(12), event(13)] })
      yield* settle
      assert.deepStrictEqual(
        (yield* consumer.events).map((e) => e.name),
        ["e11", "e12", "e13"]
      )
    })
  )

  it.effect("keeps 1,000 events by default and for a NaN maxEvents; maxEvents 0 keeps none", () =>
    Effect.gen(function* () {
      const inbound = yield* Queue.unbounded<Message.Outbound, Cause.Done>()
      const none = yield* Queue.unbounded<Message.Outbound, Cause.Done>()
      const consumer = yield* Consumer.make({ send: () => Effect.void, messages: Stream.fromQueue(inbound) })
      const silent = yield* Consumer.make(
        { send: () => Effect.void, messages: Stream.fromQueue(none) },
        { maxEvents: 0 }
      )
      const nan = yield* Queue.unbounded<Message.Outbound, Cause.Done>()
      const defaulted = yield* Consumer.make(
        { send: () => Effect.void, messages: Stream.fromQueue(nan) },
        { maxEvents: Number.NaN }
      )
      const events = Array.from({ length: 2500 }, (_, i): Message.Outbound => ({ type: "event", name: `e${i}` }))
      Queue.offerAllUnsafe(inbound, events)
      Queue.offerAllUnsafe(none, events)
      Queue.offerAllUnsafe(nan, events)
      yield* settle
      const kept = yield* consumer.events
      assert.strictEqual(kept.length, 1000)
      assert.deepStrictEqual([kept[0]?.name, kept[999]?.name], ["e1500", "e2499"])
      assert.deepStrictEqual(yield* silent.events, [])
      assert.strictEqual((yield* defaulted.events).length, 1000)
    })
  )
})
