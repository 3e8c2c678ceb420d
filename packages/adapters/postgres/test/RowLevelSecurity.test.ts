import { assert, describe, it } from "@effect/vitest"
import { Store } from "@heed/collator"
import { StoreContract } from "@heed/collator/testing"
import { Effect, Layer, Option } from "effect"
import * as Context from "effect/Context"
import * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { Database, PgliteClient, PostgresStore } from "../src/index.ts"
import { adminLayer, freshSchema, schemaCleanup, serverUnavailable, serverUrl } from "./utils/server.ts"
import { type Db, freshOwner, shared } from "./utils/shared.ts"

const { makeEntry } = StoreContract
const role = "heed_rls_app"

const storeFor = (db: Context.Context<Db>, owner: string) =>
  Effect.provide(
    Effect.map(Store.Store, (store) => store),
    PostgresStore.layerWith({ owner }).pipe(Layer.provide(Layer.succeedContext(db)))
  )

const sqlOf = (db: Context.Context<Db>) =>
  Effect.provide(
    Effect.map(SqlClient.SqlClient, (sql) => sql),
    Layer.succeedContext(db)
  )

/** Runs `statement` as `owner` (or with no owner set), straight in SQL: only RLS stands between owners here. */
const asOwner = <A>(sql: SqlClient.SqlClient, owner: string | undefined, statement: Effect.Effect<A, unknown>) =>
  sql.withTransaction(
    owner === undefined
      ? statement
      : Effect.andThen(sql`SELECT set_config('app.current_user', ${owner}, true)`, statement)
  )

const asOwnerSql = <A>(sql: SqlClient.SqlClient, owner: string, statement: Effect.Effect<A, SqlError>) =>
  sql.withTransaction(Effect.andThen(sql`SELECT set_config('app.current_user', ${owner}, true)`, statement))

/** The RLS suite, on a connection that runs as a non-superuser NOBYPASSRLS role. */
const suite = (db: () => Context.Context<Db>) => {
  it.effect("guardrail: the connection is a non-superuser without BYPASSRLS, so the policies are enforced", () =>
    Effect.gen(function* () {
      const sql = yield* sqlOf(db())
      const rows = yield* sql<{ readonly rolsuper: boolean; readonly rolbypassrls: boolean }>`
        SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user`
      assert.deepStrictEqual(
        rows.map((r) => [r.rolsuper, r.rolbypassrls]),
        [[false, false]]
      )
      // a write as one owner is invisible to raw SQL as another owner, and to a session with no owner at all
      const alice = freshOwner("alice")
      const store = yield* storeFor(db(), alice)
      yield* store.insert(makeEntry({ id: "guard", data: { description: "secret" } }))
      const seen = (owner: string | undefined) =>
        asOwner(sql, owner, sql<{ readonly id: string }>`SELECT id FROM entries WHERE id = 'guard'`)
      assert.strictEqual((yield* seen(alice)).length, 1)
      assert.strictEqual((yield* seen(freshOwner("mallory"))).length, 0)
      assert.strictEqual((yield* seen(undefined)).length, 0)
    })
  )

  it.effect("two owners on one database never see or touch each other's entries", () =>
    Effect.gen(function* () {
      const aliceId = freshOwner("alice")
      const bobId = freshOwner("bob")
      const alice = yield* storeFor(db(), aliceId)
      const bob = yield* storeFor(db(), bobId)
      yield* alice.insert(makeEntry({ id: "same-id", type: "note", data: { description: "alice's" } }))
      yield* alice.insert(makeEntry({ id: "alice-only", type: "alert", source: "nas", data: { alert_id: "cpu" } }))
      assert.isTrue(Option.isNone(yield* bob.get("alice-only")))
      assert.deepStrictEqual(yield* bob.query({}), [])
      // the same id is free for another owner: ids neither collide nor reveal anything across owners
      yield* bob.insert(makeEntry({ id: "same-id", type: "note", data: { description: "bob's" } }))
      assert.strictEqual(Option.getOrThrow(yield* alice.get("same-id")).data.description, "alice's")
      assert.strictEqual(Option.getOrThrow(yield* bob.get("same-id")).data.description, "bob's")
      // bob cannot update alice's entry, and his upsert on the same key creates his own row
      assert.isTrue(Option.isNone(yield* bob.update("alice-only", (e) => ({ ...e, source: "stolen" }))))
      const result = yield* bob.upsert(
        { type: "alert", source: "nas", data: { alert_id: "cpu" } },
        (existing) =>
          existing ?? makeEntry({ id: "bob-alert", type: "alert", source: "nas", data: { alert_id: "cpu" } })
      )
      assert.isTrue(Option.isNone(result.previous))
      assert.deepStrictEqual(
        (yield* alice.query({ types: ["alert"] })).map((e) => [e.id, e.source]),
        [["alice-only", "nas"]]
      )
      // versions are per owner
      const before = yield* alice.version
      yield* bob.insert(makeEntry({ id: "bob-2" }))
      assert.strictEqual(yield* alice.version, before)
    })
  )

  it.effect("policies: rows of another owner cannot be written, updated or deleted by raw SQL", () =>
    Effect.gen(function* () {
      const sql = yield* sqlOf(db())
      const aliceId = freshOwner("alice")
      const bobId = freshOwner("bob")
      const bob = yield* storeFor(db(), bobId)
      yield* bob.insert(makeEntry({ id: "bobs" }))
      const forged = yield* Effect.flip(
        asOwnerSql(
          sql,
          aliceId,
          sql`INSERT INTO entries (id, owner_id, type, source, created) VALUES ('forged', ${bobId}, 'note', 's', now())`
        )
      )
      assert.strictEqual(forged.reason._tag, "AuthorizationError")
      const cause = forged.reason.cause
      assert.include(cause instanceof Error ? cause.message : forged.message, "row-level security")
      const updated = yield* asOwner(
        sql,
        aliceId,
        sql<{ readonly id: string }>`
        UPDATE entries SET source = 'hijacked' WHERE owner_id = ${bobId} RETURNING id`
      )
      assert.strictEqual(updated.length, 0)
      const deleted = yield* asOwner(sql, aliceId, sql<{ readonly id: string }>`DELETE FROM entries RETURNING id`)
      assert.strictEqual(deleted.length, 0)
      assert.strictEqual(Option.getOrThrow(yield* bob.get("bobs")).source, "test")
      const versions = yield* asOwner(
        sql,
        aliceId,
        sql<{ readonly owner_id: string }>`SELECT owner_id FROM store_versions`
      )
      assert.deepStrictEqual(versions, [])
    })
  )

  it.effect("schema entries of the _system owner are readable by every owner, but not writable", () =>
    Effect.gen(function* () {
      const sql = yield* sqlOf(db())
      const system = yield* storeFor(db(), "_system")
      yield* system.upsert({ type: "schema", source: "heed", logical_key: "family:1" }, () =>
        makeEntry({ id: "shared-schema", type: "schema", source: "heed", logical_key: "family:1" })
      )
      const aliceId = freshOwner("alice")
      const seen = yield* asOwner(
        sql,
        aliceId,
        sql<{ readonly id: string }>`
        SELECT id FROM entries WHERE owner_id = '_system'`
      )
      assert.deepStrictEqual(
        seen.map((r) => r.id),
        ["shared-schema"]
      )
      const changed = yield* asOwner(
        sql,
        aliceId,
        sql<{ readonly id: string }>`
        UPDATE entries SET source = 'x' WHERE owner_id = '_system' RETURNING id`
      )
      assert.strictEqual(changed.length, 0)
    })
  )
}

