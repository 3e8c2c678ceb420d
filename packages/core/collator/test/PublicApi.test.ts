/**
 * Acceptance-style tests of issue 5's public API, written against the package barrel only (`@heed/collator`),
 * using every name exactly as the issue text writes it.
 */
import { assert, describe, it } from "@effect/vitest"
import { Awareness, AwarenessError, AwarenessTools, Briefing, Collator, Entry, Pattern, Store } from "@heed/collator"
import { StoreContract } from "@heed/collator/testing"
import { TokenCounter } from "@heed/schema"
import { Effect, Layer, Schema } from "effect"
import type * as Context from "effect/Context"
import { TestClock } from "effect/testing"

// ---------------------------------------------------------------------------------------------------------------
// Fixtures (plain upstream-shaped JSON entries)

/** 2026-03-20 is a Friday. */
const NOW = new Date("2026-03-20T12:00:00Z")
const START = NOW.getTime()
const iso = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z")
const ago = (seconds: number) => iso(START - seconds * 1000)
const ahead = (seconds: number) => iso(START + seconds * 1000)
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/

let n = 0
const entry = (
  type: Entry.Entry["type"],
  source: string,
  data: Record<string, unknown>,
  extra: Partial<Entry.Entry> = {}
): Entry.Entry => ({
  id: `${type}-${++n}`,
  type,
  source,
  tags: [],
  created: ago(10),
  updated: null,
  expires: null,
  deleted: null,
  data,
  ...extra
})
const statusEntry = (source: string, extra: Partial<Entry.Entry> = {}, ttl = 120) =>
  entry("status", source, { metrics: {}, ttl_sec: ttl }, extra)
const alertEntry = (
  source: string,
  alert_id: string,
  level: "warning" | "critical",
  message: string,
  data: Record<string, unknown> = {},
  extra: Partial<Entry.Entry> = {}
) => entry("alert", source, { alert_id, level, alert_type: "threshold", message, resolved: false, ...data }, extra)
const suppressionEntry = (source: string, data: Record<string, unknown>, extra: Partial<Entry.Entry> = {}) =>
  entry(
    "suppression",
    source,
    { metric: null, suppress_level: "warning", escalation_override: true, reason: "", ...data },
    { expires: ahead(3600), ...extra }
  )
const patternEntry = (source: string, conditions: Record<string, unknown>, effect: string) =>
  entry("pattern", source, { description: "learned", conditions, effect, learned_from: "conversation" })
const intentionEntry = (goal: string, deliver_at: string | undefined, source = "personal") =>
  entry("intention", source, {
    goal,
    state: "pending",
    urgency: "normal",
    learned_from: "conversation",
    ...(deliver_at === undefined ? {} : { deliver_at })
  })

const snapshot = (parts: Partial<Collator.Snapshot> = {}): Collator.Snapshot => ({
  statuses: [],
  alerts: [],
  suppressions: [],
  patterns: [],
  intentions: [],
  ...parts
})

// ---------------------------------------------------------------------------------------------------------------
// Awareness fixtures

const TestLayer = Awareness.layer.pipe(Layer.provideMerge(Store.layerMemory))
const setup = Effect.gen(function* () {
  yield* TestClock.setTime(START)
  return yield* Awareness.Awareness
})
const instance = Effect.gen(function* () {
  return yield* Awareness.Awareness
})

// ---------------------------------------------------------------------------------------------------------------
// Type-level contract: `Awareness.layer` requires `Store`; `Store.layerMemory` needs nothing.

type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false
const typeCheck = <T extends true>(value: T): T => value
typeCheck<Equals<Layer.Services<typeof Awareness.layer>, Store.Store>>(true)
typeCheck<Equals<Layer.Services<typeof Store.layerMemory>, never>>(true)
typeCheck<Equals<Layer.Error<typeof Store.layerMemory>, never>>(true)
typeCheck<Equals<Layer.Success<typeof Awareness.layer>, Awareness.Awareness>>(true)
typeCheck<Equals<Context.Service.Identifier<typeof Store.Store>, Store.Store>>(true)

// ---------------------------------------------------------------------------------------------------------------

