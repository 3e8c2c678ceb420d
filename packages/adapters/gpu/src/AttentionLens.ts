/**
 * A LensNet-shaped attention head with seeded weights, for scale and parity tests: each working-context
 * entry queries the recent tail (one attention head), and a small MLP head over the query, the attended
 * tail, a level embedding and a recency feature gives a tanh score, legality-masked like the allocator's
 * reference scorer. The weights are pseudo-random from a seed, so the model is untrained: it has the
 * size and cost of a real LensNet, not its judgement. {@link score} is the pure-TypeScript oracle the
 * ONNX graph (`Graphs.attentionLens`) is checked against.
 *
 * @since 0.1.0
 */
import { type LensScorer, SeededRandom } from "@heed/allocator"

/**
 * Sizes and seed of the head: embedding width `dim`, projection width `lensDim` (default 128), the highest
 * level `maxLevel` (default 2), and the weight `seed` (default 1).
 *
 * @category models
 * @since 0.1.0
 */
export interface AttentionLensOptions {
  readonly dim: number
  readonly lensDim?: number | undefined
  readonly maxLevel?: number | undefined
  readonly seed?: number | undefined
}

/**
 * The head's weights, row-major: `query`, `key`, `value` are `dim × lensDim`; `levelEmbedding` is
 * `(maxLevel + 1) × lensDim`; `recency` and `out` are `lensDim` long; `bias` is the output bias.
 *
 * @category models
 * @since 0.1.0
 */
export interface AttentionLensWeights {
  readonly dim: number
  readonly lensDim: number
  readonly maxLevel: number
  readonly query: Float32Array
  readonly key: Float32Array
  readonly value: Float32Array
  readonly levelEmbedding: Float32Array
  readonly recency: Float32Array
  readonly out: Float32Array
  readonly bias: number
}

/** Uniform in [-scale, scale) from a seeded generator. */
const uniform = (seed: number) => {
  const next = SeededRandom.make(seed)
  return (scale: number): number => (next() - 0.5) * 2 * scale
}

const isSize = (n: unknown): n is number => typeof n === "number" && Number.isInteger(n) && n >= 1

/**
 * Seeded weights (Xavier-like uniform scales, so activations stay near unit size at any width). Throws a
 * `RangeError` naming the field for a non-positive or fractional size.
 *
 * @category constructors
 * @since 0.1.0
 */
export const weights = (options: AttentionLensOptions): AttentionLensWeights => {
  const { dim, lensDim = 128, maxLevel = 2, seed = 1 } = options
  for (const [name, value] of [
    ["dim", dim],
    ["lensDim", lensDim],
    ["maxLevel", maxLevel]
  ] as const) {
    if (!isSize(value)) throw new RangeError(`attention lens: ${name} must be an integer >= 1, got ${value}`)
  }
  const next = uniform(seed)
  const fill = (n: number, scale: number) => Float32Array.from({ length: n }, () => next(scale))
  const projection = Math.sqrt(3 / dim)
  return {
    dim,
    lensDim,
    maxLevel,
    query: fill(dim * lensDim, projection),
    key: fill(dim * lensDim, projection),
    value: fill(dim * lensDim, projection),
    levelEmbedding: fill((maxLevel + 1) * lensDim, 0.5),
    recency: fill(lensDim, 0.5),
    out: fill(lensDim, Math.sqrt(3 / lensDim)),
    bias: next(0.1)
  }
}

/** `rows × dim` times `dim × width`, accumulated in float64. */
const project = (data: Float32Array, rows: number, dim: number, w: Float32Array, width: number): Float64Array => {
  const out = new Float64Array(rows * width)
  for (let i = 0; i < rows; i++) {
    const row = out.subarray(i * width, (i + 1) * width)
    for (let k = 0; k < dim; k++) {
      const x = data[i * dim + k]!
      if (x === 0) continue
      const base = k * width
      for (let j = 0; j < width; j++) row[j]! += x * w[base + j]!
    }
  }
  return out
}

/**
 * The head's forward pass in plain TypeScript (float64 accumulation), for one working context:
 * `q = x·Wq`, attention over the tail (`softmax(q·kᵀ/√lensDim)·v`), `h = tanh(q + attended + E[level] +
 * (2r − 1)·w_r)` with recency `r = position / lastPosition`, then `u = tanh(h·w_out + b)`, legality-masked
 * (LOD0 cannot expand, the top level cannot collapse). Slow by design: it is the test oracle.
 *
 * @category combinators
 * @since 0.1.0
 */
export const score = (
  w: AttentionLensWeights,
  entries: LensScorer.Embeddings,
  levels: ArrayLike<number>,
  positions: ArrayLike<number>,
  tail: LensScorer.Embeddings
): Float32Array => {
  const { dim, lensDim: width, maxLevel } = w
  const n = entries.rows
  const q = project(entries.data, n, dim, w.query, width)
  const k = project(tail.data, tail.rows, dim, w.key, width)
  const v = project(tail.data, tail.rows, dim, w.value, width)
  let last = 0
  for (let i = 0; i < n; i++) if (positions[i]! > last) last = positions[i]!
  const scale = 1 / Math.sqrt(width)
  const weightsOfTail = new Float64Array(tail.rows)
  const hidden = new Float64Array(width)
  const out = new Float32Array(n)
  for (let i = 0; i < n; i++) {
    const qi = q.subarray(i * width, (i + 1) * width)
    let max = Number.NEGATIVE_INFINITY
    for (let t = 0; t < tail.rows; t++) {
      let dot = 0
      for (let j = 0; j < width; j++) dot += qi[j]! * k[t * width + j]!
      weightsOfTail[t] = dot * scale
      if (weightsOfTail[t]! > max) max = weightsOfTail[t]!
    }
    let sum = 0
    for (let t = 0; t < tail.rows; t++) {
      weightsOfTail[t] = Math.exp(weightsOfTail[t]! - max)
      sum += weightsOfTail[t]!
    }
    const level = Math.min(maxLevel, Math.max(0, Math.trunc(levels[i]!)))
    const recency = 2 * (last > 0 ? positions[i]! / last : 1) - 1
    let raw = w.bias
    for (let j = 0; j < width; j++) {
      let attended = 0
      for (let t = 0; t < tail.rows; t++) attended += weightsOfTail[t]! * v[t * width + j]!
      hidden[j] = Math.tanh(
        qi[j]! + (sum > 0 ? attended / sum : 0) + w.levelEmbedding[level * width + j]! + recency * w.recency[j]!
      )
      raw += hidden[j]! * w.out[j]!
    }
    let u = Math.tanh(raw)
    if (levels[i]! <= 0 && u > 0) u = 0
    if (levels[i]! >= maxLevel && u < 0) u = 0
    out[i] = u
  }
  return out
}
