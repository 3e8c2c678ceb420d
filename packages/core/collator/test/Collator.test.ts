import { assert, describe, it } from "@effect/vitest"
import { TokenCounter } from "@heed/schema"
import * as fc from "fast-check"
import { BriefingView, Collator, type Entry, Mention, Pattern, Suppression } from "../src/index.ts"
import { settingsOf } from "../src/internal/settings.ts"
import { ago, ahead, alert, intention, NOW, pattern, snapshot, status, suppression } from "./fixtures.ts"

const at = (iso: string) => new Date(iso)

describe("Suppression.isSuppressed (upstream)", () => {
  const cpu = alert("nas", "cpu_high", "warning", "CPU at 97%", { data: { metric: "cpu_pct" } })

  it("no suppressions: not suppressed", () => {
    assert.isFalse(Suppression.isSuppressed(cpu, [], NOW))
  })
  it("metric match suppresses; metric mismatch does not", () => {
    assert.isTrue(Suppression.isSuppressed(cpu, [suppression({ source: "nas", metric: "cpu_pct" })], NOW))
    assert.isFalse(Suppression.isSuppressed(cpu, [suppression({ source: "nas", metric: "disk_pct" })], NOW))
  })
  it("source mismatch does not suppress; the global '' source does", () => {
    assert.isFalse(Suppression.isSuppressed(cpu, [suppression({ source: "ci" })], NOW))
    assert.isTrue(Suppression.isSuppressed(cpu, [suppression({ source: "" })], NOW))
  })
  it("a null metric matches any metric", () => {
    assert.isTrue(Suppression.isSuppressed(cpu, [suppression({ source: "nas", metric: null })], NOW))
  })
  it("an expired suppression is ignored", () => {
    assert.isFalse(Suppression.isSuppressed(cpu, [suppression({ source: "nas", expiresIn: -1 })], NOW))
  })
  it("critical breaks through a warning suppression with override; warning stays suppressed", () => {
    const critical = alert("nas", "cpu_high", "critical", "CPU at 99%")
    assert.isFalse(Suppression.isSuppressed(critical, [suppression({ source: "nas", override: true })], NOW))
    assert.isTrue(Suppression.isSuppressed(cpu, [suppression({ source: "nas", override: true })], NOW))
  })
  it("without override a critical alert stays suppressed", () => {
    const critical = alert("nas", "cpu_high", "critical", "CPU at 99%")
    assert.isTrue(Suppression.isSuppressed(critical, [suppression({ source: "nas", override: false })], NOW))
  })
  it("suppress_level critical suppresses every level, as upstream", () => {
    const critical = alert("nas", "cpu_high", "critical", "CPU at 99%")
    assert.isTrue(
      Suppression.isSuppressed(critical, [suppression({ source: "nas", level: "critical", override: true })], NOW)
    )
  })
  it("tag overlap matches; no overlap does not", () => {
    const tagged = alert("nas", "x", "warning", "something", { tags: ["infra", "disk"] })
    assert.isTrue(Suppression.isSuppressed(tagged, [suppression({ tags: ["disk"] })], NOW))
    assert.isFalse(Suppression.isSuppressed(tagged, [suppression({ tags: ["network"] })], NOW))
  })
  it("a tag matches as a case-insensitive substring of the message (content-aware match)", () => {
    const qb = alert("nas", "container_down", "warning", "qBittorrent stopped — should always be running")
    assert.isTrue(Suppression.isSuppressed(qb, [suppression({ tags: ["qbittorrent"] })], NOW))
  })
  it("the first matching suppression decides", () => {
    const critical = alert("nas", "cpu_high", "critical", "CPU at 99%")
    const lets = suppression({ source: "nas", level: "warning", override: true })
    const blocks = suppression({ source: "nas", level: "critical" })
    assert.isFalse(Suppression.isSuppressed(critical, [lets, blocks], NOW))
    assert.isTrue(Suppression.isSuppressed(critical, [blocks, lets], NOW))
  })
})

describe("Pattern.matchesPattern (upstream)", () => {
  const cpu = alert("nas", "cpu_high", "warning", "CPU at 97%", { data: { metric: "cpu_pct" } })

  it("no patterns: no match", () => {
    assert.isFalse(Pattern.matchesPattern(cpu, [], NOW))
  })
  it("effect 'suppress cpu_pct' matches an alert with metric cpu_pct; another effect does not", () => {
    assert.isTrue(Pattern.matchesPattern(cpu, [pattern({ effect: "suppress cpu_pct" })], NOW))
    assert.isFalse(Pattern.matchesPattern(cpu, [pattern({ effect: "suppress disk_usage" })], NOW))
  })
  it("day_of_week friday matches on a Friday, monday does not", () => {
    assert.isTrue(
      Pattern.matchesPattern(cpu, [pattern({ effect: "cpu_pct", conditions: { day_of_week: "friday" } })], NOW)
    )
    assert.isFalse(
      Pattern.matchesPattern(cpu, [pattern({ effect: "cpu_pct", conditions: { day_of_week: "monday" } })], NOW)
    )
  })
  it("hour_range [9, 17] matches at 12:00 and not at 20:00", () => {
    const p = [pattern({ effect: "cpu_pct", conditions: { hour_range: [9, 17] } })]
    assert.isTrue(Pattern.matchesPattern(cpu, p, at("2026-03-20T12:00:00Z")))
    assert.isFalse(Pattern.matchesPattern(cpu, p, at("2026-03-20T20:00:00Z")))
  })
  it("overnight hour_range [22, 6] wraps: in at 23:00, out at 12:00", () => {
    const p = [pattern({ effect: "cpu_pct", conditions: { hour_range: [22, 6] } })]
    assert.isTrue(Pattern.matchesPattern(cpu, p, at("2026-03-20T23:00:00Z")))
    assert.isTrue(Pattern.matchesPattern(cpu, p, at("2026-03-20T05:59:00Z")))
    assert.isFalse(Pattern.matchesPattern(cpu, p, at("2026-03-20T12:00:00Z")))
  })
  it("effect words match the message ('qbittorrent stopped')", () => {
    const qb = alert("nas", "container_down", "warning", "qBittorrent stopped — should always be running")
    assert.isTrue(Pattern.matchesPattern(qb, [pattern({ effect: "suppress qbittorrent stopped" })], NOW))
  })
  it("an empty effect without structural matchers never matches", () => {
    assert.isFalse(Pattern.matchesPattern(cpu, [pattern({ effect: "" })], NOW))
  })
})

describe("Pattern.matchesPattern (heed)", () => {
  it("heed differs: words split on '_' and '-', so qbittorrent_stopped matches the container message", () => {
    const qb = alert("nas", "qbittorrent_stopped", "warning", "Expected container 'qbittorrent' is not running")
    assert.isTrue(Pattern.matchesPattern(qb, [pattern({ effect: "ignore qbittorrent_stopped on fridays" })], NOW))
    const dashed = alert("nas", "backup-late", "warning", "Backup is late")
    assert.isTrue(Pattern.matchesPattern(dashed, [pattern({ effect: "backup-late" })], NOW))
  })
  it("heed differs: a one-word overlap no longer suppresses unrelated alerts", () => {
    const cpu = alert("nas", "cpu_high", "warning", "CPU usage high")
    assert.isFalse(Pattern.matchesPattern(cpu, [pattern({ effect: "suppress high memory during backups" })], NOW))
  })
  it("structural matchers: alert_id glob, metric, tags, level", () => {
    const backup = alert("nas", "backup_nightly_slow", "warning", "Backup slow", {
      tags: ["backup"],
      data: { metric: "duration_sec" }
    })
    assert.isTrue(Pattern.matchesPattern(backup, [pattern({ conditions: { alert_id: "backup_*" } })], NOW))
    assert.isFalse(Pattern.matchesPattern(backup, [pattern({ conditions: { alert_id: "disk_*" } })], NOW))
    assert.isTrue(Pattern.matchesPattern(backup, [pattern({ conditions: { metric: "duration_sec" } })], NOW))
    assert.isTrue(Pattern.matchesPattern(backup, [pattern({ conditions: { tags: ["backup", "x"] } })], NOW))
    assert.isFalse(Pattern.matchesPattern(backup, [pattern({ conditions: { tags: ["media"] } })], NOW))
    assert.isFalse(
      Pattern.matchesPattern(backup, [pattern({ conditions: { alert_id: "backup_*", level: "critical" } })], NOW)
    )
  })
  it("conditions are evaluated in the owner's time zone", () => {
    const cpu = alert("nas", "cpu_high", "warning", "CPU high")
    const p = [pattern({ effect: "cpu_high", conditions: { hour_range: [9, 17] } })]
    // 12:00 UTC is 08:00 in New York (EDT): outside; 14:00 UTC is 10:00: inside.
    assert.isFalse(Pattern.matchesPattern(cpu, p, at("2026-03-20T12:00:00Z"), { timezone: "America/New_York" }))
    assert.isTrue(Pattern.matchesPattern(cpu, p, at("2026-03-20T14:00:00Z"), { timezone: "America/New_York" }))
    // Saturday 02:00 UTC is still Friday evening in New York.
    const friday = [pattern({ effect: "cpu_high", conditions: { day_of_week: "friday" } })]
    assert.isFalse(Pattern.matchesPattern(cpu, friday, at("2026-03-21T02:00:00Z")))
    assert.isTrue(Pattern.matchesPattern(cpu, friday, at("2026-03-21T02:00:00Z"), { timezone: "America/New_York" }))
    // A pattern's own timezone wins over the owner's.
    const tokyo = [pattern({ effect: "cpu_high", conditions: { hour_range: [20, 23], timezone: "Asia/Tokyo" } })]
    assert.isTrue(Pattern.matchesPattern(cpu, tokyo, at("2026-03-20T12:00:00Z"), { timezone: "America/New_York" }))
  })
  it("heed differs: an unknown condition key makes the pattern never match (upstream treats it as true)", () => {
    const cpu = alert("nas", "cpu_high", "warning", "CPU high")
    assert.isFalse(Pattern.matchesPattern(cpu, [pattern({ effect: "cpu_high", conditions: { weather: "rain" } })], NOW))
    assert.isFalse(
      Pattern.matchesPattern(cpu, [pattern({ effect: "cpu_high", conditions: { hour_range: [9, 99] } })], NOW)
    )
  })
  it("validateConditions names the key and suggests the closest known one", () => {
    const problem = Pattern.validateConditions({ hour_rnage: [9, 17] })
    assert.strictEqual(problem?.key, "hour_rnage")
    assert.strictEqual(problem?.suggestion, "hour_range")
    assert.isUndefined(Pattern.validateConditions({ day_of_week: ["saturday", "Sunday"], hour_range: [22, 6] }))
    assert.strictEqual(Pattern.validateConditions({ day_of_week: "funday" })?.key, "day_of_week")
    assert.strictEqual(Pattern.validateConditions({ timezone: "Mars/Olympus" })?.key, "timezone")
  })
})

