/**
 * A provider's connections, their subscriptions, and each connection's outbox: messages queue in order, and a
 * consumer that falls `outboxLimit` messages behind gets one fresh snapshot of a subscription instead of its backlog
 * of patches.
 *
 * @since 0.1.0
 * @internal
 */
import type * as Cause from "effect/Cause"
import * as Exit from "effect/Exit"
import * as Queue from "effect/Queue"
import type * as Message from "../Message.ts"
import type { Node } from "../Node.ts"
import type { Op } from "../Patch.ts"

/** One subscription: its request, the view last sent, and its version. */
export interface Subscription {
  readonly id: string
  readonly request: Message.Subscribe
  last: Node
  version: number
}

/** One connection: its outbox and subscriptions. */
export interface Conn {
  readonly queue: Queue.Queue<Message.Outbound, Cause.Done>
  readonly subs: Map<string, Subscription>
  readonly maxSubscriptions: number
  open: boolean
}

/** Queues a message, unless the connection is closed. */
export const offer = (conn: Conn, message: Message.Outbound): void => {
  if (conn.open) Queue.offerUnsafe(conn.queue, message)
}

/** Queues an `error` message, with the request's id when there is one. */
export const offerError = (conn: Conn, id: string | undefined, error: Message.ErrorBody): void =>
  offer(conn, id === undefined ? { type: "error", error } : { type: "error", id, error })

/** Queues the next snapshot of a subscription (its view `sub.last`). */
export const offerSnapshot = (conn: Conn, sub: Subscription): void => {
  sub.version++
  offer(conn, { type: "snapshot", id: sub.id, version: sub.version, tree: sub.last })
}

/**
 * Queues the next patch of a subscription, or, when the outbox holds `outboxLimit` messages already, replaces the
 * subscription's queued patches and snapshots with one fresh snapshot.
 */
export const offerPatch = (conn: Conn, sub: Subscription, ops: ReadonlyArray<Op>, outboxLimit: number): void => {
  if (!conn.open) return
  if (Queue.sizeUnsafe(conn.queue) < outboxLimit) {
    sub.version++
    offer(conn, { type: "patch", subscription: sub.id, version: sub.version, ops })
    return
  }
  const kept: Array<Message.Outbound> = []
  for (let exit = Queue.takeUnsafe(conn.queue); exit !== undefined; exit = Queue.takeUnsafe(conn.queue)) {
    if (!Exit.isSuccess(exit)) break
    const message = exit.value
    if (message.type === "patch" && message.subscription === sub.id) continue
    if (message.type === "snapshot" && message.id === sub.id) continue
    kept.push(message)
  }
  Queue.offerAllUnsafe(conn.queue, kept)
  offerSnapshot(conn, sub)
}
