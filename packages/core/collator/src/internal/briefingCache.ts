/**
 * The awareness service's briefing cache and intention delivery.
 *
 * A cached briefing is served while the store's `version` is unchanged, time has not made it out of date
 * (`Collator.Result.valid_until`, a retained intention's expiry) and it is younger than `maxCacheAgeSec`; the
 * version is asked of the store on every read, so a write through another process or replica invalidates the cache
 * on the next read (no notification is involved). How much that costs is the store's business: `@heed/postgres`
 * keeps it in memory on PGlite (one process owns the data directory, so its own writes are the only ones) and sums
 * the owner's counter rows on a PostgreSQL server.
 *
 * Delivery: a due intention is claimed by the read that delivers it with a compare-and-set on the store
 * (`update(id, pending ? fired : undefined)`, atomic on every backend and across replicas), and that read marks it
 * `new: true`. It then stays in `fired_intentions`, without the mark, until it is acknowledged (`acted_on`, or
 * `update_intention` to another state) or `firedRetentionMinutes` (default 24 h) have passed since it fired.
 * `peek` shows what the next read would show without delivering anything, for background watchers.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as Semaphore from "effect/Semaphore"
import type { Briefing } from "../Briefing.ts"
import * as Collator from "../Collator.ts"
import type { Entry } from "../Entry.ts"
import type { Store, StoreError } from "../Store.ts"
import { appendChangelog, isDeleted, writeTime } from "./entries.ts"
import * as KeptSnapshot from "./keptSnapshot.ts"
import { either } from "./settings.ts"
import { isTimeZone, parseIso, toIso } from "./time.ts"

/** What the cache needs to know: the collator options and its own limits. */
export interface Options extends Omit<Collator.Options, "stalenessSec" | "staleness_sec"> {
  readonly maxCacheAgeSec?: number | undefined
  /** `false`: every briefing from a full read of the store and a collation from scratch (default `true`). */
  readonly incremental?: boolean | undefined
  readonly firedRetentionMinutes?: number | undefined
  /** @deprecated Use `maxCacheAgeSec`. */
  readonly max_cache_age_sec?: number | undefined
  /** @deprecated Use `firedRetentionMinutes`. */
  readonly fired_retention_minutes?: number | undefined
}

/**
 * The cache: `read` delivers due intentions, `peek` delivers nothing, and `peekWithin` generates (uncached, delivering
 * nothing) under another token budget.
 */
export interface BriefingCache {
  readonly read: (nowMs: number) => Effect.Effect<Briefing, StoreError>
  readonly peek: (nowMs: number) => Effect.Effect<Briefing, StoreError>
  readonly peekWithin: (nowMs: number, maxTokens: number) => Effect.Effect<Briefing, StoreError>
}

interface Cached {
  readonly version: number
  readonly generatedMs: number
  readonly validUntilMs: number
  readonly briefing: Briefing
}

interface Loaded {
  readonly snapshot: Collator.Snapshot
  readonly timezone: string
  /** Fired intentions still shown (not acknowledged, within the retention), by id, with their expiry. */
  readonly retained: ReadonlyMap<string, number>
}

const isAcknowledged = (entry: Entry): boolean => Array.isArray(entry.data.acted_on) && entry.data.acted_on.length > 0

/**
 * The collator fires pending and snoozed intentions that are due. A retained fired intention is handed to it as a
 * snoozed one due at its firing time, so it stays in `fired_intentions` (and the summary) until acknowledged.
 */
const asRedelivery = (entry: Entry, firedMs: number, nowMs: number): Entry => ({
  ...entry,
  data: {
    ...entry.data,
    state: "snoozed",
    // Another replica may have fired it after this read's instant (a read waits for the generation before it): it
    // is due all the same.
    deliver_at: firedMs <= nowMs ? entry.updated : toIso(nowMs)
  }
})

/** Marks the intentions this read delivered with `new: true`. */
const markNew = (briefing: Briefing, delivered: ReadonlySet<string>): Briefing =>
  briefing.fired_intentions === undefined || delivered.size === 0
    ? briefing
    : {
        ...briefing,
        fired_intentions: briefing.fired_intentions.map((item) =>
          delivered.has(item.id) ? { ...item, new: true } : item
        )
      }

/** What the stages below share: the store and the options, with the time windows in milliseconds. */
interface Ctx {
  readonly store: Store["Service"]
  readonly options: Options
  readonly flapWindowMs: number
  readonly resurfaceMs: number
  readonly retentionMs: number
}

