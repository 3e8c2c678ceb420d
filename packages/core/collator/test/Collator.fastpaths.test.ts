/**
 * Safety net for the collator's fast paths: each one is checked against a straightforward reference on random
 * inputs. The references are the plain definitions (the runtime's `Date.parse`, lower-casing the joined alert text,
 * building the alert's full word set) and, for `generate`'s indexing and pre-checks, the per-alert predicates
 * `isSuppressed` and `matchesPattern`, which walk the whole suppression and pattern lists for each alert.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { Collator, type Entry, Pattern, Suppression } from "../src/index.ts"
import { parseIso } from "../src/internal/time.ts"
import { alert, NOW, pattern, snapshot, status, suppression } from "./fixtures.ts"

const naive = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/

const daysIn = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate()

/**
 * The plain definition: the runtime's parser, with naive timestamps read as UTC, except that a date or time that
 * does not exist (February 30th, 23:60) is rejected instead of rolled over. Years before 100 are checked with the
 * proleptic calendar of year + 400 (the same leap rule).
 */
const referenceParse = (value: string): number | undefined => {
  if (value.length === 0) return undefined
  const fields = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2}))?)?/.exec(value)
  if (fields !== null) {
    const [year, month, day] = [Number(fields[1]), Number(fields[2]), Number(fields[3])]
    if (month < 1 || month > 12 || day < 1 || day > daysIn(year + 400, month)) return undefined
    if (fields[4] !== undefined) {
      const [hour, minute, second] = [Number(fields[4]), Number(fields[5]), Number(fields[6] ?? 0)]
      const endOfDay = hour === 24 && minute === 0 && second === 0
      if (!endOfDay && (hour > 23 || minute > 59 || second > 59)) return undefined
    }
  }
  const ms = Date.parse(naive.test(value) ? `${value}Z` : value)
  return Number.isNaN(ms) ? undefined : ms
}

const pad = (n: number, width: number) => String(n).padStart(width, "0")

describe("parseIso fast path", () => {
  // Canonical-looking strings whose fields range beyond the calendar (month 13, day 31 in February, hour 24, ...).
  const canonicalish = fc
    .record({
      year: fc.integer({ min: 0, max: 9999 }),
      month: fc.integer({ min: 0, max: 19 }),
      day: fc.integer({ min: 0, max: 39 }),
      hour: fc.integer({ min: 0, max: 29 }),
      minute: fc.integer({ min: 0, max: 69 }),
      second: fc.integer({ min: 0, max: 69 }),
      millis: fc.option(fc.integer({ min: 0, max: 999 }), { nil: undefined }),
      zone: fc.constantFrom("Z", "", "z", "+02:00")
    })
    .map(
      (t) =>
        `${pad(t.year, 4)}-${pad(t.month, 2)}-${pad(t.day, 2)}T${pad(t.hour, 2)}:${pad(t.minute, 2)}:${pad(t.second, 2)}` +
        `${t.millis === undefined ? "" : `.${pad(t.millis, 3)}`}${t.zone}`
    )

  it("equals Date.parse on canonical-looking timestamps, and rejects the ones naming no real date or time", () => {
    fc.assert(
      fc.property(canonicalish, (text) => {
        assert.strictEqual(parseIso(text), referenceParse(text))
      }),
      { numRuns: 2000 }
    )
  })

  it("equals Date.parse on real instants and on arbitrary strings", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc
            .date({ min: new Date("0100-01-01T00:00:00Z"), max: new Date("9999-12-31T23:59:59Z"), noInvalidDate: true })
            .map((date) => date.toISOString()),
          fc.string({ maxLength: 30 }),
          fc.constantFrom(
            "2024-02-29T00:00:00Z",
            "2026-02-29T00:00:00Z",
            "2026-03-20T24:00:00Z",
            "0050-06-01T00:00:00Z"
          )
        ),
        (text) => {
          assert.strictEqual(parseIso(text), referenceParse(text))
        }
      ),
      { numRuns: 2000 }
    )
  })
})

