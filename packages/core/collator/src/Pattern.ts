/**
 * Patterns: learned explanations ("qBittorrent stops on Fridays") that keep expected alerts out of the briefing.
 *
 * A pattern's `conditions` say when it applies (`day_of_week`, `hour_range`, in the owner's or the pattern's own
 * `timezone`) and, with heed's structural matchers, which alerts it explains (`alert_id` glob, `metric`, `tags`,
 * `level`); without matchers its `effect` text decides. Condition keys are validated: a pattern with an unknown or
 * malformed condition never matches, and `learn_pattern` rejects it.
 *
 * @since 0.1.0
 */
import { liveCheck } from "./internal/alert.ts"
import * as internal from "./internal/pattern.ts"

/**
 * The condition keys a pattern may use: `day_of_week` (a day name or a list of them), `hour_range`
 * (`[start, end)`, wrapping overnight when start > end), `timezone` (IANA; default the owner's), and heed's
 * structural matchers `alert_id` (a glob), `metric`, `tags` (any overlap) and `level`.
 *
 * @category constants
 * @since 0.1.0
 */
export const conditionKeys: readonly ["day_of_week", "hour_range", "timezone", "alert_id", "metric", "tags", "level"] =
  internal.conditionKeys

/**
 * Why a pattern's conditions were rejected: the offending `key`, a `message`, and a did-you-mean `suggestion` for
 * an unknown key.
 *
 * @category models
 * @since 0.1.0
 */
export interface ConditionProblem {
  readonly key: string
  readonly message: string
  readonly suggestion?: string
}

/**
 * Validates a pattern's `conditions`; returns the first problem, or `undefined` when they are valid. A pattern
 * with invalid conditions never matches in `Collator.generate`, and `learn_pattern` rejects it.
 *
 * @category decoding
 * @since 0.1.0
 */
export const validateConditions: (conditions: unknown) => ConditionProblem | undefined = internal.validateConditions

/**
 * heed's `matches_pattern`: whether any live pattern explains the alert at `now`. Conditions are evaluated in
 * `options.timezone` (default UTC) unless the pattern names its own `timezone`; a pattern with an unknown or
 * malformed condition never matches. With structural matchers (`alert_id` glob, `metric`, `tags`, `level`) those
 * decide; otherwise the effect text decides: every effect word (split on `_`, `-` and punctuation, stop words
 * removed) must occur in the alert's id, type, metric or message, or the effect must name the alert's id or metric.
 * Conditions that are not an object (a string, number, boolean or array) never match. Throws
 * `Collator.CollatorInputError` when `now` is an invalid `Date` or `timezone` is unknown.
 *
 * @category guards
 * @since 0.1.0
 */
export const matchesPattern = liveCheck(internal.toPattern, (alert, patterns, _now, zone) =>
  patterns.some((pattern) => internal.patternMatches(pattern, alert, zone))
)
