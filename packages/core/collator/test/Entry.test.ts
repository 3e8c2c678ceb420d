import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { Entry } from "../src/index.ts"

describe("Entry", () => {
  it("decodes the envelope with upstream defaults", () => {
    const entry = Schema.decodeUnknownSync(Entry.Entry)({
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
    assert.strictEqual(Entry.dataSchemas.context, Entry.ContextData)
  })

  it.effect("bad data fails decoding with a typed error, never a throw", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        Schema.decodeUnknownEffect(Entry.AlertData)({ alert_id: "x", level: "fatal", message: "m" })
      )
      assert.include(error.message, "level")
      const badType = yield* Effect.flip(
        Schema.decodeUnknownEffect(Entry.Entry)({ id: "x", type: "bogus", source: "s", created: "t" })
      )
      assert.include(badType.message, "type")
    })
  )

  it("severityRank follows upstream: info 0, warning 1, critical 2, unknown -1", () => {
    assert.deepStrictEqual(
      ["info", "warning", "critical", "fatal", undefined].map(Entry.severityRank),
      [0, 1, 2, -1, -1]
    )
    assert.strictEqual(Entry.severityRank, Entry.severityRank)
  })
})

describe("Entry: timestamps are ISO 8601 instants", () => {
  const base = { id: "a1", type: "note", source: "s", data: { description: "d" } }

  it("accepts ISO 8601 timestamps (UTC, offset, fraction, naive, date only)", () => {
    for (const created of [
      "2026-03-19T15:00:00Z",
      "2026-03-19T15:00:00.123Z",
      "2026-03-19T16:00:00+01:00",
      "2026-03-19T15:00:00",
      "2026-03-19"
    ]) {
      const entry = Schema.decodeUnknownSync(Entry.Entry)({ ...base, created, updated: created, expires: null })
      assert.strictEqual(entry.created, created)
    }
  })

  it("rejects created, updated, expires and deleted that are not timestamps, with a clear message", () => {
    for (const field of ["created", "updated", "expires", "deleted"]) {
      const input = { created: "2026-03-19T15:00:00Z", ...base, [field]: "yesterday" }
      const result = Schema.decodeUnknownExit(Entry.Entry)(input)
      assert.isTrue(result._tag === "Failure", field)
      assert.include(String(result._tag === "Failure" ? result.cause : ""), "ISO 8601")
    }
    assert.isTrue(
      Schema.decodeUnknownExit(Entry.Entry)({ ...base, created: "2026-13-45T00:00:00Z" })._tag === "Failure"
    )
    assert.isTrue(Schema.decodeUnknownExit(Entry.Entry)({ ...base, created: "March 19, 2026" })._tag === "Failure")
  })

  it("rejects deliver_at, acknowledged_at, state_changes and changelog times that are not timestamps", () => {
    assert.isTrue(Schema.decodeUnknownExit(Entry.IntentionData)({ goal: "g", deliver_at: "soon" })._tag === "Failure")
    assert.strictEqual(
      Schema.decodeUnknownSync(Entry.IntentionData)({ goal: "g", deliver_at: "2026-03-19T15:25:00Z" }).deliver_at,
      "2026-03-19T15:25:00Z"
    )
    const alert = { alert_id: "a", level: "warning", message: "m" }
    assert.isTrue(Schema.decodeUnknownExit(Entry.AlertData)({ ...alert, acknowledged_at: "now" })._tag === "Failure")
    assert.isTrue(Schema.decodeUnknownExit(Entry.AlertData)({ ...alert, state_changes: ["later"] })._tag === "Failure")
    assert.isTrue(
      Schema.decodeUnknownExit(Entry.NoteData)({ description: "d", changelog: [{ updated: "x", changed: {} }] })
        ._tag === "Failure"
    )
  })
})
