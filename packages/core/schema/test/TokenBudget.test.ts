import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import { TokenBudget } from "../src/index.ts"

describe("TokenBudget", () => {
  it.effect("decodes positive integers and rejects the rest with a clear message", () =>
    Effect.gen(function* () {
      assert.strictEqual(yield* TokenBudget.decode(200), 200)
      for (const bad of [0, -5, 1.5, Number.NaN, "200"]) {
        const error = yield* Effect.flip(TokenBudget.decode(bad))
        assert.isString(error.message)
      }
      const zero = yield* Effect.flip(TokenBudget.decode(0))
      assert.include(zero.message, "positive integer")
    })
  )

  it("fits and remaining", () => {
    assert.isTrue(TokenBudget.fits(100, 100))
    assert.isFalse(TokenBudget.fits(100, 101))
    assert.strictEqual(TokenBudget.remaining(100, 30), 70)
    assert.strictEqual(TokenBudget.remaining(100, 130), 0)
  })

  it("split gives proportional whole shares", () => {
    assert.deepStrictEqual(TokenBudget.split(500, [3, 1, 1]), [300, 100, 100])
    assert.deepStrictEqual(TokenBudget.split(10, [1, 1, 1]), [4, 3, 3])
    assert.deepStrictEqual(TokenBudget.split(10, [0, 0]), [5, 5])
    assert.deepStrictEqual(TokenBudget.split(10, [-1, 1]), [0, 10])
    assert.deepStrictEqual(TokenBudget.split(10, []), [])
  })

  it("split always adds up to the budget and never goes negative", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100_000 }),
        fc.array(fc.double({ min: -10, max: 1000, noNaN: true }), { minLength: 1, maxLength: 50 }),
        (budget, weights) => {
          const parts = TokenBudget.split(budget, weights)
          assert.strictEqual(parts.length, weights.length)
          assert.strictEqual(
            parts.reduce((a, b) => a + b, 0),
            budget
          )
          for (const part of parts) assert.isTrue(Number.isInteger(part) && part >= 0)
        }
      )
    )
  })

  it("pack keeps items in order while they fit, letting small later items in", () => {
    const packed = TokenBudget.pack(["aaaa", "bb", "cccccc", "d"], (s) => s.length, 7)
    assert.deepStrictEqual(packed.taken, ["aaaa", "bb", "d"])
    assert.deepStrictEqual(packed.dropped, ["cccccc"])
    assert.strictEqual(packed.used, 7)
  })

  it("pack never exceeds the budget and loses no item", () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 50 })), fc.nat({ max: 200 }), (costs, budget) => {
        const packed = TokenBudget.pack(costs, (c) => c, budget)
        assert.isAtMost(packed.used, budget)
        assert.strictEqual(packed.taken.length + packed.dropped.length, costs.length)
      })
    )
  })
})
