import { assert, describe, it } from "@effect/vitest"
import { LensScorer } from "@heed/allocator"
import { Effect, Exit, Scope } from "effect"
import { AttentionLens, Graphs, OnnxLensScorer } from "../src/index.ts"
import { matrix, maxAbsDiff, prng } from "./providers.ts"

const dim = 16

const variant = (rows: number, seed: number, tail = matrix(32, dim, 99)): OnnxLensScorer.LensInput => {
  const next = prng(seed)
  const levels = Array.from({ length: rows }, () => Math.floor((next() + 0.5) * 3))
  return { entries: matrix(rows, dim, seed), levels, positions: levels.map((_, i) => i * 32), tail }
}

const reference = (v: OnnxLensScorer.LensInput) =>
  LensScorer.analyticScore(v.entries, v.levels, v.positions, v.tail, { maxLevel: 2 })

const graphs = [
  ["analytic", Graphs.analyticLens({ maxLevel: 2 })],
  ["attention", Graphs.attentionLens({ dim })]
] as const

describe("OnnxLensScorer", () => {
  it.effect("scoreBatch scores 8 variants of different lengths in one run, each as if scored alone", () =>
    Effect.gen(function* () {
      const scorer = yield* OnnxLensScorer.make({ executionProvider: "cpu", threads: 1 })
      const variants = [1, 31, 32, 33, 257, 100, 0, 64].map((rows, i) => variant(rows, i + 1))
      const batch = yield* scorer.scoreBatch(variants)
      assert.deepStrictEqual(
        batch.map((scores) => scores.length),
        [1, 31, 32, 33, 257, 100, 0, 64]
      )
      for (let i = 0; i < variants.length; i++) {
        const v = variants[i]!
        assert.isAtMost(maxAbsDiff(batch[i]!, reference(v)), 1e-6, `variant ${i}`)
        // Float32 kernels may round a padded row differently from one scored alone (the kernel depends on the
        // padded length), so "as if scored alone" is within 1e-6 rather than to the bit.
        const alone = yield* scorer.score(v.entries, v.levels, v.positions, v.tail)
        assert.isAtMost(maxAbsDiff(batch[i]!, alone), 1e-6, `variant ${i} alone`)
      }
      assert.deepStrictEqual(yield* scorer.scoreBatch([]), [])
    }).pipe(Effect.scoped)
  )

  for (const [name, graph] of graphs) {
    it.effect(`NaN and ±Infinity embeddings are typed errors naming the row; the ${name} session stays usable`, () =>
      Effect.gen(function* () {
        const scorer = yield* OnnxLensScorer.make({ executionProvider: "cpu", threads: 1, graph })
        const good = variant(40, 7)
        const before = yield* scorer.score(good.entries, good.levels, good.positions, good.tail)
        for (const [where, row, value] of [
          ["entries", 17, Number.NaN],
          ["entries", 39, Number.POSITIVE_INFINITY],
          ["tail", 5, Number.NEGATIVE_INFINITY]
        ] as const) {
          const bad = where === "entries" ? { ...good.entries, data: good.entries.data.slice() } : good.entries
          const badTail = where === "tail" ? { ...good.tail, data: good.tail.data.slice() } : good.tail
          ;(where === "entries" ? bad : badTail).data[row * dim + 3] = value
          const error = yield* Effect.flip(scorer.score(bad, good.levels, good.positions, badTail))
          assert.strictEqual(error._tag, "LensScorerError")
          assert.include(error.message, `${where} row ${row} holds a non-finite value`)
        }
        // Without a tail nothing is attended, so only the graph's taint carries an infinite entry to the score.
        const infinite = { ...good.entries, data: good.entries.data.slice() }
        infinite.data[2 * dim] = Number.POSITIVE_INFINITY
        const noTail = { rows: 0, dim, data: new Float32Array(0) }
        const untailed = yield* Effect.flip(scorer.score(infinite, good.levels, good.positions, noTail))
        assert.include(untailed.message, "entries row 2 holds a non-finite value")
        const batchError = yield* Effect.flip(
          scorer.scoreBatch([
            good,
            { ...good, entries: { ...good.entries, data: good.entries.data.map((x, i) => (i === 0 ? Number.NaN : x)) } }
          ])
        )
        assert.include(batchError.message, "variant 1: entries row 0 holds a non-finite value")
        assert.deepStrictEqual(yield* scorer.score(good.entries, good.levels, good.positions, good.tail), before)
      }).pipe(Effect.scoped)
    )
  }

  it.effect("mismatched shapes and non-finite levels or positions fail before running, naming the field", () =>
    Effect.gen(function* () {
      const scorer = yield* OnnxLensScorer.make({ executionProvider: "cpu", threads: 1 })
      const v = variant(4, 3)
      const cases: ReadonlyArray<readonly [OnnxLensScorer.LensInput, string]> = [
        [{ ...v, levels: [1, 1] }, "expected 4 levels and positions, got 2 and 4"],
        [{ ...v, positions: [0, 1, Number.NaN, 3] }, "positions[2] must be a finite number, got NaN"],
        [{ ...v, levels: [0, 1, 2, Number.POSITIVE_INFINITY] }, "levels[3] must be a finite number"],
        [
          { ...v, entries: { rows: 4, dim, data: new Float32Array(5) } },
          "entries.data must be a Float32Array of rows x dim = 64 floats"
        ],
        [{ ...v, tail: matrix(2, 8, 1) }, "tail dim 8 differs from entries dim 16"],
        [
          { ...v, entries: { rows: -1, dim, data: new Float32Array(0) } },
          "entries.rows and entries.dim must be integers >= 0"
        ]
      ]
      for (const [input, message] of cases) {
        const error = yield* Effect.flip(scorer.score(input.entries, input.levels, input.positions, input.tail))
        assert.include(error.message, message)
      }
      const mixed = yield* Effect.flip(scorer.scoreBatch([v, variant(4, 4, matrix(8, dim, 1))]))
      assert.include(mixed.message, "variant 1: a batch needs one entries dim and one tail length")
      // Three variants padded to 2^26 rows of 2 would need 3 · 2^27 floats: refused before anything is walked.
      const huge = { ...v, entries: { rows: 2 ** 26, dim: 2, data: new Float32Array(0) } }
      const tooBig = yield* Effect.flip(scorer.scoreBatch([huge, v, v]))
      assert.include(tooBig.message, "over the limit of 268435456")
      assert.isAtMost(maxAbsDiff(yield* scorer.score(v.entries, v.levels, v.positions, v.tail), reference(v)), 1e-6)
    }).pipe(Effect.scoped)
  )

  it.effect("the session is a scoped resource: closed with its scope, after which scoring is a typed error", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const scorer = yield* OnnxLensScorer.make({ executionProvider: "cpu", threads: 1 }).pipe(Scope.provide(scope))
      const v = variant(3, 1)
      assert.isAtMost(maxAbsDiff(yield* scorer.score(v.entries, v.levels, v.positions, v.tail), reference(v)), 1e-6)
      yield* Scope.close(scope, Exit.void)
      const error = yield* Effect.flip(scorer.score(v.entries, v.levels, v.positions, v.tail))
      assert.strictEqual(error._tag, "LensScorerError")
      assert.include(error.message, "cannot score: onnxruntime (cpu): Session already disposed")
    })
  )

  it.effect("an empty working context scores to an empty array without a run", () =>
    Effect.gen(function* () {
      const scorer = yield* OnnxLensScorer.make({ executionProvider: "cpu", threads: 1 })
      const empty = { rows: 0, dim, data: new Float32Array(0) }
      assert.deepStrictEqual(yield* scorer.score(empty, [], [], matrix(3, dim, 1)), new Float32Array(0))
    }).pipe(Effect.scoped)
  )

  it.effect("the attention head's batched scores equal its single scores within 1e-6", () =>
    Effect.gen(function* () {
      const weights = AttentionLens.weights({ dim })
      const scorer = yield* OnnxLensScorer.make({
        executionProvider: "cpu",
        threads: 1,
        graph: Graphs.attentionLens(weights)
      })
      const variants = [5, 64, 33].map((rows, i) => variant(rows, 20 + i))
      const batch = yield* scorer.scoreBatch(variants)
      for (let i = 0; i < variants.length; i++) {
        const v = variants[i]!
        const want = AttentionLens.score(weights, v.entries, v.levels, v.positions, v.tail)
        assert.isAtMost(maxAbsDiff(batch[i]!, want), 1e-5)
        assert.isAtMost(maxAbsDiff(batch[i]!, yield* scorer.score(v.entries, v.levels, v.positions, v.tail)), 1e-6)
      }
    }).pipe(Effect.scoped)
  )
})
