/**
 * The awareness server's REST and SLOP edge, on the same port as `/mcp`: the REST API (`/v1/…`, `/openapi.json`,
 * `/docs`), each owner's live SLOP tree at `/slop` (WebSocket; bearer token in the `Authorization` header, a
 * `heed.bearer.…` subprotocol as browsers send it, or a `token` query parameter), its discovery document at
 * `/.well-known/slop`, and the dashboard page at `/` (see `Dashboard`).
 *
 * @since 0.1.0
 */
import { Discovery, RestApi, RestServer, SlopServer } from "@heed/http"
import type { AwarenessResolver } from "@heed/mcp"
import * as Clock from "effect/Clock"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as Layer from "effect/Layer"
import * as Dashboard from "./Dashboard.ts"
import * as LiveTree from "./LiveTree.ts"
import { ownerOf } from "./Server.ts"
import type { Settings } from "./Settings.ts"
import { callTool, catalogue } from "./ToolCall.ts"

/**
 * Limits of the edge: `rateLimitPerMinute` (requests per owner per minute on the REST API; 0, the default, turns
 * it off; env `HEED_RATE_LIMIT`) and `maxBodyBytes` (REST request bodies; default 1 MiB; env `HEED_REST_MAX_BODY`).
 *
 * @category models
 * @since 0.1.0
 */
export interface EdgeOptions {
  readonly rateLimitPerMinute?: number | undefined
  readonly maxBodyBytes?: number | undefined
}

/**
 * Reads {@link EdgeOptions} from the environment.
 *
 * @category constructors
 * @since 0.1.0
 */
export const optionsFromEnv: Effect.Effect<EdgeOptions, Config.ConfigError> = Effect.gen(function* () {
  return yield* Config.all({
    rateLimitPerMinute: Config.Int("HEED_RATE_LIMIT").pipe(Config.withDefault(0)),
    maxBodyBytes: Config.Int("HEED_REST_MAX_BODY").pipe(Config.withDefault(1024 * 1024))
  })
})

const unauthorized = { code: "unauthorized", message: "A valid bearer token is required.", retryable: false }

/** The owner of the current HTTP request (its bearer token's subject), or `unauthorized`. */
const requestOwner = (settings: Settings) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const now = yield* Clock.currentTimeMillis
    const owner = ownerOf(settings, request.headers.authorization, Math.floor(now / 1000))
    return owner === undefined ? yield* Effect.fail(unauthorized) : owner
  })

/** The REST API's tool port, on the same tool dispatch as MCP. */
const toolsLayer = (settings: Settings) =>
  Layer.effect(
    RestApi.Tools,
    Effect.map(Effect.context<AwarenessResolver.AwarenessResolver>(), (context) =>
      RestApi.Tools.of({
        owner: requestOwner(settings),
        call: (name, params) => Effect.provideContext(callTool(name, params), context),
        tools: catalogue
      })
    )
  )

/** The SLOP endpoint: the upgrade's token (header or `token` query parameter) picks the owner's tree. */
const slopLayer = (settings: Settings) =>
  Layer.unwrap(
    Effect.map(LiveTree.LiveTree, (live) =>
      SlopServer.layer({
        path: "/slop",
        maxConnections: settings.maxSlopConnections,
        maxConnectionsPerOwner: settings.maxSlopConnectionsPerOwner,
        resolve: (request) =>
          Effect.gen(function* () {
            const token = SlopServer.bearerToken(request)
            const now = yield* Clock.currentTimeMillis
            const owner = ownerOf(settings, token === undefined ? undefined : `Bearer ${token}`, Math.floor(now / 1000))
            if (owner === undefined) {
              return yield* Effect.fail(new SlopServer.Unauthorized({ message: "a valid bearer token is required" }))
            }
            return { owner, provider: yield* live.providerFor(owner) }
          })
      })
    )
  )

/**
 * The edge routes (REST, SLOP, discovery, and the dashboard page with its JSON reads) for the router in context, over the `Backend` (wrapped so that every
 * write refreshes the live trees) and the `AwarenessResolver`.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (settings: Settings, options: EdgeOptions = {}) =>
  Layer.mergeAll(
    RestServer.layer({
      maxBodyBytes: options.maxBodyBytes,
      rateLimit:
        (options.rateLimitPerMinute ?? 0) > 0 ? { requests: options.rateLimitPerMinute!, windowMs: 60_000 } : undefined
    }).pipe(Layer.provide(toolsLayer(settings))),
    slopLayer(settings),
    Discovery.layer({ id: "heed-awareness", name: "heed awareness", path: "/slop" }),
    Dashboard.apiLayer(settings),
    Dashboard.pageLayer({ assetsDir: settings.dashboardDir })
  ).pipe(Layer.provide(LiveTree.layer({ watchIntervalMs: settings.watchIntervalMs })))

/**
 * {@link layer} with its options from the environment (`HEED_RATE_LIMIT`, `HEED_REST_MAX_BODY`).
 *
 * @category layers
 * @since 0.1.0
 */
export const layerFromEnv = (settings: Settings) =>
  Layer.unwrap(Effect.map(Effect.orDie(optionsFromEnv), (options) => layer(settings, options)))

/**
 * Paths the edge authenticates itself (REST answers `401` as a problem, SLOP reads a `token` query parameter too)
 * or serves openly (discovery and the API's documentation).
 *
 * @category constants
 * @since 0.1.0
 */
export const selfAuthenticated: ReadonlyArray<string> = ["/v1/", "/slop", "/.well-known/slop", "/openapi.json", "/docs"]

/**
 * Whether the global auth check should leave a request to the edge.
 *
 * @category getters
 * @since 0.1.0
 */
export const isEdgePath = (url: string): boolean => {
  const path = url.split("?")[0] ?? url
  return selfAuthenticated.some((prefix) => (prefix.endsWith("/") ? path.startsWith(prefix) : path === prefix))
}
