import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { Entry, severityRank } from "../src/index.ts"

describe("Entry", () => {
  it("decodes the envelope with upstream defaults", () => {
    const entry = Schema.decodeUnknownSync(Entry)({
      id: "a1",
      type: "alert",
      source: "nas",
      created: "2026-03-19T15:00:00Z",
      data: { alert_id: "cpu", level: "warning", message: "CPU at 97%" }
    })
    assert.deepStrictEqual(entry.tags, [])
    assert.isNull(entry.updated)
    assert.isNull(entry.expires)
    assert.isNull(entry.deleted)
    const alert = Schema.decodeUnknownSync(Entry.AlertData)(entry.data)
    assert.strictEqual(alert.resolved, false)
    assert.strictEqual(alert.alert_type, "threshold")
  })

  it("per-type data schemas carry upstream's defaults", () => {
    assert.strictEqual(Schema.decodeUnknownSync(Entry.StatusData)({}).ttl_sec, 120)
    const suppression = Schema.decodeUnknownSync(Entry.SuppressionData)({})
    assert.deepStrictEqual(
      { ...suppression },
      {
        metric: null,
        suppress_level: "warning",
        escalation_override: true,
        reason: ""
      }
    )
    const pattern = Schema.decodeUnknownSync(Entry.PatternData)({ description: "d" })
    assert.deepStrictEqual(
      { ...pattern },
      { description: "d", conditions: {}, effect: "", learned_from: "conversation" }
    )
    assert.strictEqual(Schema.decodeUnknownSync(Entry.PreferenceData)({ key: "k", value: "v" }).scope, "global")
    assert.strictEqual(Schema.decodeUnknownSync(Entry.NoteData)({ description: "d" }).content_type, "text/plain")
    const intention = Schema.decodeUnknownSync(Entry.IntentionData)({ goal: "g" })
    assert.strictEqual(intention.state, "pending")
    assert.strictEqual(intention.urgency, "normal")
    assert.strictEqual(Entry.data.context, Entry.ContextData)
  })

  it.effect("bad data fails decoding with a typed error, never a throw", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        Schema.decodeUnknownEffect(Entry.AlertData)({ alert_id: "x", level: "fatal", message: "m" })
      )
      assert.include(error.message, "level")
      const badType = yield* Effect.flip(
        Schema.decodeUnknownEffect(Entry)({ id: "x", type: "bogus", source: "s", created: "t" })
      )
      assert.include(badType.message, "type")
    })
  )

  it("severityRank follows upstream: info 0, warning 1, critical 2, unknown -1", () => {
    assert.deepStrictEqual(["info", "warning", "critical", "fatal", undefined].map(severityRank), [0, 1, 2, -1, -1])
    assert.strictEqual(Entry.severityRank, severityRank)
  })
})
