import { assert, describe, it } from "@effect/vitest"
import { Store } from "@heed/collator"
import { StoreContract } from "@heed/collator/testing"
import { Config, ConfigProvider, Deferred, Effect, Fiber, Layer, Option } from "effect"
import type * as Context from "effect/Context"
import * as SqlClient from "effect/sql/SqlClient"
import { type ChangeFeed, type FullTextSearch, PostgresStore } from "../src/index.ts"
import { freshSchema, schemaCleanup, serverUnavailable, serverUrl } from "./utils/server.ts"
import { backends, type Db, freshOwner } from "./utils/shared.ts"

const { makeEntry } = StoreContract

const storeOn = (
  db: Context.Context<Db>,
  owner: string,
  options: PostgresStore.StoreOptions = {}
): Layer.Layer<Store.Store | ChangeFeed.ChangeFeed | FullTextSearch.FullTextSearch> =>
  PostgresStore.layerWith({ ...options, owner }).pipe(Layer.provide(Layer.succeedContext(db)), Layer.orDie)

/** Builds one store per owner connection and hands them to `f`. */
const withStores = <A, E>(
  layers: ReadonlyArray<Layer.Layer<Store.Store, unknown>>,
  f: (stores: ReadonlyArray<Store.Store["Service"]>) => Effect.Effect<A, E>
) =>
  Effect.gen(function* () {
    const stores: Array<Store.Store["Service"]> = []
    for (const layer of layers)
      stores.push(
        yield* Effect.provide(
          Effect.map(Store.Store, (store) => store),
          layer
        )
      )
    return yield* f(stores)
  }).pipe(Effect.scoped)

