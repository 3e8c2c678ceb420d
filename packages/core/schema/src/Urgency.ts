/**
 * Urgency: how soon something needs a reaction, from `none` to `critical`.
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"
import * as Order from "effect/Order"
import * as Schema from "effect/Schema"

const levels = ["none", "low", "medium", "high", "critical"] as const satisfies ReadonlyArray<Urgency>

const schema = Schema.Literals(levels).annotate({
  message: `urgency must be one of ${levels.join(", ")}`,
  description: "How soon something needs a reaction: none, low, medium, high or critical."
})

const rank = (urgency: Urgency): number => levels.indexOf(urgency)

function max(levels: Iterable<Urgency>): Urgency
function max(first: Urgency, ...rest: ReadonlyArray<Urgency>): Urgency
function max(first: Urgency | Iterable<Urgency>, ...rest: ReadonlyArray<Urgency>): Urgency {
  // Called with a collection (`Urgency.max(list)`): its most urgent level, `none` when empty.
  const all: Iterable<Urgency> = typeof first === "string" ? [first, ...rest] : first
  let best: Urgency = "none"
  for (const urgency of all) if (rank(urgency) > rank(best)) best = urgency
  return best
}

const order: Order.Order<Urgency> = Order.mapInput(Order.Number, rank)

const decode: (input: unknown) => Effect.Effect<Urgency, Schema.SchemaError> = Schema.decodeUnknownEffect(schema)

/**
 * The urgency schema (`"none" | "low" | "medium" | "high" | "critical"`), carrying helpers:
 *
 * - `Urgency.levels`: every level, least urgent first;
 * - `Urgency.rank(u)`: `0` for `none` up to `4` for `critical`;
 * - `Urgency.max(a, ...rest)`: the most urgent of its arguments; `Urgency.max(list)`: the most urgent of a
 *   collection (`none` when it is empty);
 * - `Urgency.Order` (alias `Urgency.order`): an `Order` from least to most urgent (reverse it to sort the most
 *   urgent first);
 * - `Urgency.decode(input)`: an Effect that decodes unknown input.
 *
 * **Example** (Picking the most urgent)
 *
 * ```ts
 * import { Urgency } from "@heed/schema"
 *
 * Urgency.Urgency.max("low", "critical", "medium") // "critical"
 * Urgency.Urgency.rank("high") // 3
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const Urgency = Object.assign(schema, { levels, rank, max, Order: order, order, decode })

/**
 * An urgency level, least to most urgent: `none`, `low`, `medium`, `high`, `critical`.
 *
 * @category models
 * @since 0.1.0
 */
export type Urgency = "none" | "low" | "medium" | "high" | "critical"
