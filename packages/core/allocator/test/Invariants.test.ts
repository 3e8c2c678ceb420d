import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { Invariants, WorkingContext } from "../src/index.ts"
import { contextArb } from "./fixtures.ts"

const shape = { blockSize: 2, maxLevel: 2 }
const kinds = (wc: WorkingContext.WorkingContext, budget = 100, recentTokens = 0) =>
  Invariants.check(wc, { budget, recentTokens }).map((v) => v.kind)

describe("Invariants", () => {
  it("a valid context has no violation", () => {
    const wc = WorkingContext.make(
      [
        { level: 2, start: 0 },
        { level: 1, start: 4 },
        { level: 0, start: 6 },
        { level: 0, start: 7 }
      ],
      { ...shape, totalTokens: 8 }
    )
    assert.deepStrictEqual(Invariants.check(wc, { budget: 4, recentTokens: 2 }), [])
    assert.isTrue(Invariants.isValid(wc, { budget: 4 }))
  })

  it("budget: more entries than the budget", () => {
    const wc = WorkingContext.fromTokens(5, shape)
    assert.deepStrictEqual(kinds(wc, 4), ["budget"])
    assert.include(Invariants.check(wc, { budget: 4 })[0]!.message, "over the budget of 4")
  })

  it("contiguity: a gap or an overlap between entries", () => {
    const gap = WorkingContext.make(
      [
        { level: 0, start: 0 },
        { level: 0, start: 2 }
      ],
      { ...shape, totalTokens: 3 }
    )
    assert.deepStrictEqual(kinds(gap), ["contiguity"])
    const overlap = WorkingContext.make(
      [
        { level: 1, start: 0 },
        { level: 0, start: 1 },
        { level: 0, start: 2 }
      ],
      { ...shape, totalTokens: 3 }
    )
    assert.deepStrictEqual(kinds(overlap), ["contiguity"])
  })

  it("coverage: the entries must tile exactly [0, totalTokens)", () => {
    const short = WorkingContext.make([{ level: 0, start: 0 }], { ...shape, totalTokens: 2 })
    assert.deepStrictEqual(kinds(short), ["coverage"])
    const late = WorkingContext.make([{ level: 0, start: 1 }], { ...shape, totalTokens: 2 })
    assert.deepStrictEqual(kinds(late), ["coverage"])
    const long = WorkingContext.make([{ level: 1, start: 0 }], { ...shape, totalTokens: 1 })
    assert.includeMembers(kinds(long), ["coverage"])
  })

  it("alignment: a gist must sit on its block boundary (what a misaligned collapse would produce)", () => {
    const wc = WorkingContext.make(
      [
        { level: 0, start: 0 },
        { level: 0, start: 1 },
        { level: 2, start: 2 },
        { level: 0, start: 6 }
      ],
      { ...shape, totalTokens: 7 }
    )
    assert.deepStrictEqual(kinds(wc), ["alignment"])
  })

  it("level: levels are integers in [0, maxLevel]", () => {
    const wc = WorkingContext.make(
      [
        { level: 3, start: 0 },
        { level: -1, start: 8 }
      ],
      { ...shape, totalTokens: 8 }
    )
    assert.includeMembers(kinds(wc), ["level"])
    assert.strictEqual(kinds(wc).filter((k) => k === "level").length, 2)
  })

  it("recentTail: no gist may touch the last recentTokens tokens", () => {
    const wc = WorkingContext.make(
      [
        { level: 1, start: 0 },
        { level: 1, start: 2 },
        { level: 0, start: 4 }
      ],
      { ...shape, totalTokens: 5 }
    )
    assert.deepStrictEqual(kinds(wc, 100, 1), [])
    assert.deepStrictEqual(kinds(wc, 100, 2), ["recentTail"])
    assert.strictEqual(Invariants.tailStart(5, 2), 3)
    assert.strictEqual(Invariants.tailStart(5, 50), 0)
  })

  it("shape: a bad blockSize, maxLevel or totalTokens is reported, not thrown", () => {
    assert.deepStrictEqual(kinds({ blockSize: 1, maxLevel: 1, totalTokens: 0, entries: [] }), ["shape"])
    assert.deepStrictEqual(kinds({ blockSize: 2, maxLevel: -1, totalTokens: 0, entries: [] }), ["shape"])
    assert.deepStrictEqual(kinds({ blockSize: 2, maxLevel: 1, totalTokens: 0.5, entries: [] }), ["shape"])
  })

  it("property: every generated context is valid and its histogram-equivalent equals its coverage", () => {
    fc.assert(
      fc.property(contextArb(), ({ params, wc }) => {
        const counts = WorkingContext.levelCounts(wc)
        const equivalent = counts.reduce((sum, n, level) => sum + n * params.blockSize ** level, 0)
        return (
          Invariants.check(wc, { budget: wc.entries.length, recentTokens: params.recentTokens }).length === 0 &&
          equivalent === params.totalTokens
        )
      })
    )
  })
})
