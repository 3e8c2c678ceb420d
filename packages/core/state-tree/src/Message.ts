/**
 * SLOP messages: schemas for every message a consumer sends (`subscribe`, `unsubscribe`, `query`, `invoke`) and
 * every message a provider sends (`hello`, `snapshot`, `patch`, `result`, `event`, `error`, `batch`).
 *
 * @since 0.1.0
 */
import * as Predicate from "effect/Predicate"
import * as Result_ from "effect/Result"
import * as Schema from "effect/Schema"
import { NodeSchema } from "./Node.ts"
import { OpSchema } from "./Patch.ts"

/**
 * The protocol version heed speaks.
 *
 * @category constants
 * @since 0.1.0
 */
export const slopVersion = "0.1"

const optional = <S extends Schema.Top>(schema: S) => Schema.optional(schema)

// Every SLOP message is a struct told apart by its `type`.
const message = <const Type extends string, const Fields extends Schema.Struct.Fields>(type: Type, fields: Fields) =>
  Schema.Struct({ type: Schema.Literal(type), ...fields })

const NonNegativeInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

/**
 * Schema of a request filter (`Pipeline.Filter`).
 *
 * @category schemas
 * @since 0.1.0
 */
export const FilterSchema = Schema.Struct({
  min_salience: optional(Schema.Finite),
  types: optional(Schema.Array(Schema.String)),
  keep_ancestors: optional(Schema.Boolean)
})

const requestFields = {
  path: optional(Schema.String),
  depth: optional(Schema.Int.check(Schema.isGreaterThanOrEqualTo(-1))),
  max_nodes: optional(NonNegativeInt),
  max_tokens: optional(NonNegativeInt),
  filter: optional(FilterSchema),
  digest: optional(Schema.Boolean)
}

/**
 * Schema of {@link Subscribe}.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Subscribe = message("subscribe", {
  id: Schema.String,
  ...requestFields,
  patch_format: optional(Schema.Literals(["slop", "compact"]))
})

/**
 * `subscribe`: a snapshot now, then patches. Its request fields are `Pipeline.Request`'s (without `window`). heed
 * extensions: `max_tokens`, `filter.keep_ancestors`, `digest: true` (serve `Digest.make` instead of the tree), and
 * `patch_format: "compact"` (heed's compact patches, with `move` and `index`; without it patches use the `"slop"`
 * format, which SLOP's own consumer SDK applies exactly, see `Patch.Format`).
 *
 * @category models
 * @since 0.1.0
 */
export interface Subscribe extends Schema.Schema.Type<typeof Subscribe> {}

/**
 * Schema of {@link Unsubscribe}.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Unsubscribe = message("unsubscribe", { id: Schema.String })

/**
 * `unsubscribe`: stop the subscription with this id.
 *
 * @category models
 * @since 0.1.0
 */
export interface Unsubscribe extends Schema.Schema.Type<typeof Unsubscribe> {}

/**
 * Schema of {@link Query}.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Query = message("query", {
  id: Schema.String,
  ...requestFields,
  window: optional(Schema.Tuple([NonNegativeInt, NonNegativeInt]))
})

/**
 * `query`: a one-shot snapshot, optionally windowed (the fields of `Pipeline.Request`, plus `digest`).
 *
 * @category models
 * @since 0.1.0
 */
export interface Query extends Schema.Schema.Type<typeof Query> {}

/**
 * Schema of {@link Invoke}.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Invoke = message("invoke", {
  id: Schema.String,
  path: Schema.String,
  action: Schema.String,
  params: optional(Schema.Record(Schema.String, Schema.Unknown))
})

/**
 * `invoke`: run an affordance's action on the node at `path`.
 *
 * @category models
 * @since 0.1.0
 */
export interface Invoke extends Schema.Schema.Type<typeof Invoke> {}

/**
 * Schema of {@link Inbound}.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Inbound = Schema.Union([Subscribe, Unsubscribe, Query, Invoke])

/**
 * Any message a consumer sends.
 *
 * @category models
 * @since 0.1.0
 */
export type Inbound = Subscribe | Unsubscribe | Query | Invoke

/**
 * Schema of {@link ProviderInfo}.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ProviderInfo = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  slop_version: Schema.String,
  capabilities: Schema.Array(Schema.String)
})

/**
 * The provider's description in `hello`.
 *
 * @category models
 * @since 0.1.0
 */
export interface ProviderInfo extends Schema.Schema.Type<typeof ProviderInfo> {}

/**
 * Schema of {@link Hello}.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Hello = message("hello", { provider: ProviderInfo })

/**
 * `hello`: sent once when a connection opens.
 *
 * @category models
 * @since 0.1.0
 */
export interface Hello extends Schema.Schema.Type<typeof Hello> {}

/**
 * Schema of {@link Snapshot}.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Snapshot = message("snapshot", { id: Schema.String, version: Schema.Int, tree: NodeSchema })

/**
 * `snapshot`: the full (optimised) tree of a subscription or query.
 *
 * @category models
 * @since 0.1.0
 */
export interface Snapshot extends Schema.Schema.Type<typeof Snapshot> {}

/**
 * Schema of {@link Patch}.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Patch = message("patch", { subscription: Schema.String, version: Schema.Int, ops: Schema.Array(OpSchema) })

/**
 * `patch`: ops for one subscription. Versions are per subscription, consecutive after the last snapshot.
 *
 * @category models
 * @since 0.1.0
 */
export interface Patch extends Schema.Schema.Type<typeof Patch> {}

/**
 * Error codes of `result` and `error` messages: SLOP's, plus heed's `limit_exceeded` (a per-connection limit such as
 * the number of subscriptions was reached).
 *
 * @category models
 * @since 0.1.0
 */
