/**
 * The collator: digests a snapshot of awareness entries into one token-budgeted {@link Briefing}.
 *
 * `generate(snapshot, now, options?)` is pure and synchronous. It reproduces mcp-awareness's algorithm (stale
 * detection, suppression with level escalation, patterns, the `evaluation` counters, the `summary` and
 * `suggested_mention` templates) and adds heed's fixes and alerting-peer features: sources from statuses and
 * alerts, structured and time-zone aware patterns, recurring suppressions, re-surfacing, inhibition, grouping, flap
 * damping, acknowledgement, escalation, upcoming items and a hard token budget.
 *
 * @since 0.1.0
 */
import { countO200k, toCompactJson } from "@heed/schema"
import * as Schema from "effect/Schema"
import type { Briefing, Evaluation, FiredIntention, SourceGroup, SourceLine, UpcomingItem } from "./Briefing.ts"
import type { Entry, Level } from "./Entry.ts"
import { severityRank } from "./Entry.ts"
import { didYouMean, globToRegExp, truncate, words } from "./internal/text.ts"
import { isTimeZone, parseIso, toIso, weekdays, zonedParts } from "./internal/time.ts"

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
 * Token budgets, exclusive (the briefing stays strictly under them): `all_clear` (default 200) applies when nothing
 * needs attention, `issues` (default 500) otherwise.
 *
 * @category models
 * @since 0.1.0
 */
export interface Budget {
  readonly all_clear?: number
  readonly issues?: number
}

/**
 * Options for {@link generate}.
 *
 * - `upcoming_horizon_minutes` (default 60): intentions due within this horizon populate `upcoming`.
 * - `timezone` (default `"UTC"`): the owner's IANA zone for pattern conditions and time windows; an unknown zone
 *   throws {@link CollatorInputError}.
 * - `countTokens` (default o200k): counts the compact JSON of the briefing.
 * - `budget`: exclusive token budgets (under 200 all clear, under 500 with issues).
 * - `inhibit_rules` (default none): see {@link InhibitRule}.
 * - `flap_threshold` (default 4) state changes within `flap_window_minutes` (default 60) mark an alert flapping:
 *   it keeps firing through short resolutions instead of toggling the briefing.
 * - `acknowledgement_timeout_minutes` (default 240): an acknowledged alert is held back for this long.
 * - `escalation_timeout_minutes` (default 240, `null` disables): an unacknowledged warning firing longer than
 *   this counts as critical.
 * - `resurface_window_minutes` (default 1440): how long after a suppression expires its alert is marked
 *   `resurfaced`.
 * - `staleness_sec` (default 0): copied into the briefing (the `Awareness` cache sets it).
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly upcoming_horizon_minutes?: number
  readonly timezone?: string
  readonly countTokens?: (text: string) => number
  readonly budget?: Budget
  readonly inhibit_rules?: ReadonlyArray<InhibitRule>
  readonly flap_threshold?: number
  readonly flap_window_minutes?: number
  readonly acknowledgement_timeout_minutes?: number
  readonly escalation_timeout_minutes?: number | null
  readonly resurface_window_minutes?: number
  readonly staleness_sec?: number
}

/**
 * The result of {@link generate}: the `briefing`, the intentions it delivers (`fired`, in briefing order, as
 * they were in the snapshot), the token count of the briefing, and `valid_until`: the earliest instant at which the
 * same snapshot could give a different briefing (a status going stale, a suppression expiring, an intention coming
 * due, ...), or `null` if none is known. Caches use it.
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

/**
 * Thrown (synchronously) by {@link generate}, {@link isSuppressed} and {@link matchesPattern} when the caller's own
 * arguments are invalid: `now` is not a valid `Date`, or `timezone` is not an IANA time zone. `param` names the
 * argument. Bad entries in the snapshot never throw: they are skipped or never match.
 *
 * @category errors
 * @since 0.1.0
 */
export class CollatorInputError extends Schema.TaggedError<CollatorInputError>()("CollatorInputError", {
  param: Schema.String,
  message: Schema.String
}) {}

/** Validates the caller's `now` and `timezone`; returns `now` in milliseconds. */
const checkInput = (now: Date, timezone: string | undefined): number => {
  const nowMs = now instanceof Date ? now.getTime() : Number.NaN
  if (!Number.isFinite(nowMs)) {
    throw new CollatorInputError({
      param: "now",
      message: `now must be a valid Date (got ${now instanceof Date ? "an invalid Date" : typeof now})`
    })
  }
  if (timezone !== undefined && (typeof timezone !== "string" || !isTimeZone(timezone))) {
    throw new CollatorInputError({
      param: "timezone",
      message: `timezone must be an IANA time zone such as "Europe/Berlin" (got ${JSON.stringify(timezone)})`
    })
  }
  return nowMs
}

// ---------------------------------------------------------------------------------------------------------------
// Reading untrusted data

type Data = Record<string, unknown>

const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)
const dataOf = (entry: Entry): Data =>
  typeof entry.data === "object" && entry.data !== null ? (entry.data as Data) : {}
const tagsOf = (entry: Entry): ReadonlyArray<string> => {
  if (!Array.isArray(entry.tags)) return []
  // Tags are nearly always all strings: then the entry's own array serves (it is never mutated here).
  for (const tag of entry.tags) {
    if (typeof tag !== "string") return entry.tags.filter((tag): tag is string => typeof tag === "string")
  }
  return entry.tags
}
const timeOf = (entry: Entry): number => parseIso(entry.updated) ?? parseIso(entry.created) ?? 0
const isLive = (entry: Entry, now: number): boolean => {
  if (entry.deleted !== null && entry.deleted !== undefined) return false
  const expires = parseIso(entry.expires)
  return expires === undefined || expires > now
}

// ---------------------------------------------------------------------------------------------------------------
// Suppressions

/** @internal */
interface Suppression {
  readonly entry: Entry
  readonly source: string
  readonly metric: string | null
  readonly tags: ReadonlyArray<string>
  readonly tagsLower: ReadonlyArray<string>
  readonly levelRank: number
  readonly escalationOverride: boolean
  readonly expires: number | undefined
  readonly windows: ReadonlyArray<Window> | undefined
}

interface Window {
  readonly weekdays: ReadonlySet<string> | undefined
  readonly times: ReadonlyArray<readonly [number, number]> | undefined
  readonly location: string | undefined
}

const parseClock = (value: unknown): number | undefined => {
  if (typeof value !== "string") return undefined
  const match = /^(\d{1,2}):(\d{2})$/.exec(value)
  if (match === null) return undefined
  const hours = Number(match[1])
  const minutes = Number(match[2])
  if (hours > 24 || minutes > 59 || (hours === 24 && minutes > 0)) return undefined
  return hours * 60 + minutes
}

/**
 * Checks a suppression's `time_intervals`; returns an error message, or `undefined` when they are valid.
 *
 * @category validation
 * @since 0.1.0
 */
