/**
 * The caller's own arguments (`now`, `timezone`) and the error thrown when they are invalid.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { isTimeZone } from "./time.ts"

/**
 * Thrown (synchronously) by {@link generate}, `Suppression.isSuppressed` and `Pattern.matchesPattern` when the
 * caller's own arguments are invalid: `now` is not a valid `Date`, or `timezone` is not an IANA time zone. `param`
 * names the argument. Bad entries in the snapshot never throw: they are skipped or never match.
 *
 * @category errors
 * @since 0.1.0
 */
export class CollatorInputError extends Schema.TaggedError<CollatorInputError>()("CollatorInputError", {
  param: Schema.String,
  message: Schema.String
}) {}

/** Validates the caller's `now` and `timezone`; returns `now` in milliseconds. */
export const checkInput = (now: Date, timezone: string | undefined): number => {
  const nowMs = now instanceof Date ? now.getTime() : Number.NaN
  if (!Number.isFinite(nowMs)) {
    throw new CollatorInputError({
      param: "now",
      message: `now must be a valid Date (got ${now instanceof Date ? "an invalid Date" : typeof now})`
    })
  }
  if (timezone !== undefined && (typeof timezone !== "string" || !isTimeZone(timezone))) {
    throw new CollatorInputError({
      param: "timezone",
      message: `timezone must be an IANA time zone such as "Europe/Berlin" (got ${JSON.stringify(timezone)})`
    })
  }
  return nowMs
}
