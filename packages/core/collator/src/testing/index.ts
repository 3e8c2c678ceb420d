/**
 * @heed/collator/testing: helpers for testing code built on the collator, kept out of the main barrel.
 *
 * @since 0.1.0
 */

/**
 * The store contract suite: the behaviour every `Store` implementation must have, as tests that any test runner can
 * register (`StoreContract.run({ name, layer, describe, it })`).
 *
 * @since 0.1.0
 */
export * as StoreContract from "./StoreContract.ts"
