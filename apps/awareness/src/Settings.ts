/**
 * The awareness server's settings, from command-line flags first, then the environment, then defaults:
 * `HEED_PORT` (8420), `HEED_HOST` (127.0.0.1), `HEED_DATA_DIR` (embedded PGlite; default {@link defaultDataDir}), `DATABASE_URL`
 * (a PostgreSQL server instead), `HEED_AUTH_REQUIRED` with `HEED_JWT_SECRET`, `HEED_DEFAULT_OWNER`,
 * `HEED_LOG_LEVEL`, `HEED_ALLOWED_ORIGINS` (comma-separated browser origins allowed on `/mcp`), `HEED_WATCH_INTERVAL_MS` (how often time-driven briefing changes are looked for, default 5000),
 * `HEED_CLOCK_SKEW_SEC` (30), `HEED_MAX_BODY_BYTES` (1 MiB), `HEED_SESSION_IDLE_SEC` (3600), `HEED_MAX_SESSIONS`
 * (1000), `HEED_MAX_RESPONSE_BYTES` (4 MiB), `HEED_SOCKET_TIMEOUT_SEC` (60), `HEED_DASHBOARD_DIR` (the built dashboard
 * page; default the app's `dist/web`) and `OTEL_EXPORTER_OTLP_ENDPOINT`.
 *
 * @since 0.1.0
 */
import { userInfo } from "node:os"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import type * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as SharedSession from "./internal/sharedSession.ts"

/**
 * Resolved settings.
 *
 * @category models
 * @since 0.1.0
 */
export interface Settings {
  readonly port: number
  readonly host: string
  readonly dataDir: string
  readonly databaseUrl: Option.Option<Redacted.Redacted<string>>
  readonly authRequired: boolean
  readonly secret: Option.Option<Redacted.Redacted<string>>
  readonly defaultOwner: string
  readonly logLevel: LogLevel.LogLevel
  readonly otlpEndpoint: Option.Option<string>
  /** How often to look for time-driven briefing changes, in milliseconds (0 disables). */
  readonly watchIntervalMs: number
  /** Browser origins allowed to call `/mcp` (requests with any other `Origin` header get 403). */
  readonly allowedOrigins: ReadonlyArray<string>
  /** Clock skew tolerated on bearer tokens' `exp` and `nbf`, in seconds. */
  readonly clockSkewSec: number
  /** The largest request body accepted on `/mcp`, in bytes (larger ones get 413). */
  readonly maxBodyBytes: number
  /** An MCP session without requests for this long ends, in milliseconds (0: never). */
  readonly sessionIdleMs: number
  /** The most MCP sessions open at once. */
  readonly maxSessions: number
  /** The largest MCP reply, in bytes (a larger tool result becomes a `response_too_large` error). */
  readonly maxResponseBytes: number
  /** A connection that neither sends nor reads for this long is closed, in milliseconds (0: never). */
  readonly socketTimeoutMs: number
  /** The built dashboard page (a folder with `index.html` and `assets/`); by default the app's own `dist/web`. */
  readonly dashboardDir?: string | undefined
}

/**
 * Values given on the command line (each overrides its environment variable).
 *
 * @category models
 * @since 0.1.0
 */
export interface Overrides {
  readonly port?: Option.Option<number> | undefined
  readonly host?: Option.Option<string> | undefined
  readonly dataDir?: Option.Option<string> | undefined
  readonly databaseUrl?: Option.Option<string> | undefined
  readonly logLevel?: Option.Option<LogLevel.LogLevel> | undefined
}

/**
 * An error in the settings.
 *
 * @category errors
 * @since 0.1.0
 */
export class SettingsError extends Schema.TaggedError<SettingsError>()("SettingsError", { message: Schema.String }) {}

const defaultOwner = (): string => {
  try {
    return userInfo().username || "default"
  } catch {
    return "default"
  }
}

/**
 * The default data directory of the embedded store, the same for every mode (HTTP, stdio, `briefing`, `migrate`,
 * `./heed start`) whatever the working directory: `$XDG_DATA_HOME/heed/awareness`, else
 * `~/.local/share/heed/awareness`.
 *
 * @category getters
 * @since 0.1.0
 */
export const defaultDataDir: (env?: {
  readonly XDG_DATA_HOME?: string | undefined
  readonly HOME?: string | undefined
}) => string = SharedSession.defaultDataDir

const pick = <A>(override: Option.Option<A> | undefined, fallback: A): A =>
  override !== undefined && Option.isSome(override) ? override.value : fallback

/**
 * Loads the settings from the environment (through Effect's `ConfigProvider`) and applies the overrides.
 * `HEED_AUTH_REQUIRED=true` without `HEED_JWT_SECRET` is refused.
 *
 * @category constructors
 * @since 0.1.0
 */
