import { assert, describe, it } from "@effect/vitest"
import type { Consumer } from "@heed/state-tree"
import { Node, Pipeline } from "@heed/state-tree"
import { Effect } from "effect"
import * as Socket from "effect/socket/Socket"
import { SlopClient } from "../src/index.ts"
import { randomTrees, serveProvider, startTree, syncedProvider } from "./support.ts"

/** A different budget for each subscriber: node and token budgets, depths, filters, and none. */
const requestFor = (i: number): Pipeline.Request => {
  const request: { -readonly [K in keyof Pipeline.Request]: Pipeline.Request[K] } = {}
  if (i % 3 !== 0) request.max_nodes = 3 + (i % 37)
  if (i % 4 !== 0) request.depth = i % 4
  if (i % 5 === 0) request.filter = { min_salience: 0.1 * (i % 9) }
  if (i % 7 === 0) request.max_tokens = 30 + 3 * i
  return request
}

describe("load", () => {
  it.live(
    "200 WebSocket subscribers with different budgets: every mirror ends equal to its own optimised view",
    () =>
      Effect.gen(function* () {
        const provider = yield* syncedProvider()
        const history = randomTrees(31, 260, startTree)
        yield* provider.setTree(history[199]!)
        const url = yield* serveProvider(provider)
        const subscribers = yield* Effect.forEach(
          Array.from({ length: 200 }, (_, i) => i),
          (i) =>
            Effect.gen(function* () {
              const { consumer } = yield* SlopClient.consumer({ url })
              const request = requestFor(i)
              const id = yield* consumer.subscribe(request)
              return { consumer, id, request }
            }),
          { concurrency: 20 }
        )
        for (const tree of history.slice(200)) yield* provider.setTree(tree)
        const sync = (consumer: Consumer.Consumer) => consumer.invoke("/", "sync")
        yield* Effect.forEach(subscribers, ({ consumer }) => sync(consumer), { concurrency: 50, discard: true })
        const final = (yield* provider.tree)!
        let resubscribed = 0
        for (const { consumer, id, request } of subscribers) {
          const mirror = yield* consumer.tree(id)
          assert.deepStrictEqual(mirror, Pipeline.optimize(final, request), JSON.stringify(request))
          if (request.max_nodes !== undefined && request.max_tokens === undefined) {
            assert.isAtMost(Node.count(mirror!), request.max_nodes)
          }
          resubscribed += yield* consumer.resubscriptions
        }
        // no subscriber lost track and had to resubscribe
        assert.strictEqual(resubscribed, 0)
      }).pipe(Effect.provide(Socket.layerWebSocketConstructorGlobal)),
    { timeout: 120_000 }
  )
})
