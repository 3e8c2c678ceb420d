/**
 * The SLOP node: the wire shape of every piece of state a provider exposes, as plain JSON-compatible objects,
 * with a Schema-based decoder, id validation and small read-only helpers.
 *
 * @since 0.1.0
 */
import { Salience, Urgency } from "@heed/schema"
import * as Effect from "effect/Effect"
import * as Predicate from "effect/Predicate"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { escapeSegment, unescapeSegment } from "./internal/pointer.ts"

/**
 * A JSON Schema subset used for affordance parameters (`type`, `properties`, `required`, `items`, `description`,
 * `default`, `enum`). Other keywords are kept and ignored.
 *
 * @category models
 * @since 0.1.0
 */
export interface JsonSchema {
  readonly type?: string | undefined
  readonly properties?: Readonly<Record<string, JsonSchema>> | undefined
  readonly required?: ReadonlyArray<string> | undefined
  readonly items?: JsonSchema | undefined
  readonly description?: string | undefined
  readonly default?: unknown
  readonly enum?: ReadonlyArray<unknown> | undefined
  readonly [key: string]: unknown
}

/**
 * A SLOP node. Nodes are treated as immutable: every function in this package returns new objects and may share
 * unchanged subtrees with its input. `children: null` (a lazy subtree) is accepted and means "none inline".
 *
 * @category models
 * @since 0.1.0
 */
export interface Node {
  readonly id: string
  readonly type: string
  readonly properties?: Readonly<Record<string, unknown>> | undefined
  readonly children?: ReadonlyArray<Node> | null | undefined
  readonly affordances?: ReadonlyArray<Affordance> | undefined
  readonly meta?: NodeMeta | undefined
  readonly content_ref?: ContentRef | undefined
}

/**
 * Keywords that cannot be node ids, because patch paths use them as field names.
 *
 * @category constants
 * @since 0.1.0
 */
export const reservedIds: ReadonlyArray<string> = [
  "properties",
  "children",
  "affordances",
  "meta",
  "content_ref",
  "id",
  "type"
]

const reserved = new Set(reservedIds)

/**
 * Why `id` is not a valid node id, or `undefined` when it is. Ids must be non-empty, must not be a reserved keyword
 * and must not contain `/` or `~`.
 *
 * @category decoding
 * @since 0.1.0
 */
export const validateId = (id: string): string | undefined => {
  if (id.length === 0) return "node id must not be empty"
  if (reserved.has(id)) return `node id "${id}" is a reserved keyword (${reservedIds.join(", ")})`
  if (id.includes("/") || id.includes("~")) return `node id "${id}" must not contain "/" or "~"`
  return undefined
}

const optional = <S extends Schema.Top>(schema: S) => Schema.optional(schema)

/**
 * Schema of a node id (see {@link validateId}).
 *
 * @category schemas
 * @since 0.1.0
 */
export const Id = Schema.String.check(Schema.makeFilter((id: string) => validateId(id) ?? true)).annotate({
  identifier: "NodeId"
})

// Params are JSON Schema, and JSON Schema allows more than the subset's keyword types (`type: ["string", "null"]`);
// validation reads only what it understands. So the decoder checks that params are an object, as SLOP does, and no
// more: a stricter one would reject a whole snapshot over a keyword heed ignores.
const isJsonSchema = (input: unknown): input is JsonSchema => Predicate.isObject(input)

/**
 * Schema of a parameter JSON Schema (an object; only the subset keywords are interpreted).
 *
 * @category schemas
 * @since 0.1.0
 */
export const JsonSchemaSchema: Schema.Codec<JsonSchema> = Schema.declare(isJsonSchema, {
  expected: "a JSON Schema object"
})

/**
 * Schema of an {@link Affordance}.
 *
 * @category schemas
 * @since 0.1.0
 */
