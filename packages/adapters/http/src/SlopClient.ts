/**
 * A WebSocket transport for `@heed/state-tree`'s `Consumer`: connects to any SLOP provider (heed's `SlopServer`, or
 * SLOP's own TypeScript server), reconnects with backoff and resubscribes. Browser-safe: it uses only the
 * `WebSocket` constructor given through `effect/socket`'s `WebSocketConstructor` (the global one in browsers and
 * Node 22+).
 *
 * @since 0.1.0
 */

import { Consumer, Message } from "@heed/state-tree"
import type * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Predicate from "effect/Predicate"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Socket from "effect/socket/Socket"
import * as Protocols from "./internal/protocols.ts"

/**
 * Client options:
 *
 * - `url`: the provider's WebSocket URL (`ws://host:port/slop`);
 * - `token`: a bearer token, offered as the `heed.bearer.…` subprotocol next to `slop` (browsers cannot set headers
 *   on a WebSocket, and a token in the URL would end up in logs; see `SlopServer.bearerProtocol`);
 * - `reconnect`: backoff after a lost connection, doubling from `initialDelay` (default 100 ms) up to `maxDelay`
 *   (default 5 s), giving up after `maxAttempts` failed attempts in a row (default: never); `false` to stay closed;
 * - `openTimeout`: how long one connection attempt may take (default 10 s);
 * - `maxPending`: messages kept while disconnected, sent on reconnect (default 1,000; beyond it a query or invoke is
 *   answered at once with an `error` of code `connection_lost`).
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly url: string
  readonly token?: string | undefined
  readonly reconnect?:
    | false
    | {
        readonly initialDelay?: Duration.Input | undefined
        readonly maxDelay?: Duration.Input | undefined
        readonly maxAttempts?: number | undefined
      }
    | undefined
  readonly openTimeout?: Duration.Input | undefined
  readonly maxPending?: number | undefined
}

/**
 * The first connection could not be opened (a wrong URL, a server that is down, or an upgrade refused for a missing
 * or invalid token: browsers do not say which).
 *
 * @category errors
 * @since 0.1.0
 */
export class SlopClientError extends Schema.TaggedError<SlopClientError>()("SlopClientError", {
  url: Schema.String,
  message: Schema.String
}) {}

/**
 * Where the client stands: `open`, `reconnecting` after a lost connection, or `closed` (by {@link SlopClient.close},
 * its scope, or after the last reconnect attempt).
 *
 * @category models
 * @since 0.1.0
 */
export type State = "open" | "reconnecting" | "closed"

/**
 * A connected client: a `Consumer.Transport` (`send`, `messages`) plus its state.
 *
 * - `send` writes one message per text frame. While disconnected, `subscribe` and `unsubscribe` only update the set
 *   of subscriptions and other messages wait for the next connection.
 * - `messages` holds every valid provider message, across reconnections; frames that are not SLOP messages are
 *   dropped (counted in `dropped`). After a reconnection the provider's new `hello` comes first, then a fresh
 *   `snapshot` for every subscription, which restarts its mirror. A query or invoke still unanswered when the
 *   connection is lost is answered with an `error` of code `connection_lost` (it may or may not have run).
 *
 * @category models
 * @since 0.1.0
 */
export interface SlopClient extends Consumer.Transport {
  readonly state: Effect.Effect<State>
  /** How many times a connection was opened (1 + reconnections). */
  readonly connections: Effect.Effect<number>
  /** Frames received that were not SLOP messages. */
  readonly dropped: Effect.Effect<number>
  /** Closes the connection for good and ends `messages`. */
  readonly close: Effect.Effect<void>
}

// What is checked before a frame is passed on: the envelope of each message. Trees and ops are checked where they
// are used (`Consumer`'s mirror reports a patch that does not fit as a gap and resubscribes), so a large snapshot
// is not walked twice, and ids that SLOP forbids but providers may send still arrive.
const Envelope: Schema.Codec<unknown> = Schema.Union([
  Message.Hello,
  Schema.Struct({
    type: Schema.Literal("snapshot"),
    id: Schema.String,
    version: Schema.Finite,
    tree: Schema.Struct({ id: Schema.String, type: Schema.String })
  }),
  Schema.Struct({
    type: Schema.Literal("patch"),
    subscription: Schema.String,
    version: Schema.Finite,
    ops: Schema.Array(Schema.Struct({ op: Schema.String, path: Schema.String }))
  }),
  Schema.Struct({
    type: Schema.Literal("result"),
    id: Schema.String,
    status: Schema.Literals(["ok", "error", "accepted"])
  }),
  Schema.Struct({ type: Schema.Literal("event"), name: Schema.String }),
  Schema.Struct({
    type: Schema.Literal("error"),
    error: Schema.Struct({ code: Schema.String, message: Schema.String })
  }),
  Schema.Struct({ type: Schema.Literal("batch"), messages: Schema.Array(Schema.suspend(() => Envelope)) })
]) as never

