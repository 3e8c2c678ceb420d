import { assert, describe, it } from "@effect/vitest"
import { Gister, LensScorer } from "@heed/allocator"
import { Effect } from "effect"
import { AttentionLens, Graphs, OnnxGister, OnnxLensScorer } from "../src/index.ts"
import { matrix, maxAbsDiff, prng, providers } from "./providers.ts"

const Ns = [1, 31, 32, 33, 257, 8192]
const Ks = [2, 32]
const dims = [16, 64, 768]
const tolerance = 1e-5

/**
 * A working context of `n` entries with a `k`-row tail. Entries lean towards or away from the tail's mean by a
 * random amount, so the cosine term spans its range (random vectors alone would all be near-orthogonal).
 */
const lensInput = (n: number, k: number, dim: number, seed: number) => {
  const next = prng(seed)
  const tail = matrix(k, dim, seed + 1)
  const mean = new Float32Array(dim)
  for (let t = 0; t < k; t++) for (let j = 0; j < dim; j++) mean[j]! += tail.data[t * dim + j]! / k
  const entries: LensScorer.Embeddings = matrix(n, dim, seed + 2)
  for (let i = 0; i < n; i++) {
    const lean = next() * 4
    for (let j = 0; j < dim; j++) entries.data[i * dim + j]! += lean * mean[j]! * Math.sqrt(dim)
  }
  const levels = Array.from({ length: n }, () => Math.floor((next() + 0.5) * 3))
  let position = 0
  const positions = levels.map((level) => {
    const start = position
    position += 32 ** level
    return start
  })
  return { entries, levels, positions, tail }
}

describe.each(providers)("parity with the pure-TS references on %s", (provider) => {
  const session = { executionProvider: provider, fallback: false, threads: 1 } as const

  it.effect.each(["float32", "float64"] as const)(
    `analytic LensNet (%s) equals analyticScore within ${tolerance} for N in {${Ns}}, K in {${Ks}}, d in {${dims}}`,
    (precision) =>
      Effect.gen(function* () {
        const scorer = yield* OnnxLensScorer.make({
          ...session,
          graph: Graphs.analyticLens({ maxLevel: 2, precision })
        })
        assert.strictEqual(scorer.provider, provider)
        for (const dim of dims) {
          for (const n of Ns) {
            for (const k of Ks) {
              const { entries, levels, positions, tail } = lensInput(n, k, dim, n * 7 + k + dim)
              const got = yield* scorer.score(entries, levels, positions, tail)
              const want = LensScorer.analyticScore(entries, levels, positions, tail, { maxLevel: 2 })
              assert.isAtMost(maxAbsDiff(got, want), tolerance, `N=${n} K=${k} d=${dim}`)
            }
          }
        }
      }).pipe(Effect.scoped),
    60_000
  )

  for (const dim of dims) {
    it.effect(
      `the seeded attention head equals AttentionLens.score within ${tolerance} for every N and K (d=${dim})`,
      () =>
        Effect.gen(function* () {
          const weights = AttentionLens.weights({ dim, seed: dim })
          const scorer = yield* OnnxLensScorer.make({ ...session, graph: Graphs.attentionLens(weights) })
          for (const n of Ns) {
            for (const k of Ks) {
              const { entries, levels, positions, tail } = lensInput(n, k, dim, n * 5 + k + dim)
              const got = yield* scorer.score(entries, levels, positions, tail)
              const want = AttentionLens.score(weights, entries, levels, positions, tail)
              assert.isAtMost(maxAbsDiff(got, want), tolerance, `N=${n} K=${k} d=${dim}`)
              // Guard against a degenerate head: the scores must actually vary.
              if (n > 31) assert.isAbove(Math.max(...got) - Math.min(...got), 0.1)
            }
          }
        }).pipe(Effect.scoped),
      120_000
    )
  }

  it.effect(
    `mean-pool GistNet equals meanPool within ${tolerance} over N vectors in blocks of K, for every d`,
    () =>
      Effect.gen(function* () {
        const gister = yield* OnnxGister.make({ ...session, graph: Graphs.meanPoolGist() })
        for (const dim of dims) {
          for (const n of Ns) {
            for (const k of Ks) {
              const count = Math.ceil(n / k)
              const blocks = { count, blockSize: k, dim, data: matrix(count * k, dim, n + k + dim).data }
              const got = yield* gister.gist(blocks)
              assert.isAtMost(maxAbsDiff(got, Gister.meanPool(blocks)), tolerance, `N=${n} K=${k} d=${dim}`)
            }
          }
        }
      }).pipe(Effect.scoped),
    60_000
  )
})
