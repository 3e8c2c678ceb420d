/**
 * The store's changes on a PostgreSQL server, where other processes and replicas write too: every write logs the ids
 * it changed in `store_changes`, under the shard of `store_versions` it bumped and that shard's new version, in the
 * same statement.
 *
 * A shard's counter row stays locked by the transaction that bumped it until it commits, so on each shard the
 * versions become visible in order: whatever one statement reads of a shard's log is every version from 1 (or from
 * the oldest kept) up to some last one, without holes. A reader that knows, for each shard, the last version it has
 * seen can therefore ask for everything after it. It knows it has missed nothing when each shard's answer starts
 * right after what it knew and ends at the shard's counter, read in the same statement. `version` is the sum of the
 * shards' versions; the store remembers, for the sums it handed out lately, which versions per shard they stand for,
 * so `changes(since)` can answer for them.
 *
 * @since 0.2.0
 */
import type { Changes, StoreError } from "@heed/collator/Store"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Owned } from "./owned.ts"

/** How many versions of each shard the log keeps (16 shards: the last 16,384 writes or more). */
export const keptPerShard = 1024

/** A shard drops what it no longer keeps every this many versions, so that pruning costs little per write. */
export const pruneEvery = 64

const shards = 16

/** How many handed-out versions the store remembers the shards of. */
const remembered = 256

/** A version's per-shard counters (shard `i` at index `i`; 0 where a shard has no row yet). */
type Cursor = ReadonlyArray<number>

const sumOf = (cursor: Cursor): number => cursor.reduce((a, b) => a + b, 0)

/** `version` and `changes` for one owner's store on a PostgreSQL server. */
export const make = (ctx: Owned) => {
  const cursors = new Map<number, Cursor>()
  const remember = (cursor: Cursor): number => {
    const sum = sumOf(cursor)
    cursors.delete(sum)
    cursors.set(sum, cursor)
    // A Map iterates in insertion order: the first key is the one remembered longest ago.
    if (cursors.size > remembered) cursors.delete(cursors.keys().next().value as number)
    return sum
  }

  const version: Effect.Effect<number, StoreError> = ctx.read(
    "reading the store version",
    Effect.map(
      ctx.sql<{ readonly shard: number; readonly version: number }>`SELECT shard, version::float8 AS version
        FROM store_versions WHERE owner_id = ${ctx.owner}`,
      (rows) => {
        const cursor = Array.from({ length: shards }, () => 0)
        for (const row of rows) cursor[Number(row.shard)] = Number(row.version)
        return remember(cursor)
      }
    )
  )

  const changes = (since: number): Effect.Effect<Option.Option<Changes>, StoreError> => {
    const known = cursors.get(since)
    if (known === undefined) return Effect.succeed(Option.none())
    const after = JSON.stringify(known.map((version, shard) => ({ shard, version })))
    // One statement, so the counters and the log are read from one snapshot.
    return ctx
      .read(
        "reading the store's changes",
        Effect.map(
          ctx.sql<{ readonly counters: unknown; readonly changes: unknown }>`SELECT
          (SELECT COALESCE(json_agg(json_build_array(shard, version)), '[]'::json) FROM store_versions
            WHERE owner_id = ${ctx.owner}) AS counters,
          (SELECT COALESCE(json_agg(json_build_array(c.shard, c.version, c.ids) ORDER BY c.shard, c.version),
            '[]'::json) FROM store_changes c
            JOIN jsonb_to_recordset(${after}::jsonb) AS k(shard smallint, version bigint)
              ON c.shard = k.shard AND c.version > k.version
            WHERE c.owner_id = ${ctx.owner}) AS changes`,
          (rows) => advance(known, parsed(rows[0]?.counters), parsed(rows[0]?.changes))
        )
      )
      .pipe(Effect.map(Option.map((next) => ({ version: remember(next.cursor), ids: next.ids }))))
  }

  return { version, changes }
}

/** A `json` column as the driver hands it over: parsed already, or as text. */
const parsed = (value: unknown): ReadonlyArray<ReadonlyArray<unknown>> => {
  const json = typeof value === "string" ? JSON.parse(value) : value
  return Array.isArray(json) ? json : []
}

/**
 * The cursor after `changes` (`[shard, version, ids]`, each shard's versions after `known`, in order) and the ids
 * they changed; `None` unless every shard's log runs without a hole from right after what was known up to its
 * counter in `counters` (`[shard, version]`): the log no longer holds some of it.
 */
const advance = (
  known: Cursor,
  counters: ReadonlyArray<ReadonlyArray<unknown>>,
  changes: ReadonlyArray<ReadonlyArray<unknown>>
): Option.Option<{ readonly cursor: Cursor; readonly ids: ReadonlyArray<string> }> => {
  const cursor = [...known]
  const ids = new Set<string>()
  for (const [shard, version, written] of changes) {
    if (Number(version) !== (cursor[Number(shard)] as number) + 1) return Option.none()
    cursor[Number(shard)] = Number(version)
    if (Array.isArray(written)) for (const id of written) if (typeof id === "string") ids.add(id)
  }
  for (const [shard, version] of counters) if (cursor[Number(shard)] !== Number(version)) return Option.none()
  return Option.some({ cursor, ids: [...ids] })
}
