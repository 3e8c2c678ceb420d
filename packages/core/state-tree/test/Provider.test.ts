import { assert, describe, it } from "@effect/vitest"
import { Effect, Result, Stream } from "effect"
import { TestClock } from "effect/testing"
import { Consumer, Message, Node, Provider } from "../src/index.ts"
import type { Node as NodeT } from "../src/Node.ts"
import { leaves, n } from "./fixtures.ts"

const settle = Effect.forEach(Array.from({ length: 20 }), () => Effect.yieldNow, { discard: true })

/** Connects and collects every outbound message into an array, in a background fiber. */
const open = (provider: Provider.Provider) =>
  Effect.gen(function* () {
    const connection = yield* provider.connect()
    const inbox: Array<Message.Outbound> = []
    yield* Effect.forkScoped(Stream.runForEach(connection.messages, (m) => Effect.sync(() => inbox.push(m))))
    yield* settle
    const send = (message: unknown) => connection.send(message).pipe(Effect.andThen(settle))
    return { connection, inbox, send }
  })

const editor = (dirty: boolean, extra: ReadonlyArray<NodeT> = []) =>
  n("root", [n("editor", [n("file", undefined, { properties: { name: "a.ts", dirty } }), ...extra])], { type: "root" })

const ofType = <T extends Message.Outbound["type"]>(inbox: ReadonlyArray<Message.Outbound>, type: T) =>
  inbox.filter((m): m is Extract<Message.Outbound, { type: T }> => m.type === type)

