/**
 * The options `OnnxLensScorer.layer` and `OnnxGister.layer` share.
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"
import type { ExecutionProvider } from "./ExecutionProvider.ts"
import type { Graph, GraphError } from "./Graphs.ts"

/**
 * Settings shared by the ONNX layers: the graph (or an effect that loads one, such as `Graphs.load(path)`), the
 * execution provider (default: the `HEED_EP` setting, else `auto`), whether a missing GPU provider falls back
 * to `cpu` (default `true`), and onnxruntime's intra-op thread count (default: one per core).
 *
 * @category models
 * @since 0.1.0
 */
export interface OnnxOptions {
  readonly graph?: Graph | Effect.Effect<Graph, GraphError> | undefined
  readonly executionProvider?: ExecutionProvider | undefined
  readonly fallback?: boolean | undefined
  readonly threads?: number | undefined
}
