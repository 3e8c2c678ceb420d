/**
 * `@heed/allocator`'s `Gister` port on onnxruntime-node: GistNet from an ONNX graph, on a GPU when one
 * starts and on the CPU otherwise.
 *
 * @since 0.1.0
 */
import { Gister } from "@heed/allocator"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { OnnxSessionError, Provider, ProviderEvent } from "./ExecutionProvider.ts"
import { type Graph, type GraphError, meanPoolGist } from "./Graphs.ts"
import { layerAsPort, start } from "./internal/adapter.ts"
import { firstNonFinite } from "./internal/check.ts"
import { float32, type Session } from "./internal/session.ts"
import type { OnnxOptions } from "./OnnxOptions.ts"

/**
 * The ONNX gister: the `Gister` port plus the provider it runs on, what opening it reported, and its graph.
 *
 * @category models
 * @since 0.1.0
 */
export interface OnnxGisterShape extends Gister.GisterShape {
  readonly provider: Provider
  readonly events: ReadonlyArray<ProviderEvent>
  readonly graph: Graph
}

const fail = (message: string) => Effect.fail(new Gister.GisterError({ message: `cannot gist: ${message}` }))

const shapeProblem = (blocks: Gister.GistBlocks, width: number | undefined): string | undefined => {
  const { count, blockSize, dim, data } = blocks
  if (![count, blockSize, dim].every((n) => Number.isInteger(n) && n >= 0)) {
    return `count, blockSize and dim must be integers >= 0, got ${count}, ${blockSize}, ${dim}`
  }
  if (count > 0 && (blockSize === 0 || dim === 0)) return "blockSize and dim must be >= 1"
  if (!(data instanceof Float32Array) || data.length !== count * blockSize * dim) {
    return `data must be a Float32Array of count x blockSize x dim = ${count * blockSize * dim} floats`
  }
  if (width !== undefined && count > 0 && dim !== width) return `dim ${dim} differs from the graph's width ${width}`
  return undefined
}

const gistWith = (session: Session, graph: Graph) =>
  Effect.fnUntraced(function* (blocks: Gister.GistBlocks) {
    const problem = shapeProblem(blocks, graph.dim)
    if (problem !== undefined) return yield* fail(problem)
    const { count, blockSize, dim, data } = blocks
    if (count === 0) return new Float32Array(0)
    const output = yield* session
      .run({ blocks: float32(data, [count, blockSize, dim]) })
      .pipe(
        Effect.mapError(
          (message) => new Gister.GisterError({ message: `cannot gist: onnxruntime (${session.provider}): ${message}` })
        )
      )
    const gists = output.gists?.data
    if (!(gists instanceof Float32Array) || gists.length !== count * dim) {
      return yield* fail(`the model returned ${gists?.length ?? "no"} values, expected ${count} x ${dim}`)
    }
    const bad = firstNonFinite(gists, dim)
    if (bad >= 0) {
      const block = firstNonFinite(data, blockSize * dim)
      return yield* fail(
        block >= 0
          ? `block ${block} holds a non-finite value (NaN or ±Infinity)`
          : `the model returned a non-finite gist for block ${bad}`
      )
    }
    return gists
  })

/**
 * Opens a gister in the current scope.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (
  options: OnnxOptions = {}
): Effect.Effect<OnnxGisterShape, OnnxSessionError | GraphError, Scope.Scope> =>
  Effect.map(
    start("gist", options, () => meanPoolGist()),
    ({ graph, session }) => ({
      provider: session.provider,
      events: session.events,
      graph,
      gist: gistWith(session, graph)
    })
  )

/**
 * The ONNX gister service. `OnnxGister.layer(options)` provides it and the allocator's `Gister` (the same
 * instance), with the session closed when the layer's scope closes. The default graph is
 * `Graphs.meanPoolGist()`, equal to the allocator's mean-pool reference; provider selection is as for
 * `OnnxLensScorer`.
 *
 * **Example** (Gisting two blocks of two vectors)
 *
 * ```ts
 * import { Gister } from "@heed/allocator"
 * import { OnnxGister } from "@heed/gpu"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function* () {
 *   const gister = yield* Gister.Gister
 *   return yield* gister.gist({ count: 2, blockSize: 2, dim: 1, data: Float32Array.of(1, 3, 5, 7) })
 * }).pipe(Effect.provide(OnnxGister.layer({ executionProvider: "cpu" })))
 * // Float32Array [2, 6]
 * ```
 *
 * @category services
 * @since 0.1.0
 */
export class OnnxGister extends Context.Service<OnnxGister, OnnxGisterShape>()("@heed/gpu/OnnxGister") {}

/**
 * A layer providing both `OnnxGister` and the allocator's `Gister`.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options: OnnxOptions = {}) => layerAsPort(OnnxGister, Gister.Gister, make(options))