describe("Provider: subscriptions", () => {
  it.effect("hello first; subscribe → snapshot v1; changes → patches v2, v3 with id paths", () =>
    Effect.gen(function* () {
      const provider = yield* Provider.make({ coalesce_ms: 0, id: "app" })
      yield* provider.setTree(editor(false))
      const { inbox, send } = yield* open(provider)
      assert.deepStrictEqual(inbox[0], {
        type: "hello",
        provider: { id: "app", name: "app", slop_version: "0.1", capabilities: Provider.capabilities }
      })
      yield* send({ type: "subscribe", id: "sub-1", path: "/", depth: -1, patch_format: "compact" })
      const snapshot = inbox[1] as Message.Snapshot
      assert.strictEqual(snapshot.type, "snapshot")
      assert.strictEqual(snapshot.version, 1)
      yield* provider.setTree(editor(true))
      yield* settle
      const [first] = ofType(inbox, "patch")
      assert.strictEqual(first!.version, 2)
      assert.deepStrictEqual(
        first!.ops.find((op) => op.path === "/editor/file/properties/dirty"),
        {
          op: "replace",
          path: "/editor/file/properties/dirty",
          value: true
        }
      )
      yield* provider.setTree(editor(true, [n("tab")]))
      yield* settle
      const second = ofType(inbox, "patch")[1]!
      assert.strictEqual(second.version, 3)
      assert.isTrue(second.ops.some((op) => op.op === "add" && op.path === "/editor/tab"))
      yield* provider.setTree(editor(true))
      yield* settle
      const third = ofType(inbox, "patch")[2]!
      assert.isTrue(third.ops.some((op) => op.op === "remove" && op.path === "/editor/tab"))
      // everything sent is a valid SLOP message
      for (const message of inbox)
        assert.isTrue(Result.isSuccess(Message.decodeOutbound(message)), JSON.stringify(message))
    })
  )

  it.effect("no patch when the state does not change", () =>
    Effect.gen(function* () {
      const provider = yield* Provider.make({ coalesce_ms: 0 })
      yield* provider.setTree(editor(false))
      const { inbox, send } = yield* open(provider)
      yield* send({ type: "subscribe", id: "s", path: "/" })
      yield* provider.setTree(editor(false))
      yield* settle
      assert.strictEqual(ofType(inbox, "patch").length, 0)
      assert.strictEqual(yield* provider.version, 1)
    })
  )

  it.effect("heed differs: versions are per subscription, consecutive, no gaps", () =>
    Effect.gen(function* () {
      const tree = (a: number, b: number) =>
        n("root", [n("a", undefined, { properties: { v: a } }), n("b", undefined, { properties: { v: b } })])
      const provider = yield* Provider.make({ coalesce_ms: 0 })
      yield* provider.setTree(tree(0, 0))
      const { inbox, send } = yield* open(provider)
      yield* send({ type: "subscribe", id: "only-a", path: "/a" })
      yield* send({ type: "subscribe", id: "only-b", path: "/b" })
      yield* provider.setTree(tree(1, 0))
      yield* provider.setTree(tree(1, 1))
      yield* provider.setTree(tree(2, 1))
      yield* settle
      const versions = (id: string) =>
        ofType(inbox, "patch")
          .filter((p) => p.subscription === id)
          .map((p) => p.version)
      // a: changed, its stamp cleared, changed again; b: changed, then its stamp cleared
      assert.deepStrictEqual(versions("only-a"), [2, 3, 4])
      assert.deepStrictEqual(versions("only-b"), [2, 3])
      assert.strictEqual(yield* provider.version, 4)
    })
  )

  it.effect("subscriptions are filtered independently; a salience rising past the threshold adds the node", () =>
    Effect.gen(function* () {
      const tree = (s: number) =>
        n("root", [n("quiet", undefined, { salience: s }), n("loud", undefined, { salience: 0.9 })])
      const provider = yield* Provider.make({ coalesce_ms: 0 })
      yield* provider.setTree(tree(0.1))
      const { inbox, send } = yield* open(provider)
      yield* send({ type: "subscribe", id: "important", filter: { min_salience: 0.5 }, patch_format: "compact" })
      yield* send({ type: "subscribe", id: "all" })
      const snapshots = ofType(inbox, "snapshot")
      assert.deepStrictEqual(
        snapshots[0]!.tree.children!.map((c) => c.id),
        ["loud"]
      )
      assert.deepStrictEqual(
        snapshots[1]!.tree.children!.map((c) => c.id),
        ["quiet", "loud"]
      )
      yield* provider.setTree(tree(1))
      yield* settle
      const important = ofType(inbox, "patch").find((p) => p.subscription === "important")!
      assert.isTrue(important.ops.some((op) => op.op === "add" && op.path === "/quiet" && op.index === 0))
    })
  )

  it.effect("a provider maxNodes of 5 applies to every output", () =>
    Effect.gen(function* () {
      const provider = yield* Provider.make({ coalesce_ms: 0, maxNodes: 5 })
      yield* provider.setTree(n("root", [n("list", leaves("i", 20))]))
      const { inbox, send } = yield* open(provider)
      yield* send({ type: "subscribe", id: "s" })
      yield* send({ type: "query", id: "q", max_nodes: 100 })
      for (const snapshot of ofType(inbox, "snapshot")) assert.isAtMost(Node.count(snapshot.tree), 5)
    })
  )

  it.effect("query window [1, 2] returns i1 and i2 with meta.window and total_children", () =>
    Effect.gen(function* () {
      const provider = yield* Provider.make({ coalesce_ms: 0 })
      yield* provider.setTree(n("root", [n("inbox", leaves("i", 5))]))
      const { inbox, send } = yield* open(provider)
      yield* send({ type: "query", id: "q", path: "/inbox", depth: 1, window: [1, 2] })
      const tree = ofType(inbox, "snapshot")[0]!.tree
      assert.deepStrictEqual(
        tree.children!.map((c) => c.id),
        ["i1", "i2"]
      )
      assert.deepStrictEqual(tree.meta?.window, [1, 2])
      assert.strictEqual(tree.meta?.total_children, 5)
    })
  )

  it.effect("query with digest: true serves the attention digest", () =>
    Effect.gen(function* () {
      const provider = yield* Provider.make({ coalesce_ms: 0 })
      yield* provider.setTree(
        n("root", [n("a", [n("alarm", undefined, { meta: { salience: 1, urgency: "critical" } })])])
      )
      const { inbox, send } = yield* open(provider)
      yield* send({ type: "query", id: "d", digest: true })
      const tree = ofType(inbox, "snapshot")[0]!.tree
      assert.strictEqual(tree.id, "attention-digest")
      assert.strictEqual(tree.children![0]!.meta?.path, "/a/alarm")
    })
  )

  it.effect("unsubscribe stops patches; emitEvent reaches every connection", () =>
    Effect.gen(function* () {
      const provider = yield* Provider.make({ coalesce_ms: 0 })
      yield* provider.setTree(editor(false))
      const one = yield* open(provider)
      const two = yield* open(provider)
      yield* one.send({ type: "subscribe", id: "s" })
      yield* one.send({ type: "unsubscribe", id: "s" })
      yield* provider.setTree(editor(true))
      yield* provider.emitEvent("saved", { file: "a.ts" })
      yield* settle
      assert.strictEqual(ofType(one.inbox, "patch").length, 0)
      for (const { inbox } of [one, two]) {
        assert.deepStrictEqual(ofType(inbox, "event"), [{ type: "event", name: "saved", data: { file: "a.ts" } }])
      }
    })
  )
})

