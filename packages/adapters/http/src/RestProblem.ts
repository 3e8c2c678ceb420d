/**
 * The RFC 9457 problems of the REST API: one class per status, each carrying the tool's error `code` and, where they
 * apply, the offending `parameter`, a did-you-mean `suggestion` and the `valid` values.
 *
 * @since 0.1.0
 */
import * as HttpApiError from "effect/http-api/HttpApiError"
import * as Schema from "effect/Schema"
import type { ToolFailure } from "./RestApi.ts"

const fields = {
  code: Schema.String,
  parameter: Schema.optionalKey(Schema.String),
  suggestion: Schema.optionalKey(Schema.String),
  valid: Schema.optionalKey(Schema.Array(Schema.String)),
  retryable: Schema.optionalKey(Schema.Boolean),
  retry_after_sec: Schema.optionalKey(Schema.Number)
}

// `about:blank` problems: the HTTP status says what kind of problem it is, `code` says which.
const problem =
  <Self>() =>
  <const Tag extends string, const Status extends number>(tag: Tag, status: Status, title: string) =>
    HttpApiError.Problem<Self>()(tag, { type: "about:blank", status, title }, fields)

/**
 * `400`: the request or a tool parameter is invalid (`code` is the tool's error code, e.g. `invalid_parameter`).
 *
 * @category errors
 * @since 0.1.0
 */
export class BadRequest extends problem<BadRequest>()("BadRequest", 400, "Bad Request") {}

/**
 * `401`: auth is on and the request has no valid bearer token.
 *
 * @category errors
 * @since 0.1.0
 */
export class Unauthorized extends problem<Unauthorized>()("Unauthorized", 401, "Unauthorized") {}

/**
 * `404`: no such route, tool, source or entry.
 *
 * @category errors
 * @since 0.1.0
 */
export class NotFound extends problem<NotFound>()("NotFound", 404, "Not Found") {}

/**
 * `409`: the request conflicts with the store (e.g. a schema that already exists).
 *
 * @category errors
 * @since 0.1.0
 */
export class Conflict extends problem<Conflict>()("Conflict", 409, "Conflict") {}

/**
 * `413`: the body is over the limit.
 *
 * @category errors
 * @since 0.1.0
 */
export class PayloadTooLarge extends problem<PayloadTooLarge>()("PayloadTooLarge", 413, "Content Too Large") {}

/**
 * `429`: the owner's rate limit is exceeded (`retry_after_sec` says when to try again).
 *
 * @category errors
 * @since 0.1.0
 */
export class TooManyRequests extends problem<TooManyRequests>()("TooManyRequests", 429, "Too Many Requests") {}

/**
 * `503`: the store is unavailable; retry later.
 *
 * @category errors
 * @since 0.1.0
 */
export class Unavailable extends problem<Unavailable>()("Unavailable", 503, "Service Unavailable") {}

/**
 * `500`: the server failed unexpectedly; it keeps serving.
 *
 * @category errors
 * @since 0.1.0
 */
export class Internal extends problem<Internal>()("Internal", 500, "Internal Server Error") {}

/**
 * Any of the problems.
 *
 * @category models
 * @since 0.1.0
 */
export type Any =
  | BadRequest
  | Unauthorized
  | NotFound
  | Conflict
  | PayloadTooLarge
  | TooManyRequests
  | Unavailable
  | Internal

const byCode: Record<string, 400 | 401 | 404 | 409 | 413 | 429 | 503> = {
  invalid_parameter: 400,
  invalid_params: 400,
  bad_request: 400,
  validation_failed: 400,
  validation_error: 400,
  invalid_schema: 400,
  unauthorized: 401,
  not_found: 404,
  schema_not_found: 404,
  schema_already_exists: 409,
  schema_immutable: 409,
  schema_in_use: 409,
  conflict: 409,
  payload_too_large: 413,
  rate_limited: 429,
  unavailable: 503
}

const byStatus = {
  400: BadRequest,
  401: Unauthorized,
  404: NotFound,
  409: Conflict,
  413: PayloadTooLarge,
  429: TooManyRequests,
  503: Unavailable
}

/**
 * What a problem says about a failure: the tool layer's failure as it is.
 *
 * @category models
 * @since 0.1.0
 */
export type Detail = ToolFailure

/**
 * The problem for a tool failure, its status chosen by the error code (`invalid_parameter` 400, `unauthorized` 401,
 * `not_found` 404, `unavailable` 503, …; unknown codes 500).
 *
 * @category constructors
 * @since 0.1.0
 */
export const fromFailure = (failure: Detail): Any => {
  const body: Record<string, unknown> = { code: failure.code, detail: failure.message }
  if (failure.parameter !== undefined) body.parameter = failure.parameter
  if (failure.suggestion !== undefined) body.suggestion = failure.suggestion
  if (failure.valid !== undefined) body.valid = [...failure.valid]
  if (failure.retryable !== undefined) body.retryable = failure.retryable
  if (failure.retry_after_sec !== undefined) body.retry_after_sec = failure.retry_after_sec
  // each class fixes its own type, status and title; the extension fields are the same for all
  const fields = body as never
  const status = byCode[failure.code]
  return new (status === undefined ? Internal : byStatus[status])(fields)
}
