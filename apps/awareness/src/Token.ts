/**
 * Self-signed HS256 bearer tokens (JWT) whose `sub` is the owner id, as upstream's `mcp-awareness-token`
 * issues them. Signing and verification use node:crypto only.
 *
 * @since 0.1.0
 */
import { createHmac, timingSafeEqual } from "node:crypto"

/**
 * The claims heed reads.
 *
 * @category models
 * @since 0.1.0
 */
export interface Claims {
  readonly sub: string
  readonly iat: number
  readonly exp?: number | undefined
  /** Not before: the token is refused until this time (seconds since the epoch). */
  readonly nbf?: number | undefined
}

const base64url = (input: Buffer | string): string => Buffer.from(input).toString("base64url")

const signature = (data: string, secret: string): Buffer => createHmac("sha256", secret).update(data).digest()

/**
 * Signs a token for `sub`, valid for `expiresInSec` seconds from `nowSec` (no `exp` when `expiresInSec` is
 * undefined).
 *
 * @category constructors
 * @since 0.1.0
 */
export const sign = (options: {
  readonly sub: string
  readonly secret: string
  readonly nowSec: number
  readonly expiresInSec?: number | undefined
}): string => {
  const header = base64url(JSON.stringify({ alg: "HS256", typ: "JWT" }))
  const claims: Claims = {
    sub: options.sub,
    iat: options.nowSec,
    ...(options.expiresInSec === undefined ? {} : { exp: options.nowSec + options.expiresInSec })
  }
  const payload = base64url(JSON.stringify(claims))
  return `${header}.${payload}.${base64url(signature(`${header}.${payload}`, options.secret))}`
}

/**
 * Why a token was refused.
 *
 * @category models
 * @since 0.1.0
 */
export type Refusal =
  | "malformed"
  | "bad_signature"
  | "unsupported_algorithm"
  | "expired"
  | "not_yet_valid"
  | "bad_time_claim"
  | "no_subject"

/**
 * The clock skew allowed by default when checking `exp` and `nbf`, in seconds.
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultSkewSec = 30

/** A time claim is absent or a finite number; anything else (a string such as "1", null, NaN) is refused. */
const timeClaim = (value: unknown): number | undefined | null =>
  value === undefined ? undefined : typeof value === "number" && Number.isFinite(value) ? value : null

/**
 * Verifies a token: HS256 only (a token claiming `none` or another algorithm is refused), constant-time signature
 * comparison, non-empty string `sub` required. `exp` and `nbf`, when present, must be numbers (a string such as
 * `"1"` is refused rather than ignored) and are checked against `nowSec` with `skewSec` of tolerance either way
 * (default {@link defaultSkewSec}).
 *
 * @category constructors
 * @since 0.1.0
 */
export const verify = (
  token: string,
  secret: string,
  nowSec: number,
  skewSec: number = defaultSkewSec
): { readonly ok: true; readonly claims: Claims } | { readonly ok: false; readonly reason: Refusal } => {
  const parts = token.split(".")
  if (parts.length !== 3) return { ok: false, reason: "malformed" }
  const [header, payload, sig] = parts as [string, string, string]
  let headerJson: unknown
  let claims: unknown
  try {
    headerJson = JSON.parse(Buffer.from(header, "base64url").toString("utf8"))
    claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"))
  } catch {
    return { ok: false, reason: "malformed" }
  }
  if (typeof headerJson !== "object" || headerJson === null || (headerJson as { alg?: unknown }).alg !== "HS256") {
    return { ok: false, reason: "unsupported_algorithm" }
  }
  const expected = signature(`${header}.${payload}`, secret)
  const given = Buffer.from(sig, "base64url")
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return { ok: false, reason: "bad_signature" }
  if (typeof claims !== "object" || claims === null) return { ok: false, reason: "malformed" }
  const { iat, sub } = claims as { sub?: unknown; iat?: unknown }
  if (typeof sub !== "string" || sub === "") return { ok: false, reason: "no_subject" }
  const exp = timeClaim((claims as { exp?: unknown }).exp)
  const nbf = timeClaim((claims as { nbf?: unknown }).nbf)
  if (exp === null || nbf === null) return { ok: false, reason: "bad_time_claim" }
  if (exp !== undefined && nowSec - skewSec >= exp) return { ok: false, reason: "expired" }
  if (nbf !== undefined && nowSec + skewSec < nbf) return { ok: false, reason: "not_yet_valid" }
  return {
    ok: true,
    claims: {
      sub,
      iat: typeof iat === "number" ? iat : 0,
      ...(exp === undefined ? {} : { exp }),
      ...(nbf === undefined ? {} : { nbf })
    }
  }
}

/**
 * Parses a duration such as `30d`, `12h`, `45m`, `90s`, `2w` or `1y` into seconds; `never` gives `undefined`
 * (a token without expiry). Returns `null` when the text is not a duration.
 *
 * @category constructors
 * @since 0.1.0
 */
export const parseDuration = (text: string): number | undefined | null => {
  const trimmed = text.trim().toLowerCase()
  if (trimmed === "never") return undefined
  const match = /^(\d+)\s*([smhdwy])$/.exec(trimmed)
  if (match === null) return null
  const units: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800, y: 31_536_000 }
  const value = Number(match[1]) * units[match[2]!]!
  return value > 0 ? value : null
}

/**
 * Reads the bearer token out of an `Authorization` header value.
 *
 * @category getters
 * @since 0.1.0
 */
export const fromAuthorization = (header: string | undefined): string | undefined => {
  if (header === undefined) return undefined
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
  return match === null ? undefined : match[1]
}
