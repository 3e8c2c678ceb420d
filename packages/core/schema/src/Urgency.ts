/**
 * Urgency: how soon something needs a reaction, from `none` to `critical`.
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"
import * as Ord from "effect/Order"
import * as Schema from "effect/Schema"

/**
 * Every urgency level, least urgent first.
 *
 * @category constants
 * @since 0.1.0
 */
export const levels = ["none", "low", "medium", "high", "critical"] as const satisfies ReadonlyArray<Urgency>

const schema = Schema.Literals(levels).annotate({
  message: `urgency must be one of ${levels.join(", ")}`,
  description: "How soon something needs a reaction: none, low, medium, high or critical."
})

/**
 * The rank of a level: `0` for `none` up to `4` for `critical`.
 *
 * @category getters
 * @since 0.1.0
 */
export const rank = (urgency: Urgency): number => levels.indexOf(urgency)

/**
 * The most urgent of its arguments, or of a collection (`none` when it is empty).
 *
 * @category combinators
 * @since 0.1.0
 */
export function max(levels: Iterable<Urgency>): Urgency
export function max(first: Urgency, ...rest: ReadonlyArray<Urgency>): Urgency
export function max(first: Urgency | Iterable<Urgency>, ...rest: ReadonlyArray<Urgency>): Urgency {
  // Called with a collection (`Urgency.max(list)`): its most urgent level, `none` when empty.
  const all: Iterable<Urgency> = typeof first === "string" ? [first, ...rest] : first
  let best: Urgency = "none"
  for (const urgency of all) if (rank(urgency) > rank(best)) best = urgency
  return best
}

/**
 * An `Order` from least to most urgent (reverse it to sort the most urgent first).
 *
 * @category combinators
 * @since 0.1.0
 */
export const Order: Ord.Order<Urgency> = Ord.mapInput(Ord.Number, rank)

/**
 * Decodes unknown input into an urgency level.
 *
 * @category decoding
 * @since 0.1.0
 */
export const decode: (input: unknown) => Effect.Effect<Urgency, Schema.SchemaError> = Schema.decodeUnknownEffect(schema)

/**
 * The urgency schema (`"none" | "low" | "medium" | "high" | "critical"`); the module's {@link rank}, {@link max},
 * {@link Order} and {@link decode} work on its values.
 *
 * **Example** (Picking the most urgent)
 *
 * ```ts
 * import { Urgency } from "@heed/schema"
 *
 * Urgency.max("low", "critical", "medium") // "critical"
 * Urgency.rank("high") // 3
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const Urgency = schema

/**
 * An urgency level, least to most urgent: `none`, `low`, `medium`, `high`, `critical`.
 *
 * @category models
 * @since 0.1.0
 */
export type Urgency = "none" | "low" | "medium" | "high" | "critical"
