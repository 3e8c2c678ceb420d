/**
 * `@heed/collator`'s `Store` port on PostgreSQL, plus full-text search and the change feed, for one owner.
 *
 * Row-level security sees the owner in `app.current_user`: the store layers set it for the whole session of their
 * own connections (so a read is one statement), and a store sharing connections with other owners
 * (`layerWith`) sets it per transaction (`set_config('app.current_user', owner, true)`). Every statement also
 * filters on `owner_id`, so two owners sharing a database never see each other's entries, even if one of the two
 * guards were missing. The atomic operations carry the port's concurrency guarantees:
 *
 * - `upsert` takes a transaction-scoped advisory lock on a hash of (owner, key), as upstream does for alerts and
 *   preferences, then locks the matching rows (`SELECT … FOR UPDATE`) before replacing them: concurrent upserts of
 *   one key, from any number of processes, never create duplicates.
 * - `update` locks the row (`SELECT … FOR UPDATE`), applies the caller's function and writes the result in the same
 *   transaction: a compare-and-set, so an intention fired by `update(id, pending ? fired : undefined)` fires once.
 * - each write bumps one of the owner's 16 counter rows in `store_versions` in the same statement, so `version`
 *   (their sum) moves exactly when a change becomes visible, in every process. On a PostgreSQL server the same
 *   statement logs the ids it changed in `store_changes` under that counter's new value, so `changes(since)` tells a
 *   reader which entries other processes and replicas changed (the last 1,024 versions of each counter are kept;
 *   older ones are answered with `None`). On PGlite the data directory belongs
 *   to one process, so `version` is that sum read once and then counted in memory (a write that commits adds one
 *   before it returns, and a write, once begun, is not interrupted before it counts): a read of it costs nothing and
 *   never queues on PGlite's single connection. For the same reason `query` and `get` are answered there from an
 *   in-memory copy of the owner's rows, which each committed write updates together with the version, and
 *   `changes` from an in-memory log of the last 4,096 writes.
 *
 * @since 0.1.0
 */

import type * as PgClient from "@effect/sql-pg/PgClient"
import type { Entry } from "@heed/collator/Entry"
import { ChangeLog, Store, StoreError, type StoreShape, type UpsertKey } from "@heed/collator/Store"
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type { MigrationError } from "effect/sql/Migrator"
import * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import type * as Statement from "effect/sql/Statement"
import { ChangeFeed } from "./ChangeFeed.ts"
import * as Database from "./Database.ts"
import { FullTextSearch, resolveLanguage, type SearchQuery } from "./FullTextSearch.ts"
import * as ServerChanges from "./internal/changeLog.ts"
import * as Mirror from "./internal/mirror.ts"
import { fail, fromSql, lockKey, makeOwned, type Owned, stableJson } from "./internal/owned.ts"
import { type EntryParams, type EntryRow, toEntry } from "./internal/row.ts"
import type * as PgliteClient from "./PgliteClient.ts"

/**
 * Options of a store: whose entries it holds, and the default text-search language of its entries.
 *
 * @category models
 * @since 0.1.0
 */
export interface StoreOptions {
  /** The owner (tenant) whose entries this store reads and writes. Default `"default"`. */
  readonly owner?: string | undefined
  /**
   * Default language of entries and searches: an ISO 639-1 code (`"en"`), a PostgreSQL text-search configuration
   * (`"english"`) or `"simple"` (no stemming; the default, as upstream). An entry carrying its own `language` field
   * uses that instead.
   */
  readonly language?: string | undefined
  /**
   * The largest entry accepted, in bytes of JSON; bigger entries are rejected with a `StoreError`. Default 1 MiB.
   */
  readonly maxEntryBytes?: number | undefined
  /**
   * Set when every session of the connection already carries this owner in `app.current_user` (the connection
   * serves this one owner, as in {@link layerEmbedded} and {@link layer}): single-statement reads then skip the
   * transaction. Leave unset on a connection shared by several owners.
   */
  readonly ownerInSession?: boolean | undefined
  /**
   * On PGlite, answer `query` and `get` from the in-memory copy of the owner's rows (default `true`). The copy sees
   * every write made through a store of this process; set `false` to read through SQL when rows are also changed
   * with plain SQL on the same database while it is open (such changes reach the copy, and the version, only when
   * the process opens the database again). Ignored on a PostgreSQL server, which is always read through SQL.
   */
  readonly memoryReads?: boolean | undefined
}

