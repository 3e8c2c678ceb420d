import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as SqlClient from "effect/sql/SqlClient"
import { Database, PgliteClient } from "../src/index.ts"

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
})
