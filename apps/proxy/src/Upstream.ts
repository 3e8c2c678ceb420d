/**
 * Requests to the upstream model server over `node:http`/`node:https`, so response bytes arrive exactly as sent
 * (no decompression, no re-encoding) and can be streamed to the client unchanged.
 *
 * @since 0.1.0
 */
import * as http from "node:http"
import * as https from "node:https"

/**
 * An upstream response whose body has not been read yet.
 *
 * @category models
 * @since 0.1.0
 */
export interface UpstreamResponse {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  readonly body: http.IncomingMessage
}

/**
 * Why an upstream request failed before a response arrived.
 *
 * @category errors
 * @since 0.1.0
 */
export class UpstreamError extends Error {
  readonly kind: "timeout" | "unreachable"
  constructor(kind: "timeout" | "unreachable", message: string) {
    super(message)
    this.kind = kind
  }
}

// Connection and framing headers are the proxy's own business on each hop; the rest goes through untouched.
const HOP = new Set([
  "host",
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "te",
  "trailer",
  "upgrade",
  "content-length",
  "x-heed-session"
])

/**
 * The request headers to forward: everything but hop-by-hop headers and `x-heed-session` (credentials such as
 * `authorization` and `x-api-key` go through untouched).
 *
 * @category combinators
 * @since 0.1.0
 */
export const forwardHeaders = (headers: Readonly<Record<string, string | undefined>>): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP.has(name.toLowerCase())) continue
    out[name] = value
  }
  return out
}

/**
 * The response headers to send back: the upstream's, minus hop-by-hop ones (and `content-length` when the proxy
 * may change the body).
 *
 * @category combinators
 * @since 0.1.0
 */
export const responseHeaders = (headers: http.IncomingHttpHeaders, keepLength: boolean): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue
    const lower = name.toLowerCase()
    if (lower === "content-length" ? !keepLength : HOP.has(lower) || lower === "set-cookie") continue
    out[lower] = Array.isArray(value) ? value.join(", ") : value
  }
  return out
}

/**
 * The upstream URL for a request path: the upstream base plus the path, dropping a repeated `/v1` (an upstream
 * given as `https://api.openai.com/v1` and a client calling `/v1/chat/completions`).
 *
 * @category combinators
 * @since 0.1.0
 */
export const target = (upstream: string, path: string): URL => {
  const base = upstream.replace(/\/+$/, "")
  const joined =
    base.endsWith("/v1") && (path === "/v1" || path.startsWith("/v1/")) ? base + path.slice(3) : base + path
  return new URL(joined)
}

// Connections to the upstream are reused (a TLS handshake per request would cost more than the proxy's own work).
const agents = {
  "http:": new http.Agent({ keepAlive: true, maxSockets: 256 }),
  "https:": new https.Agent({ keepAlive: true, maxSockets: 256 })
}

/**
 * Sends one request; resolves with the response head as soon as it arrives. `timeoutMs` bounds the wait for the
 * response head (a model that is still thinking sends nothing until then).
 *
 * @category constructors
 * @since 0.1.0
 */
export const send = (options: {
  readonly url: URL
  readonly method: string
  readonly headers: Record<string, string>
  readonly body: Uint8Array | undefined
  readonly timeoutMs: number
  readonly signal?: AbortSignal | undefined
}): Promise<UpstreamResponse> =>
  new Promise((resolve, reject) => {
    const client = options.url.protocol === "https:" ? https : http
    const headers: Record<string, string> = { ...options.headers }
    if (options.body !== undefined) headers["content-length"] = String(options.body.byteLength)
    const agent = options.url.protocol === "https:" ? agents["https:"] : agents["http:"]
    const request = client.request(options.url, { method: options.method, headers, agent })
    let settled = false
    const timer = setTimeout(() => {
      if (settled) return
      settled = true
      request.destroy()
      reject(
        new UpstreamError("timeout", `the upstream sent no response within ${Math.round(options.timeoutMs / 1000)} s`)
      )
    }, options.timeoutMs)
    const onAbort = () => request.destroy()
    options.signal?.addEventListener("abort", onAbort, { once: true })
    request.on("response", (response) => {
      clearTimeout(timer)
      if (settled) return response.resume()
      settled = true
      resolve({ status: response.statusCode ?? 502, headers: response.headers, body: response })
    })
    request.on("error", (error) => {
      clearTimeout(timer)
      if (settled) return
      settled = true
      reject(new UpstreamError("unreachable", `the upstream at ${options.url.origin} is unreachable: ${error.message}`))
    })
    request.end(options.body)
  })

/**
 * Reads a whole response body.
 *
 * @category getters
 * @since 0.1.0
 */
export const readAll = (body: http.IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    body.on("data", (chunk: Buffer) => chunks.push(chunk))
    body.on("end", () => resolve(Buffer.concat(chunks)))
    body.on("error", reject)
  })
