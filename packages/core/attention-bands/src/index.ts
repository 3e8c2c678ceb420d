/**
 * @heed/attention-bands: HOT/WARM/COOL/IDLE attention bands per target: tracker, config and poll scheduler.
 *
 * @since 0.1.0
 */

export * from "./AttentionConfig.ts"
export * from "./Band.ts"

/**
 * The thread-window predicate shared by adapters: `Engagement.make(config)`, `Engagement.isWithinWindow`,
 * `Engagement.dmTarget`.
 *
 * @since 0.1.0
 */
export * as Engagement from "./Engagement.ts"

export * from "./Scheduler.ts"

/**
 * The pure attention state machine: `Tracker.make(config, { onTransition })` and its state types.
 *
 * @since 0.1.0
 */
export * as Tracker from "./Tracker.ts"
