import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import { Database, Migrations, PgliteClient } from "../src/index.ts"
import { freshSchema, schemaCleanup, serverUnavailable, serverUrl } from "./utils/server.ts"

const expectedIndexes = [
  "entries_owner_idx",
  "entries_owner_type_idx",
  "entries_owner_source_idx",
  "entries_owner_type_source_idx",
  "entries_tags_idx",
  "entries_logical_key_idx",
  "entries_tsv_idx",
  "entries_language_idx"
]

/** Checks the migrated schema in the client's current schema. */
const checkSchema = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const tables = yield* sql<{ readonly table_name: string }>`
    SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name`
  assert.deepStrictEqual(
    tables.map((t) => t.table_name),
    ["actions", "entries", "heed_migrations", "reads", "store_changes", "store_versions"]
  )
  const columns = yield* sql<{ readonly column_name: string }>`
    SELECT column_name FROM information_schema.columns
    WHERE table_schema = current_schema() AND table_name = 'entries' ORDER BY ordinal_position`
  assert.deepStrictEqual(
    columns.map((c) => c.column_name),
    [
      "id",
      "owner_id",
      "type",
      "source",
      "tags",
      "created",
      "updated",
      "expires",
      "deleted",
      "data",
      "logical_key",
      "envelope",
      "language",
      "tsv"
    ]
  )
  const indexes = yield* sql<{ readonly indexname: string }>`
    SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'entries'`
  for (const name of expectedIndexes)
    assert.include(
      indexes.map((i) => i.indexname),
      name
    )
  const rls = yield* sql<{
    readonly relname: string
    readonly relrowsecurity: boolean
    readonly relforcerowsecurity: boolean
  }>`
    SELECT c.relname, c.relrowsecurity, c.relforcerowsecurity FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND c.relname IN ('entries', 'reads', 'actions', 'store_changes', 'store_versions')
    ORDER BY c.relname`
  assert.deepStrictEqual(
    rls.map((r) => [r.relname, r.relrowsecurity, r.relforcerowsecurity]),
    [
      ["actions", true, true],
      ["entries", true, true],
      ["reads", true, true],
      ["store_changes", true, true],
      ["store_versions", true, true]
    ]
  )
  // The generated tsv carries upstream's weights: description A, content B, goal B, tags C.
  yield* sql`SELECT set_config('app.current_user', 'o1', false)`
  yield* sql`INSERT INTO entries (id, owner_id, type, source, tags, data, language)
    VALUES ('w1', 'o1', 'note', 's', '["gardening"]'::jsonb,
      '{"description":"walking","content":"running","goal":"swimming"}'::jsonb, 'english'::regconfig)`
  const tsv = yield* sql<{ readonly tsv: string }>`SELECT tsv::text AS tsv FROM entries WHERE id = 'w1'`
  assert.strictEqual(tsv[0]!.tsv, "'garden':4C 'run':2B 'swim':3B 'walk':1A")
  // Stemming: "walked" finds "walking" through the english configuration.
  const found = yield* sql<{ readonly id: string }>`
    SELECT id FROM entries WHERE tsv @@ plainto_tsquery('english'::regconfig, ${"walked"})`
  assert.deepStrictEqual(
    found.map((r) => r.id),
    ["w1"]
  )
  yield* sql`DELETE FROM entries WHERE id = 'w1'`
})

const upThenIdempotent = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const applied = yield* sql<{ readonly migration_id: number; readonly name: string }>`
    SELECT migration_id, name FROM heed_migrations ORDER BY migration_id`
  assert.deepStrictEqual(
    applied.map((m) => [m.migration_id, m.name]),
    [
      [1, "create_entries"],
      [2, "create_reads_actions"],
      [3, "create_store_versions"],
      [4, "row_level_security"],
      [5, "change_feed"],
      [6, "store_changes"]
    ]
  )
  // Re-running on an up-to-date database applies nothing and changes nothing.
  assert.deepStrictEqual(yield* Migrations.run, [])
  assert.deepStrictEqual(yield* Migrations.run, [])
  yield* checkSchema
})

describe("Migrations on PGlite", () => {
  it.effect(
    "run up from an empty database, then re-run idempotently",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const before = yield* sql<{ readonly n: number }>`
        SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = current_schema()`
        assert.strictEqual(before[0]!.n, 0)
        const applied = yield* Migrations.run
        assert.deepStrictEqual(
          applied.map(([id]) => id),
          [1, 2, 3, 4, 5, 6]
        )
        yield* upThenIdempotent
      }).pipe(Effect.provide(PgliteClient.layer({ dataDir: "memory://" }))),
    60_000
  )

  it.effect(
    "layerEmbedded migrates on build",
    () => upThenIdempotent.pipe(Effect.provide(Database.layerEmbedded({ dataDir: "memory://" }))),
    60_000
  )
})

describe.skipIf(serverUnavailable !== undefined)(`Migrations on PostgreSQL (${serverUrl})`, () => {
  it.effect(
    "run up from an empty schema, then re-run idempotently",
    () => {
      const schema = freshSchema("mig")
      return upThenIdempotent.pipe(
        Effect.provide(Database.layer({ url: serverUrl, schema }).pipe(Layer.provideMerge(schemaCleanup(schema))))
      )
    },
    60_000
  )

  it.effect(
    "concurrent starters apply each migration exactly once",
    () => {
      const schema = freshSchema("migc")
      const starter = Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM heed_migrations`
        return rows[0]!.n
      }).pipe(Effect.provide(Database.layer({ url: serverUrl, schema, maxConnections: 2 })))
      return Effect.gen(function* () {
        const counts = yield* Effect.all([starter, starter, starter], { concurrency: "unbounded" })
        assert.deepStrictEqual(counts, [6, 6, 6])
      }).pipe(Effect.provide(schemaCleanup(schema)))
    },
    60_000
  )

  it.effect("rejects a schema name that is not a plain identifier", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        Effect.provide(Effect.void, Database.layer({ url: serverUrl, schema: "x; DROP TABLE entries" }))
      )
      assert.strictEqual(error._tag, "DatabaseConfigError")
    })
  )
})
