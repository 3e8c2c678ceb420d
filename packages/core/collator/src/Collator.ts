/**
 * The collator: digests a snapshot of awareness entries into one token-budgeted {@link Briefing}.
 *
 * `generate(snapshot, now, options?)` is pure and synchronous. It reproduces mcp-awareness's algorithm (stale
 * detection, suppression with level escalation, patterns, the `evaluation` counters, the `summary` and
 * `suggested_mention` templates) and adds heed's fixes and alerting-peer features: sources from statuses and
 * alerts, structured and time-zone aware patterns, recurring suppressions, re-surfacing, inhibition, grouping, flap
 * damping, acknowledgement, escalation, upcoming items and a hard token budget.
 *
 * The predicates and templates it is built from live in their own modules: `Suppression.isSuppressed`,
 * `Pattern.matchesPattern`, `Mention.composeSummary`, ...
 *
 * @since 0.1.0
 */
import type { Briefing, SourceLine, UpcomingItem } from "./Briefing.ts"
import type { Entry, Level } from "./Entry.ts"
import { severityRank } from "./Entry.ts"
import { type Alert, labelOf, sourceOf, toAlert } from "./internal/alert.ts"
import { fit } from "./internal/budget.ts"
import { dataOf, groupBy, isLive, str, timeOf } from "./internal/data.ts"
import { checkInput } from "./internal/input.ts"
import * as CollationMemo from "./internal/memo.ts"
import { memoizedWords, type Pattern, patternApplies, patternSelects, toPattern } from "./internal/pattern.ts"
import type { Line, Model } from "./internal/render.ts"
import {
  type Counters,
  either,
  emptyEvaluation,
  minute,
  type Settings,
  settingsOf,
  type Validity,
  validityAt
} from "./internal/settings.ts"
import {
  globalPrefilter,
  inWindows,
  isResurfaced,
  type Suppression,
  suppressedBy,
  toSuppression
} from "./internal/suppression.ts"
import { parseIso, toIso } from "./internal/time.ts"
import { countO200kFast } from "./internal/tokens.ts"

/**
 * The entries a briefing is built from. Each array may hold more than the collator uses: deleted and expired
 * entries, resolved alerts (needed for flap damping), expired suppressions (needed for re-surfacing) and
 * intentions in any state are filtered here.
 *
 * @category models
 * @since 0.1.0
 */
export interface Snapshot {
  readonly statuses: ReadonlyArray<Entry>
  readonly alerts: ReadonlyArray<Entry>
  readonly suppressions: ReadonlyArray<Entry>
  readonly patterns: ReadonlyArray<Entry>
  readonly intentions: ReadonlyArray<Entry>
}

/**
 * An inhibition rule (Alertmanager's `inhibit_rules`): a surfaced alert at `source_level` (default `critical`)
 * mutes alerts at `target_level` (default `warning`) that have equal values for every label in `equal`. Labels are
 * `source`, `alert_id`, `alert_type`, `metric` and the alert's `labels`; a label missing on both sides counts as
 * equal.
 *
 * @category models
 * @since 0.1.0
 */
export interface InhibitRule {
  readonly source_level?: Level
  readonly target_level?: Level
  readonly equal: ReadonlyArray<string>
}

/**
 * Token budgets, exclusive (the briefing stays strictly under them): `allClear` (default 200) applies when nothing
 * needs attention, `issues` (default 500) otherwise. The old `all_clear` is still accepted (`allClear` wins when both
 * are set).
 *
 * @category models
 * @since 0.1.0
 */
export interface Budget {
  readonly allClear?: number
  readonly issues?: number
  /**
   * The old name of `allClear`, still accepted.
   *
   * @deprecated Use `allClear`.
   */
  readonly all_clear?: number
}

