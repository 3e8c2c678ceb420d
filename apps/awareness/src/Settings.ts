/**
 * The awareness server's settings, from command-line flags first, then the environment, then defaults:
 * `HEED_PORT` (8420), `HEED_HOST` (127.0.0.1), `HEED_DATA_DIR` (embedded PGlite; default {@link defaultDataDir}), `DATABASE_URL`
 * (a PostgreSQL server instead), `HEED_AUTH_REQUIRED` with `HEED_JWT_SECRET` (self-signed HS256 tokens) or
 * `HEED_OAUTH_ISSUER` with `HEED_OAUTH_RESOURCE`, `HEED_OAUTH_AUDIENCE`, `HEED_OAUTH_OWNER_CLAIM`, `HEED_OAUTH_JWKS_URI`,
 * `HEED_OAUTH_JWKS_CACHE_SEC` and `HEED_OAUTH_JWKS_COOLDOWN_SEC` (OAuth 2.1 resource server, see {@link OAuth}),
 * `HEED_DEFAULT_OWNER`,
 * `HEED_LOG_LEVEL`, `HEED_ALLOWED_ORIGINS` (comma-separated browser origins allowed on `/mcp`), `HEED_WATCH_INTERVAL_MS` (how often time-driven briefing changes are looked for, default 5000),
 * `HEED_CLOCK_SKEW_SEC` (30), `HEED_MAX_BODY_BYTES` (1 MiB), `HEED_SESSION_IDLE_SEC` (3600), `HEED_MAX_SESSIONS`
 * (1000), `HEED_MAX_SESSIONS_PER_OWNER` (unset: no cap of its own), `HEED_MAX_SLOP_CONNECTIONS` (1024),
 * `HEED_MAX_SLOP_CONNECTIONS_PER_OWNER` (unset: no cap of its own), `HEED_MAX_RESPONSE_BYTES` (4 MiB), `HEED_SOCKET_TIMEOUT_SEC` (60), `HEED_IDLE_GC_SEC` (5), `HEED_DASHBOARD_DIR` (the built dashboard
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
  /** The most MCP sessions open at once (at the cap, each owner gets a fair share; see `McpGuard`). */
  readonly maxSessions: number
  /** The most MCP sessions one owner may hold (default: no cap of its own; the fair share still applies). */
  readonly maxSessionsPerOwner?: number | undefined
  /** The most SLOP WebSocket connections open at once (default 1,024; each owner gets a fair share). */
  readonly maxSlopConnections?: number | undefined
  /** The most SLOP WebSocket connections one owner may hold (default: no cap of its own). */
  readonly maxSlopConnectionsPerOwner?: number | undefined
  /** The largest MCP reply, in bytes (a larger tool result becomes a `response_too_large` error). */
  readonly maxResponseBytes: number
  /** A connection that neither sends nor reads for this long is closed, in milliseconds (0: never). */
  readonly socketTimeoutMs: number
  /**
   * One full garbage collection this long after the last HTTP request, in milliseconds (0: never; default 5,000), so
   * that the garbage of a burst goes back to the system (see `IdleCollection`).
   */
  readonly idleGcMs?: number | undefined
  /** The built dashboard page (a folder with `index.html` and `assets/`); by default the app's own `dist/web`. */
  readonly dashboardDir?: string | undefined
  /**
   * The MCP tool profile (`HEED_TOOLS`, or `serve --tools`): `full` (default, the 23 upstream-compatible tools) or
   * `compact` (six tools, about a third of the `tools/list` tokens).
   */
  readonly tools?: "full" | "compact" | undefined
  /**
   * OAuth 2.1 resource-server mode: access tokens issued by an authorization server, verified against its published
   * keys (see `Auth`). Absent: self-signed HS256 tokens (`secret`), or no auth.
   */
  readonly oauth?: OAuth | undefined
}

/**
 * The OAuth 2.1 resource-server settings (`HEED_OAUTH_*`). Setting `HEED_OAUTH_ISSUER` turns the mode on, and every
 * HTTP request then needs an access token from that issuer.
 *
 * @category models
 * @since 0.1.0
 */
