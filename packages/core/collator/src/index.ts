/**
 * @heed/collator: awareness entries, store port, collator and a token-budgeted briefing.
 *
 * @since 0.1.0
 */

/**
 * The awareness service: one method per mcp-awareness tool (camelCase names taking the tool's decoded, typed parameters
 * — upstream's snake_case names and defaults), over the {@link Store} port. Untrusted input goes through
 * `AwarenessTools.call`, which validates it against the tool's schema first.
 *
 * @since 0.1.0
 */
export * as Awareness from "./Awareness.ts"

/**
 * The awareness service's one error type: upstream's structured tool error, with every echoed input bounded.
 *
 * @since 0.1.0
 */
export * as AwarenessError from "./AwarenessError.ts"

/**
 * The awareness tools as one typed `effect/ai` toolkit (Schema parameters, success and failure per tool), its
 * handlers on `Awareness`, and `AwarenessTools.call(name, params)`: the one validation path every edge (MCP, REST)
 * goes through.
 *
 * @since 0.1.0
 */
export * as AwarenessTools from "./AwarenessTools.ts"
/**
 * The briefing: what an agent reads at the start of a conversation to learn whether anything needs attention.
 * Upstream's fields plus heed's additions (grouping, omitted counts, heed's evaluation counters, markers for
 * re-surfaced, flapping and escalated problems).
 *
 * @since 0.1.0
 */
export * as Briefing from "./Briefing.ts"
/**
 * The briefing as an agent reads it: `BriefingView.json(briefing, { explain })` (compact unless asked to explain)
 * and `BriefingView.text(briefing)` (plain text, one line per item, most severe first).
 *
 * @since 0.1.0
 */
export * as BriefingView from "./BriefingView.ts"
/**
 * The collator: `Collator.generate(snapshot, now, options?)` digests awareness entries into a token-budgeted
 * briefing, purely and synchronously, plus the predicates and templates it is built from (`isSuppressed`,
 * `matchesPattern`, `validateConditions`, `composeSummary`, `composeMention`).
 *
 * @since 0.1.0
 */
export * as Collator from "./Collator.ts"
/**
 * The compact tool profile: six tools that cover what the 23 upstream-compatible tools of {@link AwarenessTools} do,
 * for agents that pay for `tools/list` on every request (`HEED_TOOLS=compact`).
 *
 * @since 0.1.0
 */
export * as CompactTools from "./CompactTools.ts"

/**
 * Awareness entries: mcp-awareness's envelope (`id, type, source, tags, created, updated, expires, deleted, data,
 * logical_key`) and one `data` schema per entry type, with upstream's field names and defaults.
 *
 * @since 0.1.0
 */
export * as Entry from "./Entry.ts"

/**
 * The limits on what a caller may write or ask for (identifier and text lengths, entry size, durations, instants),
 * checked at every edge: `Limits.maxIdentifierLength`, `Limits.maxEntryBytes`, ….
 *
 * @since 0.1.0
 */
export * as Limits from "./Limits.ts"

/**
 * The briefing's text templates: `Mention.composeSummary` (the `summary` line) and `Mention.composeMention` (the
 * `suggested_mention`).
 *
 * @since 0.1.0
 */
export * as Mention from "./Mention.ts"

/**
 * Learned patterns: `Pattern.matchesPattern`, `Pattern.validateConditions` and the valid `Pattern.conditionKeys`.
 *
 * @since 0.1.0
 */
export * as Pattern from "./Pattern.ts"

/**
 * The storage port: everything `Awareness` needs from a store of {@link Entry} values, as one `Context.Service`.
 *
 * @since 0.1.0
 */
export * as Store from "./Store.ts"

/**
 * Suppressions: `Suppression.isSuppressed` (matchers, recurring windows, escalation) and
 * `Suppression.validateTimeIntervals`.
 *
 * @since 0.1.0
 */
export * as Suppression from "./Suppression.ts"
