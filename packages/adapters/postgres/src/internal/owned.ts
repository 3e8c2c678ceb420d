/**
 * The SQL of one owner's store: statements scoped to the owner (row-level security and `owner_id` filters), the
 * transaction wrapper that maps SQL failures to `StoreError` and retries deadlocks, the version bump that rides
 * along with every write, and the filter and row encoders.
 *
 * @since 0.1.0
 */
import type { Entry } from "@heed/collator/Entry"
import { type EntryFilter, StoreError, type UpsertKey } from "@heed/collator/Store"
import * as Effect from "effect/Effect"
import type * as SqlClient from "effect/sql/SqlClient"
import { isSqlError, type SqlError } from "effect/sql/SqlError"
import type * as Statement from "effect/sql/Statement"
import * as ChangeLog from "./changeLog.ts"
import { type EntryParams, isoParam, selectList, toParams } from "./row.ts"

export const fail = (message: string) => new StoreError({ message, retryable: false })

/** The database's own words: `@effect/sql-pg` keeps them on the reason's cause, PGlite on the reason. */
const sqlMessage = (error: SqlError): string => {
  const cause = error.reason.cause
  return cause instanceof Error && cause.message.length > 0 ? cause.message : error.message
}

export const fromSql =
  (operation: string) =>
  (error: SqlError): StoreError =>
    new StoreError({
      message: `${operation} failed: ${sqlMessage(error)}`,
      retryable: error.isRetryable,
      cause: error
    })

const isTransient = (error: StoreError): boolean => {
  const cause = error.cause as SqlError | undefined
  const tag = cause?.reason?._tag
  return tag === "DeadlockError" || tag === "SerializationError"
}

export const stableJson = (value: unknown): string =>
  JSON.stringify(value, (_, v) =>
    typeof v === "object" && v !== null && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        )
      : v
  )

export const lockKey = (key: UpsertKey) => ({
  type: key.type,
  source: key.source ?? null,
  data: key.data ?? null,
  logical_key: key.logical_key ?? null
})

const insertRow = (sql: SqlClient.SqlClient, owner: string, p: EntryParams) =>
  sql`INSERT INTO entries
    (id, owner_id, type, source, tags, created, updated, expires, deleted, data, logical_key, envelope, language)
    VALUES (${p.id}, ${owner}, ${p.type}, ${p.source}, ${p.tags}::jsonb, ${p.created}::timestamptz,
      ${p.updated}::timestamptz, ${p.expires}::timestamptz, ${p.deleted}::timestamptz, ${p.data}::jsonb,
      ${p.logical_key}, ${p.envelope}::json, ${p.language}::regconfig)`

const updateRow = (sql: SqlClient.SqlClient, owner: string, p: EntryParams) =>
  sql`UPDATE entries SET type = ${p.type}, source = ${p.source}, tags = ${p.tags}::jsonb,
    created = ${p.created}::timestamptz, updated = ${p.updated}::timestamptz, expires = ${p.expires}::timestamptz,
    deleted = ${p.deleted}::timestamptz, data = ${p.data}::jsonb, logical_key = ${p.logical_key},
    envelope = ${p.envelope}::json, language = ${p.language}::regconfig
    WHERE owner_id = ${owner} AND id = ${p.id}`

const dataClauses = (
  sql: SqlClient.SqlClient,
  data: Readonly<Record<string, unknown>> | undefined
): Array<Statement.Fragment> => {
  const out: Array<Statement.Fragment> = []
  for (const [key, value] of Object.entries(data ?? {})) {
    out.push(
      value === null
        ? sql`(data -> ${key} IS NULL OR data -> ${key} = 'null'::jsonb)`
        : sql`data -> ${key} = ${JSON.stringify(value)}::jsonb`
    )
  }
  return out
}

const iso = (field: string, value: string): Effect.Effect<string, StoreError> => {
  const result = isoParam(field, value)
  return result instanceof StoreError ? Effect.fail(result) : Effect.succeed(result)
}

/** The WHERE clause of a filter: always the owner, live entries unless asked otherwise. */
const where = Effect.fnUntraced(function* (sql: SqlClient.SqlClient, owner: string, filter: EntryFilter) {
  const clauses: Array<Statement.Fragment> = [sql`owner_id = ${owner}`]
  const mode = filter.deleted ?? "exclude"
  if (mode === "exclude") clauses.push(sql`deleted IS NULL`)
  else if (mode === "only") clauses.push(sql`deleted IS NOT NULL`)
  if (filter.ids !== undefined) {
    clauses.push(sql`id IN (SELECT jsonb_array_elements_text(${JSON.stringify(filter.ids)}::jsonb))`)
  }
  if (filter.types !== undefined) {
    clauses.push(sql`type IN (SELECT jsonb_array_elements_text(${JSON.stringify(filter.types)}::jsonb))`)
  }
  if (filter.source !== undefined) clauses.push(sql`source = ${filter.source}`)
  if (filter.tags !== undefined && filter.tags.length > 0) {
    clauses.push(sql`tags @> ${JSON.stringify(filter.tags)}::jsonb`)
  }
  clauses.push(...dataClauses(sql, filter.data))
  if (filter.activeAt !== undefined) {
    const at = yield* iso("activeAt", filter.activeAt)
    clauses.push(sql`(expires IS NULL OR expires > ${at}::timestamptz)`)
  }
  if (filter.since !== undefined) {
    clauses.push(sql`COALESCE(updated, created) >= ${yield* iso("since", filter.since)}::timestamptz`)
  }
  if (filter.until !== undefined) {
    clauses.push(sql`COALESCE(updated, created) <= ${yield* iso("until", filter.until)}::timestamptz`)
  }
  if (filter.createdAfter !== undefined) {
    clauses.push(sql`created >= ${yield* iso("createdAfter", filter.createdAfter)}::timestamptz`)
  }
  if (filter.createdBefore !== undefined) {
    clauses.push(sql`created <= ${yield* iso("createdBefore", filter.createdBefore)}::timestamptz`)
  }
  return sql.and(clauses)
})

