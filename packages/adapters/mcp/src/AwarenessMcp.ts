/**
 * The whole awareness MCP surface in one place: the registrations layer (tools, resources, prompts and briefing
 * notifications) that any `McpServer` can mount, and ready-made stdio and Streamable HTTP servers.
 *
 * @since 0.1.0
 */

import * as McpProtocol from "effect/ai/McpProtocol"
import * as McpServer from "effect/ai/McpServer"
import type * as Duration from "effect/Duration"
import type * as HttpRouter from "effect/http/HttpRouter"
import * as Layer from "effect/Layer"
import type { AwarenessResolver } from "./AwarenessResolver.ts"
import * as BriefingNotifier from "./BriefingNotifier.ts"
import { instructions } from "./Instructions.ts"
import { version } from "./internal/version.ts"
import * as Prompts from "./Prompts.ts"
import * as Resources from "./Resources.ts"
import * as Tools from "./Tools.ts"

/**
 * The protocol versions heed serves: 2025-06-18, 2025-11-25 and 2026-07-28.
 *
 * @category constants
 * @since 0.1.0
 */
export const protocols = [McpProtocol.v2025_11_25, McpProtocol.v2025_06_18, McpProtocol.v2026_07_28] as const

/**
 * The server name reported in `initialize`.
 *
 * @category constants
 * @since 0.1.0
 */
export const serverName = "heed-awareness"

/**
 * The server version reported in `initialize`: this package's version (its `package.json`'s), so `serverInfo` always
 * names the release it ships in.
 *
 * @category constants
 * @since 0.1.0
 */
export const serverVersion: string = version

/**
 * Options of the registrations.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /** Coalescing window for briefing notifications after writes (default 200 ms). */
  readonly notificationDebounce?: Duration.Input | undefined
  /** How often to look for time-driven briefing changes (default 5 seconds; 0 disables). */
  readonly pollInterval?: Duration.Input | undefined
}

/**
 * Every tool, resource and prompt plus briefing notifications, for the `McpServer` in context. Mount it on your
 * own server with `McpServer.layer…({ registrations })` or `Layer.provide`.
 *
 * @category layers
 * @since 0.1.0
 */
export const registrations = (
  options: Options = {}
): Layer.Layer<never, never, McpServer.McpServer | AwarenessResolver> =>
  Layer.mergeAll(Tools.layer, Resources.layer, Prompts.layer).pipe(
    Layer.provide(
      BriefingNotifier.layer({ debounce: options.notificationDebounce, pollInterval: options.pollInterval })
    )
  )

/**
 * The awareness server over stdio (needs `Stdio`, e.g. `NodeStdio.layer`, and an `AwarenessResolver`).
 *
 * @category layers
 * @since 0.1.0
 */
export const layerStdio = (options: Options = {}) =>
  McpServer.layerStdio({
    name: serverName,
    version: serverVersion,
    instructions,
    protocols,
    registrations: registrations(options)
  })

/**
 * The awareness server over Streamable HTTP at `path` (default `/mcp`) on the `HttpRouter` in context. Requests that
 * carry an `Origin` header are refused unless the origin is listed in `allowedOrigins` (DNS-rebinding protection);
 * clients without one (CLIs, agents, edge processes) are unaffected. `DELETE` with an `Mcp-Session-Id` ends that
 * session (204), as the Streamable HTTP transport specifies; later requests with its id get 404.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerHttp = (
  options: Options & {
    readonly path?: HttpRouter.PathInput | undefined
    readonly allowedOrigins?: ReadonlyArray<string> | undefined
  } = {}
) =>
  McpServer.layerHttp({
    name: serverName,
    version: serverVersion,
    instructions,
    protocols,
    path: options.path ?? "/mcp",
    allowedOrigins: options.allowedOrigins,
    allowSessionTermination: true,
    registrations: registrations(options)
  })
