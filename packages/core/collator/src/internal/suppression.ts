/**
 * Suppressions read once for matching: source, metric and tag matchers, recurring windows (`time_intervals`),
 * escalation through `escalation_override`, the global pre-check, and re-surfacing when a suppression expires.
 *
 * @since 0.1.0
 */
import type { Entry } from "../Entry.ts"
import { type Alert, textIncludes } from "./alert.ts"
import { type Data, dataOf, str, tagsOf } from "./data.ts"
import { isTimeZone, parseIso, weekdays, type ZoneCache } from "./time.ts"

/** @internal */
export interface Suppression {
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

export interface Window {
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

/** Checks a suppression's `time_intervals`; returns an error message, or `undefined` when they are valid. */
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

export const toSuppression = (entry: Entry): Suppression | undefined => {
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

/** Whether a suppression's matchers (source, metric, tags) select the alert, ignoring time. */
export const selects = (suppression: Suppression, alert: Alert): boolean => {
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
export const globalPrefilter = (globals: ReadonlyArray<Suppression>): ((alert: Alert) => boolean) | undefined => {
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

export const inWindows = (windows: ReadonlyArray<Window>, zone: ZoneCache): boolean => {
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

export const isActiveSuppression = (suppression: Suppression, now: number, zone: ZoneCache): boolean =>
  (suppression.expires === undefined || suppression.expires > now) &&
  (suppression.windows === undefined || inWindows(suppression.windows, zone))

export const suppressedBy = (
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

/** Whether an expired suppression (the source's own, then the global ones) muted the alert since it began firing. */
export const isResurfaced = (
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