export const load = (overrides: Overrides = {}) =>
  Effect.gen(function* () {
    const env = yield* Config.all({
      port: Config.Port("HEED_PORT").pipe(Config.withDefault(8420)),
      host: Config.String("HEED_HOST").pipe(Config.withDefault("127.0.0.1")),
      dataDir: Config.String("HEED_DATA_DIR").pipe(Config.option),
      xdgDataHome: Config.String("XDG_DATA_HOME").pipe(Config.option),
      home: Config.String("HOME").pipe(Config.option),
      databaseUrl: Config.Redacted("DATABASE_URL").pipe(Config.option),
      authRequired: Config.Boolean("HEED_AUTH_REQUIRED").pipe(Config.withDefault(false)),
      secret: Config.Redacted("HEED_JWT_SECRET").pipe(Config.option),
      defaultOwner: Config.String("HEED_DEFAULT_OWNER").pipe(Config.option),
      logLevel: Config.LogLevel("HEED_LOG_LEVEL").pipe(Config.withDefault("Info" as LogLevel.LogLevel)),
      otlpEndpoint: Config.String("OTEL_EXPORTER_OTLP_ENDPOINT").pipe(Config.option),
      watchIntervalMs: Config.Int("HEED_WATCH_INTERVAL_MS").pipe(Config.withDefault(5000)),
      allowedOrigins: Config.String("HEED_ALLOWED_ORIGINS").pipe(Config.withDefault("")),
      clockSkewSec: Config.Int("HEED_CLOCK_SKEW_SEC").pipe(Config.withDefault(30)),
      maxBodyBytes: Config.Int("HEED_MAX_BODY_BYTES").pipe(Config.withDefault(1_048_576)),
      sessionIdleSec: Config.Int("HEED_SESSION_IDLE_SEC").pipe(Config.withDefault(3600)),
      maxSessions: Config.Int("HEED_MAX_SESSIONS").pipe(Config.withDefault(1000)),
      maxResponseBytes: Config.Int("HEED_MAX_RESPONSE_BYTES").pipe(Config.withDefault(4 * 1_048_576)),
      socketTimeoutSec: Config.Int("HEED_SOCKET_TIMEOUT_SEC").pipe(Config.withDefault(60)),
      dashboardDir: Config.String("HEED_DASHBOARD_DIR").pipe(Config.option)
    })
    const databaseOverride =
      overrides.databaseUrl !== undefined && Option.isSome(overrides.databaseUrl)
        ? Option.some(Redacted.make(overrides.databaseUrl.value))
        : env.databaseUrl
    const settings: Settings = {
      port: pick(overrides.port, env.port),
      host: pick(overrides.host, env.host),
      dataDir: pick(
        overrides.dataDir,
        Option.getOrElse(env.dataDir, () =>
          defaultDataDir({
            XDG_DATA_HOME: Option.getOrUndefined(env.xdgDataHome),
            HOME: Option.getOrUndefined(env.home)
          })
        )
      ),
      databaseUrl: databaseOverride,
      authRequired: env.authRequired,
      secret: env.secret,
      defaultOwner: Option.getOrElse(env.defaultOwner, defaultOwner),
      logLevel: pick(overrides.logLevel, env.logLevel),
      otlpEndpoint: env.otlpEndpoint,
      watchIntervalMs: Math.max(0, env.watchIntervalMs),
      allowedOrigins: env.allowedOrigins
        .split(",")
        .map((origin) => origin.trim())
        .filter((origin) => origin !== ""),
      clockSkewSec: Math.max(0, env.clockSkewSec),
      maxBodyBytes: Math.max(1024, env.maxBodyBytes),
      sessionIdleMs: Math.max(0, env.sessionIdleSec) * 1000,
      maxSessions: Math.max(1, env.maxSessions),
      maxResponseBytes: Math.max(64 * 1024, env.maxResponseBytes),
      socketTimeoutMs: Math.max(0, env.socketTimeoutSec) * 1000,
      dashboardDir: Option.getOrUndefined(env.dashboardDir)
    }
    if (Option.isSome(settings.secret) && Redacted.value(settings.secret.value).trim().length < 16) {
      return yield* Effect.fail(
        new SettingsError({ message: "HEED_JWT_SECRET must be at least 16 characters (use a long random string)." })
      )
    }
    if (settings.authRequired && Option.isNone(settings.secret)) {
      return yield* Effect.fail(
        new SettingsError({
          message: "HEED_AUTH_REQUIRED=true needs HEED_JWT_SECRET (a long random string used to sign tokens)."
        })
      )
    }
    return settings
  })
