/**
 * The LOD tree: token embeddings at LOD0 and, at each level L ≥ 1, one gist per `blockSize` consecutive
 * nodes of level L-1 (MegaContext's MegaContextTree). Partial tail blocks get no gist and stay LOD0.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Gister, type GisterError } from "./Gister.ts"
import { flattenEmbeddings } from "./internal/core.ts"
import type { Embeddings } from "./LensScorer.ts"
import type { Entry } from "./WorkingContext.ts"

/**
 * The shape of a tree: children per gist and highest level.
 *
 * @category models
 * @since 0.1.0
 */
export interface TreeShape {
  readonly blockSize: number
  readonly maxLevel: number
}

/**
 * Options for {@link make}: the tree shape plus the embedding width `dim`.
 *
 * @category models
 * @since 0.1.0
 */
export interface LodTreeOptions extends TreeShape {
  readonly dim: number
}

/**
 * Token embeddings: one flat Float32Array of `n · dim` floats (row-major), or one Float32Array of `dim`
 * floats per token.
 *
 * @category models
 * @since 0.1.0
 */
export type TokenEmbeddings = Float32Array | ReadonlyArray<Float32Array>

/**
 * Raised for bad tree options, malformed embeddings, a gister answer of the wrong size, or a lookup of a
 * node that does not exist.
 *
 * @category errors
 * @since 0.1.0
 */
export class LodTreeError extends Schema.TaggedError<LodTreeError>()("LodTreeError", {
  message: Schema.String
}) {}

interface Level {
  data: Float32Array
  count: number
}

const validateOptions = (options: LodTreeOptions): string | undefined => {
  if (!Number.isInteger(options.blockSize) || options.blockSize < 2) {
    return `blockSize must be an integer >= 2, got ${options.blockSize}`
  }
  if (!Number.isInteger(options.maxLevel) || options.maxLevel < 0) {
    return `maxLevel must be an integer >= 0, got ${options.maxLevel}`
  }
  if (!Number.isInteger(options.dim) || options.dim < 1) return `dim must be an integer >= 1, got ${options.dim}`
  return undefined
}

const ensureCapacity = (level: Level, floats: number): void => {
  if (level.data.length >= floats) return
  const grown = new Float32Array(Math.max(floats, level.data.length * 2, 64))
  grown.set(level.data)
  level.data = grown
}

/**
 * The multi-level tree over token embeddings (`Float32Array`s). Node `i` of level `L` covers tokens
 * `[i · blockSize^L, (i + 1) · blockSize^L)`. The tree is an append-only mutable store: {@link append}
 * gists every newly completed block through the {@link Gister} port and commits all levels at once, so a
 * failing gister leaves the tree unchanged.
 *
 * @category models
 * @since 0.1.0
 */
export class LodTree {
  /** Children per gist. */
  readonly blockSize: number
  /** Highest level built. */
  readonly maxLevel: number
  /** Embedding width. */
  readonly dim: number
  /** @internal The levels' data; built by {@link make} and grown by {@link append}. */
  readonly levels: Array<Level>

  /** @internal Use {@link make}. */
  constructor(options: LodTreeOptions) {
    this.blockSize = options.blockSize
    this.maxLevel = options.maxLevel
    this.dim = options.dim
    this.levels = Array.from({ length: options.maxLevel + 1 }, () => ({ data: new Float32Array(0), count: 0 }))
  }

  /** Tokens in the tree. */
  get totalTokens(): number {
    return this.levels[0]!.count
  }

  /** Node counts per level. */
  get counts(): ReadonlyArray<number> {
    return this.levels.map((level) => level.count)
  }

  /** Nodes at `level` (0 for a level the tree does not build). */
  count(level: number): number {
    return this.levels[level]?.count ?? 0
  }

  /** `true` when node `index` of `level` exists. */
  has(level: number, index: number): boolean {
    return Number.isInteger(index) && index >= 0 && index < this.count(level)
  }

  /** A view of node `index` at `level` (`dim` floats), or `undefined` when it does not exist. */
  node(level: number, index: number): Float32Array | undefined {
    if (!this.has(level, index)) return undefined
    return this.levels[level]!.data.subarray(index * this.dim, (index + 1) * this.dim)
  }

  /** A view of the `blockSize` children of node `index` at `level` ≥ 1, or `undefined`. */
  children(level: number, index: number): Float32Array | undefined {
    if (level < 1 || !this.has(level, index)) return undefined
    const K = this.blockSize
    return this.levels[level - 1]!.data.subarray(index * K * this.dim, (index + 1) * K * this.dim)
  }

  /** The parent index of node `index` at `level`: `floor(index / blockSize)`. */
  parentIndex(index: number): number {
    return Math.floor(index / this.blockSize)
  }

  /** The vector of a working-context entry, or `undefined` when the node does not exist. */
  entry(entry: Entry): Float32Array | undefined {
    const span = this.blockSize ** entry.level
    if (entry.start % span !== 0) return undefined
    return this.node(entry.level, entry.start / span)
  }

