/**
 * The REST edge API: the awareness tools over plain HTTP, for reporters that should not have to speak MCP (a cron job
 * on a NAS, a CI step, a home-automation hook). It is an `effect/http-api` `HttpApi` with an OpenAPI 3.1 document;
 * bodies and replies are the tools' own shapes, and every failure is an RFC 9457 `application/problem+json` body
 * carrying the tool's error code, the parameter and a did-you-mean suggestion.
 *
 * The API does not validate tool parameters itself: each request is handed to the {@link Tools} port (the same typed
 * tool layer MCP uses), so REST and MCP share one validation path.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpApi from "effect/http-api/HttpApi"
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as HttpApiMiddleware from "effect/http-api/HttpApiMiddleware"
import * as OpenApi from "effect/http-api/OpenApi"
import * as Schema from "effect/Schema"
import { version } from "./internal/version.ts"
import * as RestProblem from "./RestProblem.ts"

/**
 * A tool's failure as the tool layer reports it: its error `code` (`invalid_parameter`, `not_found`, …), a message, and
 * where it applies the offending `parameter`, a did-you-mean `suggestion` and the `valid` values; a rate limit adds
 * `retry_after_sec`.
 *
 * @category models
 * @since 0.1.0
 */
export interface ToolFailure {
  readonly code: string
  readonly message: string
  readonly parameter?: string | undefined
  readonly suggestion?: string | undefined
  readonly valid?: ReadonlyArray<string> | undefined
  readonly retryable?: boolean | undefined
  readonly retry_after_sec?: number | undefined
}

/**
 * One tool as the OpenAPI document describes it: the JSON Schema of its parameters (an object schema).
 *
 * @category models
 * @since 0.1.0
 */
export interface ToolInfo {
  readonly name: string
  readonly description: string
  readonly inputSchema: Readonly<Record<string, unknown>>
  readonly readOnly: boolean
}

/**
 * The port the REST API calls: `owner` names who the current request is for (failing with code `unauthorized` when
 * the request carries no valid credentials), `call` runs one tool by name with its JSON parameters for that owner
 * (validating them) and returns the tool's reply, `tools` lists every tool for `POST /v1/tools/{name}` and the
 * OpenAPI document. Both effects run inside the HTTP request, so an implementation may read `HttpServerRequest`.
 *
 * @category services
 * @since 0.1.0
 */
export class Tools extends Context.Service<
  Tools,
  {
    readonly owner: Effect.Effect<string, ToolFailure, HttpServerRequest.HttpServerRequest>
    readonly call: (
      name: string,
      params: unknown
    ) => Effect.Effect<unknown, ToolFailure, HttpServerRequest.HttpServerRequest>
    readonly tools: ReadonlyArray<ToolInfo>
  }
>()("@heed/http/RestApi/Tools") {}

const errors = [
  RestProblem.BadRequest,
  RestProblem.Unauthorized,
  RestProblem.NotFound,
  RestProblem.Conflict,
  RestProblem.PayloadTooLarge,
  RestProblem.TooManyRequests,
  RestProblem.Unavailable,
  RestProblem.Internal
]

/**
 * A tool's parameters or reply: a JSON value, whose shape is the tool's own (see the tool's description and the
 * request body schema of each endpoint in the served document).
 *
 * @category schemas
 * @since 0.1.0
 */
export const Json = Schema.Unknown.annotate({ description: "The tool's own JSON shape." })

/**
 * The edge middleware of every `/v1` endpoint: the body limit (`413`), and request decoding failures rendered as
 * `400` problems naming the parameter. `RestServer.layer` provides it.
 *
 * @category services
 * @since 0.1.0
 */
export class Edge extends HttpApiMiddleware.Service<Edge>()("@heed/http/RestApi/Edge", { error: errors }) {}

const write = <const Id extends string, const Path extends `/${string}`>(
  identifier: Id,
  path: Path,
  tool: string,
  summary: string
) =>
  HttpApiEndpoint.post(identifier, path, { payload: Json, success: Json, error: errors }).annotateMerge(
    OpenApi.annotations({ summary, description: `Calls the \`${tool}\` tool with the body as its parameters.` })
  )

/**
 * The endpoints under `/v1`.
 *
 * @category models
 * @since 0.1.0
 */