export interface OAuth {
  /** The authorization server's issuer identifier; tokens' `iss` must equal it (`HEED_OAUTH_ISSUER`). */
  readonly issuer: string
  /**
   * This server's resource identifier, as clients reach it (`HEED_OAUTH_RESOURCE`; default `http://<host>:<port>`):
   * the `resource` of its Protected Resource Metadata, and the audience tokens must name.
   */
  readonly resource: string
  /** The `aud` values accepted; a token must name one of them (`HEED_OAUTH_AUDIENCE`, comma-separated; default the resource). */
  readonly audience: ReadonlyArray<string>
  /** The claim whose value is the owner (`HEED_OAUTH_OWNER_CLAIM`, default `sub`). */
  readonly ownerClaim: string
  /** The issuer's key set; without it, `jwks_uri` is discovered from the issuer's metadata (`HEED_OAUTH_JWKS_URI`). */
  readonly jwksUri?: string | undefined
  /** How long fetched keys are used before they are fetched again, in milliseconds (`HEED_OAUTH_JWKS_CACHE_SEC`, 600). */
  readonly jwksCacheMs: number
  /**
   * After a fetch, how long a token with an unknown `kid` waits before it may trigger another one, in milliseconds
   * (`HEED_OAUTH_JWKS_COOLDOWN_SEC`, 30): new keys are picked up, and tokens with made-up `kid`s cannot hammer the
   * issuer.
   */
  readonly jwksCooldownMs: number
  /** How long a metadata or key-set fetch may take, in milliseconds. */
  readonly fetchTimeoutMs: number
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
  readonly tools?: Option.Option<string> | undefined
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
      authRequired: Config.Boolean("HEED_AUTH_REQUIRED").pipe(Config.option),
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
      maxSessionsPerOwner: Config.Int("HEED_MAX_SESSIONS_PER_OWNER").pipe(Config.option),
      maxSlopConnections: Config.Int("HEED_MAX_SLOP_CONNECTIONS").pipe(Config.withDefault(1024)),
      maxSlopConnectionsPerOwner: Config.Int("HEED_MAX_SLOP_CONNECTIONS_PER_OWNER").pipe(Config.option),
      maxResponseBytes: Config.Int("HEED_MAX_RESPONSE_BYTES").pipe(Config.withDefault(4 * 1_048_576)),
      socketTimeoutSec: Config.Int("HEED_SOCKET_TIMEOUT_SEC").pipe(Config.withDefault(60)),
      idleGcSec: Config.Int("HEED_IDLE_GC_SEC").pipe(Config.withDefault(5)),
      dashboardDir: Config.String("HEED_DASHBOARD_DIR").pipe(Config.option),
      tools: Config.String("HEED_TOOLS").pipe(Config.withDefault("full")),
      oauthIssuer: Config.String("HEED_OAUTH_ISSUER").pipe(Config.option),
      oauthResource: Config.String("HEED_OAUTH_RESOURCE").pipe(Config.option),
      oauthAudience: Config.String("HEED_OAUTH_AUDIENCE").pipe(Config.withDefault("")),
      oauthOwnerClaim: Config.String("HEED_OAUTH_OWNER_CLAIM").pipe(Config.withDefault("sub")),
      oauthJwksUri: Config.String("HEED_OAUTH_JWKS_URI").pipe(Config.option),
      oauthJwksCacheSec: Config.Int("HEED_OAUTH_JWKS_CACHE_SEC").pipe(Config.withDefault(600)),
      oauthJwksCooldownSec: Config.Int("HEED_OAUTH_JWKS_COOLDOWN_SEC").pipe(Config.withDefault(30))
    })
    const tools = pick(overrides.tools, env.tools).trim().toLowerCase()
    if (tools !== "full" && tools !== "compact") {
      return yield* Effect.fail(
        new SettingsError({
          message: `HEED_TOOLS (or --tools) must be full or compact, not '${tools.slice(0, 40)}'.`
        })
      )
    }
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
      authRequired: Option.getOrElse(env.authRequired, () => Option.isSome(env.oauthIssuer)),
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
      maxSessionsPerOwner: Option.getOrUndefined(Option.map(env.maxSessionsPerOwner, (n) => Math.max(1, n))),
      maxSlopConnections: Math.max(1, env.maxSlopConnections),
      maxSlopConnectionsPerOwner: Option.getOrUndefined(
        Option.map(env.maxSlopConnectionsPerOwner, (n) => Math.max(1, n))
      ),
      maxResponseBytes: Math.max(64 * 1024, env.maxResponseBytes),
      socketTimeoutMs: Math.max(0, env.socketTimeoutSec) * 1000,
      idleGcMs: Math.max(0, env.idleGcSec) * 1000,
      dashboardDir: Option.getOrUndefined(env.dashboardDir),
      tools
    }
    if (Option.isSome(env.oauthIssuer)) {
      return yield* oauthSettings(settings, {
        issuer: env.oauthIssuer.value,
        resource: Option.getOrUndefined(env.oauthResource),
        audience: env.oauthAudience,
        ownerClaim: env.oauthOwnerClaim,
        jwksUri: Option.getOrUndefined(env.oauthJwksUri),
        jwksCacheSec: env.oauthJwksCacheSec,
        jwksCooldownSec: env.oauthJwksCooldownSec
      })
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

const loopbackHosts = new Set(["localhost", "127.0.0.1", "[::1]"])

/** An absolute http(s) URL without a fragment; plain http only on a loopback host unless `anyHttp`. */
const urlSetting = (name: string, value: string, anyHttp = false): Effect.Effect<URL, SettingsError> => {
  const fail = (why: string) =>
    Effect.fail(new SettingsError({ message: `${name} ${why} (got ${JSON.stringify(value)}).` }))
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return fail("must be an absolute URL such as https://auth.example.com")
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return fail("must be an http(s) URL")
  if (url.protocol === "http:" && !anyHttp && !loopbackHosts.has(url.hostname)) {
    return fail("must use https (plain http is accepted on localhost, 127.0.0.1 and [::1] only)")
  }
  if (url.hash !== "" || value.includes("#")) return fail("must not have a fragment")
  if (url.username !== "" || url.password !== "") return fail("must not carry credentials")
  return Effect.succeed(url)
}

/** The resource identifier a server on `host:port` has when it is reached directly. */
const defaultResource = (host: string, port: number): string | undefined => {
  if (host === "0.0.0.0" || host === "::" || host === "" || port === 0) return undefined
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`
}

/** Checks the `HEED_OAUTH_*` values and adds them to the settings. */
const oauthSettings = (
  settings: Settings,
  raw: {
    readonly issuer: string
    readonly resource: string | undefined
    readonly audience: string
    readonly ownerClaim: string
    readonly jwksUri: string | undefined
    readonly jwksCacheSec: number
    readonly jwksCooldownSec: number
  }
) =>
  Effect.gen(function* () {
    const fail = (message: string) => Effect.fail(new SettingsError({ message }))
    if (Option.isSome(settings.secret)) {
      return yield* fail(
        "HEED_OAUTH_ISSUER and HEED_JWT_SECRET are two auth modes (tokens from an authorization server, or self-signed ones): set one of them."
      )
    }
    if (!settings.authRequired) {
      return yield* fail(
        "HEED_OAUTH_ISSUER requires auth: remove HEED_AUTH_REQUIRED=false (every request needs an access token in OAuth mode)."
      )
    }
    const issuer = yield* urlSetting("HEED_OAUTH_ISSUER", raw.issuer.trim())
    if (issuer.search !== "") return yield* fail("HEED_OAUTH_ISSUER must not have a query (RFC 8414).")
    const resourceText = raw.resource?.trim() ?? defaultResource(settings.host, settings.port)
    if (resourceText === undefined) {
      return yield* fail(
        `HEED_OAUTH_RESOURCE is required when the server listens on ${settings.host}:${settings.port}: set it to the URL clients reach this server at, e.g. https://heed.example.com (tokens must name it as their audience).`
      )
    }
    const resource = yield* urlSetting("HEED_OAUTH_RESOURCE", resourceText, true)
    if (resource.search !== "") return yield* fail("HEED_OAUTH_RESOURCE must not have a query (RFC 8707).")
    const jwksUri = raw.jwksUri === undefined ? undefined : yield* urlSetting("HEED_OAUTH_JWKS_URI", raw.jwksUri.trim())
    const ownerClaim = raw.ownerClaim.trim()
    if (ownerClaim === "") return yield* fail("HEED_OAUTH_OWNER_CLAIM must name a claim, such as sub or email.")
    if (raw.jwksCacheSec < 1) return yield* fail("HEED_OAUTH_JWKS_CACHE_SEC must be at least 1 second.")
    if (raw.jwksCooldownSec < 0) return yield* fail("HEED_OAUTH_JWKS_COOLDOWN_SEC must not be negative.")
    // A resource identifier without a path is written without the trailing slash the URL parser adds.
    const canonical = resource.pathname === "/" && !resourceText.endsWith("/") ? resource.origin : resource.href
    const audience = raw.audience
      .split(",")
      .map((value) => value.trim())
      .filter((value) => value !== "")
    const oauth: OAuth = {
      issuer: raw.issuer.trim(),
      resource: canonical,
      audience: audience.length > 0 ? audience : [canonical],
      ownerClaim,
      jwksUri: jwksUri?.href,
      jwksCacheMs: raw.jwksCacheSec * 1000,
      jwksCooldownMs: raw.jwksCooldownSec * 1000,
      fetchTimeoutMs: 5000
    }
    return { ...settings, oauth } satisfies Settings
  })
