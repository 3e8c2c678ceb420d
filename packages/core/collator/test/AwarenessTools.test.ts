import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Schema, Stream } from "effect"
import { Awareness, AwarenessTools, Store } from "../src/index.ts"

const TestLayer = Awareness.layer.pipe(Layer.provideMerge(Store.layerMemory))

const failure = (name: string, params: unknown) => Effect.flip(AwarenessTools.call(name, params))

describe("AwarenessTools.call", () => {
  it.effect("upstream's loose coercions are decoded: numbers, booleans and JSON objects as strings, tags as text", () =>
    Effect.gen(function* () {
      const page = yield* AwarenessTools.call("get_alerts", { limit: "5", offset: "0" })
      assert.deepStrictEqual(page, { entries: [], limit: 5, offset: 0, has_more: false })
      yield* AwarenessTools.call("report_status", { source: "a", tags: "x, y", metrics: '{"cpu":1}', ttl_sec: "60" })
      const status = (yield* AwarenessTools.call("get_status", { source: "a" })) as {
        tags: unknown
        data: { metrics: unknown; ttl_sec: unknown }
      }
      assert.deepStrictEqual([status.tags, status.data.metrics, status.data.ttl_sec], [["x", "y"], { cpu: 1 }, 60])
      const dry = yield* AwarenessTools.call("delete_entry", { tags: ["none"], confirm: "false", entry_type: null })
      assert.strictEqual((dry as { status: string }).status, "dry_run")
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("a wrong type is invalid_parameter naming the parameter; enums and names get did-you-mean", () =>
    Effect.gen(function* () {
      const limit = yield* failure("get_alerts", { limit: "many" })
      assert.deepStrictEqual([limit.code, limit.param, limit.value], ["invalid_parameter", "limit", "many"])
      const level = yield* failure("report_alert", {
        source: "s",
        tags: [],
        alert_id: "a",
        level: "WARNIN",
        message: "m"
      })
      assert.deepStrictEqual(
        [level.param, level.suggestion, level.valid],
        ["level", "warning", ["warning", "critical"]]
      )
      const name = yield* failure("get_status", { sourc: "nas" })
      assert.deepStrictEqual([name.param, name.suggestion], ["sourc", "source"])
      const missing = yield* failure("get_status", {})
      assert.deepStrictEqual(
        [missing.param, missing.message],
        ["source", "get_status requires 'source': The source name, as it appears in the briefing."]
      )
      const notObject = yield* failure("get_stats", [1, 2])
      assert.strictEqual(notObject.code, "invalid_parameter")
      const unknown = yield* failure("get_briefng", {})
      assert.deepStrictEqual([unknown.code, unknown.suggestion], ["not_found", "get_briefing"])
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("years outside 0001-9999, impossible dates, lone surrogates and NUL are refused at the edge", () =>
    Effect.gen(function* () {
      const cases: ReadonlyArray<readonly [string, Record<string, unknown>, string, string]> = [
        ["get_alerts", { since: "0000-01-01" }, "since", "years 0001 to 9999"],
        ["get_alerts", { since: "-000001-01-01T00:00:00Z" }, "since", "ISO 8601"],
        ["get_alerts", { since: "2027-02-30" }, "since", "real date"],
        ["report_status", { source: "\ud800", tags: [], metrics: {} }, "source", "surrogate"],
        ["report_status", { source: "s", tags: ["\udc00x"], metrics: {} }, "tags", "surrogate"],
        ["get_status", { source: "a\u0000" }, "source", "NUL"],
        ["acted_on", { entry_id: "\u0000", action: "x" }, "entry_id", "NUL"]
      ]
      for (const [name, params, param, mentions] of cases) {
        const error = yield* failure(name, params)
        assert.deepStrictEqual([name, error.code, error.param], [name, "invalid_parameter", param])
        assert.include(error.message, mentions)
      }
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("an error echoes deep or long input only in bounded form", () =>
    Effect.gen(function* () {
      let deep: unknown = 0
      for (let i = 0; i < 10_000; i++) deep = [deep]
      const nested = yield* failure("report_alert", {
        source: "s",
        tags: [],
        alert_id: "a",
        level: "warning",
        message: "m",
        details: { deep }
      })
      assert.deepStrictEqual([nested.param, nested.value], ["details", '{"deep":[[[…]]]}'])
      assert.include(nested.message, "32 levels")
      const long = yield* failure("report_alert", {
        source: "s",
        tags: [],
        alert_id: "a",
        level: "x".repeat(10_000),
        message: "m"
      })
      assert.isAtMost(JSON.stringify(long.toEnvelope()).length, 1_000)
    }).pipe(Effect.provide(TestLayer))
  )
})

describe("AwarenessTools.toolkit", () => {
  it("advertises a JSON Schema type, description and defaults for every parameter", () => {
    for (const name of AwarenessTools.names) {
      const schema = AwarenessTools.inputSchema(name) as { properties: Record<string, Record<string, unknown>> }
      for (const [param, property] of Object.entries(schema.properties)) {
        assert.isDefined(property.type, `${name}.${param}`)
        assert.isString(property.description, `${name}.${param}`)
      }
    }
    assert.deepStrictEqual(AwarenessTools.inputSchema("get_status"), {
      type: "object",
      properties: { source: { type: "string", description: "The source name, as it appears in the briefing." } },
      required: ["source"]
    })
    const suppress = AwarenessTools.inputSchema("suppress_alert") as { properties: Record<string, unknown> }
    assert.deepStrictEqual(suppress.properties.duration_minutes, {
      type: "integer",
      minimum: 1,
      description: "Minutes until the suppression expires (at least 1).",
      default: 60
    })
    assert.notProperty(suppress.properties, "suppress_level")
  })

  it.effect("every tool's reply from call matches its success schema (replies are their own encoding)", () =>
    Effect.gen(function* () {
      const checked: Array<string> = []
      const check = (name: AwarenessTools.Name, params: Record<string, unknown>) =>
        Effect.map(AwarenessTools.call(name, params), (reply) => {
          assert.isTrue(Schema.is(AwarenessTools.toolkit.tools[name].successSchema)(reply), name)
          checked.push(name)
          return reply as { readonly id?: string }
        })
      yield* check("report_status", { source: "nas", tags: [], metrics: { cpu: 1 } })
      const alert = yield* check("report_alert", {
        source: "nas",
        tags: [],
        alert_id: "a",
        level: "warning",
        message: "m"
      })
      yield* check("learn_pattern", { source: "nas", tags: [], description: "d" })
      const note = yield* check("remember", { source: "s", tags: ["t"], description: "d", logical_key: "k" })
      yield* check("add_context", { source: "s", tags: [], description: "d" })
      yield* check("set_preference", { key: "colour", value: "blue" })
      const suppression = yield* check("suppress_alert", { source: "nas", time_intervals: [{ weekdays: ["monday"] }] })
      yield* check("clear_suppression", { entry_id: suppression.id })
      const reminder = yield* check("remind", { goal: "g", source: "s", tags: [], deliver_at: "1969-12-31T23:00:00Z" })
      yield* check("get_briefing", {})
      yield* check("update_intention", { entry_id: reminder.id, state: "completed" })
      yield* check("acted_on", { entry_id: alert.id, action: "looked" })
      for (const name of [
        "get_alerts",
        "get_knowledge",
        "get_suppressions",
        "get_intentions",
        "get_stats",
        "get_tags"
      ] as const) {
        yield* check(name, {})
      }
      yield* check("get_status", { source: "nas" })
      yield* check("search", { query: "d" })
      yield* check("update_entry", { entry_id: note.id, description: "e" })
      yield* check("delete_entry", { entry_id: note.id })
      yield* check("restore_entry", { entry_id: note.id })
      assert.deepStrictEqual([...checked].sort(), [...AwarenessTools.names].sort())
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("its handlers layer serves effect/ai's own tool calls", () =>
    Effect.gen(function* () {
      const toolkit = yield* AwarenessTools.toolkit
      yield* Stream.runDrain(
        yield* toolkit.handle("report_alert", {
          source: "nas",
          tags: [],
          alert_id: "disk",
          level: "critical",
          message: "Disk full"
        })
      )
      const results = yield* Stream.runCollect(yield* toolkit.handle("get_briefing", {}))
      const briefing = results[0]?.result as { summary: string }
      assert.strictEqual(briefing.summary, "1 critical on nas.")
    }).pipe(Effect.provide(AwarenessTools.layer), Effect.provide(TestLayer))
  )
})
