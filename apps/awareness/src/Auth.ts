/**
 * Who is calling: the owner of an HTTP request, from its bearer token, in one of two modes.
 *
 * - **Self-signed** (`HEED_JWT_SECRET`): HS256 tokens as upstream's `mcp-awareness-token` issues them, whose `sub` is
 *   the owner (see `Token`).
 * - **OAuth 2.1 resource server** (`HEED_OAUTH_ISSUER`): access tokens issued by an authorization server, verified with
 *   `jose` against the keys it publishes (its `jwks_uri`, discovered from its metadata, fetched again when a token
 *   names a key not seen yet and when the cache ages out). RS256, ES256 and EdDSA only; `iss` must be the issuer,
 *   `aud` must name this server's resource identifier, `exp` is required, and `exp`/`nbf` allow the clock skew. The
 *   owner is a configurable claim (`sub` by default). The server publishes its Protected Resource Metadata
 *   (RFC 9728) and names it in each `401`'s `WWW-Authenticate` challenge, as the MCP authorization specification
 *   asks, so MCP clients can find the authorization server.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Jose from "jose"
import type { OAuth, Settings } from "./Settings.ts"
import * as Token from "./Token.ts"

/**
 * A request refused: `401` (no token where one is required, or a token that is not valid here) or `503` (the
 * authorization server's metadata or keys could not be fetched, so no token can be checked now).
 *
 * @category errors
 * @since 0.1.0
 */
export class Refused extends Schema.TaggedError<Refused>()("Refused", {
  status: Schema.Literals([401, 503]),
  /** `missing_token` (no credentials: the challenge carries no error code), `invalid_token` or `unavailable`. */
  reason: Schema.Literals(["missing_token", "invalid_token", "unavailable"]),
  message: Schema.String
}) {}

/**
 * The algorithms accepted on OAuth access tokens. HMAC algorithms are never accepted there, so a token signed
 * with a public key used as an HMAC secret (algorithm confusion) is refused before any key is looked up.
 *
 * @category constants
 * @since 0.1.0
 */
export const algorithms: ReadonlyArray<Jose.JWSAlgorithm> = ["RS256", "ES256", "EdDSA"]

/**
 * The well-known path of Protected Resource Metadata (RFC 9728).
 *
 * @category constants
 * @since 0.1.0
 */
export const metadataPath = "/.well-known/oauth-protected-resource"

/**
 * The paths this server serves its Protected Resource Metadata at: {@link metadataPath}, and, when the resource
 * identifier has a path (`https://host/heed`), the path-suffixed form RFC 9728 derives from it
 * (`/.well-known/oauth-protected-resource/heed`).
 *
 * @category getters
 * @since 0.1.0
 */
export const metadataPaths = (resource: string): ReadonlyArray<string> => {
  const path = new URL(resource).pathname.replace(/\/$/, "")
  return path === "" ? [metadataPath] : [metadataPath, `${metadataPath}${path}`]
}

/**
 * The URL of the resource's metadata document, as a `WWW-Authenticate` challenge names it (RFC 9728 §3.1: the
 * well-known path inserted between the resource identifier's host and its path).
 *
 * @category getters
 * @since 0.1.0
 */
export const metadataUrl = (resource: string): string => {
  const url = new URL(resource)
  return `${url.origin}${metadataPaths(resource).at(-1)}`
}

/**
 * The Protected Resource Metadata document (RFC 9728) of a server in OAuth mode.
 *
 * @category getters
 * @since 0.1.0
 */
export const metadataDocument = (oauth: OAuth) => ({
  resource: oauth.resource,
  authorization_servers: [oauth.issuer],
  bearer_methods_supported: ["header"],
  resource_signing_alg_values_supported: [...algorithms],
  resource_name: "heed awareness"
})

/**
 * Where an issuer's metadata is looked for, in order (as MCP clients look): RFC 8414's
 * `/.well-known/oauth-authorization-server`, then OpenID Connect's `/.well-known/openid-configuration`; for an
 * issuer with a path, the well-known part is inserted before the path, and OpenID Connect's appended form is tried
 * last.
 *
 * @category getters
 * @since 0.1.0
 */
