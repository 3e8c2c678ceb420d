/**
 * @heed/http: SLOP over WebSocket (server and browser-safe client), discovery documents, and the HTTP edge of heed.
 *
 * @since 0.1.0
 */

/**
 * SLOP discovery: the descriptor at `/.well-known/slop` (`Discovery.layer`), descriptor files in
 * `~/.slop/providers` (`Discovery.register`, `write`, `remove`, `list`) and the page's `<meta name="slop">` tag.
 *
 * @since 0.1.0
 */
export * as Discovery from "./Discovery.ts"

/**
 * The REST edge API as an `HttpApi`, with the `RestApi.Tools` port its handlers call (the module
 * `@heed/http/RestApi` has the tool failure and tool description types).
 *
 * @since 0.1.0
 */
export * as RestApi from "./RestApi.ts"

/**
 * The RFC 9457 problems the REST API answers with (`400`, `401`, `404`, `409`, `413`, `429`, `500`, `503`).
 *
 * @since 0.1.0
 */
export * as RestProblem from "./RestProblem.ts"

/**
 * Serves the REST API on an `effect/http` router: `RestServer.layer({ maxBodyBytes, rateLimit })`.
 *
 * @since 0.1.0
 */
export * as RestServer from "./RestServer.ts"

/**
 * A WebSocket transport for `@heed/state-tree`'s `Consumer`, for Node and browsers, with reconnection:
 * `SlopClient.make({ url })`, `SlopClient.consumer({ url })`.
 *
 * @since 0.1.0
 */
export * as SlopClient from "./SlopClient.ts"

/**
 * Serves a `@heed/state-tree` `Provider` over WebSocket on an `effect/http` router: `SlopServer.layer({ path })`.
 *
 * @since 0.1.0
 */
export * as SlopServer from "./SlopServer.ts"
