/**
 * Serves the {@link RestApi} on an `effect/http` router: the `/v1` endpoints over the `RestApi.Tools` port, the
 * OpenAPI document at `/openapi.json` (with each tool's parameter schema) and a Scalar API reference at `/docs`
 * (bundled with effect, no CDN). Limits on what a client controls: the body size (`413`) and, when configured, a
 * per-owner rate limit (`429`).
 *
 * @since 0.1.0
 */
import { AwarenessTools } from "@heed/collator"
import * as ByteSize from "effect/ByteSize"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as HttpIncomingMessage from "effect/http/HttpIncomingMessage"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerError from "effect/http/HttpServerError"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import type * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiError from "effect/http-api/HttpApiError"
import * as OpenApi from "effect/http-api/OpenApi"
import * as Layer from "effect/Layer"
import * as Predicate from "effect/Predicate"
import * as SchemaAST from "effect/SchemaAST"
import * as SchemaIssue from "effect/SchemaIssue"
import * as Scope from "effect/Scope"
import { Edge, RestApi, type ToolFailure, type ToolInfo, Tools } from "./RestApi.ts"
import * as RestProblem from "./RestProblem.ts"

/**
 * A per-owner rate limit: at most `requests` requests in each window of `windowMs` milliseconds (default 60,000).
 *
 * @category models
 * @since 0.1.0
 */
export interface RateLimit {
  readonly requests: number
  readonly windowMs?: number | undefined
}

/**
 * Options of {@link layer}:
 *
 * - `maxBodyBytes`: the largest request body (default 1 MiB; larger ones get `413`);
 * - `rateLimit`: a per-owner rate limit (off by default);
 * - `openapiPath` (default `"/openapi.json"`) and `docsPath` (default `"/docs"`).
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly maxBodyBytes?: number | undefined
  readonly rateLimit?: RateLimit | undefined
  readonly openapiPath?: `/${string}` | undefined
  readonly docsPath?: `/${string}` | undefined
}

const defaultMaxBodyBytes = 1024 * 1024

// -----------------------------------------------------------------------------------------------------------------
// Rate limit

interface Window {
  start: number
  count: number
}

/** A fixed-window counter per owner; windows that have ended are dropped as the map grows. */
const makeLimiter = (limit: RateLimit | undefined) => {
  if (limit === undefined) return (_owner: string) => Effect.void
  const windowMs = Math.max(1, limit.windowMs ?? 60_000)
  const windows = new Map<string, Window>()
  return (owner: string): Effect.Effect<void, ToolFailure> =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => {
      if (windows.size > 10_000) {
        for (const [key, window] of windows) if (now - window.start >= windowMs) windows.delete(key)
      }
      const current = windows.get(owner)
      const window = current === undefined || now - current.start >= windowMs ? { start: now, count: 0 } : current
      windows.set(owner, window)
      window.count++
      if (window.count <= limit.requests) return Effect.void
      const retry = Math.max(1, Math.ceil((window.start + windowMs - now) / 1000))
      return Effect.fail({
        code: "rate_limited",
        message: `More than ${limit.requests} requests in ${windowMs / 1000} s for this owner; retry in ${retry} s.`,
        retryable: true,
        retry_after_sec: retry
      } satisfies ToolFailure)
    })
}

// -----------------------------------------------------------------------------------------------------------------
// Handlers

const toProblem = (failure: ToolFailure) => RestProblem.fromFailure(failure)

const levelOf = (entry: unknown): unknown =>
  Predicate.isObject(entry) && Predicate.isObject((entry as { data?: unknown }).data)
    ? ((entry as { data: Record<string, unknown> }).data.level ?? undefined)
    : undefined

/** Keeps the alerts of one level on a `get_alerts` page (the tool has no level filter). */
const filterLevel = (page: unknown, level: string | undefined): unknown => {
  if (level === undefined || !Predicate.isObject(page)) return page
  const entries = (page as { entries?: unknown }).entries
  if (!Array.isArray(entries)) return page
  return { ...page, entries: entries.filter((entry) => levelOf(entry) === level) }
}

const definedOnly = (record: Readonly<Record<string, unknown>>): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(record)) if (value !== undefined) out[key] = value
  return out
}

