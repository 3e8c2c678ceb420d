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
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import * as HttpApiError from "effect/http-api/HttpApiError"
import * as OpenApi from "effect/http-api/OpenApi"
import * as Layer from "effect/Layer"
import * as Predicate from "effect/Predicate"
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
      return handlers.handleAll({
        reportStatus: ({ payload }) => run("report_status", payload),
        reportAlert: ({ payload }) => run("report_alert", payload),
        remind: ({ payload }) => run("remind", payload),
        suppressAlert: ({ payload }) => run("suppress_alert", payload),
        clearSuppression: ({ params }) => run("clear_suppression", { entry_id: params.id }),
        // The full briefing (with the evaluation block), as REST served it before get_briefing's compact default.
        getBriefing: () => run("get_briefing", { explain: true }),
        getAlerts: ({ query }) => {
          const { level, ...rest } = query
          return Effect.map(run("get_alerts", definedOnly(rest)), (page) => filterLevel(page, level))
        },
        getStatus: ({ params }) => run("get_status", { source: params.source }),
        callTool: ({ params, payload }) =>
          names.includes(params.name)
            ? run(params.name, payload)
            : Effect.fail(toProblem(unknownTool(params.name, names)))
      })
    })
  )

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
    const { parameter, message } = issueParameter(error)
    return new RestProblem.BadRequest({
      code: "invalid_parameter",
      detail: message,
      ...(parameter === undefined ? {} : { parameter })
    })
  }
  if (HttpServerError.isHttpServerError(error)) {
    return isTooLarge(error)
      ? tooLarge(max)
      : new RestProblem.BadRequest({ code: "invalid_parameter", detail: "The request body is not valid JSON." })
  }
  return undefined
}

const edgeLayer = (options: Options) => {
  const max = options.maxBodyBytes ?? defaultMaxBodyBytes
  const limit = ByteSize.bytes(max)
  return Layer.succeed(Edge, (httpEffect) =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
      if (Number(request.headers["content-length"] ?? 0) > max) return Effect.fail(tooLarge(max))
      return httpEffect.pipe(
        Effect.provideService(HttpIncomingMessage.MaxBodySize, limit),
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
        docsPage(api, options.docsPath ?? "/docs")
      ).pipe(Layer.provide(handlers(options)), Layer.provide(edgeLayer(options)))
    })
  )
