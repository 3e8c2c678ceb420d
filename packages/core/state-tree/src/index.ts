/**
 * @heed/state-tree: SLOP-compatible state tree with attention metadata, token budgets, digest and patches.
 *
 * @since 0.1.0
 */

/**
 * The consumer: a mirror with gap detection, a connection client, affordances as LLM tools.
 *
 * @since 0.1.0
 */
export * as Consumer from "./Consumer.ts"
/**
 * Descriptors (`props`, `summary`, `items`, `window`, `actions`, `contentRef`) normalised into nodes.
 *
 * @since 0.1.0
 */
export * as Descriptor from "./Descriptor.ts"
/**
 * The attention digest: `Digest.make(tree, options)`.
 *
 * @since 0.1.0
 */
export * as Digest from "./Digest.ts"
/**
 * Schemas of every SLOP message.
 *
 * @since 0.1.0
 */
export * as Message from "./Message.ts"
/**
 * The SLOP node shape, its schema (`Node.decode`), id validation and path helpers.
 *
 * @since 0.1.0
 */
export * as Node from "./Node.ts"
/**
 * Patches: `Patch.diff(previous, next)` and `Patch.apply(tree, ops)`.
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
 * The provider: state, subscriptions, queries, invokes, coalesced per-subscription patches, tasks.
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
