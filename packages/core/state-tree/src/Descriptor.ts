/**
 * Descriptors: the compact way SLOP apps describe state (`props`, `summary`, `items`, `window`, `actions`,
 * `contentRef`), normalised into wire {@link Node}s.
 *
 * @since 0.1.0
 */
import type { Affordance, ContentRef, JsonSchema, Node, NodeMeta } from "./Node.ts"

/**
 * An action on a descriptor. `params` is either a JSON Schema (`{ type: "object", properties, required }`) or the
 * shorthand `{ name: "string", count: "number" }`, in which every listed parameter is required.
 *
 * @category models
 * @since 0.1.0
 */
export interface ActionDescriptor {
  readonly label?: string | undefined
  readonly description?: string | undefined
  readonly params?: Readonly<Record<string, string | JsonSchema>> | JsonSchema | undefined
  readonly dangerous?: boolean | undefined
  readonly idempotent?: boolean | undefined
  readonly estimate?: Affordance["estimate"]
}

/**
 * A content reference as an app declares it; `uri` may be left out.
 *
 * @category models
 * @since 0.1.0
 */
export type ContentRefDescriptor = Omit<ContentRef, "uri"> & { readonly uri?: string | undefined }

/**
 * A node description.
 *
 * - `summary` becomes `meta.summary` and wins over `meta.summary`; an empty string means no summary;
 * - `items` become children (each with its `id`); `window` (`{ items, total, offset }`) takes precedence over
 *   `items` and sets `meta.total_children` and `meta.window: [offset, items.length]`;
 * - `children` are named child descriptors, placed before the items;
 * - `actions` become affordances; `contentRef` becomes `content_ref` (never a property).
 *
 * @category models
 * @since 0.1.0
 */
export interface Descriptor {
  readonly type: string
  readonly props?: Readonly<Record<string, unknown>> | undefined
  readonly summary?: string | undefined
  readonly meta?: NodeMeta | undefined
  readonly items?: ReadonlyArray<ItemDescriptor> | undefined
  readonly window?:
    | {
        readonly items: ReadonlyArray<ItemDescriptor>
        readonly total: number
        readonly offset: number
      }
    | undefined
  readonly children?: Readonly<Record<string, Descriptor>> | undefined
  readonly actions?: Readonly<Record<string, ActionDescriptor>> | undefined
  readonly contentRef?: ContentRefDescriptor | undefined
}

/**
 * A descriptor in a list, carrying its id.
 *
 * @category models
 * @since 0.1.0
 */
export interface ItemDescriptor extends Descriptor {
  readonly id: string
}

const isJsonSchema = (params: object): params is JsonSchema =>
  (params as { type?: unknown }).type === "object" &&
  typeof (params as { properties?: unknown }).properties === "object"

/**
 * Normalises action params: a JSON Schema is kept; the shorthand `{ name: "string" }` becomes an object schema
 * with every listed parameter required.
 *
 * @category constructors
 * @since 0.1.0
 */
export const paramsSchema = (params: ActionDescriptor["params"]): JsonSchema | undefined => {
  if (params === undefined) return undefined
  if (isJsonSchema(params)) return params
  const properties: Record<string, JsonSchema> = {}
  for (const [name, spec] of Object.entries(params as Record<string, string | JsonSchema>)) {
    properties[name] = typeof spec === "string" ? { type: spec } : spec
  }
  return { type: "object", properties, required: Object.keys(properties) }
}

/**
 * Builds the wire node for a descriptor registered at `path` (used for the default content URI
 * `slop://content/{path}`).
 *
 * @category constructors
 * @since 0.1.0
 */
export const toNode = (id: string, descriptor: Descriptor, path: string = `/${id}`): Node => {
  const node: { -readonly [K in keyof Node]: Node[K] } = { id, type: descriptor.type }
  if (descriptor.props !== undefined) node.properties = descriptor.props
  const children: Array<Node> = []
  const base = path === "/" ? "" : path
  if (descriptor.children !== undefined) {
    for (const [childId, child] of Object.entries(descriptor.children)) {
      children.push(toNode(childId, child, `${base}/${childId}`))
    }
  }
  const meta: Record<string, unknown> = { ...descriptor.meta }
  const items = descriptor.window?.items ?? descriptor.items
  if (items !== undefined) for (const item of items) children.push(toNode(item.id, item, `${base}/${item.id}`))
  if (descriptor.window !== undefined) {
    meta.total_children = descriptor.window.total
    meta.window = [descriptor.window.offset, descriptor.window.items.length]
  }
  if (children.length > 0) node.children = children
  if (descriptor.actions !== undefined) {
    node.affordances = Object.entries(descriptor.actions).map(([action, spec]) => {
      const affordance: { -readonly [K in keyof Affordance]: Affordance[K] } = { action }
      if (spec.label !== undefined) affordance.label = spec.label
      if (spec.description !== undefined) affordance.description = spec.description
      const params = paramsSchema(spec.params)
      if (params !== undefined) affordance.params = params
      if (spec.dangerous !== undefined) affordance.dangerous = spec.dangerous
      if (spec.idempotent !== undefined) affordance.idempotent = spec.idempotent
      if (spec.estimate !== undefined) affordance.estimate = spec.estimate
      return affordance
    })
  }
  if (descriptor.summary !== undefined) {
    if (descriptor.summary === "") delete meta.summary
    else meta.summary = descriptor.summary
  }
  if (Object.keys(meta).length > 0) node.meta = meta as NodeMeta
  if (descriptor.contentRef !== undefined) {
    const ref = descriptor.contentRef
    node.content_ref = { ...ref, uri: ref.uri ?? `slop://content/${base.replace(/^\//, "")}` }
  }
  return node
}
