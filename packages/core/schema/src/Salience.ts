/**
 * Salience: how much a piece of state deserves an agent's attention, a finite number in `[0, 1]`.
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

const MESSAGE = "salience must be a finite number between 0 and 1"

// `NaN` and infinities get the same message as out-of-range values (not the generic "Expected a finite number").
const schema = Schema.Number.check(
  Schema.isFinite({ message: MESSAGE }),
  Schema.isBetween({ minimum: 0, maximum: 1 }, { message: MESSAGE })
).annotate({
  identifier: "Salience",
  description: "How much a piece of state deserves attention: 0 (ignore) to 1 (look now)."
})

/**
 * `0.5`, the salience SLOP assumes when a node has none.
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultValue = 0.5

/**
 * Decodes unknown input into a salience, failing with "salience must be a finite number between 0 and 1".
 *
 * @category decoding
 * @since 0.1.0
 */
export const decode: (input: unknown) => Effect.Effect<number, Schema.SchemaError> = Schema.decodeUnknownEffect(schema)

/**
 * Clamps any number into `[0, 1]`; `NaN` becomes {@link defaultValue}.
 *
 * @category combinators
 * @since 0.1.0
 */
export const clamp = (value: number): number => (Number.isNaN(value) ? defaultValue : Math.min(1, Math.max(0, value)))

/**
 * The salience schema. Decoding rejects `NaN`, infinities and values outside `[0, 1]`, all with the message
 * "salience must be a finite number between 0 and 1". The module's functions work on it: {@link decode},
 * {@link clamp} and {@link defaultValue}.
 *
 * **Example** (Decoding salience)
 *
 * ```ts
 * import { Salience } from "@heed/schema"
 * import { Effect } from "effect"
 *
 * const ok = Effect.runSync(Salience.decode(0.8)) // 0.8
 * const clamped = Salience.clamp(1.7) // 1
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const Salience = schema

/**
 * A salience value: a finite number in `[0, 1]`.
 *
 * @category models
 * @since 0.1.0
 */
export type Salience = typeof schema.Type
