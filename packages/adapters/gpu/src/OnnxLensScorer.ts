/**
 * `@heed/allocator`'s `LensScorer` port on onnxruntime-node: LensNet scores from an ONNX graph, on a GPU
 * when one starts and on the CPU otherwise, with batched scoring of several working-context variants in
 * one run.
 *
 * @since 0.1.0
 */
import { LensScorer } from "@heed/allocator"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import type { OnnxSessionError, Provider, ProviderEvent } from "./ExecutionProvider.ts"
import { analyticLens, type Graph, type GraphError } from "./Graphs.ts"
import { layerAsPort, start } from "./internal/adapter.ts"
import { firstNonFinite } from "./internal/check.ts"
import { float32 } from "./internal/session.ts"
import type { OnnxOptions } from "./OnnxOptions.ts"

/**
 * One working context to score: the `LensScorer.score` arguments as a record.
 *
 * @category models
 * @since 0.1.0
 */
export interface LensInput {
  readonly entries: LensScorer.Embeddings
  readonly levels: ArrayLike<number>
  readonly positions: ArrayLike<number>
  readonly tail: LensScorer.Embeddings
}

/**
 * The ONNX scorer: the `LensScorer` port plus the provider it runs on, what opening it reported, its graph,
 * and `scoreBatch`, which scores several variants (of any lengths, with tails of equal length) in one run
 * and returns one score array per variant, in order.
 *
 * @category models
 * @since 0.1.0
 */
export interface OnnxLensScorerShape extends LensScorer.LensScorerShape {
  readonly provider: Provider
  readonly events: ReadonlyArray<ProviderEvent>
  readonly graph: Graph
  readonly scoreBatch: (
    variants: ReadonlyArray<LensInput>
  ) => Effect.Effect<ReadonlyArray<Float32Array>, LensScorer.LensScorerError>
}

const fail = (message: string) => Effect.fail(new LensScorer.LensScorerError({ message: `cannot score: ${message}` }))

/** What is wrong with one variant's shapes, or `undefined`. */
const shapeProblem = (v: LensInput, dim: number | undefined): string | undefined => {
  const { entries, tail, levels, positions } = v
  for (const [name, m] of [
    ["entries", entries],
    ["tail", tail]
  ] as const) {
    if (!(Number.isInteger(m.rows) && m.rows >= 0 && Number.isInteger(m.dim) && m.dim >= 0)) {
      return `${name}.rows and ${name}.dim must be integers >= 0, got ${m.rows} and ${m.dim}`
    }
    if (!(m.data instanceof Float32Array) || m.data.length !== m.rows * m.dim) {
      return `${name}.data must be a Float32Array of rows x dim = ${m.rows * m.dim} floats`
    }
  }
  if (tail.rows > 0 && tail.dim !== entries.dim) return `tail dim ${tail.dim} differs from entries dim ${entries.dim}`
  if (dim !== undefined && entries.rows > 0 && entries.dim !== dim) {
    return `entries dim ${entries.dim} differs from the graph's width ${dim}`
  }
  if (levels.length !== entries.rows || positions.length !== entries.rows) {
    return `expected ${entries.rows} levels and positions, got ${levels.length} and ${positions.length}`
  }
  for (const [name, values] of [
    ["levels", levels],
    ["positions", positions]
  ] as const) {
    for (let i = 0; i < values.length; i++) {
      if (!Number.isFinite(values[i])) return `${name}[${i}] must be a finite number, got ${values[i]}`
    }
  }
  return undefined
}

/**
 * Packs a batch's feeds: variants padded to the longest with zero rows (built-in graphs score rows
 * independently, so padding changes nothing). A single variant is fed as it is; a batch reuses one grow-only
 * buffer, since a fresh array of tens of megabytes per call costs more in page faults than the copy itself.
 * Only one batch is packed and run at a time (the caller holds a lock), so the buffer is never shared.
 */
const packer = () => {
  let scratch = new Float32Array(0)
  return (variants: ReadonlyArray<LensInput>, dim: number, rows: number, tailRows: number) => {
    const b = variants.length
    const single = b === 1 && variants[0]!.entries.rows === rows
    if (!single && scratch.length < b * rows * dim) scratch = new Float32Array(b * rows * dim)
    const entries = single ? variants[0]!.entries.data : scratch.subarray(0, b * rows * dim)
    const tail = b === 1 && tailRows > 0 ? variants[0]!.tail.data : new Float32Array(b * tailRows * dim)
    const levels = new Float32Array(b * rows)
    const positions = new Float32Array(b * rows)
    variants.forEach((v, i) => {
      if (!single) {
        entries.set(v.entries.data, i * rows * dim)
        entries.fill(0, i * rows * dim + v.entries.data.length, (i + 1) * rows * dim)
      }
      if (b > 1) tail.set(v.tail.data, i * tailRows * dim)
      for (let j = 0; j < v.entries.rows; j++) {
        levels[i * rows + j] = v.levels[j]!
        positions[i * rows + j] = v.positions[j]!
      }
    })
    return {
      entries: float32(entries, [b, rows, dim]),
      levels: float32(levels, [b, rows]),
      positions: float32(positions, [b, rows]),
      tail: float32(tail, [b, tailRows, dim])
    }
  }
}

/** Says why a variant's scores are unusable: its input holds a non-finite value, or the model misbehaved. */
const scoreProblem = (v: LensInput, scores: Float32Array): string | undefined => {
  for (let i = 0; i < scores.length; i++) {
    const s = scores[i]!
    if (Number.isFinite(s) && s >= -1 && s <= 1) continue
    const entryRow = firstNonFinite(v.entries.data, v.entries.dim)
    if (entryRow >= 0) return `entries row ${entryRow} holds a non-finite value (NaN or ±Infinity)`
    const tailRow = firstNonFinite(v.tail.data, v.tail.dim)
    if (tailRow >= 0) return `tail row ${tailRow} holds a non-finite value (NaN or ±Infinity)`
    return `the model returned ${s} for entry ${i}, outside [-1, 1]`
  }
  return undefined
}

