/**
 * The edge of the MCP endpoint, in front of effect/ai's Streamable HTTP transport: a request-body limit (413),
 * JSON-RPC framing checks (a parse error or an invalid request answers 400, ids must be strings or safe integers so
 * they round-trip exactly, a notification answers 202 with no body), error objects without internal `_tag`s,
 * session limits (idle sessions expire; a per-owner cap answers 429; at the server's cap each owner gets a fair
 * share: the owner holding the most gives up its least recently used session, else 503 with a clear error), and briefing
 * notifications delivered to their audience only: a `notifications/resources/updated` tagged with an owner's
 * audience (`BriefingNotifier.audienceKey`) reaches the responses and streams of that owner's requests, without
 * the tag, and no one else's.
 *
 * @since 0.1.0
 */
import { BriefingNotifier } from "@heed/mcp"
import * as ByteSize from "effect/ByteSize"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type * as HttpBody from "effect/http/HttpBody"
import * as HttpEffect from "effect/http/HttpEffect"
import * as HttpIncomingMessage from "effect/http/HttpIncomingMessage"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Predicate from "effect/Predicate"
import * as Stream from "effect/Stream"

/**
 * Limits of the guard.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /** The MCP endpoint's path (default `/mcp`). */
  readonly path?: string | undefined
  /** The largest request body accepted, in bytes; larger ones get 413. */
  readonly maxBodyBytes: number
  /** A session without requests for this long is ended (0 disables expiry). */
  readonly sessionIdleMs: number
  /**
   * The most sessions open at once. At the cap, an `initialize` from an owner holding fewer sessions than the owner
   * holding the most ends that owner's least recently used session (its client gets 404 and initializes again), so
   * one owner never locks the others out; otherwise it gets 503.
   */
  readonly maxSessions: number
  /** The most sessions one owner may hold (default: no cap of its own); an `initialize` beyond it gets 429. */
  readonly maxSessionsPerOwner?: number | undefined
  /**
   * The owner of a request, from its `Authorization` header (default: everyone is one owner). An Effect, because
   * verifying a token may fetch the issuer's keys (OAuth); `undefined` counts as one anonymous owner.
   */
  readonly ownerOf?: ((authorization: string | undefined) => Effect.Effect<string | undefined>) | undefined
  /**
   * The largest reply sent, in bytes; a larger tool result becomes a `response_too_large` tool error asking for a
   * smaller page (default 4 MiB).
   */
  readonly maxResponseBytes?: number | undefined
  /**
   * The audience of a request's briefing notifications, from its `Authorization` header (the owner's
   * `Backend.audienceFor`); `undefined` receives only untagged notifications. Without it nothing is filtered.
   */
  readonly audienceOf?: ((authorization: string | undefined) => Effect.Effect<string | undefined>) | undefined
}

interface Session {
  lastSeen: number
  readonly protocolVersion: string | undefined
  readonly owner: string
}

const SESSION = "mcp-session-id"
const VERSION = "mcp-protocol-version"

/** A JSON-RPC error answer, without the transport's internal fields. */
const rpcError = (status: number, id: unknown, code: number, message: string, headers: Record<string, string> = {}) =>
  HttpServerResponse.jsonUnsafe({ jsonrpc: "2.0", id: id ?? null, error: { code, message } }, { status, headers })

const isId = (id: unknown): id is string | number =>
  typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id))

/** Why a single JSON-RPC message is invalid, or `undefined` when it is well-formed. */
export const invalidReason = (message: unknown): string | undefined => {
  if (typeof message !== "object" || message === null || Array.isArray(message)) {
    return "a JSON-RPC message must be a JSON object"
  }
  const fields = message as Record<string, unknown>
  if (fields.jsonrpc !== "2.0") return 'field "jsonrpc" must be "2.0"'
  if ("id" in fields && !isId(fields.id))
    return 'field "id" must be a string or a safe integer (not null, not a fraction)'
  if (fields.method === undefined) {
    return "id" in fields && ("result" in fields || "error" in fields)
      ? undefined
      : 'field "method" is required (a string)'
  }
  if (typeof fields.method !== "string") return 'field "method" must be a string'
  if ("params" in fields && (typeof fields.params !== "object" || fields.params === null)) {
    return 'field "params" must be an object'
  }
  return undefined
}

/** Removes the transport's internal `_tag` from JSON-RPC error objects in a JSON or SSE body. */
export const withoutTags = (text: string): string =>
  text.includes('"_tag"')
    ? text
        .split("\n")
        .map((line) => {
          const prefix = line.startsWith("data: ") ? "data: " : ""
          const json = line.slice(prefix.length)
          if (!json.startsWith("{") && !json.startsWith("[")) return line
          try {
            return prefix + JSON.stringify(JSON.parse(json), (key, value) => (key === "_tag" ? undefined : value))
          } catch {
            return line
          }
        })
        .join("\n")
    : text

