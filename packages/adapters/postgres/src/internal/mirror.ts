/**
 * An in-memory copy of one owner's rows on PGlite, which answers `query` and `get` without SQL.
 *
 * Why: a briefing reads every live alert (10k rows at scale) through nine queries, and on PGlite each read runs
 * synchronously on the event loop (105-135 ms for 10k alerts) and holds the single connection, so every request
 * queued behind it. The data directory belongs to one process, so that process sees every write: the copy is loaded
 * once when the owner's first store is made, and each committed write is applied to it in the same synchronous step
 * that counts the version, so a reader sees the copy and the version move together.
 *
 * Filters run over the values as the database compares them (times as the instants it stored; `type`, `source`,
 * `tags` and `data` from the entry, whose columns are written from the same values), in the database's own order
 * (`COALESCE(updated, created) DESC, id COLLATE "C" ASC`); `test/MemoryReads.test.ts` checks every answer against
 * the SQL one.
 *
 * @since 0.1.0
 */
import type { Entry } from "@heed/collator/Entry"
import { type EntryFilter, StoreError } from "@heed/collator/Store"
import { type EntryParams, type EntryRow, instantParam, parseIso, toEntry } from "./row.ts"

/** One row: the entry a SQL read returns, and the instants filters compare. */
export interface MirrorRow {
  readonly entry: Entry
  readonly createdMs: number
  readonly updatedMs: number | undefined
  readonly expiresMs: number | undefined
  readonly deleted: boolean
  /** `updated`, else `created`: what `since`/`until` compare and the order's first key. */
  readonly timeMs: number
  /** The id has no UTF-16 surrogates, so `<` on two such ids is code point order (the sort's fast path). */
  readonly plainId: boolean
}

/** A row as the initial load reads it: the entry's select list plus its instants. */
export interface LoadedRow extends EntryRow {
  readonly created_ms: number
  readonly updated_ms: number | null
  readonly expires_ms: number | null
  readonly deleted_ms: number | null
}

/**
 * The rows of one owner, by id and by type: each of a briefing's reads names one type, so it scans only that type's
 * rows (the 10k alerts are not scanned by the reads of statuses, intentions or preferences).
 */
export class Mirror {
  readonly #rows = new Map<string, MirrorRow>()
  readonly #byType = new Map<string, Map<string, MirrorRow>>()

  get(id: string): MirrorRow | undefined {
    return this.#rows.get(id)
  }

  set(id: string, row: MirrorRow): void {
    this.delete(id)
    this.#rows.set(id, row)
    const typed = this.#byType.get(row.entry.type)
    if (typed === undefined) this.#byType.set(row.entry.type, new Map([[id, row]]))
    else typed.set(id, row)
  }

  delete(id: string): void {
    const row = this.#rows.get(id)
    if (row === undefined) return
    this.#rows.delete(id)
    this.#byType.get(row.entry.type)?.delete(id)
  }

