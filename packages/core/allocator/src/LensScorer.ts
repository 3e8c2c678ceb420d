/**
 * The `LensScorer` port: one signed focus score in [-1, 1] per working-context entry (LensNet in
 * MegaContext): positive asks for more detail (expand), negative for less (collapse). This core ships
 * an analytic reference scorer; the GPU adapter provides a learned one.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"

/**
 * A matrix of `rows` vectors of `dim` floats, row-major in `data`.
 *
 * @category models
 * @since 0.1.0
 */
export interface Embeddings {
  readonly rows: number
  readonly dim: number
  readonly data: Float32Array
}

/**
 * Raised by a scorer that cannot score (bad shapes, backend failure).
 *
 * @category errors
 * @since 0.1.0
 */
export class LensScorerError extends Schema.TaggedError<LensScorerError>()("LensScorerError", {
  message: Schema.String
}) {}

/**
 * The scorer's interface. `entries` are the working-context entries' vectors, `levels` and `positions`
 * (span starts) their levels and first tokens, `tail` the most recent token vectors. Returns one score per
 * entry in [-1, 1].
 *
 * @category models
 * @since 0.1.0
 */
export interface LensScorerShape {
  readonly score: (
    entries: Embeddings,
    levels: ArrayLike<number>,
    positions: ArrayLike<number>,
    tail: Embeddings
  ) => Effect.Effect<Float32Array, LensScorerError>
}

/**
 * Options of the analytic scorer: the highest level (for the legality mask and the level term),
 * `sharpness` (weight of the cosine, default 4), `recencyWeight` (default 0.5) and `levelWeight`
 * (default 0.25).
 *
 * @category models
 * @since 0.1.0
 */
export interface AnalyticOptions {
  readonly maxLevel: number
  readonly sharpness?: number | undefined
  readonly recencyWeight?: number | undefined
  readonly levelWeight?: number | undefined
}

/**
 * The analytic reference score:
 * `u = tanh(sharpness · cos(x, q) + recencyWeight · (2r - 1) - levelWeight · level / maxLevel)`, where `q`
 * is the mean of the tail vectors, `r = position / lastPosition` in [0, 1] (recency), then legality-masked:
 * LOD0 entries cannot expand (`u = min(u, 0)`), max-level entries cannot collapse (`u = max(u, 0)`).
 * Zero vectors have cosine 0 and non-finite terms count as 0, so the result is always in [-1, 1].
 *
 * @category combinators
 * @since 0.1.0
 */
export const analyticScore = (
  entries: Embeddings,
  levels: ArrayLike<number>,
  positions: ArrayLike<number>,
  tail: Embeddings,
  options: AnalyticOptions
): Float32Array => {
  const { rows, dim, data } = entries
  const sharpness = options.sharpness ?? 4
  const recencyWeight = options.recencyWeight ?? 0.5
  const levelWeight = options.levelWeight ?? 0.25
  const maxLevel = options.maxLevel
  const q = new Float64Array(dim)
  for (let t = 0; t < tail.rows; t++) for (let k = 0; k < dim; k++) q[k]! += tail.data[t * dim + k]!
  let qNorm = 0
  for (let k = 0; k < dim; k++) qNorm += q[k]! * q[k]!
  qNorm = Math.sqrt(qNorm)
  let last = 0
  for (let i = 0; i < rows; i++) if (positions[i]! > last) last = positions[i]!
  const out = new Float32Array(rows)
  for (let i = 0; i < rows; i++) {
    let dot = 0
    let norm = 0
    const base = i * dim
    for (let k = 0; k < dim; k++) {
      const x = data[base + k]!
      dot += x * q[k]!
      norm += x * x
    }
    const cosine = norm > 0 && qNorm > 0 ? dot / (Math.sqrt(norm) * qNorm) : 0
    const recency = last > 0 ? positions[i]! / last : 1
    const level = levels[i]!
    const levelTerm = maxLevel > 0 ? level / maxLevel : 0
    let raw = sharpness * cosine + recencyWeight * (2 * recency - 1) - levelWeight * levelTerm
    if (!Number.isFinite(raw)) raw = 0
    let u = Math.tanh(raw)
    if (level <= 0) u = Math.min(u, 0)
    if (level >= maxLevel) u = Math.max(u, 0)
    out[i] = u
  }
  return out
}

const checkShapes = (
  entries: Embeddings,
  levels: ArrayLike<number>,
  positions: ArrayLike<number>,
  tail: Embeddings
): string | undefined => {
  if (entries.data.length !== entries.rows * entries.dim) return "entries.data must hold rows x dim floats"
  if (tail.data.length !== tail.rows * tail.dim) return "tail.data must hold rows x dim floats"
  if (tail.rows > 0 && tail.dim !== entries.dim) return `tail dim ${tail.dim} differs from entries dim ${entries.dim}`
  if (levels.length !== entries.rows || positions.length !== entries.rows) {
    return `expected ${entries.rows} levels and positions, got ${levels.length} and ${positions.length}`
  }
  return undefined
}

/**
 * The scorer service. `LensScorer.layerAnalytic(options)` is the pure reference implementation
 * ({@link analyticScore}), failing with a {@link LensScorerError} on mismatched shapes.
 *
 * @category services
 * @since 0.1.0
 */
export class LensScorer extends Context.Service<LensScorer, LensScorerShape>()("@heed/allocator/LensScorer") {}

/**
 * The analytic reference scorer (default options: `{ maxLevel: 2 }`).
 *
 * @category layers
 * @since 0.1.0
 */
export const layerAnalytic = (options: AnalyticOptions = { maxLevel: 2 }): Layer.Layer<LensScorer> =>
  Layer.succeed(
    LensScorer,
    LensScorer.of({
      score: (entries, levels, positions, tail) => {
        const problem = checkShapes(entries, levels, positions, tail)
        return problem === undefined
          ? Effect.succeed(analyticScore(entries, levels, positions, tail, options))
          : Effect.fail(new LensScorerError({ message: `cannot score: ${problem}` }))
      }
    })
  )