for (const backend of await backends("store")) {
  describe(`PostgresStore on ${backend.name}`, () => {
    const two = (owner: string) => [storeOn(backend.db, owner), storeOn(backend.other, owner)]

    it.effect(
      "concurrent alert upserts from two store instances (8 writers) keep one row and lose no update",
      () => {
        const owner = freshOwner()
        return withStores(two(owner), ([a, b]) =>
          Effect.gen(function* () {
            const writes = Array.from({ length: 40 }, (_, i) => i)
            yield* Effect.forEach(
              writes,
              (i) =>
                (i % 2 === 0 ? a! : b!).upsert(
                  { type: "alert", source: "nas", data: { alert_id: "cpu" } },
                  (existing) =>
                    existing === undefined
                      ? makeEntry({ id: `alert-${i}`, type: "alert", source: "nas", data: { alert_id: "cpu", n: 1 } })
                      : { ...existing, data: { ...existing.data, n: Number(existing.data.n) + 1 } }
                ),
              {
                concurrency: 8,
                discard: true
              }
            )
            const rows = yield* a!.query({ types: ["alert"] })
            assert.strictEqual(rows.length, 1)
            assert.strictEqual(rows[0]!.data.n, 40)
            assert.deepStrictEqual(
              (yield* b!.query({ types: ["alert"] })).map((e) => e.id),
              rows.map((e) => e.id)
            )
          })
        )
      },
      60_000
    )

    it.effect(
      "concurrent preference upserts from two store instances keep one row per (key, scope)",
      () => {
        const owner = freshOwner()
        return withStores(two(owner), ([a, b]) =>
          Effect.gen(function* () {
            yield* Effect.forEach(
              Array.from({ length: 24 }, (_, i) => i),
              (i) =>
                (i % 2 === 0 ? a! : b!).upsert(
                  { type: "preference", data: { key: i % 3 === 0 ? "timezone" : "verbosity", scope: "global" } },
                  (existing) =>
                    existing ??
                    makeEntry({
                      id: `pref-${i}`,
                      type: "preference",
                      source: "global",
                      data: { key: i % 3 === 0 ? "timezone" : "verbosity", value: String(i), scope: "global" }
                    })
                ),
              { concurrency: 8, discard: true }
            )
            const rows = yield* a!.query({ types: ["preference"] })
            assert.deepStrictEqual(rows.map((e) => e.data.key).sort(), ["timezone", "verbosity"])
          })
        )
      },
      60_000
    )

    it.effect(
      "an intention fires exactly once under concurrent compare-and-set from two store instances",
      () => {
        const owner = freshOwner()
        return withStores(two(owner), ([a, b]) =>
          Effect.gen(function* () {
            const ids = Array.from({ length: 5 }, (_, i) => `intent-${i}`)
            for (const id of ids) {
              yield* a!.insert(makeEntry({ id, type: "intention", data: { goal: id, state: "pending" } }))
            }
            const attempts = ids.flatMap((id) => Array.from({ length: 6 }, (_, k) => [id, k] as const))
            const results = yield* Effect.forEach(
              attempts,
              ([id, k]) =>
                (k % 2 === 0 ? a! : b!).update(id, (e) =>
                  e.data.state === "pending" ? { ...e, data: { ...e.data, state: "fired", by: k } } : undefined
                ),
              {
                concurrency: 8
              }
            )
            assert.strictEqual(results.filter(Option.isSome).length, ids.length)
            const fired = yield* b!.query({ types: ["intention"], data: { state: "fired" } })
            assert.strictEqual(fired.length, ids.length)
          })
        )
      },
      60_000
    )

    it.effect("expired entries drop out of active queries at their instant and stay stored", () => {
      const owner = freshOwner()
      return withStores([storeOn(backend.db, owner)], ([store]) =>
        Effect.gen(function* () {
          yield* store!.insert(makeEntry({ id: "ctx", type: "context", expires: "2026-03-19T16:00:00.000Z" }))
          const active = (at: string) => Effect.map(store!.query({ activeAt: at }), (rows) => rows.map((e) => e.id))
          assert.deepStrictEqual(yield* active("2026-03-19T15:59:59.999Z"), ["ctx"])
          assert.deepStrictEqual(yield* active("2026-03-19T16:00:00.000Z"), [])
          assert.isTrue(Option.isSome(yield* store!.get("ctx")))
        })
      )
    })

    it.effect("expired entries are purged only for owners who opted in with auto_cleanup (upstream #179/#183)", () =>
      Effect.gen(function* () {
        const open = (owner: string) =>
          Effect.provide(
            Effect.all({ store: Store.Store, cleanup: PostgresStore.Cleanup }),
            PostgresStore.layerWith({ owner }).pipe(Layer.provide(Layer.succeedContext(backend.db)))
          )
        const seed = (store: Store.Store["Service"]) =>
          Effect.gen(function* () {
            yield* store.insert(makeEntry({ id: "expired", type: "context", expires: "2026-03-19T16:00:00.000Z" }))
            yield* store.insert(
              makeEntry({ id: "trashed", deleted: "2026-02-01T00:00:00.000Z", expires: "2026-03-03T00:00:00.000Z" })
            )
            yield* store.insert(makeEntry({ id: "live", type: "context", expires: "2026-04-19T16:00:00.000Z" }))
          })
        const now = "2026-03-20T00:00:00.000Z"
        const optedOut = yield* open(freshOwner())
        yield* seed(optedOut.store)
        assert.strictEqual(yield* optedOut.cleanup.purgeExpired(now), 0)
        assert.strictEqual((yield* optedOut.store.query({ deleted: "include" })).length, 3)
        const optedIn = yield* open(freshOwner())
        yield* seed(optedIn.store)
        yield* optedIn.store.insert(
          makeEntry({
            id: "pref",
            type: "preference",
            source: "global",
            data: { key: "auto_cleanup", value: "true", scope: "global" }
          })
        )
        const version = yield* optedIn.store.version
        assert.strictEqual(yield* optedIn.cleanup.purgeExpired(now), 2)
        assert.sameMembers(
          (yield* optedIn.store.query({ deleted: "include" })).map((e) => e.id),
          ["live", "pref"]
        )
        assert.isAbove(yield* optedIn.store.version, version)
        assert.strictEqual((yield* optedOut.store.query({ deleted: "include" })).length, 3)
      })
    )

    it.effect("an entry reads back verbatim: key order, ISO spelling, optional keys and naive timestamps", () => {
      const owner = freshOwner()
      return withStores([storeOn(backend.db, owner)], ([store]) =>
        Effect.gen(function* () {
          const entry = {
            data: { z: 1, a: { y: [3, 2, 1], b: null }, ünï: "✓ 🙂" },
            id: "verbatim",
            type: "note",
            source: "s",
            tags: ["b", "a"],
            created: "2026-03-19T15:00:00Z",
            updated: "2026-03-19T15:00:01",
            expires: null,
            deleted: null,
            logical_key: null
          } as const
          yield* store!.insert(entry as never)
          const found = Option.getOrThrow(yield* store!.get("verbatim"))
          assert.strictEqual(JSON.stringify(found), JSON.stringify(entry))
          // the naive timestamp is UTC for filters
          assert.deepStrictEqual(
            (yield* store!.query({ since: "2026-03-19T15:00:01.000Z" })).map((e) => e.id),
            ["verbatim"]
          )
        })
      )
    })

    it.effect("the version follows every committed write and matches the counter rows", () => {
      const owner = freshOwner()
      return withStores(two(owner), ([a, b]) =>
        Effect.gen(function* () {
          const sql = yield* Effect.provide(
            Effect.map(SqlClient.SqlClient, (sql) => sql),
            Layer.succeedContext(backend.db)
          )
          const counted = Effect.map(
            sql<{ readonly version: number }>`SELECT COALESCE(sum(version), 0)::float8 AS version
              FROM store_versions WHERE owner_id = ${owner}`,
            (rows) => Number(rows[0]?.version)
          )
          const v0 = yield* a!.version
          yield* a!.insert(makeEntry({ id: "v1" }))
          yield* b!.upsert({ type: "note", source: "s" }, () => makeEntry({ id: "v2" }))
          yield* b!.update("v1", () => undefined)
          yield* Effect.flip(a!.insert(makeEntry({ id: "v1" })))
          yield* a!.update("v1", (entry) => ({ ...entry, tags: ["t"] }))
          // three writes committed, through either store of the owner; a declined update and a failed insert did not
          assert.strictEqual(yield* a!.version, v0 + 3)
          assert.strictEqual(yield* b!.version, v0 + 3)
          assert.strictEqual(yield* counted, v0 + 3)
        })
      )
    })

    if (backend.kind === "pglite") {
      it.effect("on PGlite the version is known without a query: it answers while the connection is busy", () => {
        const owner = freshOwner()
        return withStores([storeOn(backend.db, owner)], ([store]) =>
          Effect.gen(function* () {
            const sql = yield* Effect.provide(
              Effect.map(SqlClient.SqlClient, (sql) => sql),
              Layer.succeedContext(backend.db)
            )
            yield* store!.insert(makeEntry({ id: "before" }))
            const expected = yield* store!.version
            const busy = yield* Deferred.make<void>()
            const release = yield* Deferred.make<void>()
            // a transaction holds PGlite's single connection until released
            const holder = yield* Effect.forkChild(
              sql.withTransaction(
                Effect.andThen(
                  Effect.andThen(sql`SELECT 1`, Deferred.succeed(busy, undefined)),
                  Deferred.await(release)
                )
              )
            )
            yield* Deferred.await(busy)
            const reader = yield* Effect.forkChild(store!.version)
            for (let i = 0; i < 100 && reader.pollUnsafe() === undefined; i++) yield* Effect.yieldNow
            const answered = reader.pollUnsafe()
            yield* Deferred.succeed(release, undefined)
            yield* Fiber.join(holder)
            assert.isDefined(answered, "the version read waited for the connection")
            assert.strictEqual(yield* Fiber.join(reader), expected)
          })
        )
      })
    }

    it.effect("a column edited by plain SQL wins over the stored envelope", () => {
      const owner = freshOwner()
      return Effect.gen(function* () {
        const store = yield* Effect.provide(
          Effect.map(Store.Store, (store) => store),
          // PGlite's in-memory reads see only the store's own writes (see `memoryReads`)
          storeOn(backend.db, owner, { memoryReads: false })
        )
        yield* store.insert(makeEntry({ id: "edited", data: { description: "before" } }))
        const sql = yield* Effect.provide(
          Effect.map(SqlClient.SqlClient, (sql) => sql),
          Layer.succeedContext(backend.db)
        )
        yield* sql`UPDATE entries SET data = ${'{"description":"after"}'}::jsonb WHERE owner_id = ${owner} AND id = 'edited'`
        const found = Option.getOrThrow(yield* store.get("edited"))
        assert.deepStrictEqual(found.data, { description: "after" })
        assert.strictEqual(found.created, makeEntry({ id: "x" }).created)
      }).pipe(Effect.scoped)
    })
  })
}

