/**
 * Attention metadata: what a provider says about how much a piece of state deserves attention.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { Salience } from "./Salience.ts"
import { Urgency } from "./Urgency.ts"

const schema = Schema.Struct({
  salience: Schema.optional(Salience),
  pinned: Schema.optional(Schema.Boolean),
  changed: Schema.optional(Schema.Boolean),
  focus: Schema.optional(Schema.Boolean),
  urgency: Schema.optional(Urgency),
  reason: Schema.optional(Schema.String),
  summary: Schema.optional(Schema.String)
}).annotate({
  identifier: "AttentionMeta",
  description: "Attention metadata a provider attaches to a piece of state (SLOP's meta fields)."
})

const salienceOf = (meta: AttentionMeta | undefined): number => meta?.salience ?? Salience.default

const urgencyOf = (meta: AttentionMeta | undefined): Urgency => meta?.urgency ?? "none"

/**
 * The attention metadata schema. Every field is optional, with SLOP's names:
 *
 * - `salience`: {@link Salience}, `0.5` when absent;
 * - `pinned`: never hide or collapse this;
 * - `changed`: modified since the consumer last looked;
 * - `focus`: the user is looking at this now;
 * - `urgency`: {@link Urgency}, `none` when absent;
 * - `reason`: why it is salient, for the model; `summary`: a one-line gist.
 *
 * Helpers: `AttentionMeta.salienceOf(meta)` and `AttentionMeta.urgencyOf(meta)` apply the defaults.
 *
 * @category schemas
 * @since 0.1.0
 */
export const AttentionMeta = Object.assign(schema, { salienceOf, urgencyOf })

/**
 * Attention metadata as plain data.
 *
 * @category models
 * @since 0.1.0
 */
export type AttentionMeta = typeof schema.Type
