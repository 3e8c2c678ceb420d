/**
 * The briefing speaks only when it should (issue 26): `attention_needed` only for what needs the person, grouped
 * alerts keep every distinct message, the mention says identical items once, and nothing is cut silently.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { Awareness, BriefingView, Collator, Store } from "../src/index.ts"
import { alert, intention, NOW, snapshot, status, suppression } from "./fixtures.ts"

describe("Collator.generate: attention_needed only when something needs the person", () => {
  it("an info headline alone (the README's --headline 'all disks ok') is shown and counted, not alarming", () => {
    const { briefing } = Collator.generate(snapshot({ statuses: [status("nas", { headline: "all disks ok" })] }), NOW)
    assert.isFalse(briefing.attention_needed)
    assert.isUndefined(briefing.suggested_mention)
    assert.strictEqual(briefing.sources.nas?.status, "info")
    assert.strictEqual(briefing.sources.nas?.headline, "all disks ok")
    assert.strictEqual(briefing.summary, "All clear across 1 source. 1 info on nas.")
    assert.strictEqual(BriefingView.text(briefing), "All clear across 1 source. 1 info on nas.\nINFO nas: all disks ok")
  })

  it("a source whose only alert is suppressed needs no attention, even with a status headline", () => {
    const { briefing } = Collator.generate(
      snapshot({
        statuses: [status("nas", { headline: "scrub running" })],
        alerts: [alert("nas", "scrub", "warning", "Scrub slows the disks", { tags: ["scrub"] })],
        suppressions: [suppression({ source: "nas", tags: ["scrub"] })]
      }),
      NOW
    )
    assert.strictEqual(briefing.evaluation.suppressed, 1)
    assert.strictEqual(briefing.active_alerts, 0)
    assert.isFalse(briefing.attention_needed)
    assert.isUndefined(briefing.suggested_mention)
  })

  it("a surfaced alert, a stale source, a fired intention and an upcoming item each set it", () => {
    const cases = [
      snapshot({ statuses: [status("nas")], alerts: [alert("nas", "disk", "warning", "Disk 91%")] }),
      snapshot({ statuses: [status("nas", { age: 600 })] }),
      snapshot({ intentions: [intention("Call the plumber", { deliverIn: -60 })] }),
      snapshot({ intentions: [intention("Stand-up", { deliverIn: 600 })] })
    ]
    for (const input of cases) {
      const { briefing } = Collator.generate(input, NOW)
      assert.isTrue(briefing.attention_needed, JSON.stringify(briefing.summary))
      assert.isString(briefing.suggested_mention)
    }
  })
})

describe("Collator.generate: grouped alerts keep every distinct message", () => {
  it("a folded group lists its sources' other messages and counts them; the mention names how many differ", () => {
    const alerts = Array.from({ length: 120 }, (_, i) =>
      alert(`db${i}`, "replica_lag", "critical", `Replica lag ${i % 4 === 0 ? 45 : 30} s on the replica set`)
    )
    const { briefing } = Collator.generate(snapshot({ alerts }), NOW)
    const group = briefing.groups?.[0]
    assert.isDefined(group)
    assert.strictEqual(group?.count, 120)
    assert.strictEqual(group?.distinct, 2)
    assert.deepStrictEqual([group?.headline, ...(group?.headlines ?? [])].sort(), [
      "Replica lag 30 s on the replica set",
      "Replica lag 45 s on the replica set"
    ])
    assert.include(briefing.suggested_mention, "(+1 other message)")
    assert.include(BriefingView.text(briefing), "Replica lag 45 s on the replica set; Replica lag 30 s")
  })

  it("two sources with one alert_id: the text view keeps both messages", () => {
    const { briefing } = Collator.generate(
      snapshot({
        alerts: [
          alert("db390", "replica_lag", "critical", "Replica lag 45 s on db390"),
          alert("db1280", "replica_lag", "critical", "Replica lag 30 s on db1280")
        ]
      }),
      NOW
    )
    const text = BriefingView.text(briefing)
    assert.include(text, "Replica lag 45 s on db390")
    assert.include(text, "Replica lag 30 s on db1280")
    assert.strictEqual(briefing.groups?.[0]?.distinct, 2)
  })
})

describe("Collator.generate: the mention says identical items once, with a count", () => {
  it("two identical intentions", () => {
    const { briefing } = Collator.generate(
      snapshot({
        intentions: [
          intention("Call the plumber", { deliverIn: -60 }),
          intention("Call the plumber", { deliverIn: -120 })
        ]
      }),
      NOW
    )
    assert.lengthOf(briefing.fired_intentions ?? [], 2)
    assert.strictEqual(briefing.suggested_mention, "INTENTION: Call the plumber (×2)")
  })
})

describe("Collator.generate: nothing is cut silently", () => {
  it("46 due intentions: those left out are counted in omitted and named in the summary and mention", () => {
    const intentions = Array.from({ length: 46 }, (_, i) =>
      intention(`Reminder ${i}: ${"a long goal text that takes tokens ".repeat(4)}`, { deliverIn: -60 - i })
    )
    const { briefing, fired } = Collator.generate(snapshot({ intentions }), NOW)
    const shown = briefing.fired_intentions?.length ?? 0
    assert.isAbove(shown, 0)
    assert.isBelow(shown, 46)
    assert.strictEqual(fired.length, shown)
    assert.strictEqual(briefing.omitted?.intentions, 46 - shown)
    assert.include(briefing.summary, `${46 - shown} more fired reminders`)
    assert.include(briefing.suggested_mention, `${46 - shown} more fired reminders`)
    assert.include(BriefingView.text(briefing), `+${46 - shown} more fired reminders`)
    // The most recent are kept: Reminder 0 came due last.
    assert.include(briefing.fired_intentions?.[0]?.goal, "Reminder 0:")
  })

  it("sources left out carry their alerts in omitted.alerts", () => {
    const alerts = Array.from({ length: 300 }, (_, i) =>
      alert(`warn-${i}`, `w${i}`, "warning", `Warning number ${i} with a fairly long message text`)
    )
    const { briefing } = Collator.generate(snapshot({ alerts }), NOW)
    const omittedSources = Object.values(briefing.omitted?.sources ?? {}).reduce((a, b) => a + b, 0)
    assert.isAbove(omittedSources, 0)
    assert.strictEqual(briefing.omitted?.alerts, omittedSources)
  })
})

describe("Awareness: a newly fired intention is never dropped in favour of older ones", () => {
  const START = Date.parse("2026-03-20T12:00:00Z")
  it.effect("46 fired and unacknowledged, then one more: it stays listed on every later read", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(START)
      const awareness = yield* Awareness.Awareness
      for (let i = 0; i < 46; i++) {
        yield* awareness.remind({
          goal: `Old reminder ${i}: ${"a long goal text that takes tokens ".repeat(3)}`,
          source: "me",
          tags: [],
          deliver_at: "2026-03-20T12:01:00Z"
        })
      }
      yield* TestClock.adjust("2 minutes")
      for (let read = 0; read < 10; read++) yield* awareness.getBriefing()
      const { id } = yield* awareness.remind({
        goal: "The new one",
        source: "me",
        tags: [],
        deliver_at: "2026-03-20T12:03:00Z"
      })
      yield* TestClock.adjust("2 minutes")
      for (let read = 0; read < 4; read++) {
        const briefing = yield* awareness.getBriefing()
        const ids = (briefing.fired_intentions ?? []).map((item) => item.id)
        assert.include(ids, id, `read ${read}`)
        assert.isAbove(briefing.omitted?.intentions ?? 0, 0)
        assert.include(briefing.summary, "more fired reminders")
      }
    }).pipe(Effect.provide(Awareness.layer.pipe(Layer.provideMerge(Store.layerMemory))))
  )
})
