/**
 * SLOP messages: schemas for every message a consumer sends (`subscribe`, `unsubscribe`, `query`, `invoke`) and
 * every message a provider sends (`hello`, `snapshot`, `patch`, `result`, `event`, `error`, `batch`).
 *
 * @since 0.1.0
 */
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import type { Node } from "./Node.ts"
import { NodeSchema } from "./Node.ts"
import type { Format, Op } from "./Patch.ts"
import { OpSchema } from "./Patch.ts"
import type { Filter, Request } from "./Pipeline.ts"

/**
 * The protocol version heed speaks.
 *
 * @category constants
 * @since 0.1.0
 */
export const slopVersion = "0.1"

const optional = <S extends Schema.Top>(schema: S) => Schema.optional(schema)

const NonNegativeInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

/**
 * Schema of a request filter.
 *
 * @category schemas
 * @since 0.1.0
 */
export const FilterSchema: Schema.Codec<Filter> = Schema.Struct({
  min_salience: optional(Schema.Finite),
  types: optional(Schema.Array(Schema.String)),
  keep_ancestors: optional(Schema.Boolean)
}) as never

const requestFields = {
  path: optional(Schema.String),
  depth: optional(Schema.Int.check(Schema.isGreaterThanOrEqualTo(-1))),
  max_nodes: optional(NonNegativeInt),
  max_tokens: optional(NonNegativeInt),
  filter: optional(FilterSchema),
  digest: optional(Schema.Boolean)
}

/**
 * `subscribe`: a snapshot now, then patches. heed extensions: `max_tokens`, `filter.keep_ancestors`,
 * `digest: true` (serve {@link Digest.make} instead of the tree), and `patch_format: "compact"` (heed's compact
 * patches, with `move` and `index`; without it patches use the `"slop"` format, which SLOP's own consumer SDK
 * applies exactly, see `Patch.Format`).
 *
 * @category models
 * @since 0.1.0
 */
export interface Subscribe extends Request {
  readonly type: "subscribe"
  readonly id: string
  readonly digest?: boolean | undefined
  readonly patch_format?: Format | undefined
}

/**
 * Schema of {@link Subscribe}.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Subscribe: Schema.Codec<Subscribe> = Schema.Struct({
  type: Schema.Literal("subscribe"),
  id: Schema.String,
  ...requestFields,
  patch_format: optional(Schema.Literals(["slop", "compact"]))
}) as never

/**
 * `unsubscribe`: stop the subscription with this id.
 *
 * @category models
 * @since 0.1.0
 */
export interface Unsubscribe {
  readonly type: "unsubscribe"
  readonly id: string
}

/**
 * Schema of {@link Unsubscribe}.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Unsubscribe: Schema.Codec<Unsubscribe> = Schema.Struct({
  type: Schema.Literal("unsubscribe"),
  id: Schema.String
})

/**
 * `query`: a one-shot snapshot, optionally windowed.
 *
 * @category models
 * @since 0.1.0
 */
export interface Query extends Request {
  readonly type: "query"
  readonly id: string
  readonly digest?: boolean | undefined
}

/**
 * Schema of {@link Query}.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Query: Schema.Codec<Query> = Schema.Struct({
  type: Schema.Literal("query"),
  id: Schema.String,
  ...requestFields,
  window: optional(Schema.Tuple([NonNegativeInt, NonNegativeInt]))
}) as never

/**
 * `invoke`: run an affordance's action on the node at `path`.
 *
 * @category models
 * @since 0.1.0
 */
export interface Invoke {
  readonly type: "invoke"
  readonly id: string
  readonly path: string
  readonly action: string
  readonly params?: Readonly<Record<string, unknown>> | undefined
}

/**
 * Schema of {@link Invoke}.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Invoke: Schema.Codec<Invoke> = Schema.Struct({
  type: Schema.Literal("invoke"),
  id: Schema.String,
  path: Schema.String,
  action: Schema.String,
  params: optional(Schema.Record(Schema.String, Schema.Unknown))
}) as never

/**
 * Any message a consumer sends.
 *
 * @category models
 * @since 0.1.0
 */
export type Inbound = Subscribe | Unsubscribe | Query | Invoke

/**
 * Schema of {@link Inbound}.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Inbound: Schema.Codec<Inbound> = Schema.Union([Subscribe, Unsubscribe, Query, Invoke]) as never

/**
 * The provider's description in `hello`.
 *
 * @category models
 * @since 0.1.0
 */
export interface ProviderInfo {
  readonly id: string
  readonly name: string
  readonly slop_version: string
  readonly capabilities: ReadonlyArray<string>
}

/**
 * `hello`: sent once when a connection opens.
 *
 * @category models
 * @since 0.1.0
 */
export interface Hello {
  readonly type: "hello"
  readonly provider: ProviderInfo
}

/**
 * Schema of {@link Hello}.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Hello: Schema.Codec<Hello> = Schema.Struct({
  type: Schema.Literal("hello"),
  provider: Schema.Struct({
    id: Schema.String,
    name: Schema.String,
    slop_version: Schema.String,
    capabilities: Schema.Array(Schema.String)
  })
}) as never

/**
 * `snapshot`: the full (optimised) tree of a subscription or query.
 *
 * @category models
 * @since 0.1.0
 */
