/**
 * Attention metadata: what a provider says about how much a piece of state deserves attention.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as Salience from "./Salience.ts"
import * as Urgency from "./Urgency.ts"

const schema = Schema.Struct({
  salience: Schema.optional(Salience.Salience),
  pinned: Schema.optional(Schema.Boolean),
  changed: Schema.optional(Schema.Boolean),
  focus: Schema.optional(Schema.Boolean),
  urgency: Schema.optional(Urgency.Urgency),
  reason: Schema.optional(Schema.String),
  summary: Schema.optional(Schema.String)
}).annotate({
  identifier: "AttentionMeta",
  description: "Attention metadata a provider attaches to a piece of state (SLOP's meta fields)."
})

/**
 * The salience of a piece of state: its `salience`, or `0.5` when absent.
 *
 * @category getters
 * @since 0.1.0
 */
export const salienceOf = (meta: AttentionMeta | undefined): number => meta?.salience ?? Salience.defaultValue

/**
 * The urgency of a piece of state: its `urgency`, or `none` when absent.
 *
 * @category getters
 * @since 0.1.0
 */
export const urgencyOf = (meta: AttentionMeta | undefined): Urgency.Urgency => meta?.urgency ?? "none"

/**
 * The attention metadata schema. Every field is optional, with SLOP's names:
 *
 * - `salience`: {@link Salience.Salience}, `0.5` when absent;
 * - `pinned`: never hide or collapse this;
 * - `changed`: modified since the consumer last looked;
 * - `focus`: the user is looking at this now;
 * - `urgency`: {@link Urgency.Urgency}, `none` when absent;
 * - `reason`: why it is salient, for the model; `summary`: a one-line gist.
 *
 * {@link salienceOf} and {@link urgencyOf} read a field with its default applied.
 *
 * @category schemas
 * @since 0.1.0
 */
export const AttentionMeta = schema

/**
 * Attention metadata as plain data.
 *
 * @category models
 * @since 0.1.0
 */
export type AttentionMeta = typeof schema.Type
