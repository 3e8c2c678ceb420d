/**
 * @heed/collator/testing: helpers for testing code built on the collator, kept out of the main barrel.
 *
 * @since 0.1.0
 */

/**
 * Random write histories that check an incremental briefing against a full regeneration after every step
 * (`BriefingHistories.run({ seed, steps, writers, checked, reference, advance })`).
 *
 * @since 0.2.0
 */
export * as BriefingHistories from "./BriefingHistories.ts"
/**
 * The store contract suite: the behaviour every `Store` implementation must have, as tests that any test runner can
 * register (`StoreContract.run({ name, layer, describe, it })`).
 *
 * @since 0.1.0
 */
export * as StoreContract from "./StoreContract.ts"