const setUpPglite = Effect.gen(function* () {
  const db = yield* Effect.promise(() => shared(Database.layerEmbedded({ dataDir: "memory://" })))
  const client = yield* Effect.provide(
    Effect.map(PgliteClient.PgliteClient, (c) => c),
    Layer.succeedContext(db)
  )
  yield* client.sql.unsafe(`CREATE ROLE ${role} NOSUPERUSER NOBYPASSRLS`)
  yield* client.sql.unsafe(`GRANT USAGE ON SCHEMA public TO ${role}`)
  yield* client.sql.unsafe(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${role}`)
  // PGlite is one session: from here on every statement, the stores' included, runs as the role
  yield* client.sql.unsafe(`SET ROLE ${role}`)
  return db
})

const setUpServer = Effect.gen(function* () {
  const schema = freshSchema("rls")
  yield* Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql
      .unsafe(`DO $$ BEGIN
      IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${role}') THEN
        CREATE ROLE ${role} LOGIN NOSUPERUSER NOBYPASSRLS;
      END IF;
    END $$`)
      .pipe(
        Effect.catchIf(
          (e) => e.reason._tag === "UniqueViolation",
          () => Effect.void
        )
      )
    yield* sql.unsafe(`CREATE SCHEMA ${schema} AUTHORIZATION ${role}`)
  }).pipe(Effect.provide(adminLayer))
  const url = new URL(serverUrl)
  url.username = role
  url.password = ""
  // the role owns the schema and, through the migrations, the tables: FORCE ROW LEVEL SECURITY binds it anyway
  const db = yield* Effect.promise(() =>
    shared(Database.layer({ url: url.toString(), schema }).pipe(Layer.provideMerge(schemaCleanup(schema))))
  )
  return { db, url: url.toString(), schema }
})

const pgliteDb = await Effect.runPromise(setUpPglite)
describe("row-level security on PGlite (as a NOBYPASSRLS role)", () => suite(() => pgliteDb))

if (serverUnavailable === undefined) {
  const server = await Effect.runPromise(setUpServer)
  describe("row-level security on PostgreSQL (as a NOBYPASSRLS role)", () => {
    suite(() => server.db)

    it.effect(
      "the public layer carries the owner in every pooled session: reads and writes pass RLS",
      () =>
        Effect.gen(function* () {
          const aliceId = freshOwner("alice")
          // built in the test's scope: the layer owns its pool, which must outlive this helper
          const viaLayer = (owner: string) =>
            Effect.map(
              Layer.build(PostgresStore.layer({ url: server.url, schema: server.schema, owner })),
              Context.get(Store.Store)
            )
          const alice = yield* viaLayer(aliceId)
          yield* alice.insert(makeEntry({ id: "pooled", data: { description: "alice's" } }))
          // several reads at once, so the pool hands out more than one connection
          const reads = yield* Effect.all(
            Array.from({ length: 6 }, () => alice.get("pooled")),
            { concurrency: "unbounded" }
          )
          assert.isTrue(reads.every(Option.isSome))
          assert.deepStrictEqual(
            (yield* alice.query({})).map((e) => e.id),
            ["pooled"]
          )
          assert.isAbove(yield* alice.version, 0)
          const bob = yield* viaLayer(freshOwner("bob"))
          assert.isTrue(Option.isNone(yield* bob.get("pooled")))
          assert.deepStrictEqual(yield* bob.query({}), [])
        }).pipe(Effect.scoped),
      60_000
    )
  })
}