describe("PublicApi: Entry", () => {
  it.effect("decodes upstream's JSON envelope; timestamps stay ISO 8601 strings; data holds the per-type fields", () =>
    Effect.gen(function* () {
      const decoded = yield* Schema.decodeUnknownEffect(Entry.Entry)({
        id: "5b0f6c1e-0000-4000-8000-000000000001",
        type: "intention",
        source: "personal",
        tags: ["home"],
        created: "2026-03-19T15:00:00Z",
        updated: "2026-03-19T15:05:00Z",
        expires: "2026-04-18T15:00:00Z",
        deleted: null,
        data: { goal: "Buy milk", state: "pending", deliver_at: "2026-03-19T18:00:00Z" },
        logical_key: null
      })
      assert.strictEqual(decoded.created, "2026-03-19T15:00:00Z")
      assert.strictEqual(decoded.updated, "2026-03-19T15:05:00Z")
      assert.strictEqual(decoded.expires, "2026-04-18T15:00:00Z")
      assert.isNull(decoded.deleted)
      assert.isNull(decoded.logical_key ?? null)
      const data = yield* Schema.decodeUnknownEffect(Entry.IntentionData)(decoded.data)
      assert.strictEqual(data.deliver_at, "2026-03-19T18:00:00Z")
      assert.strictEqual(data.urgency, "normal")
      assert.strictEqual(data.learned_from, "conversation")
      // The envelope round-trips to the same JSON.
      const encoded = yield* Schema.encodeEffect(Entry.Entry)(decoded)
      assert.strictEqual(encoded.created, "2026-03-19T15:00:00Z")
    })
  )

  it.effect("envelope defaults: tags [], updated/expires/deleted null, data {}", () =>
    Effect.gen(function* () {
      const decoded = yield* Schema.decodeUnknownEffect(Entry.Entry)({
        id: "x",
        type: "note",
        source: "s",
        created: "2026-03-19T15:00:00Z"
      })
      assert.deepStrictEqual(decoded.tags, [])
      assert.isNull(decoded.updated)
      assert.isNull(decoded.expires)
      assert.isNull(decoded.deleted)
      assert.deepStrictEqual(decoded.data, {})
    })
  )

  it.effect("per-type data schemas for all eight types, with upstream field names and defaults", () =>
    Effect.gen(function* () {
      const status = yield* Schema.decodeUnknownEffect(Entry.StatusData)({ metrics: { cpu_pct: 3 } })
      assert.strictEqual(status.ttl_sec, 120)
      const alert = yield* Schema.decodeUnknownEffect(Entry.AlertData)({
        alert_id: "cpu",
        level: "critical",
        alert_type: "baseline",
        message: "m"
      })
      assert.strictEqual(alert.resolved, false)
      assert.strictEqual(alert.alert_type, "baseline")
      const pattern = yield* Schema.decodeUnknownEffect(Entry.PatternData)({ description: "d" })
      assert.deepStrictEqual(pattern.conditions, {})
      assert.strictEqual(pattern.effect, "")
      assert.strictEqual(pattern.learned_from, "conversation")
      const suppression = yield* Schema.decodeUnknownEffect(Entry.SuppressionData)({})
      assert.isNull(suppression.metric)
      assert.strictEqual(suppression.suppress_level, "warning")
      assert.isTrue(suppression.escalation_override)
      assert.strictEqual(suppression.reason, "")
      const context = yield* Schema.decodeUnknownEffect(Entry.ContextData)({ description: "c" })
      assert.strictEqual(context.description, "c")
      const preference = yield* Schema.decodeUnknownEffect(Entry.PreferenceData)({ key: "k", value: "v" })
      assert.strictEqual(preference.scope, "global")
      const note = yield* Schema.decodeUnknownEffect(Entry.NoteData)({ description: "d" })
      assert.strictEqual(note.content_type, "text/plain")
      assert.strictEqual(note.learned_from, "conversation")
      const intention = yield* Schema.decodeUnknownEffect(Entry.IntentionData)({ goal: "g" })
      assert.strictEqual(intention.state, "pending")
      assert.strictEqual(intention.urgency, "normal")
      const badLevel = yield* Effect.flip(
        Schema.decodeUnknownEffect(Entry.AlertData)({ alert_id: "a", level: "fatal", message: "m" })
      )
      assert.include(badLevel.message, "level")
    })
  )

  it.effect("entries written through Awareness carry ISO 8601 strings in created, expires and deliver_at", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      const context = yield* awareness.addContext({ source: "s", tags: [], description: "d" })
      assert.strictEqual(context.expires, "2026-04-19T12:00:00Z")
      yield* AwarenessTools.call("remind", {
        goal: "g",
        source: "s",
        tags: [],
        deliver_at: "2026-03-21T09:00:00+01:00"
      })
      const store = yield* Store.Store
      const all = yield* store.query({})
      assert.lengthOf(all, 2)
      for (const stored of all) {
        assert.match(stored.created, ISO)
        assert.isNull(stored.updated)
      }
      const intention = all.find((e) => e.type === "intention")
      assert.strictEqual(intention?.data.deliver_at, "2026-03-21T08:00:00Z")
      const ctx = all.find((e) => e.type === "context")
      assert.strictEqual(ctx?.expires, "2026-04-19T12:00:00Z")
    }).pipe(Effect.provide(TestLayer))
  )
})

// ---------------------------------------------------------------------------------------------------------------