/** The intentions still shown after firing (not acknowledged, within the retention), handed over as redeliveries. */
const retainedOf = (fired: ReadonlyArray<Entry>, nowMs: number, retentionMs: number) => {
  const retained = new Map<string, number>()
  const redelivered: Array<Entry> = []
  for (const entry of fired) {
    const firedMs = parseIso(entry.updated)
    if (firedMs === undefined || firedMs + retentionMs <= nowMs || isAcknowledged(entry)) continue
    retained.set(entry.id, firedMs + retentionMs)
    redelivered.push(asRedelivery(entry, firedMs, nowMs))
  }
  return { retained, redelivered }
}

/**
 * `earlier` without the entries a later read also returned. The snapshot's reads run one after another and, on a
 * PostgreSQL server, each sees what was committed when it started: an entry that changed state between two reads
 * (an intention another replica claimed between the reads of pending and fired ones, an alert resolved between the
 * reads of firing and resolved ones) comes back from both, and the later read holds its later state.
 */
const withoutLater = (earlier: ReadonlyArray<Entry>, ...later: ReadonlyArray<ReadonlyArray<Entry>>) => {
  const ids = new Set<string>()
  for (const read of later) for (const entry of read) ids.add(entry.id)
  return ids.size === 0 ? earlier : earlier.filter((entry) => !ids.has(entry.id))
}

/**
 * The briefing's store queries at `nowMs`, one after another in the order of the parts. On a PostgreSQL server each
 * sees what was committed when it started, so an entry that changed between two of them can come back from both.
 * (Exported for the kept snapshot's tests, which compare it with these queries.)
 */
export const queryAll = (
  ctx: Pick<Ctx, "store" | "flapWindowMs" | "resurfaceMs" | "retentionMs">,
  nowMs: number
): Effect.Effect<KeptSnapshot.Parts, StoreError> => {
  const { store } = ctx
  const at = toIso(nowMs)
  return Effect.all({
    status: store.query({ types: ["status"], activeAt: at }),
    firing: store.query({ types: ["alert"], data: { resolved: false }, activeAt: at }),
    resolved: store.query({
      types: ["alert"],
      data: { resolved: true },
      activeAt: at,
      since: toIso(nowMs - ctx.flapWindowMs)
    }),
    suppression: store.query({ types: ["suppression"], activeAt: toIso(nowMs - ctx.resurfaceMs) }),
    pattern: store.query({ types: ["pattern"], activeAt: at }),
    pending: store.query({ types: ["intention"], data: { state: "pending" }, activeAt: at }),
    snoozed: store.query({ types: ["intention"], data: { state: "snoozed" }, activeAt: at }),
    fired: store.query({
      types: ["intention"],
      data: { state: "fired" },
      activeAt: at,
      since: toIso(nowMs - ctx.retentionMs)
    }),
    // Every match, not only the first: the kept snapshot must already hold the next one when the first changes.
    zone: store.query({ types: ["preference"], data: { key: "timezone", scope: "global" } })
  })
}

/** The query results with each entry once, in the state of the last read that returned it. */
const withoutRepeats = (parts: KeptSnapshot.Parts): KeptSnapshot.Parts => ({
  ...parts,
  firing: withoutLater(parts.firing, parts.resolved),
  pending: withoutLater(parts.pending, parts.snoozed, parts.fired),
  snoozed: withoutLater(parts.snoozed, parts.fired)
})

/** Everything the collator needs at `nowMs`, from the parts the queries return then. */
const loadedOf = (parts: KeptSnapshot.Parts, ctx: Ctx, nowMs: number): Loaded => {
  const { retained, redelivered } = retainedOf(parts.fired, nowMs, ctx.retentionMs)
  const preferred = parts.zone[0]?.data.value
  const timezone = typeof preferred === "string" && isTimeZone(preferred) ? preferred : (ctx.options.timezone ?? "UTC")
  const snapshot: Collator.Snapshot = {
    statuses: parts.status,
    alerts: parts.resolved.length === 0 ? parts.firing : [...parts.firing, ...parts.resolved],
    suppressions: parts.suppression,
    patterns: parts.pattern,
    intentions: [...parts.pending, ...parts.snoozed, ...redelivered]
  }
  return { snapshot, timezone, retained }
}

/** Fires one intention with a compare-and-set; `None` when another reader fired it (or it moved on) first. */
const claim = (store: Store["Service"], id: string, nowMs: number) =>
  store.update(id, (current) => {
    const state = current.data.state ?? "pending"
    if (isDeleted(current) || (state !== "pending" && state !== "snoozed")) return undefined
    const at = writeTime(current, nowMs)
    return {
      ...current,
      updated: at,
      data: {
        ...current.data,
        state: "fired",
        state_reason: "Delivered via briefing",
        changelog: appendChangelog(current.data, at, { state })
      }
    }
  })

