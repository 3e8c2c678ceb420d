/**
 * The proxy's HTTP application: `POST /v1/chat/completions` (OpenAI) and `POST /v1/messages` (Anthropic) with
 * context management, every other path passed through untouched, `GET /sessions/{id}`, `GET /metrics` and
 * `GET /health`.
 *
 * A request whose plan collapses nothing goes upstream byte for byte and its response comes back byte for byte.
 * Otherwise the rewritten request carries the `heed_expand` tool; when the model calls it, the proxy restores the
 * efforts asked for and asks again, so the client only sees the final answer (JSON and streamed).
 *
 * @since 0.1.0
 */
import { createHash } from "node:crypto"
import * as Effect from "effect/Effect"
import * as HttpRouter from "effect/http/HttpRouter"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as ContextPlan from "./ContextPlan.ts"
import * as Metrics from "./Metrics.ts"
import * as Protocol from "./Protocol.ts"
import * as SessionState from "./SessionState.ts"
import { SessionStore, type SessionStoreShape } from "./SessionStore.ts"
import * as Transcript from "./Transcript.ts"
import * as Upstream from "./Upstream.ts"

/**
 * The proxy's settings.
 *
 * @category models
 * @since 0.1.0
 */
export interface ProxySettings {
  /** The model server's base URL, e.g. `https://api.anthropic.com` or `http://127.0.0.1:11434`. */
  readonly upstream: string
  /** How long to wait for the upstream's response head (default 600 s). */
  readonly timeoutMs: number
  readonly plan: ContextPlan.PlanConfig
}

/**
 * The most upstream requests one client request may cause (the first and the `heed_expand` follow-ups).
 *
 * @category constants
 * @since 0.1.0
 */
export const MAX_ROUNDS = 4

/**
 * The session key of a request: the `x-heed-session` header, else the first 16 hex digits of a SHA-256 over the
 * system prompt and the first user message.
 *
 * @category getters
 * @since 0.1.0
 */
export const sessionKey = (header: string | undefined, transcript: Transcript.Transcript): string =>
  header !== undefined && header.length > 0
    ? header.slice(0, 200)
    : createHash("sha256")
        .update(`${transcript.api}\u0000${transcript.system.join("\n")}\u0000${transcript.firstUser}`)
        .digest("hex")
        .slice(0, 16)

/**
 * The running proxy's services.
 *
 * @category models
 * @since 0.1.0
 */
export interface Runtime {
  readonly settings: ProxySettings
  readonly engine: ContextPlan.Engine
  readonly store: SessionStoreShape
  readonly metrics: Metrics.Metrics
}

const encoder = new TextEncoder()

const errorResponse = (api: Transcript.Api, error: unknown, extra: Record<string, string> = {}) => {
  const timeout = error instanceof Upstream.UpstreamError && error.kind === "timeout"
  const message = error instanceof Error ? error.message : String(error)
  return HttpServerResponse.text(
    Protocol.errorBody(
      api,
      api === "openai" ? (timeout ? "upstream_timeout" : "upstream_error") : "api_error",
      `heed-proxy: ${message}`
    ),
    { status: timeout ? 504 : 502, contentType: "application/json", headers: extra }
  )
}

const streamOf = (body: AsyncIterable<Uint8Array>) => Stream.fromAsyncIterable(body, (error) => error as Error)

const pathOf = (url: string) => {
  const q = url.indexOf("?")
  return q === -1 ? url : url.slice(0, q)
}

/** Forwards any request unchanged and streams the response back unchanged; one log line. */
const passThrough = (runtime: Runtime, request: HttpServerRequest.HttpServerRequest, api: Transcript.Api) =>
  Effect.gen(function* () {
    const started = performance.now()
    const body =
      request.method === "GET" || request.method === "HEAD" ? undefined : new Uint8Array(yield* request.arrayBuffer)
    const response = yield* forward(runtime, request, api, body, {})
    Metrics.countRequest(runtime.metrics, "passthrough", response.status)
    yield* Effect.logInfo(
      `${request.method} ${pathOf(request.url)} passthrough status=${response.status} ms=${Math.round(performance.now() - started)}`
    )
    return response
  })

const forward = (
  runtime: Runtime,
  request: HttpServerRequest.HttpServerRequest,
  api: Transcript.Api,
  body: Uint8Array | undefined,
  extra: Record<string, string>
) =>
  Effect.tryPromise({
    try: (signal) =>
      Upstream.send({
        url: Upstream.target(runtime.settings.upstream, request.url),
        method: request.method,
        headers: Upstream.forwardHeaders(request.headers),
        body,
        timeoutMs: runtime.settings.timeoutMs,
        signal
      }),
    catch: (error) => error
  }).pipe(
    Effect.map((response) =>
      HttpServerResponse.stream(streamOf(response.body), {
        status: response.status,
        headers: { ...Upstream.responseHeaders(response.headers, true), ...extra }
      })
    ),
    Effect.catch((error) =>
      Effect.sync(() => {
        runtime.metrics.upstreamErrors++
        return errorResponse(api, error, extra)
      })
    )
  )

