/**
 * SLOP over WebSocket: serves a `@heed/state-tree` `Provider` to every consumer that upgrades at a path of an
 * `effect/http` router, one JSON message per text frame, `hello` first.
 *
 * @since 0.1.0
 */

import type { Message } from "@heed/state-tree"
import { Provider } from "@heed/state-tree"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as HttpRouter from "effect/http/HttpRouter"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import type * as Layer from "effect/Layer"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import type * as Socket from "effect/socket/Socket"
import { encode, parse, utf8Length } from "./internal/frames.ts"
import * as Protocols from "./internal/protocols.ts"

/**
 * Limits on what a consumer controls:
 *
 * - `maxFrameBytes`: the largest inbound text frame (UTF-8 bytes) that is read; larger frames are answered with a
 *   `bad_request` error and the connection stays open (default 1 MiB). Frames above the WebSocket server's own
 *   `maxPayload` close the connection (see {@link websocketOptions});
 * - `maxSubscriptions`: subscriptions one connection may hold at once (default 64; beyond it `limit_exceeded`);
 * - `maxConnections`: open connections on this endpoint (default 1,024). At the limit, an upgrade from an owner
 *   holding fewer connections than the owner holding the most ends that owner's oldest connection, so one owner
 *   never locks the others out (a fair share); otherwise (or without owners) the upgrade gets `503`;
 * - `maxConnectionsPerOwner`: open connections per owner (see {@link Access}; unlimited by default; beyond it `429`);
 * - `maxBufferedBytes`: bytes queued in a connection's socket before the server stops sending to it and reading from
 *   it (default 1 MiB). Meanwhile the provider keeps the consumer's messages, and a consumer that falls further
 *   behind gets a fresh snapshot instead of its backlog of patches (`Provider.Options.outboxLimit`).
 *
 * @category models
 * @since 0.1.0
 */
export interface Limits {
  readonly maxFrameBytes?: number | undefined
  readonly maxSubscriptions?: number | undefined
  readonly maxConnections?: number | undefined
  readonly maxConnectionsPerOwner?: number | undefined
  readonly maxBufferedBytes?: number | undefined
}

/**
 * Who a connection is for: the provider it is served, and an optional owner (a user, a tenant) that per-owner
 * limits count against.
 *
 * @category models
 * @since 0.1.0
 */
export interface Access {
  readonly provider: Provider.Provider
  readonly owner?: string | undefined
}

/**
 * The upgrade was refused: answered with `401` and the message as JSON (`{ "error": message }`).
 *
 * @category errors
 * @since 0.1.0
 */
export class Unauthorized extends Schema.TaggedError<Unauthorized>()("Unauthorized", {
  message: Schema.String
}) {}

/**
 * Finds the provider (and owner) of an upgrade request, or refuses it with {@link Unauthorized}.
 *
 * @category models
 * @since 0.1.0
 */
export type Resolve<R> = (request: HttpServerRequest.HttpServerRequest) => Effect.Effect<Access, Unauthorized, R>

/**
 * Options of {@link layer}: the `path` to serve (default `"/slop"`), the {@link Limits}, and `resolve`, which picks the
 * provider for each upgrade request (by default the `Provider.Service` of the layer's context, for everyone).
 *
 * @category models
 * @since 0.1.0
 */
export interface Options<R = never> extends Limits {
  readonly path?: HttpRouter.PathInput | undefined
  readonly resolve?: Resolve<R> | undefined
}

const defaults = {
  maxFrameBytes: 1024 * 1024,
  maxSubscriptions: 64,
  maxConnections: 1024,
  maxBufferedBytes: 1024 * 1024
}

/**
 * The subprotocol a SLOP consumer offers (and the server selects) on the WebSocket handshake.
 *
 * @category constants
 * @since 0.1.0
 */
export const protocol: string = Protocols.protocol

/**
 * The prefix of the subprotocol that carries a bearer token: `heed.bearer.<token as base64url>`. Browsers cannot set
 * headers on a WebSocket, but they can offer subprotocols (`new WebSocket(url, ["slop", bearerProtocol(token)])`), so
 * the token travels in the `Sec-WebSocket-Protocol` header instead of the URL, where it would end up in logs and
 * history. The server never selects (echoes back) this entry: it selects {@link protocol}.
 *
 * @category constants
 * @since 0.1.0
 */
export const bearerProtocolPrefix: string = Protocols.bearerProtocolPrefix