/** A body's text: the text it was made from when it kept it, else its bytes decoded. */
const textOf = (body: HttpBody.Uint8Array): string => body.text ?? new TextDecoder().decode(body.body)

/** Whether a body contains the ASCII `needle`, looked up in its bytes (most replies are never decoded). */
const mentions = (body: HttpBody.Uint8Array, needle: string): boolean =>
  body.text !== undefined
    ? body.text.includes(needle)
    : Buffer.from(body.body.buffer, body.body.byteOffset, body.body.byteLength).includes(needle)

const { audienceKey } = BriefingNotifier

/** A JSON-RPC message's audience tag, when it has one. */
const audienceTag = (message: unknown): { readonly audience: unknown; readonly params: object } | undefined => {
  if (!Predicate.isObject(message) || !Predicate.isObject((message as { params?: unknown }).params)) return undefined
  const params = (message as { params: object }).params
  const meta = (params as { _meta?: unknown })._meta
  return Predicate.isObject(meta) && audienceKey in meta
    ? { audience: (meta as Record<string, unknown>)[audienceKey], params }
    : undefined
}

/**
 * The messages of a JSON or SSE body that `audience` may see: a message tagged for another audience is dropped, and
 * the tag is removed from the others. Untagged messages pass unchanged.
 */
export const forAudience = (text: string, audience: string | undefined): string =>
  text.includes(audienceKey)
    ? text
        .split("\n")
        .flatMap((line) => {
          const prefix = line.startsWith("data: ") ? "data: " : ""
          const json = line.slice(prefix.length)
          if (!json.includes(audienceKey)) return [line]
          let message: unknown
          try {
            message = JSON.parse(json)
          } catch {
            return [line]
          }
          const tagged = audienceTag(message)
          if (tagged === undefined) return [line]
          if (tagged.audience !== audience) return []
          const { [audienceKey]: _audience, ...meta } = (tagged.params as { _meta: Record<string, unknown> })._meta
          const { _meta: _previous, ...params } = tagged.params as Record<string, unknown>
          return [
            prefix +
              JSON.stringify({
                ...(message as object),
                params: Object.keys(meta).length > 0 ? { ...params, _meta: meta } : params
              })
          ]
        })
        .join("\n")
    : text

/** The response with its messages filtered by {@link forAudience} (a streamed body chunk by chunk). */
const addressed = (response: HttpServerResponse.HttpServerResponse, audience: string | undefined) => {
  const body = response.body
  if (body._tag === "Stream") {
    const decoder = new TextDecoder()
    const encoder = new TextEncoder()
    // The transport writes whole messages per chunk (its own SSE framing relies on that).
    const filtered = Stream.map(body.stream, (chunk) => {
      const text = decoder.decode(chunk)
      const kept = forAudience(text, audience)
      return kept === text ? chunk : encoder.encode(kept)
    })
    return HttpServerResponse.stream(filtered, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
      cookies: response.cookies,
      contentType: body.contentType
    })
  }
  if (body._tag !== "Uint8Array" || !mentions(body, audienceKey)) return response
  const text = textOf(body)
  const kept = forAudience(text, audience)
  if (kept === text) return response
  return HttpServerResponse.text(kept, {
    status: response.status,
    headers: response.headers,
    contentType: body.contentType
  })
}

/** A reply over the size limit, replaced by a tool error (tools) or a JSON-RPC error (anything else). */
const tooLargeReply = (
  response: HttpServerResponse.HttpServerResponse,
  message: Record<string, unknown>,
  size: number,
  limit: number
) => {
  const text =
    `The reply is ${size} bytes, over this server's limit of ${limit} bytes (HEED_MAX_RESPONSE_BYTES): ` +
    'ask for less, e.g. a smaller limit with offset to page, mode "list", or narrower filters.'
  const body =
    message.method === "tools/call"
      ? {
          jsonrpc: "2.0",
          id: message.id,
          result: {
            isError: true,
            content: [
              {
                type: "text",
                text: JSON.stringify({
                  status: "error",
                  error: { code: "response_too_large", message: text, retryable: false, param: "limit" }
                })
              }
            ]
          }
        }
      : { jsonrpc: "2.0", id: message.id, error: { code: -32000, message: text } }
  return HttpServerResponse.jsonUnsafe(body, { status: response.status, headers: response.headers })
}

/** Caps a single JSON reply's size (large reads must page; a client cannot make the server hold huge replies). */
const bounded = (response: HttpServerResponse.HttpServerResponse, message: Record<string, unknown>, limit: number) =>
  response.body._tag === "Uint8Array" && response.body.contentLength > limit
    ? tooLargeReply(response, message, response.body.contentLength, limit)
    : response

