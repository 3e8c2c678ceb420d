/**
 * Where session state lives between requests: in memory (bounded, least recently used sessions dropped first) by
 * default, or in PostgreSQL (`DATABASE_URL`), so several proxy replicas behind a load balancer share it.
 *
 * @since 0.1.0
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import type { SessionState } from "./SessionState.ts"

/**
 * The store's interface.
 *
 * @category models
 * @since 0.1.0
 */
export interface SessionStoreShape {
  /** `memory` or `postgres`. */
  readonly kind: "memory" | "postgres"
  readonly get: (id: string) => Effect.Effect<SessionState | undefined>
  readonly put: (state: SessionState) => Effect.Effect<void>
  /** Sessions held (memory) or stored (postgres). */
  readonly size: Effect.Effect<number>
}

/**
 * The session store service.
 *
 * @category services
 * @since 0.1.0
 */
export class SessionStore extends Context.Service<SessionStore, SessionStoreShape>()("@heed/proxy/SessionStore") {}

/**
 * An in-memory store of at most `capacity` sessions (default 1,000); the least recently used one goes first.
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeMemory = (capacity = 1_000): SessionStoreShape => {
  const sessions = new Map<string, SessionState>()
  return {
    kind: "memory",
    get: (id) =>
      Effect.sync(() => {
        const state = sessions.get(id)
        if (state !== undefined) {
          sessions.delete(id)
          sessions.set(id, state)
        }
        return state
      }),
    put: (state) =>
      Effect.sync(() => {
        sessions.delete(state.id)
        sessions.set(state.id, state)
        while (sessions.size > Math.max(1, capacity)) sessions.delete(sessions.keys().next().value!)
      }),
    size: Effect.sync(() => sessions.size)
  }
}

/**
 * The in-memory store as a layer.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerMemory = (capacity = 1_000): Layer.Layer<SessionStore> =>
  Layer.sync(SessionStore, () => makeMemory(capacity))

const logged = <A>(effect: Effect.Effect<A, SqlError>, fallback: A): Effect.Effect<A> =>
  effect.pipe(
    Effect.catch((error) =>
      Effect.as(Effect.logWarning(`heed-proxy: session store: ${error.message} (continuing without it)`), fallback)
    )
  )

/**
 * A store on PostgreSQL through `effect/sql` (table `heed_proxy_sessions`, created when missing): one JSON row per
 * session, written after each request. A database error is logged and the request goes on as if the session
 * were new, so the proxy keeps serving when the database is down.
 *
 * @category constructors
 * @since 0.1.0
 */
export const makePostgres: Effect.Effect<SessionStoreShape, SqlError, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // Two proxies starting at once would both run CREATE TABLE IF NOT EXISTS and the second could fail on the catalog
  // (a unique violation on the table's row type): a transaction-scoped advisory lock makes it wait for the first.
  yield* sql.withTransaction(
    Effect.andThen(
      sql`SELECT pg_advisory_xact_lock(hashtextextended('heed_proxy_sessions', 0))`,
      sql`CREATE TABLE IF NOT EXISTS heed_proxy_sessions (
        id text PRIMARY KEY,
        state jsonb NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`
    )
  )
  return {
    kind: "postgres",
    get: (id) =>
      logged(
        Effect.map(sql<{ state: unknown }>`SELECT state FROM heed_proxy_sessions WHERE id = ${id}`, (rows) => {
          const state = rows[0]?.state
          return (typeof state === "string" ? JSON.parse(state) : state) as SessionState | undefined
        }),
        undefined
      ),
    put: (state) =>
      logged(
        Effect.asVoid(
          sql`INSERT INTO heed_proxy_sessions (id, state, updated_at) VALUES (${state.id}, ${JSON.stringify(state)}::jsonb, now())
              ON CONFLICT (id) DO UPDATE SET state = EXCLUDED.state, updated_at = now()`
        ),
        undefined
      ),
    size: logged(
      Effect.map(sql<{ n: string }>`SELECT count(*)::text AS n FROM heed_proxy_sessions`, (rows) =>
        Number(rows[0]?.n ?? 0)
      ),
      0
    )
  }
})

/**
 * The PostgreSQL store as a layer over a connection URL (e.g. `DATABASE_URL`).
 *
 * @category layers
 * @since 0.1.0
 */
export const layerPostgres = (url: string): Layer.Layer<SessionStore, SqlError> =>
  Layer.effect(SessionStore, makePostgres).pipe(
    Layer.provide(
      PgClient.layer({
        url: Redacted.make(url),
        maxConnections: 5,
        applicationName: "heed-proxy",
        transformJson: false
      })
    )
  )
