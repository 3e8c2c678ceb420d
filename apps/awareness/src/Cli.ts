/**
 * The `heed-awareness` command line (effect/cli): `serve` (Streamable HTTP at `/mcp` with `/health`, or `--stdio`),
 * `briefing`, `token --user <id> --expires <duration>` and `migrate`.
 *
 * @since 0.1.0
 */
import { AwarenessMcp } from "@heed/mcp"
import * as Clock from "effect/Clock"
import * as Console from "effect/Console"
import * as Context from "effect/Context"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as GlobalFlag from "effect/cli/GlobalFlag"
import * as Effect from "effect/Effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import type * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Otlp from "effect/observability/Otlp"
import * as Redacted from "effect/Redacted"
import * as References from "effect/References"
import * as Schema from "effect/Schema"
import * as Backend from "./Backend.ts"
import * as DataDirLock from "./DataDirLock.ts"
import * as RemoteBriefing from "./RemoteBriefing.ts"
import * as Report from "./Report.ts"
import * as Server from "./Server.ts"
import * as SessionSocket from "./SessionSocket.ts"
import * as Settings from "./Settings.ts"
import * as Token from "./Token.ts"

/**
 * A command failed in a way the user can fix (the message says how).
 *
 * @category errors
 * @since 0.1.0
 */
export class CliFailure extends Schema.TaggedError<CliFailure>()("CliFailure", { message: Schema.String }) {}

const storeFlags = {
  dataDir: Flag.String("data-dir").pipe(
    Flag.withDescription(
      `PGlite data directory, the same for every mode (env HEED_DATA_DIR, default ${Settings.defaultDataDir()})`
    ),
    Flag.optional
  ),
  databaseUrl: Flag.String("database-url").pipe(
    Flag.withDescription("PostgreSQL server URL instead of the embedded store (env DATABASE_URL)"),
    Flag.optional
  ),
  memory: Flag.Boolean("memory").pipe(
    Flag.withDescription("Keep everything in memory (nothing survives a restart; for trials and tests)"),
    Flag.withDefault(false)
  )
}

/** The settings, with the global `--log-level` flag (effect/cli's own) over HEED_LOG_LEVEL. */
const loadSettings = (flags: Settings.Overrides) =>
  Effect.flatMap(GlobalFlag.LogLevel, (logLevel) => Settings.load({ ...flags, logLevel }))

/**
 * The store a command runs on, from the settings.
 *
 * @category getters
 * @since 0.1.0
 */
export const storeKind = (settings: Settings.Settings, memory: boolean): Backend.StoreKind =>
  memory
    ? { _tag: "memory" }
    : Option.isSome(settings.databaseUrl)
      ? { _tag: "server", url: settings.databaseUrl.value }
      : { _tag: "embedded", dataDir: settings.dataDir }

const withLogging =
  (level: LogLevel.LogLevel) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    effect.pipe(
      Effect.provideService(References.MinimumLogLevel, level),
      Effect.provideService(Logger.LogToStderr, true)
    )

/**
 * The ready-to-paste client configuration for an HTTP server at `url`.
 *
 * @category getters
 * @since 0.1.0
 */
export const clientSnippet = (url: string, authRequired: boolean): string => {
  const server: Record<string, unknown> = { type: "http", url }
  if (authRequired) server.headers = { Authorization: "Bearer <run: heed-awareness token --user you>" }
  return JSON.stringify({ mcpServers: { [AwarenessMcp.serverName]: server } }, null, 2)
}

/**
 * Adds OpenTelemetry export (OTLP over HTTP, JSON: traces, metrics, logs) to a layer when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` is set; returns the layer unchanged otherwise.
 *
 * @category combinators
 * @since 0.1.0
 */
export const withTelemetry =
  (settings: Settings.Settings) =>
  <A, E, R>(layer: Layer.Layer<A, E, R>): Layer.Layer<A, E, R> =>
    Option.match(settings.otlpEndpoint, {
      onNone: () => layer,
      onSome: (baseUrl) =>
        layer.pipe(
          Layer.provide(
            Otlp.layerJson({
              baseUrl,
              resource: { serviceName: AwarenessMcp.serverName, serviceVersion: AwarenessMcp.serverVersion }
            }).pipe(Layer.provide(FetchHttpClient.layer))
          )
        )
    })

