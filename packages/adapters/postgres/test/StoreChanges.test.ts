/**
 * `Store.changes` on a PostgreSQL server: a store sees what another connection pool wrote through the change log,
 * and answers `None` once the log no longer holds what it would need (as when a replica fell too far behind).
 */
import { assert, describe, it } from "@effect/vitest"
import { Store } from "@heed/collator"
import { StoreContract } from "@heed/collator/testing"
import { Effect, Layer, Option } from "effect"
import type * as Context from "effect/Context"
import * as SqlClient from "effect/sql/SqlClient"
import { PostgresStore } from "../src/index.ts"
import { backends, type Db, freshOwner } from "./utils/shared.ts"

const { makeEntry } = StoreContract

const open = (db: Context.Context<Db>, owner: string) =>
  Effect.provide(
    Effect.service(Store.Store),
    PostgresStore.layerWith({ owner }).pipe(Layer.provide(Layer.succeedContext(db)))
  )

const sortedIds = (changes: Option.Option<Store.Changes>) => Option.map(changes, (c) => [...c.ids].sort())

for (const backend of await backends("changes")) {
  if (backend.kind !== "pg") continue
  describe("Store.changes on a PostgreSQL server", () => {
    it.effect("names the entries another pool wrote and removed, up to the version it reports", () =>
      Effect.gen(function* () {
        const owner = freshOwner()
        const writer = yield* open(backend.db, owner)
        const reader = yield* open(backend.other, owner)
        yield* writer.insert(makeEntry({ id: "s1", type: "status", source: "nas" }))
        const since = yield* reader.version
        yield* writer.insert(makeEntry({ id: "n1" }))
        yield* writer.upsert({ type: "status", source: "nas" }, () =>
          makeEntry({ id: "s2", type: "status", source: "nas" })
        )
        yield* writer.update("n1", (entry) => ({ ...entry, tags: ["t"] }))
        const changes = yield* reader.changes!(since)
        assert.deepStrictEqual(sortedIds(changes), Option.some(["n1", "s1", "s2"]))
        assert.strictEqual(Option.getOrThrow(changes).version, yield* reader.version)
      })
    )

    it.effect("answers None for a version whose shards' log was pruned, and for a version it never handed out", () =>
      Effect.gen(function* () {
        const owner = freshOwner()
        const writer = yield* open(backend.db, owner)
        const reader = yield* open(backend.other, owner)
        const since = yield* reader.version
        for (let i = 0; i < 3; i++) yield* writer.insert(makeEntry({ id: `p${i}` }))
        assert.isTrue(Option.isSome(yield* reader.changes!(since)))
        // what pruning does to a reader further behind than the log keeps
        const sql = yield* Effect.provide(Effect.service(SqlClient.SqlClient), Layer.succeedContext(backend.db))
        yield* sql`DELETE FROM store_changes WHERE owner_id = ${owner} AND version = 1`
        assert.isTrue(Option.isNone(yield* reader.changes!(since)))
        assert.isTrue(Option.isNone(yield* reader.changes!(since + 1000)))
      })
    )
  })
}
