/**
 * Migrated `effect/sql` clients for both backends: embedded PGlite (`layerEmbedded`) and a PostgreSQL server through
 * `@effect/sql-pg` (`layer`, `layerConfig`). Both run the same migrations and the same SQL; the store layers in
 * `PostgresStore` build on these.
 *
 * @since 0.1.0
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { MigrationError } from "effect/sql/Migrator"
import * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import * as Migrations from "./Migrations.ts"
import * as PgliteClient from "./PgliteClient.ts"

/**
 * Options of the embedded (PGlite) backend.
 *
 * @category models
 * @since 0.1.0
 */
export interface EmbeddedOptions {
  /** A data directory (durable) or `memory://` (tests). */
  readonly dataDir: string
  /** Return before PGlite flushes to disk (faster, not crash-safe). Default `false`. */
  readonly relaxedDurability?: boolean | undefined
  /** PostgreSQL's `shared_buffers` inside PGlite (default `PgliteClient.defaultSharedBuffers`, 16MB). */
  readonly sharedBuffers?: string | undefined
  /** An owner to set in `app.current_user` for the whole session (the store layers set it). */
  readonly sessionOwner?: string | undefined
}

/**
 * Options of the server backend.
 *
 * @category models
 * @since 0.1.0
 */
export interface ServerOptions {
  /** A `postgres://` connection URL, e.g. the value of `DATABASE_URL`. */
  readonly url: string | Redacted.Redacted
  /**
   * A schema to keep heed's tables in (created if missing and put first on the `search_path`). Default: the
   * connection's default schema (usually `public`).
   */
  readonly schema?: string | undefined
  /** Pool size. Default 10 (upstream's pool maximum). */
  readonly maxConnections?: number | undefined
  /** An owner to set in `app.current_user` on every pooled connection (the store layers set it). */
  readonly sessionOwner?: string | undefined
}

/**
 * Raised when the backend options are unusable (e.g. a schema name that is not a plain identifier).
 *
 * @category errors
 * @since 0.1.0
 */
export class DatabaseConfigError extends Schema.TaggedError<DatabaseConfigError>()("DatabaseConfigError", {
  message: Schema.String
}) {}

/**
 * What the store needs from either backend besides `SqlClient`: the backend's name and a stream of change
 * notifications (the owner id of every committed entry change, from any process on the same database).
 *
 * @category models
 * @since 0.1.0
 */
export interface Backend {
  /** `"pglite"` or `"pg"`. */
  readonly kind: "pglite" | "pg"
  /**
   * Subscribes to the change feed (the subscription is active once this effect succeeds); the stream yields the
   * owner id of each committed change (identical changes in one transaction coalesce) until the scope closes.
   */
  readonly subscribe: Effect.Effect<Stream.Stream<string, SqlError>, SqlError, Scope.Scope>
}

/**
 * The service key for {@link Backend}.
 *
 * @category services
 * @since 0.1.0
 */
export const Backend: Context.Service<Backend, Backend> = Context.Service<Backend>("@heed/postgres/Backend")

const identifier = /^[a-z_][a-z0-9_]{0,62}$/

/**
 * `work_mem` of heed's sessions on both backends. A briefing reads every firing alert ordered by time; at 10k alerts
 * that sort needs about 4.5 MB, just over PostgreSQL's default of 4MB, and spilling it to disk made the query six
 * times slower. The memory is taken only while a sort runs.
 *
 * @category constants
 * @since 0.1.0
 */
export const sortMemory = "16MB"

const channel = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{
    readonly channel: string
  }>`SELECT left(${Migrations.channelPrefix} || current_schema(), 63) AS channel`
  return rows[0]!.channel
})

