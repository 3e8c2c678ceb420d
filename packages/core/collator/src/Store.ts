/**
 * The storage port: everything `Awareness` needs from a store of {@link Entry} values, as one `Context.Service`.
 *
 * The port is deliberately small so adapters (the in-memory `Store.layerMemory` here, PostgreSQL/PGlite in
 * `@heed/awareness`) stay simple: insert, get, query with filters, and two atomic read-modify-write operations
 * (`upsert` by key and `update` by id) that carry the concurrency guarantees (no duplicate alerts under concurrent
 * upserts, intentions fired exactly once). Every write bumps `version`, which briefing caches watch.
 *
 * Every implementation must pass the contract suite `StoreContract` in `@heed/collator/testing`.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { Entry, EntryType } from "./Entry.ts"
import { parseIso } from "./internal/time.ts"

/**
 * A storage failure (connection lost, constraint violated, ...). `retryable` says whether trying again may help.
 *
 * @category errors
 * @since 0.1.0
 */
export class StoreError extends Schema.TaggedError<StoreError>()("StoreError", {
  message: Schema.String,
  retryable: Schema.Boolean,
  cause: Schema.optionalKey(Schema.Defect())
}) {}

/**
 * A scalar a `data` field can be compared with.
 *
 * @category models
 * @since 0.1.0
 */
export type Scalar = string | number | boolean | null

/**
 * A query over entries. Every given field narrows the result (AND); results are ordered by
 * `COALESCE(updated, created)` descending, then `id` ascending.
 *
 * - `ids`, `types`, `source`: membership and equality.
 * - `tags`: the entry carries every listed tag (AND).
 * - `data`: each listed top-level `data` field equals the scalar (a missing field equals `null`).
 * - `deleted`: `"exclude"` (default), `"include"` or `"only"` soft-deleted entries.
 * - `activeAt`: an ISO instant; entries whose `expires` is at or before it are left out.
 * - `since` / `until`: bounds (inclusive) on `COALESCE(updated, created)`.
 * - `createdAfter` / `createdBefore`: bounds (inclusive) on `created`.
 * - `limit` / `offset`: paging after ordering.
 *
 * @category models
 * @since 0.1.0
 */
export interface EntryFilter {
  readonly ids?: ReadonlyArray<string>
  readonly types?: ReadonlyArray<EntryType>
  readonly source?: string
  readonly tags?: ReadonlyArray<string>
  readonly data?: Readonly<Record<string, Scalar>>
  readonly deleted?: "exclude" | "include" | "only"
  readonly activeAt?: string
  readonly since?: string
  readonly until?: string
  readonly createdAfter?: string
  readonly createdBefore?: string
  readonly limit?: number
  readonly offset?: number
}

/**
 * The key of an upsert: the live (not deleted) entries of `type` with this `source` (when given), whose `data`
 * fields equal `data` (when given) and whose `logical_key` equals `logical_key` (when given).
 *
 * @category models
 * @since 0.1.0
 */
export interface UpsertKey {
  readonly type: EntryType
  readonly source?: string
  readonly data?: Readonly<Record<string, Scalar>>
  readonly logical_key?: string
}

/**
 * The outcome of an upsert: the stored `entry` and the live entry it replaced, if any.
 *
 * @category models
 * @since 0.1.0
 */
export interface UpsertResult {
  readonly entry: Entry
  readonly previous: Option.Option<Entry>
}

/**
 * The store's interface.
 *
 * - `version`: a counter that grows on every successful write (inserts, upserts, updates that changed something);
 *   readers compare it to detect changes, also across processes (a Postgres adapter keeps it in the database). The
 *   briefing cache asks for it on every read, so it should be cheap.
 * - `insert(entry)`: stores a new entry; fails if the id exists.
 * - `get(id)`: the entry with this id, deleted or not.
 * - `query(filter)`: see {@link EntryFilter}.
 * - `upsert(key, make)`: **atomically** finds the newest live entry matching `key`, stores `make(existing)` in
 *   its place and removes every other live match (so statuses stay one per source). When `make` returns a
 *   different id the old row is replaced by the new one. Concurrent upserts on the same key never create
 *   duplicates.
 * - `update(id, f)`: **atomically** applies `f` to the current entry (deleted or not); `f` returns the new entry
 *   or `undefined` to leave it unchanged. Returns the written entry, or `None` when the id is unknown or `f`
 *   declined. Used as a compare-and-set, e.g. to fire an intention only while it is still pending.
 * - `changes(since)` (optional): the ids of the entries written or removed after version `since`, and the version
 *   they bring the store to (see {@link Changes}), or `None` when the store cannot tell (its log does not reach back
 *   that far, or it does not know every writer's changes). A briefing cache uses it to refresh only the changed
 *   entries of the snapshot it keeps; without it (or on `None`) the cache reads its snapshot again.
 *
 * @category models
 * @since 0.1.0
 */