export const discoveryUrls = (issuer: string): ReadonlyArray<string> => {
  const url = new URL(issuer)
  const path = url.pathname.replace(/\/$/, "")
  if (path === "") {
    return [`${url.origin}/.well-known/oauth-authorization-server`, `${url.origin}/.well-known/openid-configuration`]
  }
  return [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}/.well-known/openid-configuration${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`
  ]
}

const unavailable = (message: string) => new Refused({ status: 503, reason: "unavailable", message })
const invalid = (message: string) => new Refused({ status: 401, reason: "invalid_token", message })
const missing = new Refused({ status: 401, reason: "missing_token", message: "A valid bearer token is required." })

const describeCause = (cause: unknown): string => {
  if (cause instanceof Error) {
    const inner = (cause as { cause?: unknown }).cause
    return inner instanceof Error ? `${cause.message} (${inner.message})` : cause.message
  }
  return String(cause)
}

/** GETs a JSON document, with a timeout; redirects are not followed. */
const getJson = async (
  url: string,
  timeoutMs: number
): Promise<{ readonly status: number; readonly body: unknown }> => {
  const response = await globalThis.fetch(url, {
    headers: { accept: "application/json" },
    redirect: "manual",
    signal: AbortSignal.timeout(timeoutMs)
  })
  if (response.status !== 200) {
    await response.body?.cancel()
    return { status: response.status, body: undefined }
  }
  return { status: 200, body: await response.json() }
}

const isLoopbackHttp = (url: URL) =>
  url.protocol === "http:" && ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname)

/**
 * Finds the issuer's `jwks_uri` in its metadata ({@link discoveryUrls}). A document whose `issuer` is not the
 * configured one is refused (RFC 8414 §3.3), as is a `jwks_uri` that is neither https nor on loopback.
 */
const discover = async (oauth: OAuth): Promise<URL> => {
  const tried: Array<string> = []
  for (const url of discoveryUrls(oauth.issuer)) {
    const { body, status } = await getJson(url, oauth.fetchTimeoutMs)
    if (status !== 200) {
      tried.push(`${url} answered ${status}`)
      continue
    }
    const metadata = (typeof body === "object" && body !== null ? body : {}) as { issuer?: unknown; jwks_uri?: unknown }
    if (metadata.issuer !== oauth.issuer) {
      throw new DiscoveryFailure(
        `the metadata at ${url} names the issuer ${JSON.stringify(metadata.issuer)}, not ${JSON.stringify(oauth.issuer)}`
      )
    }
    if (typeof metadata.jwks_uri !== "string") throw new DiscoveryFailure(`the metadata at ${url} has no jwks_uri`)
    const jwks = new URL(metadata.jwks_uri)
    if (jwks.protocol !== "https:" && !isLoopbackHttp(jwks)) {
      throw new DiscoveryFailure(`the jwks_uri ${jwks.href} is not https`)
    }
    return jwks
  }
  throw new DiscoveryFailure(`no authorization server metadata found (${tried.join("; ")})`)
}

class DiscoveryFailure extends Error {}

/**
 * Why a token failed `jose`'s checks, as a `401` (the token is not valid here) or a `503` (the keys could not be
 * fetched).
 */
const refusalOf = (cause: unknown, oauth: OAuth): Refused => {
  if (!(cause instanceof Jose.errors.JOSEError))
    return unavailable(`the issuer's keys could not be fetched: ${describeCause(cause)}`)
  if (cause instanceof Jose.errors.JWTExpired) return invalid("The access token has expired.")
  if (cause instanceof Jose.errors.JWTClaimValidationFailed) {
    switch (cause.claim) {
      case "aud":
        return invalid(`The access token's audience (aud) does not name this server (${oauth.audience.join(", ")}).`)
      case "iss":
        return invalid(`The access token's issuer (iss) is not ${oauth.issuer}.`)
      case "nbf":
        return invalid("The access token is not valid yet (nbf).")
      default:
        return invalid(`The access token's ${cause.claim} claim is invalid: ${cause.message}.`)
    }
  }
  if (cause instanceof Jose.errors.JOSEAlgNotAllowed) {
    return invalid(`The access token's algorithm is not accepted (only ${algorithms.join(", ")}).`)
  }
  if (cause instanceof Jose.errors.JWKSNoMatchingKey) {
    return invalid("No key of the issuer matches the access token (unknown kid).")
  }
  if (cause instanceof Jose.errors.JWSSignatureVerificationFailed) {
    return invalid("The access token's signature is not valid.")
  }
  if (cause instanceof Jose.errors.JWKSTimeout) return unavailable("The issuer's keys could not be fetched in time.")
  if (cause instanceof Jose.errors.JWKSInvalid) return unavailable(`The issuer's key set is invalid: ${cause.message}`)
  // ERR_JOSE_GENERIC: the key set's fetch did not answer 200
  if (cause.code === "ERR_JOSE_GENERIC") return unavailable(`The issuer's keys could not be fetched: ${cause.message}`)
  return invalid(`The access token is not valid: ${cause.message}`)
}

/**
 * The OAuth verifier: discovers the key set once (retrying on the next request after a failure), then verifies
 * each token with `jose`'s remote key set (cached for `jwksCacheMs`, fetched again for an unknown `kid` once the
 * cooldown has passed).
 */
const oauthVerifier = (oauth: OAuth, clockSkewSec: number) => {
  let keys: Promise<Jose.RemoteJWKSet> | undefined
  const keySet = (): Promise<Jose.RemoteJWKSet> => {
    if (keys === undefined) {
      const found = (oauth.jwksUri === undefined ? discover(oauth) : Promise.resolve(new URL(oauth.jwksUri))).then(
        (url) =>
          Jose.createRemoteJWKSet(url, {
            cacheMaxAge: oauth.jwksCacheMs,
            cooldownDuration: oauth.jwksCooldownMs,
            timeoutDuration: oauth.fetchTimeoutMs
          })
      )
      keys = found
      // a failed discovery is tried again by the next request
      found.catch(() => {
        if (keys === found) keys = undefined
      })
    }
    return keys
  }
  return (token: string, nowMs: number): Effect.Effect<string, Refused> =>
    Effect.tryPromise({
      try: () => keySet(),
      catch: (cause) =>
        unavailable(
          cause instanceof DiscoveryFailure
            ? `The authorization server's metadata is unusable: ${cause.message}.`
            : `The authorization server's metadata could not be fetched: ${describeCause(cause)}.`
        )
    }).pipe(
      Effect.flatMap((jwks) =>
        Effect.tryPromise({
          try: () =>
            Jose.jwtVerify(token, jwks, {
              algorithms: [...algorithms],
              issuer: oauth.issuer,
              audience: [...oauth.audience],
              clockTolerance: clockSkewSec,
              currentDate: new Date(nowMs),
              requiredClaims: ["exp"]
            }),
          catch: (cause) => refusalOf(cause, oauth)
        })
      ),
      Effect.flatMap(({ payload }) => {
        const owner = payload[oauth.ownerClaim]
        return typeof owner === "string" && owner !== ""
          ? Effect.succeed(owner)
          : Effect.fail(
              invalid(`The access token has no ${oauth.ownerClaim} claim naming its owner (a non-empty string).`)
            )
      })
    )
}

/**
 * The authentication of HTTP requests.
 *
 * @category services
 * @since 0.1.0
 */
export class Auth extends Context.Service<
  Auth,
  {
    /** Whether every request needs a valid token (else requests without one belong to the default owner). */
    readonly required: boolean
    /**
     * The owner of a request with this `Authorization` header value: its token's owner; the default owner when no
     * token is sent and auth is not required; a token that is sent is always checked.
     */
    readonly ownerOf: (authorization: string | undefined) => Effect.Effect<string, Refused>
    /** The `WWW-Authenticate` challenge of a `401`. */
    readonly challenge: (refused: Refused) => string
    /** The Protected Resource Metadata document (OAuth mode only). */
    readonly metadata: Option.Option<ReturnType<typeof metadataDocument>>
  }
>()("@heed/awareness/Auth") {}

/** A quoted-string of an auth-param (RFC 9110 §5.6.4). */
const quoted = (value: string) => `"${value.replace(/["\\]/g, "\\$&")}"`

/**
 * The authentication the settings describe: OAuth when `settings.oauth` is set, else self-signed HS256 tokens when
 * a secret is set, else none (every request is the default owner's; a token sent anyway is refused).
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (settings: Settings): Auth["Service"] => {
  const oauth = settings.oauth
  const required = oauth !== undefined || settings.authRequired
  const params = (refused: Refused): Array<string> =>
    refused.reason === "invalid_token" ? [`error="invalid_token"`, `error_description=${quoted(refused.message)}`] : []
  if (oauth !== undefined) {
    const verify = oauthVerifier(oauth, settings.clockSkewSec)
    const resourceMetadata = `resource_metadata=${quoted(metadataUrl(oauth.resource))}`
    return {
      required,
      ownerOf: (authorization) => {
        const token = Token.fromAuthorization(authorization)
        if (token === undefined) return Effect.fail(missing)
        return Effect.flatMap(Clock.currentTimeMillis, (now) => verify(token, now))
      },
      challenge: (refused) => `Bearer ${[resourceMetadata, ...params(refused)].join(", ")}`,
      metadata: Option.some(metadataDocument(oauth))
    }
  }
  return {
    required,
    ownerOf: (authorization) => {
      const token = Token.fromAuthorization(authorization)
      if (token === undefined) return required ? Effect.fail(missing) : Effect.succeed(settings.defaultOwner)
      // without a secret there is nothing to check a token with: it is ignored (auth is off)
      if (Option.isNone(settings.secret)) {
        return required ? Effect.fail(invalid("No signing secret is set.")) : Effect.succeed(settings.defaultOwner)
      }
      const secret = Redacted.value(settings.secret.value)
      return Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const verdict = Token.verify(token, secret, Math.floor(now / 1000), settings.clockSkewSec)
        return verdict.ok
          ? Effect.succeed(verdict.claims.sub)
          : Effect.fail(invalid(`The bearer token is not valid (${verdict.reason.replaceAll("_", " ")}).`))
      })
    },
    challenge: (refused) => `Bearer ${['realm="heed-awareness"', ...params(refused)].join(", ")}`,
    metadata: Option.none()
  }
}

/**
 * {@link make} as a layer.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (settings: Settings): Layer.Layer<Auth> => Layer.sync(Auth, () => make(settings))