  /** The vectors of tokens `[from, to)`, clamped to the history, as a matrix. */
  tokens(from: number, to: number): Embeddings {
    const lo = Math.max(0, Math.min(from, this.totalTokens))
    const hi = Math.max(lo, Math.min(to, this.totalTokens))
    return { rows: hi - lo, dim: this.dim, data: this.levels[0]!.data.slice(lo * this.dim, hi * this.dim) }
  }

  /**
   * The vectors of working-context entries, stacked in order, failing with a {@link LodTreeError} when an
   * entry names a node the tree does not have.
   */
  gather(entries: ReadonlyArray<Entry>): Effect.Effect<Embeddings, LodTreeError> {
    const dim = this.dim
    const data = new Float32Array(entries.length * dim)
    for (let i = 0; i < entries.length; i++) {
      const vector = this.entry(entries[i]!)
      if (vector === undefined) {
        const { level, start } = entries[i]!
        return Effect.fail(new LodTreeError({ message: `entry ${i} (LOD${level} at ${start}) has no tree node` }))
      }
      data.set(vector, i * dim)
    }
    return Effect.succeed({ rows: entries.length, dim, data })
  }
}

/**
 * Node count per level for a history of `totalTokens` tokens: level 0 has `totalTokens`, level L has
 * `floor(count(L-1) / blockSize)` (partial blocks get no gist). 100,000 tokens at K = 32 give 3,125 LOD1
 * and 97 LOD2 nodes.
 *
 * @category getters
 * @since 0.1.0
 */
export function shape(totalTokens: number, shape: TreeShape): ReadonlyArray<number> {
  const counts = [Number.isFinite(totalTokens) ? Math.max(0, Math.floor(totalTokens)) : 0]
  for (let level = 1; level <= shape.maxLevel; level++) {
    counts.push(Math.floor(counts[level - 1]! / shape.blockSize))
  }
  return counts
}

/**
 * An empty tree, failing with a {@link LodTreeError} on bad options.
 *
 * @category constructors
 * @since 0.1.0
 */
export function make(options: LodTreeOptions): Effect.Effect<LodTree, LodTreeError> {
  const problem = validateOptions(options)
  return problem === undefined
    ? Effect.succeed(new LodTree(options))
    : Effect.fail(new LodTreeError({ message: `invalid tree options: ${problem}` }))
}

/**
 * A tree over `embeddings` (`n · dim` floats, or one `dim`-float row per token), gisted with the
 * {@link Gister} in context.
 *
 * @category constructors
 * @since 0.1.0
 */
export function fromEmbeddings(
  options: LodTreeOptions,
  embeddings: TokenEmbeddings
): Effect.Effect<LodTree, LodTreeError | GisterError, Gister> {
  return Effect.flatMap(make(options), (tree) => append(tree, embeddings))
}

/**
 * Appends token embeddings (`n · dim` floats, or one `dim`-float row per token) and gists every block
 * they complete, level by level, with the {@link Gister} in context (one batch per level). All or
 * nothing: on any failure the tree is unchanged. Returns the same (mutated) tree.
 *
 * @category combinators
 * @since 0.1.0
 */
export function append(
  tree: LodTree,
  input: TokenEmbeddings
): Effect.Effect<LodTree, LodTreeError | GisterError, Gister> {
  return Effect.gen(function* () {
    const dim = tree.dim
    const embeddings = flattenEmbeddings(input, dim)
    if (embeddings === undefined) {
      return yield* new LodTreeError({
        message: `embeddings must be a Float32Array whose length is a multiple of dim ${dim}, or an array of Float32Arrays of dim ${dim} floats each`
      })
    }
    for (let i = 0; i < embeddings.length; i++) {
      if (!Number.isFinite(embeddings[i]!)) {
        return yield* new LodTreeError({ message: `embedding value ${i} is not finite (${embeddings[i]})` })
      }
    }
    const added = embeddings.length / dim
    if (added === 0) return tree
    const K = tree.blockSize
    // Stage everything past the committed counts; commit only when every level succeeded.
    const newCounts = tree.levels.map((level) => level.count)
    const level0 = tree.levels[0]!
    ensureCapacity(level0, (level0.count + added) * dim)
    level0.data.set(embeddings, level0.count * dim)
    newCounts[0] = level0.count + added
    const gister = yield* Gister
    for (let L = 1; L <= tree.maxLevel; L++) {
      const below = tree.levels[L - 1]!
      const level = tree.levels[L]!
      const target = Math.floor(newCounts[L - 1]! / K)
      const fresh = target - level.count
      if (fresh <= 0) {
        newCounts[L] = level.count
        continue
      }
      const from = level.count * K * dim
      const blocks = below.data.slice(from, from + fresh * K * dim)
      const gists = yield* gister.gist({ count: fresh, blockSize: K, dim, data: blocks })
      if (gists.length !== fresh * dim) {
        return yield* new LodTreeError({
          message: `the gister returned ${gists.length} floats for ${fresh} blocks of dim ${dim}`
        })
      }
      ensureCapacity(level, target * dim)
      level.data.set(gists, level.count * dim)
      newCounts[L] = target
    }
    for (let L = 0; L <= tree.maxLevel; L++) tree.levels[L]!.count = newCounts[L]!
    return tree
  })
}