describe("Mention.composeSummary / composeMention (upstream)", () => {
  const base = { critical: [], warning: [], stale: [], upcoming: 0, intentions: 0 }
  it("all clear: plural and singular", () => {
    assert.strictEqual(
      Mention.composeSummary({ ...base, attention_needed: false, source_count: 2 }),
      "All clear across 2 sources."
    )
    assert.strictEqual(
      Mention.composeSummary({ ...base, attention_needed: false, source_count: 1 }),
      "All clear across 1 source."
    )
  })
  it("warning, critical and stale wording; K counts sources", () => {
    assert.strictEqual(
      Mention.composeSummary({ ...base, attention_needed: true, source_count: 3, warning: ["nas"] }),
      "1 warning on nas."
    )
    assert.strictEqual(
      Mention.composeSummary({
        ...base,
        attention_needed: true,
        source_count: 5,
        critical: ["a", "b"],
        warning: ["c"],
        stale: ["x", "y"],
        upcoming: 1,
        intentions: 2
      }),
      "2 critical on a, b. 1 warning on c. x, y stale. 1 upcoming item. 2 intentions ready."
    )
  })
  it("mention: CRITICAL, STALE, FYI, upcoming and INTENTION", () => {
    const mention = Mention.composeMention({
      sources: {
        a: { status: "critical", last_report: null, headline: "RAID degraded" },
        b: { status: "stale", last_report: null, headline: "b has not reported in 300s" },
        c: { status: "warning", last_report: null, headline: "Disk 91%" },
        d: { status: "ok", last_report: null }
      },
      upcoming: [{ source: "gcal", summary: "Dentist in 40 min" }],
      fired_intentions: [{ id: "i", goal: "Call mom", source: "personal", tags: [] }]
    })
    assert.strictEqual(
      mention,
      "CRITICAL: RAID degraded. STALE: b has not reported in 300s. FYI: Disk 91%. Dentist in 40 min. INTENTION: Call mom"
    )
  })
})

describe("Collator.generate (upstream behaviour)", () => {
  it("an empty snapshot: all clear, evaluation present, no fired_intentions key", () => {
    const { briefing, fired } = Collator.generate(snapshot(), NOW)
    assert.strictEqual(briefing.summary, "All clear across 0 sources.")
    assert.isFalse(briefing.attention_needed)
    assert.deepStrictEqual(briefing.sources, {})
    assert.isFalse("fired_intentions" in briefing)
    assert.isFalse("suggested_mention" in briefing)
    assert.strictEqual(briefing.evaluation.alerts_checked, 0)
    assert.strictEqual(briefing.staleness_sec, 0)
    assert.strictEqual(briefing.generated, "2026-03-20T12:00:00Z")
    assert.lengthOf(fired, 0)
  })

  it("two ok sources: all clear", () => {
    const { briefing } = Collator.generate(snapshot({ statuses: [status("nas"), status("ci")] }), NOW)
    assert.strictEqual(briefing.summary, "All clear across 2 sources.")
    assert.strictEqual(briefing.sources.nas?.status, "ok")
    assert.strictEqual(briefing.sources.nas?.last_report, ago(10))
  })

  it("a warning alert: attention, headline, drill_down and suggested_mention", () => {
    const { briefing } = Collator.generate(
      snapshot({ statuses: [status("nas")], alerts: [alert("nas", "disk", "warning", "Disk 91%")] }),
      NOW
    )
    assert.isTrue(briefing.attention_needed)
    assert.deepStrictEqual(briefing.sources.nas, {
      status: "warning",
      last_report: ago(10),
      headline: "Disk 91%",
      drill_down: "awareness://alerts/nas"
    })
    assert.strictEqual(briefing.active_alerts, 1)
    assert.strictEqual(briefing.summary, "1 warning on nas.")
    assert.strictEqual(briefing.suggested_mention, "FYI: Disk 91%")
  })

  it("a critical alert makes the source critical", () => {
    const { briefing } = Collator.generate(
      snapshot({
        statuses: [status("nas")],
        alerts: [alert("nas", "disk", "warning", "Disk 91%"), alert("nas", "raid", "critical", "RAID degraded")]
      }),
      NOW
    )
    assert.strictEqual(briefing.sources.nas?.status, "critical")
    assert.strictEqual(briefing.sources.nas?.headline, "RAID degraded")
    assert.strictEqual(briefing.active_alerts, 2)
    assert.strictEqual(briefing.suggested_mention, "CRITICAL: RAID degraded")
  })

  it("headline ties go to the most recently updated alert", () => {
    const { briefing } = Collator.generate(
      snapshot({
        statuses: [status("nas")],
        alerts: [
          alert("nas", "a", "warning", "older", { updatedAgo: 50 }),
          alert("nas", "b", "warning", "newer", { updatedAgo: 5 })
        ]
      }),
      NOW
    )
    assert.strictEqual(briefing.sources.nas?.headline, "newer")
  })

  it("a suppressed alert leaves the source ok with 0 active alerts; escalation breaks through", () => {
    const suppressed = Collator.generate(
      snapshot({
        statuses: [status("nas")],
        alerts: [alert("nas", "disk", "warning", "Disk 91%")],
        suppressions: [suppression({ source: "nas" })]
      }),
      NOW
    ).briefing
    assert.strictEqual(suppressed.sources.nas?.status, "ok")
    assert.strictEqual(suppressed.active_alerts, 0)
    assert.strictEqual(suppressed.active_suppressions, 1)
    assert.strictEqual(suppressed.evaluation.suppressed, 1)
    const escalated = Collator.generate(
      snapshot({
        statuses: [status("nas")],
        alerts: [alert("nas", "disk", "critical", "Disk 99%")],
        suppressions: [suppression({ source: "nas" })]
      }),
      NOW
    ).briefing
    assert.strictEqual(escalated.sources.nas?.status, "critical")
    assert.strictEqual(escalated.active_alerts, 1)
  })

  it("a pattern filters the alert", () => {
    const { briefing } = Collator.generate(
      snapshot({
        statuses: [status("nas")],
        alerts: [alert("nas", "qbittorrent_stopped", "warning", "qBittorrent stopped")],
        patterns: [pattern({ source: "nas", effect: "qbittorrent stopped", conditions: { day_of_week: "friday" } })]
      }),
      NOW
    )
    assert.strictEqual(briefing.sources.nas?.status, "ok")
    assert.strictEqual(briefing.evaluation.pattern_matched, 1)
    assert.isFalse(briefing.attention_needed)
  })

  it("stale detection is strict (> ttl_sec) and skips the source's alerts", () => {
    const stale = Collator.generate(
      snapshot({ statuses: [status("nas", { age: 300 })], alerts: [alert("nas", "disk", "warning", "Disk 91%")] }),
      NOW
    ).briefing
    assert.deepStrictEqual(stale.sources.nas, {
      status: "stale",
      last_report: ago(300),
      headline: "nas has not reported in 300s",
      drill_down: "awareness://status/nas"
    })
    assert.strictEqual(stale.evaluation.stale_sources, 1)
    assert.strictEqual(stale.evaluation.alerts_checked, 0)
    assert.strictEqual(stale.active_alerts, 0)
    assert.strictEqual(stale.summary, "nas stale.")
    assert.strictEqual(stale.suggested_mention, "STALE: nas has not reported in 300s")
    const edge = Collator.generate(snapshot({ statuses: [status("nas", { age: 120 })] }), NOW).briefing
    assert.strictEqual(edge.sources.nas?.status, "ok")
  })

  it("the latest status per source counts (updated over created)", () => {
    const old = status("nas", { age: 500 })
    const refreshed = { ...status("nas", { age: 500 }), updated: ago(5) }
    const { briefing } = Collator.generate(snapshot({ statuses: [old, refreshed] }), NOW)
    assert.strictEqual(briefing.sources.nas?.status, "ok")
    assert.strictEqual(briefing.sources.nas?.last_report, ago(5))
  })

  it("a resolved alert is not counted", () => {
    const resolved = alert("nas", "disk", "warning", "Disk 91%", { data: { resolved: true } })
    const { briefing } = Collator.generate(snapshot({ statuses: [status("nas")], alerts: [resolved] }), NOW)
    assert.strictEqual(briefing.active_alerts, 0)
    assert.strictEqual(briefing.evaluation.alerts_checked, 0)
  })

  it("multiple sources, suppression count and evaluation counters", () => {
    const { briefing } = Collator.generate(
      snapshot({
        statuses: [status("a"), status("b"), status("c", { age: 1000 })],
        alerts: [
          alert("a", "x", "warning", "A broke"),
          alert("b", "y", "critical", "B broke"),
          alert("b", "z", "warning", "B noisy"),
          alert("c", "w", "warning", "C ignored while stale")
        ],
        suppressions: [suppression({ source: "b", tags: ["noisy"] }), suppression({ source: "zzz" })],
        patterns: [pattern({ source: "a", effect: "a broke" })]
      }),
      NOW
    )
    assert.strictEqual(briefing.active_suppressions, 2)
    assert.deepStrictEqual(
      { ...briefing.evaluation },
      {
        alerts_checked: 3,
        suppressed: 1,
        pattern_matched: 1,
        stale_sources: 1,
        surfaced: 1,
        intentions_pending: 0,
        intentions_fired: 0
      }
    )
    assert.strictEqual(briefing.summary, "1 critical on b. c stale.")
    assert.strictEqual(briefing.sources.b?.drill_down, "awareness://alerts/b")
  })

  it("a past deliver_at fires the intention; a future one does not", () => {
    const due = intention("Call the plumber", { deliverIn: -60, tags: ["home"] })
    const later = intention("Water plants", { deliverIn: 86_400 })
    const { briefing, fired } = Collator.generate(snapshot({ intentions: [due, later] }), NOW)
    assert.deepStrictEqual(fired, [due])
    assert.deepStrictEqual(briefing.fired_intentions, [
      { id: due.id, goal: "Call the plumber", source: "personal", tags: ["home"] }
    ])
    assert.strictEqual(briefing.pending_intentions, 1)
    assert.strictEqual(briefing.evaluation.intentions_fired, 1)
    assert.isTrue(briefing.attention_needed)
    assert.strictEqual(briefing.summary, "1 intention ready.")
    assert.strictEqual(briefing.suggested_mention, "INTENTION: Call the plumber")
  })
})

