/**
 * Time helpers: ISO parsing (naive timestamps are UTC) and wall-clock parts in an IANA time zone.
 *
 * @since 0.1.0
 */

const naive = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/

/** Milliseconds since the epoch, or `undefined` for anything that is not a parseable ISO 8601 string. */
export const parseIso = (value: unknown): number | undefined => {
  if (typeof value !== "string" || value.length === 0) return undefined
  // Fast path: most timestamps end in "Z" (or carry an offset) and need no naive-UTC fix-up.
  const ms = Date.parse(value.charCodeAt(value.length - 1) !== 90 && naive.test(value) ? `${value}Z` : value)
  return Number.isNaN(ms) ? undefined : ms
}

/** ISO 8601 in UTC, with milliseconds only when they are not zero (`2026-03-19T15:00:00Z`). */
export const toIso = (ms: number): string => {
  const iso = new Date(ms).toISOString()
  return iso.endsWith(".000Z") ? `${iso.slice(0, -5)}Z` : iso
}

/** The week days, Sunday first, as `Date#getUTCDay` numbers them. */
export const weekdays = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"] as const

const formatters = new Map<string, Intl.DateTimeFormat | null>()

const formatter = (timeZone: string): Intl.DateTimeFormat | null => {
  let cached = formatters.get(timeZone)
  if (cached === undefined) {
    try {
      cached = new Intl.DateTimeFormat("en-US", {
        timeZone,
        weekday: "long",
        hour: "2-digit",
        minute: "2-digit",
        hourCycle: "h23"
      })
    } catch {
      cached = null
    }
    formatters.set(timeZone, cached)
  }
  return cached
}

/** Whether `timeZone` is an IANA zone name this runtime knows. */
export const isTimeZone = (timeZone: string): boolean => formatter(timeZone) !== null

/** The wall-clock parts of an instant. */
export interface ZonedParts {
  readonly weekday: string
  readonly hour: number
  readonly minute: number
}

/** The week day (lower-case full name), hour and minute of `ms` in `timeZone`; `undefined` for an unknown zone. */
export const zonedParts = (ms: number, timeZone: string): ZonedParts | undefined => {
  if (timeZone === "UTC") {
    const date = new Date(ms)
    return { weekday: weekdays[date.getUTCDay()] ?? "sunday", hour: date.getUTCHours(), minute: date.getUTCMinutes() }
  }
  const format = formatter(timeZone)
  if (format === null) return undefined
  let weekday = "sunday"
  let hour = 0
  let minute = 0
  for (const part of format.formatToParts(ms)) {
    if (part.type === "weekday") weekday = part.value.toLowerCase()
    else if (part.type === "hour") hour = Number(part.value) % 24
    else if (part.type === "minute") minute = Number(part.value)
  }
  return { weekday, hour, minute }
}
