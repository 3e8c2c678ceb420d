/**
 * Calling one awareness tool through `AwarenessTools.callWith` (the one validation path) on the service the
 * resolver picks for the request, turning every outcome into JSON or an upstream error body.
 *
 * @since 0.1.0
 */
import { AwarenessTools } from "@heed/collator"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import type { AwarenessApi, AwarenessResolver } from "../AwarenessResolver.ts"
import * as ToolError from "../ToolError.ts"

/** The outcome of a call: the JSON value, or an error body. */
export type Outcome = Result.Result<unknown, ToolError.ErrorBody>

/** The outcome and the awareness service that produced it (when one was resolved). */
export interface Called {
  readonly outcome: Outcome
  readonly awareness: AwarenessApi | undefined
}

/**
 * Resolves the awareness service for the request and calls the tool with the untrusted `payload`. Never fails and
 * never dies (defects become `internal_error`, logged); interruption still propagates.
 */
export const callToolWith = (
  resolver: AwarenessResolver["Service"],
  name: string,
  payload: unknown,
  callWith: typeof AwarenessTools.callWith = AwarenessTools.callWith
): Effect.Effect<Called> => {
  let resolved: AwarenessApi | undefined
  return Effect.gen(function* () {
    const awareness = yield* resolver.current
    resolved = awareness
    const value = yield* callWith(awareness, name, payload)
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
): Effect.Effect<Outcome> => Effect.map(callToolWith(resolver, name, args), (called) => called.outcome)

/** Serialises a successful value as upstream does (`indent` pretty-prints). */
export const toJson = (value: unknown, indent = false): string =>
  JSON.stringify(value === undefined ? null : value, null, indent ? 2 : undefined)
