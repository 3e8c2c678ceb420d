import { assert, describe, it } from "@effect/vitest"
import type { Consumer, Provider } from "@heed/state-tree"
import { Node, Pipeline } from "@heed/state-tree"
import { Effect } from "effect"
import * as Socket from "effect/socket/Socket"
import { SlopClient } from "../src/index.ts"
import { randomTrees, serveProvider, startTree, syncedProvider } from "./support.ts"

const sockets = Socket.layerWebSocketConstructorGlobal

/** The view the provider serves for `request` now. */
const viewOf = (provider: Provider.Provider, request: Pipeline.Request) =>
  Effect.map(provider.tree, (tree) => Pipeline.optimize(tree!, request))

/** Waits until every patch sent before now has been applied (a `sync` round trip on the same connection). */
const synced = (consumer: Consumer.Consumer) => consumer.invoke("/", "sync")

describe("SlopClient + Consumer against SlopServer, over a real WebSocket", () => {
  it.live("the mirror equals the provider's view after each of 150 random changes (compact patches)", () =>
    Effect.gen(function* () {
      const provider = yield* syncedProvider()
      yield* provider.setTree(startTree)
      const url = yield* serveProvider(provider)
      const { consumer } = yield* SlopClient.consumer({ url })
      const hello = yield* consumer.hello
      assert.strictEqual(hello.provider.slop_version, "0.1")
      const id = yield* consumer.subscribe({ path: "/" })
      for (const tree of randomTrees(7, 150, startTree)) {
        yield* provider.setTree(tree)
        yield* synced(consumer)
        assert.deepStrictEqual(yield* consumer.tree(id), yield* viewOf(provider, { path: "/" }))
      }
      assert.strictEqual(yield* consumer.resubscriptions, 0)
    }).pipe(Effect.provide(sockets))
  )

  it.live("subscriptions with different budgets each mirror their own optimised view, within their budget", () =>
    Effect.gen(function* () {
      const provider = yield* syncedProvider()
      yield* provider.setTree(startTree)
      const url = yield* serveProvider(provider)
      const { consumer } = yield* SlopClient.consumer({ url })
      const requests: ReadonlyArray<Pipeline.Request> = [
        { max_nodes: 4 },
        { depth: 1 },
        { filter: { min_salience: 0.5 } },
        { max_nodes: 8, depth: 2 },
        { max_tokens: 60 }
      ]
      const ids = yield* Effect.forEach(requests, (request) => consumer.subscribe(request))
      for (const tree of randomTrees(11, 80, startTree)) {
        yield* provider.setTree(tree)
        yield* synced(consumer)
        for (let i = 0; i < ids.length; i++) {
          const mirror = (yield* consumer.tree(ids[i]!))!
          assert.deepStrictEqual(mirror, yield* viewOf(provider, requests[i]!), JSON.stringify(requests[i]))
        }
        assert.isAtMost(Node.count((yield* consumer.tree(ids[0]!))!), 4)
      }
    }).pipe(Effect.provide(sockets))
  )
})