/**
 * The owner used when none is given.
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultOwner = "default"

/**
 * Upstream's expiry clean-up for one owner: a hard purge of entries whose `expires` has passed (soft-deleted entries
 * expire 30 days after deletion), opted into per owner with the preference `auto_cleanup` = `"true"`.
 *
 * @category services
 * @since 0.1.0
 */
export class Cleanup extends Context.Service<
  Cleanup,
  {
    /**
     * Hard-deletes this owner's entries with `expires <= now` (an ISO instant) when the owner has opted in; returns
     * how many rows went. Without the opt-in it deletes nothing and returns 0.
     */
    readonly purgeExpired: (now: string) => Effect.Effect<number, StoreError>
  }
>()("@heed/postgres/Cleanup") {}

/**
 * Everything {@link make} builds for one owner.
 *
 * @category models
 * @since 0.1.0
 */
export interface Parts {
  readonly store: StoreShape
  readonly search: FullTextSearch["Service"]
  readonly feed: ChangeFeed["Service"]
  readonly cleanup: Cleanup["Service"]
}

/**
 * Builds the store, search and change feed for one owner over a migrated database (`SqlClient` plus
 * `Database.Backend`, e.g. from `Database.layer` or `Database.layerEmbedded`).
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = Effect.fnUntraced(function* (
  options: StoreOptions = {}
): Effect.fn.Return<Parts, StoreError, SqlClient.SqlClient | Database.Backend> {
  const sql = yield* SqlClient.SqlClient
  const backend = yield* Database.Backend
  const owner = options.owner ?? defaultOwner
  if (typeof owner !== "string" || owner.length === 0 || owner.includes("\u0000")) {
    return yield* fail(`owner must be a non-empty string without NUL characters, got ${JSON.stringify(owner)}`)
  }
  const configRows = yield* sql<{ readonly name: string }>`SELECT cfgname::text AS name FROM pg_ts_config`.pipe(
    Effect.mapError(fromSql("reading text-search configurations"))
  )
  const available = new Set(configRows.map((row) => row.name))
  const defaultLanguage = resolveLanguage(options.language ?? "simple", available)
  if (defaultLanguage === undefined) {
    return yield* fail(
      `language ${JSON.stringify(options.language)} is neither an ISO 639-1 code nor a text-search configuration ` +
        `of this database (${[...available].sort().join(", ")})`
    )
  }
  const maxEntryBytes = options.maxEntryBytes ?? 1024 * 1024
  const languageOf = (entry: Entry): string => {
    const own = (entry as unknown as { readonly language?: unknown }).language
    return typeof own === "string" ? (resolveLanguage(own, available) ?? "simple") : defaultLanguage
  }

  const sessionOwner = options.ownerInSession === true
  const ctx = makeOwned(sql, owner, sessionOwner, languageOf, maxEntryBytes, backend.kind !== "pglite")
  const counter = backend.kind === "pglite" ? yield* localCounter(backend, owner, readLocal(ctx)) : undefined
  return {
    store: Store.of(makeStore(ctx, counter, options.memoryReads !== false)),
    search: FullTextSearch.of(makeSearch(ctx, defaultLanguage, available)),
    feed: ChangeFeed.of(makeFeed(backend, owner)),
    cleanup: Cleanup.of(makeCleanup(ctx, counter))
  }
})

/** The version as the database has it: the sum of the owner's counter rows. */
const readVersion = (ctx: Owned) =>
  ctx.read(
    "reading the store version",
    Effect.map(
      ctx.sql<{ readonly version: unknown }>`SELECT COALESCE(sum(version), 0)::float8 AS version FROM store_versions
        WHERE owner_id = ${ctx.owner}`,
      (rows) => Number(rows[0]!.version)
    )
  )

