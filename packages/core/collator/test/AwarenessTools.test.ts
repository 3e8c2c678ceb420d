import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Schema, Stream } from "effect"
import { Awareness, AwarenessTools, Limits, Store } from "../src/index.ts"

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
      assert.deepStrictEqual([missing.param, missing.message], ["source", "get_status requires 'source': Source name."])
      const notObject = yield* failure("get_stats", [1, 2])
      assert.strictEqual(notObject.code, "invalid_parameter")
      const unknown = yield* failure("get_briefng", {})
      assert.deepStrictEqual([unknown.code, unknown.suggestion], ["not_found", "get_briefing"])
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("unknown parameters are refused on every tool, with a did-you-mean or the list of parameters", () =>
    Effect.gen(function* () {
      const at = yield* failure("remind", { goal: "g", source: "s", tags: [], at: "2027-01-01T09:00:00Z" })
      assert.deepStrictEqual([at.code, at.param, at.suggestion], ["invalid_parameter", "at", "deliver_at"])
      assert.include(at.message, "Did you mean 'deliver_at'?")
      const severity = yield* failure("report_alert", {
        source: "s",
        tags: [],
        alert_id: "a",
        severity: "warning",
        message: "m"
      })
      assert.deepStrictEqual([severity.param, severity.suggestion], ["severity", "level"])
      const both = yield* failure("report_alert", {
        source: "s",
        tags: [],
        alert_id: "a",
        level: "warning",
        message: "m",
        severity: "high"
      })
      assert.deepStrictEqual([both.param, both.suggestion], ["severity", undefined])
      const stranger = yield* failure("get_stats", { anything: 1 })
      assert.deepStrictEqual(
        [stranger.param, stranger.message],
        ["anything", "get_stats has no parameter 'anything'. It takes no parameters."]
      )
      const listed = yield* failure("get_status", { source: "nas", zzz: null })
      assert.include(listed.message, "Its parameters are: source.")
      // an alias is still accepted, and a misspelling of a name already given is refused too
      const alias = yield* AwarenessTools.call("suppress_alert", { source: "s", suppress_level: "critical" })
      assert.strictEqual((alias as { status: string }).status, "ok")
      const twice = yield* failure("get_status", { source: "nas", sourc: "nas" })
      assert.deepStrictEqual([twice.param, twice.suggestion], ["sourc", undefined])
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("identifiers, text, tags, durations and entries are bounded by Limits, naming the field and limit", () =>
    Effect.gen(function* () {
      const long = "x".repeat(Limits.maxIdentifierLength + 1)
      const cases: ReadonlyArray<readonly [string, Record<string, unknown>, string, string]> = [
        ["report_status", { source: "s".repeat(2700), tags: [], metrics: {} }, "source", "at most 256 characters"],
        ["report_alert", { source: "s", tags: [], alert_id: long, level: "warning", message: "m" }, "alert_id", "256"],
        ["report_status", { source: "s", tags: [long], metrics: {} }, "tags", "each tag must be at most 256"],
        ["report_status", { source: "s", tags: `a,${long}`, metrics: {} }, "tags", "each tag"],
        ["report_status", { source: "s", tags: Array(65).fill("t"), metrics: {} }, "tags", "at most 64 tags"],
        ["set_preference", { key: long, value: "v" }, "key", "256"],
        ["get_status", { source: long }, "source", "256"],
        [
          "report_alert",
          { source: "s", tags: [], alert_id: "a", level: "warning", message: "m".repeat(1_048_300) },
          "message",
          "at most 65536 characters"
        ],
        ["suppress_alert", { source: "s", duration_minutes: 1e12 }, "duration_minutes", "at most 5256000"],
        ["suppress_alert", { source: "s", duration_minutes: 1e9 }, "duration_minutes", "at most 5256000"],
        ["add_context", { source: "s", tags: [], description: "d", expires_days: 1e9 }, "expires_days", "3650"],
        ["report_status", { source: "s", tags: [], metrics: {}, ttl_sec: 1e300 }, "ttl_sec", "315360000"],
        ["get_alerts", { offset: 1e300 }, "offset", "2147483647"]
      ]
      for (const [tool, params, param, text] of cases) {
        const error = yield* failure(tool, params)
        assert.deepStrictEqual([error.code, error.param], ["invalid_parameter", param], `${tool} ${param}`)
        assert.include(error.message, text, `${tool} ${param}`)
      }
      const longest = yield* AwarenessTools.call("suppress_alert", {
        source: "s",
        duration_minutes: Limits.maxDurationMinutes
      })
      assert.match((longest as { expires: string }).expires, /^\d{4}-/)
      // an entry over the store's limit: a body under the edge's limit whose entry is not
      const big = yield* failure("remember", {
        source: "s",
        tags: [],
        description: "d",
        content: "c".repeat(Limits.maxEntryBytes)
      })
      assert.deepStrictEqual([big.code, big.param], ["payload_too_large", "content"])
      assert.include(big.message, `over the limit of ${Limits.maxEntryBytes} bytes`)
      // an entry that grows past it (re-reports merge details) is refused, and the stored alert is unchanged
      const alert = { source: "s", tags: [], alert_id: "grows", level: "warning", message: "m" }
      yield* AwarenessTools.call("report_alert", { ...alert, details: { blob: "d".repeat(600_000) } })
      const grown = yield* failure("report_alert", { ...alert, diagnostics: { more: "e".repeat(650_000) } })
      assert.deepStrictEqual([grown.code, grown.param], ["payload_too_large", "diagnostics"])
      const stored = (yield* AwarenessTools.call("get_alerts", {})) as {
        entries: ReadonlyArray<{ data: Record<string, unknown> }>
      }
      assert.notProperty(stored.entries[0]?.data, "diagnostics")
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("suppress_alert must say what it silences; every source only with source '*'", () =>
    Effect.gen(function* () {
      for (const params of [{}, null, { source: "" }, { reason: "quiet", duration_minutes: 5 }]) {
        const error = yield* failure("suppress_alert", params as Record<string, unknown>)
        assert.deepStrictEqual([error.code, error.param], ["invalid_parameter", "source"])
        assert.include(error.message, 'source: "*"')
      }
      yield* AwarenessTools.call("suppress_alert", { source: "*", reason: "maintenance" })
      yield* AwarenessTools.call("suppress_alert", { tags: ["disk"] })
      const listed = (yield* AwarenessTools.call("get_suppressions", {})) as ReadonlyArray<{ source: string }>
      assert.deepStrictEqual(listed.map((entry) => entry.source).sort(), ["", ""])
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
      properties: {
        source: { type: "string", maxLength: Limits.maxIdentifierLength, description: "Source name." }
      },
      required: ["source"]
    })
    const suppress = AwarenessTools.inputSchema("suppress_alert") as { properties: Record<string, unknown> }
    // No `minimum` (issue 26: a smaller value is an error naming the parameter); MCP's tools/list also leaves out
    // `maximum`, `maxLength`, `maxItems` and `items` (Tools.list), the REST API's OpenAPI document keeps them.
    assert.deepStrictEqual(suppress.properties.duration_minutes, {
      type: "integer",
      maximum: Limits.maxDurationMinutes,
      description: "Minutes.",
      default: 60
    })
    assert.deepStrictEqual(suppress.properties.tags, {
      type: "array",
      items: { type: "string", maxLength: Limits.maxIdentifierLength },
      maxItems: Limits.maxTags,
      description: "Any of these tags."
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
