/**
 * The briefing as an agent reads it: nothing critical hidden by staleness, the mention and the sources most severe
 * first, upcoming items with their due time, counted words in the right number, and dates that exist.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { TestClock } from "effect/testing"
import { Awareness, AwarenessTools, Collator, Entry, Mention, Store } from "../src/index.ts"
import { parseIso } from "../src/internal/time.ts"
import { ago, alert, intention, NOW, snapshot, status } from "./fixtures.ts"

describe("staleness never hides a critical alert", () => {
  const snap = snapshot({
    statuses: [status("ci1"), status("ci2", { age: 300 }), status("nas")],
    alerts: [
      alert("ci1", "queue", "warning", "Queue backing up"),
      alert("ci2", "db_down", "critical", "Database down"),
      alert("ci2", "slow", "warning", "Slow builds"),
      alert("nas", "disk", "critical", "Disk failing")
    ]
  })

  it("a stale source with a critical alert is critical and stale: the alert keeps the headline and counts", () => {
    const { briefing } = Collator.generate(snap, NOW)
    assert.strictEqual(briefing.active_alerts, 3)
    assert.deepStrictEqual(briefing.sources.ci2, {
      status: "critical",
      last_report: ago(300),
      headline: "Database down",
      drill_down: "awareness://alerts/ci2",
      stale: true
    })
    assert.strictEqual(briefing.summary, "2 critical on ci2, nas. 1 warning on ci1. ci2 stale.")
    assert.include(briefing.suggested_mention ?? "", "CRITICAL: Database down (ci2 stopped reporting).")
    assert.strictEqual(briefing.evaluation.stale_sources, 1)
    // The stale source's warning stays behind its staleness (upstream's rule), so 4 - 1 alerts are checked.
    assert.strictEqual(briefing.evaluation.alerts_checked, 3)
    assert.strictEqual(briefing.evaluation.surfaced, 3)
  })

  it("a stale source whose only alerts are warnings is stale, as before", () => {
    const { briefing } = Collator.generate(
      snapshot({ statuses: [status("ci2", { age: 300 })], alerts: [alert("ci2", "slow", "warning", "Slow builds")] }),
      NOW
    )
    assert.strictEqual(briefing.sources.ci2?.status, "stale")
    assert.strictEqual(briefing.active_alerts, 0)
  })
})

describe("suggested_mention: most severe first, items separated", () => {
  it("critical before FYI, then intentions, each item ending a sentence", () => {
    const { briefing } = Collator.generate(
      snapshot({
        statuses: [status("aaa"), status("zzz")],
        alerts: [alert("aaa", "disk", "warning", "Disk 85% full"), alert("zzz", "db", "critical", "Database down")],
        intentions: [
          {
            ...intention("call the plumber", { source: "payments" }),
            data: { goal: "call the plumber", state: "pending", deliver_at: ago(60) }
          }
        ]
      }),
      NOW
    )
    assert.strictEqual(
      briefing.suggested_mention,
      "CRITICAL: Database down. FYI: Disk 85% full. INTENTION: call the plumber"
    )
  })

  it("an item that already ends a sentence gets no second full stop", () => {
    const mention = Mention.composeMention({
      sources: {
        a: { status: "warning", headline: "Backups late!" },
        b: { status: "critical", headline: "Power lost." }
      },
      upcoming: []
    })
    assert.strictEqual(mention, "CRITICAL: Power lost. FYI: Backups late!")
  })
})

describe("sources: most severe first, then the most recent", () => {
  it("a critical zzz comes before a healthy aaa; equal statuses go newest first", () => {
    const { briefing } = Collator.generate(
      snapshot({
        statuses: [status("aaa", { age: 50 }), status("bbb", { age: 5 }), status("mmm"), status("zzz")],
        alerts: [alert("zzz", "db", "critical", "Database down"), alert("mmm", "disk", "warning", "Disk 85% full")]
      }),
      NOW
    )
    assert.deepStrictEqual(Object.keys(briefing.sources), ["zzz", "mmm", "bbb", "aaa"])
  })

  it("when the budget is tight, healthy sources collapse to a count before any problem is left out", () => {
    const healthy = Array.from({ length: 8 }, (_, i) => status(`ok${i}`))
    const sick = ["sick-0", "sick-1", "sick-2"]
    const { briefing } = Collator.generate(
      snapshot({
        statuses: [...healthy, ...sick.map((source) => status(source))],
        alerts: sick.map((source, i) => alert(source, `problem_${i}`, "warning", `Problem number ${i} on ${source}`))
      }),
      NOW,
      { budget: { issues: 400 } }
    )
    assert.isUndefined(briefing.omitted)
    assert.strictEqual(briefing.ok_sources, 8)
    assert.deepStrictEqual(Object.keys(briefing.sources).sort(), sick)
  })
})

describe("upcoming items carry their due time", () => {
  it("deliver_at and the minutes until then; the mention says when", () => {
    const { briefing } = Collator.generate(
      snapshot({ intentions: [intention("Dentist", { source: "gcal", deliverIn: 40 * 60 - 30 })] }),
      NOW
    )
    assert.deepStrictEqual(briefing.upcoming, [
      { source: "gcal", summary: "Dentist", deliver_at: "2026-03-20T12:39:30Z", in_minutes: 40 }
    ])
    assert.strictEqual(briefing.suggested_mention, "UPCOMING in 40 min: Dentist")
  })
})

describe("grammar", () => {
  it("counts agree with their nouns: 2 warnings, 1 more source needs attention", () => {
    assert.strictEqual(
      Mention.composeSummary({
        attention_needed: true,
        source_count: 3,
        critical: [],
        warning: ["a", "b"],
        stale: [],
        upcoming: 0,
        intentions: 0
      }),
      "2 warnings on a, b."
    )
    // Two critical sources and a tiny budget: one is detailed, one left out.
    const { briefing } = Collator.generate(
      snapshot({
        alerts: [alert("db1", "down", "critical", "Database down"), alert("db2", "disk", "critical", "Disk failing")]
      }),
      NOW,
      { budget: { issues: 180 } }
    )
    assert.deepStrictEqual(briefing.omitted?.sources, { critical: 1 })
    assert.strictEqual(briefing.suggested_mention, "CRITICAL: Database down. 1 more source needs attention.")
  })
})

describe("dates: naive means UTC, impossible dates are rejected", () => {
  it("parseIso rejects February 30th and 23:60 instead of rolling them over", () => {
    assert.isUndefined(parseIso("2027-02-30T10:00:00Z"))
    assert.isUndefined(parseIso("2027-02-30T10:00:00+01:00"))
    assert.isUndefined(parseIso("2027-02-30"))
    assert.isUndefined(parseIso("2027-04-31T10:00"))
    assert.isUndefined(parseIso("2027-03-01T23:60:00Z"))
    assert.strictEqual(parseIso("2027-03-01T10:00"), Date.parse("2027-03-01T10:00:00Z"))
    assert.strictEqual(parseIso("2028-02-29T10:00:00+01:00"), Date.parse("2028-02-29T09:00:00Z"))
  })

  it("a timestamp that does not exist fails the IsoTimestamp schema", () => {
    assert.throws(() => Schema.decodeUnknownSync(Entry.IsoTimestamp)("2027-02-30T10:00:00Z"), /ISO 8601 timestamp/)
    assert.strictEqual(Schema.decodeUnknownSync(Entry.IsoTimestamp)("2027-02-28T10:00:00Z"), "2027-02-28T10:00:00Z")
  })

  it.effect("remind with deliver_at 2027-02-30 is invalid_parameter naming deliver_at; a naive time is UTC", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(NOW.getTime())
      const awareness = yield* Awareness.Awareness
      const error = yield* Effect.flip(
        AwarenessTools.call("remind", { goal: "Pay rent", source: "home", tags: [], deliver_at: "2027-02-30T10:00:00" })
      )
      assert.strictEqual(error.code, "invalid_parameter")
      assert.strictEqual(error.param, "deliver_at")
      yield* AwarenessTools.call("remind", {
        goal: "Pay rent",
        source: "home",
        tags: [],
        deliver_at: "2026-03-20T12:30"
      })
      const { upcoming } = yield* awareness.getBriefing()
      assert.strictEqual(upcoming[0]?.deliver_at, "2026-03-20T12:30:00Z")
      assert.strictEqual(upcoming[0]?.in_minutes, 30)
    }).pipe(Effect.provide(Awareness.layer.pipe(Layer.provideMerge(Store.layerMemory))))
  )
})
