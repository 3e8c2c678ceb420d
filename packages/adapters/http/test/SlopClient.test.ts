import { assert, describe, it } from "@effect/vitest"
import type { Consumer } from "@heed/state-tree"
import { Node, Pipeline, Provider } from "@heed/state-tree"
import { Deferred, Effect, Exit, Fiber, Layer, Scope, Stream } from "effect"
import * as Socket from "effect/socket/Socket"
import { SlopClient, SlopServer } from "../src/index.ts"
import { listen, randomTrees, serveProvider, startTree, syncedProvider } from "./support.ts"

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

describe("SlopClient: reconnection", () => {
  it.live("after the server restarts, the client reconnects and resubscribes; the mirror catches up", () =>
    Effect.gen(function* () {
      const provider = yield* syncedProvider()
      yield* provider.setTree(startTree)
      const app = SlopServer.layer().pipe(Layer.provide(Layer.succeed(Provider.Service, provider)))
      const first = yield* Scope.make()
      const host = yield* listen(app).pipe(Scope.provide(first))
      const port = Number(host.split(":")[1])
      const { client, consumer } = yield* SlopClient.consumer({
        url: `ws://${host}/slop`,
        reconnect: { initialDelay: "10 millis", maxDelay: "50 millis" }
      })
      const id = yield* consumer.subscribe({ depth: 2 })
      // an invoke the handler never answers is in flight when the server goes away
      const stuck = yield* Deferred.make<void>()
      yield* provider.handle("/", "stuck", () => Deferred.await(stuck))
      const inFlight = yield* Effect.forkChild(Effect.flip(consumer.invoke("/", "stuck")))
      yield* Effect.yieldNow
      yield* Scope.close(first, Exit.void)
      const lost = yield* Fiber.join(inFlight)
      assert.strictEqual(lost.code, "connection_lost")
      // changes while the server is down; then it comes back on the same port
      const changed = { ...startTree, properties: { while: "down" } }
      yield* provider.setTree(changed)
      yield* listen(app, { port })
      // sent while disconnected, the invoke waits and goes out after the resubscription
      yield* synced(consumer)
      assert.strictEqual(yield* client.connections, 2)
      assert.strictEqual(yield* client.state, "open")
      assert.deepStrictEqual(yield* consumer.tree(id), yield* viewOf(provider, { depth: 2 }))
      assert.deepStrictEqual((yield* consumer.tree(id))?.properties, { while: "down" })
      // and patches flow again
      yield* provider.setTree(startTree)
      yield* synced(consumer)
      assert.deepStrictEqual(yield* consumer.tree(id), yield* viewOf(provider, { depth: 2 }))
    }).pipe(Effect.provide(sockets))
  )

  it.live("the first connection failing fails make with SlopClientError; reconnect: false closes for good", () =>
    Effect.gen(function* () {
      const refused = yield* Effect.flip(SlopClient.make({ url: "ws://127.0.0.1:1/slop" }))
      assert.strictEqual(refused._tag, "SlopClientError")
      assert.include(refused.message, "could not connect to ws://127.0.0.1:1/slop")
      const provider = yield* syncedProvider()
      yield* provider.setTree(startTree)
      const server = yield* Scope.make()
      const url = yield* serveProvider(provider).pipe(Scope.provide(server))
      const client = yield* SlopClient.make({ url, reconnect: false })
      const ended = yield* Effect.forkChild(Stream.runDrain(client.messages))
      yield* Scope.close(server, Exit.void)
      yield* Fiber.join(ended)
      assert.strictEqual(yield* client.state, "closed")
    }).pipe(Effect.provide(sockets))
  )
})
