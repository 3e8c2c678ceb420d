/**
 * Agent-controlled attention (culture #355): set a target's band for a while (`set_attention`), read it back
 * (`get_attention`), and the agent's status. The same operations serve the local IPC socket
 * (`heed-agent attention`, `heed-agent status`) and the runner's tools.
 *
 * A manual band holds until its TTL expires, then decays normally from that band; a direct mention always wins.
 *
 * @since 0.1.0
 */
import { Band } from "@heed/attention-bands"
import * as Tool from "effect/ai/Tool"
import * as Toolkit from "effect/ai/Toolkit"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/**
 * One target's attention as reported to people and runners.
 *
 * @category schemas
 * @since 0.1.0
 */
export const AttentionView = Schema.Struct({
  target: Schema.String,
  band: Band.Band,
  /** Seconds left of a manual hold (`null` when none; a very large number holds until a mention). */
  manual_ttl_s: Schema.NullOr(Schema.Finite),
  pinned: Schema.Boolean,
  /** Seconds since the last poll (`null`: never polled). */
  last_poll_ago_s: Schema.NullOr(Schema.Finite),
  /** Poll interval of the current band, in seconds. */
  interval_s: Schema.Finite
})

/**
 * One target's attention.
 *
 * @category models
 * @since 0.1.0
 */
export type AttentionView = typeof AttentionView.Type

/**
 * The agent's status: who it is, the connection, whether it is paused, and every target.
 *
 * @category schemas
 * @since 0.1.0
 */
export const StatusView = Schema.Struct({
  agent: Schema.String,
  connection: Schema.String,
  paused: Schema.Boolean,
  runner: Schema.String,
  turns: Schema.Int,
  targets: Schema.Array(AttentionView)
})

/**
 * The agent's status.
 *
 * @category models
 * @since 0.1.0
 */
export type StatusView = typeof StatusView.Type

/**
 * A request the control surface refuses (unknown target, bad band or TTL); `message` says which field.
 *
 * @category errors
 * @since 0.1.0
 */
export class AttentionInputError extends Schema.TaggedError<AttentionInputError>()("AttentionInputError", {
  message: Schema.String
}) {}

/**
 * The control operations.
 *
 * @category models
 * @since 0.1.0
 */
export interface AttentionControlShape {
  readonly set: (
    target: string,
    band: Band.Band,
    ttl_s?: number | undefined
  ) => Effect.Effect<AttentionView, AttentionInputError>
  readonly get: (target: string) => Effect.Effect<AttentionView, AttentionInputError>
  readonly status: Effect.Effect<StatusView>
  /** Stops polling (mentions still make targets HOT, but no prompt is sent) until {@link resume}. */
  readonly pause: Effect.Effect<StatusView>
  readonly resume: Effect.Effect<StatusView>
}

/**
 * The control service (the agent provides it).
 *
 * @category services
 * @since 0.1.0
 */
export class AttentionControl extends Context.Service<AttentionControl, AttentionControlShape>()(
  "@heed/agent/AttentionControl"
) {}

/**
 * The `set_attention` tool.
 *
 * @category models
 * @since 0.1.0
 */
export const SetAttention = Tool.make("set_attention", {
  description:
    "Choose how often you look at a channel or DM: HOT (every 30 s), WARM, COOL or IDLE (every 10 min). " +
    "Use IDLE after finishing a task until pinged; HOT while waiting for an answer. The band holds for ttl_s " +
    "seconds, then decays normally; a direct mention always makes the target HOT.",
  parameters: Schema.Struct({
    target: Schema.String.annotate({ description: "A channel like #dev, or DM:<nick>" }),
    band: Band.Band,
    ttl_s: Schema.optionalKey(Schema.Finite.annotate({ description: "How long to hold the band, in seconds" }))
  }),
  success: AttentionView,
  failure: AttentionInputError,
  failureMode: "return"
})

/**
 * The `get_attention` tool.
 *
 * @category models
 * @since 0.1.0
 */
export const GetAttention = Tool.make("get_attention", {
  description: "Read a channel's or DM's current attention band, any manual hold left, and when it was last polled.",
  parameters: Schema.Struct({ target: Schema.String }),
  success: AttentionView,
  failure: AttentionInputError,
  failureMode: "return"
})

/**
 * The attention tools runners may call.
 *
 * @category models
 * @since 0.1.0
 */
export const toolkit = Toolkit.make(SetAttention, GetAttention)

/**
 * Handlers of {@link toolkit} over the {@link AttentionControl} service.
 *
 * @category layers
 * @since 0.1.0
 */
export const toolkitLayer = toolkit.toLayer(
  Effect.map(AttentionControl, (control) =>
    toolkit.of({
      set_attention: ({ band, target, ttl_s }) => control.set(target, band, ttl_s),
      get_attention: ({ target }) => control.get(target)
    })
  )
)
