/**
 * The awareness server: Streamable HTTP at `/mcp` with `/health` (bearer auth when required), or stdio; both on
 * @heed/mcp's registrations over the `Backend`.
 *
 * @since 0.1.0
 */
import { createServer, type Server as HttpNodeServer } from "node:http"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeStdio from "@effect/platform-node/NodeStdio"
import { Limits } from "@heed/collator"
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
import * as Auth from "./Auth.ts"
import { Backend } from "./Backend.ts"
import * as Changes from "./Changes.ts"
import * as Edge from "./Edge.ts"
import * as IdleCollection from "./IdleCollection.ts"
import * as McpGuard from "./McpGuard.ts"
import type { Settings } from "./Settings.ts"
import * as Token from "./Token.ts"

/**
 * Decides the owner of an HTTP request in the self-signed (HS256) mode: the `sub` of a valid bearer token, else the
 * default owner (only when auth is not required). `undefined` means "refuse". The server itself asks `Auth`, which
 * covers the OAuth mode too.
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
  return settings.authRequired || settings.oauth !== undefined ? undefined : settings.defaultOwner
}

/**
 * The resolver: over HTTP the owner comes from the request's token (see `Auth`), over stdio it is the default owner.
 * With `audiences` (HTTP, where sessions of several owners share the server) briefing notifications name their
 * owner's audience, and the MCP guard delivers each to that owner's requests only.
 *
 * @category layers
 * @since 0.1.0
 */
export const resolverLayer = (
  settings: Settings,
  audiences = false
): Layer.Layer<AwarenessResolver.AwarenessResolver, never, Backend | Auth.Auth> =>
  Layer.effect(
    AwarenessResolver.AwarenessResolver,
    Effect.gen(function* () {
      const backend = yield* Backend
      const auth = yield* Auth.Auth
      return AwarenessResolver.make({
        changes: backend.changes,
        watched: backend.watched,
        audienceOf: audiences ? backend.audienceOf : undefined,
        current: Effect.gen(function* () {
          const request = yield* Effect.serviceOption(HttpServerRequest.HttpServerRequest)
          if (Option.isNone(request)) return yield* backend.forOwner(settings.defaultOwner)
          const owner = yield* auth
            .ownerOf(request.value.headers.authorization)
            .pipe(
              Effect.mapError((refused) =>
                ToolError.make(
                  refused.status === 503
                    ? { code: "unavailable", message: refused.message, retryable: true }
                    : { code: "unauthorized", message: refused.message, retryable: false }
                )
              )
            )
          return yield* backend.forOwner(owner)
        })
      })
    })
  )

/** Paths open to everyone: health, discovery documents, the API's documentation, the dashboard's page. */
const isPublic = (path: string): boolean =>
  path === "/health" ||
  path.startsWith("/.well-known/") ||
  path === "/openapi.json" ||
  path === "/docs" ||
  path === "/" ||
  path.startsWith("/assets/")

/** A refusal in the shape of the surface asked: a problem on `/v1`, SLOP's `{ error }`, else OAuth's error body. */
const refusal = (path: string, refused: Auth.Refused, challenge: string) => {
  const headers: Record<string, string> =
    refused.status === 401
      ? { "www-authenticate": challenge, "cache-control": "no-store" }
      : { "retry-after": "5", "cache-control": "no-store" }
  const code = refused.status === 401 ? "unauthorized" : "unavailable"
  if (path.startsWith("/v1/")) {
    return HttpServerResponse.jsonUnsafe(
      {
        type: "about:blank",
        title: refused.status === 401 ? "Unauthorized" : "Service Unavailable",
        status: refused.status,
        code,
        detail: refused.message,
        ...(refused.status === 503 ? { retryable: true, retry_after_sec: 5 } : {})
      },
      { status: refused.status, headers, contentType: "application/problem+json" }
    )
  }
  if (path === "/slop")
    return HttpServerResponse.jsonUnsafe({ error: refused.message }, { status: refused.status, headers })
  return HttpServerResponse.jsonUnsafe(
    { error: code, error_description: refused.message },
    { status: refused.status, headers }
  )
}

