import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import { LensScorer } from "../src/index.ts"

const matrix = (rows: ReadonlyArray<ReadonlyArray<number>>): LensScorer.Embeddings => ({
  rows: rows.length,
  dim: rows[0]?.length ?? 0,
  data: Float32Array.from(rows.flat())
})

describe("LensScorer", () => {
  it("analytic scores are legality-masked: LOD0 never expands, max level never collapses", () => {
    const entries = matrix([
      [1, 0],
      [1, 0],
      [-1, 0],
      [-1, 0]
    ])
    const tail = matrix([[1, 0]])
    const scores = LensScorer.analyticScore(entries, [0, 2, 0, 2], [0, 4, 8, 12], tail, { maxLevel: 2 })
    assert.strictEqual(scores[0], 0) // similar, but LOD0 cannot expand
    assert.isAbove(scores[1]!, 0.2) // similar gist: expand
    assert.isBelow(scores[2]!, -0.2) // dissimilar raw tokens: collapse
    assert.strictEqual(scores[3], 0) // dissimilar, but the root level cannot collapse
  })

  it("similarity to the tail, recency and level move the score the documented way", () => {
    const tail = matrix([[1, 0]])
    const near = LensScorer.analyticScore(matrix([[1, 0]]), [1], [5], tail, { maxLevel: 2 })[0]!
    const far = LensScorer.analyticScore(matrix([[0, 1]]), [1], [5], tail, { maxLevel: 2 })[0]!
    assert.isAbove(near, far)
    const old = LensScorer.analyticScore(
      matrix([
        [0, 1],
        [0, 1]
      ]),
      [1, 1],
      [0, 10],
      tail,
      { maxLevel: 2 }
    )
    assert.isBelow(old[0]!, old[1]!)
    const coarse = LensScorer.analyticScore(
      matrix([
        [0, 1],
        [0, 1]
      ]),
      [1, 2],
      [10, 10],
      tail,
      { maxLevel: 3 }
    )
    assert.isAbove(coarse[0]!, coarse[1]!)
    assert.closeTo(near, Math.tanh(4 + 0.5 - 0.125), 1e-6)
  })

  it("property: scores are always finite and in [-1, 1], zero vectors included", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(fc.float({ min: -5, max: 5, noNaN: true }), fc.float({ min: -5, max: 5, noNaN: true }), fc.nat(2)),
          {
            minLength: 1,
            maxLength: 30
          }
        ),
        fc.array(fc.tuple(fc.float({ min: -5, max: 5, noNaN: true }), fc.float({ min: -5, max: 5, noNaN: true })), {
          maxLength: 4
        }),
        (rows, tailRows) => {
          const scores = LensScorer.analyticScore(
            matrix(rows.map(([a, b]) => [a, b])),
            rows.map(([, , level]) => level),
            rows.map((_, i) => i * 4),
            { rows: tailRows.length, dim: 2, data: Float32Array.from(tailRows.flat()) },
            { maxLevel: 2 }
          )
          return scores.every((s, i) => {
            const level = rows[i]![2]
            return Number.isFinite(s) && s >= -1 && s <= 1 && (level > 0 || s <= 0) && (level < 2 || s >= 0)
          })
        }
      )
    )
  })

  it.effect("the analytic layer scores through the port and rejects mismatched shapes", () =>
    Effect.gen(function* () {
      const scorer = yield* LensScorer.LensScorer
      const entries = matrix([
        [1, 0],
        [0, 1]
      ])
      const scores = yield* scorer.score(entries, [1, 1], [0, 4], matrix([[1, 0]]))
      assert.strictEqual(scores.length, 2)
      assert.isAbove(scores[0]!, scores[1]!)
      const error = yield* Effect.flip(scorer.score(entries, [1], [0, 4], matrix([[1, 0]])))
      assert.strictEqual(error._tag, "LensScorerError")
      assert.include(error.message, "levels and positions")
      const wide = yield* Effect.flip(scorer.score(entries, [1, 1], [0, 4], matrix([[1, 0, 0]])))
      assert.include(wide.message, "dim")
    }).pipe(Effect.provide(LensScorer.layerAnalytic({ maxLevel: 2 })))
  )
})