interface Outcome {
  status: number
  workMs: number
  plan: ContextPlan.Plan
  rounds: number
  expands: number
}

const heedHeaders = (session: string, plan: ContextPlan.Plan): Record<string, string> => ({
  "x-heed-session": session,
  "x-heed-tokens-in": String(plan.tokensIn),
  "x-heed-tokens-sent": String(plan.tokensSent),
  "x-heed-collapsed": String(plan.collapsed.length)
})

/** The body to send for a plan: the original bytes when it changes nothing, else the rewrite with the tool. */
const bodyFor = (
  api: Transcript.Api,
  raw: Uint8Array,
  json: Record<string, unknown>,
  transcript: Transcript.Transcript,
  plan: ContextPlan.Plan,
  offerTool: boolean
): Uint8Array => {
  if (plan.replacements.size === 0) return raw
  const rewritten = Transcript.rewrite(json, transcript, plan.replacements)
  return encoder.encode(JSON.stringify(offerTool ? Protocol.withExpandTool(api, rewritten) : rewritten))
}

/**
 * Handles one chat request of `api`.
 *
 * @category constructors
 * @since 0.1.0
 */
export const handleChat = (runtime: Runtime, api: Transcript.Api, request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function* () {
    const started = performance.now()
    const raw = new Uint8Array(yield* request.arrayBuffer)
    const read = performance.now()
    let json: Record<string, unknown>
    let transcript: Transcript.Transcript
    try {
      json = JSON.parse(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString("utf8")) as Record<
        string,
        unknown
      >
      transcript = Transcript.read(api, json)
    } catch {
      // Not a request the proxy understands: the upstream answers it (and says what is wrong).
      const response = yield* forward(runtime, request, api, raw, {})
      Metrics.countRequest(runtime.metrics, api, response.status)
      yield* Effect.logInfo(
        `${request.method} ${pathOf(request.url)} unreadable body, passed through status=${response.status}`
      )
      return response
    }
    const session = sessionKey(request.headers["x-heed-session"], transcript)
    const { store, engine, metrics, settings } = runtime
    const previous = (yield* store.get(session)) ?? SessionState.empty(session)
    const first = ContextPlan.plan(transcript, previous, settings.plan, engine)
    const outcome: Outcome = { status: 0, workMs: 0, plan: first, rounds: 1, expands: 0 }
    const finish = Effect.suspend(() => {
      const plan = outcome.plan
      metrics.tokensIn += plan.tokensIn
      metrics.tokensSent += plan.tokensSent
      metrics.collapses += plan.newlyCollapsed.length
      metrics.expandsReference += plan.restored.length
      metrics.expandsTool += outcome.expands
      metrics.rounds += outcome.rounds - 1
      Metrics.countRequest(metrics, api, outcome.status)
      return Effect.andThen(
        store.put({ ...plan.state, updatedAt: Date.now() }),
        Effect.logInfo(
          `${request.method} ${pathOf(request.url)} session=${session} status=${outcome.status} stream=${transcript.stream} ` +
            `tokens_in=${plan.tokensIn} tokens_sent=${plan.tokensSent} collapsed=${plan.collapsed.length} ` +
            `newly_collapsed=${plan.newlyCollapsed.length} restored=${plan.restored.length} expands=${outcome.expands} ` +
            `rounds=${outcome.rounds} work_ms=${outcome.workMs.toFixed(1)} ms=${Math.round(performance.now() - started)}`
        )
      )
    })
    const headers = Upstream.forwardHeaders(request.headers)
    const url = Upstream.target(settings.upstream, request.url)
    const send = (body: Uint8Array, signal: AbortSignal | undefined, inspect: boolean) =>
      Upstream.send({
        url,
        method: "POST",
        // The proxy reads responses it may have to continue: ask for them uncompressed.
        headers: inspect ? { ...headers, "accept-encoding": "identity" } : headers,
        body,
        timeoutMs: settings.timeoutMs,
        signal
      })

    const managed = first.replacements.size > 0
    const firstBody = bodyFor(api, raw, json, transcript, first, true)
    // The proxy's own work on the request, from its last byte read to the upstream request (reading excluded).
    outcome.workMs = performance.now() - read
    const response = yield* Effect.tryPromise({
      try: (signal) => send(firstBody, signal, managed),
      catch: (error) => error
    }).pipe(Effect.result)
    if (response._tag === "Failure") {
      metrics.upstreamErrors++
      outcome.status =
        response.failure instanceof Upstream.UpstreamError && response.failure.kind === "timeout" ? 504 : 502
      yield* finish
      return errorResponse(api, response.failure, heedHeaders(session, first))
    }
    const upstream = response.success
    outcome.status = upstream.status
    if (!managed || upstream.status !== 200) {
      yield* finish
      return HttpServerResponse.stream(streamOf(upstream.body), {
        status: upstream.status,
        headers: { ...Upstream.responseHeaders(upstream.headers, true), ...heedHeaders(session, first) }
      })
    }

    const expand = new Set<string>()
    // Restores what the model asked for and builds the next round's body. The tool stays on offer while rounds are
    // left and the model asked for something that was collapsed (an unknown id would only be asked for again).
    const replan = (ids: ReadonlyArray<string>) => {
      const progress = ids.some((id) => outcome.plan.collapsed.includes(id))
      for (const id of ids) expand.add(id)
      outcome.expands += ids.length
      outcome.rounds++
      outcome.plan = ContextPlan.plan(transcript, previous, settings.plan, engine, expand)
      return bodyFor(api, raw, json, transcript, outcome.plan, progress && outcome.rounds < MAX_ROUNDS)
    }

    if (!transcript.stream) {
      let current = upstream
      for (;;) {
        const bytes = yield* Effect.promise(() => Upstream.readAll(current.body))
        let ids: Array<string> | undefined
        try {
          ids = current.status === 200 ? Protocol.expandCalls(api, JSON.parse(bytes.toString("utf8"))) : undefined
        } catch {
          ids = undefined
        }
        if (ids === undefined || outcome.rounds >= MAX_ROUNDS) {
          outcome.status = current.status
          yield* finish
          return HttpServerResponse.uint8Array(bytes, {
            status: current.status,
            headers: { ...Upstream.responseHeaders(current.headers, false), ...heedHeaders(session, outcome.plan) }
          })
        }
        const body = replan(ids)
        const next = yield* Effect.tryPromise({
          try: (signal) => send(body, signal, true),
          catch: (error) => error
        }).pipe(Effect.result)
        if (next._tag === "Failure") {
          metrics.upstreamErrors++
          outcome.status = 502
          yield* finish
          return errorResponse(api, next.failure, heedHeaders(session, outcome.plan))
        }
        current = next.success
      }
    }

    // Streaming: text goes out as it arrives; a round that calls heed_expand is dropped and asked again.
    async function* rounds(): AsyncGenerator<Uint8Array> {
      let current = upstream
      let offset = 0
      for (let round = 0; ; round++) {
        const filter = new Protocol.StreamRound(api, round === 0, offset)
        const splitter = new Protocol.EventSplitter()
        const decoder = new TextDecoder()
        for await (const chunk of current.body as AsyncIterable<Uint8Array>) {
          for (const event of splitter.push(decoder.decode(chunk, { stream: true }))) {
            for (const out of filter.push(event)) yield encoder.encode(out)
          }
        }
        const rest = splitter.rest()
        if (rest.trim().length > 0) for (const out of filter.push(`${rest}\n\n`)) yield encoder.encode(out)
        const { outcome: asked, release } = filter.finish()
        if (asked.expand === undefined || outcome.rounds >= MAX_ROUNDS) {
          for (const out of release) yield encoder.encode(out)
          return
        }
        offset += filter.sentBlocks
        const body = replan(asked.expand)
        try {
          current = await send(body, undefined, true)
        } catch (error) {
          metrics.upstreamErrors++
          yield encoder.encode(Protocol.errorEvent(api, "api_error", `heed-proxy: ${(error as Error).message}`))
          return
        }
        if (current.status !== 200) {
          const text = (await Upstream.readAll(current.body)).toString("utf8")
          yield encoder.encode(
            Protocol.errorEvent(
              api,
              "api_error",
              `heed-proxy: upstream status ${current.status}: ${text.slice(0, 500)}`
            )
          )
          return
        }
      }
    }
    const stream = streamOf(rounds()).pipe(Stream.ensuring(finish))
    return HttpServerResponse.stream(stream, {
      status: 200,
      headers: { ...Upstream.responseHeaders(upstream.headers, false), ...heedHeaders(session, first) }
    })
  })