const isEnvelope = Schema.is(Envelope)

const decoder = new TextDecoder()

const decodeFrame = (frame: string | Uint8Array): Message.Outbound | undefined => {
  try {
    const value: unknown = JSON.parse(typeof frame === "string" ? frame : decoder.decode(frame))
    return isEnvelope(value) ? (value as Message.Outbound) : undefined
  } catch {
    return undefined
  }
}

const protocolsFor = (token: string | undefined): Array<string> =>
  token === undefined ? [Protocols.protocol] : [Protocols.protocol, Protocols.bearerProtocol(token)]

const idOf = (message: unknown): string | undefined =>
  Predicate.isObject(message) && typeof (message as { id?: unknown }).id === "string"
    ? (message as { id: string }).id
    : undefined

const typeOf = (message: unknown): unknown =>
  Predicate.isObject(message) ? (message as { type?: unknown }).type : undefined

/** The ids a provider message answers: a `result`, `error` or `snapshot` (of a query) settles a pending request. */
const answered = (message: Message.Outbound, out: Array<string> = []): Array<string> => {
  if (message.type === "batch") for (const inner of message.messages) answered(inner, out)
  else if ((message.type === "result" || message.type === "error" || message.type === "snapshot") && message.id)
    out.push(message.id)
  return out
}

const backoff = (options: Options["reconnect"], attempt: number): Duration.Duration => {
  const settings = options === false ? undefined : options
  const initial = Duration.toMillis(Duration.fromInputUnsafe(settings?.initialDelay ?? 100))
  const max = Duration.toMillis(Duration.fromInputUnsafe(settings?.maxDelay ?? 5000))
  return Duration.millis(Math.min(max, initial * 2 ** Math.min(attempt - 1, 30)))
}

/**
 * One client's state, shared by the steps below (send, receive, one session, the reconnect loop): the open writer,
 * the answers still owed, the messages waiting for a connection, and the counters.
 */
interface Connection {
  readonly options: Options
  readonly socket: Socket.Socket
  readonly inbox: Queue.Queue<Message.Outbound, Cause.Done>
  /** Settled by the first connection: opened, or failed (which fails `make`). */
  readonly first: Deferred.Deferred<void, SlopClientError>
  readonly maxPending: number
  /** The current subscriptions' `subscribe` messages by id, resent on every connection. */
  readonly subscriptions: Map<string, string>
  /** ids of queries and invokes written on the current connection and not answered yet. */
  readonly pending: Set<string>
  /** Messages sent while disconnected, written when the next connection opens. */
  waiting: Array<{ readonly text: string; readonly id: string | undefined }>
  writer: Socket.Writer | undefined
  state: State
  connections: number
  dropped: number
  closed: boolean
}

/** Answers a request whose connection was lost with a `connection_lost` error. */
const lost = (c: Connection, id: string) =>
  Queue.offerUnsafe(c.inbox, {
    type: "error",
    id,
    error: {
      code: "connection_lost",
      message: `the connection to ${c.options.url} was lost before the answer came; the request may or may not have run`
    }
  })

const send =
  (c: Connection) =>
  (message: unknown): Effect.Effect<void> =>
    Effect.suspend(() => {
      const text = JSON.stringify(message)
      const type = typeOf(message)
      const id = type === "subscribe" || type === "unsubscribe" ? undefined : idOf(message)
      if (type === "subscribe") c.subscriptions.set(idOf(message) ?? "", text)
      else if (type === "unsubscribe") c.subscriptions.delete(idOf(message) ?? "")
      if (c.writer !== undefined) {
        if (id !== undefined) c.pending.add(id)
        return c.writer.write(text).pipe(Effect.ignore)
      }
      // disconnected: subscriptions are resent on reconnect; other messages wait, up to maxPending
      if (type === "subscribe" || type === "unsubscribe") return Effect.void
      if (c.waiting.length < c.maxPending) c.waiting.push({ text, id })
      else if (id !== undefined) lost(c, id)
      return Effect.void
    })

const receive = (c: Connection, frame: string | Uint8Array) => {
  const message = decodeFrame(frame)
  if (message === undefined) {
    c.dropped++
    return
  }
  for (const id of answered(message)) c.pending.delete(id)
  Queue.offerUnsafe(c.inbox, message)
}

