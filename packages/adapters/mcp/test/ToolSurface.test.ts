/**
 * The tool surface an agent can afford (issue 26): both profiles' `tools/list` measured with heed's o200k counter,
 * every tool with an `outputSchema` and `structuredContent`, and the compact profile covering the full one's
 * capabilities.
 */
import { assert, describe, it } from "@effect/vitest"
import { Awareness, Store } from "@heed/collator"
import { TokenCounter } from "@heed/schema"
import * as McpSchema from "effect/ai/McpSchema"
import * as McpTest from "effect/ai/McpTest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { AwarenessMcp, AwarenessResolver, Tools } from "../src/index.ts"

/**
 * What `tools/list` puts on the wire for a profile, as compact JSON: each tool rebuilt as `McpServer.addTool` does
 * (which fills in the defaults of the hints), then encoded.
 */
const wire = (profile: Tools.Profile): string =>
  JSON.stringify(
    Schema.encodeUnknownSync(McpSchema.ListToolsResult)(
      new McpSchema.ListToolsResult({ tools: Tools.list(profile).map((tool) => new McpSchema.Tool({ ...tool })) })
    )
  )

const client = (tools: Tools.Profile) =>
  McpTest.makeClient(
    AwarenessMcp.registrations({ notificationDebounce: 0, pollInterval: 0, tools }).pipe(
      Layer.provide(AwarenessResolver.layer),
      Layer.provide(Awareness.layer),
      Layer.provide(Store.layerMemory)
    ),
    { protocols: AwarenessMcp.protocols }
  )

interface Called {
  readonly isError: boolean
  // biome-ignore lint/suspicious/noExplicitAny: parsed JSON that the tests walk freely
  readonly body: any
  // biome-ignore lint/suspicious/noExplicitAny: structured content the tests walk freely
  readonly structured: any
}

const call = (c: McpTest.Client, name: string, args: Record<string, unknown> = {}) =>
  Effect.map(c.callTool({ name, arguments: args }), (result): Called => {
    const first = result.content[0]
    const text = first !== undefined && first.type === "text" ? first.text : "null"
    let body: unknown = text
    try {
      body = JSON.parse(text)
    } catch {
      // a text reply (get_briefing with format text)
    }
    return { isError: result.isError === true, body, structured: result.structuredContent }
  })

const ok = (c: McpTest.Client, name: string, args: Record<string, unknown> = {}) =>
  Effect.flatMap(call(c, name, args), (reply) =>
    reply.isError ? Effect.die(new Error(`${name} failed: ${JSON.stringify(reply.body)}`)) : Effect.succeed(reply)
  )

describe("tools/list costs", () => {
  it("the full profile (23 upstream tools) stays at or under 3,000 o200k tokens", () => {
    const tokens = TokenCounter.countO200k(wire("full"))
    console.log(`tools/list full: ${tokens} o200k tokens`)
    assert.strictEqual(Tools.list("full").length, 23)
    assert.isAtMost(tokens, 3000, `full tools/list: ${tokens} tokens`)
  })

  it("the compact profile (at most 6 tools) stays at or under 1,200 o200k tokens", () => {
    const tokens = TokenCounter.countO200k(wire("compact"))
    console.log(`tools/list compact: ${tokens} o200k tokens`)
    assert.isAtMost(Tools.list("compact").length, 6)
    assert.isAtMost(tokens, 1200, `compact tools/list: ${tokens} tokens`)
  })

  it("no description carries a 'heed:' prefix; every parameter is described; every tool has an outputSchema", () => {
    for (const profile of Tools.profiles) {
      for (const tool of Tools.list(profile)) {
        assert.notInclude(tool.description ?? "", "heed:", tool.name)
        assert.deepStrictEqual(tool.outputSchema, { type: "object" }, tool.name)
        const properties = (tool.inputSchema as { properties?: Record<string, { description?: string }> }).properties
        for (const [name, property] of Object.entries(properties ?? {})) {
          assert.isString(property.description, `${profile} ${tool.name}.${name}`)
          assert.notInclude(property.description ?? "", "heed:", `${tool.name}.${name}`)
        }
      }
    }
  })

  it("reads carry their hints (a client may run them without asking); writes carry none (ask first)", () => {
    const json = JSON.parse(wire("full")) as { tools: Array<{ name: string; annotations?: Record<string, unknown> }> }
    const hints = (name: string) => json.tools.find((tool) => tool.name === name)?.annotations
    assert.deepStrictEqual(hints("get_briefing"), {
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false
    })
    assert.isUndefined(hints("report_alert"))
    assert.isUndefined(hints("delete_entry"))
  })
})