/**
 * Options for {@link generate} (in-process, so camelCase; inhibition rules keep Alertmanager's rule format):
 *
 * - `upcomingHorizonMinutes` (default 60): intentions due within this horizon populate `upcoming`.
 * - `timezone` (default `"UTC"`): the owner's IANA zone for pattern conditions and time windows; an unknown zone
 *   throws {@link CollatorInputError}.
 * - `countTokens` (default o200k, exact): counts the compact JSON of the briefing. The default is called only
 *   when the briefing's size (an upper bound on o200k tokens) does not already show that it fits; a counter given
 *   here is always called.
 * - `budget`: exclusive token budgets (under 200 all clear, under 500 with issues).
 * - `inhibitRules` (default none): see {@link InhibitRule}.
 * - `flapThreshold` (default 4) state changes within `flapWindowMinutes` (default 60) mark an alert flapping:
 *   it keeps firing through short resolutions instead of toggling the briefing.
 * - `acknowledgementTimeoutMinutes` (default 240): an acknowledged alert is held back for this long.
 * - `escalationTimeoutMinutes` (default 240, `null` disables): an unacknowledged warning firing longer than
 *   this counts as critical.
 * - `resurfaceWindowMinutes` (default 1440): how long after a suppression expires its alert is marked
 *   `resurfaced`.
 * - `stalenessSec` (default 0): copied into the briefing's `staleness_sec` (the `Awareness` cache sets it).
 * - `memo` (default none): a {@link Memo} from {@link makeMemo}, handed to every call of one series of snapshots, so
 *   that a call after a small change redoes only what the change touched. The result is the same with or without.
 *
 * The snake_case names of earlier releases (`upcoming_horizon_minutes`, `inhibit_rules`, `flap_threshold`,
 * `flap_window_minutes`, `acknowledgement_timeout_minutes`, `escalation_timeout_minutes`,
 * `resurface_window_minutes`, `staleness_sec`) are still accepted as deprecated aliases; the camelCase name wins
 * when both are set.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options extends DeprecatedOptions {
  readonly upcomingHorizonMinutes?: number
  readonly timezone?: string
  readonly countTokens?: (text: string) => number
  readonly budget?: Budget
  readonly inhibitRules?: ReadonlyArray<InhibitRule>
  readonly flapThreshold?: number
  readonly flapWindowMinutes?: number
  readonly acknowledgementTimeoutMinutes?: number
  readonly escalationTimeoutMinutes?: number | null
  readonly resurfaceWindowMinutes?: number
  readonly stalenessSec?: number
  readonly memo?: Memo
}

/**
 * What one {@link generate} call keeps for the next (see {@link makeMemo}); opaque.
 *
 * @category models
 * @since 0.2.0
 */
export interface Memo {
  readonly [CollationMemo.TypeId]: typeof CollationMemo.TypeId
}

/**
 * A memo for a series of {@link generate} calls over snapshots that change a little at a time (a cache that applies
 * writes to its snapshot). Entries are read once per entry object, so a changed entry must be a new object (entries
 * are never changed in place); each source's suppression and pattern checks are kept while its alerts and the
 * applicable suppressions and patterns are the same objects. Everything that depends on the time is decided afresh
 * on every call, so `generate(snapshot, now, { ...options, memo })` equals `generate(snapshot, now, options)` for
 * every snapshot and instant. A memo holds what the last call read, and the entries it was given only weakly.
 *
 * **Example** (Regenerating after a change)
 *
 * ```ts
 * import { Collator } from "@heed/collator"
 *
 * const memo = Collator.makeMemo()
 * const empty = { statuses: [], alerts: [], suppressions: [], patterns: [], intentions: [] }
 * Collator.generate(empty, new Date("2026-03-19T15:00:00Z"), { memo })
 * const { briefing } = Collator.generate(empty, new Date("2026-03-19T15:01:00Z"), { memo })
 * briefing.summary // "All clear across 0 sources."
 * ```
 *
 * @category constructors
 * @since 0.2.0
 */
export const makeMemo = (): Memo => CollationMemo.make()

/**
 * The snake_case option names of earlier releases, still accepted by {@link generate} (and `Awareness.layerWith`).
 *
 * @category models
 * @since 0.1.0
 */
export interface DeprecatedOptions {
  /** @deprecated Use `upcomingHorizonMinutes`. */
  readonly upcoming_horizon_minutes?: number
  /** @deprecated Use `inhibitRules`. */
  readonly inhibit_rules?: ReadonlyArray<InhibitRule>
  /** @deprecated Use `flapThreshold`. */
  readonly flap_threshold?: number
  /** @deprecated Use `flapWindowMinutes`. */
  readonly flap_window_minutes?: number
  /** @deprecated Use `acknowledgementTimeoutMinutes`. */
  readonly acknowledgement_timeout_minutes?: number
  /** @deprecated Use `escalationTimeoutMinutes`. */
  readonly escalation_timeout_minutes?: number | null
  /** @deprecated Use `resurfaceWindowMinutes`. */
  readonly resurface_window_minutes?: number
  /** @deprecated Use `stalenessSec`. */
  readonly staleness_sec?: number
}

/**
 * The result of {@link generate}: the `briefing`, the intentions it delivers (`fired`, in briefing order, as they
 * were in the snapshot), the token count of the briefing (exact, counted on first read, of the briefing as the read
 * that delivers its fired intentions shows it: each marked `new`), and `valid_until`: the earliest instant at which
 * the same snapshot could give a different briefing (a status going stale, a suppression expiring, an intention
 * coming due, ...), or `null` if none is known. Caches use it.
 *
 * @category models
 * @since 0.1.0
 */