describe("PublicApi: Collator.generate(snapshot, now, options?)", () => {
  it.effect("returns { briefing, fired }; the briefing has every upstream field and is a valid Briefing", () =>
    Effect.gen(function* () {
      const result = Collator.generate(
        snapshot({
          statuses: [statusEntry("nas")],
          alerts: [alertEntry("nas", "disk", "warning", "Disk 91%")],
          intentions: [intentionEntry("Call Bob", ago(60))]
        }),
        NOW
      )
      const { briefing, fired } = result
      for (const field of [
        "generated",
        "staleness_sec",
        "summary",
        "sources",
        "active_alerts",
        "active_suppressions",
        "upcoming",
        "attention_needed",
        "fired_intentions",
        "pending_intentions",
        "evaluation",
        "suggested_mention"
      ]) {
        assert.property(briefing, field)
      }
      assert.strictEqual(briefing.generated, "2026-03-20T12:00:00Z")
      assert.lengthOf(fired, 1)
      assert.strictEqual(fired[0]?.data.goal, "Call Bob")
      assert.deepStrictEqual(briefing.fired_intentions, [
        { id: fired[0]?.id ?? "", goal: "Call Bob", source: "personal", tags: [] }
      ])
      const decoded = yield* Schema.decodeUnknownEffect(Briefing.Briefing)(JSON.parse(JSON.stringify(briefing)))
      assert.deepStrictEqual(decoded, briefing)
      // The schema lists upstream's fields.
      for (const field of ["generated", "staleness_sec", "summary", "fired_intentions", "suggested_mention"]) {
        assert.property(Briefing.Briefing.fields, field)
      }
    })
  )

  it("is pure: the same snapshot and time give the same result, and the snapshot is not mutated", () => {
    const snap = snapshot({
      statuses: [statusEntry("nas")],
      alerts: [alertEntry("nas", "disk", "warning", "Disk 91%")],
      intentions: [intentionEntry("Call Bob", ago(60))]
    })
    const before = JSON.stringify(snap)
    const one = Collator.generate(snap, NOW)
    const two = Collator.generate(snap, NOW)
    assert.deepStrictEqual(one.briefing, two.briefing)
    assert.strictEqual(JSON.stringify(snap), before)
    assert.strictEqual(snap.intentions[0]?.data.state, "pending")
  })

  it("upcomingHorizonMinutes defaults to 60 and is configurable", () => {
    const snap = snapshot({
      intentions: [intentionEntry("Soon", ahead(59 * 60)), intentionEntry("Later", ahead(90 * 60))]
    })
    const byDefault = Collator.generate(snap, NOW).briefing
    assert.deepStrictEqual(byDefault.upcoming, [
      { source: "personal", summary: "Soon", deliver_at: ahead(59 * 60), in_minutes: 59 }
    ])
    assert.isTrue(byDefault.attention_needed)
    const wider = Collator.generate(snap, NOW, { upcomingHorizonMinutes: 120 }).briefing
    assert.deepStrictEqual(
      wider.upcoming.map((u) => u.summary),
      ["Soon", "Later"]
    )
    const none = Collator.generate(snapshot({ intentions: [intentionEntry("Later", ahead(90 * 60))] }), NOW).briefing
    assert.deepStrictEqual(none.upcoming, [])
    assert.isFalse(none.attention_needed)
  })

  it("timezone defaults to UTC and moves pattern conditions to the owner's zone", () => {
    // 12:00 UTC is 08:00 in New York (EDT) on 2026-03-20.
    const snap = snapshot({
      statuses: [statusEntry("nas")],
      alerts: [alertEntry("nas", "backup_running", "warning", "Backup running")],
      patterns: [patternEntry("nas", { hour_range: [10, 14] }, "backup running")]
    })
    const utc = Collator.generate(snap, NOW).briefing
    assert.strictEqual(utc.evaluation.pattern_matched, 1)
    assert.strictEqual(utc.sources.nas?.status, "ok")
    const ny = Collator.generate(snap, NOW, { timezone: "America/New_York" }).briefing
    assert.strictEqual(ny.evaluation.pattern_matched, 0)
    assert.strictEqual(ny.sources.nas?.status, "warning")
  })

  it("countTokens defaults to o200k over the compact JSON of the briefing; a custom counter sees that JSON", () => {
    const snap = snapshot({ statuses: [statusEntry("a"), statusEntry("b"), statusEntry("c")] })
    const result = Collator.generate(snap, NOW)
    assert.strictEqual(
      (result as { tokens?: number }).tokens,
      TokenCounter.countO200k(TokenCounter.toCompactJson(result.briefing))
    )
    const seen: Array<string> = []
    const custom = Collator.generate(snap, NOW, {
      countTokens: (text) => {
        seen.push(text)
        return 1
      }
    })
    assert.isAbove(seen.length, 0)
    assert.strictEqual(seen[seen.length - 1], TokenCounter.toCompactJson(custom.briefing))
    assert.notInclude(seen[seen.length - 1] ?? "", "\n")
  })

  it('suppress_level: "critical" suppresses every level, even with escalation_override', () => {
    const result = Collator.generate(
      snapshot({
        statuses: [statusEntry("nas")],
        alerts: [
          alertEntry("nas", "disk", "warning", "Disk 91%"),
          alertEntry("nas", "raid", "critical", "RAID degraded")
        ],
        suppressions: [suppressionEntry("nas", { suppress_level: "critical", escalation_override: true })]
      }),
      NOW
    )
    assert.strictEqual(result.briefing.sources.nas?.status, "ok")
    assert.strictEqual(result.briefing.active_alerts, 0)
    assert.strictEqual(result.briefing.evaluation.suppressed, 2)
    assert.isFalse(result.briefing.attention_needed)
  })

  it("a warning suppression lets a critical alert escalate through (escalation by level)", () => {
    const result = Collator.generate(
      snapshot({
        statuses: [statusEntry("nas")],
        alerts: [
          alertEntry("nas", "disk", "warning", "Disk 91%"),
          alertEntry("nas", "raid", "critical", "RAID degraded")
        ],
        suppressions: [suppressionEntry("nas", {})]
      }),
      NOW
    )
    assert.strictEqual(result.briefing.sources.nas?.status, "critical")
    assert.strictEqual(result.briefing.sources.nas?.headline, "RAID degraded")
    assert.strictEqual(result.briefing.evaluation.suppressed, 1)
  })

  it("suppression matching: global source, metric, tags by overlap or case-insensitive substring", () => {
    const alerts = [
      alertEntry("nas", "container_down", "warning", "Expected container 'qBittorrent' is not running"),
      alertEntry("ci", "cpu", "warning", "CPU high", { metric: "cpu_pct" }),
      alertEntry("db", "x", "warning", "Something", {}, { tags: ["maintenance"] }),
      alertEntry("web", "y", "warning", "Unrelated")
    ]
    const result = Collator.generate(
      snapshot({
        alerts,
        suppressions: [
          suppressionEntry("", {}, { tags: ["qbittorrent"] }),
          suppressionEntry("ci", { metric: "cpu_pct" }),
          suppressionEntry("", {}, { tags: ["maintenance"] }),
          suppressionEntry("other", {})
        ]
      }),
      NOW
    )
    assert.strictEqual(result.briefing.evaluation.suppressed, 3)
    assert.deepStrictEqual(
      Object.keys(result.briefing.sources).filter((s) => result.briefing.sources[s]?.status !== "ok"),
      ["web"]
    )
  })

  it("a pattern condition with an unknown key never matches", () => {
    const result = Collator.generate(
      snapshot({
        statuses: [statusEntry("nas")],
        alerts: [alertEntry("nas", "cpu_high", "warning", "CPU high")],
        patterns: [patternEntry("nas", { weather: "sunny" }, "cpu high")]
      }),
      NOW
    )
    assert.strictEqual(result.briefing.evaluation.pattern_matched, 0)
    assert.strictEqual(result.briefing.sources.nas?.status, "warning")
    assert.isDefined(Pattern.validateConditions({ weather: "sunny" }))
  })

  it("patterns: day_of_week and overnight hour_range wraparound", () => {
    const alerts = [
      alertEntry("nas", "qbittorrent_stopped", "warning", "Expected container 'qbittorrent' is not running")
    ]
    const friday = Collator.generate(
      snapshot({ alerts, patterns: [patternEntry("nas", { day_of_week: "friday" }, "qbittorrent stopped")] }),
      NOW
    )
    assert.strictEqual(friday.briefing.evaluation.pattern_matched, 1)
    const monday = Collator.generate(
      snapshot({ alerts, patterns: [patternEntry("nas", { day_of_week: "monday" }, "qbittorrent stopped")] }),
      NOW
    )
    assert.strictEqual(monday.briefing.evaluation.pattern_matched, 0)
    const overnight = snapshot({
      alerts,
      patterns: [patternEntry("nas", { hour_range: [22, 6] }, "qbittorrent stopped")]
    })
    assert.strictEqual(
      Collator.generate(overnight, new Date("2026-03-20T23:00:00Z")).briefing.evaluation.pattern_matched,
      1
    )
    assert.strictEqual(Collator.generate(overnight, NOW).briefing.evaluation.pattern_matched, 0)
  })

  it("stale detection is strict (> ttl_sec, default 120) and skips the source's alerts", () => {
    const alerts = [alertEntry("nas", "disk", "warning", "Disk 91%")]
    const at120 = Collator.generate(snapshot({ statuses: [statusEntry("nas", { created: ago(120) })], alerts }), NOW)
    assert.strictEqual(at120.briefing.sources.nas?.status, "warning")
    const at121 = Collator.generate(snapshot({ statuses: [statusEntry("nas", { created: ago(121) })], alerts }), NOW)
    assert.deepStrictEqual(at121.briefing.sources.nas, {
      status: "stale",
      last_report: ago(121),
      headline: "nas has not reported in 121s",
      drill_down: "awareness://status/nas"
    })
    assert.strictEqual(at121.briefing.evaluation.alerts_checked, 0)
    assert.strictEqual(at121.briefing.evaluation.stale_sources, 1)
    assert.strictEqual(at121.briefing.summary, "nas stale.")
    assert.strictEqual(at121.briefing.suggested_mention, "STALE: nas has not reported in 121s")
  })

  it("headline = most severe alert; drill-down URIs; summary and suggested_mention templates", () => {
    const result = Collator.generate(
      snapshot({
        statuses: [statusEntry("nas"), statusEntry("ci"), statusEntry("web")],
        alerts: [
          alertEntry("nas", "disk", "warning", "Disk 91%"),
          alertEntry("nas", "raid", "critical", "RAID degraded"),
          alertEntry("ci", "build", "warning", "Build red")
        ]
      }),
      NOW
    )
    const b = result.briefing
    assert.deepStrictEqual(b.sources.nas, {
      status: "critical",
      last_report: ago(10),
      headline: "RAID degraded",
      drill_down: "awareness://alerts/nas",
      alerts: 2
    })
    assert.strictEqual(b.sources.ci?.drill_down, "awareness://alerts/ci")
    assert.deepStrictEqual(b.sources.web, { status: "ok", last_report: ago(10) })
    assert.strictEqual(b.summary, "1 critical on nas. 1 warning on ci.")
    assert.strictEqual(b.suggested_mention, "CRITICAL: RAID degraded. FYI: Build red")
    assert.strictEqual(b.active_alerts, 3)
  })

  it("all clear: upstream summary and no suggested_mention", () => {
    const b = Collator.generate(snapshot({ statuses: [statusEntry("a"), statusEntry("b")] }), NOW).briefing
    assert.strictEqual(b.summary, "All clear across 2 sources.")
    assert.isFalse(b.attention_needed)
    assert.notProperty(b, "suggested_mention")
    assert.notProperty(b, "fired_intentions")
    const one = Collator.generate(snapshot({ statuses: [statusEntry("a")] }), NOW).briefing
    assert.strictEqual(one.summary, "All clear across 1 source.")
  })

  it("evaluation counters: checked = suppressed + pattern_matched + surfaced; intentions counted", () => {
    const b = Collator.generate(
      snapshot({
        statuses: [statusEntry("nas"), statusEntry("old", { created: ago(500) })],
        alerts: [
          alertEntry("nas", "a", "warning", "A"),
          alertEntry("nas", "b", "warning", "B"),
          alertEntry("nas", "cpu_high", "warning", "CPU high"),
          alertEntry("old", "z", "critical", "Z")
        ],
        suppressions: [suppressionEntry("nas", {}, { tags: ["a"] })],
        patterns: [patternEntry("nas", {}, "cpu high")],
        intentions: [
          intentionEntry("Due", ago(5)),
          intentionEntry("Not yet", ahead(7200)),
          intentionEntry("No date", undefined)
        ]
      }),
      NOW
    ).briefing
    // The stale source's critical alert is checked and surfaces: staleness never hides a critical alert.
    assert.deepStrictEqual(b.evaluation, {
      alerts_checked: 4,
      suppressed: 1,
      pattern_matched: 1,
      stale_sources: 1,
      surfaced: 2,
      intentions_pending: 2,
      intentions_fired: 1
    })
    assert.strictEqual(b.pending_intentions, 2)
  })
})