/** Claims each newly due intention; the ones another reader won stay shown (as retained) unless they moved on. */
const deliver = (store: Store["Service"], loaded: Loaded, result: Collator.Result, nowMs: number) =>
  Effect.gen(function* () {
    const delivered = new Set<string>()
    const gone = new Set<string>()
    for (const entry of result.fired) {
      if (loaded.retained.has(entry.id)) continue
      if (Option.isSome(yield* claim(store, entry.id, nowMs))) {
        delivered.add(entry.id)
        continue
      }
      const current = yield* store.get(entry.id)
      const stillFired =
        Option.isSome(current) && current.value.data.state === "fired" && !isAcknowledged(current.value)
      if (!stillFired) gone.add(entry.id)
    }
    return { delivered, gone }
  })

/** Why a snapshot was read afresh from the store rather than refreshed from its changes. */
type FullReason = "first" | "disabled" | "unsupported" | "unknown" | "large" | "clock"

const loads = Metric.counter("heed.awareness.briefing_snapshots", {
  description:
    "Snapshots briefings were built from: refreshed from the store's changes (read=changes), or read afresh " +
    "(read=full, with the reason: first, disabled, unsupported, unknown, large, clock)",
  incremental: true
})

/** Past this many changed entries, reading the snapshot afresh is the cheaper way. */
const maxRefreshed = 2000

/** The current state of the entries `ids` (deleted ones too; an id that no longer exists is missing). */
const currentOf = (store: Store["Service"], ids: ReadonlyArray<string>) =>
  ids.length === 1
    ? Effect.map(
        store.get(ids[0] as string),
        (found) => new Map(Option.isSome(found) ? [[found.value.id, found.value]] : [])
      )
    : // One query for several: on a server, one round trip instead of one per entry.
      Effect.map(store.query({ ids, deleted: "include" }), (found) => new Map(found.map((entry) => [entry.id, entry])))

/** A snapshot and the store version it reflects at least. */
interface Read {
  readonly version: number
  readonly loaded: Loaded
}

/**
 * Reads the briefing's snapshots: the first afresh, then, on a store that reports its changes, by refreshing only
 * the changed entries of the copy kept from the last one (see `KeptSnapshot`).
 */
const makeReader = (ctx: Ctx) => {
  let kept: KeptSnapshot.KeptSnapshot | undefined
  // A copy is kept only where later reads can refresh it from the store's changes.
  const fresh = (nowMs: number, reason: FullReason): Effect.Effect<Read, StoreError> =>
    Effect.gen(function* () {
      yield* Metric.update(Metric.withAttributes(loads, { read: "full", reason }), 1)
      const version = yield* ctx.store.version
      const parts = yield* queryAll(ctx, nowMs)
      if (reason === "disabled" || reason === "unsupported") {
        return { version, loaded: loadedOf(withoutRepeats(parts), ctx, nowMs) }
      }
      kept = KeptSnapshot.fromQueries(version, nowMs, ctx, parts)
      return { version, loaded: loadedOf(kept.at(nowMs), ctx, nowMs) }
    })
  const read = (nowMs: number): Effect.Effect<Read, StoreError> =>
    Effect.gen(function* () {
      if (ctx.options.incremental === false) return yield* fresh(nowMs, "disabled")
      const changes = ctx.store.changes
      if (changes === undefined) return yield* fresh(nowMs, "unsupported")
      const copy = kept
      if (copy === undefined) return yield* fresh(nowMs, "first")
      if (nowMs < copy.readAtMs) return yield* fresh(nowMs, "clock")
      const delta = yield* changes(copy.version)
      if (Option.isNone(delta)) return yield* fresh(nowMs, "unknown")
      if (delta.value.ids.length > maxRefreshed) return yield* fresh(nowMs, "large")
      const current = yield* currentOf(ctx.store, delta.value.ids)
      for (const id of delta.value.ids) copy.refresh(id, current.get(id), nowMs)
      copy.version = delta.value.version
      yield* Metric.update(Metric.withAttributes(loads, { read: "changes" }), 1)
      return { version: copy.version, loaded: loadedOf(copy.at(nowMs), ctx, nowMs) }
    })
  return read
}

/**
 * A fresh briefing at `nowMs` from the snapshot `read` gives; when `delivering`, due intentions are claimed and
 * marked new. `memo` carries the collator's work from one briefing to the next.
 */
