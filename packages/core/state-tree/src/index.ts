/**
 * @heed/state-tree: SLOP-compatible state tree with attention metadata, token budgets, digest and patches.
 *
 * @since 0.1.0
 */

/**
 * The consumer: a mirror with gap detection (`Consumer.mirror()`), a connection client that resubscribes on gaps
 * (`Consumer.make(transport)`), and affordances as LLM tools (`Consumer.tools(tree)`).
 *
 * @since 0.1.0
 */
export * as Consumer from "./Consumer.ts"

/**
 * Descriptors (`props`, `summary`, `items`, `window`, `actions`, `contentRef`) normalised into nodes:
 * `Descriptor.toNode(id, descriptor)`.
 *
 * @since 0.1.0
 */
export * as Descriptor from "./Descriptor.ts"

/**
 * The attention digest: `Digest.make(tree, { minSalience, maxNodes, maxTokens })`.
 *
 * @since 0.1.0
 */
export * as Digest from "./Digest.ts"

/**
 * Schemas and types of every SLOP message; `Message.decodeInbound` / `decodeOutbound` return a `Result`.
 *
 * @since 0.1.0
 */
export * as Message from "./Message.ts"

/**
 * The SLOP node shape and its schema (`Node.decode`, `Node.decodeResult`), id validation and path helpers.
 *
 * @since 0.1.0
 */
export * as Node from "./Node.ts"

/**
 * Patches: `Patch.diff(previous, next, format?)` and `Patch.apply(tree, ops)`.
 *
 * @since 0.1.0
 */
export * as Patch from "./Patch.ts"

/**
 * The optimisation pipeline (Filter → Truncate → Compact → Window): `Pipeline.optimize(tree, request, options)`.
 *
 * @since 0.1.0
 */
export * as Pipeline from "./Pipeline.ts"

/**
 * The provider: state, subscriptions, queries, invokes, coalesced per-subscription patches, tasks
 * (`Provider.make(options)`, `Provider.layer(options)`).
 *
 * @since 0.1.0
 */
export * as Provider from "./Provider.ts"

/**
 * The canonical LLM text format: `Render.text(tree)`.
 *
 * @since 0.1.0
 */
export * as Render from "./Render.ts"