export const validateTimeIntervals = (value: unknown): string | undefined => {
  if (!Array.isArray(value)) return "time_intervals must be an array of { weekdays?, times?, location? }"
  for (const interval of value) {
    if (typeof interval !== "object" || interval === null) return "each time interval must be an object"
    const record = interval as Data
    for (const key of Object.keys(record)) {
      if (key !== "weekdays" && key !== "times" && key !== "location") {
        return `unknown time interval key "${key}" (valid: weekdays, times, location)`
      }
    }
    if (record.weekdays !== undefined) {
      if (!Array.isArray(record.weekdays)) return "weekdays must be an array of day names"
      for (const day of record.weekdays) {
        if (typeof day !== "string" || !(weekdays as ReadonlyArray<string>).includes(day.toLowerCase())) {
          return `unknown weekday ${JSON.stringify(day)} (valid: ${weekdays.join(", ")})`
        }
      }
    }
    if (record.times !== undefined) {
      if (!Array.isArray(record.times)) return "times must be an array of { start_time, end_time }"
      for (const range of record.times) {
        const r = (typeof range === "object" && range !== null ? range : {}) as Data
        if (parseClock(r.start_time) === undefined || parseClock(r.end_time) === undefined) {
          return 'each time range needs start_time and end_time as "HH:MM"'
        }
      }
    }
    if (record.location !== undefined && (typeof record.location !== "string" || !isTimeZone(record.location))) {
      return `unknown time zone ${JSON.stringify(record.location)}`
    }
  }
  return undefined
}

const toWindows = (value: unknown): ReadonlyArray<Window> | undefined | null => {
  if (value === undefined || value === null) return undefined
  if (validateTimeIntervals(value) !== undefined) return null
  return (value as ReadonlyArray<Data>).map((interval) => ({
    weekdays: Array.isArray(interval.weekdays)
      ? new Set((interval.weekdays as ReadonlyArray<string>).map((day) => day.toLowerCase()))
      : undefined,
    times: Array.isArray(interval.times)
      ? (interval.times as ReadonlyArray<Data>).map(
          (range) => [parseClock(range.start_time) ?? 0, parseClock(range.end_time) ?? 0] as const
        )
      : undefined,
    location: str(interval.location)
  }))
}