export interface Result {
  readonly briefing: Briefing
  readonly fired: ReadonlyArray<Entry>
  readonly tokens: number
  readonly valid_until: string | null
}

export { CollatorInputError } from "./internal/input.ts"

// ---------------------------------------------------------------------------------------------------------------
// Stage 1: read the snapshot

interface Status {
  readonly entry: Entry
  readonly time: number
  /** The timestamp as stored (`updated`, else `created`), for `last_report`. */
  readonly raw: string
}

/** The latest live status per source. */
const latestStatuses = (entries: ReadonlyArray<Entry>, s: Settings, v: Validity): Map<string, Status> => {
  const statuses = new Map<string, Status>()
  for (const entry of entries) {
    if (!isLive(entry, s.now)) continue
    v.until(parseIso(entry.expires) ?? 0)
    const time = timeOf(entry)
    const current = statuses.get(entry.source)
    if (current === undefined || time > current.time) {
      const raw = parseIso(entry.updated) === undefined ? entry.created : (entry.updated as string)
      statuses.set(entry.source, { entry, time, raw })
    }
  }
  return statuses
}

/**
 * One source's live alerts at `s.now`, in snapshot order (unresolved ones, and resolved ones that are flapping), and
 * the instants they depend on: the list stays the same until `until` (an expiry, a state change entering or leaving
 * the flap window), and adds `validUntil` to the briefing's validity.
 */
const liveOfSource = (
  entries: ReadonlyArray<Entry>,
  s: Settings,
  memo: CollationMemo.Memo | undefined
): CollationMemo.LiveAlerts => {
  const alerts: Array<Alert> = []
  let until = Number.POSITIVE_INFINITY
  let validUntil = Number.POSITIVE_INFINITY
  const later = (ms: number) => {
    if (ms > s.now && ms < until) until = ms
  }
  for (const entry of entries) {
    // An entry that is not live now (deleted, expired) never is again.
    if (!isLive(entry, s.now)) continue
    const expires = parseIso(entry.expires)
    if (expires !== undefined) {
      later(expires)
      validUntil = Math.min(validUntil, expires)
    }
    // A remembered alert is shared with earlier calls: only `flapping` is set per call, here, before any use.
    const alert = CollationMemo.cachedBy(memo?.alerts, entry, toAlert)
    let flapCount = 0
    for (const change of alert.changes) {
      later(change)
      later(change + s.flapWindow)
      if (change > s.now - s.flapWindow && change <= s.now) {
        flapCount++
        validUntil = Math.min(validUntil, change + s.flapWindow)
      }
    }
    alert.flapping = flapCount >= s.flapThreshold
    if (!alert.resolved || alert.flapping) alerts.push(alert)
  }
  return { entries, alerts, at: s.now, until, validUntil, flapWindow: s.flapWindow, flapThreshold: s.flapThreshold }
}

/**
 * Live alerts per source (see {@link liveOfSource}). With a memo, a source whose alert entries are the same objects
 * as in the last call keeps that call's list while none of the instants it depends on has come.
 */
const liveAlerts = (
  entries: ReadonlyArray<Entry>,
  s: Settings,
  v: Validity,
  memo: CollationMemo.Memo | undefined
): Map<string, Array<Alert>> => {
  const bySource = new Map<string, Array<Alert>>()
  const next = new Map<string, CollationMemo.LiveAlerts>()
  for (const [source, list] of groupBy(entries, sourceOf)) {
    const previous = memo?.live.get(source)
    const live =
      previous !== undefined &&
      s.now >= previous.at &&
      s.now < previous.until &&
      previous.flapWindow === s.flapWindow &&
      previous.flapThreshold === s.flapThreshold &&
      CollationMemo.sameItems(previous.entries, list)
        ? previous
        : liveOfSource(list, s, memo)
    next.set(source, live)
    v.until(live.validUntil)
    if (live.alerts.length > 0) bySource.set(source, live.alerts)
  }
  if (memo !== undefined) memo.live = next
  return bySource
}

interface Suppressions {
  /** Unexpired suppressions (in window or not): the briefing's `active_suppressions`. */
  readonly count: number
  /** The unexpired, in-window suppressions, in snapshot order: what the screening depends on. */
  readonly active: ReadonlyArray<Suppression>
  readonly bySource: Map<string, Array<Suppression>>
  readonly global: ReadonlyArray<Suppression>
  /** Whether a global suppression could select an alert; `undefined`: always check them. */
  readonly mayMatchGlobal: ((alert: Alert) => boolean) | undefined
  /** Suppressions that expired within the re-surface window. */
  readonly expiredBySource: Map<string, Array<Suppression>>
  readonly globalExpired: ReadonlyArray<Suppression>
}