const cleaned = (response: HttpServerResponse.HttpServerResponse) => {
  if (response.body._tag !== "Uint8Array" || !mentions(response.body, '"_tag"')) return response
  const text = textOf(response.body)
  const fixed = withoutTags(text)
  if (fixed === text) return response
  return HttpServerResponse.text(fixed, {
    status: response.status,
    headers: response.headers,
    contentType: response.body.contentType
  })
}

/** The request as a DELETE of `session` (used to end an expired session through the transport's own route). */
const asDelete = (request: HttpServerRequest.HttpServerRequest, id: string, session: Session) => {
  const headers: Record<string, string> = { ...request.headers, [SESSION]: id }
  delete headers["content-length"]
  delete headers["content-type"]
  if (session.protocolVersion === undefined) delete headers[VERSION]
  else headers[VERSION] = session.protocolVersion
  return Object.create(request, {
    method: { value: "DELETE" },
    headers: { value: headers }
  }) as HttpServerRequest.HttpServerRequest
}

/** The transport the guard wraps: effect/ai's Streamable HTTP route. */
type Transport = Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, HttpServerRequest.HttpServerRequest>

/** The guard's limits, its open sessions and the transport, shared by the steps below. */
interface Guard {
  readonly options: Options
  readonly path: string
  readonly sessions: Map<string, Session>
  readonly transport: Transport
}

const tooLarge = (options: Options) =>
  rpcError(
    413,
    null,
    -32600,
    `Request body too large: the limit is ${options.maxBodyBytes} bytes (HEED_MAX_BODY_BYTES).`,
    { connection: "close" }
  )

const isExpired = (options: Options, session: Session, now: number) =>
  options.sessionIdleMs > 0 && now - session.lastSeen >= options.sessionIdleMs

/** Ends a session through the transport's own DELETE route, then forgets it. */
const end = (g: Guard, request: HttpServerRequest.HttpServerRequest, id: string, session: Session) =>
  Effect.provideService(g.transport, HttpServerRequest.HttpServerRequest, asDelete(request, id, session)).pipe(
    Effect.ignore,
    Effect.andThen(Effect.sync(() => g.sessions.delete(id)))
  )

/** Ends every idle session. */
const sweep = (g: Guard, request: HttpServerRequest.HttpServerRequest, now: number) =>
  Effect.forEach(
    [...g.sessions].filter(([, session]) => isExpired(g.options, session, now)),
    ([id, session]) => end(g, request, id, session),
    { discard: true }
  )

/** How many sessions each owner holds. */
const holdings = (sessions: ReadonlyMap<string, { readonly owner: string }>): Map<string, number> => {
  const counts = new Map<string, number>()
  for (const session of sessions.values()) counts.set(session.owner, (counts.get(session.owner) ?? 0) + 1)
  return counts
}

/**
 * The session to end so `owner` gets its fair share of a full server: the least recently used session of the owner
 * holding the most, when it holds two more than `owner` does (ties: the earliest opened); else none.
 */
const fairShareVictim = <S extends { readonly owner: string; readonly lastSeen: number }>(
  sessions: ReadonlyMap<string, S>,
  owner: string
): string | undefined => {
  const counts = holdings(sessions)
  let heaviest: string | undefined
  let most = 0
  for (const [holder, count] of counts) {
    if (count > most) {
      heaviest = holder
      most = count
    }
  }
  if (heaviest === undefined || heaviest === owner || most < (counts.get(owner) ?? 0) + 2) return undefined
  let victim: string | undefined
  let oldest = Number.POSITIVE_INFINITY
  for (const [id, session] of sessions) {
    if (session.owner === heaviest && session.lastSeen < oldest) {
      victim = id
      oldest = session.lastSeen
    }
  }
  return victim
}

/**
 * An `initialize` without a session: idle sessions end first; an owner over its own cap is refused with 429; at
 * the server's cap the owner holding the most gives up its least recently used session when that is fair (see
 * {@link fairShareVictim}), else the request is refused with 503; the session the transport opens is recorded.
 */
