/**
 * @heed/gpu: LensNet and GistNet on onnxruntime-node: GPU when present, CPU otherwise.
 *
 * @since 0.1.0
 */

/**
 * The LensNet-shaped attention head with seeded weights, and its pure-TypeScript oracle.
 *
 * @since 0.1.0
 */
export * as AttentionLens from "./AttentionLens.ts"

/**
 * Execution providers, the `HEED_EP` setting, and the events of provider selection.
 *
 * @since 0.1.0
 */
export * as ExecutionProvider from "./ExecutionProvider.ts"

/**
 * ONNX graphs built in code (analytic LensNet, attention head, mean-pool GistNet) or loaded from a file.
 *
 * @since 0.1.0
 */
export * as Graphs from "./Graphs.ts"

/**
 * The `Gister` port on onnxruntime-node.
 *
 * @since 0.1.0
 */
export * as OnnxGister from "./OnnxGister.ts"

/**
 * The `LensScorer` port on onnxruntime-node, with batched scoring.
 *
 * @since 0.1.0
 */
export * as OnnxLensScorer from "./OnnxLensScorer.ts"

/**
 * The options the ONNX layers share.
 *
 * @since 0.1.0
 */
export * as OnnxOptions from "./OnnxOptions.ts"