/** Suppressions: active, in-window ones decide; recently expired ones mark re-surfacing. */
const readSuppressions = (
  entries: ReadonlyArray<Entry>,
  s: Settings,
  v: Validity,
  memo: CollationMemo.Memo | undefined
): Suppressions => {
  const active: Array<Suppression> = []
  const expired: Array<Suppression> = []
  let count = 0
  for (const entry of entries) {
    if (entry.deleted !== null && entry.deleted !== undefined) continue
    const suppression = CollationMemo.cachedBy(memo?.suppressions, entry, (e) => toSuppression(e) ?? null)
    if (suppression === null) continue
    if (suppression.expires !== undefined && suppression.expires <= s.now) {
      if (suppression.expires > s.now - s.resurfaceWindow) {
        expired.push(suppression)
        v.until(suppression.expires + s.resurfaceWindow)
      }
      continue
    }
    if (suppression.expires !== undefined) v.until(suppression.expires)
    count++
    if (suppression.windows !== undefined) {
      v.timeDependent = true
      if (!inWindows(suppression.windows, s.zone)) continue
    }
    active.push(suppression)
  }
  const bySource = groupBy(active, (suppression) => suppression.source)
  const expiredBySource = groupBy(expired, (suppression) => suppression.source)
  const global = bySource.get("") ?? []
  return {
    count,
    active,
    bySource,
    global,
    mayMatchGlobal: globalPrefilter(global),
    expiredBySource,
    globalExpired: expiredBySource.get("") ?? []
  }
}

/** Live patterns whose time conditions hold now, in snapshot order and per source (global ones under `""`). */
const applicablePatterns = (
  entries: ReadonlyArray<Entry>,
  s: Settings,
  v: Validity,
  memo: CollationMemo.Memo | undefined
): { readonly all: ReadonlyArray<Pattern>; readonly bySource: Map<string, Array<Pattern>> } => {
  const all: Array<Pattern> = []
  for (const entry of entries) {
    if (!isLive(entry, s.now)) continue
    v.until(parseIso(entry.expires) ?? 0)
    const pattern = CollationMemo.cachedBy(memo?.patterns, entry, toPattern)
    if (pattern.timed) v.timeDependent = true
    if (patternApplies(pattern, s.zone)) all.push(pattern)
  }
  return { all, bySource: groupBy(all, (pattern) => pattern.source) }
}

// ---------------------------------------------------------------------------------------------------------------
// Stage 2: staleness, suppression and patterns, source by source

const noProblem = {
  alertCount: 0,
  groupKey: undefined,
  stale: false,
  resurfaced: false,
  flapping: false,
  escalated: false
}

/** The stale line of a source whose status is older than its `ttl_sec`, or the instant it goes stale. */
const staleness = (source: string, status: Status, now: number): Line | number => {
  const ttl = Number(dataOf(status.entry).ttl_sec ?? 120)
  const ttlMs = (Number.isFinite(ttl) ? ttl : 120) * 1000
  const age = now - status.time
  if (age <= ttlMs) return status.time + ttlMs + 1
  return {
    source,
    status: "stale",
    lastReport: status.raw,
    headline: `${source} has not reported in ${Math.floor(age / 1000)}s`,
    drillDown: `awareness://status/${source}`,
    time: status.time,
    ...noProblem
  }
}

interface Screened {
  readonly staleLines: Map<string, Line>
  /**
   * The alerts of each source that no suppression or pattern explains: all of a fresh source's, only the critical
   * ones of a stale source (staleness never hides a critical alert; upstream skipped them all).
   */
  readonly candidates: Map<string, Array<Alert>>
}

/** The alerts of one source that no suppression or pattern explains, and what the check counted. */
const screenAlerts = (
  source: string,
  alerts: ReadonlyArray<Alert>,
  suppressions: Suppressions,
  patterns: Map<string, Array<Pattern>>,
  wordsOfText: (text: string) => ReadonlyArray<string>
): CollationMemo.Screening => {
  const own = source === "" ? [] : (suppressions.bySource.get(source) ?? [])
  const all = own.length === 0 ? suppressions.global : [...own, ...suppressions.global]
  const globalPatterns = patterns.get("") ?? []
  const ownPatterns = source === "" ? [] : (patterns.get(source) ?? [])
  const allPatterns = ownPatterns.length === 0 ? globalPatterns : [...ownPatterns, ...globalPatterns]
  const kept: Array<Alert> = []
  let suppressed = 0
  let patternMatched = 0
  for (const alert of alerts) {
    const mayMatchGlobal = suppressions.mayMatchGlobal
    const candidates = mayMatchGlobal !== undefined && !mayMatchGlobal(alert) ? own : all
    // The zone cache is not passed: only active, in-window suppressions were kept.
    if (candidates.length > 0 && suppressedBy(alert, candidates, Number.NaN, undefined) !== undefined) {
      suppressed++
      continue
    }
    if (allPatterns.length > 0 && allPatterns.some((pattern) => patternSelects(pattern, alert, wordsOfText))) {
      patternMatched++
      continue
    }
    kept.push(alert)
  }
  return { alerts, kept, checked: alerts.length, suppressed, patternMatched }
}

