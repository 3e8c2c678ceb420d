/**
 * The `heed-bridge` command line: `serve` runs the bridge (MCP over stdio, or Streamable HTTP with `--http PORT`, and
 * the inject socket); `inject` reads a prompt hook's JSON on stdin and prints the budgeted context of the running
 * bridge (nothing when none runs).
 *
 * @since 0.1.0
 */
import { createServer } from "node:http"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeStdio from "@effect/platform-node/NodeStdio"
import * as McpProtocol from "effect/ai/McpProtocol"
import * as McpServer from "effect/ai/McpServer"
import * as Console from "effect/Console"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as HttpRouter from "effect/http/HttpRouter"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Bridge from "./Bridge.ts"
import * as Budget from "./Budget.ts"
import * as InjectSocket from "./InjectSocket.ts"
import * as Mcp from "./Mcp.ts"

/**
 * A command-line value out of range; `field` names the flag.
 *
 * @category errors
 * @since 0.1.0
 */
export class CliError extends Schema.TaggedError<CliError>()("CliError", {
  field: Schema.String,
  message: Schema.String
}) {}

const protocols = [McpProtocol.v2025_11_25, McpProtocol.v2025_06_18, McpProtocol.v2026_07_28] as const

const serveFlags = {
  http: Flag.Int("http").pipe(
    Flag.withDescription("Serve MCP over Streamable HTTP on this port (at /mcp) instead of stdio"),
    Flag.optional
  ),
  host: Flag.String("host").pipe(Flag.withDescription("HTTP host (default 127.0.0.1)"), Flag.withDefault("127.0.0.1")),
  budget: Flag.Int("budget").pipe(
    Flag.withDescription("Tokens (o200k) for all apps together (default 1500)"),
    Flag.withDefault(Budget.defaultBudget)
  ),
  tools: Flag.Literals("tools", ["fixed", "dynamic"]).pipe(
    Flag.withDescription("dynamic: also one tool per affordance, {app}__{node}__{action}"),
    Flag.withDefault("fixed" as const)
  ),
  provider: Flag.String("provider").pipe(
    Flag.withDescription('A provider URL (ws://…, …/.well-known/slop, or a page with <meta name="slop">); repeatable'),
    Flag.atLeast(0)
  ),
  socket: Flag.String("socket").pipe(
    Flag.withDescription("The inject socket (default HEED_BRIDGE_SOCKET, $XDG_RUNTIME_DIR/heed-bridge.sock)"),
    Flag.optional
  ),
  decayTurns: Flag.Int("decay-turns").pipe(
    Flag.withDescription("Turns without a mention before an app collapses to a stub (default 3)"),
    Flag.withDefault(3)
  ),
  notifySalience: Flag.Finite("notify-salience").pipe(
    Flag.withDescription("A change this salient (or high/critical) is announced with resources/updated (default 0.8)"),
    Flag.withDefault(0.8)
  ),
  connect: Flag.Literals("connect", ["auto", "lazy"]).pipe(
    Flag.withDescription("auto: connect every provider found (default); lazy: only on connect_app"),
    Flag.withDefault("auto" as const)
  ),
  reconnectDelay: Flag.Int("reconnect-delay").pipe(
    Flag.withDescription("First reconnect delay in ms, doubling up to 30 s (default 3000)"),
    Flag.withDefault(3000)
  ),
  rescan: Flag.Finite("rescan").pipe(
    Flag.withDescription("Seconds between rescans of the descriptor folders (default 15)"),
    Flag.withDefault(15)
  )
}

type ServeFlags = {
  readonly [K in keyof typeof serveFlags]: (typeof serveFlags)[K] extends Flag.Flag<infer A> ? A : never
}

/**
 * Checks the serve flags' ranges, naming the flag at fault.
 *
 * @category constructors
 * @since 0.1.0
 */
export const check = (flags: ServeFlags): Effect.Effect<ServeFlags, CliError> => {
  const bad = (field: string, message: string) =>
    Effect.fail(new CliError({ field, message: `--${field}: ${message}` }))
  if (flags.budget < 100) return bad("budget", "must be at least 100 tokens")
  if (flags.decayTurns < 1) return bad("decay-turns", "must be at least 1")
  if (flags.notifySalience < 0 || flags.notifySalience > 1) return bad("notify-salience", "must be between 0 and 1")
  if (flags.reconnectDelay < 1) return bad("reconnect-delay", "must be at least 1 ms")
  if (flags.rescan <= 0) return bad("rescan", "must be more than 0 seconds")
  if (Option.isSome(flags.http) && (flags.http.value < 0 || flags.http.value > 65535)) {
    return bad("http", "must be a port between 0 and 65535")
  }
  return Effect.succeed(flags)
}

/**
 * Runs the bridge until interrupted: discovery, connections, the inject socket, and MCP on stdio or HTTP.
 *
 * @category constructors
 * @since 0.1.0
 */
export const serveBridge = (input: ServeFlags) =>
  Effect.gen(function* () {
    const flags = yield* check(input)
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
      return yield* Layer.launch(
        McpServer.layerStdio({ ...options, registrations }).pipe(Layer.provide(NodeStdio.layer))
      )
    }
    const port = flags.http.value
    const server = HttpRouter.serve(
      McpServer.layerHttp({ ...options, path: "/mcp", allowSessionTermination: true, registrations }),
      { disableLogger: true, disableListenLog: true }
    ).pipe(Layer.provide(NodeHttpServer.layer(createServer, { port, host: flags.host })))
    yield* Effect.logInfo(`heed-bridge: MCP at http://${flags.host}:${port}/mcp, inject socket ${socketPath}`)
    return yield* Layer.launch(server)
  }).pipe(Effect.scoped, Effect.provideService(Logger.LogToStderr, true))

const serve = Command.make("serve", serveFlags, serveBridge).pipe(
  Command.withDescription("Run the bridge: MCP over stdio (or --http PORT) and the inject socket")
)

const inject = Command.make(
  "inject",
  {
    socket: serveFlags.socket,
    timeout: Flag.Int("timeout").pipe(
      Flag.withDescription("ms to wait for the bridge (default 5000)"),
      Flag.withDefault(5000)
    )
  },
  Effect.fnUntraced(function* (flags) {
    const input = yield* Effect.promise(async () => {
      if (process.stdin.isTTY) return ""
      let text = ""
      process.stdin.setEncoding("utf8")
      for await (const chunk of process.stdin) text += chunk
      return text
    })
    const path = Option.getOrElse(flags.socket, () => InjectSocket.defaultPath())
    const text = yield* Effect.promise(() => InjectSocket.ask(path, InjectSocket.promptOf(input), flags.timeout))
    if (text !== "") yield* Console.log(text)
  })
).pipe(
  Command.withDescription(
    "Print the budgeted context for a prompt hook (reads the hook's JSON on stdin); prints nothing when no bridge runs"
  )
)

/**
 * The root command.
 *
 * @category constructors
 * @since 0.1.0
 */
export const command = Command.make("heed-bridge").pipe(
  Command.withDescription("heed-bridge: every SLOP app on the machine in an agent's context, inside one token budget"),
  Command.withSubcommands([serve, inject])
)

/**
 * Runs the command line with the process arguments.
 *
 * @category constructors
 * @since 0.1.0
 */
export const run = Command.run(command, { version: Mcp.serverVersion }).pipe(
  // a bad flag value gets one clear line on stderr and exit status 1, without a stack trace
  Effect.catchTag("CliError", (error) =>
    Effect.sync(() => {
      process.stderr.write(`heed-bridge: ${error.message}\n`)
      process.exitCode = 1
    })
  )
)