/**
 * A migrated PGlite database: provides `SqlClient`, {@link PgliteClient.PgliteClient} and {@link Backend}.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerEmbedded = (
  options: EmbeddedOptions
): Layer.Layer<SqlClient.SqlClient | PgliteClient.PgliteClient | Backend, SqlError | MigrationError> => {
  const backend = Layer.effect(
    Backend,
    Effect.gen(function* () {
      const client = yield* PgliteClient.PgliteClient
      const name = yield* channel
      return Backend.of({ kind: "pglite", subscribe: Effect.map(client.listen(name), Stream.fromQueue) })
    })
  )
  const session = Layer.effectDiscard(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql`SELECT set_config('work_mem', ${sortMemory}, false)`
      if (options.sessionOwner !== undefined) {
        yield* sql`SELECT set_config('app.current_user', ${options.sessionOwner}, false)`
      }
    })
  )
  return Layer.mergeAll(backend, Migrations.layer, session).pipe(
    Layer.provideMerge(
      PgliteClient.layer({
        dataDir: options.dataDir,
        relaxedDurability: options.relaxedDurability,
        sharedBuffers: options.sharedBuffers
      })
    )
  )
}

const pgLayer = (options: ServerOptions) =>
  Layer.unwrap(
    Effect.gen(function* () {
      const schema = options.schema
      if (schema !== undefined && !identifier.test(schema)) {
        return yield* new DatabaseConfigError({
          message: `schema "${schema}" is not a plain lower-case identifier (letters, digits, _; at most 63 characters)`
        })
      }
      const url = typeof options.url === "string" ? Redacted.make(options.url) : options.url
      const client = PgClient.layer({
        url,
        maxConnections: options.maxConnections ?? 10,
        transformJson: false,
        applicationName: "@heed/postgres",
        startupParameters: {
          work_mem: sortMemory,
          ...(schema === undefined ? {} : { search_path: schema }),
          ...(options.sessionOwner === undefined ? {} : { "app.current_user": options.sessionOwner })
        }
      })
      if (schema === undefined) return client
      const ensureSchema = Layer.effectDiscard(
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          // look first: CREATE SCHEMA IF NOT EXISTS needs the CREATE privilege on the database even when the schema
          // exists, which an application role owning only its schema does not have
          const found = yield* sql`SELECT 1 AS found FROM pg_namespace WHERE nspname = ${schema}`
          if (found.length > 0) return
          yield* sql`CREATE SCHEMA IF NOT EXISTS ${sql(schema)}`.pipe(
            // two starters racing on CREATE SCHEMA IF NOT EXISTS: the loser sees a unique violation; the schema exists
            Effect.catchIf(
              (error) => error.reason._tag === "UniqueViolation",
              () => Effect.void
            )
          )
        })
      )
      return Layer.provideMerge(ensureSchema, client)
    })
  )

/**
 * A migrated PostgreSQL server database through `@effect/sql-pg`: provides `SqlClient`, `PgClient` and
 * {@link Backend} (LISTEN/NOTIFY on a dedicated connection).
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (
  options: ServerOptions
): Layer.Layer<SqlClient.SqlClient | PgClient.PgClient | Backend, SqlError | MigrationError | DatabaseConfigError> => {
  const backend = Layer.effect(
    Backend,
    Effect.gen(function* () {
      const client = yield* PgClient.PgClient
      const name = yield* channel
      const subscribe = Effect.map(client.listen(name), (queue) =>
        Stream.map(Stream.fromQueue(queue), (notification) => notification.payload)
      )
      return Backend.of({ kind: "pg", subscribe })
    })
  )
  return Layer.mergeAll(backend, Migrations.layer).pipe(Layer.provideMerge(pgLayer(options)))
}

/**
 * {@link layer} with its options read from `Config`; by default the URL comes from `DATABASE_URL`.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerConfig = (
  config: Config.Wrap<ServerOptions> = { url: Config.Redacted("DATABASE_URL") }
): Layer.Layer<
  SqlClient.SqlClient | PgClient.PgClient | Backend,
  SqlError | MigrationError | DatabaseConfigError | Config.ConfigError
> => Layer.unwrap(Effect.map(Config.unwrap(config), layer))
