/**
 * What `get_briefing` returns: compact JSON by default, the full briefing with `explain`, plain text on request;
 * and the token targets of issue 15 (o200k, compact).
 */
import { assert, describe, it } from "@effect/vitest"
import { TokenCounter } from "@heed/schema"
import { BriefingView, Collator } from "../src/index.ts"
import { ago, alert, intention, NOW, snapshot, status, suppression } from "./fixtures.ts"

const allClear = snapshot({
  statuses: ["synology-nas", "gcal", "github-ci"].map((source) => status(source, { ttl: 600 })),
  suppressions: [suppression({ tags: ["backup"] })]
})

// 1 critical + 1 stale + 1 intention.
const issues = snapshot({
  statuses: [status("db"), status("ci", { age: 300 }), status("nas")],
  alerts: [alert("db", "db_down", "critical", "Database down")],
  intentions: [
    {
      ...intention("Call the plumber", { source: "home" }),
      data: { goal: "Call the plumber", state: "pending", deliver_at: ago(60) }
    }
  ]
})

describe("BriefingView.json", () => {
  it("leaves out evaluation and healthy sources' timestamps unless asked to explain", () => {
    const { briefing } = Collator.generate(issues, NOW)
    const compact = BriefingView.json(briefing)
    assert.isUndefined(compact.evaluation)
    assert.deepStrictEqual(compact.sources.nas, { status: "ok" })
    // Problem sources keep their timestamp: when a source last reported matters there.
    assert.strictEqual(compact.sources.ci?.last_report, ago(300))
    assert.strictEqual(compact.sources.db?.last_report, ago(10))
    assert.deepStrictEqual(BriefingView.json(briefing, { explain: true }), briefing)
  })
})

describe("BriefingView.text", () => {
  it("all clear is one line", () => {
    const { briefing } = Collator.generate(allClear, NOW)
    assert.strictEqual(BriefingView.text(briefing), "All clear across 3 sources. 1 suppression active.")
  })

  it("one line per item, most severe first", () => {
    const { briefing } = Collator.generate(issues, NOW)
    const id = briefing.fired_intentions?.[0]?.id
    assert.strictEqual(
      BriefingView.text(briefing),
      [
        "1 critical on db. ci stale. 1 intention ready.",
        "CRITICAL db: Database down",
        "STALE ci: ci has not reported in 300s",
        `INTENTION ${id}: Call the plumber`,
        "OK 1 source"
      ].join("\n")
    )
  })

  it("explain adds when it was generated and the evaluation", () => {
    const { briefing } = Collator.generate(allClear, NOW)
    assert.strictEqual(
      BriefingView.text(briefing, { explain: true }),
      "2026-03-20T12:00:00Z All clear across 3 sources. 1 suppression active.\n" +
        "EVALUATION alerts_checked 0, suppressed 0, pattern_matched 0, stale_sources 0, surfaced 0, " +
        "intentions_pending 0, intentions_fired 0"
    )
  })

  it("groups, upcoming items and what did not fit", () => {
    const hosts = ["h1", "h2", "h3"]
    const { briefing } = Collator.generate(
      snapshot({
        alerts: hosts.map((host) => alert(host, "ntp", "warning", "Clock drift")),
        intentions: [intention("Dentist", { source: "gcal", deliverIn: 25 * 60 })]
      }),
      NOW
    )
    assert.strictEqual(
      BriefingView.text(briefing),
      [
        "3 warnings on h1, h2, h3. 1 upcoming item.",
        "WARNING 3 sources (h1, h2, h3): Clock drift",
        "UPCOMING in 25 min (gcal): Dentist"
      ].join("\n")
    )
  })
})

describe("token targets (o200k, compact)", () => {
  it("all clear: at most 60 tokens as text and 100 as JSON", () => {
    const { briefing } = Collator.generate(allClear, NOW)
    assert.isAtMost(TokenCounter.countO200k(BriefingView.text(briefing)), 60)
    assert.isAtMost(TokenCounter.countO200k(TokenCounter.toCompactJson(BriefingView.json(briefing))), 100)
  })

  it("1 critical + 1 stale + 1 intention: at most 120 tokens as text", () => {
    const { briefing } = Collator.generate(issues, NOW)
    assert.isAtMost(TokenCounter.countO200k(BriefingView.text(briefing)), 120)
  })
})
