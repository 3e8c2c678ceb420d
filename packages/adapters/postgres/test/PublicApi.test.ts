/**
 * Acceptance-style checks of issue 8's public API, imported only from the package name: `layerEmbedded({ dataDir })`
 * with `memory://` and a directory, `layer({ url })`, `layerConfig` (from `DATABASE_URL`), the Migrator migrations,
 * and the collator's `Store` port on top.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Store } from "@heed/collator"
import { StoreContract } from "@heed/collator/testing"
import { Database, Migrations, PostgresStore } from "@heed/postgres"
import { Cause, Effect, Exit, Option } from "effect"
import * as ConfigProvider from "effect/ConfigProvider"
import * as SqlClient from "effect/sql/SqlClient"
import * as SqlError from "effect/sql/SqlError"
import { serverUnavailable, serverUrl } from "./utils/server.ts"

// The Store port only: Awareness on these layers is packages/tests' PostgresAwareness test.
const insertAlert = Effect.gen(function* () {
  const store = yield* Store.Store
  yield* store.insert(
    StoreContract.makeEntry({
      id: `alert-${Date.now().toString(36)}`,
      type: "alert",
      source: "nas",
      tags: ["infra"],
      data: { alert_id: "disk", level: "warning", alert_type: "threshold", message: "Disk 91% full", resolved: false }
    })
  )
})

const queryAlerts = Effect.gen(function* () {
  const store = yield* Store.Store
  return yield* store.query({ types: ["alert"] })
})

const queryAll = Effect.gen(function* () {
  const store = yield* Store.Store
  return yield* store.query({})
})

const unique = () => `public-api-${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`

describe("@heed/postgres public API", () => {
  it.effect(
    "layerEmbedded({ dataDir: 'memory://' }) provides the collator's Store",
    () =>
      Effect.gen(function* () {
        yield* insertAlert
        const alerts = yield* queryAlerts
        assert.deepStrictEqual(
          alerts.map((entry) => [entry.source, (entry.data as { alert_id?: string }).alert_id]),
          [["nas", "disk"]]
        )
      }).pipe(Effect.provide(PostgresStore.layerEmbedded({ dataDir: "memory://" }))),
    60_000
  )

  it.effect(
    "layerEmbedded({ dataDir }) on a directory keeps entries across a close and reopen",
    () =>
      Effect.gen(function* () {
        const dir = mkdtempSync(join(tmpdir(), "heed-public-api-"))
        yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dir, { recursive: true, force: true })))
        const dataDir = join(dir, "data")
        yield* insertAlert.pipe(Effect.provide(PostgresStore.layerEmbedded({ dataDir })))
        const alerts = yield* queryAlerts.pipe(Effect.provide(PostgresStore.layerEmbedded({ dataDir })))
        assert.deepStrictEqual(
          alerts.map((entry) => [entry.source, (entry.data as { alert_id?: string }).alert_id]),
          [["nas", "disk"]]
        )
      }),
    120_000
  )

  it.effect(
    "Migrations.migrations are Migrator records; a re-run on a migrated database applies nothing",
    () =>
      Effect.gen(function* () {
        assert.deepStrictEqual(Object.keys(Migrations.migrations), [
          "1_create_entries",
          "2_create_reads_actions",
          "3_create_store_versions",
          "4_row_level_security",
          "5_change_feed",
          "6_store_changes"
        ])
        const again = yield* Migrations.run
        assert.deepStrictEqual(again, [])
        const sql = yield* SqlClient.SqlClient
        const applied = yield* sql<{ readonly migration_id: number }>`
          SELECT migration_id FROM ${sql(Migrations.table)} ORDER BY migration_id`
        assert.deepStrictEqual(
          applied.map((row) => Number(row.migration_id)),
          [1, 2, 3, 4, 5, 6]
        )
        const generated = yield* sql<{ readonly is_generated: string }>`
          SELECT is_generated FROM information_schema.columns
          WHERE table_schema = current_schema() AND table_name = 'entries' AND column_name = 'tsv'`
        assert.strictEqual(generated[0]?.is_generated, "ALWAYS")
        const rls = yield* sql<{ readonly relname: string; readonly forced: boolean }>`
          SELECT relname, relforcerowsecurity AS forced FROM pg_class
          WHERE relname IN ('entries', 'reads', 'actions') AND relrowsecurity ORDER BY relname`
        assert.deepStrictEqual(
          rls.map((row) => [row.relname, row.forced]),
          [
            ["actions", true],
            ["entries", true],
            ["reads", true]
          ]
        )
      }).pipe(Effect.provide(Database.layerEmbedded({ dataDir: "memory://" }))),
    60_000
  )

  it.effect("PostgresStore.defaultOwner is 'default' and the barrel's layers are PostgresStore's", () =>
    Effect.sync(() => {
      assert.strictEqual(PostgresStore.defaultOwner, "default")
      assert.strictEqual(PostgresStore.layerEmbedded, PostgresStore.layerEmbedded)
      assert.strictEqual(PostgresStore.layer, PostgresStore.layer)
      assert.strictEqual(PostgresStore.layerConfig, PostgresStore.layerConfig)
    })
  )

  it.effect("layer({ url }) to an unreachable server fails with a typed error, not a defect", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(
        queryAll.pipe(
          Effect.provide(PostgresStore.layer({ url: "postgres://nobody@127.0.0.1:1/none", maxConnections: 1 })),
          Effect.timeout("20 seconds")
        )
      )
      assert.isTrue(Exit.isFailure(exit))
      if (Exit.isFailure(exit)) {
        // One expected failure: no defect, no interruption, and the error is the SqlError of the connection.
        assert.isFalse(Cause.hasDies(exit.cause))
        assert.isFalse(Cause.hasInterrupts(exit.cause))
        const error = Cause.findErrorOption(exit.cause)
        assert.isTrue(Option.isSome(error))
        if (Option.isSome(error)) {
          assert.isTrue(SqlError.isSqlError(error.value))
          assert.strictEqual((error.value as SqlError.SqlError).reason._tag, "ConnectionError")
        }
      }
    })
  )

  it.effect.skipIf(serverUnavailable !== undefined)(
    `layer({ url }) on the server (${serverUrl}) provides the Store`,
    () =>
      Effect.gen(function* () {
        yield* insertAlert
        assert.deepStrictEqual(
          (yield* queryAlerts).map((entry) => entry.source),
          ["nas"]
        )
      }).pipe(Effect.provide(PostgresStore.layer({ url: serverUrl, owner: unique() })), Effect.timeout("60 seconds")),
    60_000
  )

  it.effect.skipIf(serverUnavailable !== undefined)(
    "layerConfig() reads the server URL from DATABASE_URL",
    () =>
      Effect.gen(function* () {
        const owner = unique()
        const provider = ConfigProvider.fromEnv({ env: { DATABASE_URL: serverUrl, AWARENESS_DEFAULT_OWNER: owner } })
        const entries = yield* Effect.andThen(insertAlert, queryAlerts).pipe(
          Effect.provide(PostgresStore.layerConfig()),
          Effect.provideService(ConfigProvider.ConfigProvider, provider)
        )
        assert.strictEqual(entries.length, 1)
        const missing = yield* Effect.exit(
          queryAll.pipe(
            Effect.provide(PostgresStore.layerConfig()),
            Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnv({ env: {} }))
          )
        )
        assert.strictEqual(missing._tag, "Failure")
        if (missing._tag === "Failure") assert.include(String(missing.cause), "DATABASE_URL")
      }),
    60_000
  )
})
