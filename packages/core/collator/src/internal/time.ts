/**
 * Time helpers: ISO parsing (naive timestamps are UTC) and wall-clock parts in an IANA time zone.
 *
 * @since 0.1.0
 */

const naive = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/

/**
 * Milliseconds since the epoch, or `undefined` for anything that is not a parseable ISO 8601 string naming a real
 * date and time. Timestamps without a zone are UTC. Impossible calendar fields are rejected rather than rolled over
 * as the runtime does (`2027-02-30` is not 2027-03-02, `T25:00` is not the next day).
 */
export const parseIso = (value: unknown): number | undefined => {
  if (typeof value !== "string" || value.length === 0) return undefined
  const canonical = parseCanonicalUtc(value)
  if (canonical !== undefined) return canonical
  if (!calendarFieldsValid(value)) return undefined
  // Everything else goes to the runtime; naive timestamps (no zone) are UTC.
  const ms = Date.parse(value.charCodeAt(value.length - 1) !== 90 && naive.test(value) ? `${value}Z` : value)
  return Number.isNaN(ms) ? undefined : ms
}

const leadingFields = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2}))?)?/

/**
 * Whether a string that starts like an ISO date has a month, day, hour, minute and second that exist (`24:00:00`,
 * the end of a day, is allowed as ISO 8601 does). Strings of other shapes are left to the runtime's parser.
 */
const calendarFieldsValid = (text: string): boolean => {
  const match = leadingFields.exec(text)
  if (match === null) return true
  const year = Number(match[1])
  const month = Number(match[2])
  const day = Number(match[3])
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return false
  if (match[4] === undefined) return true
  const hour = Number(match[4])
  const minute = Number(match[5])
  const second = match[6] === undefined ? 0 : Number(match[6])
  if (hour === 24) return minute === 0 && second === 0
  return hour <= 23 && minute <= 59 && second <= 59
}

/** The decimal value of `count` ASCII digits of `text` from `at`, or -1 if one of them is not a digit. */
const digits = (text: string, at: number, count: number): number => {
  let value = 0
  for (let i = at; i < at + count; i++) {
    const digit = text.charCodeAt(i) - 48
    if (digit < 0 || digit > 9) return -1
    value = value * 10 + digit
  }
  return value
}

const daysInMonth = (year: number, month: number): number =>
  month === 2
    ? year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
      ? 29
      : 28
    : month === 4 || month === 6 || month === 9 || month === 11
      ? 30
      : 31

/**
 * Parses the canonical UTC shapes that `toIso` and `Date#toISOString` write (`2026-03-19T15:00:00Z`,
 * `2026-03-19T15:00:00.250Z`) without the runtime's general date parser, which took a large share of the collator's
 * time on large snapshots. Returns `undefined` for anything else (other shapes, out-of-range fields, years before 100),
 * which {@link parseIso} then hands to `Date.parse`; for the strings it accepts the result equals `Date.parse`'s.
 */
const parseCanonicalUtc = (text: string): number | undefined => {
  const length = text.length
  if (length !== 20 && length !== 24) return undefined
  if (
    text.charCodeAt(4) !== 45 || // -
    text.charCodeAt(7) !== 45 ||
    text.charCodeAt(10) !== 84 || // T
    text.charCodeAt(13) !== 58 || // :
    text.charCodeAt(16) !== 58 ||
    text.charCodeAt(length - 1) !== 90 // Z
  ) {
    return undefined
  }
  let millis = 0
  if (length === 24) {
    if (text.charCodeAt(19) !== 46) return undefined // .
    millis = digits(text, 20, 3)
    if (millis < 0) return undefined
  }
  const year = digits(text, 0, 4)
  const month = digits(text, 5, 2)
  const day = digits(text, 8, 2)
  const hour = digits(text, 11, 2)
  const minute = digits(text, 14, 2)
  const second = digits(text, 17, 2)
  if (year < 100 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return undefined
  return Date.UTC(year, month - 1, day, hour, minute, second, millis)
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

/** The wall-clock parts of one instant in a zone (`undefined`: the default zone), computed once per zone. */
export type ZoneCache = (timeZone: string | undefined) => { weekday: string; hour: number; minute: number } | undefined

export const makeZoneCache = (now: number, defaultZone: string): ZoneCache => {
  const cache = new Map<string, ReturnType<ZoneCache>>()
  return (timeZone) => {
    const zoneName = timeZone ?? defaultZone
    if (!cache.has(zoneName)) cache.set(zoneName, zonedParts(now, zoneName))
    return cache.get(zoneName)
  }
}
