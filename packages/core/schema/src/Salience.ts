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

const decode: (input: unknown) => Effect.Effect<number, Schema.SchemaError> = Schema.decodeUnknownEffect(schema)

/**
 * Clamps any number into `[0, 1]`; `NaN` becomes {@link Salience}`.default`.
 */
const clamp = (value: number): number => (Number.isNaN(value) ? DEFAULT : Math.min(1, Math.max(0, value)))

const DEFAULT = 0.5

/**
 * The salience schema. Decoding rejects `NaN`, infinities and values outside `[0, 1]`, all with the message
 * "salience must be a finite number between 0 and 1". The schema also carries helpers:
 *
 * - `Salience.default`: `0.5`, the salience SLOP assumes when a node has none;
 * - `Salience.decode(input)`: an Effect that decodes unknown input;
 * - `Salience.clamp(n)`: forces any number into range (`NaN` becomes the default).
 *
 * **Example** (Decoding salience)
 *
 * ```ts
 * import { Salience } from "@heed/schema"
 * import { Effect } from "effect"
 *
 * const ok = Effect.runSync(Salience.Salience.decode(0.8)) // 0.8
 * const clamped = Salience.Salience.clamp(1.7) // 1
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const Salience = Object.assign(schema, { default: DEFAULT, decode, clamp })

/**
 * A salience value: a finite number in `[0, 1]`.
 *
 * @category models
 * @since 0.1.0
 */
export type Salience = typeof schema.Type