/** The whole of an owner's rows and its version, read once (PGlite: this process is the only writer). */
const readLocal = (ctx: Owned) =>
  Effect.gen(function* () {
    const value = yield* readVersion(ctx)
    const rows = yield* ctx.read(
      "loading the entries",
      ctx.sql<Mirror.LoadedRow>`SELECT ${ctx.select}, ${ctx.sql.literal(Mirror.loadColumns)} FROM entries
        WHERE owner_id = ${ctx.owner}`
    )
    const mirror = new Mirror.Mirror()
    for (const row of rows) mirror.set(row.id, Mirror.fromLoaded(row))
    return { value, mirror, log: new ChangeLog() }
  })

/**
 * An owner's version counted in memory and a copy of its rows (PGlite: this process is the only writer), both
 * changed by each committed write in one synchronous step.
 */
interface Counter {
  value: number
  readonly mirror: Mirror.Mirror
  /** The ids each counted write changed, for `changes`. */
  readonly log: ChangeLog
}

/** One counter per PGlite database and owner, shared by every store of that owner on it. */
const counters = new WeakMap<Database.Backend, Map<string, Counter>>()

const localCounter = (backend: Database.Backend, owner: string, read: Effect.Effect<Counter, StoreError>) =>
  Effect.gen(function* () {
    let owners = counters.get(backend)
    if (owners === undefined) {
      owners = new Map()
      counters.set(backend, owners)
    }
    const known = owners.get(owner)
    if (known !== undefined) return known
    // No store of this owner exists yet on this database, so nothing can write its entries while this reads.
    const counter = yield* read
    const again = owners.get(owner)
    if (again !== undefined) return again
    owners.set(owner, counter)
    return counter
  })

/** What a committed write changed: the rows it wrote and the ids it removed. */
interface Written {
  readonly rows: ReadonlyArray<EntryParams>
  readonly removed?: ReadonlyArray<string>
}

/**
 * A write that moves the version when it succeeds (`changes` says what this outcome wrote, `undefined` when
 * nothing): with an in-memory counter it runs uninterruptibly, so a committed write always counts, after its
 * commit, and reaches the copy of the rows in the same step.
 */
const counted = <A, E, R>(
  counter: Counter | undefined,
  write: Effect.Effect<A, E, R>,
  changes: (a: A) => Written | undefined
): Effect.Effect<A, E, R> =>
  counter === undefined
    ? write
    : Effect.uninterruptible(
        Effect.tap(write, (a) =>
          Effect.sync(() => {
            const written = changes(a)
            if (written === undefined) return
            counter.value++
            const removed = written.removed ?? []
            for (const id of removed) counter.mirror.delete(id)
            for (const params of written.rows) counter.mirror.set(params.id, Mirror.fromParams(params))
            counter.log.record(counter.value, [...written.rows.map((params) => params.id), ...removed])
          })
        )
      )

/** Inserts one entry; a unique violation names the id or the live logical key that clashed. */
const insertEntry = (ctx: Owned, entry: Entry) =>
  Effect.gen(function* () {
    const params = yield* ctx.encode(entry)
    yield* ctx.owned(`inserting entry ${params.id}`, ctx.bumping(ctx.insertRow(params), [params.id])).pipe(
      Effect.mapError((error) => {
        const reason = (error.cause as SqlError | undefined)?.reason
        return reason?._tag !== "UniqueViolation"
          ? error
          : reason.constraint.includes("logical_key")
            ? fail(`a live entry with logical_key ${params.logical_key} already exists under source ${params.source}`)
            : fail(`an entry with id ${params.id} already exists`)
      })
    )
    return { entry, params }
  })

/**
 * Replaces the live entries matching `key` with `makeEntry(existing)`, under a transaction-scoped advisory lock on
 * (owner, key) and row locks on the matches: concurrent upserts of one key never create duplicates.
 */
