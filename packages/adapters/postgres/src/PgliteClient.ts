/**
 * A small `effect/sql` driver over PGlite (PostgreSQL 18 compiled to WASM, running in-process).
 *
 * PGlite is a single-session database: one backend, one transaction at a time. The driver therefore hands its one
 * connection out under a one-permit semaphore: a statement borrows it for its own duration, a transaction (or a
 * `reserve`d connection) holds it until its scope closes, so statements of other fibers queue behind an open
 * transaction instead of slipping into it. Statements are compiled with `@effect/sql-pg`'s PostgreSQL compiler, so
 * every query is byte-for-byte the SQL the server backend sends.
 *
 * A data directory that holds no database yet is created by `initdb` in a short-lived child process (see
 * {@link initialize}): PGlite runs `initdb` in a second WebAssembly instance of its own, and in the server's process
 * that instance's memory (about 250 MB) stayed until a garbage collection happened to free it.
 *
 * @since 0.1.0
 */

import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"
import * as PgClient from "@effect/sql-pg/PgClient"
import { PGlite } from "@electric-sql/pglite"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Reactivity from "effect/reactivity/Reactivity"
import type * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import * as Stream from "effect/Stream"
import * as SqlClient from "effect/sql/SqlClient"
import type * as SqlConnection from "effect/sql/SqlConnection"
import * as SqlError from "effect/sql/SqlError"

/**
 * Options for {@link make} and {@link layer}.
 *
 * @category models
 * @since 0.1.0
 */
export interface PgliteClientConfig {
  /**
   * Where PGlite keeps its data: a directory path (or `file://` URL) for durable storage, `memory://` for a
   * throw-away in-memory database (tests).
   */
  readonly dataDir: string
  /**
   * PGlite's `relaxedDurability`: when `true`, PGlite returns before flushing to disk. Defaults to `false`, so an
   * acknowledged write survives a crash.
   */
  readonly relaxedDurability?: boolean | undefined
  /**
   * PostgreSQL's `shared_buffers` inside PGlite. Defaults to {@link defaultSharedBuffers} rather than PostgreSQL's
   * 128MB: PGlite's WebAssembly heap holds the buffer pool in the process, and a single session needs far less.
   */
  readonly sharedBuffers?: string | undefined
}

/**
 * PGlite's default `shared_buffers` here: 16MB (PostgreSQL's own default, 128MB, costs about 115 MB more RSS).
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultSharedBuffers = "16MB"

/**
 * A PGlite-backed `SqlClient` plus PGlite's in-process `LISTEN`/`NOTIFY` and the raw database handle.
 *
 * @category models
 * @since 0.1.0
 */
export interface PgliteClient {
  /** The `effect/sql` client over this database. */
  readonly sql: SqlClient.SqlClient
  /** The underlying PGlite instance (escape hatch; prefer `sql`). */
  readonly db: PGlite
  /**
   * Subscribes to a `NOTIFY` channel; payloads arrive on the returned queue until the scope closes.
   */
  readonly listen: (channel: string) => Effect.Effect<Queue.Dequeue<string>, SqlError.SqlError, Scope.Scope>
  /** Sends `pg_notify(channel, payload)`. */
  readonly notify: (channel: string, payload: string) => Effect.Effect<void, SqlError.SqlError>
}

/**
 * The service key for {@link PgliteClient}.
 *
 * @category services
 * @since 0.1.0
 */
export const PgliteClient: Context.Service<PgliteClient, PgliteClient> =
  Context.Service<PgliteClient>("@heed/postgres/PgliteClient")

interface PgliteError {
  readonly code?: unknown
  readonly constraint?: unknown
  readonly message?: unknown
}

const classify = (cause: unknown, operation: string): SqlError.SqlError => {
  const error = (typeof cause === "object" && cause !== null ? cause : {}) as PgliteError
  const code = typeof error.code === "string" ? error.code : undefined
  const message = typeof error.message === "string" ? error.message : String(cause)
  const props = { cause, message, operation }
  const reason =
    code === undefined
      ? new SqlError.UnknownError(props)
      : code.startsWith("08")
        ? new SqlError.ConnectionError(props)
        : code.startsWith("28")
          ? new SqlError.AuthenticationError(props)
          : code === "42501"
            ? new SqlError.AuthorizationError(props)
            : code.startsWith("42")
              ? new SqlError.SqlSyntaxError(props)
              : code === "23505"
                ? new SqlError.UniqueViolation({
                    ...props,
                    constraint:
                      typeof error.constraint === "string" && error.constraint.length > 0 ? error.constraint : "unknown"
                  })
                : code.startsWith("23")
                  ? new SqlError.ConstraintError(props)
                  : code === "40P01"
                    ? new SqlError.DeadlockError(props)
                    : code === "40001"
                      ? new SqlError.SerializationError(props)
                      : code === "55P03"
                        ? new SqlError.LockTimeoutError(props)
                        : code === "57014"
                          ? new SqlError.StatementTimeoutError(props)
                          : new SqlError.UnknownError(props)
  return new SqlError.SqlError({ reason })
}

