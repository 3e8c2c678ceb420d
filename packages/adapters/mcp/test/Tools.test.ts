import { assert, describe, it } from "@effect/vitest"
import { Awareness, AwarenessTools, Store } from "@heed/collator"
import * as McpServer from "effect/ai/McpServer"
import * as McpTest from "effect/ai/McpTest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AwarenessMcp, AwarenessResolver, Tools } from "../src/index.ts"
import { call, makeClient, ok } from "./helpers.ts"

const upstreamNames = [
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

describe("Tools", () => {
  it.effect("tools/list has every upstream tool name with an object input schema and hints", () =>
    Effect.gen(function* () {
      const client = yield* makeClient()
      const { tools } = yield* client.listTools()
      assert.deepStrictEqual(tools.map((tool) => tool.name).sort(), [...upstreamNames].sort())
      assert.strictEqual(tools.length, AwarenessTools.names.length)
      const alert = tools.find((tool) => tool.name === "report_alert")!
      assert.strictEqual(alert.inputSchema.type, "object")
      assert.deepStrictEqual(
        [...((alert.inputSchema as { readonly required?: ReadonlyArray<string> }).required ?? [])].sort(),
        ["alert_id", "level", "message", "source", "tags"]
      )
      const properties = (alert.inputSchema as { properties: Record<string, unknown> }).properties
      assert.isDefined(properties.metric)
      assert.isDefined(properties.value)
      assert.isDefined(properties.threshold)
      assert.isTrue(tools.find((tool) => tool.name === "get_briefing")!.annotations?.readOnlyHint)
      assert.isTrue(tools.find((tool) => tool.name === "delete_entry")!.annotations?.destructiveHint)
      const suppress = tools.find((tool) => tool.name === "suppress_alert")!
      const level = (suppress.inputSchema as { properties: Record<string, { default?: unknown }> }).properties.level
      assert.strictEqual(level?.default, "warning")
    }).pipe(Effect.scoped)
  )

  it.effect("drives every tool on the happy path with upstream response shapes", () =>
    Effect.gen(function* () {
      const client = yield* makeClient()
      const status = yield* ok(client, "report_status", {
        source: "nas",
        tags: ["nas"],
        metrics: { cpu_pct: 12 },
        inventory: { containers: ["qbittorrent"] }
      })
      assert.strictEqual(status.status, "ok")
      assert.strictEqual(status.source, "nas")
      const alert = yield* ok(client, "report_alert", {
        source: "nas",
        tags: ["qbittorrent"],
        alert_id: "qbittorrent_stopped",
        level: "warning",
        alert_type: "structural",
        message: "qBittorrent stopped",
        metric: "container_up",
        value: 0,
        threshold: 1
      })
      assert.deepStrictEqual([alert.status, alert.action, alert.alert_id], ["ok", "reported", "qbittorrent_stopped"])
      const pattern = yield* ok(client, "learn_pattern", {
        source: "nas",
        tags: ["maintenance"],
        description: "backups run at night",
        conditions: { hour_range: [1, 3] },
        effect: "suppress backup_running"
      })
      assert.isString(pattern.id)
      const note = yield* ok(client, "remember", {
        source: "user",
        tags: ["hardware"],
        description: "The NAS is a DS920+",
        logical_key: "nas-model"
      })
      assert.isString(note.id)
      const context = yield* ok(client, "add_context", { source: "user", tags: ["trip"], description: "Travelling" })
      assert.isString(context.expires)
      const preference = yield* ok(client, "set_preference", { key: "timezone", value: "UTC" })
      assert.deepStrictEqual([preference.key, preference.scope], ["timezone", "global"])
      const suppression = yield* ok(client, "suppress_alert", { source: "nas", tags: ["disk"], reason: "scrub" })
      assert.isString(suppression.expires)
      const suppressions = yield* ok(client, "get_suppressions")
      assert.strictEqual(suppressions.length, 1)
      const cleared = yield* ok(client, "clear_suppression", { entry_id: suppression.id })
      assert.strictEqual(cleared.status, "ok")
      const reminder = yield* ok(client, "remind", {
        goal: "Call the plumber",
        source: "user",
        tags: ["home"],
        deliver_at: "2099-01-01T09:00:00Z"
      })
      assert.strictEqual(reminder.state, "pending")
      const updated = yield* ok(client, "update_intention", { entry_id: reminder.id, state: "active" })
      assert.strictEqual(updated.status, "ok")
      const acted = yield* ok(client, "acted_on", { entry_id: alert.id, action: "restarted the container" })
      assert.strictEqual(acted.entry_id, alert.id)
      const briefing = yield* ok(client, "get_briefing", { explain: true })
      // acted_on acknowledged the one warning: all clear, and the evaluation (asked for with explain) says why.
      assert.deepStrictEqual(
        [briefing.attention_needed, briefing.summary, briefing.active_alerts],
        [false, "All clear across 1 source.", 0]
      )
      assert.deepStrictEqual([briefing.evaluation.alerts_checked, briefing.evaluation.acknowledged], [1, 1])
      const alerts = yield* ok(client, "get_alerts", { source: "nas", limit: 10 })
      assert.deepStrictEqual([alerts.limit, alerts.offset, alerts.has_more], [10, 0, false])
      assert.strictEqual(alerts.entries[0].data.alert_id, "qbittorrent_stopped")
      const sourceStatus = yield* ok(client, "get_status", { source: "nas" })
      assert.deepStrictEqual(sourceStatus.data.metrics, { cpu_pct: 12 })
      const knowledge = yield* ok(client, "get_knowledge", { mode: "list", limit: 50 })
      assert.isAtLeast(knowledge.entries.length, 3)
      const intentions = yield* ok(client, "get_intentions", { state: "active" })
      assert.strictEqual(intentions.entries.length, 1)
      const stats = yield* ok(client, "get_stats")
      assert.isAtLeast(stats.total, 6)
      assert.include(stats.sources, "nas")
      const tags = yield* ok(client, "get_tags")
      assert.isTrue(tags.some((tag: { tag: string }) => tag.tag === "hardware"))
      const edited = yield* ok(client, "update_entry", { entry_id: note.id, description: "The NAS is a DS923+" })
      assert.strictEqual(edited.id, note.id)
      const found = yield* ok(client, "search", { query: "DS923+" })
      // The edited note is found by its new text, and only it.
      assert.deepStrictEqual(
        found.map((entry: { id: string; data: { description: string } }) => [entry.id, entry.data.description]),
        [[note.id, "The NAS is a DS923+"]]
      )
      const deleted = yield* ok(client, "delete_entry", { entry_id: note.id })
      assert.strictEqual(deleted.status, "acknowledged")
      const restored = yield* ok(client, "restore_entry", { entry_id: note.id })
      assert.deepStrictEqual(restored, { status: "ok", restored: 1 })
    }).pipe(Effect.scoped)
  )

  it.effect("every parameter of every tool advertises a JSON Schema type (Inspector --strict)", () =>
    Effect.gen(function* () {
      const client = yield* makeClient()
      const { tools } = yield* client.listTools()
      const untyped = tools.flatMap((tool) =>
        Object.entries((tool.inputSchema as { properties: Record<string, { type?: unknown }> }).properties)
          .filter(([, schema]) => schema.type === undefined)
          .map(([name]) => `${tool.name}.${name}`)
      )
      assert.deepStrictEqual(untyped, [])
      const property = (tool: string, name: string) =>
        (tools.find((t) => t.name === tool)!.inputSchema as { properties: Record<string, { type?: unknown }> })
          .properties[name]?.type
      assert.deepStrictEqual(property("remember", "content"), ["string", "object", "array", "number", "boolean"])
      assert.strictEqual(property("suppress_alert", "time_intervals"), "array")
      assert.strictEqual(property("remind", "constraints"), "string")
      assert.strictEqual(property("update_entry", "content"), "string")
    }).pipe(Effect.scoped)
  )

  it.effect("coerces numbers and booleans sent as strings, as upstream's validation does", () =>
    Effect.gen(function* () {
      const client = yield* makeClient()
      const page = yield* ok(client, "get_alerts", { limit: "5", offset: "0" })
      assert.deepStrictEqual([page.limit, page.offset], [5, 0])
      const status = yield* ok(client, "report_status", { source: "a", tags: "a, b", metrics: '{"x":1}' })
      assert.strictEqual(status.status, "ok")
      const preview = yield* ok(client, "delete_entry", { tags: ["nothing"], confirm: "false" })
      assert.strictEqual(preview.status, "dry_run")
    }).pipe(Effect.scoped)
  )
})

describe("Tools errors", () => {
  it.effect("an invalid enum gives upstream's error body with valid values and a did-you-mean suggestion", () =>
    Effect.gen(function* () {
      const client = yield* makeClient()
      const reply = yield* call(client, "report_alert", {
        source: "nas",
        tags: [],
        alert_id: "x",
        level: "critcal",
        message: "m"
      })
      assert.isTrue(reply.isError)
      assert.strictEqual(reply.body.status, "error")
      assert.deepStrictEqual(
        [reply.body.error.code, reply.body.error.param, reply.body.error.suggestion, reply.body.error.retryable],
        ["invalid_parameter", "level", "critical", false]
      )
      assert.deepStrictEqual(reply.body.error.valid, ["warning", "critical"])
    }).pipe(Effect.scoped)
  )

  it.effect("missing, mistyped and misspelled parameters are structured errors naming the parameter", () =>
    Effect.gen(function* () {
      const client = yield* makeClient()
      const missing = yield* call(client, "get_status", {})
      assert.deepStrictEqual([missing.isError, missing.body.error.param], [true, "source"])
      const mistyped = yield* call(client, "get_alerts", { limit: "many" })
      assert.deepStrictEqual([mistyped.body.error.code, mistyped.body.error.param], ["invalid_parameter", "limit"])
      const negative = yield* call(client, "get_alerts", { limit: -1 })
      assert.deepStrictEqual([negative.isError, negative.body.error.param], [true, "limit"])
      const misspelled = yield* call(client, "get_status", { sourc: "nas" })
      assert.deepStrictEqual([misspelled.body.error.param, misspelled.body.error.suggestion], ["sourc", "source"])
    }).pipe(Effect.scoped)
  )

  it.effect("errors from the awareness service keep their code and never end the session", () =>
    Effect.gen(function* () {
      const client = yield* makeClient()
      const badTime = yield* call(client, "get_alerts", { since: "" })
      assert.deepStrictEqual([badTime.isError, badTime.body.error.code], [true, "invalid_parameter"])
      const malformed = yield* call(client, "get_knowledge", { since: "yesterday-ish" })
      assert.strictEqual(malformed.body.error.code, "invalid_parameter")
      const missing = yield* call(client, "get_status", { source: "nowhere" })
      assert.deepStrictEqual([missing.isError, missing.body.error.code], [true, "not_found"])
      const unknownIntention = yield* call(client, "update_intention", { entry_id: "nope", state: "completed" })
      assert.isTrue(unknownIntention.isError)
      const still = yield* ok(client, "get_briefing")
      assert.strictEqual(still.attention_needed, false)
    }).pipe(Effect.scoped)
  )
})

describe("Tools bad input", () => {
  it.effect("input a database cannot store is invalid_parameter naming the field, never store unavailable", () =>
    Effect.gen(function* () {
      const client = yield* makeClient()
      const cases = [
        ["get_alerts", { since: "0000-01-01" }, "since"],
        ["get_alerts", { since: "-000001-01-01T00:00:00Z" }, "since"],
        ["get_knowledge", { created_after: "+010000-01-01T00:00:00Z" }, "created_after"],
        ["remind", { goal: "g", source: "s", tags: [], deliver_at: "2027-02-30T09:00:00Z" }, "deliver_at"],
        ["report_status", { source: "nas\ud800", tags: [], metrics: {} }, "source"],
        ["report_status", { source: "nas", tags: ["ok", "bad\udc00"], metrics: {} }, "tags"],
        ["report_status", { source: "nas", tags: [], metrics: { "k\ud800": 1 } }, "metrics"],
        ["get_status", { source: "a\u0000b" }, "source"],
        ["update_intention", { entry_id: "id\u0000", state: "completed" }, "entry_id"],
        ["remember", { source: "s", tags: [], description: "d", content: { text: "a\u0000" } }, "content"]
      ] as const
      for (const [name, args, param] of cases) {
        const reply = yield* call(client, name, args)
        assert.deepStrictEqual(
          [name, reply.isError, reply.body.error.code, reply.body.error.param],
          [name, true, "invalid_parameter", param]
        )
      }
    }).pipe(Effect.scoped)
  )
})

describe("Reuse", () => {
  it.effect("another app mounts a subset of the tools next to its own registrations", () =>
    Effect.gen(function* () {
      const own = McpServer.resource({
        uri: "app://hello",
        name: "hello",
        content: Effect.succeed("hi")
      })
      const subset = Layer.effectDiscard(Tools.register(["get_briefing", "report_alert"]))
      const client = yield* McpTest.makeClient(
        Layer.mergeAll(subset, own).pipe(
          Layer.provide(AwarenessResolver.layer),
          Layer.provide(Awareness.layer),
          Layer.provide(Store.layerMemory)
        ),
        { protocols: AwarenessMcp.protocols }
      )
      const { tools } = yield* client.listTools()
      assert.deepStrictEqual(tools.map((tool) => tool.name).sort(), ["get_briefing", "report_alert"])
      yield* ok(client, "report_alert", { source: "app", tags: [], alert_id: "a", level: "warning", message: "m" })
      const briefing = yield* ok(client, "get_briefing")
      assert.strictEqual(briefing.sources.app.status, "warning")
      const { resources } = yield* client.listResources()
      assert.deepStrictEqual(
        resources.map((resource) => resource.uri),
        ["app://hello"]
      )
    }).pipe(Effect.scoped)
  )
})