describe("Provider: coalescing, changed and slow consumers", () => {
  it.effect("broadcasts are coalesced (default 50 ms, via the Clock)", () =>
    Effect.gen(function* () {
      const provider = yield* Provider.make()
      yield* provider.setTree(editor(false))
      yield* TestClock.adjust("50 millis")
      const { inbox, send } = yield* open(provider)
      yield* send({ type: "subscribe", id: "s" })
      yield* provider.setTree(editor(true))
      yield* provider.setTree(editor(true, [n("tab")]))
      yield* settle
      assert.strictEqual(ofType(inbox, "patch").length, 0)
      yield* TestClock.adjust("49 millis")
      assert.strictEqual(ofType(inbox, "patch").length, 0)
      yield* TestClock.adjust("1 millis")
      yield* settle
      const patches = ofType(inbox, "patch")
      assert.strictEqual(patches.length, 1)
      assert.strictEqual(patches[0]!.version, 2)
    })
  )

  it.effect("heed: changed is stamped on nodes modified by a rebuild and cleared on the next one", () =>
    Effect.gen(function* () {
      const provider = yield* Provider.make({ coalesce_ms: 0 })
      const tree = (v: number, w: number) =>
        n("root", [n("a", undefined, { properties: { v } }), n("b", undefined, { properties: { w } })])
      yield* provider.setTree(tree(0, 0))
      assert.isUndefined(Node.find((yield* provider.tree)!, "/a")?.meta?.changed)
      yield* provider.setTree(tree(1, 0))
      let current = (yield* provider.tree)!
      assert.isTrue(Node.find(current, "/a")?.meta?.changed)
      assert.isUndefined(Node.find(current, "/b")?.meta?.changed)
      yield* provider.setTree(tree(1, 1))
      current = (yield* provider.tree)!
      assert.isUndefined(Node.find(current, "/a")?.meta?.changed)
      assert.isTrue(Node.find(current, "/b")?.meta?.changed)
    })
  )

  it.effect("a slow consumer gets one fresh snapshot instead of an unbounded backlog", () =>
    Effect.gen(function* () {
      const provider = yield* Provider.make({ coalesce_ms: 0, outboxLimit: 3 })
      yield* provider.setTree(n("root", [n("x", undefined, { properties: { v: 0 } })]))
      const connection = yield* provider.connect()
      yield* connection.send({ type: "subscribe", id: "s" })
      for (let v = 1; v <= 10; v++) yield* provider.setTree(n("root", [n("x", undefined, { properties: { v } })]))
      yield* provider.setTree(n("root", [n("x", undefined, { properties: { v: 11 } })]))
      const messages: Array<Message.Outbound> = []
      yield* Effect.forkScoped(Stream.runForEach(connection.messages, (m) => Effect.sync(() => messages.push(m))))
      yield* settle
      // 11 changes, but the backlog stays bounded: hello, one fresh snapshot, at most one patch after it
      assert.isAtMost(messages.length, 3)
      assert.strictEqual(messages[0]!.type, "hello")
      assert.strictEqual(messages[1]!.type, "snapshot")
      const mirror = Consumer.mirror()
      for (const message of messages) assert.notStrictEqual(mirror.apply(message), "gap")
      assert.strictEqual(mirror.tree("s")!.children![0]!.properties?.v, 11)
      assert.strictEqual(mirror.version("s"), 12)
    })
  )
})

