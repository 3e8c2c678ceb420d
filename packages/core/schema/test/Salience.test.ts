import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Schema } from "effect"
import * as fc from "fast-check"
import { Salience } from "../src/index.ts"

const decodeExit = Schema.decodeUnknownExit(Salience.Salience)

describe("Salience", () => {
  it.effect("decodes numbers in [0, 1] unchanged", () =>
    Effect.gen(function* () {
      assert.strictEqual(yield* Salience.decode(0), 0)
      assert.strictEqual(yield* Salience.decode(0.25), 0.25)
      assert.strictEqual(yield* Salience.decode(1), 1)
    })
  )

  it.effect("rejects NaN, infinities and out-of-range values with a clear message", () =>
    Effect.gen(function* () {
      for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, -0.01, 1.01, 42]) {
        const error = yield* Effect.flip(Salience.decode(bad))
        assert.include(error.message, bad === 42 || bad === -0.01 || bad === 1.01 ? "between 0 and 1" : "finite")
      }
    })
  )

  it("rejects non-numbers", () => {
    for (const bad of ["0.5", null, undefined, {}, [0.5]]) assert.isTrue(Exit.isFailure(decodeExit(bad)))
  })

  it("defaults to 0.5 as SLOP does", () => {
    assert.strictEqual(Salience.defaultValue, 0.5)
  })

  it("clamp always yields a decodable salience", () => {
    fc.assert(
      fc.property(fc.double(), (n) => {
        const clamped = Salience.clamp(n)
        assert.isTrue(Exit.isSuccess(decodeExit(clamped)))
        if (n >= 0 && n <= 1) assert.strictEqual(clamped, n)
      })
    )
  })
})
