/**
 * The awareness tools on `effect/ai/McpServer`: one MCP tool per catalogue entry, each backed by the `Awareness`
 * method of the same name. Arguments are checked against the catalogue (with did-you-mean suggestions), results are
 * JSON text, and every failure is an `isError` result carrying upstream's structured error body — a bad argument
 * never crashes the server or the session.
 *
 * @since 0.1.0
 */

import * as McpSchema from "effect/ai/McpSchema"
import { McpServer } from "effect/ai/McpServer"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Result from "effect/Result"
import { AwarenessResolver } from "./AwarenessResolver.ts"
import { BriefingChanged } from "./BriefingNotifier.ts"
import * as Catalog from "./Catalog.ts"
import { callByName, callToolWith, toJson } from "./internal/call.ts"
import * as ToolError from "./ToolError.ts"

/**
 * Turns the outcome of a call into an MCP tool result.
 *
 * @category constructors
 * @since 0.1.0
 */
export const toResult = (
  outcome: Result.Result<unknown, ToolError.ErrorBody>,
  indent = false
): McpSchema.CallToolResult =>
  Result.isSuccess(outcome)
    ? new McpSchema.CallToolResult({ content: [{ type: "text", text: toJson(outcome.success, indent) }] })
    : new McpSchema.CallToolResult({
        isError: true,
        content: [{ type: "text", text: ToolError.toText(outcome.failure) }]
      })

/**
 * The MCP tool description of a catalogue entry.
 *
 * @category constructors
 * @since 0.1.0
 */
export const toMcpTool = (tool: Catalog.ToolDefinition): McpSchema.Tool =>
  new McpSchema.Tool({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: Catalog.inputSchema(tool) as McpSchema.Tool["inputSchema"],
    annotations: {
      title: tool.title,
      readOnlyHint: tool.readOnly,
      destructiveHint: tool.destructive ?? false,
      idempotentHint: tool.idempotent ?? tool.readOnly,
      openWorldHint: false
    }
  })

/**
 * Registers the given tools (default: all of them) on the `McpServer` in context. After a successful write the
 * briefing notifier, when one is in context (`BriefingNotifier.layer`), is told to look for a briefing change.
 *
 * @category constructors
 * @since 0.1.0
 */
export const register = (
  definitions: ReadonlyArray<Catalog.ToolDefinition> = Catalog.tools
): Effect.Effect<void, never, McpServer | AwarenessResolver> =>
  Effect.gen(function* () {
    const server = yield* McpServer
    const resolver = yield* AwarenessResolver
    const changed = yield* Effect.serviceOption(BriefingChanged)
    for (const tool of definitions) {
      yield* server.addTool({
        tool: toMcpTool(tool),
        annotations: Context.empty(),
        handle: (payload) =>
          callToolWith(resolver, tool, payload).pipe(
            Effect.tap(({ awareness, outcome }) =>
              tool.readOnly || awareness === undefined || Result.isFailure(outcome)
                ? Effect.void
                : changed._tag === "Some"
                  ? changed.value.signal(awareness)
                  : Effect.void
            ),
            Effect.map(({ outcome }) => toResult(outcome, tool.indent))
          )
      })
    }
  })

/**
 * Calls one tool by name, as an MCP `tools/call` would: the arguments are validated against the catalogue (the same
 * path as MCP's, with did-you-mean suggestions), the awareness service is resolved for the current request, and the
 * outcome is the tool's JSON reply or its structured error body (`not_found` for an unknown tool). Never fails.
 * Other transports (REST, SLOP affordances) call tools through it, so there is one validation path.
 *
 * @category constructors
 * @since 0.1.0
 */
export const call = (
  name: string,
  args: unknown
): Effect.Effect<Result.Result<unknown, ToolError.ErrorBody>, never, AwarenessResolver> =>
  Effect.flatMap(AwarenessResolver, (resolver) => callByName(resolver, name, args))

/**
 * A layer that registers every awareness tool on the `McpServer` it is provided to.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer: Layer.Layer<never, never, McpServer | AwarenessResolver> = Layer.effectDiscard(register())