// ---------------------------------------------------------------------------------------------------------------

describe("PublicApi: Store", () => {
  // The exported contract suite, run against layerMemory exactly as an adapter would run it.
  StoreContract.run({ name: "PublicApi layerMemory", layer: Store.layerMemory, describe, it })

  it.effect("Store is a Context.Service; layerMemory needs nothing and starts empty", () =>
    Effect.gen(function* () {
      const store = yield* Store.Store
      assert.deepStrictEqual(yield* store.query({}), [])
      const before = yield* store.version
      yield* store.insert(statusEntry("nas"))
      assert.isAbove(yield* store.version, before)
    }).pipe(Effect.provide(Store.layerMemory))
  )
})

// ---------------------------------------------------------------------------------------------------------------

describe("PublicApi: Awareness", () => {
  it.effect("has one camelCase method per tool", () => {
    const tools = [
      "report_status",
      "report_alert",
      "learn_pattern",
      "remember",
      "add_context",
      "set_preference",
      "suppress_alert",
      "clear_suppression",
      "remind",
      "update_intention",
      "acted_on",
      "get_briefing",
      "get_alerts",
      "get_status",
      "get_knowledge",
      "get_suppressions",
      "get_intentions",
      "get_stats",
      "get_tags",
      "update_entry",
      "delete_entry",
      "restore_entry",
      "search"
    ]
    const camel = tools.map((t) => t.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()))
    assert.lengthOf(camel, 23)
    return Effect.gen(function* () {
      const awareness = yield* Awareness.Awareness
      for (const name of camel) assert.isFunction((awareness as unknown as Record<string, unknown>)[name], name)
    }).pipe(Effect.provide(TestLayer))
  })

  it.effect("awareness.reportAlert({ source, tags, alert_id, level, alert_type, message }) then getBriefing()", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      yield* awareness.reportStatus({ source: "nas", tags: [], metrics: { cpu_pct: 97 } })
      const response = yield* awareness.reportAlert({
        source: "nas",
        tags: ["infra"],
        alert_id: "cpu",
        level: "warning",
        alert_type: "threshold",
        message: "CPU at 97%"
      })
      assert.strictEqual(response.status, "ok")
      assert.strictEqual(response.action, "reported")
      assert.strictEqual(response.alert_id, "cpu")
      assert.isString(response.id)
      const briefing = yield* awareness.getBriefing()
      assert.strictEqual(briefing.sources.nas?.status, "warning")
      assert.strictEqual(briefing.sources.nas?.headline, "CPU at 97%")
      assert.strictEqual(briefing.sources.nas?.drill_down, "awareness://alerts/nas")
      assert.strictEqual(briefing.suggested_mention, "FYI: CPU at 97%")
      assert.strictEqual(briefing.summary, "1 warning on nas.")
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("alert upsert by (source, alert_id) merges data; the same alert_id under another source is new", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      const base = { tags: [], alert_id: "disk", level: "warning", alert_type: "threshold" } as const
      const first = yield* awareness.reportAlert({ ...base, source: "nas", message: "Disk 91%", details: { used: 91 } })
      const second = yield* awareness.reportAlert({ ...base, source: "nas", message: "Disk 93%" })
      const other = yield* awareness.reportAlert({ ...base, source: "nas2", message: "Disk 50%" })
      assert.strictEqual(second.id, first.id)
      assert.notStrictEqual(other.id, first.id)
      const page = yield* awareness.getAlerts({ source: "nas" })
      assert.lengthOf(page.entries, 1)
      const data = page.entries[0]?.data as Record<string, unknown>
      assert.strictEqual(data.message, "Disk 93%")
      assert.deepStrictEqual(data.details, { used: 91 })
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("structured errors: code, message, retryable, param, valid and a did-you-mean suggestion", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      const error = yield* Effect.flip(
        AwarenessTools.call("report_alert", {
          source: "nas",
          tags: [],
          alert_id: "cpu",
          level: "critcal",
          alert_type: "threshold",
          message: "m"
        })
      )
      assert.instanceOf(error, AwarenessError.AwarenessError)
      assert.strictEqual(error.code, "invalid_parameter")
      assert.isString(error.message)
      assert.isFalse(error.retryable)
      assert.strictEqual(error.param, "level")
      assert.deepStrictEqual(error.valid, ["warning", "critical"])
      assert.strictEqual(error.suggestion, "critical")
      const missing = yield* Effect.flip(awareness.getStatus({ source: "nope" }))
      assert.strictEqual(missing.code, "not_found")
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("report_alert accepts metric, value, threshold; metric-scoped suppressions match", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      yield* awareness.reportAlert({
        source: "nas",
        tags: [],
        alert_id: "cpu",
        level: "warning",
        alert_type: "threshold",
        message: "CPU at 97%",
        metric: "cpu_pct",
        value: 97,
        threshold: 90
      })
      const stored = (yield* awareness.getAlerts({})).entries[0]?.data as Record<string, unknown>
      assert.strictEqual(stored.metric, "cpu_pct")
      assert.strictEqual(stored.value, 97)
      assert.strictEqual(stored.threshold, 90)
      yield* awareness.suppressAlert({ source: "nas", metric: "disk_pct", duration_minutes: 60 })
      assert.strictEqual((yield* awareness.getBriefing()).active_alerts, 1)
      yield* awareness.suppressAlert({ source: "nas", metric: "cpu_pct", duration_minutes: 60 })
      const b = yield* awareness.getBriefing()
      assert.strictEqual(b.active_alerts, 0)
      assert.strictEqual(b.evaluation.suppressed, 1)
      assert.strictEqual(b.active_suppressions, 2)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("structural patterns (alert_id glob, metric, tags) in the owner's time zone", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      yield* awareness.reportAlert({
        source: "nas",
        tags: ["backup"],
        alert_id: "backup_late_daily",
        level: "warning",
        alert_type: "threshold",
        message: "Backup is late"
      })
      // 12:00 UTC is 13:00 in Berlin (CET); the pattern covers 13:00-14:00 local time only.
      yield* awareness.learnPattern({
        source: "nas",
        tags: [],
        description: "backups run late at lunch",
        conditions: { alert_id: "backup_*", hour_range: [13, 14] }
      })
      assert.strictEqual((yield* awareness.getBriefing()).active_alerts, 1)
      yield* awareness.setPreference({ key: "timezone", value: "Europe/Berlin" })
      const b = yield* awareness.getBriefing()
      assert.strictEqual(b.active_alerts, 0)
      assert.strictEqual(b.evaluation.pattern_matched, 1)
    }).pipe(Effect.provide(TestLayer))
  )

  it("effect words split on '_' and '-'", () => {
    const byId = Collator.generate(
      snapshot({
        alerts: [
          alertEntry("nas", "qbittorrent-stopped", "warning", "Expected container 'qbittorrent' is not running")
        ],
        patterns: [patternEntry("nas", {}, "suppress qbittorrent_stopped")]
      }),
      NOW
    ).briefing
    assert.strictEqual(byId.evaluation.pattern_matched, 1)
    const dashed = Collator.generate(
      snapshot({
        alerts: [alertEntry("nas", "backup_late", "warning", "Backup is late")],
        patterns: [patternEntry("nas", {}, "backup-late")]
      }),
      NOW
    ).briefing
    assert.strictEqual(dashed.evaluation.pattern_matched, 1)
  })

  it.effect("intentions fire exactly once under concurrent briefing reads", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(START)
      const one = yield* Effect.provide(instance, Awareness.layer)
      const two = yield* Effect.provide(instance, Awareness.layer)
      yield* one.remind({ goal: "Call Bob", source: "personal", tags: [], deliver_at: "2026-03-20T11:59:00Z" })
      const briefings = yield* Effect.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? one : two).getBriefing()),
        { concurrency: "unbounded" }
      )
      const delivered = briefings.flatMap((b) => b.fired_intentions ?? []).filter((item) => item.new === true)
      assert.lengthOf(delivered, 1)
      assert.strictEqual(delivered[0]?.goal, "Call Bob")
      const fired = yield* one.getIntentions({ state: "fired" })
      assert.lengthOf(fired.entries, 1)
      const firedData = (fired.entries[0]?.data ?? {}) as Record<string, unknown>
      assert.strictEqual(firedData.state_reason, "Delivered via briefing")
    }).pipe(Effect.provide(Store.layerMemory))
  )

  it.effect("clear_suppression brings the alert back at once", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      yield* awareness.reportAlert({
        source: "nas",
        tags: [],
        alert_id: "disk",
        level: "warning",
        alert_type: "threshold",
        message: "Disk 91%"
      })
      const suppression = yield* awareness.suppressAlert({ source: "nas", duration_minutes: 120, reason: "known" })
      assert.strictEqual(suppression.expires, "2026-03-20T14:00:00Z")
      assert.strictEqual((yield* awareness.getBriefing()).active_alerts, 0)
      const cleared = yield* awareness.clearSuppression({ entry_id: suppression.id })
      assert.strictEqual(cleared.status, "ok")
      const b = yield* awareness.getBriefing()
      assert.strictEqual(b.active_alerts, 1)
      assert.strictEqual(b.active_suppressions, 0)
      assert.lengthOf(yield* awareness.getSuppressions(), 0)
      const again = yield* Effect.flip(awareness.clearSuppression({ entry_id: suppression.id }))
      assert.strictEqual(again.code, "not_found")
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("when a suppression expires the alert returns, marked as re-surfaced", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      yield* awareness.reportStatus({ source: "nas", tags: [], metrics: {}, ttl_sec: 86_400 })
      yield* awareness.reportAlert({
        source: "nas",
        tags: [],
        alert_id: "disk",
        level: "warning",
        alert_type: "threshold",
        message: "Disk 91%"
      })
      yield* awareness.suppressAlert({ source: "nas", duration_minutes: 30 })
      assert.strictEqual((yield* awareness.getBriefing()).active_alerts, 0)
      yield* TestClock.adjust("31 minutes")
      const b = yield* awareness.getBriefing()
      assert.strictEqual(b.active_alerts, 1)
      assert.isTrue(b.sources.nas?.resurfaced)
      assert.strictEqual(b.evaluation.resurfaced, 1)
      assert.include(b.suggested_mention ?? "", "(suppression expired)")
    }).pipe(Effect.provide(TestLayer))
  )

  it("recurring time-window suppressions (time_intervals) apply only inside the window", () => {
    const alerts = [alertEntry("nas", "disk", "warning", "Disk busy")]
    const suppressions = [
      suppressionEntry("nas", {
        time_intervals: [{ weekdays: ["friday"], times: [{ start_time: "11:00", end_time: "13:00" }] }]
      })
    ]
    assert.strictEqual(Collator.generate(snapshot({ alerts, suppressions }), NOW).briefing.active_alerts, 0)
    assert.strictEqual(
      Collator.generate(snapshot({ alerts, suppressions }), new Date("2026-03-20T14:00:00Z")).briefing.active_alerts,
      1
    )
    assert.strictEqual(
      Collator.generate(snapshot({ alerts, suppressions }), new Date("2026-03-19T12:00:00Z")).briefing.active_alerts,
      1
    )
  })

  it.effect("suppress_alert validates time_intervals", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      const error = yield* Effect.flip(
        awareness.suppressAlert({ source: "nas", time_intervals: [{ weekdays: ["caturday"] }] })
      )
      assert.strictEqual(error.code, "invalid_parameter")
      assert.strictEqual(error.param, "time_intervals")
    }).pipe(Effect.provide(TestLayer))
  )

  it("inhibition — a critical alert mutes warnings that share the listed labels", () => {
    const alerts = [
      alertEntry("nas", "down", "critical", "NAS down", { labels: { site: "home" } }),
      alertEntry("nas-disk", "disk", "warning", "Disk slow", { labels: { site: "home" } }),
      alertEntry("office", "disk", "warning", "Disk slow", { labels: { site: "office" } })
    ]
    const b = Collator.generate(snapshot({ alerts }), NOW, { inhibitRules: [{ equal: ["site"] }] }).briefing
    assert.strictEqual(b.evaluation.inhibited, 1)
    assert.strictEqual(b.active_alerts, 2)
    assert.strictEqual(b.sources["nas-disk"]?.status, "ok")
    assert.strictEqual(b.sources.office?.status, "warning")
  })

  it("sources with the same problem are grouped into one line", () => {
    const alerts = ["a", "b", "c"].map((s) => alertEntry(`node-${s}`, "ntp_drift", "warning", "Clock drift over 2s"))
    const b = Collator.generate(snapshot({ alerts }), NOW).briefing
    assert.deepStrictEqual(b.groups, [
      {
        status: "warning",
        headline: "Clock drift over 2s",
        sources: ["node-a", "node-b", "node-c"],
        count: 3,
        drill_down: "awareness://alerts"
      }
    ])
    // Each source keeps its own line; the group is added on top.
    assert.strictEqual(b.sources["node-a"]?.drill_down, "awareness://alerts/node-a")
    assert.strictEqual(b.suggested_mention, "FYI: Clock drift over 2s (3 sources: node-a, node-b, node-c)")
  })

  it("flap damping keeps a flapping alert firing through a short resolution", () => {
    const flapped = alertEntry(
      "nas",
      "link",
      "warning",
      "Link flapping",
      {
        resolved: true,
        state_changes: [ago(50 * 60), ago(40 * 60), ago(30 * 60), ago(20 * 60)]
      },
      { updated: ago(20 * 60) }
    )
    const b = Collator.generate(snapshot({ alerts: [flapped] }), NOW).briefing
    assert.strictEqual(b.sources.nas?.status, "warning")
    assert.isTrue(b.sources.nas?.flapping)
    const calm = Collator.generate(
      snapshot({ alerts: [{ ...flapped, data: { ...flapped.data, state_changes: [ago(20 * 60)] } }] }),
      NOW
    ).briefing
    assert.strictEqual(calm.active_alerts, 0)
  })

  it.effect("acted_on acknowledges an alert; unacknowledged warnings escalate after a timeout", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      const acked = yield* awareness.reportAlert({
        source: "a",
        tags: [],
        alert_id: "x",
        level: "warning",
        alert_type: "threshold",
        message: "Acked one"
      })
      yield* awareness.reportAlert({
        source: "b",
        tags: [],
        alert_id: "y",
        level: "warning",
        alert_type: "threshold",
        message: "Ignored one"
      })
      const response = yield* awareness.actedOn({ entry_id: acked.id, action: "looking into it" })
      assert.strictEqual(response.entry_id, acked.id)
      assert.strictEqual(response.timestamp, "2026-03-20T12:00:00Z")
      const b = yield* awareness.getBriefing()
      assert.strictEqual(b.sources.a?.status, "ok")
      assert.strictEqual(b.evaluation.acknowledged, 1)
      assert.strictEqual(b.sources.b?.status, "warning")
      yield* TestClock.adjust("241 minutes")
      const later = yield* awareness.getBriefing()
      assert.strictEqual(later.sources.b?.status, "critical")
      assert.isTrue(later.sources.b?.escalated)
    }).pipe(Effect.provide(TestLayer))
  )

  it("all clear stays under 200 tokens however many sources exist", () => {
    const statuses = Array.from({ length: 2000 }, (_, i) => statusEntry(`host-with-a-longish-name-${i}`))
    const { briefing } = Collator.generate(snapshot({ statuses }), NOW)
    const tokens = TokenCounter.countO200k(TokenCounter.toCompactJson(briefing))
    assert.isBelow(tokens, 200)
    assert.strictEqual(briefing.summary, "All clear across 2000 sources.")
    assert.isFalse(briefing.attention_needed)
  })

  it("issues stay under 500 tokens; the rest is counted with drill-down URIs, most severe first", () => {
    const alerts = [
      ...Array.from({ length: 2000 }, (_, i) =>
        alertEntry(`warn-${i}`, `w${i}`, "warning", `Warning ${i}: ${"a rather long explanation ".repeat(5)}`)
      ),
      ...Array.from({ length: 3 }, (_, i) => alertEntry(`crit-${i}`, `c${i}`, "critical", `Critical ${i}`))
    ]
    const intentions = Array.from({ length: 3 }, (_, i) => intentionEntry(`Reminder ${i}`, ago(60)))
    const { briefing, fired } = Collator.generate(snapshot({ alerts, intentions }), NOW)
    const tokens = TokenCounter.countO200k(TokenCounter.toCompactJson(briefing))
    assert.isBelow(tokens, 500)
    assert.strictEqual(briefing.active_alerts, 2003)
    const shown = Object.values(briefing.sources)
    assert.isAbove(shown.length, 0)
    assert.strictEqual(shown[0]?.status, "critical")
    assert.strictEqual(briefing.omitted?.drill_down, "awareness://alerts")
    const omitted = briefing.omitted?.sources ?? {}
    assert.strictEqual(shown.length + (omitted.critical ?? 0) + (omitted.warning ?? 0), 2003)
    // Intentions that did not fit are not fired: they stay pending for the next briefing.
    assert.strictEqual(briefing.fired_intentions?.length ?? 0, fired.length)
    assert.strictEqual(briefing.pending_intentions, 3 - fired.length)
    assert.include(briefing.suggested_mention ?? "", "CRITICAL: Critical")
  })

  it("long text in sources and intentions is cut to the budget", () => {
    const long = "x".repeat(5000)
    const { briefing } = Collator.generate(
      snapshot({
        alerts: [alertEntry(`src-${long}`, "a", "critical", long)],
        intentions: [{ ...intentionEntry(long, ahead(60), `gcal-${long}`), tags: [long, long] }]
      }),
      NOW
    )
    assert.isBelow(TokenCounter.countO200k(TokenCounter.toCompactJson(briefing)), 500)
    assert.isTrue(briefing.attention_needed)
  })

  it.effect("Awareness.layerWith configures the horizon", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(START)
      const awareness = yield* Effect.provide(instance, Awareness.layerWith({ upcomingHorizonMinutes: 24 * 60 * 8 }))
      yield* awareness.remind({ goal: "Next week", source: "gcal", tags: [], deliver_at: "2026-03-27T12:00:00Z" })
      assert.deepStrictEqual((yield* awareness.getBriefing()).upcoming, [
        { source: "gcal", summary: "Next week", deliver_at: "2026-03-27T12:00:00Z", in_minutes: 7 * 24 * 60 }
      ])
    }).pipe(Effect.provide(Store.layerMemory))
  )
})
