/**
 * The awareness tools on `effect/ai/McpServer`: a thin bridge that registers @heed/collator's typed
 * `AwarenessTools.toolkit`, one MCP tool per toolkit tool. Each call goes through `AwarenessTools.callWith` on the
 * awareness service the resolver picks for the request (the same validation path as every other edge); results
 * are JSON text, and every failure is an `isError` result carrying upstream's structured error body — a bad
 * argument never crashes the server or the session.
 *
 * The bridge exists instead of `McpServer.registerToolkit` because upstream's contract answers bad arguments as
 * `isError` results with a structured body (registerToolkit answers JSON-RPC `-32602`), and because the
 * awareness service is resolved per request (per bearer token), not once per server.
 *
 * @since 0.1.0
 */

import { AwarenessTools } from "@heed/collator"
import * as McpSchema from "effect/ai/McpSchema"
import { McpServer } from "effect/ai/McpServer"
import * as Tool from "effect/ai/Tool"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Result from "effect/Result"
import { AwarenessResolver } from "./AwarenessResolver.ts"
import { BriefingChanged } from "./BriefingNotifier.ts"
import { callByName, callToolWith, toJson } from "./internal/call.ts"
import * as ToolError from "./ToolError.ts"

/**
 * Turns the outcome of a call into an MCP tool result: compact JSON (every byte costs the agent tokens; upstream
 * pretty-printed the briefing), or the text itself for a reply that is text (`get_briefing({ format: "text" })`).
 * `indent` pretty-prints JSON.
 *
 * @category constructors
 * @since 0.1.0
 */
export const toResult = (
  outcome: Result.Result<unknown, ToolError.ErrorBody>,
  indent = false
): McpSchema.CallToolResult =>
  Result.isSuccess(outcome)
    ? new McpSchema.CallToolResult({
        content: [
          {
            type: "text",
            text: typeof outcome.success === "string" ? outcome.success : toJson(outcome.success, indent)
          }
        ]
      })
    : new McpSchema.CallToolResult({
        isError: true,
        content: [{ type: "text", text: ToolError.toText(outcome.failure) }]
      })

/**
 * The MCP tool description of an awareness tool: its name, title, description, input JSON Schema and hints.
 *
 * @category constructors
 * @since 0.1.0
 */
export const toMcpTool = (name: AwarenessTools.Name): McpSchema.Tool => {
  const tool = AwarenessTools.toolkit.tools[name]
  const title = Context.getOrUndefined(tool.annotations, Tool.Title)
  return new McpSchema.Tool({
    name,
    title,
    description: Tool.getDescription(tool),
    inputSchema: AwarenessTools.inputSchema(name) as McpSchema.Tool["inputSchema"],
    annotations: {
      title,
      readOnlyHint: Context.get(tool.annotations, Tool.Readonly),
      destructiveHint: Context.get(tool.annotations, Tool.Destructive),
      idempotentHint: Context.get(tool.annotations, Tool.Idempotent),
      openWorldHint: Context.get(tool.annotations, Tool.OpenWorld)
    }
  })
}

/**
 * Registers the given tools (default: all of them) on the `McpServer` in context. After a successful write the
 * briefing notifier, when one is in context (`BriefingNotifier.layer`), is told to look for a briefing change.
 *
 * @category constructors
 * @since 0.1.0
 */
export const register = (
  names: ReadonlyArray<AwarenessTools.Name> = AwarenessTools.names
): Effect.Effect<void, never, McpServer | AwarenessResolver> =>
  Effect.gen(function* () {
    const server = yield* McpServer
    const resolver = yield* AwarenessResolver
    const changed = yield* Effect.serviceOption(BriefingChanged)
    for (const name of names) {
      const readOnly = Context.get(AwarenessTools.toolkit.tools[name].annotations, Tool.Readonly)
      yield* server.addTool({
        tool: toMcpTool(name),
        annotations: Context.empty(),
        handle: (payload) =>
          callToolWith(resolver, name, payload).pipe(
            Effect.tap(({ awareness, outcome }) =>
              readOnly || awareness === undefined || Result.isFailure(outcome) || changed._tag === "None"
                ? Effect.void
                : changed.value.signal(awareness)
            ),
            Effect.map(({ outcome }) => toResult(outcome))
          )
      })
    }
  })

/**
 * Calls one tool by name, as an MCP `tools/call` would: `AwarenessTools.callWith` on the awareness service resolved
 * for the current request (the one validation path, with did-you-mean suggestions), and the outcome is the tool's
 * JSON reply or its structured error body (`not_found` for an unknown tool). Never fails. Other transports (REST,
 * SLOP affordances) call tools through it, so there is one validation path.
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
