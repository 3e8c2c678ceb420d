import { describe, it } from "@effect/vitest"
import { StoreContract } from "@heed/collator/testing"
import { Effect, Layer } from "effect"
import { Database, PostgresStore } from "../src/index.ts"
import { freshSchema, schemaCleanup, serverUnavailable, serverUrl } from "./utils/server.ts"
import { freshOwner, freshStore, shared } from "./utils/shared.ts"

// Building a fresh PGlite per test takes seconds on a loaded machine: give each test a minute.
const slowIt = {
  effect: (name: string, body: () => Effect.Effect<void, unknown, never>) => it.effect(name, body, 60_000)
}

// The public layers, each build a fresh store: a new in-memory PGlite, or a new owner on the server.
StoreContract.run({
  name: "layerEmbedded (PGlite memory://)",
  layer: PostgresStore.layerEmbedded({ dataDir: "memory://" }),
  describe,
  it: slowIt
})

// `layerWith` over one shared database, a fresh owner per test (connections shared by several owners).
const embedded = await shared(Database.layerEmbedded({ dataDir: "memory://" }))
StoreContract.run({ name: "layerWith over a shared PGlite", layer: freshStore(embedded), describe, it })

if (serverUnavailable === undefined) {
  const schema = freshSchema("contract")
  const server = await shared(
    Database.layer({ url: serverUrl, schema }).pipe(Layer.provideMerge(schemaCleanup(schema)))
  )
  StoreContract.run({
    name: `layer (PostgreSQL ${serverUrl})`,
    layer: Layer.unwrap(
      Effect.sync(() => PostgresStore.layer({ url: serverUrl, schema, owner: freshOwner(), maxConnections: 4 }))
    ),
    describe,
    it
  })
  StoreContract.run({ name: "layerWith over a shared PostgreSQL pool", layer: freshStore(server), describe, it })
}
