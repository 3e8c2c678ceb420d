/**
 * The WebSocket subprotocols of SLOP over WebSocket: `slop`, and `heed.bearer.<base64url token>` for consumers that
 * cannot set an `Authorization` header (browsers). Shared by the client and the server; no Node APIs.
 *
 * @since 0.1.0
 * @internal
 */

/** The subprotocol a SLOP consumer offers and the server selects. */
export const protocol = "slop"

/** The prefix of the subprotocol that carries a bearer token. */
export const bearerProtocolPrefix = "heed.bearer."

const toBase64Url = (text: string): string => {
  let binary = ""
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte)
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
}

const fromBase64Url = (encoded: string): string | undefined => {
  if (!/^[A-Za-z0-9_-]+$/.test(encoded)) return undefined
  try {
    const binary = atob(encoded.replace(/-/g, "+").replace(/_/g, "/"))
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0))
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes)
  } catch {
    return undefined
  }
}

/** The subprotocol that carries `token`. */
export const bearerProtocol = (token: string): string => `${bearerProtocolPrefix}${toBase64Url(token)}`

/** The bearer token among the subprotocols of a `Sec-WebSocket-Protocol` header value. */
export const tokenFromProtocols = (header: string | undefined): string | undefined => {
  if (header === undefined) return undefined
  for (const entry of header.split(",")) {
    const value = entry.trim()
    if (!value.startsWith(bearerProtocolPrefix)) continue
    const token = fromBase64Url(value.slice(bearerProtocolPrefix.length))
    if (token !== undefined && token !== "") return token
  }
  return undefined
}

/** `slop` when offered, else the first subprotocol that carries no token, else none. */
export const selectProtocol = (offered: Iterable<string>): string | false => {
  let fallback: string | false = false
  for (const candidate of offered) {
    if (candidate === protocol) return candidate
    if (fallback === false && !candidate.startsWith(bearerProtocolPrefix)) fallback = candidate
  }
  return fallback
}