const page = (sql: SqlClient.SqlClient, limit: number | undefined, offset: number | undefined) => {
  const skip = Math.max(0, Math.floor(offset ?? 0))
  return limit === undefined ? sql`OFFSET ${skip}` : sql`LIMIT ${Math.max(0, Math.floor(limit))} OFFSET ${skip}`
}

/** The statements and helpers of one owner's store. */
export const makeOwned = (
  sql: SqlClient.SqlClient,
  owner: string,
  sessionOwner: boolean,
  languageOf: (entry: Entry) => string,
  maxEntryBytes: number,
  /** Whether writes log their changes in `store_changes` (on a PostgreSQL server; PGlite logs them in memory). */
  logChanges: boolean
) => {
  /** Runs `effect` in a transaction scoped to the owner (RLS), mapping SQL failures and retrying deadlocks. */
  const owned = <A, E, R>(
    operation: string,
    effect: Effect.Effect<A, E, R>,
    /** Whether `effect` sets the owner itself in its first statement (saves a round trip). */
    setsOwner = false
  ): Effect.Effect<A, Exclude<E, SqlError> | StoreError, R> =>
    sql
      .withTransaction(
        setsOwner || sessionOwner
          ? effect
          : Effect.andThen(sql`SELECT set_config('app.current_user', ${owner}, true)`, effect)
      )
      .pipe(
        Effect.mapError((error): Exclude<E, SqlError> | StoreError =>
          isSqlError(error) ? fromSql(operation)(error) : (error as Exclude<E, SqlError>)
        ),
        Effect.retry({ times: 5, while: (error) => error instanceof StoreError && isTransient(error) })
      )

  /**
   * Runs a single read statement: on a connection whose session carries the owner it needs no transaction (one
   * round trip); otherwise it runs like {@link owned}.
   */
  const read = <A>(operation: string, effect: Effect.Effect<A, SqlError>): Effect.Effect<A, StoreError> =>
    sessionOwner ? Effect.mapError(effect, fromSql(operation)) : owned(operation, effect)

  let writes = Math.floor(Math.random() * 16)
  /**
   * Where the store logs its changes (a PostgreSQL server, see `internal/changeLog.ts`), the statement continues
   * after a `bumped` CTE (the counter's new version): the written ids go into `store_changes` under that shard and
   * version, and every `pruneEvery` versions of a shard its entries older than `keptPerShard` versions are dropped.
   */
  const logTail = (ids: ReadonlyArray<string>) =>
    sql`pruned AS (DELETE FROM store_changes c USING bumped b WHERE c.owner_id = ${owner} AND c.shard = b.shard
        AND b.version % ${ChangeLog.pruneEvery} = 0 AND c.version <= b.version - ${ChangeLog.keptPerShard})
      INSERT INTO store_changes (owner_id, shard, version, ids)
      SELECT ${owner}, shard, version, ${JSON.stringify(ids)}::jsonb FROM bumped`

  /** The version bump of a write that changed `ids`. */
  const bump = (ids: ReadonlyArray<string>) =>
    Effect.suspend(() => {
      const bumped = sql`INSERT INTO store_versions (owner_id, shard, version) VALUES (${owner}, ${writes++ % 16}, 1)
        ON CONFLICT (owner_id, shard) DO UPDATE SET version = store_versions.version + 1`
      return logChanges ? sql`WITH bumped AS (${bumped} RETURNING shard, version), ${logTail(ids)}` : bumped
    })

  /** `statement` (an INSERT or UPDATE of one entry) and the bump of a write that changed `ids`, in one round trip. */
  const bumping = (statement: Statement.Fragment, ids: ReadonlyArray<string>) =>
    Effect.suspend(() => {
      const bumped = sql`INSERT INTO store_versions (owner_id, shard, version)
        SELECT ${owner}, ${writes++ % 16}, 1 FROM written LIMIT 1
        ON CONFLICT (owner_id, shard) DO UPDATE SET version = store_versions.version + 1`
      return logChanges
        ? sql`WITH written AS (${statement} RETURNING 1), bumped AS (${bumped} RETURNING shard, version),
            ${logTail(ids)}`
        : sql`WITH written AS (${statement} RETURNING 1) ${bumped}`
    })

  const select = sql.literal(selectList)
  const order = sql.literal(`COALESCE(updated, created) DESC, id COLLATE "C" ASC`)

  const encode = (entry: Entry): Effect.Effect<EntryParams, StoreError> => {
    const params = toParams(entry, languageOf, maxEntryBytes)
    return params instanceof StoreError ? Effect.fail(params) : Effect.succeed(params)
  }

  return {
    sql,
    owner,
    owned,
    read,
    bump,
    bumping,
    select,
    order,
    encode,
    insertRow: (p: EntryParams) => insertRow(sql, owner, p),
    updateRow: (p: EntryParams) => updateRow(sql, owner, p),
    dataClauses: (data: Readonly<Record<string, unknown>> | undefined) => dataClauses(sql, data),
    iso,
    where: (filter: EntryFilter) => where(sql, owner, filter),
    page: (limit: number | undefined, offset: number | undefined) => page(sql, limit, offset)
  }
}

/** The SQL of one owner's store (see {@link makeOwned}). */
export type Owned = ReturnType<typeof makeOwned>
