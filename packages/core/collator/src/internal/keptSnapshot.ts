/**
 * The entries a briefing is built from, kept in memory between briefings and refreshed entry by entry from the
 * store's changes (`StoreShape.changes`), so that a briefing after a write neither reads the store again nor hands
 * the collator new objects for entries that did not change (its memo then keeps their work).
 *
 * It holds every entry that one of the briefing's store queries (`loadSnapshot` in `briefingCache.ts`) returned
 * when it was last read, in the store's order (`COALESCE(updated, created)` descending, then id). The queries only
 * narrow as time passes (`activeAt` now, `since` now minus a window): an entry that one of them returns at a later
 * instant is one it also returned at every earlier instant. So an unchanged entry the copy does not hold is one no
 * query would return now, and {@link KeptSnapshot.at} gives what the queries would give now by filtering the copy
 * with the same conditions.
 *
 * @since 0.2.0
 */
import type { Entry } from "../Entry.ts"
import { parseIso, toIso } from "./time.ts"

/** The windows of the briefing's queries, in milliseconds. */
export interface Windows {
  readonly flapWindowMs: number
  readonly resurfaceMs: number
  readonly retentionMs: number
}

/** Which query returns an entry: the snapshot's parts, in the order the queries run. */
export type Part =
  | "status"
  | "firing"
  | "resolved"
  | "suppression"
  | "pattern"
  | "pending"
  | "snoozed"
  | "fired"
  | "zone"

/** What the queries return at one instant, each part in the store's order. */
export type Parts = Readonly<Record<Part, ReadonlyArray<Entry>>>

/** The parts in the order the queries run. */
const partOrder: ReadonlyArray<Part> = [
  "status",
  "firing",
  "resolved",
  "suppression",
  "pattern",
  "pending",
  "snoozed",
  "fired",
  "zone"
]

interface Kept {
  readonly entry: Entry
  /** `COALESCE(updated, created)`, as the store orders and bounds (`since`) it. */
  readonly time: number
  readonly expires: number | undefined
}

/** The instants a query compares with: its ISO parameter read back, as a store reads it. */
const instant = (ms: number): number => parseIso(toIso(ms)) ?? ms

/** The instants of the queries at `nowMs`. */
interface Bounds {
  readonly now: number
  readonly resolvedSince: number
  readonly suppressionsAt: number
  readonly firedSince: number
}

const boundsAt = (nowMs: number, windows: Windows): Bounds => ({
  now: instant(nowMs),
  resolvedSince: instant(nowMs - windows.flapWindowMs),
  suppressionsAt: instant(nowMs - windows.resurfaceMs),
  firedSince: instant(nowMs - windows.retentionMs)
})

/** A `data` field compared as the store's `data` filter compares it (a missing field equals `null`). */
const field = (entry: Entry, key: string): unknown => entry.data[key] ?? null

/** The query that returns `kept` at the instants `at`, if any (each entry is returned by at most one). */
const partOf = (kept: Kept, at: Bounds): Part | undefined => {
  const entry = kept.entry
  if (entry.deleted !== null && entry.deleted !== undefined) return undefined
  const activeAt = (ms: number) => kept.expires === undefined || kept.expires > ms
  switch (entry.type) {
    case "status":
      return activeAt(at.now) ? "status" : undefined
    case "alert": {
      if (!activeAt(at.now)) return undefined
      const resolved = field(entry, "resolved")
      if (resolved === false) return "firing"
      return resolved === true && kept.time >= at.resolvedSince ? "resolved" : undefined
    }
    case "suppression":
      return activeAt(at.suppressionsAt) ? "suppression" : undefined
    case "pattern":
      return activeAt(at.now) ? "pattern" : undefined
    case "intention": {
      if (!activeAt(at.now)) return undefined
      const state = field(entry, "state")
      if (state === "pending" || state === "snoozed") return state
      return state === "fired" && kept.time >= at.firedSince ? "fired" : undefined
    }
    case "preference":
      return field(entry, "key") === "timezone" && field(entry, "scope") === "global" ? "zone" : undefined
    default:
      return undefined
  }
}

const keep = (entry: Entry): Kept => ({
  entry,
  time: parseIso(entry.updated) ?? parseIso(entry.created) ?? 0,
  expires: parseIso(entry.expires)
})

/** The store's order: the most recent first, then by id. */
const before = (a: Kept, b: Kept): boolean => a.time > b.time || (a.time === b.time && a.entry.id < b.entry.id)

/** The entries of the briefing's queries, kept in the store's order and refreshed by id. */
export class KeptSnapshot {
  private kept: Array<Kept> = []
  private readonly byId = new Map<string, Kept>()

  /** The store version the copy reflects at least (every write up to it is in). */
  version: number
  /** The latest instant the copy was filtered at: a read at an earlier one cannot use it. */
  readAtMs: number
  private readonly windows: Windows

  constructor(version: number, readAtMs: number, windows: Windows) {
    this.version = version
    this.readAtMs = readAtMs
    this.windows = windows
  }

  /** Adds what the queries returned (an entry returned by two of them is kept in the state of the later one). */
  fill(results: Parts): void {
    for (const part of partOrder) for (const entry of results[part]) this.byId.set(entry.id, keep(entry))
    this.kept = [...this.byId.values()].sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0))
  }

  /** Replaces the copy of one entry with its current state (`undefined`: it no longer exists). */
  refresh(id: string, current: Entry | undefined, nowMs: number): void {
    const old = this.byId.get(id)
    if (old !== undefined) {
      this.kept.splice(this.indexOf(old), 1)
      this.byId.delete(id)
    }
    if (current === undefined) return
    const fresh = keep(current)
    if (partOf(fresh, boundsAt(nowMs, this.windows)) === undefined) return
    this.kept.splice(this.indexOf(fresh), 0, fresh)
    this.byId.set(id, fresh)
  }

  /** What the queries would return at `nowMs` (not before `readAtMs`); drops what no query returns any more. */
  at(nowMs: number): Parts {
    const bounds = boundsAt(nowMs, this.windows)
    const parts: Record<Part, Array<Entry>> = {
      status: [],
      firing: [],
      resolved: [],
      suppression: [],
      pattern: [],
      pending: [],
      snoozed: [],
      fired: [],
      zone: []
    }
    const still: Array<Kept> = []
    for (const kept of this.kept) {
      const part = partOf(kept, bounds)
      if (part === undefined) {
        this.byId.delete(kept.entry.id)
        continue
      }
      parts[part].push(kept.entry)
      still.push(kept)
    }
    this.kept = still
    this.readAtMs = Math.max(this.readAtMs, nowMs)
    return parts
  }

  /** Where `kept` is, or would go, in the order (binary search). */
  private indexOf(kept: Kept): number {
    let low = 0
    let high = this.kept.length
    while (low < high) {
      const mid = (low + high) >>> 1
      if (before(this.kept[mid] as Kept, kept)) low = mid + 1
      else high = mid
    }
    return low
  }
}

/**
 * The copy of what the queries returned at `readAtMs`, with the store at `version` or later. An entry returned by
 * two of them (it changed between the two reads) is kept in the state of the later one.
 */
export const fromQueries = (version: number, readAtMs: number, windows: Windows, results: Parts): KeptSnapshot => {
  const snapshot = new KeptSnapshot(version, readAtMs, windows)
  snapshot.fill(results)
  return snapshot
}