/**
 * The subprotocol that carries `token` (see {@link bearerProtocolPrefix}); base64url keeps any token within the
 * characters a subprotocol may use.
 *
 * @category constructors
 * @since 0.1.0
 */
export const bearerProtocol: (token: string) => string = Protocols.bearerProtocol

/**
 * The bearer token among the subprotocols of a `Sec-WebSocket-Protocol` header value, if one is there.
 *
 * @category getters
 * @since 0.1.0
 */
export const tokenFromProtocols: (header: string | undefined) => string | undefined = Protocols.tokenFromProtocols

/**
 * Picks the subprotocol the server answers with: {@link protocol} when offered, else the first one that carries no
 * token, else none (`false`). A bearer subprotocol is never echoed back in the handshake response.
 *
 * @category getters
 * @since 0.1.0
 */
export const selectProtocol: (offered: Iterable<string>) => string | false = Protocols.selectProtocol

/**
 * Options for the WebSocket server of `@effect/platform-node`'s `NodeHttpServer.layer(…, { websocket })`: a
 * `maxPayload` four times `maxFrameBytes`, so frames a little over the limit get a readable error and the
 * connection stays open, while a frame far over it closes the connection (code 1009) before it is buffered whole;
 * and `handleProtocols`, which answers with {@link selectProtocol} (browsers refuse a handshake that offered
 * subprotocols and got none back, and the token subprotocol must not be echoed).
 *
 * @category constructors
 * @since 0.1.0
 */
export const websocketOptions = (
  limits: Limits = {}
): {
  readonly maxPayload: number
  readonly handleProtocols: (protocols: Set<string>) => string | false
} => ({
  maxPayload: 4 * (limits.maxFrameBytes ?? defaults.maxFrameBytes),
  handleProtocols: selectProtocol
})

/**
 * The bearer token of a request: from `Authorization: Bearer …`, else from a `heed.bearer.…` subprotocol in
 * `Sec-WebSocket-Protocol` (how browsers send it, see {@link bearerProtocol}), else from the `token` query parameter
 * (kept for consumers written before the subprotocol; a token in a URL ends up in logs). Use it in a {@link Resolve}.
 *
 * @category getters
 * @since 0.1.0
 */
export const bearerToken = (request: HttpServerRequest.HttpServerRequest): string | undefined => {
  const header = request.headers.authorization
  if (header !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
    if (match !== null) return match[1]
  }
  const offered = tokenFromProtocols(request.headers["sec-websocket-protocol"])
  if (offered !== undefined) return offered
  const query = request.url.indexOf("?")
  if (query < 0) return undefined
  const token = new URLSearchParams(request.url.slice(query + 1)).get("token")
  return token === null || token === "" ? undefined : token
}

// -----------------------------------------------------------------------------------------------------------------
// One connection

/** The socket under a Node request, when there is one: its write buffer tells how far behind the consumer is. */
interface Outlet {
  readonly writableLength: number
  readonly once: (event: "drain" | "close", listener: () => void) => unknown
  readonly off: (event: "drain" | "close", listener: () => void) => unknown
}

const outletOf = (request: HttpServerRequest.HttpServerRequest): Outlet | undefined => {
  const socket = (request.source as { readonly socket?: unknown }).socket
  if (!Predicate.isObject(socket)) return undefined
  const candidate = socket as unknown as Partial<Outlet>
  return typeof candidate.writableLength === "number" &&
    typeof candidate.once === "function" &&
    typeof candidate.off === "function"
    ? (candidate as Outlet)
    : undefined
}

// Waits while the socket holds more than `max` unsent bytes (until it drains or closes).
const room = (outlet: Outlet | undefined, max: number): Effect.Effect<void> =>
  outlet === undefined || outlet.writableLength <= max
    ? Effect.void
    : Effect.callback<void>((resume) => {
        const done = () => {
          outlet.off("drain", done)
          outlet.off("close", done)
          resume(Effect.void)
        }
        outlet.once("drain", done)
        outlet.once("close", done)
        return Effect.sync(() => {
          outlet.off("drain", done)
          outlet.off("close", done)
        })
      })

const frameError = (message: string): string =>
  JSON.stringify({ type: "error", error: { code: "bad_request", message } } satisfies Message.ErrorMessage)