const upsertEntry = (ctx: Owned, key: UpsertKey, makeEntry: (existing: Entry | undefined) => Entry) => {
  const { sql, owner, select, order } = ctx
  return ctx.owned(
    `upserting ${key.type}`,
    Effect.gen(function* () {
      // the owner setting is evaluated before the lock in this target list, and both before any row is read
      yield* sql`SELECT set_config('app.current_user', ${owner}, true),
        pg_advisory_xact_lock(hashtextextended(${`upsert:${owner}:${stableJson(lockKey(key))}`}, 0))`
      const clauses: Array<Statement.Fragment> = [
        sql`owner_id = ${owner}`,
        sql`type = ${key.type}`,
        sql`deleted IS NULL`,
        ...ctx.dataClauses(key.data)
      ]
      if (key.source !== undefined) clauses.push(sql`source = ${key.source}`)
      if (key.logical_key !== undefined) clauses.push(sql`logical_key = ${key.logical_key}`)
      const rows = yield* sql<EntryRow>`SELECT ${select} FROM entries WHERE ${sql.and(clauses)}
        ORDER BY ${order} FOR UPDATE`
      const existing = rows.length === 0 ? undefined : toEntry(rows[0]!)
      const next = makeEntry(existing)
      const params = yield* ctx.encode(next)
      const others = rows.filter((row) => row.id !== params.id).map((row) => row.id)
      if (others.length > 0) {
        yield* sql`DELETE FROM entries WHERE owner_id = ${owner}
          AND id IN (SELECT jsonb_array_elements_text(${JSON.stringify(others)}::jsonb))`
      }
      yield* ctx.bumping(rows.some((row) => row.id === params.id) ? ctx.updateRow(params) : ctx.insertRow(params), [
        params.id,
        ...others
      ])
      return { result: { entry: next, previous: Option.fromNullishOr(existing) }, params, removed: others }
    }),
    true
  )
}

/** `version` and `changes` from the in-memory counter and log of a PGlite owner. */
const localChanges = (counter: Counter): Pick<StoreShape, "version" | "changes"> => ({
  version: Effect.sync(() => counter.value),
  changes: (since) => Effect.sync(() => counter.log.since(since, counter.value))
})

/**
 * The `Store` port over one owner's SQL; `counter` keeps the version in memory (PGlite), and with `memoryReads` its
 * copy of the rows answers the reads.
 */
const makeStore = (ctx: Owned, counter: Counter | undefined, memoryReads: boolean): StoreShape => {
  const { sql, owner, select, order, read } = ctx
  // A server's version comes with the per-shard counters its change log answers from; PGlite counts in memory.
  const { version, changes } = counter === undefined ? ServerChanges.make(ctx) : localChanges(counter)
  const mirror = memoryReads ? counter?.mirror : undefined
  return {
    version,
    insert: (entry) =>
      Effect.map(
        counted(counter, insertEntry(ctx, entry), ({ params }) => ({ rows: [params] })),
        (inserted) => inserted.entry
      ),
    get: (id) =>
      mirror !== undefined
        ? Effect.sync(() => Option.fromNullishOr(mirror.get(id)?.entry))
        : read(
            `reading entry ${id}`,
            Effect.map(sql<EntryRow>`SELECT ${select} FROM entries WHERE owner_id = ${owner} AND id = ${id}`, (rows) =>
              rows.length === 0 ? Option.none() : Option.some(toEntry(rows[0]!))
            )
          ),
    query: (filter) =>
      Effect.gen(function* () {
        if (filter.ids !== undefined && filter.ids.length === 0) return []
        if (filter.types !== undefined && filter.types.length === 0) return []
        if (mirror !== undefined) {
          const at = Mirror.instantsOf(filter)
          return at instanceof StoreError ? yield* at : Mirror.query(mirror, filter, at)
        }
        const condition = yield* ctx.where(filter)
        const rows = yield* read(
          "querying entries",
          sql<EntryRow>`SELECT ${select} FROM entries WHERE ${condition} ORDER BY ${order} ${ctx.page(
            filter.limit,
            filter.offset
          )}`
        )
        return rows.map(toEntry)
      }),
    upsert: (key, makeEntry) =>
      Effect.map(
        counted(counter, upsertEntry(ctx, key, makeEntry), ({ params, removed }) => ({ rows: [params], removed })),
        (upserted) => upserted.result
      ),
    update: (id, f) =>
      Effect.map(
        counted(counter, updateEntry(ctx, id, f), (updated) =>
          Option.isSome(updated) ? { rows: [updated.value.params] } : undefined
        ),
        Option.map((updated) => updated.entry)
      ),
    changes
  }
}

