/**
 * What one `Collator.generate` call works with besides the snapshot: the options with their defaults applied, the
 * `valid_until` tracker every stage reports to, and the evaluation counters.
 *
 * @since 0.1.0
 */
import type { Evaluation } from "../Briefing.ts"
import type { InhibitRule, Options } from "../Collator.ts"
import { makeZoneCache, toIso, type ZoneCache } from "./time.ts"

export const minute = 60_000

/** The options with their defaults applied, durations in milliseconds. */
export interface Settings {
  readonly now: number
  readonly zone: ZoneCache
  readonly horizon: number
  readonly flapThreshold: number
  readonly flapWindow: number
  readonly ackTimeout: number
  readonly escalationTimeout: number | undefined
  readonly resurfaceWindow: number
  readonly inhibitRules: ReadonlyArray<InhibitRule>
}

/** An option's camelCase value, else its deprecated snake_case alias's (`null` counts as set: it disables). */
export const either = <A>(camel: A | undefined, snake: A | undefined): A | undefined =>
  camel !== undefined ? camel : snake

export const settingsOf = (now: number, options: Options): Settings => {
  const escalation = either(options.escalationTimeoutMinutes, options.escalation_timeout_minutes)
  return {
    now,
    zone: makeZoneCache(now, options.timezone ?? "UTC"),
    horizon: (either(options.upcomingHorizonMinutes, options.upcoming_horizon_minutes) ?? 60) * minute,
    flapThreshold: either(options.flapThreshold, options.flap_threshold) ?? 4,
    flapWindow: (either(options.flapWindowMinutes, options.flap_window_minutes) ?? 60) * minute,
    ackTimeout:
      (either(options.acknowledgementTimeoutMinutes, options.acknowledgement_timeout_minutes) ?? 240) * minute,
    escalationTimeout: escalation === null ? undefined : (escalation ?? 240) * minute,
    resurfaceWindow: (either(options.resurfaceWindowMinutes, options.resurface_window_minutes) ?? 1440) * minute,
    inhibitRules: either(options.inhibitRules, options.inhibit_rules) ?? []
  }
}

/**
 * Tracks `valid_until`: each stage reports the future instants at which its verdict could change (`until`), and
 * whether anything depends on the wall clock (time windows, timed patterns: then the next minute bounds it).
 */
export interface Validity {
  readonly until: (ms: number) => void
  timeDependent: boolean
  readonly result: () => string | null
}

export const validityAt = (now: number): Validity => {
  let validUntil = Number.POSITIVE_INFINITY
  const validity: Validity = {
    until: (ms) => {
      if (ms > now && ms < validUntil) validUntil = ms
    },
    timeDependent: false,
    result: () => {
      if (validity.timeDependent) validity.until(Math.floor(now / minute) * minute + minute)
      return Number.isFinite(validUntil) ? toIso(validUntil) : null
    }
  }
  return validity
}

export type Counters = { -readonly [K in keyof Required<Evaluation>]: number }

export const emptyEvaluation = (): Counters => ({
  alerts_checked: 0,
  suppressed: 0,
  pattern_matched: 0,
  stale_sources: 0,
  surfaced: 0,
  intentions_pending: 0,
  intentions_fired: 0,
  inhibited: 0,
  acknowledged: 0,
  flapping: 0,
  escalated: 0,
  resurfaced: 0
})