/**
 * Global HTTP middleware: every request but the public ones ({@link isPublic}: `/health`, `/.well-known/…`, the API
 * documentation, the dashboard's page and assets) is authenticated by `Auth` before it reaches `/mcp`, the REST API,
 * the SLOP endpoint (its token may also come as a subprotocol or query parameter) or the dashboard's reads. A refused
 * one gets `401` with a `WWW-Authenticate` challenge (naming the Protected Resource Metadata in OAuth mode) or `503`
 * when the authorization server cannot be reached, in the body shape of the surface asked.
 *
 * @category layers
 * @since 0.1.0
 */
export const authMiddleware = HttpRouter.middleware(
  Effect.map(
    Auth.Auth,
    (auth) =>
      (
        httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, HttpServerRequest.HttpServerRequest>
      ) =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const path = request.url.split("?")[0] ?? request.url
          if (isPublic(path)) return yield* httpEffect
          if (path === "/slop" && request.headers.upgrade?.toLowerCase() !== "websocket") return yield* httpEffect
          const token =
            path === "/slop" ? SlopServer.bearerToken(request) : Token.fromAuthorization(request.headers.authorization)
          if (token === undefined && !auth.required) return yield* httpEffect
          const verdict = yield* Effect.result(auth.ownerOf(token === undefined ? undefined : `Bearer ${token}`))
          if (verdict._tag === "Failure") return refusal(path, verdict.failure, auth.challenge(verdict.failure))
          return yield* httpEffect
        })
  ),
  { global: true }
)

/**
 * The Protected Resource Metadata routes (RFC 9728) in OAuth mode: `GET /.well-known/oauth-protected-resource` (and
 * its path-suffixed form when the resource identifier has a path), public and readable from any origin.
 *
 * @category layers
 * @since 0.1.0
 */
export const metadataRoutes = (settings: Settings) =>
  settings.oauth === undefined
    ? Layer.empty
    : HttpRouter.addAll(
        Auth.metadataPaths(settings.oauth.resource).map((path) =>
          HttpRouter.route(
            "GET",
            path as HttpRouter.PathInput,
            HttpServerResponse.jsonUnsafe(Auth.metadataDocument(settings.oauth!), {
              headers: { "access-control-allow-origin": "*", "cache-control": "max-age=3600" }
            })
          )
        )
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
    metadataRoutes(settings),
    authMiddleware,
    Edge.layerFromEnv(settings),
    Layer.unwrap(
      Effect.map(Effect.all([Backend, Auth.Auth]), ([backend, auth]) =>
        McpGuard.layer({
          path: "/mcp",
          maxBodyBytes: settings.maxBodyBytes,
          sessionIdleMs: settings.sessionIdleMs,
          maxSessions: settings.maxSessions,
          maxSessionsPerOwner: settings.maxSessionsPerOwner,
          // The same owner as every other surface's (HS256 or OAuth), so the per-owner caps hold in both modes.
          ownerOf: (authorization) => auth.ownerOf(authorization).pipe(Effect.orElseSucceed(() => undefined)),
          maxResponseBytes: settings.maxResponseBytes,
          audienceOf: (authorization) =>
            auth.ownerOf(authorization).pipe(
              Effect.map(backend.audienceFor),
              Effect.orElseSucceed(() => undefined)
            )
        })
      )
    )
  ).pipe(
    Layer.provide(resolverLayer(settings, true)),
    Layer.provide(Changes.layer),
    Layer.provide(Auth.layer(settings))
  )

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
 * Serves the HTTP application on `settings.host:settings.port` (in-flight requests get 10 s to finish on shutdown),
 * collecting the garbage of a burst once it goes quiet (`IdleCollection`, `settings.idleGcMs`).
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
  // Path parameters (a REST `source`) as long as an identifier may be, so the tool's length check answers.
  HttpRouter.serve(httpApp(settings, startedAt), {
    disableLogger: true,
    routerConfig: { maxParamLength: 4 * Limits.maxIdentifierLength }
  }).pipe(
    Layer.provideMerge(
      NodeHttpServer.layer(
        () => {
          const server = withSocketTimeout(createServer(), settings.socketTimeoutMs)
          IdleCollection.watch(server, settings.idleGcMs ?? 5000)
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
    Layer.provide([resolverLayer(settings).pipe(Layer.provide(Auth.layer(settings))), NodeStdio.layer])
  )
