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
}

/** A row as the initial load reads it: the entry's select list plus its instants. */
export interface LoadedRow extends EntryRow {
  readonly created_ms: number
  readonly updated_ms: number | null
  readonly expires_ms: number | null
  readonly deleted_ms: number | null
}

/** The rows of one owner, by id. */
export type Mirror = Map<string, MirrorRow>

/** The select list of {@link LoadedRow} after the entry's own (times as epoch milliseconds). */
export const loadColumns =
  "(extract(epoch FROM created) * 1000)::float8 AS created_ms, " +
  "(extract(epoch FROM updated) * 1000)::float8 AS updated_ms, " +
  "(extract(epoch FROM expires) * 1000)::float8 AS expires_ms, " +
  "(extract(epoch FROM deleted) * 1000)::float8 AS deleted_ms"

const orUndefined = (value: number | null): number | undefined => (value === null ? undefined : value)

/** A row of the initial load. */
export const fromLoaded = (row: LoadedRow): MirrorRow => ({
  entry: toEntry(row),
  createdMs: row.created_ms,
  updatedMs: orUndefined(row.updated_ms),
  expiresMs: orUndefined(row.expires_ms),
  deleted: row.deleted_ms !== null
})

/** A row as a committed write stored it; the entry is parsed from the envelope, as a SQL read would return it. */
export const fromParams = (params: EntryParams): MirrorRow => ({
  entry: JSON.parse(params.envelope) as Entry,
  createdMs: parseIso(params.created)!,
  updatedMs: params.updated === null ? undefined : parseIso(params.updated),
  expiresMs: params.expires === null ? undefined : parseIso(params.expires),
  deleted: params.deleted !== null
})

/** `data -> key = value` (or, for `null`, a missing key or a JSON null), as jsonb compares scalars. */
const dataMatches = (data: Readonly<Record<string, unknown>>, wanted: Readonly<Record<string, unknown>>) => {
  for (const [key, value] of Object.entries(wanted)) {
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

const matches = (row: MirrorRow, filter: EntryFilter, at: Instants): boolean => {
  const mode = filter.deleted ?? "exclude"
  if (mode === "exclude" ? row.deleted : mode === "only" && !row.deleted) return false
  const { entry } = row
  if (filter.ids !== undefined && !filter.ids.includes(entry.id)) return false
  if (filter.types !== undefined && !filter.types.includes(entry.type)) return false
  if (filter.source !== undefined && entry.source !== filter.source) return false
  if (filter.tags !== undefined && !filter.tags.every((tag) => entry.tags.includes(tag))) return false
  if (filter.data !== undefined && !dataMatches(entry.data, filter.data)) return false
  if (at.activeAt !== undefined && row.expiresMs !== undefined && row.expiresMs <= at.activeAt) return false
  const time = row.updatedMs ?? row.createdMs
  if (at.since !== undefined && time < at.since) return false
  if (at.until !== undefined && time > at.until) return false
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

const compareRows = (a: MirrorRow, b: MirrorRow): number =>
  (b.updatedMs ?? b.createdMs) - (a.updatedMs ?? a.createdMs) || compareIds(a.entry.id, b.entry.id)

/**
 * The entries `filter` selects at its instants `at` (see {@link instantsOf}), in the database's order, paged as
 * `LIMIT`/`OFFSET` page them.
 */
export const query = (mirror: Mirror, filter: EntryFilter, at: Instants): ReadonlyArray<Entry> => {
  if (filter.ids !== undefined && filter.ids.length === 0) return []
  if (filter.types !== undefined && filter.types.length === 0) return []
  const found: Array<MirrorRow> = []
  if (filter.ids !== undefined) {
    for (const id of new Set(filter.ids)) {
      const row = mirror.get(id)
      if (row !== undefined && matches(row, filter, at)) found.push(row)
    }
  } else {
    for (const row of mirror.values()) if (matches(row, filter, at)) found.push(row)
  }
  found.sort(compareRows)
  const skip = Math.max(0, Math.floor(filter.offset ?? 0))
  const end = filter.limit === undefined ? undefined : skip + Math.max(0, Math.floor(filter.limit))
  return found.slice(skip, end).map((row) => row.entry)
}