/**
 * One source's screening: the previous call's when it was given the same alerts (the same objects, in order) under
 * the same suppressions and patterns, else checked afresh. Kept screenings are never changed, only read.
 */
const screenSource = (
  source: string,
  alerts: ReadonlyArray<Alert>,
  input: { readonly suppressions: Suppressions; readonly patterns: Map<string, Array<Pattern>> },
  reusable: Map<string, CollationMemo.Screening> | undefined,
  wordsOfText: (text: string) => ReadonlyArray<string>
): CollationMemo.Screening => {
  const previous = reusable?.get(source)
  if (previous !== undefined && CollationMemo.sameItems(previous.alerts, alerts)) return previous
  return screenAlerts(source, alerts, input.suppressions, input.patterns, wordsOfText)
}

/** Stage 2 for every source: stale sources check only their critical alerts. */
const screen = (
  sourceNames: ReadonlyArray<string>,
  input: {
    readonly statuses: Map<string, Status>
    readonly alerts: Map<string, Array<Alert>>
    readonly suppressions: Suppressions
    readonly patterns: { readonly all: ReadonlyArray<Pattern>; readonly bySource: Map<string, Array<Pattern>> }
  },
  s: Settings,
  v: Validity,
  evaluation: Counters,
  memo: CollationMemo.Memo | undefined
): Screened => {
  const staleLines = new Map<string, Line>()
  const candidates = new Map<string, Array<Alert>>()
  const wordsOfText = memoizedWords()
  const context = { suppressions: input.suppressions.active, patterns: input.patterns.all }
  const reusable = memo === undefined ? undefined : CollationMemo.begin(memo, context)
  const screeningInput = { suppressions: input.suppressions, patterns: input.patterns.bySource }
  for (const source of sourceNames) {
    const status = input.statuses.get(source)
    if (status !== undefined) {
      const stale = staleness(source, status, s.now)
      if (typeof stale === "number") v.until(stale)
      else {
        evaluation.stale_sources++
        staleLines.set(source, stale)
      }
    }
    const all = input.alerts.get(source) ?? []
    const alerts = staleLines.has(source) ? all.filter((alert) => alert.rank === 2) : all
    const screening = screenSource(source, alerts, screeningInput, reusable, wordsOfText)
    if (memo !== undefined) {
      if (screening === reusable?.get(source)) memo.stats.reused++
      else memo.stats.screened++
      memo.screenings.set(source, screening)
    }
    evaluation.alerts_checked += screening.checked
    evaluation.suppressed += screening.suppressed
    evaluation.pattern_matched += screening.patternMatched
    candidates.set(source, screening.kept)
  }
  return { staleLines, candidates }
}

// ---------------------------------------------------------------------------------------------------------------
// Stage 3: inhibition across sources

/** The alerts muted by an inhibition rule: a surfacing alert at the rule's source level with equal labels. */
const inhibit = (candidates: Map<string, Array<Alert>>, rules: ReadonlyArray<InhibitRule>): Set<Alert> => {
  const inhibited = new Set<Alert>()
  for (const rule of rules) {
    const sourceRank = severityRank(rule.source_level ?? "critical")
    const targetRank = severityRank(rule.target_level ?? "warning")
    const key = (alert: Alert) => rule.equal.map((label) => labelOf(alert, label) ?? "").join("\u0000")
    const sourceKeys = new Set<string>()
    for (const list of candidates.values()) for (const a of list) if (a.rank === sourceRank) sourceKeys.add(key(a))
    if (sourceKeys.size === 0) continue
    for (const list of candidates.values()) {
      for (const a of list) if (a.rank === targetRank && sourceKeys.has(key(a))) inhibited.add(a)
    }
  }
  return inhibited
}

// ---------------------------------------------------------------------------------------------------------------
// Stage 4: acknowledgement, escalation, re-surfacing; one line per source

interface Top {
  readonly alert: Alert
  readonly rank: number
  readonly escalated: boolean
}

/**
 * What surfaces of one source's candidates (counted), and its headline alert: the most severe, ties to the most
 * recently updated, then to the first in the snapshot.
 */