const serve = Command.make(
  "serve",
  {
    stdio: Flag.Boolean("stdio").pipe(
      Flag.withDescription("Speak MCP over stdin/stdout instead of HTTP"),
      Flag.withDefault(false)
    ),
    port: Flag.Int("port").pipe(Flag.withDescription("HTTP port (env HEED_PORT, default 8420)"), Flag.optional),
    host: Flag.String("host").pipe(Flag.withDescription("HTTP host (env HEED_HOST, default 127.0.0.1)"), Flag.optional),
    tools: Flag.Literals("tools", ["full", "compact"]).pipe(
      Flag.withDescription("MCP tool profile: full (23 upstream tools) or compact (6 tools) (env HEED_TOOLS)"),
      Flag.optional
    ),
    ...storeFlags
  },
  Effect.fnUntraced(function* (flags) {
    const settings = yield* loadSettings(flags)
    const kind = storeKind(settings, flags.memory)
    const backend = Backend.layer(kind)
    // The holder of an embedded folder serves MCP on its session socket too: stdio sessions attach to it. An
    // in-memory PGlite store (`--data-dir memory://`) has no folder to put a socket in, and nobody to share it with.
    const sessions =
      kind._tag === "embedded" && !kind.dataDir.includes("://")
        ? SessionSocket.layer(settings, kind.dataDir)
        : Layer.empty
    if (flags.stdio) {
      return yield* Layer.launch(
        Layer.merge(Server.layerStdio(settings), sessions).pipe(Layer.provide(backend), withTelemetry(settings))
      ).pipe(withLogging(settings.logLevel))
    }
    const startedAt = yield* Clock.currentTimeMillis
    return yield* Effect.gen(function* () {
      const context = yield* Layer.build(
        Layer.merge(Server.layerHttp(settings, startedAt), sessions).pipe(
          Layer.provideMerge(backend),
          withTelemetry(settings)
        )
      )
      const service = Context.get(context, Backend.Backend)
      const url = `http://${settings.host.includes(":") ? `[${settings.host}]` : settings.host}:${settings.port}/mcp`
      if (kind._tag === "embedded") yield* DataDirLock.advertise(kind.dataDir, url)
      // The banner peeks: printing it must not consume a due reminder's delivery to the first client.
      const briefing = yield* service.forOwner(settings.defaultOwner).pipe(
        Effect.flatMap((awareness) => awareness.peekBriefing),
        Effect.map((value) => JSON.stringify(value, null, 2)),
        Effect.catchCause(() => Effect.succeed("(the briefing could not be read)"))
      )
      const elapsed = (yield* Clock.currentTimeMillis) - startedAt
      yield* Console.log(
        [
          `heed awareness is serving MCP at ${url} (ready in ${elapsed} ms)`,
          `dashboard: ${url.replace(/\/mcp$/, "/")}`,
          `store: ${service.description}; auth: ${
            settings.oauth !== undefined
              ? `OAuth access tokens from ${settings.oauth.issuer} for ${settings.oauth.resource}`
              : settings.authRequired
                ? "bearer token required"
                : "off (local use)"
          }; tools: ${settings.tools ?? "full"}`,
          `health: ${url.replace(/\/mcp$/, "/health")}`,
          `REST: ${url.replace(/\/mcp$/, "/v1")} (reference at ${url.replace(/\/mcp$/, "/docs")}); SLOP: ${url.replace(/^http/, "ws").replace(/\/mcp$/, "/slop")}`,
          "",
          "Client configuration (Claude Desktop / Cursor / any MCP client):",
          clientSnippet(url, settings.authRequired && settings.oauth === undefined),
          "",
          `Claude Code: claude mcp add --transport http ${AwarenessMcp.serverName} ${url}`,
          "",
          `Current briefing (owner ${settings.defaultOwner}):`,
          briefing,
          "",
          "Press Ctrl+C to stop."
        ].join("\n")
      )
      return yield* Effect.never
    }).pipe(Effect.scoped, withLogging(settings.logLevel))
  })
).pipe(Command.withDescription("Run the awareness server (Streamable HTTP on port 8420 at /mcp, or --stdio)"))

