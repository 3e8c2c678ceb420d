import { assert, describe, it } from "@effect/vitest"
import { Array as Arr, Effect } from "effect"
import * as fc from "fast-check"
import { Band } from "../src/index.ts"

const anyBand = fc.constantFrom(...Band.Band.values)

describe("Band", () => {
  it("ranks HOT=0, WARM=1, COOL=2, IDLE=3", () => {
    assert.deepStrictEqual(
      Band.Band.values.map((band) => [band, Band.Band.rank(band)]),
      [
        ["HOT", 0],
        ["WARM", 1],
        ["COOL", 2],
        ["IDLE", 3]
      ]
    )
  })

  it("warmer and cooler step to the adjacent band and saturate at HOT and IDLE", () => {
    assert.deepStrictEqual(Band.Band.values.map(Band.Band.warmer), ["HOT", "HOT", "WARM", "COOL"])
    assert.deepStrictEqual(Band.Band.values.map(Band.Band.cooler), ["WARM", "COOL", "IDLE", "IDLE"])
  })

  it("warmer and cooler move rank by at most one, in their direction", () => {
    fc.assert(
      fc.property(anyBand, (band) => {
        assert.isTrue(Band.Band.rank(band) - Band.Band.rank(Band.Band.warmer(band)) <= 1)
        assert.isTrue(Band.Band.rank(Band.Band.warmer(band)) <= Band.Band.rank(band))
        assert.isTrue(Band.Band.rank(Band.Band.cooler(band)) - Band.Band.rank(band) <= 1)
        assert.isTrue(Band.Band.rank(Band.Band.cooler(band)) >= Band.Band.rank(band))
        assert.strictEqual(Band.Band.fromRank(Band.Band.rank(band)), band)
      })
    )
  })

  it("Order sorts warmest first; key gives the config key; is guards input", () => {
    assert.deepStrictEqual(Arr.sort(["IDLE", "HOT", "COOL", "WARM"] as Array<Band.Band>, Band.Band.Order), [
      "HOT",
      "WARM",
      "COOL",
      "IDLE"
    ])
    assert.strictEqual(Band.Band.key("COOL"), "cool")
    assert.isTrue(Band.Band.is("WARM"))
    assert.isFalse(Band.Band.is("warm"))
    assert.isFalse(Band.Band.is(2))
    assert.strictEqual(Band.Band.fromRank(-4), "HOT")
    assert.strictEqual(Band.Band.fromRank(9), "IDLE")
  })

  it.effect("decode rejects unknown bands with the list of valid ones", () =>
    Effect.gen(function* () {
      assert.strictEqual(yield* Band.Band.decode("HOT"), "HOT")
      const error = yield* Effect.flip(Band.Band.decode("SCORCHING"))
      assert.include(error.message, "HOT, WARM, COOL, IDLE")
    })
  )
})
