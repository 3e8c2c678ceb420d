import { assert, describe, it } from "@effect/vitest"
import * as SeededRandom from "../src/SeededRandom.ts"

describe("SeededRandom", () => {
  it("replays the same sequence from the same seed, pinned to mulberry32's values", () => {
    const next = SeededRandom.make(42)
    assert.deepStrictEqual([next(), next(), next()], [0.6011037519201636, 0.44829055899754167, 0.8524657934904099])
    const again = SeededRandom.make(42)
    assert.strictEqual(again(), 0.6011037519201636)
  })

  it("gives other sequences for other seeds, within [0, 1)", () => {
    const a = SeededRandom.make(1)
    const b = SeededRandom.make(2)
    const xs = Array.from({ length: 1000 }, a)
    assert.notStrictEqual(xs[0], b())
    assert.isTrue(xs.every((x) => x >= 0 && x < 1))
  })
})