export const AffordanceSchema = Schema.Struct({
  /** Action name, unique within the node. */
  action: Schema.String.check(Schema.makeFilter((s: string) => s.length > 0 || "action must not be empty")),
  label: optional(Schema.String),
  description: optional(Schema.String),
  /** JSON Schema of the parameters. */
  params: optional(JsonSchemaSchema),
  dangerous: optional(Schema.Boolean),
  idempotent: optional(Schema.Boolean),
  estimate: optional(Schema.Literals(["instant", "fast", "slow", "async"]))
})

/**
 * An action a consumer can invoke on a node.
 *
 * @category models
 * @since 0.1.0
 */
export interface Affordance extends Schema.Schema.Type<typeof AffordanceSchema> {}

/**
 * Schema of a {@link ContentRef}.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ContentRefSchema = Schema.Struct({
  type: Schema.Literals(["text", "binary", "stream"]),
  mime: Schema.String,
  size: optional(Schema.Finite),
  uri: optional(Schema.String),
  summary: Schema.String,
  preview: optional(Schema.String),
  encoding: optional(Schema.String),
  hash: optional(Schema.String)
})

/**
 * A reference to content too large to inline (`read_content` fetches it).
 *
 * @category models
 * @since 0.1.0
 */
export interface ContentRef extends Schema.Schema.Type<typeof ContentRefSchema> {}

/**
 * Schema of {@link NodeMeta}. Unknown keys are kept.
 *
 * @category schemas
 * @since 0.1.0
 */
export const MetaSchema = Schema.StructWithRest(
  Schema.Struct({
    summary: optional(Schema.String),
    salience: optional(Salience.Salience),
    pinned: optional(Schema.Boolean),
    changed: optional(Schema.Boolean),
    focus: optional(Schema.Boolean),
    urgency: optional(Urgency.Urgency),
    reason: optional(Schema.String),
    total_children: optional(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))),
    window: optional(Schema.Tuple([Schema.Int, Schema.Int])),
    filtered: optional(Schema.Int),
    path: optional(Schema.String),
    created: optional(Schema.String),
    updated: optional(Schema.String)
  }),
  [Schema.Record(Schema.String, Schema.Unknown)]
)

/**
 * Node metadata: SLOP's attention fields plus structural hints. heed adds `filtered` (direct children hidden by a
 * filter) and `path` (on digest entries: where the node lives, for drill-down). Unknown keys are kept.
 *
 * @category models
 * @since 0.1.0
 */
export interface NodeMeta extends Schema.Schema.Type<typeof MetaSchema> {}

/**
 * Schema of a {@link Node}, recursive over `children`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const NodeSchema: Schema.Codec<Node> = Schema.Struct({
  id: Id,
  type: Schema.String.check(Schema.makeFilter((s: string) => s.length > 0 || "node type must not be empty")),
  properties: optional(Schema.Record(Schema.String, Schema.Unknown)),
  children: optional(Schema.NullOr(Schema.Array(Schema.suspend((): Schema.Codec<Node> => NodeSchema)))),
  affordances: optional(Schema.Array(AffordanceSchema)),
  meta: optional(MetaSchema),
  content_ref: optional(ContentRefSchema)
}).annotate({ identifier: "Node" })

/**
 * Raised when input is not a valid node; the message names the offending path.
 *
 * @category errors
 * @since 0.1.0
 */
export class NodeDecodeError extends Schema.TaggedError<NodeDecodeError>()("NodeDecodeError", {
  message: Schema.String
}) {}

const decodeNode = Schema.decodeUnknownResult(NodeSchema)

/**
 * Decodes unknown input into a {@link Node}: the node, or a {@link NodeDecodeError} whose message says what is wrong
 * and where (for example `node id "a/b" must not contain "/" or "~"` at `["children", 0, "id"]`). The synchronous
 * form of {@link decode}.
 *
 * @category decoding
 * @since 0.1.0
 */
export const decodeResult = (input: unknown): Result.Result<Node, NodeDecodeError> =>
  Result.mapError(
    decodeNode(input, { errors: "all" }),
    (error) => new NodeDecodeError({ message: `invalid node: ${error.message}` })
  )