interface QueryResult {
  readonly rows: ReadonlyArray<object>
  readonly command?: string | undefined
}

const values = (result: QueryResult) => result.rows as ReadonlyArray<ReadonlyArray<unknown>>

const makeConnection = (db: PGlite): SqlConnection.Connection => {
  const run = (sql: string, params: ReadonlyArray<unknown>, rowMode: "object" | "array") =>
    Effect.tryPromise({
      try: () => db.query(sql, params as Array<unknown>, { rowMode }) as Promise<QueryResult>,
      catch: (cause) => classify(cause, "execute")
    })
  const rows = (sql: string, params: ReadonlyArray<unknown>) => Effect.map(run(sql, params, "object"), (r) => r.rows)
  const execute: SqlConnection.Connection["execute"] = (sql, params, transformRows) =>
    transformRows ? Effect.map(rows(sql, params), transformRows) : rows(sql, params)
  const executeUnprepared: SqlConnection.Connection["executeUnprepared"] = (sql, params, transformRows) => {
    const result =
      params.length > 0
        ? rows(sql, params)
        : Effect.map(
            Effect.tryPromise({
              try: () => db.exec(sql) as Promise<ReadonlyArray<QueryResult>>,
              catch: (cause) => classify(cause, "execute")
            }),
            (results) => (results.length === 0 ? [] : results[results.length - 1]!.rows)
          )
    return transformRows ? Effect.map(result, transformRows) : result
  }
  return {
    execute,
    executeUnprepared,
    executeRaw: (sql, params) => run(sql, params, "object"),
    executeValues: (sql, params) => Effect.map(run(sql, params, "array"), values),
    executeValuesUnprepared: (sql, params) => Effect.map(run(sql, params, "array"), values),
    executeStream: (sql, params, transformRows) => Stream.fromIterableEffect(execute(sql, params, transformRows))
  }
}

/** PostgreSQL answers `COMMIT` of an aborted transaction with `ROLLBACK`; report that as a failure. */
const commit = (conn: SqlConnection.Connection) =>
  Effect.flatMap(conn.executeRaw("COMMIT", []), (result) =>
    (result as QueryResult).command === "ROLLBACK"
      ? Effect.fail(classify(new Error("COMMIT rolled back an aborted transaction"), "commit"))
      : Effect.void
  )

/** The directory a PGlite `dataDir` names on disk, or `undefined` for `memory://` and other non-file stores. */
const directoryOf = (dataDir: string): string | undefined =>
  dataDir.startsWith("file://") ? dataDir.slice("file://".length) : dataDir.includes("://") ? undefined : dataDir

// Runs in the child: opens (and so initialises) the directory with PGlite, closes it cleanly, exits 0.
const initScript = `
const [entry, dataDir, conf] = process.argv.slice(1)
require(entry).PGlite.create(dataDir, { postgresqlconf: conf })
  .then((db) => db.close())
  .then(() => process.exit(0), (error) => { process.stderr.write(String(error && error.stack || error)); process.exit(1) })
`

const postgresqlconf = (config: PgliteClientConfig) =>
  `shared_buffers = ${config.sharedBuffers ?? defaultSharedBuffers}\n`

/**
 * Creates the database in a new data directory (PGlite's `initdb`) in a child Node process, which exits when done, so
 * the WebAssembly instances `initdb` needs never occupy the calling process's memory. Does nothing when the directory
 * already holds a database or `dataDir` is not a directory (`memory://`). {@link make} calls it first; when no child
 * process can be started (no Node executable at `process.execPath`), PGlite initialises the directory in-process as
 * before.
 *
 * @category constructors
 * @since 0.1.0
 */
