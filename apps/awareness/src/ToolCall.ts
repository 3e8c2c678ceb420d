/**
 * How REST and SLOP call an awareness tool: `Tools.call` of @heed/mcp, which is @heed/collator's typed toolkit
 * (`AwarenessTools.callWith`) on the request's awareness service, the same path as MCP's `tools/call`: one copy of
 * parameter validation, with did-you-mean suggestions. Every non-MCP transport goes through {@link callTool}.
 *
 * @since 0.1.0
 */

import { AwarenessTools } from "@heed/collator"
import type { ToolFailure, ToolInfo } from "@heed/http/RestApi"
import { AwarenessResolver, ToolError, Tools } from "@heed/mcp"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import { Backend } from "./Backend.ts"

/**
 * A tool's error body as a REST/SLOP failure: its code, message, parameter, suggestion and valid values.
 *
 * @category constructors
 * @since 0.1.0
 */
export const toFailure = (body: ToolError.ErrorBody): ToolFailure => {
  const { code, message, param, suggestion, valid, retryable } = body.error
  return {
    code,
    message,
    ...(param === undefined ? {} : { parameter: param }),
    ...(suggestion === undefined ? {} : { suggestion }),
    ...(valid === undefined ? {} : { valid }),
    retryable
  }
}

/**
 * Calls the tool `name` with `params` for the owner the `AwarenessResolver` in context resolves to (the request's,
 * over HTTP). The reply is the tool's own JSON; a failure is the tool's typed error.
 *
 * @category constructors
 * @since 0.1.0
 */
export const callTool = (
  name: string,
  params: unknown
): Effect.Effect<unknown, ToolFailure, AwarenessResolver.AwarenessResolver> =>
  Effect.flatMap(Tools.call(name, params), (outcome) =>
    Result.isSuccess(outcome) ? Effect.succeed(outcome.success) : Effect.fail(toFailure(outcome.failure))
  )

/**
 * As {@link callTool}, for a given owner (background work such as the live SLOP tree, outside any request).
 *
 * @category constructors
 * @since 0.1.0
 */
export const callToolAs = (
  owner: string,
  name: string,
  params: unknown
): Effect.Effect<unknown, ToolFailure, Backend> =>
  Effect.flatMap(Backend, (backend) =>
    callTool(name, params).pipe(
      Effect.provideService(
        AwarenessResolver.AwarenessResolver,
        AwarenessResolver.make({ current: backend.forOwner(owner), watched: backend.watched })
      )
    )
  )

/**
 * Every tool with its parameter JSON Schema, for the REST API's OpenAPI document and `POST /v1/tools/{name}`.
 *
 * @category constants
 * @since 0.1.0
 */
export const catalogue: ReadonlyArray<ToolInfo> = AwarenessTools.names.map((name) => {
  const tool = Tools.toMcpTool(name)
  return {
    name,
    description: tool.description ?? "",
    inputSchema: tool.inputSchema,
    readOnly: tool.annotations?.readOnlyHint ?? false
  }
})

/**
 * The JSON Schema of one tool's parameters (an object schema; `{ type: "object" }` for an unknown tool).
 *
 * @category getters
 * @since 0.1.0
 */
export const inputSchemaOf = (name: string): Readonly<Record<string, unknown>> =>
  catalogue.find((tool) => tool.name === name)?.inputSchema ?? { type: "object" }

/**
 * The briefing an owner's next read would get, delivering nothing (`Awareness.peekBriefing`): for background
 * readers such as the live tree, which must not consume a due reminder's delivery. With `maxTokens`, that briefing
 * fitted by the collator under that budget instead (`Awareness.peekBriefingWithin`, generated afresh).
 *
 * @category constructors
 * @since 0.1.0
 */
export const peekBriefingAs = (owner: string, maxTokens?: number): Effect.Effect<unknown, ToolFailure, Backend> =>
  Effect.flatMap(Backend, (backend) =>
    backend.forOwner(owner).pipe(
      Effect.mapError(toFailure),
      Effect.flatMap((awareness) =>
        Effect.mapError(
          maxTokens === undefined ? awareness.peekBriefing : awareness.peekBriefingWithin(maxTokens),
          (error) => toFailure(ToolError.fromFailure(error))
        )
      )
    )
  )