const toSuppression = (entry: Entry): Suppression | undefined => {
  const data = dataOf(entry)
  const windows = toWindows(data.time_intervals)
  if (windows === null) return undefined
  const tags = tagsOf(entry)
  return {
    entry,
    source: typeof entry.source === "string" ? entry.source : "",
    metric: str(data.metric) ?? null,
    tags,
    tagsLower: tags.map((tag) => tag.toLowerCase()),
    levelRank: data.suppress_level === "critical" ? 2 : 1,
    escalationOverride: data.escalation_override !== false,
    expires: parseIso(entry.expires),
    windows
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Alerts

interface Alert {
  readonly entry: Entry
  readonly source: string
  readonly alertId: string
  readonly alertType: string
  readonly level: string
  readonly rank: number
  readonly message: string
  readonly metric: string | undefined
  readonly tags: ReadonlyArray<string>
  readonly labels: Readonly<Record<string, string>>
  readonly firingSince: number
  readonly acknowledgedAt: number | undefined
  readonly changes: ReadonlyArray<number>
  readonly resolved: boolean
  readonly time: number
  flapping: boolean
  /** The alert's text fields lower-cased, computed on first use. */
  lower: LowerText | undefined
  /** The words of `alert_id`, `alert_type`, `metric` and `message`, computed on first use. */
  wordSet: ReadonlySet<string> | undefined
}

interface LowerText {
  readonly alertId: string
  readonly message: string
  readonly metric: string
  readonly alertType: string
}

const noLabels: Record<string, string> = {}
const noChanges: Array<number> = []

const toAlert = (entry: Entry): Alert => {
  const data = dataOf(entry)
  let changes: Array<number> = noChanges
  if (Array.isArray(data.state_changes) && data.state_changes.length > 0) {
    changes = []
    for (const change of data.state_changes) {
      const ms = parseIso(change)
      if (ms !== undefined) changes.push(ms)
    }
  }
  let labels: Record<string, string> = noLabels
  if (typeof data.labels === "object" && data.labels !== null) {
    labels = {}
    for (const [key, value] of Object.entries(data.labels as Data)) if (typeof value === "string") labels[key] = value
  }
  const created = parseIso(entry.created) ?? 0
  const updated = parseIso(entry.updated)
  const level = str(data.level) ?? "warning"
  return {
    entry,
    source: typeof entry.source === "string" ? entry.source : "",
    alertId: str(data.alert_id) ?? "",
    alertType: str(data.alert_type) ?? "",
    level,
    rank: severityRank(level),
    message: str(data.message) ?? "",
    metric: str(data.metric),
    tags: tagsOf(entry),
    labels,
    firingSince: changes.length > 0 ? Math.max(...changes) : created,
    acknowledgedAt: parseIso(data.acknowledged_at),
    changes,
    resolved: data.resolved === true,
    time: updated ?? created,
    flapping: false,
    lower: undefined,
    wordSet: undefined
  }
}

const lowerOf = (alert: Alert): LowerText => {
  if (alert.lower === undefined) {
    alert.lower = {
      alertId: alert.alertId.toLowerCase(),
      message: alert.message.toLowerCase(),
      metric: (alert.metric ?? "").toLowerCase(),
      alertType: alert.alertType.toLowerCase()
    }
  }
  return alert.lower
}

/**
 * Whether a lower-cased suppression tag occurs in the text tags are searched in: the alert's `alert_id`, `message`
 * and `metric`, lower-cased and joined with NUL. A tag without NUL cannot span two fields, so the lower-cased fields
 * are searched one by one rather than building the joined copy for every alert.
 */
const textIncludes = (alert: Alert, tag: string): boolean => {
  if (tag.includes("\u0000")) {
    return `${alert.alertId}\u0000${alert.message}\u0000${alert.metric ?? ""}`.toLowerCase().includes(tag)
  }
  const lower = lowerOf(alert)
  return lower.alertId.includes(tag) || lower.message.includes(tag) || lower.metric.includes(tag)
}

const wordsOf = (alert: Alert): ReadonlySet<string> => {
  if (alert.wordSet === undefined) {
    alert.wordSet = new Set([
      ...words(alert.alertId),
      ...words(alert.alertType),
      ...words(alert.metric ?? ""),
      ...words(alert.message)
    ])
  }
  return alert.wordSet
}

/** Whether a suppression's matchers (source, metric, tags) select the alert, ignoring time. */
const selects = (suppression: Suppression, alert: Alert): boolean => {
  if (suppression.source !== "" && suppression.source !== alert.source) return false
  if (suppression.metric !== null && suppression.metric !== alert.metric) return false
  if (suppression.tags.length === 0) return true
  for (let i = 0; i < suppression.tags.length; i++) {
    if (alert.tags.includes(suppression.tags[i] as string)) return true
    if (textIncludes(alert, suppression.tagsLower[i] as string)) return true
  }
  return false
}

/** Whether any item of `list` is in `set`. */
const hasAny = (set: ReadonlySet<string>, list: ReadonlyArray<string>): boolean => {
  for (const item of list) if (set.has(item)) return true
  return false
}

/**
 * A cheap pre-check for the global suppressions. When every one of them is scoped by tags, it returns a predicate
 * telling whether any of them could select an alert (one of the tags among the alert's tags, or one combined search
 * of its text for all of them), so most alerts skip the global list. It never rules out an alert that a global
 * suppression selects. `undefined` means the list must always be checked.
 */
const globalPrefilter = (globals: ReadonlyArray<Suppression>): ((alert: Alert) => boolean) | undefined => {
  if (globals.length === 0 || globals.some((suppression) => suppression.tags.length === 0)) return undefined
  const lowerTags = globals.flatMap((suppression) => suppression.tagsLower)
  // A tag containing NUL could span two fields of the searched text (see `textIncludes`): no shortcut then.
  if (lowerTags.some((tag) => tag.includes("\u0000"))) return undefined
  const tags = new Set(globals.flatMap((suppression) => suppression.tags))
  const pattern = new RegExp(lowerTags.map((tag) => tag.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"))
  // The searched fields (see `textIncludes`) one by one; alert ids and metrics repeat across alerts, so their
  // verdicts are remembered.
  const verdicts = new Map<string, boolean>()
  const repeated = (text: string): boolean => {
    let verdict = verdicts.get(text)
    if (verdict === undefined) {
      verdict = pattern.test(text.toLowerCase())
      verdicts.set(text, verdict)
    }
    return verdict
  }
  return (alert) =>
    hasAny(tags, alert.tags) ||
    repeated(alert.alertId) ||
    pattern.test(alert.message.toLowerCase()) ||
    repeated(alert.metric ?? "")
}

const inWindows = (windows: ReadonlyArray<Window>, zone: ZoneCache): boolean => {
  for (const window of windows) {
    const parts = zone(window.location)
    if (parts === undefined) continue
    if (window.weekdays !== undefined && !window.weekdays.has(parts.weekday)) continue
    if (window.times !== undefined) {
      const minute = parts.hour * 60 + parts.minute
      const hit = window.times.some(([start, end]) =>
        start <= end ? minute >= start && minute < end : minute >= start || minute < end
      )
      if (!hit) continue
    }
    return true
  }
  return false
}

type ZoneCache = (timeZone: string | undefined) => { weekday: string; hour: number; minute: number } | undefined

const makeZoneCache = (now: number, defaultZone: string): ZoneCache => {
  const cache = new Map<string, ReturnType<ZoneCache>>()
  return (timeZone) => {
    const zoneName = timeZone ?? defaultZone
    if (!cache.has(zoneName)) cache.set(zoneName, zonedParts(now, zoneName))
    return cache.get(zoneName)
  }
}

const isActiveSuppression = (suppression: Suppression, now: number, zone: ZoneCache): boolean =>
  (suppression.expires === undefined || suppression.expires > now) &&
  (suppression.windows === undefined || inWindows(suppression.windows, zone))

/**
 * Upstream's `is_suppressed`, with heed's recurring windows: the first matching active suppression decides. A
 * matching suppression mutes the alert unless `escalation_override` is on and the alert's level ranks above
 * `suppress_level` (so `suppress_level: "critical"` mutes every level). Expired, deleted and out-of-window
 * suppressions are ignored. Throws {@link CollatorInputError} when `now` is an invalid `Date` or `timezone` is
 * unknown.
 *
 * @category predicates
 * @since 0.1.0
 */
export const isSuppressed = (
  alert: Entry,
  suppressions: ReadonlyArray<Entry>,
  now: Date,
  options: { readonly timezone?: string } = {}
): boolean => {
  const nowMs = checkInput(now, options.timezone)
  const zone = makeZoneCache(nowMs, options.timezone ?? "UTC")
  const parsed = toAlert(alert)
  const list: Array<Suppression> = []
  for (const entry of suppressions) {
    if (!isLive(entry, nowMs)) continue
    const suppression = toSuppression(entry)
    if (suppression !== undefined) list.push(suppression)
  }
  return suppressedBy(parsed, list, nowMs, zone) !== undefined
}

const suppressedBy = (
  alert: Alert,
  suppressions: ReadonlyArray<Suppression>,
  now: number,
  zone: ZoneCache | undefined
): Suppression | undefined => {
  for (const suppression of suppressions) {
    // Without a zone cache the caller has already kept only active, in-window suppressions.
    if (zone !== undefined && !isActiveSuppression(suppression, now, zone)) continue
    if (!selects(suppression, alert)) continue
    if (suppression.escalationOverride && alert.rank > suppression.levelRank) return undefined
    return suppression
  }
  return undefined
}

// ---------------------------------------------------------------------------------------------------------------
// Patterns

/**
 * The condition keys a pattern may use: `day_of_week` (a day name or a list of them), `hour_range`
 * (`[start, end)`, wrapping overnight when start > end), `timezone` (IANA; default the owner's), and heed's
 * structural matchers `alert_id` (a glob), `metric`, `tags` (any overlap) and `level`.
 *
 * @category constants
 * @since 0.1.0
 */
export const conditionKeys = ["day_of_week", "hour_range", "timezone", "alert_id", "metric", "tags", "level"] as const

/**
 * Why a pattern's conditions were rejected: the offending `key`, a `message`, and a did-you-mean `suggestion` for
 * an unknown key.
 *
 * @category models
 * @since 0.1.0
 */
export interface ConditionProblem {
  readonly key: string
  readonly message: string
  readonly suggestion?: string
}

const isDay = (value: unknown): boolean =>
  typeof value === "string" && (weekdays as ReadonlyArray<string>).includes(value.toLowerCase())

/**
 * Validates a pattern's `conditions`; returns the first problem, or `undefined` when they are valid. A pattern
 * with invalid conditions never matches in {@link generate}, and `learn_pattern` rejects it.
 *
 * @category validation
 * @since 0.1.0
 */
export const validateConditions = (conditions: unknown): ConditionProblem | undefined => {
  if (conditions === undefined || conditions === null) return undefined
  if (typeof conditions !== "object" || Array.isArray(conditions)) {
    return { key: "conditions", message: "conditions must be an object" }
  }
  for (const [key, value] of Object.entries(conditions as Data)) {
    switch (key) {
      case "day_of_week":
        if (!(isDay(value) || (Array.isArray(value) && value.length > 0 && value.every(isDay)))) {
          return { key, message: `day_of_week must be a day name or a list of them (${weekdays.join(", ")})` }
        }
        break
      case "hour_range":
        if (
          !Array.isArray(value) ||
          value.length !== 2 ||
          !value.every((hour) => Number.isInteger(hour) && hour >= 0 && hour <= 24)
        ) {
          return { key, message: "hour_range must be [start, end] with whole hours from 0 to 24" }
        }
        break
      case "timezone":
        if (typeof value !== "string" || !isTimeZone(value)) {
          return { key, message: `timezone must be an IANA time zone such as "Europe/Berlin"` }
        }
        break
      case "alert_id":
      case "metric":
        if (typeof value !== "string" || value.length === 0)
          return { key, message: `${key} must be a non-empty string` }
        break
      case "tags":
        if (!Array.isArray(value) || value.length === 0 || !value.every((tag) => typeof tag === "string")) {
          return { key, message: "tags must be a non-empty list of strings" }
        }
        break
      case "level":
        if (value !== "info" && value !== "warning" && value !== "critical") {
          return { key, message: "level must be info, warning or critical" }
        }
        break
      default: {
        const suggestion = didYouMean(key, conditionKeys)
        return {
          key,
          message: `unknown condition key "${key}" (valid: ${conditionKeys.join(", ")})`,
          ...(suggestion === undefined ? {} : { suggestion })
        }
      }
    }
  }
  return undefined
}

const stopWords = new Set(["suppress", "ignore", "skip", "the", "a", "an", "on", "in", "for", "and", "or", "is", "at"])

interface Pattern {
  readonly entry: Entry
  readonly source: string
  readonly valid: boolean
  readonly days: ReadonlySet<string> | undefined
  readonly hours: readonly [number, number] | undefined
  readonly timezone: string | undefined
  readonly idGlob: RegExp | undefined
  readonly metric: string | undefined
  readonly tags: ReadonlyArray<string> | undefined
  readonly level: string | undefined
  readonly effectWords: ReadonlyArray<string>
  readonly effectSet: ReadonlySet<string>
  readonly timed: boolean
}

const toPattern = (entry: Entry): Pattern => {
  const data = dataOf(entry)
  // Conditions that are not an object (a string, number, boolean or array) make the pattern invalid: it never
  // matches. Missing conditions (`undefined` or `null`) are empty.
  const valid = validateConditions(data.conditions) === undefined
  const conditions = (
    valid && typeof data.conditions === "object" && data.conditions !== null ? data.conditions : {}
  ) as Data
  const day = conditions.day_of_week
  const allEffectWords = words(str(data.effect) ?? "")
  return {
    entry,
    source: typeof entry.source === "string" ? entry.source : "",
    valid,
    days:
      day === undefined
        ? undefined
        : new Set((Array.isArray(day) ? day : [day]).map((name) => String(name).toLowerCase())),
    hours: Array.isArray(conditions.hour_range)
      ? [Number(conditions.hour_range[0]), Number(conditions.hour_range[1])]
      : undefined,
    timezone: str(conditions.timezone),
    idGlob: typeof conditions.alert_id === "string" ? globToRegExp(conditions.alert_id) : undefined,
    metric: str(conditions.metric),
    tags: Array.isArray(conditions.tags) ? (conditions.tags as ReadonlyArray<string>) : undefined,
    level: str(conditions.level),
    effectWords: allEffectWords.filter((word) => !stopWords.has(word)),
    effectSet: new Set(allEffectWords),
    timed: day !== undefined || conditions.hour_range !== undefined
  }
}

const containsAll = (set: ReadonlySet<string>, list: ReadonlyArray<string>): boolean => {
  if (list.length === 0) return false
  for (const word of list) if (!set.has(word)) return false
  return true
}

/** Whether the pattern is valid and its time conditions hold at the zone cache's instant. */
const patternApplies = (pattern: Pattern, zone: ZoneCache): boolean => {
  if (!pattern.valid) return false
  if (pattern.timed) {
    const parts = zone(pattern.timezone)
    if (parts === undefined) return false
    if (pattern.days !== undefined && !pattern.days.has(parts.weekday)) return false
    if (pattern.hours !== undefined) {
      const [start, end] = pattern.hours
      const inRange = start <= end ? parts.hour >= start && parts.hour < end : parts.hour >= start || parts.hour < end
      if (!inRange) return false
    }
  }
  return true
}

const patternMatches = (pattern: Pattern, alert: Alert, zone: ZoneCache): boolean =>
  patternApplies(pattern, zone) && patternSelects(pattern, alert, words)

/** {@link words} remembering its answers, for one `generate` call: alert ids and metrics repeat across sources. */
const memoizedWords = (): ((text: string) => ReadonlyArray<string>) => {
  const cache = new Map<string, ReadonlyArray<string>>()
  return (text) => {
    let list = cache.get(text)
    if (list === undefined) {
      list = words(text)
      cache.set(text, list)
    }
    return list
  }
}

/**
 * Whether an applicable pattern explains the alert (structural matchers, else the effect text). `wordsOfText` splits
 * text into words as {@link words} does (possibly memoised).
 */
const patternSelects = (
  pattern: Pattern,
  alert: Alert,
  wordsOfText: (text: string) => ReadonlyArray<string>
): boolean => {
  const structural =
    pattern.idGlob !== undefined ||
    pattern.metric !== undefined ||
    pattern.tags !== undefined ||
    pattern.level !== undefined
  if (structural) {
    if (pattern.idGlob !== undefined && !pattern.idGlob.test(alert.alertId)) return false
    if (pattern.metric !== undefined && pattern.metric !== alert.metric) return false
    if (pattern.level !== undefined && pattern.level !== alert.level) return false
    if (pattern.tags !== undefined && !pattern.tags.some((tag) => alert.tags.includes(tag))) return false
    return true
  }
  if (pattern.effectWords.length === 0) return false
  // Every significant effect word appears in the alert, or the effect names the alert's id or metric.
  if (hasAllWords(alert, pattern.effectWords)) return true
  return (
    containsAll(pattern.effectSet, wordsOfText(alert.alertId)) ||
    containsAll(pattern.effectSet, wordsOfText(alert.metric ?? ""))
  )
}

/** Whether every word of `list` is a word of the alert's id, type, metric or message. */
const hasAllWords = (alert: Alert, list: ReadonlyArray<string>): boolean => {
  if (list.length === 0) return false
  // A word of a field is a substring of the lower-cased field, so a substring test rules most alerts out before
  // their word set is built.
  const lower = lowerOf(alert)
  for (const word of list) {
    if (
      !lower.alertId.includes(word) &&
      !lower.alertType.includes(word) &&
      !lower.metric.includes(word) &&
      !lower.message.includes(word)
    ) {
      return false
    }
  }
  return containsAll(wordsOf(alert), list)
}

/**
 * heed's `matches_pattern`: whether any live pattern explains the alert at `now`. Conditions are evaluated in
 * `options.timezone` (default UTC) unless the pattern names its own `timezone`; a pattern with an unknown or
 * malformed condition never matches. With structural matchers (`alert_id` glob, `metric`, `tags`, `level`) those
 * decide; otherwise the effect text decides: every effect word (split on `_`, `-` and punctuation, stop words
 * removed) must occur in the alert's id, type, metric or message, or the effect must name the alert's id or metric.
 * Conditions that are not an object (a string, number, boolean or array) never match. Throws
 * {@link CollatorInputError} when `now` is an invalid `Date` or `timezone` is unknown.
 *
 * @category predicates
 * @since 0.1.0
 */
export const matchesPattern = (
  alert: Entry,
  patterns: ReadonlyArray<Entry>,
  now: Date,
  options: { readonly timezone?: string } = {}
): boolean => {
  const nowMs = checkInput(now, options.timezone)
  const zone = makeZoneCache(nowMs, options.timezone ?? "UTC")
  const parsed = toAlert(alert)
  return patterns.some((entry) => isLive(entry, nowMs) && patternMatches(toPattern(entry), parsed, zone))
}

// ---------------------------------------------------------------------------------------------------------------
// Summary and mention templates

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`

const names = (list: ReadonlyArray<string>, max: number | undefined): string =>
  max === undefined || list.length <= max
    ? list.join(", ")
    : `${list.slice(0, max).join(", ")} and ${list.length - max} more`

/**
 * The inputs of {@link composeSummary}: source names by status, and counts.
 *
 * @category models
 * @since 0.1.0
 */
export interface SummaryInput {
  readonly attention_needed: boolean
  readonly source_count: number
  readonly critical: ReadonlyArray<string>
  readonly warning: ReadonlyArray<string>
  readonly info?: ReadonlyArray<string>
  readonly stale: ReadonlyArray<string>
  readonly upcoming: number
  readonly intentions: number
}

/**
 * Upstream's `compose_summary`: `"All clear across N source[s]."`, or parts such as `"K critical on a, b"`,
 * `"K warning on c"` (K counts sources), `"x, y stale"`, `"N upcoming item[s]"`, `"N intention[s] ready"` joined
 * with `". "` and ending with `"."`. heed adds `"K info on d"` and, with `maxNames`, caps name lists
 * (`"a, b and 3 more"`).
 *
 * @category rendering
 * @since 0.1.0
 */
export const composeSummary = (input: SummaryInput, maxNames?: number): string => {
  if (!input.attention_needed) return `All clear across ${plural(input.source_count, "source")}.`
  const parts: Array<string> = []
  if (input.critical.length > 0) parts.push(`${input.critical.length} critical on ${names(input.critical, maxNames)}`)
  if (input.warning.length > 0) parts.push(`${input.warning.length} warning on ${names(input.warning, maxNames)}`)
  const info = input.info ?? []
  if (info.length > 0) parts.push(`${info.length} info on ${names(info, maxNames)}`)
  if (input.stale.length > 0) parts.push(`${names(input.stale, maxNames)} stale`)
  if (input.upcoming > 0) parts.push(plural(input.upcoming, "upcoming item"))
  if (input.intentions > 0) parts.push(`${plural(input.intentions, "intention")} ready`)
  return `${parts.join(". ")}.`
}

/**
 * The inputs of {@link composeMention}: the source lines (in order), upcoming items and fired intentions.
 *
 * @category models
 * @since 0.1.0
 */
export interface MentionInput {
  readonly sources: Readonly<Record<string, SourceLine>>
  readonly groups?: ReadonlyArray<SourceGroup>
  readonly upcoming: ReadonlyArray<UpcomingItem>
  readonly fired_intentions?: ReadonlyArray<FiredIntention>
}

const prefix = (status: string): string => (status === "critical" ? "CRITICAL" : status === "stale" ? "STALE" : "FYI")

/**
 * Upstream's `compose_mention`: for each source with a headline `"CRITICAL: h"`, `"STALE: h"` or `"FYI: h"`, then
 * each upcoming summary, then `"INTENTION: goal"`, joined with single spaces. heed adds group lines
 * (`"FYI: h (3 sources: a, b, c)"`) and marks re-surfaced headlines `"(suppression expired)"`. A group whose
 * sources are all listed in `sources` with the group's headline is mentioned once, as its group line, where its
 * first source would be; a group whose sources have different headlines is mentioned source by source; a group
 * whose sources were folded away (not all listed) is mentioned as its group line after the sources.
 *
 * @category rendering
 * @since 0.1.0
 */
export const composeMention = (input: MentionInput): string => {
  const groupLine = (group: SourceGroup) =>
    `${prefix(group.status)}: ${group.headline} (${group.count} sources: ${names(group.sources, undefined)}${group.count > group.sources.length ? ", …" : ""})`
  const collapsed = new Map<string, SourceGroup>()
  const detailed = new Set<SourceGroup>()
  for (const group of input.groups ?? []) {
    const lines = group.sources.map((name) => input.sources[name])
    if (group.count > group.sources.length || lines.some((line) => line === undefined)) continue
    detailed.add(group)
    if (lines.every((line) => line?.headline === group.headline && line.resurfaced !== true)) {
      for (const name of group.sources) collapsed.set(name, group)
    }
  }
  const parts: Array<string> = []
  const mentioned = new Set<SourceGroup>()
  for (const [name, line] of Object.entries(input.sources)) {
    if (line.headline === undefined) continue
    const group = collapsed.get(name)
    if (group !== undefined) {
      if (!mentioned.has(group)) parts.push(groupLine(group))
      mentioned.add(group)
      continue
    }
    parts.push(`${prefix(line.status)}: ${line.headline}${line.resurfaced === true ? " (suppression expired)" : ""}`)
  }
  for (const group of input.groups ?? []) if (!detailed.has(group)) parts.push(groupLine(group))
  for (const item of input.upcoming) parts.push(item.summary)
  for (const intention of input.fired_intentions ?? []) parts.push(`INTENTION: ${intention.goal}`)
  return parts.join(" ")
}

// ---------------------------------------------------------------------------------------------------------------
// generate

interface Line {
  readonly source: string
  readonly status: SourceLine["status"]
  readonly lastReport: string | null
  readonly headline: string | undefined
  readonly drillDown: string | undefined
  readonly alertCount: number
  readonly groupKey: string | undefined
  readonly resurfaced: boolean
  readonly flapping: boolean
  readonly escalated: boolean
}

interface Limits {
  readonly detailed: number
  readonly textChars: number | undefined
  readonly maxNames: number | undefined
  readonly maxIntentions: number
  readonly maxUpcoming: number
  readonly listOk: boolean
  readonly summaryChars: number | undefined
  /** Whether sources with the same problem fold into their group line (`false`: each keeps its own line). */
  readonly fold: boolean
}

const statusOrder: Record<SourceLine["status"], number> = { critical: 0, stale: 1, warning: 2, info: 3, ok: 4 }

const emptyEvaluation = (): { -readonly [K in keyof Required<Evaluation>]: number } => ({
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

const labelOf = (alert: Alert, label: string): string | undefined => {
  switch (label) {
    case "source":
      return alert.source
    case "alert_id":
      return alert.alertId
    case "alert_type":
      return alert.alertType
    case "metric":
      return alert.metric
    default:
      return alert.labels[label]
  }
}

const groupBy = <A>(items: Iterable<A>, key: (a: A) => string): Map<string, Array<A>> => {
  const map = new Map<string, Array<A>>()
  for (const item of items) {
    const k = key(item)
    const list = map.get(k)
    if (list === undefined) map.set(k, [item])
    else list.push(item)
  }
  return map
}

const minute = 60_000

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
 * within the horizon are `upcoming`.
 *
 * **Budget** The briefing stays strictly under its budget (under 200 tokens all clear, under 500 with issues, or
 * `options.budget`). Every source keeps its own line (with `groups` added on top for sources sharing a problem)
 * whenever that fits; otherwise ok sources fold into `ok_sources`, sources with the same problem fold into their
 * group line, and the least severe lines into `omitted`. Critical sources win space before fired intentions:
 * intentions are trimmed (they stay pending) before critical detail is dropped.
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
  const nowMs = checkInput(now, options.timezone)
  const timezone = options.timezone ?? "UTC"
  const zone = makeZoneCache(nowMs, timezone)
  const countTokens = options.countTokens ?? countO200k
  const horizon = (options.upcoming_horizon_minutes ?? 60) * minute
  const flapThreshold = options.flap_threshold ?? 4
  const flapWindow = (options.flap_window_minutes ?? 60) * minute
  const ackTimeout = (options.acknowledgement_timeout_minutes ?? 240) * minute
  const escalationTimeout =
    options.escalation_timeout_minutes === null ? undefined : (options.escalation_timeout_minutes ?? 240) * minute
  const resurfaceWindow = (options.resurface_window_minutes ?? 1440) * minute
  const inhibitRules = options.inhibit_rules ?? []
  let validUntil = Number.POSITIVE_INFINITY
  const until = (ms: number) => {
    if (ms > nowMs && ms < validUntil) validUntil = ms
  }
  let timeDependent = false

  // Latest live status per source.
  const statuses = new Map<string, { entry: Entry; time: number; raw: string }>()
  for (const entry of snapshot.statuses) {
    if (!isLive(entry, nowMs)) continue
    until(parseIso(entry.expires) ?? 0)
    const time = timeOf(entry)
    const current = statuses.get(entry.source)
    if (current === undefined || time > current.time) {
      const raw = parseIso(entry.updated) === undefined ? entry.created : (entry.updated as string)
      statuses.set(entry.source, { entry, time, raw })
    }
  }

  // Live alerts per source, in snapshot order.
  const alertsBySource = new Map<string, Array<Alert>>()
  for (const entry of snapshot.alerts) {
    if (!isLive(entry, nowMs)) continue
    until(parseIso(entry.expires) ?? 0)
    const alert = toAlert(entry)
    let flapCount = 0
    for (const change of alert.changes) {
      if (change > nowMs - flapWindow && change <= nowMs) {
        flapCount++
        until(change + flapWindow)
      }
    }
    alert.flapping = flapCount >= flapThreshold
    if (alert.resolved && flapCount < flapThreshold) continue
    const list = alertsBySource.get(alert.source)
    if (list === undefined) alertsBySource.set(alert.source, [alert])
    else list.push(alert)
  }

  // Suppressions: active ones decide, recently expired ones mark re-surfacing.
  const active: Array<Suppression> = []
  const expired: Array<Suppression> = []
  let activeSuppressions = 0
  for (const entry of snapshot.suppressions) {
    if (entry.deleted !== null && entry.deleted !== undefined) continue
    const suppression = toSuppression(entry)
    if (suppression === undefined) continue
    if (suppression.expires !== undefined && suppression.expires <= nowMs) {
      if (suppression.expires > nowMs - resurfaceWindow) {
        expired.push(suppression)
        until(suppression.expires + resurfaceWindow)
      }
      continue
    }
    if (suppression.expires !== undefined) until(suppression.expires)
    activeSuppressions++
    if (suppression.windows !== undefined) {
      timeDependent = true
      if (!inWindows(suppression.windows, zone)) continue
    }
    active.push(suppression)
  }
  const activeBySource = groupBy(active, (s) => s.source)
  const expiredBySource = groupBy(expired, (s) => s.source)
  const globalActive = activeBySource.get("") ?? []
  const globalExpired = expiredBySource.get("") ?? []
  const mayMatchGlobal = globalPrefilter(globalActive)

  const patternsBySource = new Map<string, Array<Pattern>>()
  for (const entry of snapshot.patterns) {
    if (!isLive(entry, nowMs)) continue
    until(parseIso(entry.expires) ?? 0)
    const pattern = toPattern(entry)
    if (pattern.timed) timeDependent = true
    if (!patternApplies(pattern, zone)) continue
    const list = patternsBySource.get(pattern.source)
    if (list === undefined) patternsBySource.set(pattern.source, [pattern])
    else list.push(pattern)
  }
  const globalPatterns = patternsBySource.get("") ?? []
  const wordsOfText = memoizedWords()

  const evaluation = emptyEvaluation()
  const sourceNames = [...new Set([...statuses.keys(), ...alertsBySource.keys()])].sort()

  // Pass 1: staleness, suppression and patterns.
  const staleLines = new Map<string, Line>()
  const candidates = new Map<string, Array<Alert>>()
  for (const source of sourceNames) {
    const status = statuses.get(source)
    if (status !== undefined) {
      const ttl = Number(dataOf(status.entry).ttl_sec ?? 120)
      const ttlMs = (Number.isFinite(ttl) ? ttl : 120) * 1000
      const age = nowMs - status.time
      if (age > ttlMs) {
        evaluation.stale_sources++
        staleLines.set(source, {
          source,
          status: "stale",
          lastReport: status.raw,
          headline: `${source} has not reported in ${Math.floor(age / 1000)}s`,
          drillDown: `awareness://status/${source}`,
          alertCount: 0,
          groupKey: undefined,
          resurfaced: false,
          flapping: false,
          escalated: false
        })
        continue
      }
      until(status.time + ttlMs + 1)
    }
    const alerts = alertsBySource.get(source) ?? []
    const sourceSuppressions = source === "" ? [] : (activeBySource.get(source) ?? [])
    const suppressions = sourceSuppressions.length === 0 ? globalActive : [...sourceSuppressions, ...globalActive]
    const sourcePatterns = source === "" ? [] : (patternsBySource.get(source) ?? [])
    const patterns = sourcePatterns.length === 0 ? globalPatterns : [...sourcePatterns, ...globalPatterns]
    const kept: Array<Alert> = []
    for (const alert of alerts) {
      evaluation.alerts_checked++
      const candidatesFor = mayMatchGlobal !== undefined && !mayMatchGlobal(alert) ? sourceSuppressions : suppressions
      if (candidatesFor.length > 0 && suppressedBy(alert, candidatesFor, nowMs, undefined) !== undefined) {
        evaluation.suppressed++
        continue
      }
      if (patterns.length > 0 && patterns.some((pattern) => patternSelects(pattern, alert, wordsOfText))) {
        evaluation.pattern_matched++
        continue
      }
      kept.push(alert)
    }
    candidates.set(source, kept)
  }

  // Pass 2: inhibition across all surviving alerts.
  const inhibited = new Set<Alert>()
  for (const rule of inhibitRules) {
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

  // Pass 3: acknowledgement, escalation, re-surfacing; build lines.
  const lines: Array<Line> = []
  let activeAlerts = 0
  for (const source of sourceNames) {
    const staleLine = staleLines.get(source)
    if (staleLine !== undefined) {
      lines.push(staleLine)
      continue
    }
    const status = statuses.get(source)
    // What surfaces is only counted. The headline is the most severe alert; ties go to the most recently updated,
    // then to the first in the snapshot.
    let surfaced = 0
    let top: { alert: Alert; rank: number; escalated: boolean } | undefined
    for (const alert of candidates.get(source) ?? []) {
      if (inhibited.size > 0 && inhibited.has(alert)) {
        evaluation.inhibited++
        continue
      }
      if (alert.acknowledgedAt !== undefined && alert.acknowledgedAt >= alert.firingSince) {
        if (nowMs - alert.acknowledgedAt < ackTimeout) {
          evaluation.acknowledged++
          until(alert.acknowledgedAt + ackTimeout)
          continue
        }
      }
      let rank = alert.rank
      let escalated = false
      if (escalationTimeout !== undefined && alert.rank === 1) {
        if (nowMs - alert.firingSince > escalationTimeout) {
          rank = 2
          escalated = true
          evaluation.escalated++
        } else {
          until(alert.firingSince + escalationTimeout + 1)
        }
      }
      if (alert.flapping) evaluation.flapping++
      surfaced++
      if (top === undefined || rank > top.rank || (rank === top.rank && alert.time > top.alert.time)) {
        top = { alert, rank, escalated }
      }
    }
    evaluation.surfaced += surfaced
    activeAlerts += surfaced
    const lastReport = status === undefined ? null : status.raw
    if (top === undefined) {
      const headline = status === undefined ? undefined : str(dataOf(status.entry).headline)
      lines.push({
        source,
        status: headline === undefined ? "ok" : "info",
        lastReport,
        headline,
        drillDown: headline === undefined ? undefined : `awareness://status/${source}`,
        alertCount: 0,
        groupKey: undefined,
        resurfaced: false,
        flapping: false,
        escalated: false
      })
      continue
    }
    const resurfaced = isResurfaced(top.alert, expiredBySource.get(source) ?? [], globalExpired, nowMs)
    if (resurfaced) evaluation.resurfaced++
    lines.push({
      source,
      status: top.rank >= 2 ? "critical" : top.rank === 1 ? "warning" : "info",
      lastReport,
      headline: top.alert.message,
      drillDown: `awareness://alerts/${source}`,
      alertCount: surfaced,
      groupKey: `${top.rank}\u0000${top.alert.alertId}`,
      resurfaced,
      flapping: top.alert.flapping,
      escalated: top.escalated
    })
  }

  // Intentions.
  const due: Array<{ entry: Entry; at: number; urgency: number }> = []
  const upcoming: Array<{ item: UpcomingItem; at: number }> = []
  let pending = 0
  for (const entry of snapshot.intentions) {
    if (!isLive(entry, nowMs)) continue
    const data = dataOf(entry)
    const state = data.state ?? "pending"
    if (state === "pending") pending++
    if (state !== "pending" && state !== "snoozed") continue
    const at = parseIso(data.deliver_at)
    if (at === undefined) continue
    if (at <= nowMs) {
      due.push({ entry, at, urgency: data.urgency === "high" ? 0 : data.urgency === "low" ? 2 : 1 })
    } else {
      until(at)
      if (at <= nowMs + horizon) {
        upcoming.push({ item: { source: entry.source, summary: str(data.goal) ?? str(data.description) ?? "" }, at })
      } else {
        until(at - horizon)
      }
    }
  }
  due.sort((a, b) => a.urgency - b.urgency || a.at - b.at)
  upcoming.sort((a, b) => a.at - b.at)
  if (timeDependent) until(Math.floor(nowMs / minute) * minute + minute)

  const model: Model = {
    now: toIso(nowMs),
    stalenessSec: options.staleness_sec ?? 0,
    lines,
    activeAlerts,
    activeSuppressions,
    evaluation,
    due,
    pending,
    upcoming: upcoming.map((u) => u.item)
  }
  const attention = lines.some((line) => line.status !== "ok") || upcoming.length > 0 || due.length > 0
  const budget = attention ? (options.budget?.issues ?? 500) : (options.budget?.all_clear ?? 200)
  const rendered = fit(model, attention, budget, countTokens)
  return {
    ...rendered,
    valid_until: Number.isFinite(validUntil) ? toIso(validUntil) : null
  }
}