describe("Provider: invoke", () => {
  const app = n("root", [
    n("compose", undefined, {
      affordances: [
        { action: "send", params: { type: "object", properties: { body: { type: "string" } }, required: ["body"] } },
        { action: "explode" },
        { action: "reject" },
        { action: "later" }
      ]
    })
  ])

  const setup = Effect.gen(function* () {
    const provider = yield* Provider.make({ coalesce_ms: 0, id: "mail" })
    let sent = 0
    yield* provider.setTree(app)
    const bump = () => n("root", [...app.children!, n("sent", undefined, { properties: { count: ++sent } })])
    yield* provider.handle("/compose", "send", (params) =>
      provider.setTree(bump()).pipe(Effect.as({ id: params.body }))
    )
    yield* provider.handle("/compose", "explode", () =>
      provider.setTree(bump()).pipe(Effect.andThen(Effect.die("boom")))
    )
    yield* provider.handle("/compose", "reject", () =>
      Effect.fail(new Provider.ActionError({ code: "conflict", message: "stale draft" }))
    )
    yield* provider.handle("/compose", "later", () =>
      provider
        .startTask("later", (task) => task.progress(0.5, "halfway").pipe(Effect.andThen(Effect.sleep("1 second"))))
        .pipe(Effect.map(Provider.accepted))
    )
    const client = yield* open(provider)
    yield* client.send({ type: "subscribe", id: "s" })
    return { provider, ...client }
  })

  it.effect("state changes are broadcast before the ok result", () =>
    Effect.gen(function* () {
      const { inbox, send } = yield* setup
      yield* send({ type: "invoke", id: "i1", path: "/compose", action: "send", params: { body: "hi" } })
      const kinds = inbox.slice(2).map((m) => m.type)
      assert.deepStrictEqual(kinds, ["patch", "result"])
      assert.deepStrictEqual(inbox.at(-1), { type: "result", id: "i1", status: "ok", data: { id: "hi" } })
    })
  )

  it.effect("state changes are broadcast before the error result when the handler fails", () =>
    Effect.gen(function* () {
      const { inbox, send } = yield* setup
      yield* send({ type: "invoke", id: "i2", path: "/compose", action: "explode" })
      assert.deepStrictEqual(
        inbox.slice(2).map((m) => m.type),
        ["patch", "result"]
      )
      const result = inbox.at(-1) as Message.Result
      assert.strictEqual(result.status, "error")
      assert.strictEqual(result.error?.code, "internal")
    })
  )

  it.effect("an ActionError's code passes through", () =>
    Effect.gen(function* () {
      const { inbox, send } = yield* setup
      yield* send({ type: "invoke", id: "i3", path: "/compose", action: "reject" })
      assert.deepStrictEqual((inbox.at(-1) as Message.Result).error, { code: "conflict", message: "stale draft" })
    })
  )

  it.effect("a thrown error's code passes through (defects too); without a code it is internal", () =>
    Effect.gen(function* () {
      const provider = yield* Provider.make({ coalesce_ms: 0 })
      yield* provider.setTree(n("root", [n("x", undefined, { affordances: [{ action: "a" }, { action: "b" }] })]))
      yield* provider.handle("/x", "a", () => {
        throw Object.assign(new Error("somebody else edited it"), { code: "conflict" })
      })
      yield* provider.handle("/x", "b", () => Effect.die({ code: "unauthorized", message: "admins only" }))
      yield* provider.handle("/x", "c", () => Effect.die(new Error("secret internals")))
      const { inbox, send } = yield* open(provider)
      yield* send({ type: "invoke", id: "1", path: "/x", action: "a" })
      assert.deepStrictEqual((inbox.at(-1) as Message.Result).error, {
        code: "conflict",
        message: "somebody else edited it"
      })
      yield* send({ type: "invoke", id: "2", path: "/x", action: "b" })
      assert.deepStrictEqual((inbox.at(-1) as Message.Result).error, { code: "unauthorized", message: "admins only" })
      yield* send({ type: "invoke", id: "3", path: "/x", action: "c" })
      const internal = (inbox.at(-1) as Message.Result).error!
      assert.strictEqual(internal.code, "internal")
      assert.notInclude(internal.message, "secret")
    })
  )

  it.effect("params are validated: invalid_params names the field", () =>
    Effect.gen(function* () {
      const { inbox, send } = yield* setup
      yield* send({ type: "invoke", id: "a", path: "/compose", action: "send", params: {} })
      assert.deepStrictEqual((inbox.at(-1) as Message.Result).error, {
        code: "invalid_params",
        message: "params.body is required"
      })
      yield* send({ type: "invoke", id: "b", path: "/compose", action: "send", params: { body: 3 } })
      assert.deepStrictEqual((inbox.at(-1) as Message.Result).error, {
        code: "invalid_params",
        message: "params.body must be a string"
      })
    })
  )

  it.effect("unknown node or action → not_found; a provider-id path prefix is accepted", () =>
    Effect.gen(function* () {
      const { inbox, send } = yield* setup
      yield* send({ type: "invoke", id: "a", path: "/nowhere", action: "send" })
      assert.strictEqual((inbox.at(-1) as Message.Result).error?.code, "not_found")
      yield* send({ type: "invoke", id: "b", path: "/compose", action: "fly" })
      assert.strictEqual((inbox.at(-1) as Message.Result).error?.code, "not_found")
      yield* send({ type: "invoke", id: "c", path: "/mail/compose", action: "send", params: { body: "x" } })
      assert.strictEqual((inbox.at(-1) as Message.Result).status, "ok")
    })
  )

  it.effect("async actions answer accepted with a taskId (marker stripped) and show a task node", () =>
    Effect.gen(function* () {
      const { inbox, provider, send } = yield* setup
      yield* send({ type: "invoke", id: "t", path: "/compose", action: "later" })
      const result = ofType(inbox, "result").at(-1)!
      assert.deepStrictEqual(result, { type: "result", id: "t", status: "accepted", data: { taskId: "task-1" } })
      let task = Node.find((yield* provider.tree)!, "/tasks/task-1")!
      assert.strictEqual(task.type, "status")
      assert.deepStrictEqual(task.properties, { progress: 0.5, message: "halfway", status: "running", action: "later" })
      assert.strictEqual(task.meta?.salience, 0.8)
      assert.isTrue(task.affordances?.some((a) => a.action === "cancel" && a.dangerous === true))
      yield* TestClock.adjust("1 second")
      yield* settle
      task = Node.find((yield* provider.tree)!, "/tasks/task-1")!
      assert.strictEqual(task.properties?.status, "done")
      assert.strictEqual(task.meta?.salience, 0.5)
      yield* TestClock.adjust("30 seconds")
      yield* settle
      assert.isUndefined(Node.find((yield* provider.tree)!, "/tasks/task-1"))
    })
  )

  it.effect("a running task can be cancelled through its cancel affordance", () =>
    Effect.gen(function* () {
      const { inbox, provider, send } = yield* setup
      yield* send({ type: "invoke", id: "t", path: "/compose", action: "later" })
      yield* send({ type: "invoke", id: "c", path: "/tasks/task-1", action: "cancel" })
      assert.strictEqual((inbox.at(-1) as Message.Result).status, "ok")
      yield* settle
      const task = Node.find((yield* provider.tree)!, "/tasks/task-1")!
      assert.strictEqual(task.properties?.status, "cancelled")
      assert.strictEqual(task.meta?.salience, 0.3)
    })
  )
})