export interface StoreShape {
  readonly version: Effect.Effect<number, StoreError>
  readonly insert: (entry: Entry) => Effect.Effect<Entry, StoreError>
  readonly get: (id: string) => Effect.Effect<Option.Option<Entry>, StoreError>
  readonly query: (filter: EntryFilter) => Effect.Effect<ReadonlyArray<Entry>, StoreError>
  readonly upsert: (
    key: UpsertKey,
    make: (existing: Entry | undefined) => Entry
  ) => Effect.Effect<UpsertResult, StoreError>
  readonly update: (
    id: string,
    f: (current: Entry) => Entry | undefined
  ) => Effect.Effect<Option.Option<Entry>, StoreError>
  readonly changes?: ((since: number) => Effect.Effect<Option.Option<Changes>, StoreError>) | undefined
}

/**
 * The answer of `StoreShape.changes(since)`: every entry written or removed by the writes after version `since` up to
 * `version` is in `ids` (once each). A reader that then reads those entries sees them at `version` or later, so it
 * may ask again from `version` and read some of them twice; reading an entry again is harmless.
 *
 * @category models
 * @since 0.2.0
 */
export interface Changes {
  readonly version: number
  readonly ids: ReadonlyArray<string>
}

/**
 * A bounded log of a store's writes, for stores that see every write to their data (an in-memory store, a
 * database file one process owns): `record(version, ids)` after each write, with the version it brought the store
 * to (one more than the last recorded), and `since(version, current)` answers `StoreShape.changes`. It keeps at least
 * the last `capacity` writes (default 4,096); versions older than what it holds are answered with `None`.
 *
 * **Example** (Answering changes from the log)
 *
 * ```ts
 * import { Store } from "@heed/collator"
 * import { Option } from "effect"
 *
 * const log = new Store.ChangeLog()
 * log.record(1, ["a"])
 * log.record(2, ["b", "a"])
 * Option.map(log.since(0, 2), (changes) => changes.ids) // Option.some(["a", "b"])
 * ```
 *
 * @category constructors
 * @since 0.2.0
 */
export class ChangeLog {
  private readonly versions: Array<number> = []
  private readonly written: Array<ReadonlyArray<string>> = []
  private readonly capacity: number
  constructor(capacity = 4096) {
    this.capacity = capacity
  }

  /** Records the write that brought the store to `version`. */
  record(version: number, ids: ReadonlyArray<string>): void {
    this.versions.push(version)
    this.written.push(ids)
    // Dropping half at once keeps the cost of a write constant on average.
    if (this.versions.length > this.capacity * 2) {
      this.versions.splice(0, this.capacity)
      this.written.splice(0, this.capacity)
    }
  }

  /** The changes after `since` up to `current`, when the log holds every write in between. */
  since(since: number, current: number): Option.Option<Changes> {
    if (since === current) return Option.some({ version: current, ids: [] })
    const first = this.versions[0]
    if (since > current || first === undefined || first > since + 1) return Option.none()
    const ids = new Set<string>()
    for (let i = this.firstAfter(since); i < this.versions.length; i++) {
      for (const id of this.written[i] as ReadonlyArray<string>) ids.add(id)
    }
    return Option.some({ version: current, ids: [...ids] })
  }

  /** The index of the first write after `version` (binary search: versions only grow). */
  private firstAfter(version: number): number {
    let low = 0
    let high = this.versions.length
    while (low < high) {
      const mid = (low + high) >>> 1
      if ((this.versions[mid] as number) <= version) low = mid + 1
      else high = mid
    }
    return low
  }
}

const timeOf = (entry: Entry): number => parseIso(entry.updated) ?? parseIso(entry.created) ?? 0

/**
 * Whether `entry` passes `filter` (paging aside). Exposed so adapters and tests share one definition.
 *
 * @category guards
 * @since 0.1.0
 */