const isResurfaced = (
  alert: Alert,
  sourceExpired: ReadonlyArray<Suppression>,
  globalExpired: ReadonlyArray<Suppression>,
  now: number
): boolean => {
  for (const list of [sourceExpired, globalExpired]) {
    for (const suppression of list) {
      const expires = suppression.expires ?? 0
      if (expires <= now && expires > alert.firingSince && selects(suppression, alert)) {
        if (suppression.escalationOverride && alert.rank > suppression.levelRank) continue
        return true
      }
    }
  }
  return false
}

interface Model {
  readonly now: string
  readonly stalenessSec: number
  readonly lines: ReadonlyArray<Line>
  readonly activeAlerts: number
  readonly activeSuppressions: number
  readonly evaluation: Required<Evaluation>
  readonly due: ReadonlyArray<{ readonly entry: Entry }>
  readonly pending: number
  readonly upcoming: ReadonlyArray<UpcomingItem>
}

const cut = (text: string, max: number | undefined): string => (max === undefined ? text : truncate(text, max))

const toSourceLine = (line: Line, textChars: number | undefined): SourceLine => {
  const out: { -readonly [K in keyof SourceLine]: SourceLine[K] } = {
    status: line.status,
    last_report: line.lastReport
  }
  if (line.headline !== undefined) out.headline = cut(line.headline, textChars)
  if (line.drillDown !== undefined) out.drill_down = line.drillDown
  if (line.alertCount > 1) out.alerts = line.alertCount
  if (line.resurfaced) out.resurfaced = true
  if (line.flapping) out.flapping = true
  if (line.escalated) out.escalated = true
  return out
}

