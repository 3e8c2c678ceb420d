/**
 * @heed/schema — the shared vocabulary of heed's cores.
 *
 * @since 0.1.0
 */

export * from "./AttentionMeta.ts"
export * from "./Salience.ts"
export * from "./TokenBudget.ts"
export * from "./TokenCounter.ts"
export * from "./Urgency.ts"
