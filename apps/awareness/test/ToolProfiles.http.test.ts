/**
 * Both tool profiles over the real Streamable HTTP server with the official MCP SDK client (issue 26): the SDK
 * checks every `structuredContent` against the tool's `outputSchema` (it refuses a result that lacks one), and
 * `tools/list` is measured with heed's o200k counter.
 */
import { assert, describe, it } from "@effect/vitest"
import { TokenCounter } from "@heed/schema"
import * as Effect from "effect/Effect"
import { connectHttp, settingsFor, startHttp } from "./harness.ts"

const listed = (profile: "full" | "compact") =>
  Effect.gen(function* () {
    const { url } = yield* startHttp(settingsFor({ tools: profile }), { _tag: "memory" })
    const client = yield* connectHttp(url)
    const { tools } = yield* Effect.promise(() => client.listTools())
    return { client, tools }
  })

describe("tool profiles over HTTP (official MCP SDK client)", () => {
  it.live("full: 23 tools, each with an outputSchema, tools/list at most 3,000 o200k tokens", () =>
    Effect.gen(function* () {
      const { client, tools } = yield* listed("full")
      assert.strictEqual(tools.length, 23)
      for (const tool of tools) assert.strictEqual(tool.outputSchema?.type, "object", tool.name)
      assert.isAtMost(TokenCounter.countO200k(JSON.stringify({ tools })), 3000)
      // The SDK validates structuredContent against the outputSchema it listed, and fails the call without one.
      const status = yield* Effect.promise(() =>
        client.callTool({ name: "report_status", arguments: { source: "nas", tags: [], metrics: { disk: 91 } } })
      )
      assert.strictEqual((status.structuredContent as { source?: string }).source, "nas")
      const text = yield* Effect.promise(() => client.callTool({ name: "get_briefing", arguments: { format: "text" } }))
      assert.strictEqual(
        (text.structuredContent as { text?: string }).text,
        (text.content as Array<{ text: string }>)[0]?.text
      )
      const tags = yield* Effect.promise(() => client.callTool({ name: "get_tags", arguments: {} }))
      assert.isArray((tags.structuredContent as { tags?: unknown }).tags)
    }).pipe(Effect.scoped)
  )

  it.live("compact: six tools, tools/list at most 1,200 o200k tokens, a write and the briefing", () =>
    Effect.gen(function* () {
      const { client, tools } = yield* listed("compact")
      assert.deepStrictEqual(
        tools.map((tool) => tool.name),
        ["get_briefing", "recall", "report", "remember", "remind", "act"]
      )
      assert.isAtMost(TokenCounter.countO200k(JSON.stringify({ tools })), 1200)
      yield* Effect.promise(() =>
        client.callTool({
          name: "report",
          arguments: { kind: "alert", source: "nas", alert_id: "disk", level: "critical", message: "Disk failing" }
        })
      )
      const briefing = yield* Effect.promise(() => client.callTool({ name: "get_briefing", arguments: {} }))
      const structured = briefing.structuredContent as { attention_needed?: boolean; suggested_mention?: string }
      assert.isTrue(structured.attention_needed)
      assert.strictEqual(structured.suggested_mention, "CRITICAL: Disk failing")
    }).pipe(Effect.scoped)
  )
})