const handlers = (options: Options) =>
  HttpApiBuilder.group(
    RestApi,
    "v1",
    Effect.fn(function* (handlers) {
      const tools = yield* Tools
      const limit = makeLimiter(options.rateLimit)
      const names = tools.tools.map((tool) => tool.name)
      const run = (name: string, params: unknown) =>
        tools.owner.pipe(Effect.flatMap(limit), Effect.andThen(tools.call(name, params)), Effect.mapError(toProblem))
      // A write endpoint's body is the tool's parameters: a JSON object, never `null` or empty (which would be a call
      // without any parameters).
      const write = (name: string, payload: unknown) =>
        Predicate.isObject(payload) && !Array.isArray(payload)
          ? run(name, payload)
          : Effect.fail(toProblem(notAnObject(payload)))
      return handlers.handleAll({
        reportStatus: ({ payload }) => write("report_status", payload),
        reportAlert: ({ payload }) => write("report_alert", payload),
        remind: ({ payload }) => write("remind", payload),
        suppressAlert: ({ payload }) => write("suppress_alert", payload),
        clearSuppression: ({ params }) => run("clear_suppression", { entry_id: params.id }),
        // The full briefing (with the evaluation block) unless `explain=false`, as REST served it before
        // get_briefing's compact default; `format=text` is the tool's plain text, served as `text/plain`.
        getBriefing: ({ query }) =>
          Effect.map(
            run("get_briefing", {
              explain: query.explain ?? true,
              ...(query.format === undefined ? {} : { format: query.format })
            }),
            (reply) => (typeof reply === "string" ? (HttpServerResponse.text(reply) as unknown) : reply)
          ),
        getAlerts: ({ query }) => {
          const { level, ...rest } = query
          return Effect.map(run("get_alerts", definedOnly(rest)), (page) => filterLevel(page, level))
        },
        getStatus: ({ params }) => run("get_status", { source: params.source }),
        // an empty body is a call without parameters; anything else must be a JSON object
        callTool: ({ params, payload }) =>
          !names.includes(params.name)
            ? Effect.fail(toProblem(unknownTool(params.name, names)))
            : payload === null || payload === undefined
              ? run(params.name, {})
              : write(params.name, payload)
      })
    })
  )

const notAnObject = (payload: unknown): ToolFailure => ({
  code: "invalid_parameter",
  message: `The request body must be a JSON object holding the tool's parameters (got ${
    payload === null || payload === undefined ? "no object" : Array.isArray(payload) ? "an array" : typeof payload
  }).`,
  parameter: "body"
})

const unknownTool = (name: string, names: ReadonlyArray<string>): ToolFailure => {
  const suggestion = AwarenessTools.suggest(name, names)
  return {
    code: "not_found",
    message: `There is no tool '${name}'.${suggestion === undefined ? "" : ` Did you mean '${suggestion}'?`}`,
    parameter: "name",
    ...(suggestion === undefined ? {} : { suggestion }),
    valid: names
  }
}

// -----------------------------------------------------------------------------------------------------------------
// Edge middleware: body limit and decoding failures

const issueParameter = (error: HttpApiError.HttpApiSchemaError): { parameter?: string; message: string } => {
  const issues = SchemaIssue.makeFormatterStandardSchemaV1()(error.cause.issue).issues
  const first = issues[0]
  const segment = first?.path?.[0]
  const key = Predicate.isObject(segment) ? (segment as { key: PropertyKey }).key : segment
  const where = error.kind.toLowerCase()
  const message = first === undefined ? `the request's ${where} is invalid` : `${where}: ${first.message}`
  return key === undefined ? { message } : { parameter: String(key), message: `'${String(key)}' ${message}` }
}

const tooLarge = (max: number) =>
  new RestProblem.PayloadTooLarge({
    code: "payload_too_large",
    detail: `The request body is over the limit of ${max} bytes.`
  })

const isTooLarge = (error: HttpServerError.HttpServerError): boolean =>
  /too large|exceed|limit/i.test(`${error.message} ${String((error as { cause?: unknown }).cause ?? "")}`)

/** What a failure of the endpoint effect becomes: decoding and body-read failures turn into problems. */
const edgeProblem = (error: unknown, max: number): RestProblem.Any | undefined => {
  if (HttpApiError.HttpApiSchemaError.is(error)) {
    if (error.kind === "Body" || error.kind === "ResponseHeaders") return undefined
    const { parameter = error.kind === "Payload" ? "body" : undefined, message } = issueParameter(error)
    return new RestProblem.BadRequest({
      code: "invalid_parameter",
      detail: message,
      ...(parameter === undefined ? {} : { parameter })
    })
  }
  if (HttpServerError.isHttpServerError(error)) {
    return isTooLarge(error)
      ? tooLarge(max)
      : new RestProblem.BadRequest({
          code: "invalid_parameter",
          detail: "The request body is not valid JSON.",
          parameter: "body"
        })
  }
  return undefined
}