const initialize = Effect.fnUntraced(function* (
  g: Guard,
  request: HttpServerRequest.HttpServerRequest,
  id: unknown,
  now: number
) {
  yield* sweep(g, request, now)
  const owner =
    (g.options.ownerOf === undefined ? undefined : yield* g.options.ownerOf(request.headers.authorization)) ?? ""
  const perOwner = g.options.maxSessionsPerOwner
  if (perOwner !== undefined && (holdings(g.sessions).get(owner) ?? 0) >= perOwner) {
    return rpcError(
      429,
      id,
      -32000,
      `Too many open sessions for this owner (the limit is ${perOwner} per owner, HEED_MAX_SESSIONS_PER_OWNER): end unused ones with DELETE ${g.path} or retry after idle ones expire.`,
      { "retry-after": "60" }
    )
  }
  if (g.sessions.size >= g.options.maxSessions) {
    const victim = fairShareVictim(g.sessions, owner)
    const session = victim === undefined ? undefined : g.sessions.get(victim)
    if (victim === undefined || session === undefined) {
      return rpcError(
        503,
        id,
        -32000,
        `Too many open sessions (the limit is ${g.options.maxSessions}, HEED_MAX_SESSIONS): end unused ones with DELETE ${g.path} or retry after idle ones expire.`,
        { "retry-after": "60" }
      )
    }
    yield* end(g, request, victim, session)
  }
  const response = cleaned(yield* g.transport)
  // The transport adds the session header in its own pre-response handler, which runs before this one.
  yield* HttpEffect.appendPreResponseHandler((_, final) =>
    Effect.sync(() => {
      const created = final.headers[SESSION]
      if (created !== undefined) {
        g.sessions.set(created, { lastSeen: now, protocolVersion: final.headers[VERSION], owner })
      }
      return final
    })
  )
  return response
})

/** The transport's reply, with the briefing notifications it carries filtered for the request's audience. */
const reply = Effect.fnUntraced(function* (g: Guard, request: HttpServerRequest.HttpServerRequest) {
  const response = yield* g.transport
  if (g.options.audienceOf === undefined) return response
  return addressed(response, yield* g.options.audienceOf(request.headers.authorization))
})

/**
 * A POST: the body within the size limit, JSON-RPC framing checked (batches pass through), a notification answered
 * 202 with no body, a reply over the size limit replaced by an error.
 */
const post = Effect.fnUntraced(function* (g: Guard, request: HttpServerRequest.HttpServerRequest, now: number) {
  const { options } = g
  const declared = Number(request.headers["content-length"] ?? 0)
  if (declared > options.maxBodyBytes) return tooLarge(options)
  const body = yield* request.text.pipe(
    Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(options.maxBodyBytes)),
    Effect.option
  )
  if (body._tag === "None") return tooLarge(options)
  let message: unknown
  try {
    message = JSON.parse(body.value)
  } catch (cause) {
    return rpcError(400, null, -32700, `Parse error: the body is not JSON (${(cause as Error).message})`)
  }
  if (Array.isArray(message)) return cleaned(yield* reply(g, request))
  const invalid = invalidReason(message)
  const fields = message as Record<string, unknown>
  if (invalid !== undefined) {
    return rpcError(400, isId(fields?.id) ? fields.id : null, -32600, `Invalid Request: ${invalid}`)
  }
  if (request.headers[SESSION] === undefined && fields.method === "initialize") {
    return yield* initialize(g, request, fields.id, now)
  }
  if (!("id" in fields)) {
    return yield* g.transport.pipe(Effect.ignore, Effect.as(HttpServerResponse.empty({ status: 202 })))
  }
  return bounded(cleaned(yield* reply(g, request)), fields, options.maxResponseBytes ?? 4 * 1024 * 1024)
})

/** One request: off the MCP path it passes through; on it, an expired session answers 404 and is ended. */
const handle = (g: Guard) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    if (!(request.url === g.path || request.url.startsWith(`${g.path}?`))) return yield* g.transport
    // Idle time is measured on the monotonic clock: a wall-clock jump must not end sessions.
    const now = Number((yield* Clock.monotonicTimeNanos) / 1_000_000n)
    const sessionId = request.headers[SESSION]
    const session = sessionId === undefined ? undefined : g.sessions.get(sessionId)
    if (sessionId !== undefined && session !== undefined) {
      if (isExpired(g.options, session, now)) {
        yield* end(g, request, sessionId, session)
        return rpcError(
          404,
          null,
          -32001,
          `Session expired after ${Math.round(g.options.sessionIdleMs / 1000)} s without requests (HEED_SESSION_IDLE_SEC): send a new initialize.`
        )
      }
      session.lastSeen = now
    }
    if (request.method === "DELETE") {
      const response = yield* g.transport
      if (sessionId !== undefined && response.status < 300) g.sessions.delete(sessionId)
      return response
    }
    if (request.method !== "POST") return yield* g.transport
    return yield* post(g, request, now)
  })

/**
 * The guard as global HTTP middleware (it acts on the MCP path only).
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options: Options) =>
  HttpRouter.middleware(
    Effect.sync(() => {
      const path = options.path ?? "/mcp"
      const sessions = new Map<string, Session>()
      return (transport: Transport) => handle({ options, path, sessions, transport })
    }),
    { global: true }
  )
