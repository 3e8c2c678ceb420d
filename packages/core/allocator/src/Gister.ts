/**
 * The `Gister` port: turns blocks of `blockSize` child vectors into one gist vector each (GistNet in
 * MegaContext). This core ships the pure mean-pool reference layer; the GPU adapter provides a learned one.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"

/**
 * A batch of blocks to gist: `count` blocks of `blockSize` vectors of `dim` floats, row-major in `data`
 * (`count · blockSize · dim` floats).
 *
 * @category models
 * @since 0.1.0
 */
export interface GistBlocks {
  readonly count: number
  readonly blockSize: number
  readonly dim: number
  readonly data: Float32Array
}

/**
 * Raised by a gister that cannot gist a batch (bad shape, backend failure).
 *
 * @category errors
 * @since 0.1.0
 */
export class GisterError extends Schema.TaggedError<GisterError>()("GisterError", {
  message: Schema.String
}) {}

/**
 * The gister's interface: `gist(blocks)` returns `count · dim` floats, one gist per block, in order.
 *
 * @category models
 * @since 0.1.0
 */
export interface GisterShape {
  readonly gist: (blocks: GistBlocks) => Effect.Effect<Float32Array, GisterError>
}

/**
 * The mean-pool gist: each gist is the arithmetic mean of its block's vectors (MegaContext's fallback
 * when no GistNet is attached). Pure and synchronous.
 *
 * @category combinators
 * @since 0.1.0
 */
export const meanPool = (blocks: GistBlocks): Float32Array => {
  const { count, blockSize, dim, data } = blocks
  const out = new Float32Array(count * dim)
  const sums = new Float64Array(dim)
  for (let b = 0; b < count; b++) {
    sums.fill(0)
    const base = b * blockSize * dim
    for (let c = 0; c < blockSize; c++) {
      const row = base + c * dim
      for (let k = 0; k < dim; k++) sums[k]! += data[row + k]!
    }
    for (let k = 0; k < dim; k++) out[b * dim + k] = sums[k]! / blockSize
  }
  return out
}

const checkShape = (blocks: GistBlocks): string | undefined => {
  const { count, blockSize, dim, data } = blocks
  if (![count, blockSize, dim].every((n) => Number.isInteger(n) && n >= 0)) {
    return `count, blockSize and dim must be integers >= 0, got ${count}, ${blockSize}, ${dim}`
  }
  if (blockSize === 0 && count > 0) return "blockSize must be >= 1"
  if (data.length !== count * blockSize * dim) {
    return `expected ${count} x ${blockSize} x ${dim} = ${count * blockSize * dim} floats, got ${data.length}`
  }
  return undefined
}

/**
 * The gister service. `Gister.layerMeanPool` is the pure reference implementation ({@link meanPool}),
 * failing with a {@link GisterError} on a malformed batch.
 *
 * @category services
 * @since 0.1.0
 */
export class Gister extends Context.Service<Gister, GisterShape>()("@heed/allocator/Gister") {}

/**
 * The mean-pool reference gister.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerMeanPool: Layer.Layer<Gister> = Layer.succeed(
  Gister,
  Gister.of({
    gist: (blocks) => {
      const problem = checkShape(blocks)
      return problem === undefined
        ? Effect.succeed(meanPool(blocks))
        : Effect.fail(new GisterError({ message: `cannot gist: ${problem}` }))
    }
  })
)