/** What a frame is: a message for the provider, or the error to answer it with. */
const readFrame = (
  frame: string | Uint8Array,
  maxBytes: number
): { readonly value: unknown } | { readonly problem: string } => {
  if (typeof frame !== "string") {
    return { problem: "binary frames are not supported: send each SLOP message as a JSON text frame" }
  }
  if (frame.length > maxBytes || (frame.length * 3 > maxBytes && utf8Length(frame) > maxBytes)) {
    return { problem: `frame of ${utf8Length(frame)} bytes is over the limit of ${maxBytes} bytes` }
  }
  return parse(frame)
}

/**
 * Serves one provider connection over an upgraded WebSocket until either side closes: provider messages become
 * text frames, text frames are decoded and handed to the provider, and frames that are not JSON text (binary,
 * invalid JSON, over `maxFrameBytes`) are answered with a `bad_request` error. Given the upgrade `request` of a Node
 * server, it watches the socket's write buffer and waits for a slow consumer instead of buffering without bound.
 * Fails only when the WebSocket cannot be opened.
 *
 * @category constructors
 * @since 0.1.0
 */
export const serve = (
  socket: Socket.Socket,
  provider: Provider.Provider,
  limits: Limits = {},
  request?: HttpServerRequest.HttpServerRequest
): Effect.Effect<void, Socket.SocketError> =>
  Effect.scoped(
    Effect.gen(function* () {
      const maxFrameBytes = limits.maxFrameBytes ?? defaults.maxFrameBytes
      const maxBuffered = limits.maxBufferedBytes ?? defaults.maxBufferedBytes
      const outlet = request === undefined ? undefined : outletOf(request)
      const reader = yield* socket.reader
      const writer = yield* socket.writer
      const connection = yield* Effect.acquireRelease(
        provider.connect({ maxSubscriptions: limits.maxSubscriptions ?? defaults.maxSubscriptions }),
        (connection) => connection.close
      )
      const outbound = Stream.runForEach(connection.messages, (message) =>
        room(outlet, maxBuffered).pipe(Effect.andThen(writer.write(encode(message))))
      )
      const handle = (frame: string | Uint8Array) => {
        const read = readFrame(frame, maxFrameBytes)
        return "problem" in read ? writer.write(frameError(read.problem)) : connection.send(read.value)
      }
      // a consumer that does not read its answers is not read either: its frames wait in TCP
      const inbound = Effect.forever(
        reader.pull.pipe(
          Effect.flatMap((frames) => Effect.forEach(frames, handle, { discard: true })),
          Effect.andThen(room(outlet, maxBuffered))
        )
      )
      yield* Effect.raceFirst(outbound, inbound).pipe(Effect.ignore)
    })
  )

// -----------------------------------------------------------------------------------------------------------------
// The route

/** One open connection, as the limits see it: its owner, when it opened, and how to end it. */
interface Open {
  readonly owner: string | undefined
  readonly since: number
  readonly evict: () => void
}

interface Counter {
  total: number
  opened: number
  readonly owners: Map<string, number>
  readonly open: Set<Open>
}

/**
 * The connection to end so that `owner` gets its fair share of a full endpoint: the oldest connection of the owner
 * holding the most, when that owner holds at least two more than `owner` does; else none.
 */
const fairShareVictim = (counter: Counter, owner: string): Open | undefined => {
  let heaviest: string | undefined
  let most = 0
  for (const [holder, count] of counter.owners) {
    if (count > most) {
      heaviest = holder
      most = count
    }
  }
  if (heaviest === undefined || heaviest === owner || most < (counter.owners.get(owner) ?? 0) + 2) return undefined
  let victim: Open | undefined
  for (const open of counter.open) {
    if (open.owner === heaviest && (victim === undefined || open.since < victim.since)) victim = open
  }
  return victim
}

const refuse = (status: number, message: string, headers: Record<string, string> = {}) =>
  HttpServerResponse.jsonUnsafe({ error: message }, { status, headers })

const isUpgrade = (request: HttpServerRequest.HttpServerRequest): boolean =>
  request.headers.upgrade?.toLowerCase() === "websocket"

