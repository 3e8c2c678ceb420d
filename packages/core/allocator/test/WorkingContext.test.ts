import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { Invariants, WorkingContext } from "../src/index.ts"
import { contextArb } from "./fixtures.ts"

describe("WorkingContext", () => {
  it("fromTokens builds the all-LOD0 context and cost counts one slot per entry", () => {
    const wc = WorkingContext.fromTokens(5, { blockSize: 4, maxLevel: 2 })
    assert.deepStrictEqual(
      wc.entries,
      [0, 1, 2, 3, 4].map((start) => ({ level: 0, start }))
    )
    assert.strictEqual(wc.totalTokens, 5)
    assert.strictEqual(WorkingContext.cost(wc), 5)
    assert.deepStrictEqual(WorkingContext.levelCounts(wc), [5, 0, 0])
  })

  it("odd token counts never throw: negative, fractional and non-finite counts are clamped", () => {
    const shape = { blockSize: 2, maxLevel: 1 }
    assert.strictEqual(WorkingContext.fromTokens(-3, shape).totalTokens, 0)
    assert.strictEqual(WorkingContext.fromTokens(2.7, shape).totalTokens, 2)
    assert.strictEqual(WorkingContext.fromTokens(Number.NaN, shape).totalTokens, 0)
    assert.strictEqual(
      WorkingContext.append(WorkingContext.fromTokens(1, shape), Number.POSITIVE_INFINITY).totalTokens,
      1
    )
    assert.strictEqual(WorkingContext.assemble(Number.NaN, { ...shape, budget: 4 }).totalTokens, 0)
    const broken = WorkingContext.assemble(10, { blockSize: 0, maxLevel: 1, budget: 4 })
    assert.deepStrictEqual(
      Invariants.check(broken, { budget: 4 }).map((v) => v.kind),
      ["shape"]
    )
  })

  it("a gist costs one slot whatever its level", () => {
    const wc = WorkingContext.make(
      [
        { level: 2, start: 0 },
        { level: 1, start: 16 },
        { level: 0, start: 20 }
      ],
      { blockSize: 4, maxLevel: 2, totalTokens: 21 }
    )
    assert.strictEqual(WorkingContext.cost(wc), 3)
    assert.strictEqual(WorkingContext.coverage(wc), 21)
    assert.strictEqual(WorkingContext.spanOf(4, 2), 16)
    assert.strictEqual(WorkingContext.key(2, 0), "2:0")
  })

  it("append tracks positions: 3 tokens + 2 end with starts [3, 4]", () => {
    const wc = WorkingContext.append(WorkingContext.fromTokens(3, { blockSize: 2, maxLevel: 1 }), 2)
    assert.deepStrictEqual(
      wc.entries.slice(-2).map((e) => e.start),
      [3, 4]
    )
    assert.strictEqual(wc.totalTokens, 5)
    const same = WorkingContext.fromTokens(3, { blockSize: 2, maxLevel: 1 })
    assert.strictEqual(WorkingContext.append(same, 0), same)
    assert.strictEqual(WorkingContext.append(same, -4), same)
  })

  it("property: appending keeps every invariant (partial tail blocks stay LOD0)", () => {
    fc.assert(
      fc.property(contextArb(), fc.integer({ min: 0, max: 50 }), ({ params, wc }, n) => {
        const next = WorkingContext.append(wc, n)
        return (
          Invariants.check(next, { budget: Number.POSITIVE_INFINITY, recentTokens: params.recentTokens }).length ===
            0 && WorkingContext.coverage(next) === params.totalTokens + n
        )
      })
    )
  })

  it("assemble covers the whole history within the budget (upstream rebuild cases)", () => {
    const cases: Array<[number, number, number, number, number]> = [
      [64, 32, 0, 2, 3],
      [64, 32, 8, 2, 3],
      [128, 64, 16, 4, 2],
      [50, 80, 20, 2, 4],
      [100_000, 8192, 128, 32, 2]
    ]
    for (const [total, budget, recentTokens, blockSize, maxLevel] of cases) {
      const wc = WorkingContext.assemble(total, { blockSize, maxLevel, budget, recentTokens })
      assert.deepStrictEqual(Invariants.check(wc, { budget, recentTokens }), [], `case ${total}/${budget}`)
      assert.strictEqual(WorkingContext.coverage(wc), total)
      if (total > budget) assert.isAbove(WorkingContext.cost(wc), budget - (blockSize - 1))
      else assert.strictEqual(WorkingContext.cost(wc), total)
      // Recency gradient: detail never decreases towards the present.
      for (let i = 1; i < wc.entries.length; i++) assert.isAtMost(wc.entries[i]!.level, wc.entries[i - 1]!.level)
    }
  })

  it("heed differs: assemble keeps full coverage; a non-divisible prefix keeps the tail and its block remainder LOD0", () => {
    const wc = WorkingContext.assemble(10, { blockSize: 4, maxLevel: 1, budget: 8, recentTokens: 2 })
    assert.strictEqual(WorkingContext.coverage(wc), 10)
    let trailing = 0
    while (trailing < wc.entries.length && wc.entries[wc.entries.length - 1 - trailing]!.level === 0) trailing++
    assert.isAtLeast(trailing, 2 + ((8 - 2) % 4))
    assert.deepStrictEqual(Invariants.check(wc, { budget: 8, recentTokens: 2 }), [])
  })

  it("assemble reports, not hides, a budget too small for the coarsest head", () => {
    const wc = WorkingContext.assemble(64, { blockSize: 2, maxLevel: 1, budget: 10, recentTokens: 0 })
    assert.strictEqual(WorkingContext.cost(wc), 32)
    assert.strictEqual(WorkingContext.coverage(wc), 64)
    assert.deepStrictEqual(
      Invariants.check(wc, { budget: 10 }).map((v) => v.kind),
      ["budget"]
    )
  })

  it("property: assemble is always valid apart from the budget, and within it when the coarsest head fits", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 3000 }),
        fc.integer({ min: 2, max: 8 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 600 }),
        fc.integer({ min: 0, max: 64 }),
        (total, blockSize, maxLevel, budget, recentTokens) => {
          const wc = WorkingContext.assemble(total, { blockSize, maxLevel, budget, recentTokens })
          const violations = Invariants.check(wc, { budget, recentTokens })
          const coarsest = WorkingContext.assemble(total, { blockSize, maxLevel, budget: 0, recentTokens })
          const fits = WorkingContext.cost(coarsest) <= budget || total <= budget
          return (
            WorkingContext.coverage(wc) === total &&
            violations.every((v) => v.kind === "budget") &&
            (violations.length === 0) === fits
          )
        }
      )
    )
  })
})