describe("structuredContent beside the text", () => {
  it.effect("objects as they are, lists under entries or tags, a text briefing under text", () =>
    Effect.gen(function* () {
      const c = yield* client("full")
      const status = yield* ok(c, "report_status", { source: "nas", tags: ["infra"], metrics: { disk: 91 } })
      assert.deepStrictEqual(status.structured, status.body)
      const briefing = yield* ok(c, "get_briefing")
      assert.deepStrictEqual(briefing.structured, briefing.body)
      assert.isFalse(briefing.structured.attention_needed)
      const text = yield* ok(c, "get_briefing", { format: "text" })
      assert.deepStrictEqual(text.structured, { text: text.body })
      const tags = yield* ok(c, "get_tags")
      assert.deepStrictEqual(tags.structured, { tags: tags.body })
      const suppressions = yield* ok(c, "get_suppressions")
      assert.deepStrictEqual(suppressions.structured, { entries: suppressions.body })
      const failed = yield* call(c, "get_status", {})
      assert.isTrue(failed.isError)
      assert.isUndefined(failed.structured)
    }).pipe(Effect.scoped)
  )
})

describe("the compact profile covers the full one", () => {
  it.effect("lists six tools and does what the full tools do", () =>
    Effect.gen(function* () {
      const c = yield* client("compact")
      const { tools } = yield* c.listTools()
      assert.deepStrictEqual(
        tools.map((tool) => tool.name),
        ["get_briefing", "recall", "report", "remember", "remind", "act"]
      )
      // report: a status (an info headline is no reason to speak) and an alert
      yield* ok(c, "report", { kind: "status", source: "nas", metrics: { disk: 91 }, fields: { headline: "disks ok" } })
      assert.isFalse((yield* ok(c, "get_briefing")).structured.attention_needed)
      const alert = yield* ok(c, "report", {
        kind: "alert",
        source: "nas",
        alert_id: "disk",
        level: "warning",
        message: "Disk 91%",
        fields: { metric: "disk_pct", value: 91 }
      })
      assert.strictEqual(alert.structured.action, "reported")
      const briefing = yield* ok(c, "get_briefing")
      assert.isTrue(briefing.structured.attention_needed)
      assert.strictEqual(briefing.structured.suggested_mention, "FYI: Disk 91%")
      // recall: alerts, status, search, stats, tags, knowledge
      const alerts = yield* ok(c, "recall", { what: "alerts", source: "nas" })
      assert.strictEqual(alerts.structured.entries[0].id, alert.structured.id)
      const status = yield* ok(c, "recall", { what: "status", source: "nas" })
      assert.deepStrictEqual(status.structured.data.metrics, { disk: 91 })
      // remember: a note, context, a pattern, a preference, then an edit
      const note = yield* ok(c, "remember", { description: "The NAS is a DS920+", tags: ["hardware"] })
      yield* ok(c, "remember", { kind: "context", description: "Travelling this week", fields: { expires_days: 7 } })
      yield* ok(c, "remember", {
        kind: "pattern",
        source: "nas",
        description: "scrub on sundays",
        fields: { effect: "suppress scrub" }
      })
      const preference = yield* ok(c, "remember", {
        kind: "preference",
        description: "timezone",
        fields: { value: "Europe/Berlin" }
      })
      assert.deepStrictEqual([preference.structured.key, preference.structured.scope], ["timezone", "global"])
      yield* ok(c, "remember", { entry_id: note.structured.id, description: "The NAS is a DS923+" })
      const found = yield* ok(c, "recall", { query: "DS923" })
      assert.strictEqual(found.structured.entries[0].id, note.structured.id)
      const stats = yield* ok(c, "recall", { what: "stats" })
      assert.isAbove(stats.structured.total, 3)
      const tags = yield* ok(c, "recall", { what: "tags" })
      assert.include(
        tags.structured.entries.map((tag: { tag: string }) => tag.tag),
        "hardware"
      )
      const knowledge = yield* ok(c, "recall", { fields: { type: "context", mode: "list" } })
      assert.strictEqual(knowledge.structured.entries.length, 1)
      // act: acknowledge then resolve the alert, suppress and unsuppress, delete and restore
      yield* ok(c, "act", { action: "acknowledge", entry_id: alert.structured.id, note: "looking into it" })
      assert.isFalse((yield* ok(c, "get_briefing")).structured.attention_needed)
      const resolved = yield* ok(c, "act", { action: "resolve", fields: { source: "nas", alert_id: "disk" } })
      assert.strictEqual(resolved.structured.action, "resolved")
      const suppression = yield* ok(c, "act", {
        action: "suppress",
        note: "maintenance",
        fields: { source: "nas", minutes: 30 }
      })
      assert.isString(suppression.structured.expires)
      yield* ok(c, "act", { action: "unsuppress", entry_id: suppression.structured.id })
      yield* ok(c, "act", { action: "delete", entry_id: note.structured.id })
      assert.strictEqual(
        (yield* ok(c, "act", { action: "restore", entry_id: note.structured.id })).structured.restored,
        1
      )
      // remind, then done, snooze and cancel
      const reminder = yield* ok(c, "remind", { goal: "Call the plumber", deliver_at: "2099-01-01T09:00:00Z" })
      assert.strictEqual(reminder.structured.state, "pending")
      yield* ok(c, "act", {
        action: "snooze",
        entry_id: reminder.structured.id,
        fields: { deliver_at: "2099-02-01T09:00:00Z" }
      })
      yield* ok(c, "act", { action: "done", entry_id: reminder.structured.id, note: "called" })
      const other = yield* ok(c, "remind", { goal: "Water plants", fields: { urgency: "low" } })
      yield* ok(c, "act", { action: "cancel", entry_id: other.structured.id })
      const intentions = yield* ok(c, "recall", { what: "intentions", fields: { state: "completed" } })
      assert.strictEqual(intentions.structured.entries[0].id, reminder.structured.id)
    }).pipe(Effect.scoped)
  )

  it.effect("a parameter the chosen variant does not use is an invalid_parameter error naming it", () =>
    Effect.gen(function* () {
      const c = yield* client("compact")
      const wrong = yield* call(c, "recall", { what: "stats", fields: { state: "fired" } })
      assert.isTrue(wrong.isError)
      assert.strictEqual(wrong.body.error.code, "invalid_parameter")
      assert.strictEqual(wrong.body.error.param, "state")
      const missing = yield* call(c, "act", { action: "done" })
      assert.strictEqual(missing.body.error.param, "entry_id")
      const level = yield* call(c, "report", {
        kind: "alert",
        source: "nas",
        alert_id: "x",
        level: "warnin",
        message: "m"
      })
      assert.deepStrictEqual([level.body.error.param, level.body.error.suggestion], ["level", "warning"])
      // The full profile's names are not served in the compact one.
      const unknown = yield* Effect.flip(c.callTool({ name: "report_alert", arguments: {} }))
      assert.include(String(unknown), "report_alert")
    }).pipe(Effect.scoped)
  )
})
