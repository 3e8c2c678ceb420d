/**
 * Token budgets and the arithmetic the cores share: fitting, remaining room, fair splits and greedy packing.
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

const MESSAGE = "a token budget must be a positive integer"

// Fractions, `NaN` and infinities get the same message as zero or negatives (not "Expected an integer").
const schema = Schema.Number.check(
  Schema.isInt({ message: MESSAGE }),
  Schema.isGreaterThan(0, { message: MESSAGE })
).annotate({
  identifier: "TokenBudget",
  description: "A positive whole number of tokens."
})

/**
 * Decodes unknown input into a token budget, failing with "a token budget must be a positive integer".
 *
 * @category decoding
 * @since 0.1.0
 */
export const decode: (input: unknown) => Effect.Effect<number, Schema.SchemaError> = Schema.decodeUnknownEffect(schema)

/** True when `used` tokens fit in `budget`. */
/**
 *
 *
 * @category guards
 * @since 0.1.0
 */
export const fits = (budget: number, used: number): boolean => used <= budget

/** The tokens left in `budget` after `used`, never below zero. */
/**
 *
 *
 * @category getters
 * @since 0.1.0
 */
export const remaining = (budget: number, used: number): number => Math.max(0, budget - used)

/**
 * Splits `budget` across `weights` in proportion, as whole tokens that add up to `budget` exactly (largest-remainder rounding; ties go to the earlier weight). Non-positive weights get nothing; when every weight is non-positive the split is even.
 *
 * @category combinators
 * @since 0.1.0
 */
export const split = (budget: number, weights: ReadonlyArray<number>): Array<number> => {
  if (weights.length === 0) return []
  const positive = weights.map((weight) => (Number.isFinite(weight) && weight > 0 ? weight : 0))
  const total = positive.reduce((sum, weight) => sum + weight, 0)
  const shares = total === 0 ? weights.map(() => budget / weights.length) : positive.map((w) => (budget * w) / total)
  const parts = shares.map(Math.floor)
  let left = budget - parts.reduce((sum, part) => sum + part, 0)
  const byRemainder = shares.map((share, index) => ({ index, rest: share - Math.floor(share) }))
  byRemainder.sort((a, b) => b.rest - a.rest || a.index - b.index)
  for (const { index } of byRemainder) {
    if (left <= 0) break
    parts[index]! += 1
    left -= 1
  }
  return parts
}

/**
 * The result of {@link pack}.
 *
 * @category models
 * @since 0.1.0
 */
export interface Packed<A> {
  /** The items that fit, in their original order. */
  readonly taken: ReadonlyArray<A>
  /** The items left out, in their original order. */
  readonly dropped: ReadonlyArray<A>
  /** Tokens used by `taken`. */
  readonly used: number
}

/**
 * Takes items in order while they fit in `budget`; an item that does not fit is dropped and later, smaller items may still be taken. `cost` is called once per item.
 *
 * @category combinators
 * @since 0.1.0
 */
export const pack = <A>(items: Iterable<A>, cost: (item: A) => number, budget: number): Packed<A> => {
  const taken: Array<A> = []
  const dropped: Array<A> = []
  let used = 0
  for (const item of items) {
    const tokens = cost(item)
    if (used + tokens <= budget) {
      taken.push(item)
      used += tokens
    } else {
      dropped.push(item)
    }
  }
  return { taken, dropped, used }
}

/**
 * The token budget schema: a positive integer. Anything else (zero, negatives, fractions, `NaN`, infinities) is
 * rejected with "a token budget must be a positive integer". The module's functions are the shared budget arithmetic:
 *
 * - `TokenBudget.decode(input)`: an Effect that decodes unknown input;
 * - `TokenBudget.fits(budget, used)` and `TokenBudget.remaining(budget, used)`;
 * - `TokenBudget.split(budget, weights)`: proportional whole-token shares that add up to the budget;
 * - `TokenBudget.pack(items, cost, budget)`: keep items in order while they fit.
 *
 * **Example** (Sharing a budget)
 *
 * ```ts
 * import { TokenBudget } from "@heed/schema"
 *
 * TokenBudget.split(500, [3, 1, 1]) // [300, 100, 100]
 * TokenBudget.pack(["a", "bb", "ccc"], (s) => s.length, 4).taken // ["a", "bb"]
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const TokenBudget = schema

/**
 * A token budget: a positive integer number of tokens.
 *
 * @category models
 * @since 0.1.0
 */
export type TokenBudget = typeof schema.Type
