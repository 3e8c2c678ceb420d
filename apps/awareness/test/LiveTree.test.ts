import { assert, describe, it } from "@effect/vitest"
import type { Message, Node, Provider } from "@heed/state-tree"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as Backend from "../src/Backend.ts"
import * as Changes from "../src/Changes.ts"
import * as LiveTree from "../src/LiveTree.ts"
import { callToolAs } from "../src/ToolCall.ts"
import { alertsOf, under } from "./slop.ts"

const owner = "tester"

/** The live trees over an in-memory store; writes go through the same typed tools as REST and MCP. */
const live = LiveTree.layer().pipe(Layer.provideMerge(Changes.layer), Layer.provide(Backend.layer({ _tag: "memory" })))

const write = (tool: string, params: Record<string, unknown>) => Effect.orDie(callToolAs(owner, tool, params))

const alert = (alertId: string, resolved = false) =>
  write("report_alert", {
    source: "nas",
    tags: [],
    alert_id: alertId,
    level: "warning",
    message: resolved ? "ok" : `alert ${alertId}`,
    resolved
  })

/**
 * A connection subscribed to the whole tree, and `until`: waits until the provider's tree holds, re-checking on each
 * message that arrives (never on a timer); fails after 30 s without a match, naming the tree.
 */
const watch = (provider: Provider.Provider) =>
  Effect.gen(function* () {
    const connection = yield* provider.connect()
    yield* connection.send({ type: "subscribe", id: "all", path: "/", depth: -1 })
    const until = (holds: (tree: Node.Node | undefined) => boolean) =>
      Effect.gen(function* () {
        for (;;) {
          const tree = yield* provider.tree
          if (holds(tree)) return { tree }
          yield* Stream.runDrain(Stream.take(connection.messages, 1))
        }
      }).pipe(
        Effect.timeoutOrElse({
          duration: 30_000,
          orElse: () =>
            Effect.flatMap(provider.tree, (tree) =>
              Effect.die(new Error(`the tree did not settle: ${JSON.stringify(tree)}`))
            )
        })
      )
    return { connection, until }
  })

const alertIds = (tree: Node.Node | undefined) => alertsOf(tree).map((node) => String(node.properties?.alert_id))

describe("LiveTree: bounded memory in a long-running server", () => {
  it.live(
    "the provider holds one handler per affordance kind while 1,000 alerts come and go, and they still act",
    () =>
      Effect.gen(function* () {
        const trees = yield* LiveTree.LiveTree
        const provider = yield* trees.providerFor(owner)
        const { until } = yield* watch(provider)
        for (let round = 0; round < 100; round++) {
          const ids = Array.from({ length: 10 }, (_, k) => `a${round}-${k}`)
          yield* Effect.forEach(ids, (id) => alert(id), { discard: true })
          yield* until((tree) => ids.every((id) => alertIds(tree).includes(id)))
          yield* Effect.forEach(ids, (id) => alert(id, true), { discard: true })
          yield* until((tree) => alertIds(tree).length === 0)
        }
        // acknowledge, suppress, clear, fire, done, cancel
        assert.strictEqual(yield* provider.handlerCount, 6)

        yield* alert("last")
        const { tree } = yield* until((tree) => alertIds(tree).includes("last"))
        const source = under(tree, "sources")[0]!
        const connection = yield* provider.connect()
        yield* connection.send({
          type: "invoke",
          id: "ack",
          path: `/sources/${source.id}/${source.children![0]!.id}`,
          action: "acknowledge"
        })
        const results = yield* Stream.runCollect(
          Stream.take(
            Stream.filter(connection.messages, (message) => message.type === "result"),
            1
          )
        )
        assert.deepStrictEqual(
          results.map((result) => (result as Message.Result).status),
          ["ok"]
        )
        assert.strictEqual(yield* provider.handlerCount, 6)
      }).pipe(Effect.provide(live)),
    120_000
  )

  it.live(
    "an owner's provider is dropped when its last consumer disconnects, and the next connection gets a fresh, current tree",
    () =>
      Effect.gen(function* () {
        const trees = yield* LiveTree.LiveTree
        const provider = yield* trees.providerFor(owner)
        assert.deepStrictEqual(yield* trees.owners, [])
        yield* alert("before")
        const first = yield* watch(provider)
        const second = yield* watch(provider)
        yield* first.until((tree) => alertIds(tree).includes("before"))
        yield* alert("watched")
        yield* second.until((tree) => alertIds(tree).includes("watched"))
        const versionBefore = yield* provider.version
        assert.isAbove(versionBefore, 1)
        yield* first.connection.close
        assert.deepStrictEqual(yield* trees.owners, [owner])
        yield* second.connection.close
        yield* second.connection.close
        assert.deepStrictEqual(yield* trees.owners, [])
        assert.strictEqual(yield* provider.tree, undefined)
        assert.strictEqual(yield* provider.handlerCount, 0)

        // written while nobody watches: the next connection's provider is new and filled from the store
        yield* alert("unwatched")
        const again = yield* (yield* trees.providerFor(owner)).connect()
        assert.deepStrictEqual(yield* trees.owners, [owner])
        assert.strictEqual(yield* provider.version, 1)
        assert.deepStrictEqual(alertIds(yield* provider.tree).sort(), ["before", "unwatched", "watched"])
        assert.strictEqual(yield* provider.handlerCount, 6)
        yield* again.close
        assert.deepStrictEqual(yield* trees.owners, [])
      }).pipe(Effect.provide(live)),
    60_000
  )
})
