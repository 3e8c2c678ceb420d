/**
 * @heed/schema — the shared vocabulary of heed's cores.
 *
 * @since 0.1.0
 */

/**
 * Attention metadata: what a provider says about how much a piece of state deserves attention.
 *
 * @since 0.1.0
 */
export * as AttentionMeta from "./AttentionMeta.ts"

/**
 * Salience: how much a piece of state deserves an agent's attention, a finite number in `[0, 1]`.
 *
 * @since 0.1.0
 */
export * as Salience from "./Salience.ts"

/**
 * Token budgets and the arithmetic the cores share: fitting, remaining room, fair splits and greedy packing.
 *
 * @since 0.1.0
 */
export * as TokenBudget from "./TokenBudget.ts"

/**
 * Token counting behind one service, so every core measures budgets the same way.
 *
 * @since 0.1.0
 */
export * as TokenCounter from "./TokenCounter.ts"

/**
 * Urgency: how soon something needs a reaction, from `none` to `critical`.
 *
 * @since 0.1.0
 */
export * as Urgency from "./Urgency.ts"