/** The query parameters an endpoint takes (the fields of its query schema). */
const queryNames = (endpoint: HttpApiEndpoint.Top): ReadonlyArray<string> => {
  const ast = endpoint.query?.ast
  return ast !== undefined && SchemaAST.isObjects(ast) ? ast.propertySignatures.map((field) => String(field.name)) : []
}

/** The first query parameter of `url` that the endpoint does not take, as a problem with a did-you-mean. */
const unknownQuery = (url: string, valid: ReadonlyArray<string>): RestProblem.Any | undefined => {
  const at = url.indexOf("?")
  if (at < 0) return undefined
  for (const name of new URLSearchParams(url.slice(at + 1)).keys()) {
    if (valid.includes(name)) continue
    const suggestion = AwarenessTools.suggest(name, valid)
    const hint =
      suggestion !== undefined
        ? ` Did you mean '${suggestion}'?`
        : valid.length === 0
          ? " It takes none."
          : ` It takes: ${valid.join(", ")}.`
    return new RestProblem.BadRequest({
      code: "invalid_parameter",
      detail: `This endpoint has no query parameter '${name.slice(0, 200)}'.${hint}`,
      parameter: name.slice(0, 200),
      ...(suggestion === undefined ? {} : { suggestion }),
      valid
    })
  }
  return undefined
}

const edgeLayer = (options: Options) => {
  const max = options.maxBodyBytes ?? defaultMaxBodyBytes
  const limit = ByteSize.bytes(max)
  return Layer.succeed(Edge, (httpEffect, { endpoint }) =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
      if (Number(request.headers["content-length"] ?? 0) > max) return Effect.fail(tooLarge(max))
      const stranger = unknownQuery(request.url, queryNames(endpoint))
      if (stranger !== undefined) return Effect.fail(stranger)
      return httpEffect.pipe(
        Effect.provideService(HttpIncomingMessage.MaxBodySize, limit),
        // the JSON payload is read with `orDie`: a body that outgrows the limit without a content-length (chunked)
        // is a defect, an empty 413, unless it is turned back into a failure here
        Effect.catchDefect((defect) =>
          HttpServerError.isHttpServerError(defect) ? Effect.fail(defect) : Effect.die(defect)
        ),
        Effect.catch((error) => {
          const problem = edgeProblem(error, max)
          // failures that are not about the request (a response that fails to encode) pass through unchanged
          return Effect.fail(problem ?? (error as never))
        })
      )
    })
  )
}

// -----------------------------------------------------------------------------------------------------------------
// Every /v1 reply that is not 2xx is a problem: the router's own answers (no route, wrong method, a path that does
// not decode) and the HTTP API's plain-text ones (415) included; a 429 says when to retry.

const problemContentType = "application/problem+json"

const titles: Readonly<Record<number, string>> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  406: "Not Acceptable",
  409: "Conflict",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  426: "Upgrade Required",
  429: "Too Many Requests",
  500: "Internal Server Error",
  503: "Service Unavailable"
}

const codes: Readonly<Record<number, string>> = {
  400: "bad_request",
  404: "not_found",
  405: "method_not_allowed",
  413: "payload_too_large",
  415: "unsupported_media_type",
  429: "rate_limited"
}

const problemReply = (
  status: number,
  fields: { readonly code: string; readonly detail: string; readonly [extra: string]: unknown },
  headers: Record<string, string> = {}
) =>
  HttpServerResponse.jsonUnsafe(
    { type: "about:blank", title: titles[status] ?? "Error", status, ...fields },
    { status, headers, contentType: problemContentType }
  )

/** A route of the API as path segments (`:name` for a parameter). */
interface RouteShape {
  readonly method: string
  readonly segments: ReadonlyArray<string>
}

const routeShapes: ReadonlyArray<RouteShape> = Object.values(RestApi.groups).flatMap((group) =>
  Object.values(group.endpoints).map((endpoint) => ({
    method: endpoint.method,
    segments: endpoint.path.split("/").slice(1)
  }))
)

const fits = (route: RouteShape, segments: ReadonlyArray<string>): boolean =>
  route.segments.length === segments.length &&
  route.segments.every((segment, i) => (segment.startsWith(":") ? segments[i] !== "" : segment === segments[i]))