describe("Collator.generate: the seed's example briefings (read with explain: true)", () => {
  const seedNow = new Date("2026-03-19T15:00:00Z")

  it("all clear across 3 sources, field for field, in the seed's order (most recent first)", () => {
    const { briefing } = Collator.generate(
      snapshot({
        statuses: [
          { ...status("synology-nas"), created: "2026-03-19T14:59:48Z" },
          { ...status("gcal"), created: "2026-03-19T14:58:00Z" },
          { ...status("github-ci", { ttl: 600 }), created: "2026-03-19T14:55:00Z" }
        ],
        suppressions: [suppression({ tags: ["backup"], expiresIn: 10 ** 7 })]
      }),
      seedNow
    )
    const { evaluation: _e, pending_intentions: _p, ...seedFields } = BriefingView.json(briefing, { explain: true })
    assert.deepStrictEqual(Object.keys(seedFields.sources), ["synology-nas", "gcal", "github-ci"])
    assert.deepStrictEqual(seedFields, {
      generated: "2026-03-19T15:00:00Z",
      staleness_sec: 0,
      summary: "All clear across 3 sources.",
      sources: {
        "synology-nas": { status: "ok", last_report: "2026-03-19T14:59:48Z" },
        gcal: { status: "ok", last_report: "2026-03-19T14:58:00Z" },
        "github-ci": { status: "ok", last_report: "2026-03-19T14:55:00Z" }
      },
      active_alerts: 0,
      active_suppressions: 1,
      upcoming: [],
      attention_needed: false
    })
    assert.isBelow(TokenCounter.countO200k(TokenCounter.toCompactJson(briefing)), 200)
  })

  it("qBittorrent stopped + calendar, field for field (summary and mention from upstream's templates)", () => {
    const { briefing } = Collator.generate(
      snapshot({
        statuses: [
          { ...status("synology-nas"), created: "2026-03-19T14:59:55Z" },
          {
            ...status("gcal", {
              headline: "Q3 planning with Sarah in 40 min — 3 unresolved items from last thread"
            }),
            created: "2026-03-19T14:58:00Z"
          },
          { ...status("github-ci", { ttl: 600 }), created: "2026-03-19T14:55:00Z" }
        ],
        alerts: [
          {
            ...alert(
              "synology-nas",
              "qbittorrent_stopped",
              "warning",
              "qBittorrent stopped — should always be running"
            ),
            created: "2026-03-19T14:59:55Z"
          }
        ],
        intentions: [
          {
            ...intention("Q3 planning — leave in 25 min (traffic +15 min)", { source: "gcal" }),
            data: {
              goal: "Q3 planning — leave in 25 min (traffic +15 min)",
              state: "pending",
              deliver_at: "2026-03-19T15:25:00Z"
            }
          }
        ]
      }),
      seedNow
    )
    const {
      evaluation: _e,
      pending_intentions: _p,
      summary,
      suggested_mention,
      ...seedFields
    } = BriefingView.json(briefing, { explain: true })
    assert.deepStrictEqual(Object.keys(seedFields.sources), ["synology-nas", "gcal", "github-ci"])
    assert.deepStrictEqual(seedFields, {
      generated: "2026-03-19T15:00:00Z",
      staleness_sec: 0,
      sources: {
        "synology-nas": {
          status: "warning",
          last_report: "2026-03-19T14:59:55Z",
          headline: "qBittorrent stopped — should always be running",
          drill_down: "awareness://alerts/synology-nas"
        },
        gcal: {
          status: "info",
          last_report: "2026-03-19T14:58:00Z",
          headline: "Q3 planning with Sarah in 40 min — 3 unresolved items from last thread",
          drill_down: "awareness://status/gcal"
        },
        "github-ci": { status: "ok", last_report: "2026-03-19T14:55:00Z" }
      },
      active_alerts: 1,
      active_suppressions: 0,
      // heed adds when the item is due.
      upcoming: [
        {
          source: "gcal",
          summary: "Q3 planning — leave in 25 min (traffic +15 min)",
          deliver_at: "2026-03-19T15:25:00Z",
          in_minutes: 25
        }
      ],
      attention_needed: true
    })
    // The seed's prose was hand-written; upstream (and heed) compose these from templates.
    assert.strictEqual(summary, "1 warning on synology-nas. 1 info on gcal. 1 upcoming item.")
    assert.strictEqual(
      suggested_mention,
      "FYI: qBittorrent stopped — should always be running. " +
        "FYI: Q3 planning with Sarah in 40 min — 3 unresolved items from last thread. " +
        "UPCOMING in 25 min: Q3 planning — leave in 25 min (traffic +15 min)"
    )
    assert.isBelow(TokenCounter.countO200k(TokenCounter.toCompactJson(briefing)), 500)
  })
})