type Item = { readonly lines: ReadonlyArray<Line>; readonly status: SourceLine["status"]; readonly weight: number }

interface Prepared {
  /** Groups of sources with the same problem (folded) and single lines, most severe first. */
  readonly items: ReadonlyArray<Item>
  /** Every problem line on its own, most severe first. */
  readonly lineItems: ReadonlyArray<Item>
  /** The groups with more than one source. */
  readonly multi: ReadonlyArray<Item>
  readonly okLines: ReadonlyArray<Line>
  readonly names: Readonly<Record<"critical" | "warning" | "info" | "stale", ReadonlyArray<string>>>
}

const byStatusThenWeight = (a: Item, b: Item) => statusOrder[a.status] - statusOrder[b.status] || b.weight - a.weight

/** Ranks what needs attention once: groups of sources with the same problem and single lines, most severe first. */
const prepare = (model: Model): Prepared => {
  const problems = model.lines.filter((line) => line.status !== "ok")
  const byKey = groupBy(problems, (line) => line.groupKey ?? `\u0001${line.source}`)
  const items: Array<Item> = []
  const multi: Array<Item> = []
  for (const lines of byKey.values()) {
    const first = lines[0] as Line
    const item = { lines, status: first.status, weight: lines.length > 1 ? lines.length : first.alertCount }
    items.push(item)
    if (lines.length > 1) multi.push(item)
  }
  items.sort(byStatusThenWeight)
  multi.sort(byStatusThenWeight)
  const lineItems =
    multi.length === 0
      ? items
      : problems
          .map((line) => ({ lines: [line], status: line.status, weight: line.alertCount }))
          .sort(byStatusThenWeight)
  const names = {
    critical: [] as Array<string>,
    warning: [] as Array<string>,
    info: [] as Array<string>,
    stale: [] as Array<string>
  }
  for (const line of problems) names[line.status as keyof typeof names].push(line.source)
  return { items, lineItems, multi, okLines: model.lines.filter((line) => line.status === "ok"), names }
}