/** The largest padded batch packed for one run: 2^28 floats (1 GiB). */
const MAX_BATCH_FLOATS = 2 ** 28

/** What is wrong with a batch as a whole, naming the variant, or `undefined`. */
const batchProblem = (variants: ReadonlyArray<LensInput>, dim: number | undefined): string | undefined => {
  const first = variants[0]!
  // Checked first, on the sizes as claimed, so nothing is walked or allocated for an oversized batch.
  const padded = variants.length * Math.max(...variants.map((v) => v.entries.rows)) * first.entries.dim
  if (variants.length > 1 && padded > MAX_BATCH_FLOATS) {
    return `a batch padded to its longest variant holds ${padded} floats, over the limit of ${MAX_BATCH_FLOATS}: score fewer or more even variants per call`
  }
  for (let i = 0; i < variants.length; i++) {
    const v = variants[i]!
    const name = variants.length === 1 ? "" : `variant ${i}: `
    const problem = shapeProblem(v, dim)
    if (problem !== undefined) return `${name}${problem}`
    if (v.entries.dim !== first.entries.dim || v.tail.rows !== first.tail.rows) {
      return `${name}a batch needs one entries dim and one tail length: got dim ${v.entries.dim}, ${v.tail.rows} tail rows; variant 0 has ${first.entries.dim} and ${first.tail.rows}`
    }
  }
  return undefined
}

/**
 * Opens a scorer in the current scope.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (
  options: OnnxOptions = {}
): Effect.Effect<OnnxLensScorerShape, OnnxSessionError | GraphError, Scope.Scope> =>
  Effect.gen(function* () {
    const { graph, session } = yield* start("lens", options, () => analyticLens({ maxLevel: 2 }))
    const lock = yield* Semaphore.make(1)
    const pack = packer()
    const run = (variants: ReadonlyArray<LensInput>, rows: number) =>
      Semaphore.withPermits(
        lock,
        1,
        Effect.suspend(() => session.run(pack(variants, variants[0]!.entries.dim, rows, variants[0]!.tail.rows)))
      ).pipe(
        Effect.mapError(
          (message) =>
            new LensScorer.LensScorerError({ message: `cannot score: onnxruntime (${session.provider}): ${message}` })
        )
      )
    const scoreBatch = Effect.fnUntraced(function* (variants: ReadonlyArray<LensInput>) {
      if (variants.length === 0) return []
      const problem = batchProblem(variants, graph.dim)
      if (problem !== undefined) return yield* fail(problem)
      const rows = Math.max(...variants.map((v) => v.entries.rows))
      if (rows === 0) return variants.map(() => new Float32Array(0))
      const data = (yield* run(variants, rows)).scores?.data
      if (!(data instanceof Float32Array) || data.length !== variants.length * rows) {
        return yield* fail(`the model returned ${data?.length ?? "no"} scores, expected ${variants.length} x ${rows}`)
      }
      const results: Array<Float32Array> = []
      for (let i = 0; i < variants.length; i++) {
        const v = variants[i]!
        const scores = variants.length === 1 ? data : data.slice(i * rows, i * rows + v.entries.rows)
        const bad = scoreProblem(v, scores)
        if (bad !== undefined) return yield* fail(`${variants.length === 1 ? "" : `variant ${i}: `}${bad}`)
        results.push(scores)
      }
      return results
    })
    return OnnxLensScorer.of({
      provider: session.provider,
      events: session.events,
      graph,
      scoreBatch,
      score: (entries, levels, positions, tail) =>
        Effect.map(scoreBatch([{ entries, levels, positions, tail }]), (results) => results[0]!)
    })
  })

/**
 * The ONNX scorer service. `OnnxLensScorer.layer(options)` provides it and the allocator's `LensScorer`
 * (the same instance), with the session closed when the layer's scope closes. The default graph is
 * `Graphs.analyticLens({ maxLevel: 2 })`, the allocator's reference scorer; the provider comes from
 * `options.executionProvider`, else `HEED_EP`, else `auto`, and a missing GPU falls back to the CPU with a
 * `ProviderFailed` event and a warning log line.
 *
 * **Example** (Scoring on the best available provider)
 *
 * ```ts
 * import { LensScorer } from "@heed/allocator"
 * import { Graphs, OnnxLensScorer } from "@heed/gpu"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function* () {
 *   const scorer = yield* LensScorer.LensScorer
 *   const entries = { rows: 2, dim: 2, data: Float32Array.of(1, 0, 0, 1) }
 *   const tail = { rows: 1, dim: 2, data: Float32Array.of(1, 0) }
 *   return yield* scorer.score(entries, [1, 1], [0, 32], tail)
 * }).pipe(Effect.provide(OnnxLensScorer.layer({ graph: Graphs.analyticLens({ maxLevel: 2 }) })))
 * ```
 *
 * @category services
 * @since 0.1.0
 */
export class OnnxLensScorer extends Context.Service<OnnxLensScorer, OnnxLensScorerShape>()(
  "@heed/gpu/OnnxLensScorer"
) {}

/**
 * A layer providing both `OnnxLensScorer` and the allocator's `LensScorer`.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options: OnnxOptions = {}) => layerAsPort(OnnxLensScorer, LensScorer.LensScorer, make(options))