export const matchesFilter = (entry: Entry, filter: EntryFilter): boolean => {
  const deleted = entry.deleted !== null && entry.deleted !== undefined
  const mode = filter.deleted ?? "exclude"
  if ((mode === "exclude" && deleted) || (mode === "only" && !deleted)) return false
  if (filter.ids !== undefined && !filter.ids.includes(entry.id)) return false
  if (filter.types !== undefined && !filter.types.includes(entry.type)) return false
  if (filter.source !== undefined && entry.source !== filter.source) return false
  if (filter.tags !== undefined && !filter.tags.every((tag) => entry.tags.includes(tag))) return false
  if (filter.data !== undefined) {
    for (const [key, value] of Object.entries(filter.data)) if ((entry.data[key] ?? null) !== value) return false
  }
  if (filter.activeAt !== undefined) {
    const expires = parseIso(entry.expires)
    const at = parseIso(filter.activeAt) ?? 0
    if (expires !== undefined && expires <= at) return false
  }
  const time = timeOf(entry)
  if (filter.since !== undefined && time < (parseIso(filter.since) ?? 0)) return false
  if (filter.until !== undefined && time > (parseIso(filter.until) ?? 0)) return false
  const created = parseIso(entry.created) ?? 0
  if (filter.createdAfter !== undefined && created < (parseIso(filter.createdAfter) ?? 0)) return false
  if (filter.createdBefore !== undefined && created > (parseIso(filter.createdBefore) ?? 0)) return false
  return true
}

/**
 * The store's ordering: `COALESCE(updated, created)` descending, then `id` ascending.
 *
 * @category combinators
 * @since 0.1.0
 */
export const compareEntries = (a: Entry, b: Entry): number =>
  timeOf(b) - timeOf(a) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

const matchesKey = (entry: Entry, key: UpsertKey): boolean =>
  entry.type === key.type &&
  (entry.deleted === null || entry.deleted === undefined) &&
  (key.source === undefined || entry.source === key.source) &&
  (key.logical_key === undefined || entry.logical_key === key.logical_key) &&
  (key.data === undefined || Object.entries(key.data).every(([k, v]) => (entry.data[k] ?? null) === v))

const makeMemory = Effect.sync(() => {
  const entries = new Map<string, Entry>()
  let version = 0
  const log = new ChangeLog()
  const wrote = (ids: ReadonlyArray<string>) => log.record(++version, ids)
  // Every operation runs synchronously inside one `Effect.sync`, so each is atomic in a single process.
  return Store.of({
    version: Effect.sync(() => version),
    insert: (entry) =>
      Effect.suspend(() => {
        if (entries.has(entry.id)) {
          return Effect.fail(
            new StoreError({ message: `an entry with id ${entry.id} already exists`, retryable: false })
          )
        }
        entries.set(entry.id, entry)
        wrote([entry.id])
        return Effect.succeed(entry)
      }),
    get: (id) => Effect.sync(() => Option.fromNullishOr(entries.get(id))),
    query: (filter) =>
      Effect.sync(() => {
        const out: Array<Entry> = []
        for (const entry of entries.values()) if (matchesFilter(entry, filter)) out.push(entry)
        out.sort(compareEntries)
        const offset = Math.max(0, filter.offset ?? 0)
        return filter.limit === undefined ? out.slice(offset) : out.slice(offset, offset + Math.max(0, filter.limit))
      }),
    upsert: (key, make) =>
      Effect.sync(() => {
        const matches = [...entries.values()].filter((entry) => matchesKey(entry, key)).sort(compareEntries)
        const existing = matches[0]
        const next = make(existing)
        for (const match of matches) entries.delete(match.id)
        entries.set(next.id, next)
        wrote([next.id, ...matches.map((match) => match.id)])
        return { entry: next, previous: Option.fromNullishOr(existing) }
      }),
    update: (id, f) =>
      Effect.sync(() => {
        const current = entries.get(id)
        if (current === undefined) return Option.none()
        const next = f(current)
        if (next === undefined) return Option.none()
        entries.set(id, { ...next, id })
        wrote([id])
        return Option.some({ ...next, id })
      }),
    changes: (since) => Effect.sync(() => log.since(since, version))
  })
})

/**
 * The storage port. `Store.layerMemory` keeps entries in process memory (no persistence; each layer build starts
 * empty). See {@link StoreShape} for the contract every implementation honours.
 *
 * **Example** (Reading through the port)
 *
 * ```ts
 * import { Store } from "@heed/collator"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function*() {
 *   const store = yield* Store.Store
 *   return yield* store.query({ types: ["alert"], data: { resolved: false } })
 * }).pipe(Effect.provide(Store.layerMemory))
 * ```
 *
 * @category services
 * @since 0.1.0
 */
export class Store extends Context.Service<Store, StoreShape>()("@heed/collator/Store") {}

/**
 * An in-memory store; every build of the layer starts empty.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerMemory: Layer.Layer<Store> = Layer.effect(Store, makeMemory)
