import { assert, describe, it } from "@effect/vitest"
import { Array as Arr, Effect, Order } from "effect"
import * as fc from "fast-check"
import { Urgency } from "../src/index.ts"

const anyUrgency = fc.constantFrom(...Urgency.levels)

describe("Urgency", () => {
  it("ranks the levels from none (0) to critical (4)", () => {
    assert.deepStrictEqual(
      Urgency.levels.map((level) => [level, Urgency.rank(level)]),
      [
        ["none", 0],
        ["low", 1],
        ["medium", 2],
        ["high", 3],
        ["critical", 4]
      ]
    )
  })

  it("max picks the most urgent", () => {
    assert.strictEqual(Urgency.max("low", "critical", "medium"), "critical")
    assert.strictEqual(Urgency.max("none"), "none")
  })

  it("max is commutative and agrees with the order", () => {
    fc.assert(
      fc.property(anyUrgency, anyUrgency, (a, b) => {
        assert.strictEqual(Urgency.max(a, b), Urgency.max(b, a))
        assert.strictEqual(Urgency.max(a, b), Order.max(Urgency.Order)(a, b))
      })
    )
  })

  it("Order sorts least urgent first; reversed, most urgent first", () => {
    const mixed: Array<Urgency.Urgency> = ["high", "none", "critical", "low", "medium"]
    assert.deepStrictEqual(Arr.sort(mixed, Urgency.Order), ["none", "low", "medium", "high", "critical"])
    assert.deepStrictEqual(Arr.sort(mixed, Order.flip(Urgency.Order))[0], "critical")
  })

  it.effect("decode rejects unknown levels", () =>
    Effect.gen(function* () {
      assert.strictEqual(yield* Urgency.decode("high"), "high")
      const error = yield* Effect.flip(Urgency.decode("urgent"))
      assert.include(error.message, "critical")
    })
  )
})
