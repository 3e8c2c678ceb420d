/**
 * The awareness service's one error type: upstream's structured tool error, with every echoed input bounded.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * A structured tool error, as upstream's `{"status":"error","error":{...}}` envelope: `code`
 * (`invalid_parameter`, `not_found`, `unavailable`, `schema_immutable`, ...), an actionable `message`,
 * `retryable`, and where relevant the offending `param` and `value`, the `valid` values and a did-you-mean
 * `suggestion` (edit distance at most 2), or a `help_url`.
 *
 * @category errors
 * @since 0.1.0
 */
export class AwarenessError extends Schema.TaggedError<AwarenessError>()("AwarenessError", {
  code: Schema.String,
  message: Schema.String,
  retryable: Schema.Boolean,
  param: Schema.optionalKey(Schema.String),
  value: Schema.optionalKey(Schema.Unknown),
  valid: Schema.optionalKey(Schema.Array(Schema.String)),
  suggestion: Schema.optionalKey(Schema.String),
  help_url: Schema.optionalKey(Schema.String)
}) {
  /** The JSON envelope upstream's tools return as error text. */
  toEnvelope(): { status: "error"; error: Record<string, unknown> } {
    const { _tag, ...error } = { ...this }
    return { status: "error", error: { ...error, message: this.message } }
  }
}

/**
 * A configuration mistake in `Awareness.layerWith(options)` (an unknown `timezone`, a negative limit): building
 * the layer fails with this typed error naming the `option`, instead of dying.
 *
 * @category errors
 * @since 0.1.0
 */
export class AwarenessConfigError extends Schema.TaggedError<AwarenessConfigError>()("AwarenessConfigError", {
  option: Schema.String,
  message: Schema.String
}) {}