describe("Provider: bad input", () => {
  it.effect("malformed messages, unknown types and bad paths get errors; everyone else keeps being served", () =>
    Effect.gen(function* () {
      const provider = yield* Provider.make({ coalesce_ms: 0 })
      yield* provider.setTree(editor(false))
      const bad = yield* open(provider)
      const good = yield* open(provider)
      yield* good.send({ type: "subscribe", id: "s" })
      yield* bad.send("not an object")
      yield* bad.send({ type: "teleport", id: "x" })
      yield* bad.send({ type: "subscribe", id: "y", depth: "deep" })
      yield* bad.send({ type: "subscribe", id: "z", path: "/missing" })
      const errors = ofType(bad.inbox, "error")
      assert.strictEqual(errors.length, 4)
      assert.strictEqual(errors[0]!.error.code, "bad_request")
      assert.include(errors[1]!.error.message, "teleport")
      assert.strictEqual(errors[1]!.id, "x")
      assert.strictEqual(errors[2]!.error.code, "bad_request")
      assert.include(errors[2]!.error.message, "depth")
      assert.deepStrictEqual(errors[3], {
        type: "error",
        id: "z",
        error: { code: "not_found", message: 'no node at path "/missing"' }
      })
      assert.strictEqual(ofType(bad.inbox, "snapshot").length, 0)
      yield* provider.setTree(editor(true))
      yield* settle
      assert.strictEqual(ofType(good.inbox, "patch").length, 1)
    })
  )

  it.effect("the layer provides the provider as a service", () =>
    Effect.gen(function* () {
      const provider = yield* Provider.Service
      yield* provider.setTree(editor(false))
      yield* provider.flush
      assert.strictEqual((yield* provider.tree)?.id, "root")
    }).pipe(Effect.provide(Provider.layer({ coalesce_ms: 0 })))
  )
})

describe("Provider: action-wide handlers (handleAction)", () => {
  const inbox = (ids: ReadonlyArray<string>) =>
    n(
      "root",
      [
        n(
          "inbox",
          ids.map((id) =>
            n(id, undefined, {
              properties: { subject: `subject ${id}` },
              affordances: [{ action: "archive", params: { type: "object", properties: { note: { type: "string" } } } }]
            })
          )
        ),
        n("settings")
      ],
      { type: "root" }
    )

  it.effect("one handler serves every node offering the action and learns its target from the context", () =>
    Effect.gen(function* () {
      const provider = yield* Provider.make({ coalesceMs: 0 })
      yield* provider.setTree(inbox(["m1", "m2"]))
      const seen: Array<string> = []
      yield* provider.handleAction("archive", (params, context) =>
        Effect.sync(() => {
          seen.push(`${context.path} ${String(context.node.properties?.subject)} ${String(params.note)}`)
          return { archived: context.node.id }
        })
      )
      const { inbox: messages, send } = yield* open(provider)
      yield* send({ type: "invoke", id: "a", path: "/inbox/m2", action: "archive", params: { note: "done" } })
      yield* send({ type: "invoke", id: "b", path: "/inbox/m1", action: "archive", params: {} })
      assert.deepStrictEqual(seen, ["/inbox/m2 subject m2 done", "/inbox/m1 subject m1 undefined"])
      assert.deepStrictEqual(ofType(messages, "result"), [
        { type: "result", id: "a", status: "ok", data: { archived: "m2" } },
        { type: "result", id: "b", status: "ok", data: { archived: "m1" } }
      ])
    })
  )

  it.effect("a node without the affordance answers not_found; params are checked against the node's schema", () =>
    Effect.gen(function* () {
      const provider = yield* Provider.make({ coalesceMs: 0 })
      yield* provider.setTree(inbox(["m1"]))
      yield* provider.handleAction("archive", () => Effect.succeed({}))
      const { inbox: messages, send } = yield* open(provider)
      yield* send({ type: "invoke", id: "a", path: "/settings", action: "archive" })
      yield* send({ type: "invoke", id: "b", path: "/inbox/m1", action: "archive", params: { note: 3 } })
      const [onSettings, badParams] = ofType(messages, "result")
      assert.strictEqual(onSettings?.error?.code, "not_found")
      assert.strictEqual(badParams?.error?.code, "invalid_params")
    })
  )

  it.effect("a node's own handler (handle) wins over the action-wide one", () =>
    Effect.gen(function* () {
      const provider = yield* Provider.make({ coalesceMs: 0 })
      yield* provider.setTree(inbox(["m1", "m2"]))
      yield* provider.handleAction("archive", () => Effect.succeed({ by: "action" }))
      yield* provider.handle("/inbox/m1", "archive", () => Effect.succeed({ by: "node" }))
      const { inbox: messages, send } = yield* open(provider)
      yield* send({ type: "invoke", id: "a", path: "/inbox/m1", action: "archive" })
      yield* send({ type: "invoke", id: "b", path: "/inbox/m2", action: "archive" })
      assert.deepStrictEqual(
        ofType(messages, "result").map((result) => result.data),
        [{ by: "node" }, { by: "action" }]
      )
    })
  )

  it.effect("handlerCount stays at one while 1,000 nodes come and go, where handle grows by one per node", () =>
    Effect.gen(function* () {
      const perAction = yield* Provider.make({ coalesceMs: 0 })
      const perNode = yield* Provider.make({ coalesceMs: 0 })
      yield* perAction.handleAction("archive", () => Effect.succeed({}))
      for (let i = 0; i < 1000; i++) {
        const tree = inbox([`m${i}`])
        yield* perAction.setTree(tree)
        yield* perNode.setTree(tree)
        yield* perNode.handle(`/inbox/m${i}`, "archive", () => Effect.succeed({}))
      }
      assert.strictEqual(yield* perAction.handlerCount, 1)
      assert.strictEqual(yield* perNode.handlerCount, 1000)
      const { inbox: messages, send } = yield* open(perAction)
      yield* send({ type: "invoke", id: "last", path: "/inbox/m999", action: "archive" })
      yield* send({ type: "invoke", id: "gone", path: "/inbox/m998", action: "archive" })
      assert.deepStrictEqual(
        ofType(messages, "result").map((result) => result.status),
        ["ok", "error"]
      )
    })
  )

  it.effect("a running task's cancel handler is counted until the task ends", () =>
    Effect.gen(function* () {
      const provider = yield* Provider.make({ coalesceMs: 0 })
      yield* provider.setTree(inbox([]))
      const id = yield* provider.startTask("slow", () => Effect.never)
      assert.strictEqual(yield* provider.handlerCount, 1)
      const { send } = yield* open(provider)
      yield* send({ type: "invoke", id: "c", path: `/tasks/${id}`, action: "cancel" })
      assert.strictEqual(yield* provider.handlerCount, 0)
    })
  )
})