/**
 * The routes, over the `SessionStore` in context.
 *
 * @category layers
 * @since 0.1.0
 */
export const routes = (settings: ProxySettings, engine: ContextPlan.Engine, metrics: Metrics.Metrics) =>
  Layer.unwrap(
    Effect.gen(function* () {
      const store: SessionStoreShape = yield* SessionStore
      const runtime: Runtime = { settings, engine, store, metrics }
      return Layer.mergeAll(
        HttpRouter.add("POST", "/v1/chat/completions", (request) => handleChat(runtime, "openai", request)),
        HttpRouter.add("POST", "/v1/messages", (request) => handleChat(runtime, "anthropic", request)),
        HttpRouter.add("GET", "/sessions/:id", (request) =>
          Effect.gen(function* () {
            const id = decodeURIComponent(pathOf(request.url).slice("/sessions/".length))
            const state = yield* store.get(id)
            return state === undefined
              ? HttpServerResponse.jsonUnsafe({ error: `no session '${id}'` }, { status: 404 })
              : HttpServerResponse.jsonUnsafe(SessionState.describe(state))
          })
        ),
        HttpRouter.add("GET", "/metrics", () =>
          Effect.map(store.size, (size) =>
            HttpServerResponse.text(Metrics.render(metrics, size), { contentType: "text/plain; version=0.0.4" })
          )
        ),
        HttpRouter.add("GET", "/health", HttpServerResponse.jsonUnsafe({ status: "ok", store: store.kind })),
        HttpRouter.add("*", "/*", (request) =>
          passThrough(runtime, request, pathOf(request.url).startsWith("/v1/messages") ? "anthropic" : "openai")
        )
      )
    })
  )