const surface = (
  alerts: ReadonlyArray<Alert>,
  inhibited: ReadonlySet<Alert>,
  s: Settings,
  later: (ms: number) => void,
  evaluation: CollationMemo.SurfaceCounts
): { surfaced: number; top: Top | undefined } => {
  let surfaced = 0
  let top: Top | undefined
  for (const alert of alerts) {
    if (inhibited.size > 0 && inhibited.has(alert)) {
      evaluation.inhibited++
      continue
    }
    if (alert.acknowledgedAt !== undefined && alert.acknowledgedAt >= alert.firingSince) {
      if (s.now - alert.acknowledgedAt < s.ackTimeout) {
        evaluation.acknowledged++
        later(alert.acknowledgedAt + s.ackTimeout)
        continue
      }
    }
    let rank = alert.rank
    let escalated = false
    if (s.escalationTimeout !== undefined && alert.rank === 1) {
      if (s.now - alert.firingSince > s.escalationTimeout) {
        rank = 2
        escalated = true
        evaluation.escalated++
      } else {
        later(alert.firingSince + s.escalationTimeout + 1)
      }
    }
    if (alert.flapping) evaluation.flapping++
    surfaced++
    if (top === undefined || rank > top.rank || (rank === top.rank && alert.time > top.alert.time)) {
      top = { alert, rank, escalated }
    }
  }
  return { surfaced, top }
}

/** What a kept surfacing is computed under: nothing inhibited (it is never kept otherwise). */
const noneInhibited: ReadonlySet<Alert> = new Set()

const noCounts = (): CollationMemo.SurfaceCounts => ({ acknowledged: 0, escalated: 0, flapping: 0, inhibited: 0 })

/** Whether a kept surfacing holds for this call: the same inputs, and `now` within its instants. */
const holds = (
  kept: CollationMemo.Surfacing<Top> | undefined,
  screening: CollationMemo.Screening,
  live: CollationMemo.LiveAlerts,
  s: Settings
): kept is CollationMemo.Surfacing<Top> =>
  kept !== undefined &&
  kept.screening === screening &&
  kept.live === live &&
  kept.ackTimeout === s.ackTimeout &&
  kept.escalationTimeout === s.escalationTimeout &&
  s.now >= kept.at &&
  s.now < kept.until

/** {@link surface} on its own, recording the first instant after `now` at which its result changes. */
const surfaceAfresh = (
  alerts: ReadonlyArray<Alert>,
  screening: CollationMemo.Screening,
  live: CollationMemo.LiveAlerts,
  s: Settings
): CollationMemo.Surfacing<Top> => {
  let until = Number.POSITIVE_INFINITY
  const later = (ms: number) => {
    if (ms > s.now && ms < until) until = ms
  }
  const counts = noCounts()
  const { surfaced, top } = surface(alerts, noneInhibited, s, later, counts)
  const { ackTimeout, escalationTimeout, now: at } = s
  return { screening, live, ackTimeout, escalationTimeout, at, until, surfaced, top, counts }
}

/**
 * One source's {@link surface}, kept in the memo (see `CollationMemo.Surfacing`) while its screening, live alerts
 * and timeouts are the same and no acknowledgement or escalation it read has changed; never kept while an
 * inhibition rule muted something (inhibition looks across sources).
 */
const surfaceSource = (
  source: string,
  alerts: ReadonlyArray<Alert>,
  inhibited: Set<Alert>,
  s: Settings,
  v: Validity,
  evaluation: Counters,
  memo: CollationMemo.Memo | undefined,
  kept: Map<string, CollationMemo.Surfacing<unknown>>
): { surfaced: number; top: Top | undefined } => {
  const screening = memo?.screenings.get(source)
  const live = memo?.live.get(source)
  if (memo === undefined || screening === undefined || live === undefined || inhibited.size > 0) {
    return surface(alerts, inhibited, s, v.until, evaluation)
  }
  // A kept surfacing is only ever made here, with the collator's Top.
  const previous = kept.get(source) as CollationMemo.Surfacing<Top> | undefined
  const surfacing = holds(previous, screening, live, s) ? previous : surfaceAfresh(alerts, screening, live, s)
  memo.surfacings.set(source, surfacing)
  v.until(surfacing.until)
  evaluation.acknowledged += surfacing.counts.acknowledged
  evaluation.escalated += surfacing.counts.escalated
  evaluation.flapping += surfacing.counts.flapping
  return surfacing
}

/**
 * The line of a source: its headline alert, else its status headline (`info`), else `ok`. `stale`: the source
 * stopped reporting (it has a line only when a critical alert surfaced).
 */
