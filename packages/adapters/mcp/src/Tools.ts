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

import { AwarenessTools, CompactTools } from "@heed/collator"
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
 * `indent` pretty-prints JSON. With the tool's `name`, a success also carries `structuredContent` (MCP 2025-06-18):
 * the reply as a JSON object matching the tool's `outputSchema` (`AwarenessTools.structured`).
 *
 * @category constructors
 * @since 0.1.0
 */
export const toResult = (
  outcome: Result.Result<unknown, ToolError.ErrorBody>,
  indent = false,
  name?: string
): McpSchema.CallToolResult =>
  Result.isSuccess(outcome)
    ? new McpSchema.CallToolResult({
        content: [
          {
            type: "text",
            text: typeof outcome.success === "string" ? outcome.success : toJson(outcome.success, indent)
          }
        ],
        ...(name === undefined ? {} : { structuredContent: AwarenessTools.structured(name, outcome.success) })
      })
    : new McpSchema.CallToolResult({
        isError: true,
        content: [{ type: "text", text: ToolError.toText(outcome.failure) }]
      })

/**
 * The tool profiles: `full` (the default; the 23 upstream-compatible tools) and `compact` (six tools covering the
 * same capabilities, `CompactTools`).
 *
 * @category models
 * @since 0.1.0
 */
export type Profile = "full" | "compact"

/**
 * The profile names, for flags and environment variables (`HEED_TOOLS`).
 *
 * @category constants
 * @since 0.1.0
 */
export const profiles: ReadonlyArray<Profile> = ["full", "compact"]

type AnyTool = (typeof AwarenessTools.toolkit.tools)[AwarenessTools.Name]

/**
 * The MCP description of a toolkit tool. Every byte of `tools/list` is paid on every request, so it carries only
 * what a client acts on: the name (no separate title), the description, the input and output schemas, and hints on
 * the read-only tools (all four, since the server fills in the MCP defaults of any hint left out): a client may run
 * a read without asking. A write carries no hints, so a client treats it as the MCP defaults say (it may change
 * things: ask first). The toolkit's own annotations (`Tool.Title`, `Tool.Destructive`, `Tool.Idempotent`) stay
 * available in-process.
 */
const describe = (
  tool: {
    readonly name: string
    readonly annotations: AnyTool["annotations"]
    readonly description?: string | undefined
  },
  inputSchema: Record<string, unknown>,
  outputSchema: Record<string, unknown>
): McpSchema.Tool =>
  new McpSchema.Tool({
    name: tool.name,
    description: tool.description,
    inputSchema: inputSchema as McpSchema.Tool["inputSchema"],
    outputSchema,
    ...(Context.get(tool.annotations, Tool.Readonly)
      ? {
          annotations: {
            readOnlyHint: true,
            destructiveHint: false,
            idempotentHint: true,
            openWorldHint: Context.get(tool.annotations, Tool.OpenWorld)
          }
        }
      : {})
  })

/**
 * The MCP tool description of an awareness tool: its name, title, description, input and output JSON Schemas and
 * hints.
 *
 * @category constructors
 * @since 0.1.0
 */
export const toMcpTool = (name: AwarenessTools.Name): McpSchema.Tool =>
  describe(AwarenessTools.toolkit.tools[name], AwarenessTools.inputSchema(name), AwarenessTools.outputSchema(name))

/**
 * The MCP tool description of a compact-profile tool.
 *
 * @category constructors
 * @since 0.1.0
 */
export const toCompactMcpTool = (name: CompactTools.Name): McpSchema.Tool =>
  describe(CompactTools.toolkit.tools[name], CompactTools.inputSchema(name), CompactTools.outputSchema(name))

/**
 * The `tools/list` entries of a profile, in order.
 *
 * @category getters
 * @since 0.1.0
 */
export const list = (profile: Profile = "full"): ReadonlyArray<McpSchema.Tool> =>
  (profile === "compact" ? CompactTools.names.map(toCompactMcpTool) : AwarenessTools.names.map(toMcpTool)).map(lean)

const bounds = new Set(["maxLength", "maxItems", "maximum", "items"])

/**
 * A tool as `tools/list` serves it: each parameter's JSON Schema without its size bounds (`maxLength`, `maxItems`,
 * `maximum` and the `items` of a list). Every request pays for `tools/list`, while a value over a bound is answered
 * with an `invalid_parameter` error naming the parameter and the bound; the REST API's OpenAPI document
 * (`toMcpTool`) still advertises them.
 */
const lean = (tool: McpSchema.Tool): McpSchema.Tool => {
  const schema = tool.inputSchema as { readonly properties?: Record<string, Record<string, unknown>> }
  if (schema.properties === undefined) return tool
  const properties: Record<string, Record<string, unknown>> = {}
  for (const [name, property] of Object.entries(schema.properties)) {
    properties[name] = Object.fromEntries(Object.entries(property).filter(([key]) => !bounds.has(key)))
  }
  return new McpSchema.Tool({
    ...tool,
    inputSchema: { ...tool.inputSchema, properties } as McpSchema.Tool["inputSchema"]
  })
}

const addTools = (
  entries: ReadonlyArray<{ readonly tool: McpSchema.Tool; readonly readOnly: boolean }>,
  callWith: typeof AwarenessTools.callWith
): Effect.Effect<void, never, McpServer | AwarenessResolver> =>
  Effect.gen(function* () {
    const server = yield* McpServer
    const resolver = yield* AwarenessResolver
    const changed = yield* Effect.serviceOption(BriefingChanged)
    for (const { tool, readOnly } of entries) {
      const name = tool.name
      yield* server.addTool({
        tool,
        annotations: Context.empty(),
        handle: (payload) =>
          callToolWith(resolver, name, payload, callWith).pipe(
            Effect.tap(({ awareness, outcome }) =>
              readOnly || awareness === undefined || Result.isFailure(outcome) || changed._tag === "None"
                ? Effect.void
                : changed.value.signal(awareness)
            ),
            Effect.map(({ outcome }) => toResult(outcome, false, name))
          )
      })
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
  names: ReadonlyArray<AwarenessTools.Name> = AwarenessTools.names
): Effect.Effect<void, never, McpServer | AwarenessResolver> =>
  addTools(
    names.map((name) => ({
      tool: lean(toMcpTool(name)),
      readOnly: Context.get(AwarenessTools.toolkit.tools[name].annotations, Tool.Readonly)
    })),
    AwarenessTools.callWith
  )

/**
 * Registers the tools of a profile: every awareness tool (`full`) or the six compact ones (`compact`).
 *
 * @category constructors
 * @since 0.1.0
 */
export const registerProfile = (profile: Profile): Effect.Effect<void, never, McpServer | AwarenessResolver> =>
  profile === "compact"
    ? addTools(
        CompactTools.names.map((name) => ({
          tool: lean(toCompactMcpTool(name)),
          readOnly: CompactTools.isReadOnly(name)
        })),
        CompactTools.callWith
      )
    : register()

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

/**
 * A layer that registers the tools of a profile on the `McpServer` it is provided to.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerProfile = (profile: Profile): Layer.Layer<never, never, McpServer | AwarenessResolver> =>
  Layer.effectDiscard(registerProfile(profile))
