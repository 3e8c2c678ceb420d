/**
 * The entries a briefing is built from, kept in memory between briefings and refreshed entry by entry from the
 * store's changes (`StoreShape.changes`), so that a briefing after a write neither reads the store again nor hands
 * the collator new objects for entries that did not change (its memo then keeps their work).
 *
 * It holds every entry that one of the briefing's store queries (`queryAll` in `briefingCache.ts`) returned
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

/**
 * The first instant at which `part` no longer returns `kept` (the queries only narrow as time passes): its expiry,
 * moved by the window where the query looks back, or the end of a `since` window.
 */
const leaveAt = (kept: Kept, part: Part, windows: Windows): number => {
  const expires = kept.expires ?? Number.POSITIVE_INFINITY
  switch (part) {
    case "suppression":
      return expires + windows.resurfaceMs
    case "resolved":
      return Math.min(expires, kept.time + windows.flapWindowMs + 1)
    case "fired":
      return Math.min(expires, kept.time + windows.retentionMs + 1)
    case "zone":
      return Number.POSITIVE_INFINITY
    default:
      return expires
  }
}

/** Where `kept` is, or would go, in `list` (binary search in the store's order). */
const indexIn = (list: ReadonlyArray<Kept>, kept: Kept): number => {
  let low = 0
  let high = list.length
  while (low < high) {
    const mid = (low + high) >>> 1
    if (before(list[mid] as Kept, kept)) low = mid + 1
    else high = mid
  }
  return low
}

const emptyParts = <A>(): Record<Part, Array<A>> => ({
  status: [],
  firing: [],
  resolved: [],
  suppression: [],
  pattern: [],
  pending: [],
  snoozed: [],
  fired: [],
  zone: []
})

/**
 * The entries of the briefing's queries, each part kept in the store's order and refreshed by id. Until the first
 * instant at which time takes an entry out of its part (`boundary`), reading the parts costs a copy of them; from
 * then on, the next read filters them again.
 */
export class KeptSnapshot {
  private parts = emptyParts<Kept>()
  /** The entries of `parts`, kept alongside so that a read is a plain copy of each list. */
  private entries = emptyParts<Entry>()
  private readonly byId = new Map<string, { readonly kept: Kept; readonly part: Part }>()
  private boundary = Number.POSITIVE_INFINITY

  /** The store version the copy reflects at least (every write up to it is in). */
  version: number
  /** The latest instant the copy was read at: a read at an earlier one cannot use it. */
  readAtMs: number
  private readonly windows: Windows

  constructor(version: number, readAtMs: number, windows: Windows) {
    this.version = version
    this.readAtMs = readAtMs
    this.windows = windows
  }

  /** Adds what the queries returned (an entry returned by two of them is kept in the state of the later one). */
  fill(results: Parts): void {
    const latest = new Map<string, Kept>()
    for (const part of partOrder) for (const entry of results[part]) latest.set(entry.id, keep(entry))
    const bounds = boundsAt(this.readAtMs, this.windows)
    for (const kept of latest.values()) {
      const part = partOf(kept, bounds)
      if (part !== undefined) this.add(kept, part)
    }
    for (const part of partOrder) {
      this.parts[part].sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0))
      this.entries[part] = this.parts[part].map((kept) => kept.entry)
    }
  }

  /** Replaces the copy of one entry with its current state (`undefined`: it no longer exists). */
  refresh(id: string, current: Entry | undefined, nowMs: number): void {
    const old = this.byId.get(id)
    if (old !== undefined) {
      const at = indexIn(this.parts[old.part], old.kept)
      this.parts[old.part].splice(at, 1)
      this.entries[old.part].splice(at, 1)
      this.byId.delete(id)
    }
    if (current === undefined) return
    const fresh = keep(current)
    const part = partOf(fresh, boundsAt(nowMs, this.windows))
    if (part === undefined) return
    const at = indexIn(this.parts[part], fresh)
    this.parts[part].splice(at, 0, fresh)
    this.entries[part].splice(at, 0, current)
    this.add(fresh, part, false)
  }

  /** What the queries would return at `nowMs` (not before `readAtMs`); drops what no query returns any more. */
  at(nowMs: number): Parts {
    if (nowMs >= this.boundary) this.narrow(nowMs)
    this.readAtMs = Math.max(this.readAtMs, nowMs)
    const out = {} as Record<Part, ReadonlyArray<Entry>>
    for (const part of partOrder) out[part] = this.entries[part].slice()
    return out
  }

  /** Records `kept` in `part` (appended to the part's lists when `append`), moving the boundary. */
  private add(kept: Kept, part: Part, append = true): void {
    if (append) {
      this.parts[part].push(kept)
      this.entries[part].push(kept.entry)
    }
    this.byId.set(kept.entry.id, { kept, part })
    this.boundary = Math.min(this.boundary, leaveAt(kept, part, this.windows))
  }

  /** Filters every part at `nowMs` and finds the next boundary. */
  private narrow(nowMs: number): void {
    const bounds = boundsAt(nowMs, this.windows)
    const previous = this.parts
    this.parts = emptyParts<Kept>()
    this.entries = emptyParts<Entry>()
    this.byId.clear()
    this.boundary = Number.POSITIVE_INFINITY
    for (const part of partOrder) {
      for (const kept of previous[part]) if (partOf(kept, bounds) === part) this.add(kept, part)
    }
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