export class V1 extends HttpApiGroup.make("v1")
  .add(write("reportStatus", "/v1/status", "report_status", "Report a source's status"))
  .add(write("reportAlert", "/v1/alerts", "report_alert", "Raise, update or resolve an alert"))
  .add(write("remind", "/v1/intentions", "remind", "Create an intention (a reminder)"))
  .add(write("suppressAlert", "/v1/suppressions", "suppress_alert", "Suppress matching alerts for a while"))
  .add(
    HttpApiEndpoint.delete("clearSuppression", "/v1/suppressions/:id", {
      params: { id: Schema.String },
      success: Json,
      error: errors
    }).annotateMerge(OpenApi.annotations({ summary: "End a suppression now (`clear_suppression`)" }))
  )
  .add(
    HttpApiEndpoint.get("getBriefing", "/v1/briefing", {
      query: {
        format: Schema.optional(Schema.String).annotate({
          description: "`json` (default) or `text`: plain text, one line per item, served as `text/plain`."
        }),
        explain: Schema.optional(Schema.String).annotate({
          description: "`true` (default) includes the evaluation block; `false` is the compact briefing."
        })
      },
      success: Json,
      error: errors
    }).annotateMerge(
      OpenApi.annotations({
        summary: "The briefing (`get_briefing`)",
        description: "`format` and `explain` are `get_briefing` parameters."
      })
    )
  )
  .add(
    HttpApiEndpoint.get("getAlerts", "/v1/alerts", {
      query: {
        source: Schema.optional(Schema.String),
        level: Schema.optional(Schema.Literals(["warning", "critical"])),
        since: Schema.optional(Schema.String),
        mode: Schema.optional(Schema.String),
        limit: Schema.optional(Schema.String),
        offset: Schema.optional(Schema.String)
      },
      success: Json,
      error: errors
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Active alerts (`get_alerts`), optionally of one level",
        description:
          "`source`, `since`, `mode`, `limit` and `offset` are `get_alerts` parameters; `level` keeps only alerts " +
          "of that level from the page."
      })
    )
  )
  .add(
    HttpApiEndpoint.get("getStatus", "/v1/status/:source", {
      params: { source: Schema.String },
      success: Json,
      error: errors
    }).annotateMerge(OpenApi.annotations({ summary: "A source's latest status (`get_status`)" }))
  )
  .add(
    HttpApiEndpoint.post("callTool", "/v1/tools/:name", {
      params: { name: Schema.String },
      payload: [Json, Schema.Null],
      success: Json,
      error: errors
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Call any tool by name with its JSON parameters",
        description: "Every awareness tool, with the tool's own parameters as the body and its reply as the response."
      })
    )
  )
  .middleware(Edge) {}

/**
 * The REST edge API as an `HttpApi`: `POST /v1/status`, `POST /v1/alerts`, `POST /v1/intentions`,
 * `POST /v1/suppressions`, `DELETE /v1/suppressions/{id}`, `GET /v1/briefing`, `GET /v1/alerts`,
 * `GET /v1/status/{source}` and `POST /v1/tools/{name}`. Serve it with `RestServer.layer`; `RestApi.Tools` is the
 * port its handlers call.
 *
 * @category models
 * @since 0.1.0
 */
export class RestApi extends HttpApi.make("heed-rest")
  .add(V1)
  .annotateMerge(
    OpenApi.annotations({
      title: "heed awareness REST API",
      // The OpenAPI document names the release of the package that defines the API (its package.json).
      version,
      description:
        "Report status, alerts and reminders to the heed awareness server from a shell, and read its briefing. " +
        "Bodies and replies are the awareness tools' own shapes. Every reply that is not 2xx is an RFC 9457 " +
        "`application/problem+json` problem (unknown routes 404, a wrong method 405 with `Allow`, an unsupported " +
        "content type 415, a rate limit 429 with `Retry-After`) carrying the tool's error `code` and, where it " +
        "applies, the offending `parameter` and a did-you-mean `suggestion`.\n\n" +
        "**Limits** (checked before anything is stored): a write's body must be a JSON object of the tool's " +
        "parameters, and unknown parameters (body or query) are refused; identifiers (`source`, `alert_id`, each " +
        "tag, `key`, `scope`, `metric`, `logical_key`, `entry_id`, …) are at most 256 characters, with at most 64 " +
        "tags; other text fields at most 65,536 characters; a stored entry at most 1 MiB of JSON (`413` naming its " +
        "largest field); `duration_minutes`, `expires_days` and `ttl_sec` at most ten years; timestamps in the years " +
        "0001 to 9999; `limit` and `offset` at most 2,147,483,647. Each request body schema states its parameters' " +
        "limits (`maxLength`, `maxItems`, `maximum`)."
    })
  ) {
  /**
   * The port the API's handlers call (see {@link Tools}).
   *
   * @since 0.1.0
   */
  static readonly Tools = Tools
  /**
   * The `/v1` group.
   *
   * @since 0.1.0
   */
  static readonly V1 = V1
}