/** Applies `f` to the entry under a row lock and writes its result: a compare-and-set (`None`: no row, or declined). */
const updateEntry = (ctx: Owned, id: string, f: (current: Entry) => Entry | undefined) =>
  ctx.owned(
    `updating entry ${id}`,
    Effect.gen(function* () {
      const rows = yield* ctx.sql<EntryRow>`SELECT ${ctx.select} FROM entries WHERE owner_id = ${ctx.owner}
        AND id = ${id} FOR UPDATE`
      if (rows.length === 0) return Option.none<{ entry: Entry; params: EntryParams }>()
      const next = f(toEntry(rows[0]!))
      if (next === undefined) return Option.none<{ entry: Entry; params: EntryParams }>()
      const entry = { ...next, id } as Entry
      const params = yield* ctx.encode(entry)
      yield* ctx.bumping(ctx.updateRow(params), [id])
      return Option.some({ entry, params })
    })
  )

/** Full-text search over one owner's entries, ranked by `ts_rank_cd`. */
const makeSearch = (ctx: Owned, defaultLanguage: string, available: ReadonlySet<string>): FullTextSearch["Service"] => {
  const { sql, select, order } = ctx
  return {
    search: (request: SearchQuery) =>
      Effect.gen(function* () {
        if (typeof request.query !== "string") return yield* fail("query must be a string")
        const language = request.language === undefined ? defaultLanguage : resolveLanguage(request.language, available)
        if (language === undefined) {
          return yield* fail(
            `language ${JSON.stringify(request.language)} is neither an ISO 639-1 code nor a text-search ` +
              `configuration of this database`
          )
        }
        const limit = Math.min(100, Math.max(1, Math.floor(request.limit ?? 10)))
        const condition = yield* ctx.where({
          ...(request.types === undefined ? {} : { types: request.types }),
          ...(request.source === undefined ? {} : { source: request.source }),
          ...(request.tags === undefined ? {} : { tags: request.tags }),
          ...(request.since === undefined ? {} : { since: request.since }),
          ...(request.until === undefined ? {} : { until: request.until }),
          ...(request.activeAt === undefined ? {} : { activeAt: request.activeAt })
        })
        if (request.types !== undefined && request.types.length === 0) return []
        const rows = yield* ctx.read(
          "searching entries",
          sql<EntryRow & { readonly rank: number }>`SELECT ${select}, ts_rank_cd(tsv, q)::float8 AS rank
            FROM entries, plainto_tsquery(${language}::regconfig, ${request.query}) AS q
            WHERE ${condition} AND tsv @@ q
            ORDER BY rank DESC, ${order} LIMIT ${limit}`
        )
        return rows.map((row) => ({ entry: toEntry(row), rank: Number(row.rank) }))
      })
  }
}

/** The change feed, filtered to one owner. */
const makeFeed = (backend: Database.Backend, owner: string): ChangeFeed["Service"] => ({
  subscribe: Effect.map(Effect.mapError(backend.subscribe, fromSql("subscribing to the change feed")), (changes) =>
    changes.pipe(
      Stream.filter((changed) => changed === owner),
      Stream.map((changed) => ({ owner_id: changed })),
      Stream.mapError(fromSql("listening to the change feed"))
    )
  )
})

/** The opt-in expiry purge of one owner. */
const makeCleanup = (ctx: Owned, counter: Counter | undefined): Cleanup["Service"] => {
  const { sql, owner } = ctx
  return {
    purgeExpired: (now) =>
      Effect.gen(function* () {
        const at = yield* ctx.iso("now", now)
        return yield* counted(
          counter,
          ctx.owned(
            "purging expired entries",
            Effect.gen(function* () {
              const purged = yield* sql<{ readonly id: string }>`DELETE FROM entries
              WHERE owner_id = ${owner} AND expires IS NOT NULL AND expires <= ${at}::timestamptz
              AND EXISTS (SELECT 1 FROM entries p WHERE p.owner_id = ${owner} AND p.type = 'preference'
                AND p.deleted IS NULL AND p.data ->> 'key' = 'auto_cleanup' AND p.data ->> 'value' = 'true')
              RETURNING id`
              if (purged.length > 0) yield* ctx.bump(purged.map((row) => row.id))
              return purged.map((row) => row.id)
            })
          ),
          (purged) => (purged.length > 0 ? { rows: [], removed: purged } : undefined)
        ).pipe(Effect.map((purged) => purged.length))
      })
  }
}