describe("Collator.generate: better than upstream", () => {
  it("heed differs: alerts from a source that never reported a status still surface", () => {
    const { briefing } = Collator.generate(
      snapshot({ alerts: [alert("mcp-awareness", "unsupported-language-xx", "warning", "Language xx unsupported")] }),
      NOW
    )
    assert.deepStrictEqual(briefing.sources["mcp-awareness"], {
      status: "warning",
      last_report: null,
      headline: "Language xx unsupported",
      drill_down: "awareness://alerts/mcp-awareness"
    })
    assert.strictEqual(briefing.active_alerts, 1)
  })

  it("metric-scoped suppressions match alerts that carry a metric", () => {
    const { briefing } = Collator.generate(
      snapshot({
        statuses: [status("nas")],
        alerts: [
          alert("nas", "disk_busy", "warning", "Disk busy", {
            data: { metric: "disk_busy_pct", value: 97, threshold: 90 }
          }),
          alert("nas", "cpu", "warning", "CPU busy", { data: { metric: "cpu_pct" } })
        ],
        suppressions: [suppression({ source: "nas", metric: "disk_busy_pct" })]
      }),
      NOW
    )
    assert.strictEqual(briefing.evaluation.suppressed, 1)
    assert.strictEqual(briefing.sources.nas?.headline, "CPU busy")
  })

  it("recurring time-window suppressions are active only inside their window", () => {
    const windowed = suppression({
      source: "nas",
      expiresIn: 30 * 86_400,
      data: { time_intervals: [{ weekdays: ["friday"], times: [{ start_time: "11:00", end_time: "13:00" }] }] }
    })
    const run = (now: Date) =>
      Collator.generate(
        snapshot({
          statuses: [status("nas", { ttl: 10 ** 9 })],
          alerts: [alert("nas", "backup", "warning", "Backup running")],
          suppressions: [windowed]
        }),
        now
      ).briefing
    assert.strictEqual(run(NOW).active_alerts, 0)
    assert.strictEqual(run(at("2026-03-20T13:00:00Z")).active_alerts, 1)
    assert.strictEqual(run(at("2026-03-19T12:00:00Z")).active_alerts, 1)
    const overnight = suppression({
      expiresIn: 30 * 86_400,
      data: { time_intervals: [{ times: [{ start_time: "22:00", end_time: "06:00" }], location: "Europe/Berlin" }] }
    })
    const night = Collator.generate(
      snapshot({ alerts: [alert("nas", "backup", "warning", "Backup running")], suppressions: [overnight] }),
      at("2026-03-20T23:30:00Z")
    ).briefing
    assert.strictEqual(night.active_alerts, 0)
  })

  it("re-surfacing: when a suppression expires the alert returns, marked as such", () => {
    const disk = alert("nas", "disk", "warning", "Disk 91%", { age: 7200 })
    const expired = suppression({ source: "nas", createdAgo: 3600, expiresIn: -60 })
    const { briefing } = Collator.generate(
      snapshot({ statuses: [status("nas")], alerts: [disk], suppressions: [expired] }),
      NOW,
      { escalationTimeoutMinutes: null }
    )
    assert.strictEqual(briefing.sources.nas?.resurfaced, true)
    assert.strictEqual(briefing.evaluation.resurfaced, 1)
    assert.strictEqual(briefing.active_suppressions, 0)
    assert.strictEqual(briefing.suggested_mention, "FYI: Disk 91% (suppression expired)")
    // An alert that started after the suppression ended is not "re-surfaced".
    const fresh = alert("nas", "disk", "warning", "Disk 91%", { age: 10 })
    const later = Collator.generate(
      snapshot({ statuses: [status("nas")], alerts: [fresh], suppressions: [expired] }),
      NOW
    ).briefing
    assert.isUndefined(later.sources.nas?.resurfaced)
  })

  it("a source's headline: the most severe alert, then the most recently updated, then the first in the snapshot", () => {
    const headline = (alerts: ReadonlyArray<Entry.Entry>) =>
      Collator.generate(snapshot({ alerts }), NOW).briefing.sources.nas?.headline
    const recent = alert("nas", "fan", "warning", "fan slow", { updatedAgo: 5 })
    const older = alert("nas", "disk", "warning", "disk 91%", { updatedAgo: 50 })
    const twin = alert("nas", "psu", "warning", "psu hot", { updatedAgo: 5 })
    assert.strictEqual(headline([recent, older]), "fan slow")
    assert.strictEqual(headline([older, recent]), "fan slow")
    assert.strictEqual(headline([recent, twin]), "fan slow")
    assert.strictEqual(headline([twin, recent]), "psu hot")
    assert.strictEqual(
      headline([recent, alert("nas", "raid", "critical", "RAID degraded", { updatedAgo: 500 })]),
      "RAID degraded"
    )
  })

  it("inhibition: a critical alert mutes warnings that share the listed labels", () => {
    const snap = snapshot({
      alerts: [
        alert("nas", "down", "critical", "NAS unreachable"),
        alert("nas", "disk", "warning", "Disk 91%"),
        alert("ci", "slow", "warning", "CI slow")
      ]
    })
    const { briefing } = Collator.generate(snap, NOW, { inhibitRules: [{ equal: ["source"] }] })
    assert.strictEqual(briefing.evaluation.inhibited, 1)
    assert.strictEqual(briefing.active_alerts, 2)
    assert.strictEqual(briefing.sources.nas?.alerts, undefined)
    assert.strictEqual(briefing.sources.ci?.status, "warning")
    const none = Collator.generate(snap, NOW).briefing
    assert.isUndefined(none.evaluation.inhibited)
    assert.strictEqual(none.sources.nas?.alerts, 2)
  })

  it("grouping: sources with the same problem share one group line, on top of their own lines", () => {
    const { briefing } = Collator.generate(
      snapshot({
        alerts: ["host-a", "host-b", "host-c"].map((host) =>
          alert(host, "ntp_drift", "warning", "Clock drift over 2s")
        ),
        statuses: [status("db")]
      }),
      NOW
    )
    assert.deepStrictEqual(briefing.groups, [
      {
        status: "warning",
        headline: "Clock drift over 2s",
        sources: ["host-a", "host-b", "host-c"],
        count: 3,
        drill_down: "awareness://alerts"
      }
    ])
    // Each source keeps its own line; the group is added on top (folding happens only when the budget forces it).
    // Most severe first: the healthy db comes last.
    assert.deepStrictEqual(Object.keys(briefing.sources), ["host-a", "host-b", "host-c", "db"])
    assert.strictEqual(briefing.sources["host-b"]?.drill_down, "awareness://alerts/host-b")
    assert.strictEqual(briefing.sources["host-b"]?.headline, "Clock drift over 2s")
    assert.strictEqual(briefing.summary, "3 warnings on host-a, host-b, host-c.")
    assert.strictEqual(briefing.suggested_mention, "FYI: Clock drift over 2s (3 sources: host-a, host-b, host-c)")
  })

  it("flap damping: a flapping alert keeps firing through a short resolution", () => {
    const changes = [ago(50 * 60), ago(40 * 60), ago(30 * 60), ago(60)]
    const flapping = alert("nas", "link", "warning", "Link down", { data: { resolved: true, state_changes: changes } })
    const { briefing } = Collator.generate(snapshot({ alerts: [flapping] }), NOW)
    assert.strictEqual(briefing.active_alerts, 1)
    assert.strictEqual(briefing.sources.nas?.flapping, true)
    assert.strictEqual(briefing.evaluation.flapping, 1)
    const calm = alert("nas", "link", "warning", "Link down", {
      data: { resolved: true, state_changes: changes.slice(2) }
    })
    assert.strictEqual(Collator.generate(snapshot({ alerts: [calm] }), NOW).briefing.active_alerts, 0)
  })

  it("acknowledgement holds an alert back until the acknowledgement timeout", () => {
    const acked = alert("nas", "disk", "warning", "Disk 91%", { age: 600, data: { acknowledged_at: ago(300) } })
    const held = Collator.generate(snapshot({ alerts: [acked] }), NOW).briefing
    assert.strictEqual(held.active_alerts, 0)
    assert.strictEqual(held.evaluation.acknowledged, 1)
    assert.isFalse(held.attention_needed)
    const later = Collator.generate(snapshot({ alerts: [acked] }), new Date(NOW.getTime() + 241 * 60_000), {
      escalationTimeoutMinutes: null
    }).briefing
    assert.strictEqual(later.active_alerts, 1)
  })

  it("escalation: an unacknowledged warning older than the timeout counts as critical", () => {
    const old = alert("nas", "disk", "warning", "Disk 91%", { age: 5 * 3600 })
    const { briefing } = Collator.generate(snapshot({ alerts: [old] }), NOW)
    assert.strictEqual(briefing.sources.nas?.status, "critical")
    assert.strictEqual(briefing.sources.nas?.escalated, true)
    assert.strictEqual(briefing.evaluation.escalated, 1)
    assert.strictEqual(briefing.suggested_mention, "CRITICAL: Disk 91%")
    const off = Collator.generate(snapshot({ alerts: [old] }), NOW, { escalationTimeoutMinutes: null }).briefing
    assert.strictEqual(off.sources.nas?.status, "warning")
    const young = Collator.generate(snapshot({ alerts: [alert("nas", "d", "warning", "x", { age: 60 })] }), NOW)
    assert.strictEqual(young.briefing.sources.nas?.status, "warning")
  })

  it("upcoming: intentions due within the horizon populate upcoming", () => {
    const soon = intention("Dentist", { source: "gcal", deliverIn: 30 * 60 })
    const later = intention("Flight", { source: "gcal", deliverIn: 90 * 60 })
    const short = Collator.generate(snapshot({ intentions: [later, soon] }), NOW).briefing
    assert.deepStrictEqual(short.upcoming, [
      { source: "gcal", summary: "Dentist", deliver_at: "2026-03-20T12:30:00Z", in_minutes: 30 }
    ])
    assert.isTrue(short.attention_needed)
    const long = Collator.generate(snapshot({ intentions: [later, soon] }), NOW, { upcomingHorizonMinutes: 120 })
    assert.deepStrictEqual(
      long.briefing.upcoming.map((u) => u.summary),
      ["Dentist", "Flight"]
    )
    assert.lengthOf(long.fired, 0)
  })

  it("the deprecated snake_case options still work, and the camelCase name wins when both are set", () => {
    const pairs: ReadonlyArray<readonly [Collator.Options, Collator.Options]> = [
      [{ upcomingHorizonMinutes: 120 }, { upcoming_horizon_minutes: 120 }],
      [{ inhibitRules: [{ equal: ["source"] }] }, { inhibit_rules: [{ equal: ["source"] }] }],
      [{ flapThreshold: 2 }, { flap_threshold: 2 }],
      [{ flapWindowMinutes: 5 }, { flap_window_minutes: 5 }],
      [{ acknowledgementTimeoutMinutes: 1 }, { acknowledgement_timeout_minutes: 1 }],
      [{ escalationTimeoutMinutes: null }, { escalation_timeout_minutes: null }],
      [{ resurfaceWindowMinutes: 1 }, { resurface_window_minutes: 1 }]
    ]
    const { zone: _zone, ...defaults } = settingsOf(NOW.getTime(), {})
    for (const [camel, snake] of pairs) {
      const { zone: _a, ...fromCamel } = settingsOf(NOW.getTime(), camel)
      const { zone: _b, ...fromSnake } = settingsOf(NOW.getTime(), snake)
      assert.deepStrictEqual(fromSnake, fromCamel, Object.keys(snake)[0])
      assert.notDeepEqual(fromCamel, defaults, Object.keys(camel)[0])
      const { zone: _c, ...both } = settingsOf(NOW.getTime(), { ...snake, ...camel, [Object.keys(snake)[0]!]: 7 })
      assert.deepStrictEqual(both, fromCamel, `${Object.keys(camel)[0]} wins`)
    }
    // End to end: the horizon, the staleness and the all-clear budget under either name.
    const soon = intention("Dentist", { source: "gcal", deliverIn: 30 * 60 })
    const later = intention("Flight", { source: "gcal", deliverIn: 90 * 60 })
    const snap = snapshot({ intentions: [later, soon] })
    const viaSnake = Collator.generate(snap, NOW, { upcoming_horizon_minutes: 120, staleness_sec: 7 }).briefing
    const viaCamel = Collator.generate(snap, NOW, { upcomingHorizonMinutes: 120, stalenessSec: 7 }).briefing
    assert.deepStrictEqual(viaSnake, viaCamel)
    assert.deepStrictEqual(
      viaCamel.upcoming.map((u) => u.summary),
      ["Dentist", "Flight"]
    )
    assert.strictEqual(viaCamel.staleness_sec, 7)
    // Counting characters, the default all-clear budget (200) binds and a larger one shows more.
    const calm = snapshot({ statuses: Array.from({ length: 12 }, (_, i) => status(`host-${i}`)) })
    const chars = (text: string) => text.length
    const tight = Collator.generate(calm, NOW, { countTokens: chars })
    const loose = Collator.generate(calm, NOW, { countTokens: chars, budget: { allClear: 5000 } })
    const looseAlias = Collator.generate(calm, NOW, { countTokens: chars, budget: { all_clear: 5000 } })
    assert.deepStrictEqual(looseAlias.briefing, loose.briefing)
    assert.isAbove(loose.tokens, tight.tokens)
  })

  it("snoozed intentions fire again when their new deliver_at passes", () => {
    const snoozed = intention("Stretch", { state: "snoozed", deliverIn: -1 })
    const { fired, briefing } = Collator.generate(snapshot({ intentions: [snoozed] }), NOW)
    assert.deepStrictEqual(fired, [snoozed])
    assert.strictEqual(briefing.pending_intentions, 0)
  })

  it("valid_until names the next instant the briefing can change", () => {
    const result = Collator.generate(
      snapshot({
        statuses: [status("nas", { age: 100, ttl: 120 })],
        intentions: [intention("Later", { deliverIn: 3 * 3600 })]
      }),
      NOW
    )
    assert.strictEqual(result.valid_until, "2026-03-20T12:00:20.001Z")
    assert.isNull(Collator.generate(snapshot(), NOW).valid_until)
  })

  it("countTokens is overridable", () => {
    const calls: Array<string> = []
    const { tokens } = Collator.generate(snapshot({ statuses: [status("nas")] }), NOW, {
      countTokens: (text) => {
        calls.push(text)
        return 7
      }
    })
    assert.strictEqual(tokens, 7)
    assert.isAbove(calls.length, 0)
  })
})