describe("Provider: invoke with coalescing", () => {
  it.effect("a handler's change is broadcast before the result even inside the coalescing window", () =>
    Effect.gen(function* () {
      const provider = yield* Provider.make({ coalesce_ms: 50 })
      yield* provider.setTree(editor(false))
      yield* provider.flush
      yield* provider.handle("/editor/file", "save", () => provider.setTree(editor(true)))
      const { inbox, send } = yield* open(provider)
      yield* send({ type: "subscribe", id: "s" })
      yield* send({ type: "invoke", id: "i", path: "/editor/file", action: "save" })
      assert.deepStrictEqual(
        inbox.slice(2).map((m) => m.type),
        ["patch", "result"]
      )
    })
  )
})

describe("Provider: connections", () => {
  it.effect("close ends the message stream after what was already queued", () =>
    Effect.gen(function* () {
      const provider = yield* Provider.make({ coalesce_ms: 0 })
      yield* provider.update(() => editor(false))
      const connection = yield* provider.connect()
      yield* connection.send({ type: "subscribe", id: "s" })
      yield* connection.close
      const messages = yield* Stream.runCollect(connection.messages)
      assert.deepStrictEqual(
        messages.map((m) => m.type),
        ["hello", "snapshot"]
      )
      // a closed connection ignores input and gets nothing more
      yield* connection.send({ type: "subscribe", id: "t" })
      yield* provider.setTree(editor(true))
      assert.strictEqual(yield* provider.version, 2)
    })
  )
})

describe("Provider: reading messages a little at a time", () => {
  it.effect("Stream.take(messages, 1) twice gives hello, then the snapshot: nothing pulled is lost", () =>
    Effect.gen(function* () {
      const provider = yield* Provider.make({ coalesce_ms: 0 })
      yield* provider.setTree(editor(false))
      const connection = yield* provider.connect()
      yield* connection.send({ type: "subscribe", id: "s" })
      const first = yield* Stream.runCollect(Stream.take(connection.messages, 1))
      assert.deepStrictEqual(
        first.map((m) => m.type),
        ["hello"]
      )
      const second = yield* Stream.runCollect(Stream.take(connection.messages, 1))
      assert.deepStrictEqual(
        second.map((m) => [m.type, m.type === "snapshot" ? m.id : undefined]),
        [["snapshot", "s"]]
      )
      // step by step: each change is read as its own message
      yield* provider.setTree(editor(true))
      const third = yield* Stream.runCollect(Stream.take(connection.messages, 1))
      assert.deepStrictEqual(
        third.map((m) => [m.type, m.type === "patch" ? m.version : undefined]),
        [["patch", 2]]
      )
      yield* connection.send({ type: "query", id: "q", depth: 0 })
      yield* connection.send({ type: "query", id: "r", depth: 0 })
      const both = yield* Stream.runCollect(Stream.take(connection.messages, 2))
      assert.deepStrictEqual(
        both.map((m) => (m.type === "snapshot" ? m.id : m.type)),
        ["q", "r"]
      )
      yield* connection.close
      assert.deepStrictEqual(yield* Stream.runCollect(connection.messages), [])
    })
  )
})

