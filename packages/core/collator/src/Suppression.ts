/**
 * Suppressions: which alerts a suppression mutes, and when.
 *
 * A suppression selects alerts by `source` (`""` is global), `metric` and `tags` (a tag matches the alert's tags,
 * or occurs in its `alert_id`, `message` or `metric`, case-insensitively). It is active until `expires` and, with
 * heed's recurring `time_intervals`, only inside its windows (weekdays and `HH:MM` ranges in a time zone). With
 * `escalation_override` (the default) an alert ranking above `suppress_level` breaks through. When a suppression
 * expires, the alerts it muted re-surface: `Collator.generate` marks them `resurfaced`.
 *
 * @since 0.1.0
 */
import { liveCheck } from "./internal/alert.ts"
import * as internal from "./internal/suppression.ts"

/**
 * Checks a suppression's `time_intervals` (`[{ weekdays?, times?: [{ start_time, end_time }], location? }]`);
 * returns an error message, or `undefined` when they are valid. A suppression with invalid intervals never mutes
 * anything, and `suppress_alert` rejects it.
 *
 * @category decoding
 * @since 0.1.0
 */
export const validateTimeIntervals: (value: unknown) => string | undefined = internal.validateTimeIntervals

/**
 * Upstream's `is_suppressed`, with heed's recurring windows: the first matching active suppression decides. A
 * matching suppression mutes the alert unless `escalation_override` is on and the alert's level ranks above
 * `suppress_level` (so `suppress_level: "critical"` mutes every level). Expired, deleted and out-of-window
 * suppressions are ignored. Throws {@link Collator.CollatorInputError} when `now` is an invalid `Date` or `timezone` is
 * unknown.
 *
 * @category guards
 * @since 0.1.0
 */
export const isSuppressed = liveCheck(
  internal.toSuppression,
  (alert, suppressions, now, zone) => internal.suppressedBy(alert, suppressions, now, zone) !== undefined
)