// Text that exercises case mapping: Greek final sigma, the Kelvin sign, dotted capital I, NUL separators.
const textArb = fc.oneof(
  fc.constantFrom(
    "Disk FULL on NAS",
    "cpu_high",
    "ΟΔΟΣ ΚΛΕΙΣΤΗ",
    "5 K over",
    "İstanbul link",
    "a\u0000b",
    "maint-7 window"
  ),
  fc.string({ maxLength: 16 }),
  fc.string({ unit: "grapheme", maxLength: 12 })
)
const tagArb = fc.oneof(
  fc.constantFrom("disk", "FULL", "σ", "ς", "k", "i̇", "\u0000", "a\u0000b", "maint-7", "high\u0000", "cpu_pct", ""),
  fc.string({ maxLength: 4 })
)
const alertTextArb = fc.record({
  id: textArb,
  message: textArb,
  metric: fc.option(textArb, { nil: undefined }),
  tags: fc.array(tagArb, { maxLength: 2 })
})
type AlertText = typeof alertTextArb extends fc.Arbitrary<infer T> ? T : never

const toAlert = (a: AlertText, source = "nas"): Entry.Entry =>
  alert(source, a.id, "warning", a.message, {
    tags: a.tags,
    data: a.metric === undefined ? {} : { metric: a.metric }
  })

/** The plain definition of a tag selecting an alert: an exact tag, or a substring of the joined, lower-cased text. */
const referenceTagHit = (a: AlertText, tag: string): boolean =>
  a.tags.includes(tag) || `${a.id}\u0000${a.message}\u0000${a.metric ?? ""}`.toLowerCase().includes(tag.toLowerCase())

describe("suppression tag matching fast path", () => {
  it("isSuppressed and generate select exactly the alerts the joined lower-cased text selects", () => {
    fc.assert(
      fc.property(
        fc.array(alertTextArb, { minLength: 1, maxLength: 8 }),
        fc.array(tagArb, { maxLength: 4 }),
        (as, tags) => {
          // One global suppression per tag, so generate's combined pre-check over all of them is exercised too.
          const suppressions = tags.map((tag) => suppression({ tags: [tag] }))
          const entries = as.map((a, i) => toAlert(a, `source-${i}`))
          let expected = 0
          for (const [i, a] of as.entries()) {
            const hit = tags.some((tag) => referenceTagHit(a, tag))
            if (hit) expected++
            assert.strictEqual(Suppression.isSuppressed(entries[i] as Entry.Entry, suppressions, NOW), hit)
          }
          const { briefing } = Collator.generate(snapshot({ alerts: entries, suppressions }), NOW)
          assert.strictEqual(briefing.evaluation.suppressed, expected)
        }
      ),
      { numRuns: 300 }
    )
  })
})

const splitWords = (text: string): Array<string> =>
  text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== "")
const stopWords = new Set(["suppress", "ignore", "skip", "the", "a", "an", "on", "in", "for", "and", "or", "is", "at"])

/** The documented effect-text rule, with the alert's full word set built every time. */
const referenceEffectHit = (a: AlertText, effect: string): boolean => {
  const effectWords = splitWords(effect)
  const significant = effectWords.filter((w) => !stopWords.has(w))
  if (significant.length === 0) return false
  const alertWords = new Set([
    ...splitWords(a.id),
    ...splitWords("threshold"),
    ...splitWords(a.metric ?? ""),
    ...splitWords(a.message)
  ])
  const named = (list: ReadonlyArray<string>) => list.length > 0 && list.every((w) => effectWords.includes(w))
  return significant.every((w) => alertWords.has(w)) || named(splitWords(a.id)) || named(splitWords(a.metric ?? ""))
}

describe("pattern effect-text fast path", () => {
  it("matchesPattern equals the rule evaluated on the full word set", () => {
    const effectArb = fc.oneof(
      fc.constantFrom("suppress disk full", "ignore cpu_high", "the K", "ΟΔΟΣ", "istanbul link", "threshold", "σ"),
      textArb
    )
    fc.assert(
      fc.property(alertTextArb, effectArb, (a, effect) => {
        assert.strictEqual(
          Pattern.matchesPattern(toAlert(a), [pattern({ effect })], NOW),
          referenceEffectHit(a, effect)
        )
      }),
      { numRuns: 2000 }
    )
  })
})