const decodes = (segment: string): boolean => {
  try {
    decodeURIComponent(segment)
    return true
  } catch {
    return false
  }
}

const isApiPath = (path: string): boolean => path === "/v1" || path.startsWith("/v1/")

/** The router's "no route" failure, with its description when a path parameter was too long, or `undefined`. */
const routeNotFound = (error: unknown): { readonly description?: string | undefined } | undefined => {
  if (!HttpServerError.isHttpServerError(error)) return undefined
  const reason = (error as { readonly reason?: { readonly _tag?: string; readonly description?: string } }).reason
  return reason?._tag === "RouteNotFound" ? { description: reason.description } : undefined
}

/** What the router would refuse, answered as a problem before it runs: 404, 405 with `Allow`, 400 for bad escapes. */
const routeProblem = (method: string, path: string): HttpServerResponse.HttpServerResponse | undefined => {
  const segments = path.split("/").slice(1)
  const candidates = routeShapes.filter((route) => fits(route, segments))
  if (candidates.length === 0) {
    return problemReply(404, { code: "not_found", detail: `There is no endpoint at ${path.slice(0, 200)}.` })
  }
  const allowed = [...new Set(candidates.map((route) => route.method))]
  if (!allowed.includes(method) && !(method === "HEAD" && allowed.includes("GET"))) {
    return problemReply(
      405,
      { code: "method_not_allowed", detail: `${path} takes ${allowed.join(", ")}, not ${method}.`, valid: allowed },
      { allow: allowed.join(", ") }
    )
  }
  const route = candidates.find((candidate) => candidate.method === method) ?? candidates[0]!
  const bad = route.segments.findIndex((segment, i) => segment.startsWith(":") && !decodes(segments[i]!))
  if (bad >= 0) {
    const parameter = route.segments[bad]!.slice(1)
    return problemReply(400, {
      code: "invalid_parameter",
      detail: `The path parameter '${parameter}' is not valid percent-encoded UTF-8.`,
      parameter
    })
  }
  return undefined
}

/** The path parameter of the route `path` fits (the first, for a route with several), as `{ parameter }`. */
const paramOf = (path: string): { readonly parameter?: string } => {
  const segments = path.split("/").slice(1)
  const name = routeShapes.find((route) => fits(route, segments))?.segments.find((segment) => segment.startsWith(":"))
  return name === undefined ? {} : { parameter: name.slice(1) }
}

const bodyText = (response: HttpServerResponse.HttpServerResponse): string => {
  const body = response.body
  if (body._tag === "Uint8Array") return new TextDecoder().decode(body.body)
  return ""
}

/** A non-2xx reply as a problem (a plain-text or empty one rewritten); a 429 gets `Retry-After` from its body. */
const asProblem = (response: HttpServerResponse.HttpServerResponse): HttpServerResponse.HttpServerResponse => {
  if (response.status < 400) return response
  const type = response.body._tag === "Empty" ? undefined : response.body.contentType
  if (type?.startsWith(problemContentType) === true) {
    if (response.status !== 429 || response.headers["retry-after"] !== undefined) return response
    let retry: unknown
    try {
      retry = (JSON.parse(bodyText(response)) as { retry_after_sec?: unknown }).retry_after_sec
    } catch {
      retry = undefined
    }
    return HttpServerResponse.setHeader(response, "retry-after", String(typeof retry === "number" ? retry : 60))
  }
  const text = bodyText(response).trim()
  const { "content-type": _type, "content-length": _length, ...headers } = response.headers
  return problemReply(
    response.status,
    {
      code: codes[response.status] ?? (response.status >= 500 ? "internal_error" : "bad_request"),
      detail: text === "" ? (titles[response.status] ?? "Error") : text.slice(0, 500)
    },
    headers
  )
}

/**
 * The global middleware that makes every `/v1` reply that is not 2xx an `application/problem+json` problem.
 */
const problemsEverywhere = HttpRouter.middleware(
  (httpEffect) =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
      const path = request.url.split("?")[0] ?? request.url
      if (!isApiPath(path)) return httpEffect
      const refused = routeProblem(request.method, path)
      if (refused !== undefined) return Effect.succeed(refused)
      return httpEffect.pipe(
        Effect.catch((error) => {
          const missing = routeNotFound(error)
          if (missing === undefined) return Effect.fail(error)
          const description = missing.description
          return Effect.succeed(
            description === undefined
              ? problemReply(404, { code: "not_found", detail: `There is no endpoint at ${path.slice(0, 200)}.` })
              : problemReply(400, {
                  code: "invalid_parameter",
                  detail: `The request path is invalid: ${description}.`,
                  ...paramOf(path)
                })
          )
        }),
        Effect.map(asProblem)
      )
    }),
  { global: true }
)

