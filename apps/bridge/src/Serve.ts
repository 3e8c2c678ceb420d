/**
 * `heed-bridge serve`: the bridge, the inject socket, and MCP on stdio or Streamable HTTP. Loaded by the command line
 * only when `serve` runs (`inject`, run at every prompt, loads none of it), and the HTTP transport only with `--http`.
 *
 * @since 0.1.0
 */
import * as McpProtocol from "effect/ai/McpProtocol"
import * as McpServer from "effect/ai/McpServer"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as Bridge from "./Bridge.ts"
import type { ServeFlags } from "./Cli.ts"
import * as InjectSocket from "./InjectSocket.ts"
import * as Mcp from "./Mcp.ts"

const protocols = [McpProtocol.v2025_11_25, McpProtocol.v2025_06_18, McpProtocol.v2026_07_28] as const

/**
 * Runs the bridge until interrupted: discovery, connections, the inject socket, and MCP on stdio or HTTP. The flags
 * are checked already (`Cli.check`).
 *
 * @category constructors
 * @since 0.1.0
 */
export const serveBridge = (flags: ServeFlags) =>
  Effect.gen(function* () {
    const hooks = Mcp.makeHooks()
    const bridge = yield* Bridge.make({
      budget: flags.budget,
      decayTurns: flags.decayTurns,
      notifyMinSalience: flags.notifySalience,
      providers: flags.provider,
      connect: flags.connect,
      rescanInterval: flags.rescan * 1000,
      reconnect: { initialDelay: flags.reconnectDelay, maxDelay: Math.max(flags.reconnectDelay, 30_000) },
      onSalient: (id) => Effect.suspend(() => hooks.salient(id)),
      onTreeChanged: (id) => Effect.suspend(() => hooks.changed(id))
    })
    const socketPath = Option.getOrElse(flags.socket, () => InjectSocket.defaultPath())
    yield* InjectSocket.serve(socketPath, (prompt) => Effect.map(bridge.inject(prompt), (plan) => plan.text))
    const registrations = Mcp.registrations(hooks, { dynamicTools: flags.tools === "dynamic" }).pipe(
      Layer.provide(Layer.succeed(Mcp.BridgeService, bridge))
    )
    const options = { name: Mcp.serverName, version: Mcp.serverVersion, instructions: Mcp.instructions, protocols }
    if (Option.isNone(flags.http)) {
      const NodeStdio = yield* Effect.promise(() => import("@effect/platform-node/NodeStdio"))
      return yield* Layer.launch(
        McpServer.layerStdio({ ...options, registrations }).pipe(Layer.provide(NodeStdio.layer))
      )
    }
    const port = flags.http.value
    const [{ createServer }, NodeHttpServer, HttpRouter] = yield* Effect.promise(() =>
      Promise.all([
        import("node:http"),
        import("@effect/platform-node/NodeHttpServer"),
        import("effect/http/HttpRouter")
      ])
    )
    const server = HttpRouter.serve(
      McpServer.layerHttp({ ...options, path: "/mcp", allowSessionTermination: true, registrations }),
      { disableLogger: true, disableListenLog: true }
    ).pipe(Layer.provide(NodeHttpServer.layer(createServer, { port, host: flags.host })))
    yield* Effect.logInfo(`heed-bridge: MCP at http://${flags.host}:${port}/mcp, inject socket ${socketPath}`)
    return yield* Layer.launch(server)
  }).pipe(Effect.scoped, Effect.provideService(Logger.LogToStderr, true))
