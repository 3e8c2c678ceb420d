import { assert, describe, it } from "@effect/vitest"
import { Array as Arr, Effect } from "effect"
import * as fc from "fast-check"
import { Band } from "../src/index.ts"

const anyBand = fc.constantFrom(...Band.values)

describe("Band", () => {
  it("ranks HOT=0, WARM=1, COOL=2, IDLE=3", () => {
    assert.deepStrictEqual(
      Band.values.map((band) => [band, Band.rank(band)]),
      [
        ["HOT", 0],
        ["WARM", 1],
        ["COOL", 2],
        ["IDLE", 3]
      ]
    )
  })

  it("warmer and cooler step to the adjacent band and saturate at HOT and IDLE", () => {
    assert.deepStrictEqual(Band.values.map(Band.warmer), ["HOT", "HOT", "WARM", "COOL"])
    assert.deepStrictEqual(Band.values.map(Band.cooler), ["WARM", "COOL", "IDLE", "IDLE"])
  })

  it("warmer and cooler move rank by at most one, in their direction", () => {
    fc.assert(
      fc.property(anyBand, (band) => {
        assert.isTrue(Band.rank(band) - Band.rank(Band.warmer(band)) <= 1)
        assert.isTrue(Band.rank(Band.warmer(band)) <= Band.rank(band))
        assert.isTrue(Band.rank(Band.cooler(band)) - Band.rank(band) <= 1)
        assert.isTrue(Band.rank(Band.cooler(band)) >= Band.rank(band))
        assert.strictEqual(Band.fromRank(Band.rank(band)), band)
      })
    )
  })

  it("Order sorts warmest first; key gives the config key; is guards input", () => {
    assert.deepStrictEqual(Arr.sort(["IDLE", "HOT", "COOL", "WARM"] as Array<Band.Band>, Band.Order), [
      "HOT",
      "WARM",
      "COOL",
      "IDLE"
    ])
    assert.strictEqual(Band.key("COOL"), "cool")
    assert.isTrue(Band.is("WARM"))
    assert.isFalse(Band.is("warm"))
    assert.isFalse(Band.is(2))
    assert.strictEqual(Band.fromRank(-4), "HOT")
    assert.strictEqual(Band.fromRank(9), "IDLE")
  })

  it.effect("decode rejects unknown bands with the list of valid ones", () =>
    Effect.gen(function* () {
      assert.strictEqual(yield* Band.decode("HOT"), "HOT")
      const error = yield* Effect.flip(Band.decode("SCORCHING"))
      assert.include(error.message, "HOT, WARM, COOL, IDLE")
    })
  )
})