const render = (
  model: Model,
  prepared: Prepared,
  attention: boolean,
  limits: Limits
): { briefing: Briefing; fired: Array<Entry> } => {
  const all = limits.fold ? prepared.items : prepared.lineItems
  const shownItems = all.slice(0, limits.detailed)
  const omittedCounts: Record<string, number> = {}
  for (let i = limits.detailed; i < all.length; i++) {
    const item = all[i] as Item
    omittedCounts[item.status] = (omittedCounts[item.status] ?? 0) + item.lines.length
  }
  const groups: Array<SourceGroup> = []
  const singles: Array<Line> = []
  const toGroup = (item: Item, maxNames: number | undefined): SourceGroup => {
    const first = item.lines[0] as Line
    return {
      status: first.status,
      headline: cut(first.headline ?? "", limits.textChars),
      sources: item.lines.slice(0, maxNames ?? item.lines.length).map((line) => line.source),
      count: item.lines.length,
      drill_down: "awareness://alerts"
    }
  }
  for (const item of shownItems) {
    if (item.lines.length === 1) singles.push(item.lines[0] as Line)
    else groups.push(toGroup(item, limits.maxNames))
  }
  // Unfolded, every source keeps its own line and the groups are added on top (the caller shows every line then).
  if (!limits.fold) for (const item of prepared.multi) groups.push(toGroup(item, undefined))
  const sources: Record<string, SourceLine> = {}
  if (limits.listOk && limits.detailed >= all.length) {
    // Everything fits: upstream's order (by source name).
    const single = new Set(singles)
    for (const line of model.lines) {
      if (line.status === "ok" || single.has(line)) sources[line.source] = toSourceLine(line, limits.textChars)
    }
  } else {
    for (const line of singles) sources[line.source] = toSourceLine(line, limits.textChars)
    if (limits.listOk) for (const line of prepared.okLines) sources[line.source] = toSourceLine(line, limits.textChars)
  }

  const fired = model.due.slice(0, limits.maxIntentions).map((d) => d.entry)
  const firedIntentions: Array<FiredIntention> = fired.map((entry) => {
    const data = dataOf(entry)
    return {
      id: entry.id,
      goal: cut(str(data.goal) ?? str(data.description) ?? "", limits.textChars),
      source: entry.source,
      tags: [...tagsOf(entry)]
    }
  })
  const upcoming = model.upcoming
    .slice(0, limits.maxUpcoming)
    .map((item) => ({ source: item.source, summary: cut(item.summary, limits.textChars) }))
  const firedPending = fired.filter((entry) => (dataOf(entry).state ?? "pending") === "pending").length
  const pendingIntentions = model.pending - firedPending
  const counters = model.evaluation
  const evaluation: { -readonly [K in keyof Evaluation]: Evaluation[K] } = {
    alerts_checked: counters.alerts_checked,
    suppressed: counters.suppressed,
    pattern_matched: counters.pattern_matched,
    stale_sources: counters.stale_sources,
    surfaced: counters.surfaced,
    intentions_pending: pendingIntentions,
    intentions_fired: fired.length
  }
  for (const key of ["inhibited", "acknowledged", "flapping", "escalated", "resurfaced"] as const) {
    const value = counters[key] ?? 0
    if (value > 0) evaluation[key] = value
  }
  const fullSummary = composeSummary(
    {
      attention_needed: attention,
      source_count: model.lines.length,
      critical: prepared.names.critical,
      warning: prepared.names.warning,
      info: prepared.names.info,
      stale: prepared.names.stale,
      upcoming: model.upcoming.length,
      intentions: fired.length
    },
    limits.maxNames
  )
  const summary = cut(fullSummary, limits.summaryChars)
  const briefing: { -readonly [K in keyof Briefing]: Briefing[K] } = {
    generated: model.now,
    staleness_sec: model.stalenessSec,
    summary,
    sources,
    active_alerts: model.activeAlerts,
    active_suppressions: model.activeSuppressions,
    upcoming,
    attention_needed: attention,
    pending_intentions: pendingIntentions,
    evaluation
  }
  if (groups.length > 0) briefing.groups = groups
  if (!limits.listOk && prepared.okLines.length > 0) briefing.ok_sources = prepared.okLines.length
  if (firedIntentions.length > 0) briefing.fired_intentions = firedIntentions
  const omittedUpcoming = model.upcoming.length - upcoming.length
  if (Object.keys(omittedCounts).length > 0 || omittedUpcoming > 0) {
    briefing.omitted = {
      sources: omittedCounts,
      ...(omittedUpcoming > 0 ? { upcoming: omittedUpcoming } : {}),
      drill_down: "awareness://alerts"
    }
  }
  if (attention) {
    const mention = composeMention({ sources, groups, upcoming, fired_intentions: firedIntentions })
    const hidden = Object.values(omittedCounts).reduce((a, b) => a + b, 0)
    const tail = hidden > 0 ? `${hidden} more source${hidden === 1 ? "" : "s"} need attention.` : ""
    const full = [mention, tail].filter((part) => part !== "").join(" ") || summary
    briefing.suggested_mention = limits.summaryChars === undefined ? full : truncate(full, limits.summaryChars * 2)
  }
  return { briefing, fired }
}

