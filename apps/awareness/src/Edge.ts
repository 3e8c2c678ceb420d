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
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as Layer from "effect/Layer"
import * as Auth from "./Auth.ts"
import * as Dashboard from "./Dashboard.ts"
import * as LiveTree from "./LiveTree.ts"
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

/** The owner of the current HTTP request (see `Auth`), or `unauthorized` (`unavailable` when keys cannot be fetched). */
const requestOwner = (auth: Auth.Auth["Service"]) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const owner = yield* Effect.result(auth.ownerOf(request.headers.authorization))
    if (owner._tag === "Success") return owner.success
    return yield* Effect.fail(
      owner.failure.status === 503
        ? { code: "unavailable", message: owner.failure.message, retryable: true }
        : { code: "unauthorized", message: owner.failure.message, retryable: false }
    )
  })

/** The REST API's tool port, on the same tool dispatch as MCP. */
const toolsLayer = () =>
  Layer.effect(
    RestApi.Tools,
    Effect.map(Effect.all([Effect.context<AwarenessResolver.AwarenessResolver>(), Auth.Auth]), ([context, auth]) =>
      RestApi.Tools.of({
        owner: requestOwner(auth),
        call: (name, params) => Effect.provideContext(callTool(name, params), context),
        tools: catalogue
      })
    )
  )

/**
 * The SLOP endpoint: the upgrade's token (header, subprotocol or `token` query parameter) picks the owner's tree. (The
 * global auth middleware has already refused upgrades without a valid token, with its challenge.)
 */
const slopLayer = (settings: Settings) =>
  Layer.unwrap(
    Effect.map(Effect.all([LiveTree.LiveTree, Auth.Auth]), ([live, auth]) =>
      SlopServer.layer({
        path: "/slop",
        maxConnections: settings.maxSlopConnections,
        maxConnectionsPerOwner: settings.maxSlopConnectionsPerOwner,
        resolve: (request) =>
          Effect.gen(function* () {
            const token = SlopServer.bearerToken(request)
            const owner = yield* Effect.result(auth.ownerOf(token === undefined ? undefined : `Bearer ${token}`))
            if (owner._tag === "Failure") {
              return yield* Effect.fail(new SlopServer.Unauthorized({ message: owner.failure.message }))
            }
            return { owner: owner.success, provider: yield* live.providerFor(owner.success) }
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
    }).pipe(Layer.provide(toolsLayer())),
    slopLayer(settings),
    Discovery.layer({ id: "heed-awareness", name: "heed awareness", path: "/slop" }),
    Dashboard.apiLayer(),
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