  /** Every row, or the rows of the given types. */
  rows(types: ReadonlyArray<string> | undefined): Iterable<MirrorRow> {
    if (types === undefined) return this.#rows.values()
    if (types.length === 1) return this.#byType.get(types[0]!)?.values() ?? []
    return [...new Set(types)].flatMap((type) => [...(this.#byType.get(type)?.values() ?? [])])
  }
}

/** The select list of {@link LoadedRow} after the entry's own (times as epoch milliseconds). */
export const loadColumns =
  "(extract(epoch FROM created) * 1000)::float8 AS created_ms, " +
  "(extract(epoch FROM updated) * 1000)::float8 AS updated_ms, " +
  "(extract(epoch FROM expires) * 1000)::float8 AS expires_ms, " +
  "(extract(epoch FROM deleted) * 1000)::float8 AS deleted_ms"

const orUndefined = (value: number | null): number | undefined => (value === null ? undefined : value)

const surrogate = /[\uD800-\uDFFF]/

const makeRow = (
  entry: Entry,
  createdMs: number,
  updatedMs: number | undefined,
  expiresMs: number | undefined,
  deleted: boolean
): MirrorRow => ({
  entry,
  createdMs,
  updatedMs,
  expiresMs,
  deleted,
  timeMs: updatedMs ?? createdMs,
  plainId: !surrogate.test(entry.id)
})

/** A row of the initial load. */
export const fromLoaded = (row: LoadedRow): MirrorRow =>
  makeRow(
    toEntry(row),
    row.created_ms,
    orUndefined(row.updated_ms),
    orUndefined(row.expires_ms),
    row.deleted_ms !== null
  )

/** A row as a committed write stored it; the entry is parsed from the envelope, as a SQL read would return it. */
export const fromParams = (params: EntryParams): MirrorRow =>
  makeRow(
    JSON.parse(params.envelope) as Entry,
    parseIso(params.created)!,
    params.updated === null ? undefined : parseIso(params.updated),
    params.expires === null ? undefined : parseIso(params.expires),
    params.deleted !== null
  )

/** A filter's `data` pairs, taken once per query. */
type DataPairs = ReadonlyArray<readonly [string, unknown]>

/** `data -> key = value` (or, for `null`, a missing key or a JSON null), as jsonb compares scalars. */
const dataMatches = (data: Readonly<Record<string, unknown>>, wanted: DataPairs) => {
  for (const [key, value] of wanted) {
    const own = Object.hasOwn(data, key) ? data[key] : null
    if (value === null ? own !== null : own !== value) return false
  }
  return true
}

/** A filter's instants in milliseconds (absent ones `undefined`). */
export interface Instants {
  readonly activeAt: number | undefined
  readonly since: number | undefined
  readonly until: number | undefined
  readonly createdAfter: number | undefined
  readonly createdBefore: number | undefined
}

const instantFields: ReadonlyArray<keyof Instants> = ["activeAt", "since", "until", "createdAfter", "createdBefore"]

/**
 * The filter's instants, parsed once per query, or the `StoreError` naming the first invalid one (the same error the
 * SQL path gives).
 */
export const instantsOf = (filter: EntryFilter): Instants | StoreError => {
  const out: { -readonly [K in keyof Instants]: Instants[K] } = {
    activeAt: undefined,
    since: undefined,
    until: undefined,
    createdAfter: undefined,
    createdBefore: undefined
  }
  for (const field of instantFields) {
    const value = filter[field]
    if (value === undefined) continue
    const ms = instantParam(field, value)
    if (ms instanceof StoreError) return ms
    out[field] = ms
  }
  return out
}

const matches = (row: MirrorRow, filter: EntryFilter, at: Instants, data: DataPairs | undefined): boolean => {
  const mode = filter.deleted ?? "exclude"
  if (mode === "exclude" ? row.deleted : mode === "only" && !row.deleted) return false
  const { entry } = row
  if (filter.ids !== undefined && !filter.ids.includes(entry.id)) return false
  if (filter.types !== undefined && !filter.types.includes(entry.type)) return false
  if (filter.source !== undefined && entry.source !== filter.source) return false
  if (filter.tags !== undefined && !filter.tags.every((tag) => entry.tags.includes(tag))) return false
  if (data !== undefined && !dataMatches(entry.data, data)) return false
  if (at.activeAt !== undefined && row.expiresMs !== undefined && row.expiresMs <= at.activeAt) return false
  if (at.since !== undefined && row.timeMs < at.since) return false
  if (at.until !== undefined && row.timeMs > at.until) return false
  if (at.createdAfter !== undefined && row.createdMs < at.createdAfter) return false
  if (at.createdBefore !== undefined && row.createdMs > at.createdBefore) return false
  return true
}

/** `COLLATE "C"`: UTF-8 byte order, which is code point order (UTF-16 code units differ above U+FFFF). */
const compareIds = (a: string, b: string): number => {
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    const x = a.codePointAt(i)!
    const y = b.codePointAt(j)!
    if (x !== y) return x - y
    i += x > 0xffff ? 2 : 1
    j += y > 0xffff ? 2 : 1
  }
  return a.length - b.length
}

const compareRows = (a: MirrorRow, b: MirrorRow): number => {
  const byTime = b.timeMs - a.timeMs
  if (byTime !== 0) return byTime
  if (!a.plainId || !b.plainId) return compareIds(a.entry.id, b.entry.id)
  return a.entry.id < b.entry.id ? -1 : a.entry.id > b.entry.id ? 1 : 0
}

/**
 * The entries `filter` selects at its instants `at` (see {@link instantsOf}), in the database's order, paged as
 * `LIMIT`/`OFFSET` page them.
 */
export const query = (mirror: Mirror, filter: EntryFilter, at: Instants): ReadonlyArray<Entry> => {
  if (filter.ids !== undefined && filter.ids.length === 0) return []
  if (filter.types !== undefined && filter.types.length === 0) return []
  const found: Array<MirrorRow> = []
  const data = filter.data === undefined ? undefined : Object.entries(filter.data)
  if (filter.ids !== undefined) {
    for (const id of new Set(filter.ids)) {
      const row = mirror.get(id)
      if (row !== undefined && matches(row, filter, at, data)) found.push(row)
    }
  } else {
    for (const row of mirror.rows(filter.types)) if (matches(row, filter, at, data)) found.push(row)
  }
  found.sort(compareRows)
  const skip = Math.max(0, Math.floor(filter.offset ?? 0))
  const end = filter.limit === undefined ? undefined : skip + Math.max(0, Math.floor(filter.limit))
  return found.slice(skip, end).map((row) => row.entry)
}
