/**
 * A provider's answers to consumer messages: `subscribe`, `unsubscribe`, `query` and `invoke`, and an `error` of
 * code `bad_request` for anything else. Bad input is answered, never raised.
 *
 * @since 0.1.0
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Message from "../Message.ts"
import type { Node } from "../Node.ts"
import * as Invoke from "./invoke.ts"
import type { Conn } from "./outbox.ts"
import { offer, offerError } from "./outbox.ts"
import type { State } from "./providerState.ts"
import { flush } from "./providerState.ts"
import { viewOf } from "./views.ts"

/** Handles one raw inbound message on `conn`. */
export const receive = (state: State, conn: Conn, raw: unknown): Effect.Effect<void> =>
  Effect.suspend(() => {
    if (!conn.open) return Effect.void
    const decoded = Message.decodeInbound(raw)
    if (Result.isFailure(decoded)) {
      const { id, message } = decoded.failure
      offerError(conn, id, { code: "bad_request", message })
      return Effect.void
    }
    const message = decoded.success
    switch (message.type) {
      case "subscribe":
        return Effect.sync(() => subscribe(state, conn, message))
      case "unsubscribe":
        return Effect.sync(() => unsubscribe(conn, message))
      case "query":
        return Effect.sync(() => query(state, conn, message))
      case "invoke":
        return invoke(state, conn, message)
    }
  })

// The view a subscribe or query asks for, or `undefined` after answering with a not_found error.
const viewFor = (state: State, conn: Conn, message: Message.Subscribe | Message.Query): Node | undefined => {
  flush(state)
  const tree = state.current
  const view = tree === undefined ? undefined : viewOf(message, tree, state.settings)
  if (view === undefined) {
    const text = tree === undefined ? "no state registered yet" : `no node at path "${message.path ?? "/"}"`
    offerError(conn, message.id, { code: "not_found", message: text })
  }
  return view
}

const subscribe = (state: State, conn: Conn, message: Message.Subscribe): void => {
  if (conn.subs.size >= conn.maxSubscriptions && !conn.subs.has(message.id)) {
    const text = `this connection holds ${conn.subs.size} subscriptions, the most it may; unsubscribe one first`
    offerError(conn, message.id, { code: "limit_exceeded", message: text })
    return
  }
  const view = viewFor(state, conn, message)
  if (view === undefined) return
  conn.subs.set(message.id, { id: message.id, request: message, last: view, version: 1 })
  offer(conn, { type: "snapshot", id: message.id, version: 1, tree: view })
}

// Ending a subscription is silent; one this connection does not hold is answered with an error, as SLOP does.
const unsubscribe = (conn: Conn, message: Message.Unsubscribe): void => {
  if (!conn.subs.delete(message.id)) {
    offerError(conn, message.id, { code: "not_found", message: `no subscription with id "${message.id}"` })
  }
}

const query = (state: State, conn: Conn, message: Message.Query): void => {
  const view = viewFor(state, conn, message)
  if (view !== undefined) offer(conn, { type: "snapshot", id: message.id, version: state.version, tree: view })
}

// The tree is rebuilt before the handler runs and again before the `result` is sent, so the consumer sees the
// handler's changes (even when it failed) no later than the result.
const invoke = (state: State, conn: Conn, message: Message.Invoke): Effect.Effect<void> =>
  Effect.suspend(() => {
    flush(state)
    return Invoke.run(
      state.current,
      state.settings.providerId,
      { byNode: state.handlers, byAction: state.actionHandlers },
      message
    )
  }).pipe(
    Effect.flatMap((outcome) =>
      Effect.sync(() => {
        flush(state)
        offer(conn, { type: "result", id: message.id, ...outcome })
      })
    )
  )
