/**
 * @heed/collator: awareness entries, store port, collator and a token-budgeted briefing.
 *
 * @since 0.1.0
 */

export * from "./Awareness.ts"
export * from "./AwarenessError.ts"

/**
 * The awareness tools as one typed `effect/ai` toolkit (Schema parameters, success and failure per tool), its
 * handlers on `Awareness`, and `AwarenessTools.call(name, params)`: the one validation path every edge (MCP, REST)
 * goes through.
 *
 * @since 0.1.0
 */
export * as AwarenessTools from "./AwarenessTools.ts"
export * from "./Briefing.ts"

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

export * from "./Entry.ts"

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
export * from "./Store.ts"

/**
 * The store contract suite every `Store` implementation must pass: `StoreContract.run({ name, layer, describe, it })`
 * registers it with the caller's test runner (no test-framework dependency here).
 *
 * @since 0.1.0
 */
export * as StoreContract from "./StoreContract.ts"

/**
 * Suppressions: `Suppression.isSuppressed` (matchers, recurring windows, escalation) and
 * `Suppression.validateTimeIntervals`.
 *
 * @since 0.1.0
 */
export * as Suppression from "./Suppression.ts"
