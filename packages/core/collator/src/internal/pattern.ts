/**
 * Patterns read once for matching: condition validation, time conditions in a zone, structural matchers and the
 * effect text.
 *
 * @since 0.1.0
 */
import type { Entry } from "../Entry.ts"
import type { ConditionProblem } from "../Pattern.ts"
import { type Alert, containsAll, hasAllWords } from "./alert.ts"
import { type Data, dataOf, str } from "./data.ts"
import { didYouMean, globToRegExp, words } from "./text.ts"
import { isTimeZone, weekdays, type ZoneCache } from "./time.ts"

/** The condition keys a pattern may use (documented on `Pattern.conditionKeys`). */
export const conditionKeys = ["day_of_week", "hour_range", "timezone", "alert_id", "metric", "tags", "level"] as const

const isDay = (value: unknown): boolean =>
  typeof value === "string" && (weekdays as ReadonlyArray<string>).includes(value.toLowerCase())

/** Validates a pattern's `conditions` (documented on `Pattern.validateConditions`). */
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

export interface Pattern {
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

export const toPattern = (entry: Entry): Pattern => {
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

/** Whether the pattern is valid and its time conditions hold at the zone cache's instant. */
export const patternApplies = (pattern: Pattern, zone: ZoneCache): boolean => {
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

export const patternMatches = (pattern: Pattern, alert: Alert, zone: ZoneCache): boolean =>
  patternApplies(pattern, zone) && patternSelects(pattern, alert, words)

/** {@link words} remembering its answers, for one `generate` call: alert ids and metrics repeat across sources. */
export const memoizedWords = (): ((text: string) => ReadonlyArray<string>) => {
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
export const patternSelects = (
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
