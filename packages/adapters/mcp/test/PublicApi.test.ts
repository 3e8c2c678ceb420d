/**
 * Acceptance-style checks of issue 9's @heed/mcp surface, imported only from the package name: tool, resource and
 * prompt names with upstream parameter names and defaults, the server instructions, the structured error body, and
 * interoperation with the official `@modelcontextprotocol/sdk` client over Streamable HTTP (`AwarenessMcp.layerHttp`
 * served by `HttpRouter.serve` on `NodeHttpServer.layer`).
 */
import { createServer } from "node:http"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { assert, describe, it } from "@effect/vitest"
import { Awareness, AwarenessTools, Store } from "@heed/collator"
import { AwarenessMcp, AwarenessResolver, Instructions, ToolError, Tools } from "@heed/mcp"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import * as McpTest from "effect/ai/McpTest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServer from "effect/http/HttpServer"
import * as Layer from "effect/Layer"

const services = Layer.provide(AwarenessResolver.layer, Awareness.layer.pipe(Layer.provide(Store.layerMemory)))

const memoryClient = McpTest.makeClient(
  AwarenessMcp.registrations({ notificationDebounce: 0, pollInterval: 0 }).pipe(Layer.provide(services)),
  { protocols: AwarenessMcp.protocols }
)

type Schema = {
  readonly properties: Record<string, { readonly default?: unknown }>
  readonly required?: ReadonlyArray<string>
}

const textOf = (result: { readonly content: ReadonlyArray<unknown> }): string =>
  (result.content[0] as { readonly text: string }).text

