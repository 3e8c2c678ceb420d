/**
 * Upstream's structured tool error: every failing tool answers with an MCP `isError` result whose text is
 * `{"status":"error","error":{code, message, retryable, param?, value?, valid?, suggestion?, help_url?, …}}`.
 *
 * @since 0.1.0
 */
import { AwarenessTools } from "@heed/collator"
import * as Predicate from "effect/Predicate"

/**
 * The error codes upstream uses, plus `internal_error` for a failure heed did not expect.
 *
 * @category models
 * @since 0.1.0
 */
export type Code =
  | "invalid_parameter"
  | "not_found"
  | "unavailable"
  | "invalid_schema"
  | "schema_already_exists"
  | "schema_not_found"
  | "validation_failed"
  | "validation_error"
  | "schema_immutable"
  | "schema_in_use"
  | "internal_error"
  | (string & {})

/**
 * The inner `error` object of upstream's error body.
 *
 * @category models
 * @since 0.1.0
 */
export interface ErrorDetail {
  readonly code: Code
  readonly message: string
  readonly retryable: boolean
  readonly param?: string | undefined
  readonly value?: unknown
  readonly valid?: ReadonlyArray<string> | undefined
  readonly suggestion?: string | undefined
  readonly help_url?: string | undefined
  readonly [extra: string]: unknown
}

/**
 * The whole body: `{ status: "error", error }`.
 *
 * @category models
 * @since 0.1.0
 */
export interface ErrorBody {
  readonly status: "error"
  readonly error: ErrorDetail
}

/**
 * Builds an error body.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (detail: ErrorDetail): ErrorBody => ({ status: "error", error: dropUndefined(detail) })

const dropUndefined = (detail: ErrorDetail): ErrorDetail => {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(detail)) if (value !== undefined) out[key] = value
  return out as unknown as ErrorDetail
}

/**
 * The closest valid value within an edit distance of 2 (case-insensitive), as upstream's did-you-mean; `undefined`
 * when nothing is close enough. The same rule as the `Awareness` tools' own errors.
 *
 * @category getters
 * @since 0.1.0
 */
export const suggest: (value: string, valid: ReadonlyArray<string>) => string | undefined = AwarenessTools.suggest

/**
 * An `invalid_parameter` error body, with `valid` and a did-you-mean `suggestion` when the valid values are known.
 *
 * @category constructors
 * @since 0.1.0
 */
export const invalidParameter = (options: {
  readonly param: string
  readonly message: string
  readonly value?: unknown
  readonly valid?: ReadonlyArray<string> | undefined
}): ErrorBody => {
  const suggestion =
    options.valid !== undefined && Predicate.isString(options.value) ? suggest(options.value, options.valid) : undefined
  return make({
    code: "invalid_parameter",
    message: suggestion === undefined ? options.message : `${options.message} Did you mean '${suggestion}'?`,
    retryable: false,
    param: options.param,
    value: options.value,
    valid: options.valid,
    suggestion
  })
}

const internalKeys = new Set(["_tag", "name", "stack", "cause", "status"])

/**
 * Renders any failure as an error body. A failure that already carries `code` and `message` (as @heed/collator's
 * errors do) keeps every public field; anything else becomes `internal_error` without leaking internals.
 *
 * @category constructors
 * @since 0.1.0
 */
export const fromFailure = (failure: unknown): ErrorBody => {
  if (Predicate.isObject(failure)) {
    const record = failure as Record<string, unknown>
    if (Predicate.isString(record.code) && Predicate.isString(record.message)) {
      const detail: Record<string, unknown> = {
        code: record.code,
        message: record.message,
        retryable: record.retryable === true
      }
      for (const [key, value] of Object.entries(record)) {
        if (!internalKeys.has(key) && !(key in detail) && value !== undefined) detail[key] = value
      }
      return make(detail as unknown as ErrorDetail)
    }
    if (Predicate.isObject(record.error) && Predicate.isString(record.status)) {
      return fromFailure(record.error)
    }
  }
  return make({
    code: "internal_error",
    message: "The awareness service failed while handling this request; the session is still usable.",
    retryable: true
  })
}

/**
 * Serialises an error body as the tool result text.
 *
 * @category getters
 * @since 0.1.0
 */
export const toText = (body: ErrorBody): string => JSON.stringify(body)