/** One connection, from dialling to its end (a close or an error); the answers it still owed are `lost`. */
const session = (c: Connection) =>
  Effect.scoped(
    Effect.gen(function* () {
      const reader = yield* c.socket.reader
      const opened = yield* c.socket.writer
      c.connections++
      c.state = "open"
      for (const text of c.subscriptions.values()) yield* opened.write(text)
      // messages sent meanwhile join `waiting`: write until it stays empty, then take over
      while (c.waiting.length > 0) {
        const held = c.waiting
        c.waiting = []
        for (const { id, text } of held) {
          if (id !== undefined) c.pending.add(id)
          yield* opened.write(text)
        }
      }
      c.writer = opened
      yield* Deferred.succeed(c.first, undefined)
      return yield* Effect.forever(
        Effect.map(reader.pull, (frames) => {
          for (const frame of frames) receive(c, frame)
        })
      )
    })
  ).pipe(
    Effect.ensuring(
      Effect.sync(() => {
        c.writer = undefined
        for (const id of c.pending) lost(c, id)
        c.pending.clear()
      })
    )
  )

/**
 * Runs sessions until the client is closed or the reconnect attempts run out, sleeping with backoff between them;
 * a first attempt that fails fails `make`. Ends `messages` when it stops.
 */
const run = (c: Connection) =>
  Effect.gen(function* () {
    let failures = 0
    const retry = c.options.reconnect
    const maxAttempts = retry === false ? 0 : (retry?.maxAttempts ?? Infinity)
    while (!c.closed) {
      const before = c.connections
      const exit = yield* Effect.exit(session(c))
      if (c.connections === before) {
        // the attempt failed before opening: the first one fails `make`
        if (c.connections === 0) {
          const reason = exit._tag === "Failure" ? "the server refused or cannot be reached" : "it closed at once"
          const url = c.options.url
          yield* Deferred.fail(c.first, new SlopClientError({ url, message: `could not connect to ${url}: ${reason}` }))
          return
        }
        failures++
      } else failures = 1
      if (c.closed || failures > maxAttempts) return
      c.state = "reconnecting"
      yield* Effect.sleep(backoff(retry, failures))
    }
  }).pipe(
    Effect.ensuring(
      Effect.sync(() => {
        c.state = "closed"
        Queue.endUnsafe(c.inbox)
      })
    )
  )

/**
 * Connects to a SLOP provider and keeps the connection: reconnects with backoff when it is lost, resending the
 * current subscriptions. Fails with {@link SlopClientError} when the first connection cannot be opened. The client
 * lives in the current scope.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (
  options: Options
): Effect.Effect<SlopClient, SlopClientError, Scope.Scope | Socket.WebSocketConstructor> =>
  Effect.gen(function* () {
    const c: Connection = {
      options,
      socket: yield* Socket.makeWebSocket(options.url, {
        openTimeout: options.openTimeout,
        protocols: protocolsFor(options.token)
      }),
      inbox: yield* Queue.unbounded<Message.Outbound, Cause.Done>(),
      first: yield* Deferred.make<void, SlopClientError>(),
      maxPending: options.maxPending ?? 1000,
      subscriptions: new Map(),
      pending: new Set(),
      waiting: [],
      writer: undefined,
      state: "reconnecting",
      connections: 0,
      dropped: 0,
      closed: false
    }
    const fiber = yield* Effect.forkScoped(run(c))
    yield* Deferred.await(c.first)
    const client: SlopClient = {
      send: send(c),
      messages: Stream.fromQueue(c.inbox),
      state: Effect.sync(() => c.state),
      connections: Effect.sync(() => c.connections),
      dropped: Effect.sync(() => c.dropped),
      close: Effect.suspend(() => {
        c.closed = true
        return Fiber.interrupt(fiber)
      })
    }
    return client
  })

/**
 * A `Consumer` over a {@link make} client: `subscribe`, `query`, `invoke` and the mirrored trees, kept through
 * reconnections (each subscription restarts from the fresh snapshot the provider sends after a reconnect).
 *
 * **Example** (Mirroring a provider's tree)
 *
 * ```ts
 * import { SlopClient } from "@heed/http"
 * import { Effect } from "effect"
 * import * as Socket from "effect/socket/Socket"
 *
 * const program = Effect.gen(function* () {
 *   const { client, consumer } = yield* SlopClient.consumer({ url: "ws://localhost:3737/slop" })
 *   const id = yield* consumer.subscribe({ depth: 2, max_nodes: 200 })
 *   const tree = yield* consumer.tree(id)
 * }).pipe(Effect.scoped, Effect.provide(Socket.layerWebSocketConstructorGlobal))
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const consumer = (
  options: Options
): Effect.Effect<
  { readonly client: SlopClient; readonly consumer: Consumer.Consumer },
  SlopClientError,
  Scope.Scope | Socket.WebSocketConstructor
> =>
  Effect.gen(function* () {
    const client = yield* make(options)
    return { client, consumer: yield* Consumer.make(client) }
  })