// -----------------------------------------------------------------------------------------------------------------
// OpenAPI document

const writeTools: Record<string, string> = {
  "/v1/status": "report_status",
  "/v1/alerts": "report_alert",
  "/v1/intentions": "remind",
  "/v1/suppressions": "suppress_alert"
}

/**
 * The OpenAPI document's transform: each write endpoint's request body gets its tool's parameter schema, and
 * `POST /v1/tools/{name}` lists the tools (name, description, parameters) in its description and `name` enum.
 */
const withTools =
  (tools: ReadonlyArray<ToolInfo>): OpenApi.Transform["Service"] =>
  (spec) => {
    const byName = new Map(tools.map((tool) => [tool.name, tool]))
    const paths = spec.paths ?? {}
    for (const [path, name] of Object.entries(writeTools)) {
      const tool = byName.get(name)
      const body = paths[path]?.post?.requestBody?.content?.["application/json"]
      if (tool !== undefined && body !== undefined) {
        body.schema = tool.inputSchema
        paths[path].post.description = `${paths[path].post.description ?? ""}\n\n${tool.description}`
      }
    }
    const call = paths["/v1/tools/{name}"]?.post
    if (call !== undefined) {
      for (const parameter of call.parameters ?? []) {
        if (parameter.name === "name") parameter.schema = { type: "string", enum: tools.map((tool) => tool.name) }
      }
      const lines = tools.map((tool) => `- \`${tool.name}\`${tool.readOnly ? " (read-only)" : ""}: ${tool.description}`)
      call.description = `${call.description ?? ""}\n\n${lines.join("\n")}`
    }
    return spec
  }

/**
 * The {@link RestApi} with its OpenAPI document completed from the given tools' parameter schemas.
 *
 * @category constructors
 * @since 0.1.0
 */
export const apiWithTools = (tools: ReadonlyArray<ToolInfo>) => RestApi.annotate(OpenApi.Transform, withTools(tools))

/**
 * The OpenAPI 3.1 document of the REST API, completed from the given tools.
 *
 * @category getters
 * @since 0.1.0
 */
export const openApi = (tools: ReadonlyArray<ToolInfo>): OpenApi.OpenAPISpec => OpenApi.fromApi(apiWithTools(tools))

/**
 * The Scalar reference page at `path`, built on its first request: its bundled script is a 6 MB string, which
 * `HttpApiScalar.layer` would load at start and keep in every server's heap (about 12 MB with its module source)
 * whether or not anyone opens the page. The page loads nothing from elsewhere: the script is bundled, and the
 * default fonts, which would come from a CDN, are off.
 */
const docsPage = (api: ReturnType<typeof apiWithTools>, path: `/${string}`) =>
  HttpRouter.use((router) =>
    Effect.gen(function* () {
      const scope = yield* Effect.scope
      const page = yield* Effect.cached(
        Effect.promise(() => import("effect/http-api/HttpApiScalar")).pipe(
          Effect.flatMap((HttpApiScalar) =>
            HttpRouter.toHttpEffect(HttpApiScalar.layer(api, { path, scalar: { withDefaultFonts: false } }))
          ),
          Scope.provide(scope)
        )
      )
      // the page's own router has this one route, at this path: it cannot answer "not found"
      yield* router.add("GET", path, Effect.orDie(Effect.flatten(page)))
    })
  )

/**
 * Mounts the REST API (`/v1/…`, `/openapi.json`, `/docs`) on the `HttpRouter` in context, over the `RestApi.Tools`
 * port (see {@link Options}).
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options: Options = {}) =>
  Layer.unwrap(
    Effect.map(Tools, (tools) => {
      const api = apiWithTools(tools.tools)
      return Layer.mergeAll(
        HttpApiBuilder.layer(api, { openapiPath: options.openapiPath ?? "/openapi.json" }),
        docsPage(api, options.docsPath ?? "/docs"),
        problemsEverywhere
      ).pipe(Layer.provide(handlers(options)), Layer.provide(edgeLayer(options)))
    })
  )