describe("generate's indexing equals the per-alert predicates", () => {
  const sources = ["", "nas", "ci", "db"]
  const tagPool = ["disk", "Disk", "cpu", "infra", "full on", "maint"]
  const messages = ["Disk full on NAS", "CPU at 97%", "backup late", "maintenance window", "link down"]
  const alertArb = fc.record({
    source: fc.constantFrom(...sources),
    id: fc.constantFrom("disk_full", "cpu_high", "backup_late", "link_down"),
    level: fc.constantFrom("info" as const, "warning" as const, "critical" as const),
    message: fc.constantFrom(...messages),
    metric: fc.option(fc.constantFrom("cpu_pct", "disk_pct"), { nil: undefined }),
    tags: fc.subarray(tagPool, { maxLength: 2 })
  })
  const suppressionArb = fc.record({
    source: fc.constantFrom(...sources),
    tags: fc.subarray(tagPool, { maxLength: 2 }),
    metric: fc.option(fc.constantFrom("cpu_pct", "disk_pct"), { nil: null }),
    level: fc.constantFrom("warning" as const, "critical" as const),
    override: fc.boolean(),
    expiresIn: fc.integer({ min: -600, max: 3600 }),
    window: fc.option(fc.constantFrom("friday", "sunday"), { nil: undefined })
  })
  const patternArb = fc.record({
    source: fc.constantFrom(...sources),
    effect: fc.constantFrom("suppress disk full", "ignore cpu_high", "backup", "", "link"),
    conditions: fc.constantFrom<Record<string, unknown>>(
      {},
      { day_of_week: "friday" },
      { day_of_week: "sunday" },
      { hour_range: [22, 6] },
      { alert_id: "disk_*" },
      { metric: "cpu_pct", level: "warning" },
      { tags: ["infra"] },
      { bogus: true }
    )
  })

  it("suppressed and pattern_matched count exactly the alerts isSuppressed and matchesPattern pick", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(alertArb, { maxLength: 16, selector: (a) => `${a.source}/${a.id}` }),
        fc.array(suppressionArb, { maxLength: 8 }),
        fc.array(patternArb, { maxLength: 5 }),
        fc.boolean(),
        fc.constantFrom("UTC", "Asia/Tokyo"),
        (rawAlerts, rawSuppressions, rawPatterns, withStatuses, timezone) => {
          const alerts = rawAlerts.map((a) =>
            alert(a.source, a.id, a.level, a.message, {
              tags: a.tags,
              data: a.metric === undefined ? {} : { metric: a.metric }
            })
          )
          const suppressions = rawSuppressions.map((s) =>
            suppression({
              source: s.source,
              tags: s.tags,
              metric: s.metric,
              level: s.level,
              override: s.override,
              expiresIn: s.expiresIn,
              data: s.window === undefined ? {} : { time_intervals: [{ weekdays: [s.window] }] }
            })
          )
          const patterns = rawPatterns.map((p) => pattern(p))
          // Fresh statuses for some sources, so both status-backed and alert-only sources are covered.
          const statuses = withStatuses ? sources.filter((s) => s !== "").map((s) => status(s, { ttl: 600 })) : []
          const options = { timezone }
          const { briefing } = Collator.generate(snapshot({ statuses, alerts, suppressions, patterns }), NOW, options)
          // Upstream's order: the source's own entries first, then the global ones.
          const forSource = <A extends Entry.Entry>(list: ReadonlyArray<A>, source: string) =>
            source === ""
              ? list.filter((e) => e.source === "")
              : [...list.filter((e) => e.source === source), ...list.filter((e) => e.source === "")]
          let suppressed = 0
          let matched = 0
          for (const entry of alerts) {
            if (Suppression.isSuppressed(entry, forSource(suppressions, entry.source), NOW, options)) suppressed++
            else if (Pattern.matchesPattern(entry, forSource(patterns, entry.source), NOW, options)) matched++
          }
          assert.strictEqual(briefing.evaluation.alerts_checked, alerts.length)
          assert.strictEqual(briefing.evaluation.suppressed, suppressed)
          assert.strictEqual(briefing.evaluation.pattern_matched, matched)
        }
      ),
      { numRuns: 300 }
    )
  })
})

describe("generate's headline choice without sorting", () => {
  it("the most severe alert wins, then the most recently updated, then the first in the snapshot", () => {
    const first = alert("nas", "disk_full", "warning", "first of equals", { age: 600 })
    const second = alert("nas", "disk_slow", "warning", "second of equals", { age: 600 })
    const older = alert("nas", "disk_old", "warning", "older", { age: 900 })
    const headline = (alerts: ReadonlyArray<Entry.Entry>) =>
      Collator.generate(snapshot({ alerts }), NOW, { escalationTimeoutMinutes: null }).briefing.sources.nas?.headline
    assert.strictEqual(headline([older, first, second]), "first of equals")
    assert.strictEqual(headline([second, older, first]), "second of equals")
    const critical = alert("nas", "disk_gone", "critical", "critical but old", { age: 3000 })
    assert.strictEqual(headline([first, second, critical]), "critical but old")
  })
})
