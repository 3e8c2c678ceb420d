/**
 * An alert entry read once into the fields the collator's predicates need, with its lower-cased text and word set
 * computed on first use (suppression tags and pattern effects search them).
 *
 * @since 0.1.0
 */
import type { Entry } from "../Entry.ts"
import { severityRank } from "../Entry.ts"
import { type Data, dataOf, isLive, setOwn, str, tagsOf } from "./data.ts"
import { checkInput } from "./input.ts"
import { words } from "./text.ts"
import { makeZoneCache, parseIso, type ZoneCache } from "./time.ts"

export interface Alert {
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

export interface LowerText {
  readonly alertId: string
  readonly message: string
  readonly metric: string
  readonly alertType: string
}

const noLabels: Record<string, string> = {}
const noChanges: Array<number> = []

/** An alert entry's source; a malformed one counts as the global source `""`. */
export const sourceOf = (entry: Entry): string => (typeof entry.source === "string" ? entry.source : "")

export const toAlert = (entry: Entry): Alert => {
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
    for (const [key, value] of Object.entries(data.labels as Data))
      if (typeof value === "string") setOwn(labels, key, value)
  }
  const created = parseIso(entry.created) ?? 0
  const updated = parseIso(entry.updated)
  const level = str(data.level) ?? "warning"
  return {
    entry,
    source: sourceOf(entry),
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

export const lowerOf = (alert: Alert): LowerText => {
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
export const textIncludes = (alert: Alert, tag: string): boolean => {
  if (tag.includes("\u0000")) {
    return `${alert.alertId}\u0000${alert.message}\u0000${alert.metric ?? ""}`.toLowerCase().includes(tag)
  }
  const lower = lowerOf(alert)
  return lower.alertId.includes(tag) || lower.message.includes(tag) || lower.metric.includes(tag)
}

export const wordsOf = (alert: Alert): ReadonlySet<string> => {
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

export const containsAll = (set: ReadonlySet<string>, list: ReadonlyArray<string>): boolean => {
  if (list.length === 0) return false
  for (const word of list) if (!set.has(word)) return false
  return true
}

/** Whether every word of `list` is a word of the alert's id, type, metric or message. */
export const hasAllWords = (alert: Alert, list: ReadonlyArray<string>): boolean => {
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

/** The value of an inhibition label: `source`, `alert_id`, `alert_type`, `metric` or one of the alert's `labels`. */
export const labelOf = (alert: Alert, label: string): string | undefined => {
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

/**
 * Builds a one-alert check of the public API (`matchesPattern`, `isSuppressed`): "does what the live `entries` say
 * apply to `alert` at `now`". It validates `now` and `options.timezone` (throwing `CollatorInputError`), skips
 * entries that expired or were deleted, reads the rest with `read` (dropping those it cannot read) and leaves the
 * verdict to `applies`, with `now` in milliseconds and the time-zone cache (default zone UTC).
 */
export const liveCheck =
  <A>(
    read: (entry: Entry) => A | undefined,
    applies: (alert: Alert, read: ReadonlyArray<A>, now: number, zone: ZoneCache) => boolean
  ) =>
  (alert: Entry, entries: ReadonlyArray<Entry>, now: Date, options: { readonly timezone?: string } = {}): boolean => {
    const nowMs = checkInput(now, options.timezone)
    const list: Array<A> = []
    for (const entry of entries) {
      if (!isLive(entry, nowMs)) continue
      const value = read(entry)
      if (value !== undefined) list.push(value)
    }
    return applies(toAlert(alert), list, nowMs, makeZoneCache(nowMs, options.timezone ?? "UTC"))
  }
