/**
 * One database per test file, shared by its tests: each test gets a store for a fresh owner, which is empty from
 * its point of view (row-level security and owner filters keep owners apart).
 */
import { afterAll } from "@effect/vitest"
import { Effect, Exit, Layer, Scope } from "effect"
import type * as Context from "effect/Context"
import type * as SqlClient from "effect/sql/SqlClient"
import { Database, PostgresStore } from "../../src/index.ts"

export type Db = SqlClient.SqlClient | Database.Backend

/** Builds `layer` once for this file (released after the file's tests). */
export const shared = async <A, E>(layer: Layer.Layer<A, E>): Promise<Context.Context<A>> => {
  const scope = Scope.makeUnsafe()
  afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)), 30_000)
  return Effect.runPromise(Layer.buildWithScope(layer, scope))
}

let counter = 0

/** A unique owner id. */
export const freshOwner = (prefix = "owner"): string =>
  `${prefix}-${process.pid}-${Date.now().toString(36)}-${(counter++).toString(36)}`

/** A store layer over `db` for a fresh owner on every build. */
export const freshStore = (db: Context.Context<Db>, options: PostgresStore.StoreOptions = {}) =>
  Layer.unwrap(Effect.sync(() => PostgresStore.layerWith({ ...options, owner: options.owner ?? freshOwner() }))).pipe(
    Layer.provide(Layer.succeedContext(db))
  )

/** A database under test: two independent connections (pools) to it where the backend has more than one. */
export interface Backend {
  readonly name: string
  readonly kind: "pglite" | "pg"
  /** The first connection. */
  readonly db: Context.Context<Db>
  /** A second, independent connection (its own pool) on a server; the same client on PGlite (one session). */
  readonly other: Context.Context<Db>
}

/**
 * The backends of this test file: an in-memory PGlite and, when reachable, a fresh schema on the PostgreSQL server
 * (dropped after the file).
 */
export const backends = async (label: string): Promise<ReadonlyArray<Backend>> => {
  const { freshSchema, schemaCleanup, serverUnavailable, serverUrl } = await import("./server.ts")
  const embedded = await shared(Database.layerEmbedded({ dataDir: "memory://" }))
  const out: Array<Backend> = [{ name: "PGlite", kind: "pglite", db: embedded, other: embedded }]
  if (serverUnavailable === undefined) {
    const schema = freshSchema(label)
    const db = await shared(Database.layer({ url: serverUrl, schema }).pipe(Layer.provideMerge(schemaCleanup(schema))))
    const other = await shared(Database.layer({ url: serverUrl, schema }))
    out.push({ name: "PostgreSQL", kind: "pg", db, other })
  }
  return out
}
