/**
 * @heed/attention-bands: HOT/WARM/COOL/IDLE attention bands per target: tracker, config and poll scheduler.
 *
 * @since 0.1.0
 */

/**
 * The attention configuration: culture's `attention:` block with its snake_case keys, defaults, validation, the
 * per-agent merge and the legacy `poll_interval` migration. One config type for every backend.
 *
 * @since 0.1.0
 */
export * as AttentionConfig from "./AttentionConfig.ts"

/**
 * Attention bands: `HOT`, `WARM`, `COOL` and `IDLE`, ordered from warmest (polled most often) to coldest.
 *
 * @since 0.1.0
 */
export * as Band from "./Band.ts"

/**
 * The thread-window predicate shared by adapters: `Engagement.make(config)`, `Engagement.isWithinWindow`,
 * `Engagement.dmTarget`.
 *
 * @since 0.1.0
 */
export * as Engagement from "./Engagement.ts"

/**
 * The poll scheduler: an Effect service that owns a {@link Tracker.Tracker} and an {@link Engagement.Engagement}, ticks
 * every `tick_s` on Effect's `Clock` (monotonic time), polls due targets through a caller-supplied effect, and reports
 * culture's log line and metrics.
 *
 * @since 0.1.0
 */
export * as Scheduler from "./Scheduler.ts"

/**
 * The pure attention state machine: `Tracker.make(config, { onTransition })` and its state types.
 *
 * @since 0.1.0
 */
export * as Tracker from "./Tracker.ts"
