/**
 * Test access to the real PostgreSQL server: the URL comes from `HEED_TEST_DATABASE_URL` (default
 * `postgres://postgres@127.0.0.1:5432/test`). When the server is unreachable the server suites fail under `CI=true`
 * and are skipped with a printed reason otherwise.
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as SqlClient from "effect/sql/SqlClient"

export const serverUrl = process.env.HEED_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"

/** A connection as the (super)user of `serverUrl`, for set-up and inspection. */
export const adminLayer = PgClient.layer({
  url: Redacted.make(serverUrl),
  maxConnections: 2,
  connectTimeout: "3 seconds"
})

const probe = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`SELECT 1`
}).pipe(Effect.provide(adminLayer), Effect.timeout("5 seconds"))

/** `undefined` when the server answers, otherwise the reason it could not be used. */
export const serverUnavailable: string | undefined = await Effect.runPromise(
  probe.pipe(
    Effect.as(undefined),
    Effect.catchCause((cause) => Effect.succeed(String(cause)))
  )
)

if (serverUnavailable !== undefined) {
  if (process.env.CI === "true") {
    throw new Error(`PostgreSQL at ${serverUrl} is unreachable and CI=true: ${serverUnavailable}`)
  }
  console.warn(`Skipping PostgreSQL server tests: ${serverUrl} is unreachable (${serverUnavailable})`)
}

/** A schema name unique to this test run, so parallel test files never share tables. */
export const freshSchema = (prefix: string): string =>
  `heed_t_${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 10)}`

/** Drops `schema` (and everything in it) on the admin connection. */
export const dropSchema = (schema: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`DROP SCHEMA IF EXISTS ${sql(schema)} CASCADE`
  }).pipe(Effect.provide(adminLayer), Effect.ignore)

/** A layer that drops `schema` when it is released (use it around a server-backed layer). */
export const schemaCleanup = (schema: string): Layer.Layer<never> =>
  Layer.effectDiscard(Effect.addFinalizer(() => dropSchema(schema)))
