/**
 * What a session measures: the {@link DecayMetrics} returned with every turn and the Effect metrics updated
 * alongside them, named as in the slice-3 (decay) and slice-2 (context) specs.
 *
 * @since 0.1.0
 */
import * as Metric from "effect/Metric"

/**
 * The decay (slice 3) and context (slice 2) metrics.
 *
 * @category models
 * @since 0.1.0
 */
export interface DecayMetrics {
  /** The last completed turn. */
  readonly turn: number
  /** Auto-collapses so far. */
  readonly auto_collapses: number
  /** Manual `collapseEffort` calls so far. */
  readonly manual_collapses: number
  /** Average turns an expansion stayed expanded, over finished expansions (0 when none finished). */
  readonly avg_expansion_duration: number
  /** Share of collapses that were manual: manual / (manual + auto), 0 when there were none. */
  readonly manual_vs_auto_collapse: number
  /** Re-expansions within 2 turns of an auto-collapse. */
  readonly false_decays: number
  /** `false_decays / auto_collapses` (0 without auto-collapses). */
  readonly false_decay_rate: number
  /** Tokens freed by auto-collapses so far (the raw size of each decayed effort, summed). */
  readonly tokens_saved_by_decay: number
  /** Tokens in the working context for the next turn (sum over its parts). */
  readonly context_tokens: number
  /** Tokens of expanded efforts in that context. */
  readonly expansion_tokens: number
  /** `expansion_tokens / context_tokens`. */
  readonly expansion_overhead: number
  /** `1 − context_tokens / naive_tokens`, where naive keeps every message of the session. */
  readonly savings_vs_naive: number
}

/**
 * The `auto_collapses` counter: auto-collapse events.
 *
 * @category constants
 * @since 0.1.0
 */
export const auto_collapses = Metric.counter("auto_collapses", { description: "Auto-collapse events" })

/**
 * The `manual_collapses` counter: explicit collapse_effort calls.
 *
 * @category constants
 * @since 0.1.0
 */
export const manual_collapses = Metric.counter("manual_collapses", { description: "Explicit collapse_effort calls" })

/**
 * The `false_decays` counter: re-expansions within 2 turns of a decay.
 *
 * @category constants
 * @since 0.1.0
 */
export const false_decays = Metric.counter("false_decays", { description: "Re-expansions within 2 turns of a decay" })

/**
 * The `tokens_saved_by_decay` counter: tokens freed by auto-collapses.
 *
 * @category constants
 * @since 0.1.0
 */
export const tokens_saved_by_decay = Metric.counter("tokens_saved_by_decay", {
  description: "Tokens freed by auto-collapses"
})

/**
 * The `avg_expansion_duration` gauge: average turns per expansion.
 *
 * @category constants
 * @since 0.1.0
 */
export const avg_expansion_duration = Metric.gauge("avg_expansion_duration", {
  description: "Average turns per expansion"
})

/**
 * The `manual_vs_auto_collapse` gauge: manual share of collapses.
 *
 * @category constants
 * @since 0.1.0
 */
export const manual_vs_auto_collapse = Metric.gauge("manual_vs_auto_collapse", {
  description: "Manual share of collapses"
})

/**
 * The `false_decay_rate` gauge: false decays per auto-collapse.
 *
 * @category constants
 * @since 0.1.0
 */
export const false_decay_rate = Metric.gauge("false_decay_rate", { description: "False decays per auto-collapse" })

/**
 * The `context_tokens` gauge: tokens in the working context.
 *
 * @category constants
 * @since 0.1.0
 */
export const context_tokens = Metric.gauge("context_tokens", { description: "Tokens in the working context" })

/**
 * The `expansion_tokens` gauge: tokens of expanded efforts in context.
 *
 * @category constants
 * @since 0.1.0
 */
export const expansion_tokens = Metric.gauge("expansion_tokens", {
  description: "Tokens of expanded efforts in context"
})

/**
 * The `expansion_overhead` gauge: expansion_tokens / context_tokens.
 *
 * @category constants
 * @since 0.1.0
 */
export const expansion_overhead = Metric.gauge("expansion_overhead", {
  description: "expansion_tokens / context_tokens"
})

/**
 * The `savings_vs_naive` gauge: 1 - context / full history tokens.
 *
 * @category constants
 * @since 0.1.0
 */
export const savings_vs_naive = Metric.gauge("savings_vs_naive", { description: "1 - context / full history tokens" })