const handler =
  <R>(options: Options<R>, resolve: Resolve<R>, counter: Counter) =>
  (request: HttpServerRequest.HttpServerRequest): Effect.Effect<HttpServerResponse.HttpServerResponse, never, R> =>
    Effect.gen(function* () {
      if (!isUpgrade(request)) {
        return refuse(426, "this is a SLOP WebSocket endpoint: connect with a WebSocket client", {
          upgrade: "websocket"
        })
      }
      const access = yield* Effect.result(resolve(request))
      if (access._tag === "Failure") {
        return refuse(401, access.failure.message, { "www-authenticate": 'Bearer realm="slop"' })
      }
      const { owner, provider } = access.success
      const held = owner === undefined ? 0 : (counter.owners.get(owner) ?? 0)
      if (owner !== undefined && held >= (options.maxConnectionsPerOwner ?? Infinity)) {
        return refuse(429, `${held} SLOP connections are open for this owner, the most allowed`, { "retry-after": "5" })
      }
      const maxConnections = options.maxConnections ?? defaults.maxConnections
      if (counter.total >= maxConnections) {
        const victim = owner === undefined ? undefined : fairShareVictim(counter, owner)
        if (victim === undefined) {
          return refuse(503, `the server holds ${counter.total} SLOP connections, the most it may`, {
            "retry-after": "5"
          })
        }
        victim.evict()
      }
      const ended = Deferred.makeUnsafe<void>()
      let released = false
      const releaseNow = () => {
        if (released) return
        released = true
        counter.total--
        counter.open.delete(open)
        if (owner === undefined) return
        const left = (counter.owners.get(owner) ?? 1) - 1
        if (left === 0) counter.owners.delete(owner)
        else counter.owners.set(owner, left)
      }
      // an evicted connection stops counting at once, and its serving ends (closing its socket)
      const open: Open = {
        owner,
        since: counter.opened++,
        evict: () => {
          releaseNow()
          Deferred.doneUnsafe(ended, Effect.void)
        }
      }
      counter.total++
      counter.open.add(open)
      if (owner !== undefined) counter.owners.set(owner, (counter.owners.get(owner) ?? 0) + 1)
      yield* Effect.gen(function* () {
        const socket = yield* request.upgrade
        yield* Effect.raceFirst(serve(socket, provider, options, request), Deferred.await(ended))
      }).pipe(
        Effect.catch((error) => Effect.logDebug("SLOP connection ended", error)),
        Effect.ensuring(Effect.sync(releaseNow))
      )
      return HttpServerResponse.empty()
    })

const defaultResolve: Resolve<Provider.Service> = () => Effect.map(Provider.Service, (provider) => ({ provider }))

/**
 * Mounts the SLOP endpoint on an `effect/http` `HttpRouter` at `path` (default `"/slop"`): a WebSocket upgrade
 * there is resolved to a provider ({@link Options}), counted against the connection limits, and served with
 * {@link serve}. A plain `GET` gets `426`, a refused upgrade `401`, and one over the connection limits `503` (or `429`
 * per owner), each with a JSON body `{ "error": … }`.
 *
 * Without `resolve`, every consumer is served the `Provider.Service` of the layer's context. With one, each
 * upgrade request can be authenticated and served its owner's own tree, e.g. with {@link bearerToken}.
 *
 * **Example** (Serving a provider on a Node HTTP server)
 *
 * ```ts
 * import { NodeHttpServer } from "@effect/platform-node"
 * import { SlopServer } from "@heed/http"
 * import { Provider } from "@heed/state-tree"
 * import { Layer } from "effect"
 * import { HttpRouter } from "effect/http"
 * import { createServer } from "node:http"
 *
 * const app = SlopServer.layer({ path: "/slop" }).pipe(Layer.provide(Provider.layer({ id: "my-app" })))
 * const server = HttpRouter.serve(app).pipe(
 *   Layer.provide(NodeHttpServer.layer(createServer, { port: 3737, websocket: SlopServer.websocketOptions() }))
 * )
 * ```
 *
 * @category layers
 * @since 0.1.0
 */
export const layer: {
  <R>(options: Options<R> & { readonly resolve: Resolve<R> }): Layer.Layer<never, never, HttpRouter.HttpRouter | R>
  (options?: Options): Layer.Layer<never, never, HttpRouter.HttpRouter | Provider.Service>
} = <R>(options: Options<R> = {}): Layer.Layer<never, never, HttpRouter.HttpRouter | R> =>
  HttpRouter.use((router) =>
    Effect.gen(function* () {
      const context = yield* Effect.context<R>()
      const resolve = options.resolve ?? (defaultResolve as unknown as Resolve<R>)
      const route = handler(options, resolve, { total: 0, opened: 0, owners: new Map(), open: new Set() })
      yield* router.add("GET", options.path ?? "/slop", (request) => Effect.provideContext(route(request), context))
    })
  ) as Layer.Layer<never, never, HttpRouter.HttpRouter | R>
