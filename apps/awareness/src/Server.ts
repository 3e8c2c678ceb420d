/**
 * The awareness server: Streamable HTTP at `/mcp` with `/health` (bearer auth when required), or stdio; both on
 * @heed/mcp's registrations over the `Backend`.
 *
 * @since 0.1.0
 */
import { createServer, type Server as HttpNodeServer } from "node:http"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeStdio from "@effect/platform-node/NodeStdio"
import { SlopServer } from "@heed/http"
import { AwarenessMcp, AwarenessResolver, ToolError } from "@heed/mcp"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { Backend } from "./Backend.ts"
import * as Changes from "./Changes.ts"
import * as Dashboard from "./Dashboard.ts"
import * as Edge from "./Edge.ts"
import * as McpGuard from "./McpGuard.ts"
import type { Settings } from "./Settings.ts"
import * as Token from "./Token.ts"

/**
 * Decides the owner of an HTTP request: the `sub` of a valid bearer token, else the default owner (only when auth
 * is not required). `undefined` means "refuse".
 *
 * @category getters
 * @since 0.1.0
 */
export const ownerOf = (settings: Settings, authorization: string | undefined, nowSec: number): string | undefined => {
  const token = Token.fromAuthorization(authorization)
  if (token !== undefined && Option.isSome(settings.secret)) {
    const verdict = Token.verify(token, Redacted.value(settings.secret.value), nowSec, settings.clockSkewSec)
    if (verdict.ok) return verdict.claims.sub
    return undefined
  }
  return settings.authRequired ? undefined : settings.defaultOwner
}

/**
 * The resolver: over HTTP the owner comes from the request's token, over stdio it is the default owner. With
 * `audiences` (HTTP, where sessions of several owners share the server) briefing notifications name their owner's
 * audience, and the MCP guard delivers each to that owner's requests only.
 *
 * @category layers
 * @since 0.1.0
 */
export const resolverLayer = (
  settings: Settings,
  audiences = false
): Layer.Layer<AwarenessResolver.AwarenessResolver, never, Backend> =>
  Layer.effect(
    AwarenessResolver.AwarenessResolver,
    Effect.gen(function* () {
      const backend = yield* Backend
      return AwarenessResolver.AwarenessResolver.of({
        changes: backend.changes,
        watched: backend.watched,
        audienceOf: audiences ? backend.audienceOf : undefined,
        current: Effect.gen(function* () {
          const request = yield* Effect.serviceOption(HttpServerRequest.HttpServerRequest)
          if (Option.isNone(request)) return yield* backend.forOwner(settings.defaultOwner)
          const now = yield* Clock.currentTimeMillis
          const owner = ownerOf(settings, request.value.headers.authorization, Math.floor(now / 1000))
          if (owner === undefined) {
            return yield* Effect.fail(
              ToolError.make({
                code: "unauthorized",
                message: "A valid bearer token is required.",
                retryable: false
              })
            )
          }
          return yield* backend.forOwner(owner)
        })
      })
    })
  )

const unauthorized = (reason: string) =>
  HttpServerResponse.jsonUnsafe(
    { error: "unauthorized", error_description: reason },
    { status: 401, headers: { "www-authenticate": 'Bearer realm="heed-awareness"' } }
  )

/**
 * Global HTTP middleware: refuses requests to the MCP endpoint without a valid bearer token (401) when auth is
 * required; `/health` stays open.
 *
 * @category layers
 * @since 0.1.0
 */
export const authMiddleware = (settings: Settings) =>
  HttpRouter.middleware(
    (httpEffect) =>
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        // the REST and SLOP edge and the dashboard authenticate their own requests (problem+json, subprotocol
        // tokens); the dashboard's page and assets are public
        if (
          !settings.authRequired ||
          request.url.startsWith("/health") ||
          Edge.isEdgePath(request.url) ||
          Dashboard.isDashboardPath(request.url)
        ) {
          return yield* httpEffect
        }
        const now = yield* Clock.currentTimeMillis
        const authorization = request.headers.authorization
        if (authorization === undefined) return unauthorized("missing bearer token")
        if (ownerOf(settings, authorization, Math.floor(now / 1000)) === undefined) {
          return unauthorized("invalid or expired bearer token")
        }
        return yield* httpEffect
      }),
    { global: true }
  )

