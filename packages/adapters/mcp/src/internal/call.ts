/**
 * Calling one `Awareness` method by name and turning every outcome into JSON or an upstream error body.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Predicate from "effect/Predicate"
import * as Result from "effect/Result"
import type { AwarenessApi, AwarenessResolver } from "../AwarenessResolver.ts"
import * as Catalog from "../Catalog.ts"
import * as ToolError from "../ToolError.ts"
import { validate } from "./args.ts"

/** The outcome of a call: the JSON value, or an error body. */
export type Outcome = Result.Result<unknown, ToolError.ErrorBody>

/** The outcome and the awareness service that produced it (when one was resolved). */
export interface Called {
  readonly outcome: Outcome
  readonly awareness: AwarenessApi | undefined
}

const invoke = (awareness: AwarenessApi, method: string, args: Record<string, unknown>) => {
  const fn = awareness[method]
  if (!Predicate.isFunction(fn)) {
    return Effect.fail(
      ToolError.make({
        code: "unavailable",
        message: `This awareness service does not implement ${method}.`,
        retryable: false
      })
    )
  }
  const effect = fn.call(awareness, args) as unknown
  return Effect.isEffect(effect) ? (effect as Effect.Effect<unknown, unknown>) : Effect.succeed(effect)
}

/**
 * Validates `payload` against the tool, resolves the awareness service for the request and calls the method. Never
 * fails and never dies (defects become `internal_error`, logged); interruption still propagates.
 */
export const callTool = (
  resolver: AwarenessResolver["Service"],
  tool: Catalog.ToolDefinition,
  payload: unknown
): Effect.Effect<Outcome> => Effect.map(callToolWith(resolver, tool, payload), (called) => called.outcome)

/** As `callTool`, also returning the awareness service that handled the call. */
export const callToolWith = (
  resolver: AwarenessResolver["Service"],
  tool: Catalog.ToolDefinition,
  payload: unknown
): Effect.Effect<Called> => {
  let resolved: AwarenessApi | undefined
  return Effect.gen(function* () {
    const args = validate(tool, payload)
    if (Result.isFailure(args)) return { outcome: args, awareness: undefined } satisfies Called
    const awareness = yield* resolver.current
    resolved = awareness
    const value = yield* invoke(awareness, tool.method, args.success)
    return { outcome: Result.succeed(value), awareness } satisfies Called
  }).pipe(
    Effect.catchCause((cause): Effect.Effect<Called> => {
      if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
      const failure = Cause.findErrorOption(cause)
      if (failure._tag === "Some" && !Cause.hasDies(cause)) {
        return Effect.succeed({ outcome: Result.fail(ToolError.fromFailure(failure.value)), awareness: resolved })
      }
      return Effect.logError("heed/mcp: a tool call died", cause).pipe(
        Effect.as({ outcome: Result.fail(ToolError.fromFailure(undefined)), awareness: resolved })
      )
    })
  )
}

/** Calls a tool by name with arguments (used by resources and prompts). */
export const callByName = (
  resolver: AwarenessResolver["Service"],
  name: string,
  args: unknown
): Effect.Effect<Outcome> => {
  const tool = Catalog.find(name)
  return tool === undefined
    ? Effect.succeed<Outcome>(Result.fail(ToolError.make({ code: "not_found", message: name, retryable: false })))
    : callTool(resolver, tool, args)
}

/** Serialises a successful value as upstream does (`indent` pretty-prints). */
export const toJson = (value: unknown, indent = false): string =>
  JSON.stringify(value === undefined ? null : value, null, indent ? 2 : undefined)
