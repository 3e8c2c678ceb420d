/**
 * Running an `invoke`: finding the node and its handler, validating the params against the affordance's schema,
 * running the handler and turning its outcome into the `result`'s status, data or error.
 *
 * @since 0.1.0
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Message from "../Message.ts"
import type { Node } from "../Node.ts"
import { find, parsePath, pathOf } from "../Node.ts"
import type { Handler } from "../Provider.ts"
import { validate } from "./validate.ts"

/** The key of the handler of `action` on the node at `path` (paths are normalised, so `a/b` and `/a/b` match). */
export const handlerKey = (path: string, action: string): string => `${pathOf(parsePath(path))}\u0000${action}`

/** The error body of a handler's failure: its `code` and `message` when it has them, `internal` otherwise. */
export const errorBody = (error: unknown): Message.ErrorBody => {
  if (typeof error === "object" && error !== null) {
    const { code, message } = error as { code?: unknown; message?: unknown }
    if (typeof code === "string" && typeof message === "string") return { code, message }
    if (typeof message === "string") return { code: "internal", message }
  }
  return { code: "internal", message: typeof error === "string" ? error : "the action failed" }
}

// A typed failure gives its code and message; a thrown error or defect gives its `code` when it has a string one
// (SLOP: "a thrown err.code passes through"); anything else is `internal`, without the defect's message.
const failureBody = (cause: Cause.Cause<unknown>, action: string): Message.ErrorBody => {
  const failure = cause.reasons.find(Cause.isFailReason)
  if (failure !== undefined) return errorBody(failure.error)
  const defect = cause.reasons.find(Cause.isDieReason)?.defect
  if (typeof defect === "object" && defect !== null) {
    const { code, message } = defect as { code?: unknown; message?: unknown }
    if (typeof code === "string" && code !== "") {
      return { code, message: typeof message === "string" ? message : `the action "${action}" failed (${code})` }
    }
  }
  return { code: "internal", message: `the action "${action}" failed unexpectedly` }
}

/** A `result` without its `type` and `id`. */
export type Outcome = Omit<Message.Result, "type" | "id">

const notFound = (message: string): Outcome => ({ status: "error", error: { code: "not_found", message } })

/** A provider's handlers: per node and action (`handle`), and per action for any node offering it (`handleAction`). */
export interface Handlers {
  readonly byNode: ReadonlyMap<string, Handler>
  readonly byAction: ReadonlyMap<string, Handler>
}

/**
 * Runs `message` against `tree` (a path may start with the provider's id, as SLOP consumers that address several
 * providers write it) and returns the result's body. Never fails: every problem is an `error` outcome. A node's own
 * handler wins; an action-wide handler answers only on nodes whose affordances offer the action.
 */
export const run = (
  tree: Node | undefined,
  providerId: string,
  handlers: Handlers,
  message: Message.Invoke
): Effect.Effect<Outcome> => {
  let segments = parsePath(message.path)
  if (tree !== undefined && segments[0] === providerId && find(tree, segments) === undefined) {
    segments = segments.slice(1)
  }
  const path = pathOf(segments)
  const node = tree === undefined ? undefined : find(tree, segments)
  if (node === undefined) return Effect.succeed(notFound(`no node at path "${message.path}"`))
  const action = message.action
  const affordance = node.affordances?.find((a) => a.action === action)
  const handler =
    handlers.byNode.get(handlerKey(path, action)) ??
    (affordance === undefined ? undefined : handlers.byAction.get(action))
  if (handler === undefined) return Effect.succeed(notFound(`no action "${action}" on "${path}"`))
  const params = message.params ?? {}
  const problem = validate(affordance?.params ?? { type: "object" }, params, "params")
  if (problem !== undefined) {
    return Effect.succeed({ status: "error", error: { code: "invalid_params", message: problem } })
  }
  return Effect.map(
    Effect.exit(Effect.suspend(() => handler(params, { path, action, node }))),
    (exit): Outcome =>
      Exit.isSuccess(exit) ? success(exit.value) : { status: "error", error: failureBody(exit.cause, action) }
  )
}

// `{ __async: true, taskId }` (see `Provider.accepted`) answers `accepted` with the rest as data; an empty object or
// a non-object answers `ok` without data.
const success = (value: unknown): Outcome => {
  if (typeof value === "object" && value !== null && (value as { __async?: unknown }).__async === true) {
    const { __async: _, ...data } = value as Record<string, unknown>
    return { status: "accepted", data }
  }
  const hasData = typeof value === "object" && value !== null && Object.keys(value).length > 0
  return hasData ? { status: "ok", data: value } : { status: "ok" }
}