const sourceLine = (
  source: string,
  status: Status | undefined,
  surfaced: number,
  top: Top | undefined,
  resurfaced: boolean,
  stale: boolean
): Line => {
  const lastReport = status === undefined ? null : status.raw
  if (top === undefined) {
    const headline = status === undefined ? undefined : str(dataOf(status.entry).headline)
    return {
      source,
      status: headline === undefined ? "ok" : "info",
      lastReport,
      headline,
      drillDown: headline === undefined ? undefined : `awareness://status/${source}`,
      time: status?.time ?? 0,
      ...noProblem
    }
  }
  const status_: SourceLine["status"] = top.rank >= 2 ? "critical" : top.rank === 1 ? "warning" : "info"
  return {
    source,
    status: status_,
    lastReport,
    headline: top.alert.message,
    drillDown: `awareness://alerts/${source}`,
    alertCount: surfaced,
    groupKey: `${top.rank}\u0000${top.alert.alertId}${stale ? "\u0000stale" : ""}`,
    time: top.alert.time,
    stale,
    resurfaced,
    flapping: top.alert.flapping,
    escalated: top.escalated
  }
}

const severity: Record<SourceLine["status"], number> = { critical: 0, stale: 1, warning: 2, info: 3, ok: 4 }

/** Most severe first, then the most recent (headline alert, else status report), then by name. */
const bySeverityThenRecency = (a: Line, b: Line): number =>
  severity[a.status] - severity[b.status] || b.time - a.time || (a.source < b.source ? -1 : a.source > b.source ? 1 : 0)

// ---------------------------------------------------------------------------------------------------------------
// Stage 5: intentions

interface Intentions {
  /**
   * Fired now, most urgent first, then the most recent (a retained fired intention counts from when it fired): when
   * the budget cuts the list, the older ones are left out, never a newly fired one.
   */
  readonly due: Array<{ entry: Entry; at: number; urgency: number }>
  /** Due within the horizon, the earliest first. */
  readonly upcoming: Array<UpcomingItem>
  readonly pending: number
}

/** Pending or snoozed intentions whose `deliver_at` has passed fire; those due within the horizon are upcoming. */
const readIntentions = (entries: ReadonlyArray<Entry>, s: Settings, v: Validity): Intentions => {
  const due: Array<{ entry: Entry; at: number; urgency: number }> = []
  const upcoming: Array<{ item: UpcomingItem; at: number }> = []
  let pending = 0
  for (const entry of entries) {
    if (!isLive(entry, s.now)) continue
    const data = dataOf(entry)
    const state = data.state ?? "pending"
    if (state === "pending") pending++
    if (state !== "pending" && state !== "snoozed") continue
    const at = parseIso(data.deliver_at)
    if (at === undefined) continue
    if (at <= s.now) {
      due.push({ entry, at, urgency: data.urgency === "high" ? 0 : data.urgency === "low" ? 2 : 1 })
    } else {
      v.until(at)
      if (at <= s.now + s.horizon) {
        const summary = str(data.goal) ?? str(data.description) ?? ""
        const item = {
          source: entry.source,
          summary,
          deliver_at: toIso(at),
          in_minutes: Math.ceil((at - s.now) / minute)
        }
        upcoming.push({ item, at })
      } else {
        v.until(at - s.horizon)
      }
    }
  }
  due.sort((a, b) => a.urgency - b.urgency || b.at - a.at)
  upcoming.sort((a, b) => a.at - b.at)
  // An upcoming item's `in_minutes` changes every minute.
  if (upcoming.length > 0) v.timeDependent = true
  return { due, upcoming: upcoming.map((u) => u.item), pending }
}

// ---------------------------------------------------------------------------------------------------------------
// generate