const fit = (
  model: Model,
  attention: boolean,
  budget: number,
  countTokens: (text: string) => number
): { briefing: Briefing; fired: Array<Entry>; tokens: number } => {
  // Budgets are exclusive: a briefing stays under its budget (at most budget - 1 tokens).
  const limit = budget - 1
  const prepared = prepare(model)
  const items = prepared.items.length
  const lineCount = prepared.lineItems.length
  const okCount = prepared.okLines.length
  const measure = (limits: Limits) => {
    const out = render(model, prepared, attention, limits)
    const json = toCompactJson(out.briefing)
    // Cheap rejection first: o200k never packs 16 characters of this JSON into one token in practice.
    const tokens = json.length > budget * 16 ? Number.POSITIVE_INFINITY : countTokens(json)
    return { ...out, tokens }
  }
  // Every source line or group costs well over 5 tokens, so more than budget / 5 of them cannot fit.
  const maxLines = Math.floor(budget / 5)
  if (lineCount + okCount <= maxLines) {
    const full = measure({
      detailed: lineCount,
      textChars: undefined,
      maxNames: undefined,
      maxIntentions: model.due.length,
      maxUpcoming: model.upcoming.length,
      listOk: true,
      summaryChars: undefined,
      fold: false
    })
    if (full.tokens <= limit) return full
  }
  type Step = Omit<Limits, "detailed" | "fold">
  const steps: ReadonlyArray<Step> = [
    { textChars: 200, maxNames: 5, maxIntentions: 10, maxUpcoming: 10, listOk: true, summaryChars: 400 },
    { textChars: 120, maxNames: 3, maxIntentions: 5, maxUpcoming: 5, listOk: false, summaryChars: 300 },
    { textChars: 80, maxNames: 3, maxIntentions: 3, maxUpcoming: 3, listOk: false, summaryChars: 200 },
    { textChars: 50, maxNames: 2, maxIntentions: 1, maxUpcoming: 1, listOk: false, summaryChars: 150 }
  ]
  type Found = { readonly result: ReturnType<typeof measure>; readonly k: number }
  /** The most detailed (folded) items that fit with the step's limits, or `undefined` if even none fit. */
  const search = (step: Step): Found | undefined => {
    const at = (detailed: number) => measure({ ...step, detailed, fold: true })
    let best = at(0)
    if (best.tokens > limit) return undefined
    const hi = Math.min(items, maxLines)
    if (hi === 0) return { result: best, k: 0 }
    const top = at(hi)
    if (top.tokens <= limit) return { result: top, k: hi }
    // Interpolate from the two ends, then walk to the largest count that fits.
    const perItem = Math.max(1, (Math.min(top.tokens, budget * 16) - best.tokens) / hi)
    let k = Math.min(hi - 1, Math.max(1, Math.floor((limit - best.tokens) / perItem)))
    let trial = at(k)
    while (trial.tokens > limit && k > 1) {
      k = Math.max(1, k - Math.max(1, Math.ceil((trial.tokens - limit) / perItem)))
      trial = at(k)
    }
    if (trial.tokens > limit) return { result: best, k: 0 }
    best = trial
    for (let up = 0; up < 3 && k + 1 < hi; up++) {
      const next = at(k + 1)
      if (next.tokens > limit) break
      best = next
      k++
    }
    return { result: best, k }
  }
  // Critical sources win space before intentions: the most severe items come first, so detailing fewer than the
  // critical items means intentions took their space.
  let criticalItems = 0
  for (const item of prepared.items) if (item.status === "critical") criticalItems++
  for (const step of steps) {
    if (step.listOk && okCount > maxLines) continue
    // Each source keeps its own line, with the groups on top, whenever all of them fit; folding is the fallback.
    if (prepared.multi.length > 0 && lineCount + (step.listOk ? okCount : 0) <= maxLines) {
      const unfolded = measure({ ...step, detailed: lineCount, fold: false })
      if (unfolded.tokens <= limit) return unfolded
    }
    const found = search(step)
    if (found === undefined) continue
    const intentions = Math.min(step.maxIntentions, model.due.length)
    if (found.k < criticalItems && intentions > 0) {
      // Trim intentions (they stay pending) until the critical items that fit without any are detailed.
      const without = search({ ...step, maxIntentions: 0 })
      if (without !== undefined && without.k > found.k) {
        // Even without intentions the critical items overflow: they get all the space.
        if (without.k < criticalItems) return without.result
        // Otherwise keep the most intentions that leave every critical item detailed (fewer intentions never
        // detail fewer items, so a binary search finds it).
        let best = without
        let low = 1
        let high = intentions - 1
        while (low <= high) {
          const m = (low + high) >> 1
          const trial = search({ ...step, maxIntentions: m })
          if (trial !== undefined && trial.k >= criticalItems) {
            best = trial
            low = m + 1
          } else {
            high = m - 1
          }
        }
        return best.result
      }
    }
    return found.result
  }
  // Last resort: counts only.
  return measure({
    detailed: 0,
    textChars: 40,
    maxNames: 1,
    maxIntentions: 0,
    maxUpcoming: 0,
    listOk: false,
    summaryChars: 100,
    fold: true
  })
}