describe("Collator.generate: token budget", () => {
  const many = (n: number, make: (i: number) => ReturnType<typeof alert>) =>
    Array.from({ length: n }, (_, i) => make(i))

  it("an all-clear briefing over 1,000 sources stays under 200 tokens", () => {
    const statuses = Array.from({ length: 1000 }, (_, i) => status(`host-${i}`))
    const result = Collator.generate(snapshot({ statuses }), NOW)
    assert.isBelow(result.tokens, 200)
    assert.strictEqual(result.tokens, TokenCounter.countO200k(TokenCounter.toCompactJson(result.briefing)))
    assert.strictEqual(result.briefing.ok_sources, 1000)
    assert.strictEqual(result.briefing.summary, "All clear across 1000 sources.")
  })

  it("a briefing with many issues stays under 500 tokens, most severe first, the rest counted", () => {
    const alerts = [
      ...many(300, (i) =>
        alert(`warn-${i}`, `w${i}`, "warning", `Warning number ${i} with a fairly long message text`)
      ),
      ...many(5, (i) => alert(`crit-${i}`, `c${i}`, "critical", `Critical failure ${i}`))
    ]
    const result = Collator.generate(snapshot({ alerts }), NOW)
    assert.isBelow(result.tokens, 500)
    const shown = Object.values(result.briefing.sources)
    assert.isTrue(shown.slice(0, 5).every((line) => line.status === "critical"))
    const omitted = result.briefing.omitted?.sources ?? {}
    assert.strictEqual(shown.length + (omitted.warning ?? 0) + (omitted.critical ?? 0), 305)
    assert.strictEqual(result.briefing.active_alerts, 305)
    assert.strictEqual(result.briefing.omitted?.drill_down, "awareness://alerts")
    assert.include(result.briefing.summary, "5 critical on")
  })

  it("many sources with the same problem collapse into one group line", () => {
    const alerts = Array.from({ length: 500 }, (_, i) =>
      alert(`node-${i}`, "ntp_drift", "warning", "Clock drift over 2s")
    )
    const result = Collator.generate(snapshot({ alerts }), NOW)
    assert.isBelow(result.tokens, 500)
    assert.strictEqual(result.briefing.groups?.length, 1)
    assert.strictEqual(result.briefing.groups?.[0]?.count, 500)
    assert.isAtMost(result.briefing.groups?.[0]?.sources.length ?? 0, 5)
    assert.isUndefined(result.briefing.omitted)
  })

  it("intentions that do not fit stay pending instead of firing unseen", () => {
    const intentions = Array.from({ length: 50 }, (_, i) =>
      intention(`Reminder ${i}: ${"a long goal text that takes tokens ".repeat(4)}`, { deliverIn: -60 })
    )
    const result = Collator.generate(snapshot({ intentions }), NOW)
    assert.isBelow(result.tokens, 500)
    assert.isBelow(result.fired.length, 50)
    assert.isAbove(result.fired.length, 0)
    assert.strictEqual(result.briefing.fired_intentions?.length, result.fired.length)
    assert.strictEqual(result.briefing.pending_intentions, 50 - result.fired.length)
  })

  it("huge headlines are cut to fit", () => {
    const result = Collator.generate(snapshot({ alerts: [alert("nas", "x", "warning", "word ".repeat(5000))] }), NOW)
    assert.isBelow(result.tokens, 500)
    assert.strictEqual(result.briefing.sources.nas?.status, "warning")
  })
})

describe("Collator.generate: properties", () => {
  const sources = ["nas", "ci", "gcal", "db"]
  const tagPool = ["infra", "disk", "cpu", "backup"]
  const alertArb = fc.record({
    source: fc.constantFrom(...sources),
    id: fc.constantFrom("cpu_high", "disk_full", "backup_late", "link_down"),
    level: fc.constantFrom("warning" as const, "critical" as const),
    metric: fc.option(fc.constantFrom("cpu_pct", "disk_pct"), { nil: undefined }),
    tags: fc.subarray(tagPool)
  })
  const suppressionArb = fc.record({
    source: fc.constantFrom("", ...sources),
    metric: fc.option(fc.constantFrom("cpu_pct", "disk_pct"), { nil: null }),
    level: fc.constantFrom("warning" as const, "critical" as const),
    override: fc.boolean(),
    tags: fc.subarray(tagPool, { maxLength: 2 }),
    expiresIn: fc.integer({ min: -600, max: 3600 })
  })

  // An independent oracle for upstream's suppression rule.
  const rank = (level: string) => (level === "critical" ? 2 : 1)
  type A = typeof alertArb extends fc.Arbitrary<infer T> ? T : never
  type S = typeof suppressionArb extends fc.Arbitrary<infer T> ? T : never
  const oracleSuppressed = (a: A, sups: ReadonlyArray<S>, message: string) => {
    const ordered = [...sups.filter((s) => s.source === a.source), ...sups.filter((s) => s.source === "")]
    for (const s of ordered) {
      if (s.expiresIn <= 0) continue
      if (s.metric !== null && s.metric !== a.metric) continue
      const tagHit =
        s.tags.length === 0 ||
        s.tags.some(
          (t) =>
            a.tags.includes(t) || a.id.includes(t) || message.toLowerCase().includes(t) || (a.metric ?? "").includes(t)
        )
      if (!tagHit) continue
      return !(s.override && rank(a.level) > rank(s.level))
    }
    return false
  }

  it("a suppressed alert never surfaces unless it escalates", () => {
    fc.assert(
      fc.property(fc.array(alertArb, { maxLength: 12 }), fc.array(suppressionArb, { maxLength: 6 }), (alerts, sups) => {
        const unique = [...new Map(alerts.map((a) => [`${a.source}/${a.id}`, a])).values()]
        const entries = unique.map((a) =>
          alert(a.source, a.id, a.level, `alert ${a.id}`, {
            tags: a.tags,
            data: a.metric === undefined ? {} : { metric: a.metric }
          })
        )
        const supEntries = sups.map((s) =>
          suppression({
            source: s.source,
            metric: s.metric,
            level: s.level,
            override: s.override,
            tags: s.tags,
            expiresIn: s.expiresIn
          })
        )
        const { briefing } = Collator.generate(snapshot({ alerts: entries, suppressions: supEntries }), NOW, {
          escalationTimeoutMinutes: null
        })
        const expected = unique.filter((a) => !oracleSuppressed(a, sups, `alert ${a.id}`)).length
        assert.strictEqual(briefing.active_alerts, expected)
        assert.strictEqual(briefing.evaluation.suppressed, unique.length - expected)
        for (const [i, a] of unique.entries()) {
          // isSuppressed takes the list in upstream's order: the source's suppressions, then the global ones.
          const ordered = [
            ...supEntries.filter((e) => e.source === a.source),
            ...supEntries.filter((e) => e.source === "")
          ]
          assert.strictEqual(
            Suppression.isSuppressed(entries[i] as Entry.Entry, ordered, NOW),
            oracleSuppressed(a, sups, `alert ${a.id}`)
          )
        }
      })
    )
  })

  const snapshotArb = fc
    .record({
      statuses: fc.array(
        fc.record({ source: fc.string({ minLength: 1, maxLength: 30 }), age: fc.integer({ min: 0, max: 400 }) }),
        {
          maxLength: 60
        }
      ),
      alerts: fc.array(
        fc.record({
          source: fc.string({ minLength: 1, maxLength: 30 }),
          id: fc.string({ minLength: 1, maxLength: 20 }),
          level: fc.constantFrom("info" as const, "warning" as const, "critical" as const),
          message: fc.string({ maxLength: 400 }),
          age: fc.integer({ min: 0, max: 30_000 })
        }),
        { maxLength: 80 }
      ),
      intentions: fc.array(
        fc.record({ goal: fc.string({ maxLength: 300 }), deliverIn: fc.integer({ min: -3600, max: 7200 }) }),
        { maxLength: 30 }
      ),
      patterns: fc.array(fc.record({ effect: fc.string({ maxLength: 30 }) }), { maxLength: 5 })
    })
    .map((raw) =>
      snapshot({
        statuses: raw.statuses.map((s) => status(s.source, { age: s.age })),
        alerts: raw.alerts.map((a) => alert(a.source, a.id, a.level, a.message, { age: a.age })),
        intentions: raw.intentions.map((i) => intention(i.goal, { deliverIn: i.deliverIn })),
        patterns: raw.patterns.map((p) => pattern({ effect: p.effect }))
      })
    )

  it("the briefing never exceeds its token budget, also with each fired intention marked new as delivered", () => {
    fc.assert(
      fc.property(snapshotArb, (snap) => {
        const { briefing, tokens } = Collator.generate(snap, NOW)
        const delivered =
          briefing.fired_intentions === undefined
            ? briefing
            : { ...briefing, fired_intentions: briefing.fired_intentions.map((item) => ({ ...item, new: true })) }
        const counted = TokenCounter.countO200k(TokenCounter.toCompactJson(delivered))
        assert.strictEqual(tokens, counted)
        assert.isBelow(counted, briefing.attention_needed ? 500 : 200)
      }),
      { numRuns: 60 }
    )
  })

  it("evaluation counters add up", () => {
    fc.assert(
      fc.property(snapshotArb, (snap) => {
        const { briefing, fired } = Collator.generate(snap, NOW, { inhibitRules: [{ equal: ["source"] }] })
        const e = briefing.evaluation
        assert.strictEqual(
          e.alerts_checked,
          e.suppressed + e.pattern_matched + (e.inhibited ?? 0) + (e.acknowledged ?? 0) + e.surfaced
        )
        assert.strictEqual(e.surfaced, briefing.active_alerts)
        assert.strictEqual(e.intentions_fired, fired.length)
        assert.strictEqual(briefing.fired_intentions?.length ?? 0, fired.length)
        assert.strictEqual(e.intentions_pending, briefing.pending_intentions)
        // A stale source with a surfacing critical alert has a critical line (marked `stale`), so the count comes
        // from the input: sources whose latest status is older than its ttl_sec (120 s in these snapshots).
        const latest = new Map<string, number>()
        for (const s of snap.statuses) latest.set(s.source, Math.max(latest.get(s.source) ?? 0, Date.parse(s.created)))
        const stale = [...latest.values()].filter((time) => NOW.getTime() - time > 120_000).length
        assert.strictEqual(e.stale_sources, stale)
      }),
      { numRuns: 60 }
    )
  })
})

