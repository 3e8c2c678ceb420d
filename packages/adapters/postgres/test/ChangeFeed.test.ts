import { assert, describe, it } from "@effect/vitest"
import { Store } from "@heed/collator"
import { StoreContract } from "@heed/collator/testing"
import { Effect, Layer, Queue, Stream } from "effect"
import type * as Context from "effect/Context"
import { ChangeFeed, PostgresStore } from "../src/index.ts"
import { backends, type Db, freshOwner } from "./utils/shared.ts"

const { makeEntry } = StoreContract

const open = (db: Context.Context<Db>, owner: string) =>
  Effect.provide(
    Effect.all({ store: Store.Store, feed: ChangeFeed.ChangeFeed }),
    PostgresStore.layerWith({ owner }).pipe(Layer.provide(Layer.succeedContext(db)))
  )

/** Subscribes and pumps the feed into a queue, so a test can take changes one at a time. */
const listen = (feed: ChangeFeed.ChangeFeed["Service"]) =>
  Effect.gen(function* () {
    const changes = yield* feed.subscribe
    const queue = yield* Queue.unbounded<ChangeFeed.Change>()
    yield* Effect.forkScoped(Stream.runForEach(changes, (change) => Queue.offer(queue, change)))
    return queue
  })

for (const backend of await backends("feed")) {
  const mechanism = backend.kind === "pg" ? "LISTEN/NOTIFY across two connection pools" : "in-process NOTIFY"
  describe(`ChangeFeed on ${backend.name} (${mechanism})`, () => {
    it.live(
      "two store instances each see every write of the other, and their own",
      () =>
        Effect.gen(function* () {
          const owner = freshOwner()
          const writer = yield* open(backend.db, owner)
          const reader = yield* open(backend.other, owner)
          const seenByReader = yield* listen(reader.feed)
          const seenByWriter = yield* listen(writer.feed)
          for (let i = 0; i < 10; i++) {
            const source = i % 2 === 0 ? writer : reader
            yield* source.store.insert(makeEntry({ id: `w${i}`, data: { description: `write ${i}` } }))
            const other = i % 2 === 0 ? seenByReader : seenByWriter
            const change = yield* Queue.take(other).pipe(Effect.timeout("5 seconds"))
            assert.strictEqual(change.owner_id, owner)
            // the writer's own instance sees the same change
            const own = yield* Queue.take(i % 2 === 0 ? seenByWriter : seenByReader).pipe(Effect.timeout("5 seconds"))
            assert.strictEqual(own.owner_id, owner)
          }
          // one change each per write, nothing more
          assert.deepStrictEqual([yield* Queue.size(seenByReader), yield* Queue.size(seenByWriter)], [0, 0])
        }).pipe(Effect.scoped),
      60_000
    )

    it.live(
      "updates and upserts signal too; another owner's writes do not",
      () =>
        Effect.gen(function* () {
          const owner = freshOwner()
          const mine = yield* open(backend.db, owner)
          const theirs = yield* open(backend.other, freshOwner("other"))
          const changes = yield* listen((yield* open(backend.other, owner)).feed)
          yield* theirs.store.insert(makeEntry({ id: "theirs" }))
          yield* mine.store.insert(makeEntry({ id: "mine" }))
          assert.strictEqual((yield* Queue.take(changes).pipe(Effect.timeout("5 seconds"))).owner_id, owner)
          yield* theirs.store.update("theirs", (e) => ({ ...e, tags: ["x"] }))
          yield* mine.store.update("mine", (e) => ({ ...e, tags: ["x"] }))
          assert.strictEqual((yield* Queue.take(changes).pipe(Effect.timeout("5 seconds"))).owner_id, owner)
          yield* mine.store.upsert({ type: "status", source: "nas" }, () =>
            makeEntry({ id: "st", type: "status", source: "nas" })
          )
          assert.strictEqual((yield* Queue.take(changes).pipe(Effect.timeout("5 seconds"))).owner_id, owner)
          // a declined update writes nothing and signals nothing
          yield* mine.store.update("mine", () => undefined)
          yield* mine.store.insert(makeEntry({ id: "marker" }))
          yield* Queue.take(changes).pipe(Effect.timeout("5 seconds"))
          assert.strictEqual(yield* Queue.size(changes), 0)
        }).pipe(Effect.scoped),
      60_000
    )
  })
}