export const initialize = (config: PgliteClientConfig): Effect.Effect<void, SqlError.SqlError> => {
  const directory = directoryOf(config.dataDir)
  if (directory === undefined || existsSync(join(directory, "PG_VERSION"))) return Effect.void
  return Effect.callback<void, SqlError.SqlError>((resume) => {
    const entry = createRequire(import.meta.url).resolve("@electric-sql/pglite")
    const child = spawn(process.execPath, ["-e", initScript, entry, directory, postgresqlconf(config)], {
      stdio: ["ignore", "ignore", "pipe"]
    })
    let stderr = ""
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    // No child process at all: PGlite initialises the directory in-process when it opens it.
    child.on("error", () => resume(Effect.void))
    child.on("exit", (code, signal) =>
      resume(
        code === 0
          ? Effect.void
          : Effect.fail(
              new SqlError.SqlError({
                reason: new SqlError.ConnectionError({
                  cause: stderr,
                  message: `Could not create a database in ${directory} (initdb exited ${code ?? signal}): ${stderr.trim()}`,
                  operation: "connect"
                })
              })
            )
      )
    )
    return Effect.sync(() => {
      if (child.exitCode === null) child.kill("SIGKILL")
    })
  })
}

/**
 * Opens a PGlite database and builds a `PgliteClient` over it; the database is closed when the scope closes.
 *
 * **Example** (An in-memory database)
 *
 * ```ts
 * import { PgliteClient } from "@heed/postgres"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function*() {
 *   const client = yield* PgliteClient.make({ dataDir: "memory://" })
 *   return yield* client.sql`SELECT 1 AS one`
 * }).pipe(Effect.scoped)
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = Effect.fnUntraced(function* (
  config: PgliteClientConfig
): Effect.fn.Return<PgliteClient, SqlError.SqlError, Scope.Scope | Reactivity.Reactivity> {
  yield* initialize(config)
  const db = yield* Effect.acquireRelease(
    Effect.tryPromise({
      try: () =>
        PGlite.create(config.dataDir, {
          relaxedDurability: config.relaxedDurability ?? false,
          postgresqlconf: postgresqlconf(config)
        }),
      catch: (cause) =>
        new SqlError.SqlError({
          reason: new SqlError.ConnectionError({
            cause,
            message: `Could not open PGlite at ${config.dataDir}: ${String(cause)}`,
            operation: "connect"
          })
        })
    }),
    (db) => Effect.tryPromise(() => (db.closed ? Promise.resolve() : db.close())).pipe(Effect.ignore)
  )
  const connection = makeConnection(db)
  const semaphore = yield* Semaphore.make(1)
  const lease: Effect.Effect<SqlConnection.Connection, SqlError.SqlError, Scope.Scope> = Effect.as(
    semaphore.takeScoped(1),
    connection
  )
  const sql = yield* SqlClient.make({
    acquirer: lease,
    borrower: (f) => semaphore.withPermit(f(connection)),
    transactionAcquirer: lease,
    compiler: PgClient.makeCompiler(undefined, false),
    driver: "pglite",
    commit,
    releaseSavepoint: (name) => `RELEASE SAVEPOINT ${name}`,
    spanAttributes: [
      ["db.system.name", "postgresql"],
      ["db.namespace", "pglite"]
    ]
  })
  const listen = (channel: string) =>
    Effect.gen(function* () {
      const queue = yield* Queue.unbounded<string>()
      const unlisten = yield* Effect.tryPromise({
        // PGlite splices the name into `LISTEN …` as written, and unquotes a quoted name to match notifications
        try: () => db.listen(`"${channel.replaceAll('"', '""')}"`, (payload) => Queue.offerUnsafe(queue, payload)),
        catch: (cause) => classify(cause, "listen")
      })
      yield* Effect.addFinalizer(() =>
        Effect.tryPromise(() => (db.closed ? Promise.resolve() : unlisten())).pipe(Effect.ignore)
      )
      return queue as Queue.Dequeue<string>
    })
  const notify = (channel: string, payload: string) => Effect.asVoid(sql`SELECT pg_notify(${channel}, ${payload})`)
  return { sql, db, listen, notify }
})

/**
 * A layer providing both {@link PgliteClient} and `SqlClient` over one PGlite database.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (config: PgliteClientConfig): Layer.Layer<PgliteClient | SqlClient.SqlClient, SqlError.SqlError> =>
  Layer.effectContext(
    Effect.map(make(config), (client) =>
      Context.make(PgliteClient, client).pipe(Context.add(SqlClient.SqlClient, client.sql))
    )
  ).pipe(Layer.provide(Reactivity.layer))
