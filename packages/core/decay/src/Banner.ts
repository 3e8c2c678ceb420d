/**
 * The programmatic banners that announce effort events (never written by a model). Texts are CCM's.
 *
 * @since 0.1.0
 */

/**
 * `--- Started effort: {id} ---`
 *
 * @category constructors
 * @since 0.1.0
 */
export const started = (id: string): string => `--- Started effort: ${id} ---`

/**
 * `--- Concluded effort: {id} ---` followed by `Summary: {summary}` on the next line.
 *
 * @category constructors
 * @since 0.1.0
 */
export const concluded = (id: string, summary: string): string => `--- Concluded effort: ${id} ---\nSummary: ${summary}`

/**
 * `--- Expanded effort: {id} ({n} tokens loaded) ---`
 *
 * @category constructors
 * @since 0.1.0
 */
export const expanded = (id: string, tokens: number): string =>
  `--- Expanded effort: ${id} (${tokens} tokens loaded) ---`

/**
 * `--- Collapsed effort: {id} (back to summary) ---` (a manual collapse).
 *
 * @category constructors
 * @since 0.1.0
 */
export const collapsed = (id: string): string => `--- Collapsed effort: ${id} (back to summary) ---`

/**
 * `--- Switched to effort: {id} ---`
 *
 * @category constructors
 * @since 0.1.0
 */
export const switched = (id: string): string => `--- Switched to effort: ${id} ---`

/**
 * `--- Reopened effort: {id} ---`
 *
 * @category constructors
 * @since 0.1.0
 */
export const reopened = (id: string): string => `--- Reopened effort: ${id} ---`

/**
 * `--- Auto-collapsed effort: {id} (inactive for {n} turns) ---`, the salience-decay banner. heed prints the
 * number of turns the effort actually went unreferenced (equal to the threshold for an ordinary decay).
 * A collapse forced by the token budget adds `, over token budget` inside the parentheses.
 *
 * @category constructors
 * @since 0.1.0
 */
export const autoCollapsed = (id: string, inactiveTurns: number, overBudget = false): string =>
  `--- Auto-collapsed effort: ${id} (inactive for ${inactiveTurns} turns${overBudget ? ", over token budget" : ""}) ---`

/**
 * The line that marks a reopened effort in its raw log.
 *
 * @category constants
 * @since 0.1.0
 */
export const REOPENED_LOG_LINE = "--- Effort reopened ---"