/**
 * The `/health` route: `{ status, uptime_sec, timestamp, transport }`.
 *
 * @category layers
 * @since 0.1.0
 */
export const healthRoute = (startedAt: number) =>
  HttpRouter.add(
    "GET",
    "/health",
    Effect.map(Clock.currentTimeMillis, (now) =>
      HttpServerResponse.jsonUnsafe({
        status: "ok",
        uptime_sec: Math.max(0, Math.round((now - startedAt) / 1000)),
        timestamp: new Date(now).toISOString(),
        transport: "streamable-http"
      })
    )
  )

/**
 * The HTTP application (routes and middleware), without a listening server: useful for tests and embedding. MCP at
 * `/mcp`, the REST API under `/v1`, the live SLOP tree at `/slop`, the dashboard at `/` (see `Edge`), `/health`.
 *
 * @category layers
 * @since 0.1.0
 */
export const httpApp = (settings: Settings, startedAt: number) =>
  Layer.mergeAll(
    AwarenessMcp.layerHttp({
      path: "/mcp",
      pollInterval: settings.watchIntervalMs,
      tools: settings.tools,
      allowedOrigins: settings.allowedOrigins
    }),
    healthRoute(startedAt),
    authMiddleware(settings),
    Edge.layerFromEnv(settings),
    Layer.unwrap(
      Effect.map(Backend, (backend) =>
        McpGuard.layer({
          path: "/mcp",
          maxBodyBytes: settings.maxBodyBytes,
          sessionIdleMs: settings.sessionIdleMs,
          maxSessions: settings.maxSessions,
          maxResponseBytes: settings.maxResponseBytes,
          audienceOf: (authorization, nowMs) => {
            const owner = ownerOf(settings, authorization, Math.floor(nowMs / 1000))
            return owner === undefined ? undefined : backend.audienceFor(owner)
          }
        })
      )
    )
  ).pipe(Layer.provide(resolverLayer(settings, true)), Layer.provide(Changes.layer))

/**
 * Closes connections that neither send nor read for `timeoutMs` (a client that stops reading its responses would
 * otherwise hold them in memory without bound). Server-sent event streams stay open while the client reads them:
 * their keep-alive comments count as activity. An idle keep-alive connection is kept as long (node's own default
 * is 5 s): an agent that polls its briefing every few seconds then reuses its connection instead of opening a new
 * one each time (in the bench, 50 concurrent cached reads after a 7 s pause had twice the p99 with reconnections).
 *
 * @category constructors
 * @since 0.1.0
 */
export const withSocketTimeout = (server: HttpNodeServer, timeoutMs: number): HttpNodeServer => {
  if (timeoutMs > 0) {
    server.setTimeout(timeoutMs)
    server.keepAliveTimeout = timeoutMs
    // An upgraded (WebSocket) connection keeps its own liveness checks; it may stay quiet between messages.
    server.on("upgrade", (request) => request.socket.setTimeout(0))
  }
  return server
}

/**
 * Serves the HTTP application on `settings.host:settings.port` (in-flight requests get 10 s to finish on shutdown).
 * `onServer` sees the Node server before it listens (tests use it to watch its connections).
 *
 * @category layers
 * @since 0.1.0
 */
export const layerHttp = (
  settings: Settings,
  startedAt: number,
  onServer: (server: HttpNodeServer) => void = () => undefined
) =>
  HttpRouter.serve(httpApp(settings, startedAt), { disableLogger: true }).pipe(
    Layer.provideMerge(
      NodeHttpServer.layer(
        () => {
          const server = withSocketTimeout(createServer(), settings.socketTimeoutMs)
          onServer(server)
          return server
        },
        {
          port: settings.port,
          host: settings.host,
          gracefulShutdownTimeout: "10 seconds",
          websocket: SlopServer.websocketOptions()
        }
      )
    )
  )

/**
 * Serves MCP over this process's stdin/stdout.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerStdio = (settings: Settings) =>
  AwarenessMcp.layerStdio({ pollInterval: settings.watchIntervalMs, tools: settings.tools }).pipe(
    Layer.provide([resolverLayer(settings), NodeStdio.layer])
  )
