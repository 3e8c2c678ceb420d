import { spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as SqlClient from "effect/sql/SqlClient"
import { Database, PgliteClient } from "../src/index.ts"

const freshFixture = fileURLToPath(new URL("./fixtures/fresh.ts", import.meta.url))

const sharedBuffers = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ shared_buffers: string }>`SHOW shared_buffers`
  return rows[0]?.shared_buffers
})

describe("PGlite settings", () => {
  it.effect(
    "shared_buffers is 16MB by default (not PostgreSQL's 128MB, which cost ~115 MB of RSS) and configurable",
    () =>
      Effect.gen(function* () {
        assert.strictEqual(PgliteClient.defaultSharedBuffers, "16MB")
        const fallback = yield* sharedBuffers.pipe(Effect.provide(Database.layerEmbedded({ dataDir: "memory://" })))
        assert.strictEqual(fallback, "16MB")
        const chosen = yield* sharedBuffers.pipe(
          Effect.provide(Database.layerEmbedded({ dataDir: "memory://", sharedBuffers: "32MB" }))
        )
        assert.strictEqual(chosen, "32MB")
      }),
    60_000
  )

  it.effect(
    "a new data directory is created in a child process: the opening process makes only its own WebAssembly memory",
    () =>
      Effect.gen(function* () {
        const dir = mkdtempSync(join(tmpdir(), "heed-pglite-fresh-"))
        yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dir, { recursive: true, force: true })))
        const dataDir = join(dir, "data")
        const open = () =>
          spawnSync(process.execPath, ["--conditions=@heed/source", freshFixture, dataDir], {
            encoding: "utf8",
            timeout: 120_000
          })
        // PGlite's in-process initdb made three (its own, a second instance's, initdb's), freed only by a later GC
        const first = open()
        assert.strictEqual(first.stdout.trim(), "memories 1 42", first.stderr)
        assert.isTrue(existsSync(join(dataDir, "PG_VERSION")))
        const again = open()
        assert.strictEqual(again.stdout.trim(), "memories 1 42", again.stderr)
        // initialize leaves an existing database and memory:// alone
        yield* PgliteClient.initialize({ dataDir })
        yield* PgliteClient.initialize({ dataDir: "memory://" })
      }),
    240_000
  )

  it.effect(
    "initialize reports why initdb failed",
    () =>
      Effect.gen(function* () {
        const dir = mkdtempSync(join(tmpdir(), "heed-pglite-fail-"))
        yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dir, { recursive: true, force: true })))
        // a regular file where the data directory should be
        const blocked = join(dir, "file")
        spawnSync("touch", [blocked])
        const error = yield* Effect.flip(PgliteClient.initialize({ dataDir: join(blocked, "data") }))
        assert.include(error.message, `Could not create a database in ${join(blocked, "data")}`)
      }),
    120_000
  )
})
