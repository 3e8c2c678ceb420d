import { assert, describe, it } from "@effect/vitest"
import { Store } from "@heed/collator"
import { StoreContract } from "@heed/collator/testing"
import { Effect, Layer } from "effect"
import type * as Context from "effect/Context"
import { FullTextSearch, PostgresStore } from "../src/index.ts"
import { backends, type Db, freshOwner } from "./utils/shared.ts"

const { makeEntry } = StoreContract

const open = (db: Context.Context<Db>, options: PostgresStore.StoreOptions) =>
  Effect.provide(
    Effect.all({ store: Store.Store, search: FullTextSearch.FullTextSearch }),
    PostgresStore.layerWith({ owner: freshOwner("fts"), ...options }).pipe(Layer.provide(Layer.succeedContext(db)))
  )

const ids = (hits: ReadonlyArray<FullTextSearch.SearchHit>) => hits.map((hit) => hit.entry.id)

for (const backend of await backends("fts")) {
  describe(`FullTextSearch on ${backend.name}`, () => {
    const seeded = (language: string) =>
      Effect.gen(function* () {
        const { search, store } = yield* open(backend.db, { language })
        yield* store.insert(
          makeEntry({ id: "desc", source: "home", tags: ["pets"], data: { description: "Walking the dog" } })
        )
        yield* store.insert(
          makeEntry({ id: "content", source: "home", data: { description: "park", content: "I walked to the park" } })
        )
        yield* store.insert(
          makeEntry({
            id: "goal",
            type: "intention",
            source: "home",
            data: { goal: "walk more often", state: "pending" }
          })
        )
        yield* store.insert(
          makeEntry({ id: "tag", source: "work", tags: ["walks"], data: { description: "unrelated" } })
        )
        yield* store.insert(
          makeEntry({
            id: "alert",
            type: "alert",
            source: "kitchen",
            data: { alert_id: "freezer", level: "critical", message: "Walk-in freezer failed" }
          })
        )
        yield* store.insert(
          makeEntry({ id: "trashed", deleted: "2026-03-19T16:00:00.000Z", data: { description: "walking" } })
        )
        return search
      })

    it.effect("stems with the language configuration and ranks by upstream's weights (A > B > C)", () =>
      Effect.gen(function* () {
        const search = yield* seeded("en")
        const hits = yield* search.search({ query: "walked" })
        assert.sameMembers(ids(hits), ["desc", "content", "goal", "tag", "alert"])
        const rank = (id: string) => hits.find((hit) => hit.entry.id === id)!.rank
        assert.isAbove(rank("desc"), rank("content"))
        assert.isAbove(rank("alert"), rank("goal"))
        assert.isAbove(rank("content"), rank("tag"))
        assert.strictEqual(ids(hits)[ids(hits).length - 1], "tag")
      })
    )

    it.effect("filters by type, source and tags; deleted entries never match", () =>
      Effect.gen(function* () {
        const search = yield* seeded("english")
        assert.sameMembers(ids(yield* search.search({ query: "walking", types: ["note"] })), ["desc", "content", "tag"])
        assert.sameMembers(ids(yield* search.search({ query: "walking", source: "home" })), ["desc", "content", "goal"])
        assert.deepStrictEqual(ids(yield* search.search({ query: "walking", tags: ["pets"] })), ["desc"])
        assert.notInclude(ids(yield* search.search({ query: "walking", limit: 100 })), "trashed")
        assert.strictEqual((yield* search.search({ query: "walking", limit: 2 })).length, 2)
        assert.strictEqual((yield* search.search({ query: "walking", limit: 0 })).length, 1)
      })
    )

    it.effect("the simple configuration (upstream's default) does not stem", () =>
      Effect.gen(function* () {
        const search = yield* seeded("simple")
        assert.deepStrictEqual(ids(yield* search.search({ query: "walked" })), ["content"])
        // an english query stems to "walk", which only the entries spelling "walk" itself carry
        assert.sameMembers(ids(yield* search.search({ query: "walked", language: "en" })), ["goal", "alert"])
      })
    )

    it.effect("an entry's own language field picks its configuration", () =>
      Effect.gen(function* () {
        const { search, store } = yield* open(backend.db, {})
        const french = {
          ...makeEntry({ id: "fr", data: { description: "Les chevaux marchaient dans la forêt" } }),
          language: "fr"
        }
        yield* store.insert(french)
        // indexed with the french stemmer: "chevaux" is stored as "cheval"
        assert.deepStrictEqual(ids(yield* search.search({ query: "chevaux", language: "fr" })), ["fr"])
        assert.deepStrictEqual(ids(yield* search.search({ query: "cheval" })), ["fr"])
        assert.deepStrictEqual(ids(yield* search.search({ query: "chevaux" })), [])
        assert.deepStrictEqual(yield* store.query({ ids: ["fr"] }), [french])
      })
    )

    it.effect("query text is data, never syntax; an unknown language is a clear error", () =>
      Effect.gen(function* () {
        const search = yield* seeded("en")
        for (const query of ["'); DROP TABLE entries; --", "walk & !dog | (", "", "   ", "a:* <-> b"]) {
          yield* search.search({ query })
        }
        assert.strictEqual((yield* search.search({ query: "walking" })).length, 5)
        const error = yield* Effect.flip(search.search({ query: "walk", language: "klingon" }))
        assert.strictEqual(error._tag, "StoreError")
        assert.include(error.message, "klingon")
      })
    )
  })
}
