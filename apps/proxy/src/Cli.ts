/**
 * The `heed-proxy` command line: `serve --upstream URL [--port P] [--max-context N] …` runs the proxy. With
 * `DATABASE_URL` set, sessions live in PostgreSQL (shared by replicas); otherwise in memory.
 *
 * @since 0.1.0
 */
import { readFileSync } from "node:fs"
import { createServer } from "node:http"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { TokenCounter } from "@heed/schema"
import * as Console from "effect/Console"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as HttpRouter from "effect/http/HttpRouter"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as ContextPlan from "./ContextPlan.ts"
import * as Metrics from "./Metrics.ts"
import * as Server from "./Server.ts"
import * as SessionStore from "./SessionStore.ts"

/**
 * The default port.
 *
 * @category constants
 * @since 0.1.0
 */
export const DEFAULT_PORT = 8430

/**
 * Everything `serve` needs.
 *
 * @category models
 * @since 0.1.0
 */
export interface ServeOptions {
  readonly settings: Server.ProxySettings
  readonly port: number
  readonly host: string
  readonly maxSessions: number
  /** A PostgreSQL URL for shared sessions; in memory when absent. */
  readonly databaseUrl: string | undefined
}

/**
 * A bad command-line value; `field` names the flag.
 *
 * @category errors
 * @since 0.1.0
 */
export class UsageError extends Schema.TaggedError<UsageError>()("UsageError", {
  field: Schema.String,
  message: Schema.String
}) {}

const usage = (field: string, message: string) => new UsageError({ field, message: `--${field}: ${message}` })

/**
 * The proxy as a layer: the HTTP server on `host:port` with its session store.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options: ServeOptions) => {
  const engine = ContextPlan.makeEngine(TokenCounter.countO200k)
  const store =
    options.databaseUrl === undefined
      ? SessionStore.layerMemory(options.maxSessions)
      : SessionStore.layerPostgres(options.databaseUrl)
  return HttpRouter.serve(Server.routes(options.settings, engine, Metrics.make()), { disableLogger: true }).pipe(
    Layer.provide(store),
    Layer.provideMerge(
      NodeHttpServer.layer(() => createServer(), {
        port: options.port,
        host: options.host,
        gracefulShutdownTimeout: "5 seconds"
      })
    )
  )
}

const positive = (field: string, value: number, min = 1) =>
  Number.isInteger(value) && value >= min
    ? Effect.succeed(value)
    : Effect.fail(usage(field, `must be an integer of at least ${min}, got ${value}`))

const serve = Command.make(
  "serve",
  {
    upstream: Flag.String("upstream").pipe(
      Flag.withDescription("The model server's base URL (https://api.anthropic.com, http://127.0.0.1:11434, …)")
    ),
    port: Flag.Int("port").pipe(
      Flag.withDescription("The port to listen on (default 8430)"),
      Flag.withDefault(DEFAULT_PORT)
    ),
    host: Flag.String("host").pipe(Flag.withDescription("The address to listen on"), Flag.withDefault("127.0.0.1")),
    maxContext: Flag.Int("max-context").pipe(
      Flag.withDescription(
        "Collapse further (least recently referenced first) while a request is above this many tokens"
      ),
      Flag.optional
    ),
    collapseAtLeast: Flag.Int("collapse-at-least").pipe(
      Flag.withDescription("Collapse due efforts only once they free this many tokens (default 5000)"),
      Flag.withDefault(ContextPlan.defaults.collapseAtLeast)
    ),
    effortTokens: Flag.Int("effort-tokens").pipe(
      Flag.withDescription("Tool results and messages of at least this many tokens are efforts (default 500)"),
      Flag.withDefault(ContextPlan.defaults.effortTokens)
    ),
    decayTurns: Flag.Int("decay-turns").pipe(
      Flag.withDescription("Turns without a reference before an effort collapses (default 3)"),
      Flag.withDefault(ContextPlan.defaults.decayTurns)
    ),
    keepTurns: Flag.Int("keep-turns").pipe(
      Flag.withDescription("The last turns the --max-context backstop never collapses (default 2)"),
      Flag.withDefault(ContextPlan.defaults.keepTurns)
    ),
    timeout: Flag.Int("timeout").pipe(
      Flag.withDescription("Seconds to wait for the upstream's response (default 600)"),
      Flag.withDefault(600)
    ),
    maxSessions: Flag.Int("max-sessions").pipe(
      Flag.withDescription("Sessions kept in memory (least recently used dropped first; default 1000)"),
      Flag.withDefault(1000)
    )
  },
  Effect.fnUntraced(function* (flags) {
    const upstream = yield* Effect.try({
      try: () => new URL(flags.upstream),
      catch: () => usage("upstream", `not a URL: '${flags.upstream}'`)
    })
    if (upstream.protocol !== "http:" && upstream.protocol !== "https:") {
      return yield* usage("upstream", `must be an http:// or https:// URL, got '${flags.upstream}'`)
    }
    const maxContext = Option.getOrUndefined(flags.maxContext)
    const options: ServeOptions = {
      port: yield* positive("port", flags.port, 0),
      host: flags.host,
      maxSessions: yield* positive("max-sessions", flags.maxSessions),
      databaseUrl: process.env.DATABASE_URL || undefined,
      settings: {
        upstream: flags.upstream,
        timeoutMs: (yield* positive("timeout", flags.timeout)) * 1000,
        plan: {
          ...ContextPlan.defaults,
          effortTokens: yield* positive("effort-tokens", flags.effortTokens),
          decayTurns: yield* positive("decay-turns", flags.decayTurns),
          keepTurns: yield* positive("keep-turns", flags.keepTurns, 0),
          collapseAtLeast: yield* positive("collapse-at-least", flags.collapseAtLeast, 0),
          maxContext: maxContext === undefined ? undefined : yield* positive("max-context", maxContext)
        }
      }
    }
    yield* Effect.logInfo(
      `heed-proxy listening on http://${options.host}:${options.port} -> ${upstream.origin} ` +
        `(sessions: ${options.databaseUrl === undefined ? "memory" : "postgres"})`
    )
    return yield* Layer.launch(layer(options))
  })
).pipe(Command.withDescription("Run the proxy in front of an OpenAI- or Anthropic-compatible model server"))

/**
 * The command tree.
 *
 * @category constructors
 * @since 0.1.0
 */
export const command = Command.make("heed-proxy").pipe(
  Command.withDescription("heed-proxy: salience decay for any agent's context, by changing its base URL"),
  Command.withSubcommands([serve])
)

const fail = (message: string) =>
  Effect.andThen(
    Console.error(`heed-proxy: ${message}`),
    Effect.sync(() => {
      process.exitCode = 1
    })
  )

/**
 * Runs the command line with the process arguments, logging to stderr.
 *
 * @category constructors
 * @since 0.1.0
 */
export const main = Command.run(command, {
  version: JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).version
}).pipe(
  Effect.catchTag("UsageError", (error) => fail(error.message)),
  Effect.provideService(Logger.LogToStderr, true)
)