describe("layerConfig", () => {
  it.effect.skipIf(serverUnavailable !== undefined)(
    "reads DATABASE_URL and AWARENESS_DEFAULT_OWNER from Config",
    () => {
      const schema = freshSchema("config")
      const owner = freshOwner("configured")
      const env = ConfigProvider.fromEnvRecord({ DATABASE_URL: serverUrl, AWARENESS_DEFAULT_OWNER: owner })
      return Effect.gen(function* () {
        const store = yield* Store.Store
        yield* store.insert(makeEntry({ id: "configured" }))
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ readonly owner_id: string }>`SELECT owner_id FROM entries WHERE id = 'configured'`
        assert.deepStrictEqual(
          rows.map((r) => r.owner_id),
          [owner]
        )
      }).pipe(
        Effect.provide(
          PostgresStore.layerConfig({
            url: Config.Redacted("DATABASE_URL"),
            schema: Config.succeed(schema),
            owner: Config.String("AWARENESS_DEFAULT_OWNER")
          }).pipe(Layer.provideMerge(schemaCleanup(schema)), Layer.provide(ConfigProvider.layer(env)))
        )
      )
    },
    60_000
  )

  it.effect("fails with a ConfigError when DATABASE_URL is missing", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        Effect.provide(
          Effect.void,
          PostgresStore.layerConfig().pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord({}))))
        )
      )
      assert.strictEqual(error._tag, "ConfigError")
    })
  )
})