export type ErrorCode =
  | "not_found"
  | "invalid_params"
  | "unauthorized"
  | "conflict"
  | "internal"
  | "bad_request"
  | "not_supported"
  | "limit_exceeded"

/**
 * Schema of {@link ErrorBody}. Any string is accepted as a code: handlers may use their own.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ErrorBody = Schema.Struct({ code: Schema.String, message: Schema.String })

/**
 * An error body: `{ code, message }`, `code` usually an {@link ErrorCode}.
 *
 * @category models
 * @since 0.1.0
 */
export interface ErrorBody extends Schema.Schema.Type<typeof ErrorBody> {}

/**
 * Schema of {@link Result}.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Result = message("result", {
  id: Schema.String,
  status: Schema.Literals(["ok", "error", "accepted"]),
  data: optional(Schema.Unknown),
  error: optional(ErrorBody)
})

/**
 * `result`: the answer to an `invoke`.
 *
 * @category models
 * @since 0.1.0
 */
export interface Result extends Schema.Schema.Type<typeof Result> {}

/**
 * Schema of {@link Event}.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Event = message("event", { name: Schema.String, data: optional(Schema.Unknown) })

/**
 * `event`: out-of-band information.
 *
 * @category models
 * @since 0.1.0
 */
export interface Event extends Schema.Schema.Type<typeof Event> {}

/**
 * Schema of {@link ErrorMessage}.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ErrorMessage = message("error", { id: optional(Schema.String), error: ErrorBody })

/**
 * `error`: a failure outside `invoke` (bad message, unknown path, …).
 *
 * @category models
 * @since 0.1.0
 */
export interface ErrorMessage extends Schema.Schema.Type<typeof ErrorMessage> {}

export {
  /**
   * Alias of {@link ErrorMessage}, under SLOP's message name.
   *
   * @category schemas
   * @since 0.1.0
   */
  ErrorMessage as Error
}

/**
 * `batch`: several messages, to be processed in order. Written out rather than derived from {@link Batch}'s schema:
 * TypeScript cannot infer the type of a recursive schema.
 *
 * @category models
 * @since 0.1.0
 */
export interface Batch {
  readonly type: "batch"
  readonly messages: ReadonlyArray<Outbound>
}

/**
 * Any message a provider sends.
 *
 * @category models
 * @since 0.1.0
 */
export type Outbound = Hello | Snapshot | Patch | Result | Event | ErrorMessage | Batch

/**
 * Schema of {@link Batch} (recursive through {@link Outbound}).
 *
 * @category schemas
 * @since 0.1.0
 */
export const Batch: Schema.Codec<Batch> = message("batch", {
  messages: Schema.Array(Schema.suspend((): Schema.Codec<Outbound> => Outbound))
})

/**
 * Schema of {@link Outbound}.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Outbound: Schema.Codec<Outbound> = Schema.Union([
  Hello,
  Snapshot,
  Patch,
  Result,
  Event,
  ErrorMessage,
  Batch
])

/**
 * Why a message could not be decoded, and the id of the message when one could be read (a provider answers a bad
 * `subscribe`, `query` or `invoke` with an `error` of code `bad_request` carrying that id).
 *
 * @category errors
 * @since 0.1.0
 */
export class MessageDecodeError extends Schema.TaggedError<MessageDecodeError>()("MessageDecodeError", {
  id: optional(Schema.String),
  message: Schema.String
}) {}

const inboundTypes = new Set(["subscribe", "unsubscribe", "query", "invoke"])
const decodeInboundResult = Schema.decodeUnknownResult(Inbound)
const decodeOutboundResult = Schema.decodeUnknownResult(Outbound)

const idOf = (input: object): string | undefined => {
  const id = (input as { readonly id?: unknown }).id
  return typeof id === "string" ? id : undefined
}

// The shape is checked by hand before the schema runs, so the error names the real problem (a missing or unknown
// `type`) instead of listing every member of the union.
const shapeProblem = (input: unknown): string | undefined => {
  if (!Predicate.isObject(input)) return "message must be a JSON object"
  const type = (input as { readonly type?: unknown }).type
  if (typeof type !== "string") return 'message has no string "type"'
  if (!inboundTypes.has(type))
    return `unknown message type "${type}" (expected subscribe, unsubscribe, query or invoke)`
  return undefined
}

/**
 * Decodes a consumer message: the message, or a {@link MessageDecodeError} that says what is wrong (an unknown
 * `type` is named, a malformed field too) and carries the message id when one could be read.
 *
 * @category decoding
 * @since 0.1.0
 */
export const decodeInbound = (input: unknown): Result_.Result<Inbound, MessageDecodeError> => {
  const id = Predicate.isObject(input) ? idOf(input) : undefined
  const problem = shapeProblem(input)
  if (problem !== undefined) return Result_.fail(new MessageDecodeError({ id, message: problem }))
  const result = decodeInboundResult(input)
  if (Result_.isSuccess(result)) return Result_.succeed(result.success)
  const type = (input as { readonly type: string }).type
  return Result_.fail(new MessageDecodeError({ id, message: `malformed ${type} message: ${result.failure.message}` }))
}

/**
 * Decodes a provider message: the message, or a {@link MessageDecodeError} that says what is wrong.
 *
 * @category decoding
 * @since 0.1.0
 */
export const decodeOutbound = (input: unknown): Result_.Result<Outbound, MessageDecodeError> =>
  Result_.mapError(
    decodeOutboundResult(input),
    (error) =>
      new MessageDecodeError({ id: Predicate.isObject(input) ? idOf(input) : undefined, message: error.message })
  )