/**
 * Decodes unknown input into a {@link Node}, failing with a {@link NodeDecodeError} (see {@link decodeResult}).
 *
 * @category decoding
 * @since 0.1.0
 */
export const decode = (input: unknown): Effect.Effect<Node, NodeDecodeError> => Effect.fromResult(decodeResult(input))

/**
 * Decodes unknown input into a {@link Node} synchronously: `{ node }` on success, `{ error }` otherwise.
 *
 * @deprecated Use {@link decodeResult}, which returns a `Result` like every synchronous decoder of this package.
 * @category decoding
 * @since 0.1.0
 */
export const decodeSync = (input: unknown): { readonly node: Node } | { readonly error: NodeDecodeError } => {
  const result = decodeResult(input)
  return Result.isSuccess(result) ? { node: result.success } : { error: result.failure }
}

const noChildren: ReadonlyArray<Node> = []

/**
 * The inline children of a node (empty when `children` is absent or `null`).
 *
 * @category getters
 * @since 0.1.0
 */
export const childrenOf = (node: Node): ReadonlyArray<Node> => node.children ?? noChildren

/**
 * A node's salience, `0.5` when absent (as every SLOP SDK does).
 *
 * @category getters
 * @since 0.1.0
 */
export const salienceOf = (node: Node): number => node.meta?.salience ?? 0.5

/**
 * A node's urgency, `"none"` when absent.
 *
 * @category getters
 * @since 0.1.0
 */
export const urgencyOf = (node: Node): Urgency.Urgency => node.meta?.urgency ?? "none"

/**
 * How many direct children the node really has: a provider-declared `meta.total_children` when it is larger than
 * the inline list (a lazy or windowed list), otherwise the inline count.
 *
 * @category getters
 * @since 0.1.0
 */
export const totalChildrenOf = (node: Node): number => {
  const inline = node.children?.length ?? 0
  const declared = node.meta?.total_children
  return declared !== undefined && declared > inline ? declared : inline
}

/**
 * Number of nodes in the tree: the node itself plus every inline descendant.
 *
 * @category getters
 * @since 0.1.0
 */
export const count = (node: Node): number => {
  let total = 1
  const children = node.children
  if (children) for (let i = 0; i < children.length; i++) total += count(children[i]!)
  return total
}

/**
 * Splits a SLOP path (`"/a/b"`) into node ids. `"/"` and `""` are the root (no segments). Segments are unescaped
 * per RFC 6901 (`~1` → `/`, `~0` → `~`), so a node whose id holds `/` or `~` can be addressed; see {@link pathOf}.
 *
 * @category getters
 * @since 0.1.0
 */
export const parsePath = (path: string): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (const segment of path.split("/")) if (segment !== "") out.push(unescapeSegment(segment))
  return out
}

/**
 * The SLOP path of the node reached through `ids` from the root: `"/"` for none, otherwise each id escaped per
 * RFC 6901 after a `/` (the inverse of {@link parsePath}).
 *
 * @category getters
 * @since 0.1.0
 */
export const pathOf = (ids: ReadonlyArray<string>): string =>
  ids.length === 0 ? "/" : `/${ids.map(escapeSegment).join("/")}`

/**
 * The node at a SLOP path (`"/a/b"` = child `a` of the root, then its child `b`), or `undefined` when a segment does
 * not match. `"/"` and `""` return the root.
 *
 * @category getters
 * @since 0.1.0
 */
export const find = (tree: Node, path: string | ReadonlyArray<string>): Node | undefined => {
  const segments = typeof path === "string" ? parsePath(path) : path
  let current: Node | undefined = tree
  for (const segment of segments) {
    const children: ReadonlyArray<Node> = current.children ?? noChildren
    current = undefined
    for (let i = 0; i < children.length; i++) {
      if (children[i]!.id === segment) {
        current = children[i]
        break
      }
    }
    if (current === undefined) return undefined
  }
  return current
}