/**
 * Builds the briefing from a snapshot at `now`. Pure and synchronous: the same snapshot, time and options always
 * give the same result, and nothing is mutated (the caller marks `fired` intentions as fired).
 *
 * **Details**
 *
 * Sources are the union of status and alert sources, in name order. A stale status (`now - (updated ?? created) >
 * ttl_sec`) makes the source `stale` and skips its alerts. Otherwise each unresolved alert (or resolved but
 * flapping one) is checked, then dropped when suppressed, explained by a pattern, inhibited or acknowledged; what is
 * left surfaces, most severe first. Pending or snoozed intentions whose `deliver_at` has passed fire; those due
 * within the horizon are `upcoming`. `attention_needed` is true only for a surfaced alert, a stale source, a fired
 * (unacknowledged) intention or an upcoming item; an `info` headline alone leaves it false.
 *
 * **Budget** The briefing stays strictly under its budget (under 200 tokens all clear, under 500 with issues, or
 * `options.budget`). Every source keeps its own line (with `groups` added on top for sources sharing a problem)
 * whenever that fits; otherwise ok sources fold into `ok_sources`, sources with the same problem fold into their
 * group line, and the least severe lines into `omitted`. Critical sources win space before fired intentions:
 * intentions are trimmed (they stay pending) before critical detail is dropped. Nothing is cut silently: left-out
 * sources, alerts, intentions and upcoming items are counted in `omitted`, and the summary names left-out
 * intentions ("41 more fired reminders"). Within one urgency the most recent intentions are kept.
 *
 * **Errors** Throws {@link CollatorInputError} when `now` is an invalid `Date` (`param: "now"`) or
 * `options.timezone` is not an IANA time zone (`param: "timezone"`). Malformed entries never throw.
 *
 * **Example** (An all-clear briefing)
 *
 * ```ts
 * import { Collator } from "@heed/collator"
 *
 * const { briefing } = Collator.generate(
 *   { statuses: [], alerts: [], suppressions: [], patterns: [], intentions: [] },
 *   new Date("2026-03-19T15:00:00Z")
 * )
 * briefing.summary // "All clear across 0 sources."
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const generate = (snapshot: Snapshot, now: Date, options: Options = {}): Result => {
  const s = settingsOf(checkInput(now, options.timezone), options)
  const v = validityAt(s.now)
  const evaluation = emptyEvaluation()
  // Stage 1: read the snapshot.
  // Every Memo is made by makeMemo.
  const memo = options.memo as CollationMemo.Memo | undefined
  const statuses = latestStatuses(snapshot.statuses, s, v)
  const alerts = liveAlerts(snapshot.alerts, s, v, memo)
  const suppressions = readSuppressions(snapshot.suppressions, s, v, memo)
  const patterns = applicablePatterns(snapshot.patterns, s, v, memo)
  const sourceNames = [...new Set([...statuses.keys(), ...alerts.keys()])].sort()
  // Stage 2: staleness, suppression and patterns.
  const screenInput = { statuses, alerts, suppressions, patterns }
  const { staleLines, candidates } = screen(sourceNames, screenInput, s, v, evaluation, memo)
  // Stage 3: inhibition across sources.
  const inhibited = inhibit(candidates, s.inhibitRules)
  // Stage 4: acknowledgement, escalation, re-surfacing; one line per source.
  const keptSurfacings = memo?.surfacings ?? new Map<string, CollationMemo.Surfacing<unknown>>()
  // Only this call's sources are kept, so a source that disappeared does not hold its alerts.
  if (memo !== undefined) memo.surfacings = new Map()
  const lines: Array<Line> = []
  let activeAlerts = 0
  for (const source of sourceNames) {
    const stale = staleLines.get(source)
    const { surfaced, top } = surfaceSource(
      source,
      candidates.get(source) ?? [],
      inhibited,
      s,
      v,
      evaluation,
      memo,
      keptSurfacings
    )
    if (stale !== undefined && top === undefined) {
      lines.push(stale)
      continue
    }
    evaluation.surfaced += surfaced
    activeAlerts += surfaced
    const expired = suppressions.expiredBySource.get(source) ?? []
    const resurfaced = top !== undefined && isResurfaced(top.alert, expired, suppressions.globalExpired, s.now)
    if (resurfaced) evaluation.resurfaced++
    lines.push(sourceLine(source, statuses.get(source), surfaced, top, resurfaced, stale !== undefined))
  }
  lines.sort(bySeverityThenRecency)
  // Stage 5: intentions.
  const intentions = readIntentions(snapshot.intentions, s, v)
  // Stage 6: fit the budget.
  const model: Model = {
    now: toIso(s.now),
    stalenessSec: either(options.stalenessSec, options.staleness_sec) ?? 0,
    lines,
    activeAlerts,
    activeSuppressions: suppressions.count,
    evaluation,
    due: intentions.due,
    pending: intentions.pending,
    upcoming: intentions.upcoming
  }
  // Only what needs the person: an info headline (a status headline without an alert) is shown, never alarming.
  const attention =
    lines.some((line) => line.status !== "ok" && line.status !== "info") ||
    model.upcoming.length > 0 ||
    model.due.length > 0
  const budget = attention
    ? (options.budget?.issues ?? 500)
    : (either(options.budget?.allClear, options.budget?.all_clear) ?? 200)
  // A caller's own counter (another model family, a safety factor) may count more tokens than bytes: always call it.
  const rendered = fit(
    model,
    attention,
    budget,
    options.countTokens ?? countO200kFast,
    options.countTokens === undefined
  )
  return {
    briefing: rendered.briefing,
    fired: rendered.fired,
    // Counted when read: the fitter counts exactly only when the briefing's size does not settle the budget.
    get tokens() {
      return rendered.tokens
    },
    valid_until: v.result()
  }
}