describe("@heed/mcp public API", () => {
  it("serves the protocol revisions 2025-11-25 (preferred), 2025-06-18 and 2026-07-28", () => {
    assert.deepStrictEqual(
      AwarenessMcp.protocols.map((protocol) => protocol.protocolVersion),
      ["2025-11-25", "2025-06-18", "2026-07-28"]
    )
  })

  it.effect("tools carry upstream parameter names and defaults, plus heed's additions", () =>
    Effect.gen(function* () {
      const client = yield* memoryClient
      const { tools } = yield* client.listTools()
      const schema = (name: string) => tools.find((tool) => tool.name === name)!.inputSchema as Schema
      const params = (name: string) => Object.keys(schema(name).properties)
      assert.includeMembers(params("report_status"), ["source", "tags", "metrics", "inventory", "ttl_sec"])
      assert.strictEqual(schema("report_status").properties.ttl_sec?.default, 120)
      assert.includeMembers(params("report_alert"), [
        "source",
        "tags",
        "alert_id",
        "level",
        "alert_type",
        "message",
        "details",
        "diagnostics",
        "resolved",
        "metric",
        "value",
        "threshold"
      ])
      assert.strictEqual(schema("report_alert").properties.resolved?.default, false)
      assert.includeMembers(params("suppress_alert"), [
        "source",
        "tags",
        "metric",
        "level",
        "duration_minutes",
        "escalation_override",
        "reason"
      ])
      const suppress = schema("suppress_alert").properties
      assert.deepStrictEqual(
        [suppress.level?.default, suppress.duration_minutes?.default, suppress.escalation_override?.default],
        ["warning", 60, true]
      )
      assert.strictEqual(schema("add_context").properties.expires_days?.default, 30)
      assert.strictEqual(schema("set_preference").properties.scope?.default, "global")
      assert.strictEqual(schema("remind").properties.urgency?.default, "normal")
      assert.strictEqual(schema("search").properties.limit?.default, 10)
      assert.strictEqual(schema("delete_entry").properties.confirm?.default, false)
      assert.includeMembers(params("delete_entry"), ["source", "entry_type", "entry_id", "tags", "confirm"])
      assert.includeMembers(params("update_intention"), ["entry_id", "state", "reason"])
      assert.includeMembers(params("acted_on"), ["entry_id", "action", "platform", "detail", "tags"])
      assert.deepStrictEqual(params("clear_suppression"), ["entry_id"])
      assert.includeMembers(params("get_alerts"), ["source", "since", "mode", "limit", "offset"])
      assert.deepStrictEqual(params("get_status"), ["source"])
      assert.strictEqual(Tools.toMcpTool("get_briefing").name, "get_briefing")
    }).pipe(Effect.scoped)
  )

  it.effect("write responses keep upstream's shapes: report_alert, report_status, suppress_alert", () =>
    Effect.gen(function* () {
      const client = yield* memoryClient
      const status = JSON.parse(
        textOf(
          yield* client.callTool({
            name: "report_status",
            arguments: { source: "nas", tags: ["nas"], metrics: { disk_pct: 50 } }
          })
        )
      )
      assert.deepStrictEqual([status.status, status.source, typeof status.id], ["ok", "nas", "string"])
      const alert = JSON.parse(
        textOf(
          yield* client.callTool({
            name: "report_alert",
            arguments: {
              source: "nas",
              tags: ["disk"],
              alert_id: "disk",
              level: "warning",
              alert_type: "threshold",
              message: "Disk 91% full",
              metric: "disk_pct",
              value: 91,
              threshold: 90
            }
          })
        )
      )
      assert.deepStrictEqual([alert.action, alert.alert_id], ["reported", "disk"])
      const suppression = JSON.parse(
        textOf(yield* client.callTool({ name: "suppress_alert", arguments: { source: "nas", metric: "disk_pct" } }))
      )
      assert.isString(suppression.id)
      assert.isString(suppression.expires)
      const briefing = JSON.parse(textOf(yield* client.callTool({ name: "get_briefing", arguments: {} })))
      assert.isFalse(briefing.attention_needed)
    }).pipe(Effect.scoped)
  )

  it.effect("resources and prompts use the issue's URIs and names", () =>
    Effect.gen(function* () {
      const client = yield* memoryClient
      const { resources } = yield* client.listResources()
      const { resourceTemplates } = yield* client.listResourceTemplates()
      assert.sameMembers(
        [...resources.map((resource) => resource.uri), ...resourceTemplates.map((template) => template.uriTemplate)],
        [
          "awareness://briefing",
          "awareness://alerts",
          "awareness://alerts/{source}",
          "awareness://status/{source}",
          "awareness://knowledge",
          "awareness://suppressions"
        ]
      )
      const { prompts } = yield* client.listPrompts()
      const byName = new Map(prompts.map((prompt) => [prompt.name, prompt]))
      assert.sameMembers([...byName.keys()], ["agent_instructions", "system_status", "catchup"])
      assert.deepStrictEqual(
        byName.get("system_status")?.arguments?.map((argument) => argument.name),
        ["source"]
      )
      assert.deepStrictEqual(
        byName.get("catchup")?.arguments?.map((argument) => argument.name),
        ["hours"]
      )
      const catchup = yield* client.getPrompt({ name: "catchup", arguments: {} })
      assert.include((catchup.messages[0]!.content as { text: string }).text, "24 hours")
    }).pipe(Effect.scoped)
  )

  it("the instructions say to read the briefing first and stay quiet when attention_needed is false", () => {
    assert.include(Instructions.instructions, "awareness://briefing")
    assert.include(Instructions.instructions, "attention_needed is false")
  })

  it.effect("a bad enum value is upstream's JSON error body with a did-you-mean suggestion; the session survives", () =>
    Effect.gen(function* () {
      const client = yield* memoryClient
      const result = yield* client.callTool({
        name: "report_alert",
        arguments: { source: "nas", tags: [], alert_id: "x", level: "critcal", message: "m" }
      })
      assert.isTrue(result.isError)
      const body = JSON.parse(textOf(result))
      assert.strictEqual(body.status, "error")
      assert.deepStrictEqual(
        [body.error.code, body.error.param, body.error.suggestion, body.error.retryable],
        ["invalid_parameter", "level", "critical", false]
      )
      assert.includeMembers(body.error.valid, ["warning", "critical"])
      const again = JSON.parse(textOf(yield* client.callTool({ name: "get_stats", arguments: {} })))
      assert.isNumber(again.total)
      assert.strictEqual(ToolError.suggest("critcal", ["warning", "critical"]), "critical")
    }).pipe(Effect.scoped)
  )

  it.effect("read and write shapes follow upstream: stats, tags, pagination, delete, acted_on, update_entry", () =>
    Effect.gen(function* () {
      const client = yield* memoryClient
      const call = (name: string, args: Record<string, unknown> = {}) =>
        Effect.map(client.callTool({ name, arguments: args }), (result) => ({
          isError: result.isError === true,
          body: JSON.parse(textOf(result))
        }))
      const note = (yield* call("remember", { source: "user", tags: ["a", "b"], description: "first note" })).body
      yield* call("remember", { source: "user", tags: ["b"], description: "second note" })
      const stats = (yield* call("get_stats")).body
      assert.sameMembers(Object.keys(stats.entries), [
        "status",
        "alert",
        "pattern",
        "suppression",
        "context",
        "preference",
        "note",
        "intention",
        "schema",
        "record"
      ])
      assert.deepStrictEqual([stats.entries.note, stats.total], [2, 2])
      const tags = (yield* call("get_tags")).body
      assert.deepStrictEqual(tags[0], { tag: "b", count: 2 })
      const page = (yield* call("get_knowledge", { limit: 1 })).body
      assert.deepStrictEqual([page.entries.length, page.limit, page.offset, page.has_more], [1, 1, 0, true])
      const negative = yield* call("get_knowledge", { limit: -1 })
      assert.isTrue(negative.isError)
      assert.deepStrictEqual([negative.body.error.code, negative.body.error.param], ["invalid_parameter", "limit"])
      const edited = (yield* call("update_entry", { entry_id: note.id, description: "first note, edited" })).body
      assert.deepStrictEqual([edited.status, edited.id, typeof edited.updated], ["ok", note.id, "string"])
      const acted = (yield* call("acted_on", { entry_id: note.id, action: "read it" })).body
      assert.deepStrictEqual([acted.entry_id, acted.action, typeof acted.timestamp], [note.id, "read it", "string"])
      const ghost = (yield* call("delete_entry", { entry_id: "does-not-exist" })).body
      assert.deepStrictEqual(
        [ghost.status, ghost.entry_id, ghost.recoverable_days],
        ["acknowledged", "does-not-exist", 30]
      )
      const dryRun = (yield* call("delete_entry", { tags: ["b"] })).body
      assert.strictEqual(dryRun.status, "dry_run")
      assert.strictEqual((yield* call("get_stats")).body.total, 2)
      const found = (yield* call("search", { query: "second" })).body
      assert.strictEqual(found.length, 1)
      const reminder = (yield* call("remind", { goal: "g", source: "user", tags: [] })).body
      assert.strictEqual(reminder.state, "pending")
    }).pipe(Effect.scoped)
  )

  it.live(
    "the official SDK client interoperates over Streamable HTTP (AwarenessMcp.layerHttp on HttpRouter.serve)",
    () =>
      Effect.gen(function* () {
        const context = yield* Layer.build(
          HttpRouter.serve(AwarenessMcp.layerHttp({ pollInterval: 0 }).pipe(Layer.provide(services)), {
            disableLogger: true
          }).pipe(Layer.provideMerge(NodeHttpServer.layer(() => createServer(), { port: 0, host: "127.0.0.1" })))
        )
        const address = Context.get(context, HttpServer.HttpServer).address
        const port = address._tag === "UnixPathAddress" ? 0 : address.port
        const client = yield* Effect.acquireRelease(
          Effect.promise(async () => {
            const client = new Client({ name: "acceptance", version: "1.0.0" })
            await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)))
            return client
          }),
          (client) => Effect.promise(() => client.close())
        )
        assert.strictEqual(client.getServerVersion()?.name, AwarenessMcp.serverName)
        assert.include(client.getInstructions() ?? "", "get_briefing")
        const { tools } = yield* Effect.promise(() => client.listTools())
        assert.strictEqual(tools.length, AwarenessTools.names.length)
        const bad = yield* Effect.promise(() =>
          client.callTool({
            name: "report_status",
            arguments: { source: "nas", tags: [], metrics: {}, ttl_sec: "soon" }
          })
        )
        assert.isTrue(bad.isError, JSON.stringify(bad))
        assert.strictEqual(
          JSON.parse((bad.content as Array<{ text: string }>)[0]!.text).error.code,
          "invalid_parameter"
        )
        const good = yield* Effect.promise(() =>
          client.callTool({
            name: "report_alert",
            arguments: { source: "nas", tags: ["disk"], alert_id: "d", level: "critical", message: "Disk failing" }
          })
        )
        assert.isFalse(good.isError === true)
        const { resources } = yield* Effect.promise(() => client.listResources())
        assert.include(
          resources.map((resource) => resource.uri),
          "awareness://briefing"
        )
        const read = yield* Effect.promise(() => client.readResource({ uri: "awareness://briefing" }))
        const briefing = JSON.parse((read.contents[0] as { text: string }).text)
        assert.isTrue(briefing.attention_needed)
        assert.strictEqual(briefing.sources.nas.headline, "Disk failing")
        const status = yield* Effect.promise(() => fetch(`http://127.0.0.1:${port}/mcp`, { method: "GET" }))
        assert.strictEqual(status.status, 405)
      }).pipe(Effect.scoped),
    60_000
  )
})