export interface Snapshot {
  readonly type: "snapshot"
  readonly id: string
  readonly version: number
  readonly tree: Node
}

/**
 * Schema of {@link Snapshot}.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Snapshot: Schema.Codec<Snapshot> = Schema.Struct({
  type: Schema.Literal("snapshot"),
  id: Schema.String,
  version: Schema.Int,
  tree: NodeSchema
}) as never

/**
 * `patch`: ops for one subscription. Versions are per subscription, consecutive after the last snapshot.
 *
 * @category models
 * @since 0.1.0
 */
export interface Patch {
  readonly type: "patch"
  readonly subscription: string
  readonly version: number
  readonly ops: ReadonlyArray<Op>
}

/**
 * Schema of {@link Patch}.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Patch: Schema.Codec<Patch> = Schema.Struct({
  type: Schema.Literal("patch"),
  subscription: Schema.String,
  version: Schema.Int,
  ops: Schema.Array(OpSchema)
}) as never

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
 * An error body: `{ code, message }`.
 *
 * @category models
 * @since 0.1.0
 */
export interface ErrorBody {
  readonly code: ErrorCode | (string & {})
  readonly message: string
}

const ErrorBodySchema = Schema.Struct({ code: Schema.String, message: Schema.String })

/**
 * `result`: the answer to an `invoke`.
 *
 * @category models
 * @since 0.1.0
 */
export interface Result {
  readonly type: "result"
  readonly id: string
  readonly status: "ok" | "error" | "accepted"
  readonly data?: unknown
  readonly error?: ErrorBody | undefined
}

/**
 * Schema of {@link Result}.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Result: Schema.Codec<Result> = Schema.Struct({
  type: Schema.Literal("result"),
  id: Schema.String,
  status: Schema.Literals(["ok", "error", "accepted"]),
  data: optional(Schema.Unknown),
  error: optional(ErrorBodySchema)
}) as never

/**
 * `event`: out-of-band information.
 *
 * @category models
 * @since 0.1.0
 */
export interface Event {
  readonly type: "event"
  readonly name: string
  readonly data?: unknown
}

/**
 * Schema of {@link Event}.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Event: Schema.Codec<Event> = Schema.Struct({
  type: Schema.Literal("event"),
  name: Schema.String,
  data: optional(Schema.Unknown)
}) as never

/**
 * `error`: a failure outside `invoke` (bad message, unknown path, …).
 *
 * @category models
 * @since 0.1.0
 */
export interface ErrorMessage {
  readonly type: "error"
  readonly id?: string | undefined
  readonly error: ErrorBody
}

/**
 * Schema of {@link ErrorMessage}.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ErrorMessage: Schema.Codec<ErrorMessage> = Schema.Struct({
  type: Schema.Literal("error"),
  id: optional(Schema.String),
  error: ErrorBodySchema
}) as never

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
 * `batch`: several messages, to be processed in order.
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
 * Schema of {@link Outbound} (recursive through `batch`).
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
  Schema.Struct({
    type: Schema.Literal("batch"),
    messages: Schema.Array(Schema.suspend((): Schema.Codec<Outbound> => Outbound))
  })
]) as never

/**
 * Schema of {@link Batch}.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Batch: Schema.Codec<Batch> = Schema.Struct({
  type: Schema.Literal("batch"),
  messages: Schema.Array(Outbound)
}) as never

const inboundTypes = new Set(["subscribe", "unsubscribe", "query", "invoke"])
const decodeInboundResult = Schema.decodeUnknownResult(Inbound)
const decodeOutboundResult = Schema.decodeUnknownResult(Outbound)

/**
 * Decodes a consumer message. On failure returns an `error` message body with code `bad_request` that says what
 * is wrong (an unknown `type` is named), and the message id when one could be read.
 *
 * @category decoding
 * @since 0.1.0
 */
export const decodeInbound = (
  input: unknown
):
  | { readonly _tag: "Success"; readonly message: Inbound }
  | {
      readonly _tag: "Failure"
      readonly id: string | undefined
      readonly error: ErrorBody
    } => {
  const id =
    Predicate.isObject(input) && typeof (input as { id?: unknown }).id === "string"
      ? (input as { id: string }).id
      : undefined
  if (!Predicate.isObject(input) || Array.isArray(input)) {
    return { _tag: "Failure", id, error: { code: "bad_request", message: "message must be a JSON object" } }
  }
  const type = (input as { type?: unknown }).type
  if (typeof type !== "string") {
    return { _tag: "Failure", id, error: { code: "bad_request", message: 'message has no string "type"' } }
  }
  if (!inboundTypes.has(type)) {
    return {
      _tag: "Failure",
      id,
      error: {
        code: "bad_request",
        message: `unknown message type "${type}" (expected subscribe, unsubscribe, query or invoke)`
      }
    }
  }
  const result = decodeInboundResult(input)
  if (result._tag === "Success") return { _tag: "Success", message: result.success }
  return {
    _tag: "Failure",
    id,
    error: { code: "bad_request", message: `malformed ${type} message: ${result.failure.message}` }
  }
}

/**
 * Decodes a provider message, returning `undefined` when it is not one.
 *
 * @category decoding
 * @since 0.1.0
 */
export const decodeOutbound = (input: unknown): Outbound | undefined => {
  const result = decodeOutboundResult(input)
  return result._tag === "Success" ? result.success : undefined
}