/**
 * The services every store layer provides: the `Store` port, {@link FullTextSearch}, {@link ChangeFeed} and
 * {@link Cleanup}.
 *
 * @category models
 * @since 0.1.0
 */
export type Services = Store | FullTextSearch | ChangeFeed | Cleanup

/**
 * The store services for one owner over an existing migrated database (`SqlClient` + `Database.Backend`); use it
 * to serve several owners from one connection pool.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerWith = (
  options: StoreOptions = {}
): Layer.Layer<Services, StoreError, SqlClient.SqlClient | Database.Backend> =>
  Layer.effectContext(
    Effect.map(make(options), (parts) =>
      Context.make(Store, parts.store).pipe(
        Context.add(FullTextSearch, parts.search),
        Context.add(ChangeFeed, parts.feed),
        Context.add(Cleanup, parts.cleanup)
      )
    )
  )

/**
 * The store on embedded PGlite: `dataDir` is a directory (durable) or `memory://` (tests). Migrates on start.
 *
 * **Example** (An awareness store in a local directory)
 *
 * ```ts
 * import { PostgresStore } from "@heed/postgres"
 * import { Store } from "@heed/collator"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function*() {
 *   const store = yield* Store.Store
 *   return yield* store.query({ types: ["alert"], data: { resolved: false } })
 * }).pipe(Effect.provide(PostgresStore.layerEmbedded({ dataDir: "./.heed/awareness" })))
 * ```
 *
 * @category layers
 * @since 0.1.0
 */
export const layerEmbedded = (
  options: Omit<Database.EmbeddedOptions, "sessionOwner"> & Omit<StoreOptions, "ownerInSession">
): Layer.Layer<Services | SqlClient.SqlClient | PgliteClient.PgliteClient, StoreError | SqlError | MigrationError> => {
  const owner = options.owner ?? defaultOwner
  return layerWith({ ...options, owner, ownerInSession: true }).pipe(
    Layer.provideMerge(Database.layerEmbedded({ ...options, sessionOwner: owner }))
  )
}

/**
 * The store on a PostgreSQL server through `@effect/sql-pg` (pooled connections, LISTEN/NOTIFY change feed).
 * Migrates on start; several processes may start at once.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (
  options: Omit<Database.ServerOptions, "sessionOwner"> & Omit<StoreOptions, "ownerInSession">
): Layer.Layer<
  Services | SqlClient.SqlClient | PgClient.PgClient,
  StoreError | SqlError | MigrationError | Database.DatabaseConfigError
> => {
  const owner = options.owner ?? defaultOwner
  return layerWith({ ...options, owner, ownerInSession: true }).pipe(
    Layer.provideMerge(Database.layer({ ...options, sessionOwner: owner }))
  )
}

/**
 * {@link layer} with options from `Config`: by default the URL from `DATABASE_URL` and the owner from
 * `AWARENESS_DEFAULT_OWNER` (upstream's variable; `"default"` when unset).
 *
 * @category layers
 * @since 0.1.0
 */
export const layerConfig = (
  config: Config.Wrap<Omit<Database.ServerOptions, "sessionOwner"> & Omit<StoreOptions, "ownerInSession">> = {
    url: Config.Redacted("DATABASE_URL"),
    owner: Config.String("AWARENESS_DEFAULT_OWNER").pipe(Config.withDefault(defaultOwner))
  }
): Layer.Layer<
  Services | SqlClient.SqlClient | PgClient.PgClient,
  StoreError | SqlError | MigrationError | Database.DatabaseConfigError | Config.ConfigError
> => Layer.unwrap(Effect.map(Config.unwrap(config), layer))