const rebuild = (
  ctx: Ctx,
  read: Effect.Effect<Read, StoreError>,
  memo: Collator.Memo | undefined,
  nowMs: number,
  delivering: boolean
): Effect.Effect<Cached, StoreError> =>
  Effect.gen(function* () {
    const { version, loaded } = yield* read
    const collatorOptions: Collator.Options = {
      ...ctx.options,
      timezone: loaded.timezone,
      stalenessSec: 0,
      ...(memo === undefined ? {} : { memo })
    }
    let result = Collator.generate(loaded.snapshot, new Date(nowMs), collatorOptions)
    const due = result.fired.filter((entry) => !loaded.retained.has(entry.id))
    let delivered: ReadonlySet<string> = new Set(due.map((entry) => entry.id))
    if (delivering && due.length > 0) {
      const outcome = yield* deliver(ctx.store, loaded, result, nowMs)
      delivered = outcome.delivered
      if (outcome.gone.size > 0) {
        const intentions = loaded.snapshot.intentions.filter((entry) => !outcome.gone.has(entry.id))
        result = Collator.generate({ ...loaded.snapshot, intentions }, new Date(nowMs), collatorOptions)
      }
    }
    let validUntilMs = result.valid_until === null ? Number.POSITIVE_INFINITY : (parseIso(result.valid_until) ?? 0)
    for (const expiry of loaded.retained.values()) validUntilMs = Math.min(validUntilMs, expiry)
    // A briefing that marks intentions new is never served again; one that would deliver is never cached.
    return {
      version: due.length === 0 ? version : -1,
      generatedMs: nowMs,
      validUntilMs,
      briefing: markNew(result.briefing, delivered)
    }
  })

/**
 * Builds the cache over `store`.
 *
 * A hit takes no lock: the store's `version` is read (free on stores that keep it in memory) and the cached briefing
 * is served when it was generated from that version or a later one. Misses queue for one generation at a time
 * (single flight): each waiter re-checks the cache when its turn comes, so the concurrent misses of one change share
 * one generation, and a reader that wrote just before waits for at most the generation in progress plus its own.
 */
export const make = (store: Store["Service"], options: Options): Effect.Effect<BriefingCache> =>
  Effect.gen(function* () {
    // One fiber at a time mutates it, synchronously; reads are plain (no lock on the hit path).
    let cached: Cached | undefined
    const generating = yield* Semaphore.make(1)
    const maxAgeMs = (either(options.maxCacheAgeSec, options.max_cache_age_sec) ?? 300) * 1000
    const ctx: Ctx = {
      store,
      options,
      flapWindowMs: (either(options.flapWindowMinutes, options.flap_window_minutes) ?? 60) * 60_000,
      resurfaceMs: (either(options.resurfaceWindowMinutes, options.resurface_window_minutes) ?? 1440) * 60_000,
      retentionMs: (either(options.firedRetentionMinutes, options.fired_retention_minutes) ?? 1440) * 60_000
    }
    // Generated from `version` or later (a briefing that delivered intentions has version -1: never served again),
    // and not yet out of date at `nowMs`.
    const read = makeReader(ctx)
    const memo = options.incremental === false ? undefined : Collator.makeMemo()
    const lookup = (version: number, nowMs: number): Briefing | undefined => {
      const hit = cached
      if (
        hit === undefined ||
        hit.version < 0 ||
        hit.version < version ||
        nowMs >= hit.validUntilMs ||
        nowMs - hit.generatedMs >= maxAgeMs
      ) {
        return undefined
      }
      return { ...hit.briefing, staleness_sec: Math.max(0, Math.floor((nowMs - hit.generatedMs) / 1000)) }
    }
    const serve = (nowMs: number, delivering: boolean): Effect.Effect<Briefing, StoreError> =>
      Effect.flatMap(store.version, (version) => {
        const hit = lookup(version, nowMs)
        if (hit !== undefined) return Effect.succeed(hit)
        return generating.withPermits(1)(
          Effect.suspend(() => {
            // Whoever held the permit may have generated from this version or a later one meanwhile.
            const shared = lookup(version, nowMs)
            if (shared !== undefined) return Effect.succeed(shared)
            return Effect.map(rebuild(ctx, read(nowMs), memo, nowMs, delivering), (built) => {
              if (delivering || built.version !== -1) cached = built
              return built.briefing
            })
          })
        )
      })
    // The collator's budgets are exclusive ("strictly under"), a view's maximum is inclusive.
    // Under the permit too: it reads through the kept snapshot, which one generation at a time may change.
    const peekWithin = (nowMs: number, maxTokens: number) =>
      generating.withPermits(1)(
        Effect.map(
          rebuild(
            { ...ctx, options: { ...options, budget: { allClear: maxTokens + 1, issues: maxTokens + 1 } } },
            read(nowMs),
            memo,
            nowMs,
            false
          ),
          (built) => built.briefing
        )
      )
    return {
      read: (nowMs) => serve(nowMs, true),
      peek: (nowMs) => serve(nowMs, false),
      peekWithin
    }
  })