describe("Collator.generate: source names are data, never object keys with a meaning", () => {
  it("a source named __proto__ keeps its own line, in the briefing and in the agent's compact view", () => {
    const { briefing } = Collator.generate(
      snapshot({
        statuses: [status("__proto__"), status("ci")],
        alerts: [
          alert("__proto__", "disk", "critical", "Disk failed", { data: { labels: JSON.parse('{"__proto__":"x"}') } })
        ]
      }),
      NOW
    )
    assert.deepStrictEqual(Object.keys(briefing.sources).sort(), ["__proto__", "ci"])
    assert.strictEqual(Object.getPrototypeOf(briefing.sources), Object.prototype)
    assert.strictEqual(Object.getOwnPropertyDescriptor(briefing.sources, "__proto__")?.value.status, "critical")
    const compact = BriefingView.json(briefing)
    assert.deepStrictEqual(Object.keys(compact.sources).sort(), ["__proto__", "ci"])
    assert.include(JSON.stringify(compact), '"__proto__":{"status":"critical"')
  })
})

describe("Collator.generate: grouping keeps every source's own line", () => {
  it("two sources with the same alert_id keep their own headline and drill-down, with a group on top", () => {
    const { briefing } = Collator.generate(
      snapshot({
        statuses: [status("ci")],
        alerts: [
          alert("nas1", "cpu", "warning", "CPU high on nas1"),
          alert("nas2", "cpu", "warning", "CPU high on nas2")
        ]
      }),
      NOW
    )
    assert.deepStrictEqual(Object.keys(briefing.sources).sort(), ["ci", "nas1", "nas2"])
    assert.strictEqual(briefing.sources.nas1?.headline, "CPU high on nas1")
    assert.strictEqual(briefing.sources.nas2?.headline, "CPU high on nas2")
    assert.strictEqual(briefing.sources.nas1?.drill_down, "awareness://alerts/nas1")
    assert.strictEqual(briefing.sources.nas2?.drill_down, "awareness://alerts/nas2")
    assert.strictEqual(briefing.groups?.length, 1)
    assert.deepStrictEqual(briefing.groups?.[0]?.sources, ["nas1", "nas2"])
    assert.strictEqual(briefing.suggested_mention, "FYI: CPU high on nas1. FYI: CPU high on nas2")
  })

  it("sources fold into groups only when the budget forces it", () => {
    const alerts = Array.from({ length: 300 }, (_, i) =>
      alert(`node-${i}`, "ntp_drift", "warning", "Clock drift over 2s")
    )
    const { briefing, tokens } = Collator.generate(snapshot({ alerts }), NOW)
    assert.isBelow(tokens, 500)
    assert.strictEqual(briefing.groups?.[0]?.count, 300)
    assert.isBelow(Object.keys(briefing.sources).length, 300)
  })
})

describe("Collator.generate: critical sources win space before intentions", () => {
  const crowded = (intentions: number, goal: string) =>
    snapshot({
      alerts: [
        ...Array.from({ length: 3 }, (_, i) => alert(`crit-${i}`, `c${i}`, "critical", `Critical failure ${i}`)),
        ...Array.from({ length: 2000 }, (_, i) => alert(`warn-${i}`, `w${i}`, "warning", `Warning ${i}`))
      ],
      intentions: Array.from({ length: intentions }, (_, i) => intention(`${goal} ${i}`, { deliverIn: -60 }))
    })

  for (const goal of ["short", "Reminder medium text here", "x ".repeat(60)]) {
    for (const count of [10, 8]) {
      it(`3 critical + 2,000 warnings + ${count} due intentions (${goal.length}-char goals): every critical source is detailed`, () => {
        const { briefing, fired, tokens } = Collator.generate(crowded(count, goal), NOW)
        assert.isBelow(tokens, 500)
        for (let i = 0; i < 3; i++) {
          assert.strictEqual(briefing.sources[`crit-${i}`]?.status, "critical")
          assert.include(briefing.suggested_mention ?? "", `CRITICAL: Critical failure ${i}`)
        }
        // Intentions that did not fit stay pending.
        assert.strictEqual(briefing.pending_intentions, count - fired.length)
        assert.strictEqual(briefing.fired_intentions?.length ?? 0, fired.length)
      })
    }
  }
})

describe("Collator.generate: budgets are strict (under 200 / under 500)", () => {
  it("43 mixed alerts give fewer than 500 tokens", () => {
    const alerts = Array.from({ length: 43 }, (_, i) =>
      alert(`s${i}`, `a${i}`, i % 7 === 0 ? "critical" : "warning", `Problem ${i} `.repeat(1 + (i % 4)))
    )
    const { briefing, tokens } = Collator.generate(snapshot({ alerts }), NOW)
    assert.isBelow(tokens, 500)
    assert.isBelow(TokenCounter.countO200k(TokenCounter.toCompactJson(briefing)), 500)
  })

  it("an explicit budget is an exclusive upper bound", () => {
    for (const issues of [200, 333, 400]) {
      const alerts = Array.from({ length: 60 }, (_, i) => alert(`s${i}`, `a${i}`, "warning", `Problem ${i} `.repeat(3)))
      const { tokens } = Collator.generate(snapshot({ alerts }), NOW, { budget: { issues } })
      assert.isBelow(tokens, issues)
    }
  })
})

describe("Collator: malformed pattern conditions never match", () => {
  for (const conditions of ["friday", 42, true, ["day_of_week"]]) {
    it(`conditions ${JSON.stringify(conditions)} never match, in matchesPattern and generate`, () => {
      const cpu = alert("nas", "cpu_high", "warning", "CPU high")
      const bad = pattern({ effect: "cpu_high" })
      const malformed = { ...bad, data: { ...bad.data, conditions } }
      assert.isFalse(Pattern.matchesPattern(cpu, [malformed], NOW))
      const { briefing } = Collator.generate(snapshot({ alerts: [cpu], patterns: [malformed] }), NOW)
      assert.strictEqual(briefing.evaluation.pattern_matched, 0)
      assert.strictEqual(briefing.sources.nas?.status, "warning")
      assert.isDefined(Pattern.validateConditions(conditions))
    })
  }
})