describe("Provider: digests", () => {
  const services = (v: number) =>
    n("root", [
      n("deploy", [n("status", undefined, { meta: { salience: 1, urgency: "critical" }, properties: { v: 0 } })]),
      n("db", [n("status", undefined, { meta: { salience: 0.9 }, properties: { v } })])
    ])

  it.effect("a digest subscription's mirror stays equal to a fresh digest when entries share an id", () =>
    Effect.gen(function* () {
      const provider = yield* Provider.make({ coalesce_ms: 0 })
      yield* provider.setTree(services(0))
      const { inbox, send } = yield* open(provider)
      yield* send({ type: "subscribe", id: "d", digest: true })
      for (let v = 1; v <= 3; v++) {
        yield* provider.setTree(services(v))
        yield* settle
      }
      const mirror = Consumer.mirror()
      for (const message of inbox) assert.notStrictEqual(mirror.apply(message), "gap")
      yield* send({ type: "query", id: "fresh", digest: true })
      const fresh = ofType(inbox, "snapshot").at(-1)!.tree
      assert.deepStrictEqual(mirror.tree("d"), fresh)
      const db = fresh.children!.find((c) => c.meta?.path === "/db/status")!
      assert.strictEqual(db.properties?.v, 3)
      const ids = fresh.children!.map((c) => c.id)
      assert.strictEqual(new Set(ids).size, ids.length)
    })
  )

  it.effect("digest paths of a subtree digest are full paths, so drill-down queries find the node", () =>
    Effect.gen(function* () {
      const provider = yield* Provider.make({ coalesce_ms: 0, id: "mail" })
      yield* provider.setTree(
        n("root", [n("inbox", [n("m1", undefined, { meta: { salience: 0.9 }, properties: { subject: "hi" } })])])
      )
      const { inbox, send } = yield* open(provider)
      yield* send({ type: "query", id: "q", path: "/inbox", digest: true })
      const entry = ofType(inbox, "snapshot").at(-1)!.tree.children![0]!
      assert.strictEqual(entry.meta?.path, "/inbox/m1")
      yield* send({ type: "query", id: "q2", path: entry.meta!.path })
      const drilled = inbox.at(-1)!
      assert.strictEqual(drilled.type, "snapshot")
      assert.strictEqual((drilled as Message.Snapshot).tree.properties?.subject, "hi")
      // a subscription to a subtree digest gets the same full paths
      yield* send({ type: "subscribe", id: "s", path: "inbox/", digest: true })
      assert.strictEqual(ofType(inbox, "snapshot").at(-1)!.tree.children![0]!.meta?.path, "/inbox/m1")
    })
  )
})

describe("Provider: shared outputs", () => {
  it.effect("subscriptions with the same request on different connections each get their own patch stream", () =>
    Effect.gen(function* () {
      const provider = yield* Provider.make({ coalesce_ms: 0 })
      yield* provider.setTree(editor(false))
      const one = yield* open(provider)
      const two = yield* open(provider)
      yield* one.send({ type: "subscribe", id: "s", depth: 2 })
      yield* two.send({ type: "subscribe", id: "s", depth: 2 })
      yield* two.send({ type: "subscribe", id: "t", depth: 2 })
      yield* provider.setTree(editor(true))
      yield* settle
      assert.deepStrictEqual(
        ofType(one.inbox, "patch").map((p) => [p.subscription, p.version]),
        [["s", 2]]
      )
      assert.deepStrictEqual(
        ofType(two.inbox, "patch").map((p) => [p.subscription, p.version]),
        [
          ["s", 2],
          ["t", 2]
        ]
      )
    })
  )
})