const briefing = Command.make(
  "briefing",
  {
    owner: Flag.String("owner").pipe(
      Flag.withDescription("Whose briefing (default HEED_DEFAULT_OWNER or the OS user)"),
      Flag.optional
    ),
    ...storeFlags
  },
  Effect.fnUntraced(function* (flags) {
    const settings = yield* loadSettings(flags)
    const owner = Option.getOrElse(flags.owner, () => settings.defaultOwner)
    yield* Effect.gen(function* () {
      const service = yield* Backend.Backend
      const awareness = yield* service
        .forOwner(owner)
        .pipe(Effect.mapError((body) => new CliFailure({ message: body.error.message })))
      const value = yield* awareness
        .getBriefing()
        .pipe(Effect.mapError(() => new CliFailure({ message: "the briefing could not be generated" })))
      yield* Console.log(JSON.stringify(value, null, 2))
    }).pipe(
      Effect.provide(Backend.layer(storeKind(settings, flags.memory))),
      // A running server holds the embedded store: read the briefing through it instead.
      Effect.catchTag(
        "DataDirLocked",
        (locked): Effect.Effect<void, DataDirLock.DataDirLocked | RemoteBriefing.RemoteBriefingError> =>
          locked.url === undefined
            ? Effect.fail(locked)
            : RemoteBriefing.fetch(locked.url, owner, settings).pipe(
                Effect.flatMap((value) => Console.log(JSON.stringify(value, null, 2)))
              )
      ),
      withLogging(settings.logLevel)
    )
  })
).pipe(
  Command.withDescription(
    "Print the current briefing (read through the running server when one holds the data directory)"
  )
)

const token = Command.make(
  "token",
  {
    user: Flag.String("user").pipe(Flag.withDescription("The owner id (becomes the token's sub)")),
    expires: Flag.String("expires").pipe(
      Flag.withDescription("Lifetime: 30d, 12h, 45m, 2w, 1y or never (default 30d)"),
      Flag.withDefault("30d")
    )
  },
  Effect.fnUntraced(function* (flags) {
    const settings = yield* Settings.load()
    if (settings.oauth !== undefined) {
      return yield* new CliFailure({
        message: `HEED_OAUTH_ISSUER is set: in OAuth mode access tokens come from ${settings.oauth.issuer}, not from this command`
      })
    }
    if (Option.isNone(settings.secret)) {
      return yield* new CliFailure({ message: "set HEED_JWT_SECRET (the signing secret the server uses) first" })
    }
    if (flags.user.trim() === "") return yield* new CliFailure({ message: "--user must not be empty" })
    const lifetime = Token.parseDuration(flags.expires)
    if (lifetime === null) {
      return yield* new CliFailure({
        message: `--expires '${flags.expires}' is not a duration such as 30d, 12h or never`
      })
    }
    const now = yield* Clock.currentTimeMillis
    yield* Console.log(
      Token.sign({
        sub: flags.user,
        secret: Redacted.value(settings.secret.value),
        nowSec: Math.floor(now / 1000),
        expiresInSec: lifetime
      })
    )
  })
).pipe(Command.withDescription("Issue an HS256 bearer token whose sub is the owner"))

const migrate = Command.make(
  "migrate",
  { dataDir: storeFlags.dataDir, databaseUrl: storeFlags.databaseUrl },
  Effect.fnUntraced(function* (flags) {
    const settings = yield* loadSettings(flags)
    const kind = storeKind(settings, false)
    if (kind._tag === "memory") return
    yield* Layer.build(Backend.databaseLayer(kind)).pipe(Effect.scoped, withLogging(settings.logLevel))
    yield* Console.log(kind._tag === "embedded" ? `migrated ${kind.dataDir}` : "migrated the PostgreSQL database")
  })
).pipe(Command.withDescription("Create or upgrade the database schema"))

/**
 * The root command.
 *
 * @category constructors
 * @since 0.1.0
 */
export const command = Command.make("heed-awareness").pipe(
  Command.withDescription("heed awareness: a briefing of what needs an agent's attention, over MCP"),
  Command.withSubcommands([serve, briefing, token, migrate, Report.command])
)

/**
 * Runs the command line with the process arguments.
 *
 * @category constructors
 * @since 0.1.0
 */
export const run = Command.run(command, { version: AwarenessMcp.serverVersion })