describe("Collator.generate: invalid input fails with CollatorInputError", () => {
  it("an invalid Date names `now`", () => {
    try {
      Collator.generate(snapshot(), new Date("nope"))
      assert.fail("expected a CollatorInputError")
    } catch (error) {
      assert.instanceOf(error, Collator.CollatorInputError)
      assert.strictEqual((error as Collator.CollatorInputError)._tag, "CollatorInputError")
      assert.strictEqual((error as Collator.CollatorInputError).param, "now")
      assert.include((error as Collator.CollatorInputError).message, "now")
    }
  })

  it("an unknown timezone names `timezone`", () => {
    try {
      Collator.generate(snapshot(), NOW, { timezone: "Mars/Olympus" })
      assert.fail("expected a CollatorInputError")
    } catch (error) {
      assert.instanceOf(error, Collator.CollatorInputError)
      assert.strictEqual((error as Collator.CollatorInputError).param, "timezone")
      assert.include((error as Collator.CollatorInputError).message, "Mars/Olympus")
    }
    // A valid zone still works.
    assert.isFalse(Collator.generate(snapshot(), NOW, { timezone: "Europe/Berlin" }).briefing.attention_needed)
  })

  it("isSuppressed and matchesPattern reject an invalid Date and an unknown timezone too", () => {
    const cpu = alert("nas", "cpu_high", "warning", "CPU high")
    assert.throws(() => Suppression.isSuppressed(cpu, [], new Date(Number.NaN)), /now/)
    assert.throws(() => Pattern.matchesPattern(cpu, [], NOW, { timezone: "Nowhere/Land" }), /timezone/)
  })
})

// Below: the edges that mutation testing (issue #31) found unchecked.

const minutes = (n: number) => n * 60
/** The instant `seconds` after NOW, as valid_until writes it. */
const until = (seconds: number) => {
  const iso = new Date(NOW.getTime() + seconds * 1000).toISOString()
  return iso.endsWith(".000Z") ? `${iso.slice(0, -5)}Z` : iso
}
/** A status that never goes stale within these tests. */
const steady = (source: string) => status(source, { ttl: 10 ** 9 })

describe("Collator.generate: valid_until names the first change", () => {
  it("a status, an alert, a pattern or a suppression that expires ends the briefing's validity then", () => {
    const expiring = (seconds: number) => ({ expires: ahead(seconds) })
    const cases: ReadonlyArray<readonly [string, Collator.Snapshot, number]> = [
      ["status", snapshot({ statuses: [{ ...steady("nas"), ...expiring(600) }] }), 600],
      [
        "alert",
        snapshot({ alerts: [{ ...alert("nas", "raid", "critical", "RAID degraded"), ...expiring(700) }] }),
        700
      ],
      ["pattern", snapshot({ patterns: [{ ...pattern({ effect: "disk" }), ...expiring(800) }] }), 800],
      ["suppression", snapshot({ suppressions: [suppression({ expiresIn: 900 })] }), 900]
    ]
    for (const [kind, snap, seconds] of cases) {
      assert.strictEqual(Collator.generate(snap, NOW).valid_until, until(seconds), kind)
    }
  })

  it("a state change counts toward flapping until it leaves the flap window", () => {
    const changed = alert("nas", "link", "critical", "Link down", { data: { state_changes: [ago(minutes(50))] } })
    assert.strictEqual(Collator.generate(snapshot({ alerts: [changed] }), NOW).valid_until, until(minutes(10)))
  })

  it("a suppression that expired five minutes ago marks re-surfacing until the re-surface window closes", () => {
    const disk = alert("nas", "disk", "critical", "Disk failing", { age: 7200 })
    const expired = suppression({ source: "nas", level: "critical", createdAgo: 3600, expiresIn: -minutes(5) })
    const result = Collator.generate(snapshot({ alerts: [disk], suppressions: [expired] }), NOW, {
      resurfaceWindowMinutes: 10
    })
    assert.isTrue(result.briefing.sources.nas?.resurfaced)
    assert.strictEqual(result.valid_until, until(minutes(5)))
  })

  it("a recurring suppression or a timed pattern makes the briefing valid to the next minute only", () => {
    const windowed = suppression({
      expiresIn: 30 * 86_400,
      data: { time_intervals: [{ weekdays: ["monday"], times: [{ start_time: "11:00", end_time: "13:00" }] }] }
    })
    const outside = Collator.generate(snapshot({ suppressions: [windowed] }), NOW)
    assert.strictEqual(outside.valid_until, until(60))
    // outside its window it hides nothing, but it still counts as active
    assert.strictEqual(outside.briefing.active_suppressions, 1)
    const timed = pattern({ effect: "disk", conditions: { hour_range: [20, 22] } })
    assert.strictEqual(Collator.generate(snapshot({ patterns: [timed] }), NOW).valid_until, until(60))
    assert.isNull(Collator.generate(snapshot({ patterns: [pattern({ effect: "disk" })] }), NOW).valid_until)
  })

  it("an acknowledgement holds its alert back until the acknowledgement timeout, then it surfaces", () => {
    const acked = alert("nas", "raid", "critical", "RAID degraded", { age: 600, data: { acknowledged_at: ago(300) } })
    assert.strictEqual(Collator.generate(snapshot({ alerts: [acked] }), NOW).valid_until, until(minutes(240) - 300))
    const expiring = alert("nas", "raid", "critical", "RAID degraded", {
      age: minutes(300),
      data: { acknowledged_at: ago(minutes(240)) }
    })
    assert.strictEqual(Collator.generate(snapshot({ alerts: [expiring] }), NOW).briefing.active_alerts, 1)
  })

  it("an acknowledgement counts from the instant the alert fired, not for an earlier firing", () => {
    const sameInstant = alert("nas", "raid", "critical", "RAID degraded", {
      age: 600,
      data: { acknowledged_at: ago(600) }
    })
    assert.strictEqual(Collator.generate(snapshot({ alerts: [sameInstant] }), NOW).briefing.active_alerts, 0)
    const refired = alert("nas", "raid", "critical", "RAID degraded", {
      age: 600,
      data: { acknowledged_at: ago(600), state_changes: [ago(300)] }
    })
    const { briefing } = Collator.generate(snapshot({ alerts: [refired] }), NOW)
    assert.strictEqual(briefing.active_alerts, 1)
    assert.isUndefined(briefing.evaluation.acknowledged)
  })

  it("a young warning escalates one millisecond after the escalation timeout, not at it", () => {
    const young = alert("nas", "disk", "warning", "Disk 91%", { age: 60 })
    assert.strictEqual(
      Collator.generate(snapshot({ alerts: [young] }), NOW).valid_until,
      until(minutes(240) - 60 + 0.001)
    )
    // only warnings escalate: an old critical alert is not marked
    const oldCritical = Collator.generate(
      snapshot({ alerts: [alert("nas", "raid", "critical", "RAID degraded", { age: minutes(300) })] }),
      NOW
    ).briefing
    assert.isUndefined(oldCritical.sources.nas?.escalated)
    assert.isUndefined(oldCritical.evaluation.escalated)
    const exactly = alert("nas", "disk", "warning", "Disk 91%", { age: minutes(240) })
    const { briefing } = Collator.generate(snapshot({ alerts: [exactly] }), NOW)
    assert.strictEqual(briefing.sources.nas?.status, "warning")
    assert.isUndefined(briefing.evaluation.escalated)
  })

  it("an intention due beyond the horizon changes the briefing when it enters the horizon; a near one when due", () => {
    const far = intention("Flight", { deliverIn: minutes(120) })
    assert.strictEqual(Collator.generate(snapshot({ intentions: [far] }), NOW).valid_until, until(minutes(60)))
    const near = intention("Tea", { deliverIn: 30 })
    assert.strictEqual(Collator.generate(snapshot({ intentions: [near] }), NOW).valid_until, until(30))
  })
})

describe("Collator.generate: edges of the windows", () => {
  const resolvedWith = (changes: ReadonlyArray<string>) =>
    alert("nas", "link", "critical", "Link down", { data: { resolved: true, state_changes: [...changes] } })
  const flapping = (changes: ReadonlyArray<string>) =>
    Collator.generate(snapshot({ alerts: [resolvedWith(changes)] }), NOW, { flapThreshold: 1 }).briefing.active_alerts

  it("a state change now counts toward flapping; one exactly a flap window ago or in the future does not", () => {
    assert.strictEqual(flapping([ago(0)]), 1)
    assert.strictEqual(flapping([ago(minutes(60))]), 0)
    assert.strictEqual(flapping([ahead(60)]), 0)
  })

  it("a suppression expiring now no longer hides its alert, and the alert re-surfaces", () => {
    const disk = alert("nas", "disk", "critical", "Disk failing", { age: 7200 })
    const ending = suppression({ source: "nas", level: "critical", createdAgo: 3600, expiresIn: 0 })
    const { briefing } = Collator.generate(snapshot({ alerts: [disk], suppressions: [ending] }), NOW)
    assert.strictEqual(briefing.active_alerts, 1)
    assert.strictEqual(briefing.active_suppressions, 0)
    assert.isTrue(briefing.sources.nas?.resurfaced)
  })

  it("a suppression that expired exactly a re-surface window ago no longer marks its alert", () => {
    const disk = alert("nas", "disk", "critical", "Disk failing", { age: 7200 })
    const old = suppression({ source: "nas", level: "critical", createdAgo: 3600, expiresIn: -minutes(10) })
    const { briefing } = Collator.generate(snapshot({ alerts: [disk], suppressions: [old] }), NOW, {
      resurfaceWindowMinutes: 10
    })
    assert.strictEqual(briefing.sources.nas?.status, "critical")
    assert.isUndefined(briefing.sources.nas?.resurfaced)
  })

  it("a global suppression that expired re-surfaces the alerts it hid", () => {
    const disk = alert("nas", "disk", "critical", "Disk failing", { age: 7200 })
    const global = suppression({ level: "critical", createdAgo: 3600, expiresIn: -60 })
    const { briefing } = Collator.generate(snapshot({ alerts: [disk], suppressions: [global] }), NOW)
    assert.isTrue(briefing.sources.nas?.resurfaced)
  })

  it("a deleted suppression hides nothing; one without a deleted field does", () => {
    const disk = alert("nas", "disk", "warning", "Disk 91%")
    const deleted = { ...suppression({ source: "nas" }), deleted: ago(5) }
    const gone = Collator.generate(snapshot({ alerts: [disk], suppressions: [deleted] }), NOW).briefing
    assert.strictEqual(gone.active_alerts, 1)
    assert.strictEqual(gone.active_suppressions, 0)
    const { deleted: _, ...noField } = suppression({ source: "nas" })
    const kept = Collator.generate(snapshot({ alerts: [disk], suppressions: [noField as Entry.Entry] }), NOW).briefing
    assert.strictEqual(kept.active_alerts, 0)
  })
})