describe("Provider: patch formats", () => {
  const list = (ids: ReadonlyArray<string>) =>
    n(
      "root",
      ids.map((id) => n(id, undefined, { salience: 0.5 })),
      { type: "root" }
    )

  it.effect('subscriptions get the "slop" format unless they ask for patch_format: "compact"', () =>
    Effect.gen(function* () {
      const provider = yield* Provider.make({ coalesce_ms: 0 })
      yield* provider.setTree(list(["a", "b", "c"]))
      const { inbox, send } = yield* open(provider)
      yield* send({ type: "subscribe", id: "plain" })
      yield* send({ type: "subscribe", id: "compact", patch_format: "compact" })
      yield* provider.setTree(list(["c", "a", "b"]))
      yield* settle
      const patches = ofType(inbox, "patch")
      const plain = patches.find((p) => p.subscription === "plain")!
      const compact = patches.find((p) => p.subscription === "compact")!
      assert.isTrue(plain.ops.every((op) => op.op !== "move"))
      assert.isTrue(plain.ops.some((op) => op.op === "replace" && op.path === "/children"))
      assert.isTrue(compact.ops.some((op) => op.op === "move" && op.path === "/c" && op.index === 0))
      assert.isFalse(compact.ops.some((op) => op.path === "/children"))
    })
  )

  it.effect("a bad patch_format is a bad_request naming the field", () =>
    Effect.gen(function* () {
      const provider = yield* Provider.make({ coalesce_ms: 0 })
      yield* provider.setTree(list(["a"]))
      const { inbox, send } = yield* open(provider)
      yield* send({ type: "subscribe", id: "s", patch_format: "tiny" })
      const error = ofType(inbox, "error")[0]!
      assert.strictEqual(error.error.code, "bad_request")
      assert.include(error.error.message, "patch_format")
    })
  )

  it.effect("a node whose id holds / is invoked through its escaped path (~1)", () =>
    Effect.gen(function* () {
      const provider = yield* Provider.make({ coalesce_ms: 0 })
      yield* provider.setTree(
        n("root", [n("sources", [n("ci/github", undefined, { affordances: [{ action: "ack" }] })])])
      )
      const paths: Array<string> = []
      yield* provider.handle("/sources/ci~1github", "ack", (_params, context) =>
        Effect.sync(() => void paths.push(context.path))
      )
      const { inbox, send } = yield* open(provider)
      yield* send({ type: "invoke", id: "i", path: "/sources/ci~1github", action: "ack" })
      assert.strictEqual(ofType(inbox, "result")[0]!.status, "ok")
      assert.deepStrictEqual(paths, ["/sources/ci~1github"])
      assert.deepStrictEqual(Node.parsePath("/sources/ci~1github/a~0b"), ["sources", "ci/github", "a~b"])
      assert.strictEqual(Node.pathOf(["sources", "ci/github"]), "/sources/ci~1github")
    })
  )
})

describe("Provider: connection limits", () => {
  it.effect(
    "maxSubscriptions: a subscribe beyond it is limit_exceeded; resubscribing an id or unsubscribing frees it",
    () =>
      Effect.gen(function* () {
        const provider = yield* Provider.make({ coalesce_ms: 0 })
        yield* provider.setTree(editor(false))
        const connection = yield* provider.connect({ maxSubscriptions: 2 })
        const inbox: Array<Message.Outbound> = []
        yield* Effect.forkScoped(Stream.runForEach(connection.messages, (m) => Effect.sync(() => inbox.push(m))))
        const send = (message: unknown) => connection.send(message).pipe(Effect.andThen(settle))
        yield* send({ type: "subscribe", id: "a" })
        yield* send({ type: "subscribe", id: "b" })
        yield* send({ type: "subscribe", id: "c" })
        yield* send({ type: "subscribe", id: "a", depth: 1 })
        const error = ofType(inbox, "error")
        assert.deepStrictEqual(
          error.map((e) => [e.id, e.error.code]),
          [["c", "limit_exceeded"]]
        )
        yield* send({ type: "unsubscribe", id: "b" })
        yield* send({ type: "subscribe", id: "c" })
        assert.deepStrictEqual(
          ofType(inbox, "snapshot").map((s) => s.id),
          ["a", "b", "a", "c"]
        )
      })
  )
})

describe("Provider: options", () => {
  // How many patches a subscription has after a change and `ms` of TestClock time.
  const patchesAfter = (options: Provider.Options, ms: number) =>
    Effect.gen(function* () {
      const provider = yield* Provider.make(options)
      yield* provider.setTree(editor(false))
      yield* provider.flush
      const { inbox, send } = yield* open(provider)
      yield* send({ type: "subscribe", id: "s" })
      yield* provider.setTree(editor(true))
      yield* TestClock.adjust(ms)
      yield* settle
      return ofType(inbox, "patch").length
    })

  it.effect("coalesceMs delays the broadcast; the deprecated coalesce_ms is still read, and coalesceMs wins", () =>
    Effect.gen(function* () {
      assert.strictEqual(yield* patchesAfter({ coalesceMs: 100 }, 99), 0)
      assert.strictEqual(yield* patchesAfter({ coalesceMs: 100 }, 100), 1)
      assert.strictEqual(yield* patchesAfter({ coalesce_ms: 100 }, 99), 0)
      assert.strictEqual(yield* patchesAfter({ coalesce_ms: 100 }, 100), 1)
      assert.strictEqual(yield* patchesAfter({ coalesceMs: 0, coalesce_ms: 100 }, 0), 1)
    })
  )
})
