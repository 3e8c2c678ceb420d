/**
 * The thread-window predicate shared by every adapter: ambient traffic on a target counts only while the agent is
 * engaged there, that is, it spoke or was mentioned on the target within `thread_window_s`.
 *
 * @since 0.1.0
 */
import * as Option from "effect/Option"
import type * as AttentionConfig from "./AttentionConfig.ts"

/**
 * Whether an engagement at `lastEngagedAt` still holds at `now`: `true` unless there was none (`None`,
 * `undefined` or `null`) or it is more than `windowS` seconds ago. `lastEngagedAt` may be an `Option` or a plain
 * number of seconds. The comparison is strict, so exactly `windowS` seconds later still counts (upstream's boundary
 * rule); a clock that moved backwards still counts too.
 *
 * @category guards
 * @since 0.1.0
 */
export const isWithinWindow = (
  lastEngagedAt: Option.Option<number> | number | null | undefined,
  now: number,
  windowS: number
): boolean => {
  const at =
    typeof lastEngagedAt === "number"
      ? lastEngagedAt
      : Option.isOption(lastEngagedAt) && Option.isSome(lastEngagedAt)
        ? lastEngagedAt.value
        : undefined
  return at !== undefined && !Number.isNaN(at) && !(now - at > windowS)
}

/**
 * The target key for direct messages from `peer`: `DM:<peer>`. heed keys every DM conversation by its peer, never
 * by the agent's own nick (an upstream bug that merged all DMs into one target).
 *
 * @category constructors
 * @since 0.1.0
 */
export const dmTarget = (peer: string): string => `DM:${peer}`

/**
 * Per-target engagement times. Record an engagement when the agent speaks on a target (`onOutgoing`, including
 * thread replies) or is mentioned there; receiving ambient traffic does not engage.
 *
 * @category models
 * @since 0.1.0
 */
export interface Engagement {
  /** The window in seconds (the config's `thread_window_s`). */
  readonly windowS: number
  /** Records that the agent spoke or was mentioned on `target` at `now`. */
  readonly engage: (target: string, now: number) => void
  /** Whether ambient traffic on `target` at `now` should count (see {@link isWithinWindow}). */
  readonly isEngaged: (target: string, now: number) => boolean
  /** When the agent last engaged on `target`. */
  readonly lastEngagedAt: (target: string) => Option.Option<number>
  /** Drops `target` (e.g. on part). Returns whether it was known. */
  readonly forget: (target: string) => boolean
}

/**
 * Builds an engagement table for a config's `thread_window_s` (or a window given directly in seconds).
 *
 * **Example** (Gating ambient traffic)
 *
 * ```ts
 * import { AttentionConfig, Engagement } from "@heed/attention-bands"
 *
 * const engagement = Engagement.make(AttentionConfig.defaults)
 * engagement.isEngaged("#dev", 10) // false: never spoke there
 * engagement.engage("#dev", 10)
 * engagement.isEngaged("#dev", 1810) // true: exactly thread_window_s later still counts
 * engagement.isEngaged("#dev", 1811) // false
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (config: Pick<AttentionConfig.AttentionConfig, "thread_window_s"> | number): Engagement => {
  const windowS = typeof config === "number" ? config : config.thread_window_s
  const engagedAt = new Map<string, number>()
  const lastEngagedAt = (target: string): Option.Option<number> => Option.fromUndefinedOr(engagedAt.get(target))
  return {
    windowS,
    engage: (target, now) => {
      if (Number.isFinite(now)) engagedAt.set(target, now)
    },
    isEngaged: (target, now) => isWithinWindow(lastEngagedAt(target), now, windowS),
    lastEngagedAt,
    forget: (target) => engagedAt.delete(target)
  }
}