describe("Collator.generate: staleness", () => {
  it("a status without a usable ttl_sec goes stale after 120 seconds", () => {
    const without = (age: number, ttl: unknown) => {
      const entry = status("nas", { age })
      return { ...entry, data: { metrics: {}, ...(ttl === undefined ? {} : { ttl_sec: ttl }) } }
    }
    for (const ttl of [undefined, "soon"]) {
      const fresh = Collator.generate(snapshot({ statuses: [without(100, ttl)] }), NOW)
      assert.strictEqual(fresh.briefing.sources.nas?.status, "ok", String(ttl))
      assert.strictEqual(fresh.valid_until, until(20.001), String(ttl))
      const old = Collator.generate(snapshot({ statuses: [without(130, ttl)] }), NOW)
      assert.strictEqual(old.briefing.sources.nas?.status, "stale", String(ttl))
    }
  })

  it("the stale headline counts whole seconds", () => {
    const { briefing } = Collator.generate(snapshot({ statuses: [status("nas", { age: 300.9 })] }), NOW)
    assert.strictEqual(briefing.sources.nas?.headline, "nas has not reported in 300s")
  })

  it("of two statuses of one source with the same time, the first in the snapshot counts", () => {
    const first = status("nas", { headline: "first" })
    const second = status("nas", { headline: "second" })
    const { briefing } = Collator.generate(snapshot({ statuses: [first, second] }), NOW)
    assert.strictEqual(briefing.sources.nas?.headline, "first")
  })

  it("a status whose updated is not a timestamp reports its created time", () => {
    const entry = { ...status("nas"), updated: "yesterday" }
    const { briefing } = Collator.generate(snapshot({ statuses: [entry] }), NOW)
    assert.strictEqual(briefing.sources.nas?.last_report, ago(10))
  })
})

describe("Collator.generate: intentions", () => {
  it("an intention due now fires; one due exactly at the horizon is upcoming, its minutes rounded up", () => {
    const now = intention("Now", { deliverIn: 0 })
    const edge = intention("Edge", { deliverIn: minutes(60) })
    const soon = intention("Soon", { deliverIn: 90 })
    const { briefing, fired } = Collator.generate(snapshot({ intentions: [edge, now, soon] }), NOW)
    assert.deepStrictEqual(fired, [now])
    assert.deepStrictEqual(
      briefing.upcoming.map((item) => [item.summary, item.in_minutes]),
      [
        ["Soon", 2],
        ["Edge", 60]
      ]
    )
  })

  it("an upcoming item without a goal is summarised by its description, else left empty", () => {
    const described = {
      ...intention("", { deliverIn: 600 }),
      data: { description: "Pay rent", deliver_at: ahead(600) }
    }
    const bare = { ...intention("", { deliverIn: 1200 }), data: { deliver_at: ahead(1200) } }
    const { briefing } = Collator.generate(snapshot({ intentions: [described, bare] }), NOW)
    assert.deepStrictEqual(
      briefing.upcoming.map((item) => item.summary),
      ["Pay rent", ""]
    )
    // no state reads as pending
    assert.strictEqual(briefing.pending_intentions, 2)
  })

  it("fired intentions come most urgent first, then the most recently due; only pending and snoozed ones fire", () => {
    const low = intention("low", { deliverIn: -10, urgency: "low" })
    const oldNormal = intention("old normal", { deliverIn: -600 })
    const newNormal = intention("new normal", { deliverIn: -60 })
    const high = intention("high", { deliverIn: -900, urgency: "high" })
    const done = intention("done", { deliverIn: -60, state: "fired" })
    const { fired, briefing } = Collator.generate(
      snapshot({ intentions: [low, oldNormal, done, newNormal, high] }),
      NOW
    )
    assert.deepStrictEqual(
      fired.map((entry) => entry.data.goal),
      ["high", "new normal", "old normal", "low"]
    )
    // the four fired pending ones are no longer pending, and the one fired before never was
    assert.strictEqual(briefing.pending_intentions, 0)
  })
})

describe("Collator.generate: inhibition rules", () => {
  it("a rule's own levels: a warning mutes info alerts with the same labels, and a label absent on both is equal", () => {
    const snap = snapshot({
      alerts: [
        alert("nas", "disk", "warning", "Disk 91%", { age: 60 }),
        alert("nas", "smart", "info", "SMART check due"),
        alert("ci", "note", "info", "CI note")
      ]
    })
    const { briefing } = Collator.generate(snap, NOW, {
      inhibitRules: [{ source_level: "warning", target_level: "info", equal: ["source", "region"] }]
    })
    assert.strictEqual(briefing.evaluation.inhibited, 1)
    // the info alert is the one muted: the warning keeps nas's line
    assert.strictEqual(briefing.sources.nas?.status, "warning")
    assert.strictEqual(briefing.sources.ci?.status, "info")
  })

  it("a label missing on one alert equals the same label left empty on the other", () => {
    const { briefing } = Collator.generate(
      snapshot({
        alerts: [
          alert("nas", "down", "critical", "NAS down", { data: { labels: { team: "" } } }),
          alert("ci", "slow", "warning", "CI slow", { age: 60 })
        ]
      }),
      NOW,
      { inhibitRules: [{ equal: ["team"] }] }
    )
    assert.strictEqual(briefing.evaluation.inhibited, 1)
  })
})

describe("Collator.generate: lines and groups", () => {
  it("a critical alert of a stale source is not grouped with the same alert of a reporting one", () => {
    const { briefing } = Collator.generate(
      snapshot({
        statuses: [status("a", { age: 300 }), status("b"), status("c")],
        alerts: ["a", "b", "c"].map((source) => alert(source, "db_down", "critical", "Database down"))
      }),
      NOW
    )
    assert.deepStrictEqual(
      briefing.groups?.map((group) => group.sources),
      [["b", "c"]]
    )
  })

  it("an info alert makes its source info, pointing at its alerts", () => {
    const { briefing } = Collator.generate(
      snapshot({ alerts: [alert("nas", "smart", "info", "SMART check due")] }),
      NOW
    )
    assert.deepStrictEqual(briefing.sources.nas, {
      status: "info",
      last_report: null,
      headline: "SMART check due",
      drill_down: "awareness://alerts/nas"
    })
  })

  it("inhibition compares each listed label on its own, not their concatenation", () => {
    const { briefing } = Collator.generate(
      snapshot({
        alerts: [alert("ab", "c", "critical", "down"), alert("a", "bc", "warning", "slow", { age: 60 })]
      }),
      NOW,
      { inhibitRules: [{ equal: ["source", "alert_id"] }] }
    )
    assert.isUndefined(briefing.evaluation.inhibited)
    assert.strictEqual(briefing.active_alerts, 2)
  })

  it("an upcoming item keeps the briefing valid to the next minute only, since its in_minutes changes", () => {
    const soon = intention("Dentist", { deliverIn: minutes(30) })
    assert.strictEqual(Collator.generate(snapshot({ intentions: [soon] }), NOW).valid_until, until(60))
  })
})

describe("Collator.generate: a caller's token counter", () => {
  it("is asked even when the briefing's size would fit, so a counter above one token per byte keeps the budget", () => {
    const snap = snapshot({ statuses: Array.from({ length: 12 }, (_, i) => status(`host-${i}`)) })
    const bytes = (text: string) => text.length
    const size = Collator.generate(snap, NOW, { countTokens: bytes, budget: { allClear: 10_000 } }).tokens
    // the whole briefing is `size` bytes, under the budget, but three times as many tokens, exactly the budget
    const budget = size * 3
    const { tokens, briefing } = Collator.generate(snap, NOW, {
      countTokens: (text) => bytes(text) * 3,
      budget: { allClear: budget }
    })
    assert.isBelow(tokens, budget)
    assert.strictEqual(briefing.summary, "All clear across 12 sources.")
  })
})

describe("Collator.generate: what is read", () => {
  it("a more recent but less severe alert does not take the headline", () => {
    const { briefing } = Collator.generate(
      snapshot({
        alerts: [
          alert("nas", "raid", "critical", "RAID degraded", { updatedAgo: 50 }),
          alert("nas", "disk", "warning", "Disk 91%", { updatedAgo: 5 })
        ]
      }),
      NOW
    )
    assert.strictEqual(briefing.sources.nas?.status, "critical")
    assert.strictEqual(briefing.sources.nas?.headline, "RAID degraded")
  })

  it("deleted statuses, patterns and intentions are left out", () => {
    const gone = { deleted: ago(5) }
    const { briefing, fired } = Collator.generate(
      snapshot({
        statuses: [{ ...status("old"), ...gone }],
        alerts: [alert("nas", "qbittorrent_stopped", "warning", "qBittorrent stopped")],
        patterns: [{ ...pattern({ source: "nas", effect: "qbittorrent stopped" }), ...gone }],
        intentions: [{ ...intention("Call", { deliverIn: -60 }), ...gone }]
      }),
      NOW
    )
    assert.deepStrictEqual(Object.keys(briefing.sources), ["nas"])
    assert.strictEqual(briefing.sources.nas?.status, "warning")
    assert.lengthOf(fired, 0)
  })
})
