/**
 * The awareness resources: `awareness://briefing`, `awareness://alerts`, `awareness://alerts/{source}`,
 * `awareness://status/{source}`, `awareness://knowledge` (paginated, never unbounded) and
 * `awareness://suppressions`. Each mirrors a tool (`get_briefing`, `get_alerts`, `get_status`, `get_knowledge`,
 * `get_suppressions`), because several MCP clients expose tools only. A failing read answers the JSON error body
 * instead of a protocol error, as upstream's status resource does.
 *
 * @since 0.1.0
 */

import * as McpSchema from "effect/ai/McpSchema"
import * as McpServer from "effect/ai/McpServer"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type { AwarenessResolver } from "./AwarenessResolver.ts"
import { callByName, toJson } from "./internal/call.ts"
import { registerAll } from "./internal/register.ts"
import * as ToolError from "./ToolError.ts"

/**
 * How many knowledge entries `awareness://knowledge` returns (list mode); `get_knowledge` pages further.
 *
 * @category constants
 * @since 0.1.0
 */
export const knowledgePageSize = 50

const json = "application/json"

/** A read result that names its media type (clients and the Inspector's strict mode expect `mimeType`). */
const jsonContents = (uri: string, text: string): McpSchema.ReadResourceResult => ({
  contents: [{ uri, mimeType: json, text }]
})

const read = (
  resolver: AwarenessResolver["Service"],
  uri: string,
  tool: string,
  args: Record<string, unknown>,
  indent = false
) =>
  callByName(resolver, tool, args).pipe(
    Effect.map((outcome) =>
      jsonContents(uri, Result.isSuccess(outcome) ? toJson(outcome.success, indent) : ToolError.toText(outcome.failure))
    )
  )

const knowledgePage = (resolver: AwarenessResolver["Service"]) =>
  callByName(resolver, "get_knowledge", { mode: "list", limit: knowledgePageSize }).pipe(
    Effect.map((outcome) => {
      if (Result.isFailure(outcome)) return jsonContents("awareness://knowledge", ToolError.toText(outcome.failure))
      const page = outcome.success as Record<string, unknown> | null
      return jsonContents(
        "awareness://knowledge",
        toJson(
          page !== null && typeof page === "object" && page.has_more === true
            ? { ...page, next: `call get_knowledge with offset=${knowledgePageSize} (and a limit) for more` }
            : page
        )
      )
    })
  )

/**
 * Registers the resources on the `McpServer` in context.
 *
 * @category constructors
 * @since 0.1.0
 */
export const register: Effect.Effect<void, never, McpServer.McpServer | AwarenessResolver> = registerAll((resolver) => [
  McpServer.registerResource({
    uri: "awareness://briefing",
    name: "briefing",
    description:
      "Read this at conversation start: the compact digest (about 200 tokens when all is clear). " +
      "If attention_needed is false, say nothing. Subscribe to be told when it changes. Tool mirror: get_briefing.",
    mimeType: json,
    audience: ["assistant"],
    priority: 1,
    // The full briefing, with the evaluation block, for operators; compact JSON like every reply.
    content: read(resolver, "awareness://briefing", "get_briefing", { explain: true })
  }),
  McpServer.registerResource({
    uri: "awareness://alerts",
    name: "alerts",
    description: "Active alerts across all sources (first page). Tool mirror: get_alerts.",
    mimeType: json,
    content: read(resolver, "awareness://alerts", "get_alerts", {})
  }),
  McpServer.registerResource`awareness://alerts/${McpSchema.param("source", Schema.String)}`({
    name: "alerts-by-source",
    description: "Active alerts of one source (the briefing's drill_down). Tool mirror: get_alerts(source).",
    mimeType: json,
    content: (uri, source) => read(resolver, uri, "get_alerts", { source: decodeURIComponent(source) })
  }),
  McpServer.registerResource`awareness://status/${McpSchema.param("source", Schema.String)}`({
    name: "status-by-source",
    description: "The full latest status of one source: metrics, inventory, ttl. Tool mirror: get_status(source).",
    mimeType: json,
    content: (uri, source) => read(resolver, uri, "get_status", { source: decodeURIComponent(source) })
  }),
  McpServer.registerResource({
    uri: "awareness://knowledge",
    name: "knowledge",
    description:
      `Patterns, context, preferences and notes: the ${knowledgePageSize} most recently updated, list ` +
      "mode (never unbounded). Tool mirror: get_knowledge (filters, pages).",
    mimeType: json,
    content: knowledgePage(resolver)
  }),
  McpServer.registerResource({
    uri: "awareness://suppressions",
    name: "suppressions",
    description: "Active suppressions. Tool mirror: get_suppressions.",
    mimeType: json,
    content: read(resolver, "awareness://suppressions", "get_suppressions", {})
  })
])

/**
 * A layer that registers the resources on the `McpServer` it is provided to.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer: Layer.Layer<never, never, McpServer.McpServer | AwarenessResolver> = Layer.effectDiscard(register)
