/**
 * What one `generate` call can hand the next, so that a briefing regenerated after a small change costs less than a
 * full one:
 *
 * - entries read into alerts, suppressions and patterns once (by entry identity: a store hands back the same object
 *   until the entry changes);
 * - each source's live alerts (expiry and flapping decided), kept until the first instant one of them depends on
 *   (an expiry, a state change entering or leaving the flap window) and only under the same flap settings;
 * - each source's screening (suppressions and patterns), kept while neither its alerts nor the applicable
 *   suppressions and patterns changed; it depends on no time;
 * - each source's surfacing (acknowledgement and escalation of what the screening kept: how many alerts surface and
 *   which one heads the line), kept for the same screening of the same live alerts under the same timeouts until
 *   the first instant an acknowledgement or escalation changes. Reading every alert of every source on every call
 *   was about a quarter of a briefing after one write: 10k alerts scattered over the heap are 10k cache misses.
 *
 * Everything else that depends on the time (staleness, re-surfacing, windows and pattern times, intentions) is
 * decided on every call.
 *
 * @since 0.2.0
 */
import type { Entry } from "../Entry.ts"
import type { Alert } from "./alert.ts"
import type { Pattern } from "./pattern.ts"
import type { Suppression } from "./suppression.ts"

/** The evaluation counters one source's screening adds. */
export interface ScreenCounts {
  readonly checked: number
  readonly suppressed: number
  readonly patternMatched: number
}

/** One source's screening: the alerts it was given and the ones no suppression or pattern explains. */
export interface Screening extends ScreenCounts {
  readonly alerts: ReadonlyArray<Alert>
  readonly kept: Array<Alert>
}

/**
 * One source's live alerts: from its alert `entries` (in snapshot order), the ones live at `at` (flapping marked
 * under the flap settings it was computed with); the same until `until`, and adding `validUntil` to the briefing's
 * validity.
 */
export interface LiveAlerts {
  readonly entries: ReadonlyArray<Entry>
  readonly alerts: Array<Alert>
  readonly at: number
  readonly until: number
  readonly validUntil: number
  readonly flapWindow: number
  readonly flapThreshold: number
}

/** What one source's surfacing counted: added to the briefing's evaluation on every call that keeps it. */
export interface SurfaceCounts {
  acknowledged: number
  escalated: number
  flapping: number
  inhibited: number
}

/**
 * One source's surfacing: of the `screening`'s kept alerts (whose `flapping` marks the `live` list set), how many
 * surface and the headline `top` (`T`: the collator's own record); the same from `at` until `until`.
 */
export interface Surfacing<T> {
  readonly screening: Screening
  readonly live: LiveAlerts
  readonly ackTimeout: number
  readonly escalationTimeout: number | undefined
  readonly at: number
  readonly until: number
  readonly surfaced: number
  readonly top: T | undefined
  readonly counts: SurfaceCounts
}

/** What the screening of every source depended on besides its alerts. */
export interface ScreenContext {
  readonly suppressions: ReadonlyArray<Suppression>
  readonly patterns: ReadonlyArray<Pattern>
}

/** The brand of the public `Collator.Memo`, which hides the fields below. */
export const TypeId = "~@heed/collator/Collator/Memo" as const

export interface Memo {
  readonly [TypeId]: typeof TypeId
  readonly alerts: WeakMap<Entry, Alert>
  /** `null`: the entry is not a usable suppression (malformed windows). */
  readonly suppressions: WeakMap<Entry, Suppression | null>
  readonly patterns: WeakMap<Entry, Pattern>
  context: ScreenContext | undefined
  screenings: Map<string, Screening>
  live: Map<string, LiveAlerts>
  surfacings: Map<string, Surfacing<unknown>>
  /** Calls served, and sources screened afresh or kept: what the incremental path saved (tests and metrics). */
  readonly stats: { calls: number; screened: number; reused: number }
}

export const make = (): Memo => ({
  [TypeId]: TypeId,
  alerts: new WeakMap(),
  suppressions: new WeakMap(),
  patterns: new WeakMap(),
  context: undefined,
  screenings: new Map(),
  live: new Map(),
  surfacings: new Map(),
  stats: { calls: 0, screened: 0, reused: 0 }
})

/** `f(entry)`, remembered per entry object in `cache` when there is one. */
export const cachedBy = <A>(cache: WeakMap<Entry, A> | undefined, entry: Entry, f: (entry: Entry) => A): A => {
  if (cache === undefined) return f(entry)
  let value = cache.get(entry)
  if (value === undefined) {
    value = f(entry)
    cache.set(entry, value)
  }
  return value
}

/** Whether two lists hold the same objects in the same order. */
export const sameItems = <A>(a: ReadonlyArray<A>, b: ReadonlyArray<A>): boolean => {
  if (a === b) return true
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/**
 * Starts a call: the kept screenings stay usable only when the applicable suppressions and patterns are the same
 * objects as last time. Returns the previous call's screenings that may be reused (none when the context changed).
 */
export const begin = (memo: Memo, context: ScreenContext): Map<string, Screening> => {
  memo.stats.calls++
  const previous = memo.context
  const same =
    previous !== undefined &&
    sameItems(previous.suppressions, context.suppressions) &&
    sameItems(previous.patterns, context.patterns)
  const reusable = same ? memo.screenings : new Map<string, Screening>()
  memo.context = context
  // Only this call's sources are kept, so a source that disappeared does not hold its alerts.
  memo.screenings = new Map()
  return reusable
}
