import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { mixedContext, randomScores } from "../bench/fixtures.ts"
import { Allocator, Invariants, LodTree, WorkingContext } from "../src/index.ts"
import { applyOne, bruteForce, build, contextArb, scoresArb } from "./fixtures.ts"

const lod1 = (total: number, blockSize: number, maxLevel: number): WorkingContext.WorkingContext =>
  WorkingContext.make(
    Array.from({ length: total / blockSize }, (_, i) => ({ level: 1, start: i * blockSize })),
    { blockSize, maxLevel, totalTokens: total }
  )

const cheap = { tauExpand: 0.2, tauCollapse: 0.2, recentTokens: 0 }

describe("Allocator (upstream tests, tiny sizes)", () => {
  it("within budget with neutral scores everything stays LOD0", () => {
    const wc = WorkingContext.fromTokens(16, { blockSize: 4, maxLevel: 2 })
    const result = Allocator.greedy(wc, new Float32Array(16), { budget: 32, recentTokens: 2 })
    assert.strictEqual(result.actions.length, 0)
    assert.deepStrictEqual(WorkingContext.levelCounts(result.context), [16, 0, 0])
  })

  it("heed differs: collapses below the budget when the scores ask for it (seed semantics)", () => {
    // Upstream only collapses over its soft max; the seed collapses whenever the mean is below -tauCollapse.
    const wc = WorkingContext.fromTokens(16, { blockSize: 4, maxLevel: 2 })
    const result = Allocator.greedy(wc, new Float32Array(16).fill(-1), { budget: 100, recentTokens: 0 })
    assert.strictEqual(result.stats.collapses, 4)
    assert.strictEqual(WorkingContext.cost(result.context), 4)
  })

  it("no expand when it would go over the budget", () => {
    const wc = lod1(4, 2, 2)
    const result = Allocator.greedy(wc, [1, 1], { budget: 2, recentTokens: 0 })
    assert.strictEqual(result.actions.length, 0)
    assert.strictEqual(result.context, wc)
  })

  it("expand then collapse round trip reaches LOD2", () => {
    const wc = lod1(8, 2, 2)
    const first = Allocator.greedy(wc, [1, 0, 0, 0], { budget: 100, maxActions: 1, ...cheap })
    assert.deepStrictEqual(first.actions, [{ kind: "expand", level: 1, start: 0 }])
    assert.deepStrictEqual(first.context.entries.slice(0, 2), [
      { level: 0, start: 0 },
      { level: 0, start: 1 }
    ])
    const scores = first.context.entries.map((e) => (e.level === 1 ? -1 : 0))
    const second = Allocator.greedy(first.context, scores, { budget: 100, ...cheap }, first.cooldowns)
    assert.deepStrictEqual(second.actions, [{ kind: "collapse", level: 1, start: 4 }])
    assert.isTrue(second.context.entries.some((e) => e.level === 2))
    assert.deepStrictEqual(Invariants.check(second.context, { budget: 100 }), [])
  })

  it("thresholds are strict: scores equal to the thresholds produce no edits", () => {
    const wc = lod1(8, 2, 2)
    const result = Allocator.greedy(wc, [1, -1, 1, -1], { budget: 100, tauExpand: 1, tauCollapse: 1, recentTokens: 0 })
    assert.strictEqual(result.actions.length, 0)
    const just = Allocator.greedy(wc, [0.2, 0.2, 0.2, 0.2], { budget: 100, ...cheap })
    assert.strictEqual(just.actions.length, 0)
  })

  it("an expand replaces the gist by its children at their positions", () => {
    const wc = WorkingContext.make(
      [
        { level: 0, start: 0 },
        { level: 0, start: 1 },
        { level: 1, start: 2 },
        { level: 0, start: 4 }
      ],
      { blockSize: 2, maxLevel: 1, totalTokens: 5 }
    )
    const result = Allocator.greedy(wc, [0, 0, 1, 0], { budget: 10, ...cheap })
    assert.deepStrictEqual(
      result.context.entries.map((e) => e.start),
      [0, 1, 2, 3, 4]
    )
  })

  it("stochastic greedy is deterministic per seed", () => {
    const wc = lod1(64, 4, 2)
    const scores = Array.from({ length: 16 }, (_, i) => ((i * 7) % 11) / 10 - 0.5)
    const a = Allocator.stochastic(wc, scores, { budget: 200, ...cheap }, { seed: 42 })
    const b = Allocator.stochastic(wc, scores, { budget: 200, ...cheap }, { seed: 42 })
    assert.deepStrictEqual(a.actions, b.actions)
    assert.strictEqual(a.actions.length, 4)
    const seen = new Set<string>()
    for (let seed = 0; seed < 20; seed++) {
      seen.add(JSON.stringify(Allocator.stochastic(wc, scores, { budget: 200, ...cheap }, { seed }).actions))
    }
    assert.isAbove(seen.size, 1)
  })

  it("bad input throws a typed AllocatorInputError naming the problem", () => {
    const wc = lod1(8, 2, 2)
    const cases: Array<[() => unknown, string]> = [
      [() => Allocator.greedy(wc, [0, 0], { budget: 10 }), "one score per entry"],
      [() => Allocator.greedy(wc, [0, 0, Number.NaN, 0], { budget: 10 }), "score 2"],
      [() => Allocator.greedy(wc, [0, 0, 2, 0], { budget: 10 }), "[-1, 1]"],
      [() => Allocator.optimal(wc, [0, 0, 0, 0], { budget: -1 }), "budget"],
      [() => Allocator.greedy(wc, [0, 0, 0, 0], { budget: 10, tauExpand: 3 }), "tauExpand"],
      [() => Allocator.greedy(wc, [0, 0, 0, 0], { budget: 10, maxActions: 1.5 }), "maxActions"],
      [() => Allocator.stochastic(wc, [0, 0, 0, 0], { budget: 10, recentTokens: 0 }, { seed: 1, topK: 0 }), "topK"],
      [() => Allocator.greedy({ ...wc, entries: wc.entries.slice(1) }, [0, 0, 0], { budget: 10 }), "invalid"]
    ]
    for (const [run, needle] of cases) {
      try {
        run()
        assert.fail(`expected an AllocatorInputError about ${needle}`)
      } catch (error) {
        assert.instanceOf(error, Allocator.AllocatorInputError)
        assert.strictEqual((error as Allocator.AllocatorInputError)._tag, "AllocatorInputError")
        assert.include((error as Error).message, needle)
      }
    }
  })
})

describe("Allocator (heed regressions)", () => {
  it("never collapses a misaligned run of same-level siblings (upstream bug)", () => {
    // LOD1 at 2 and 4 form a same-level run of blockSize entries, but 2 % 4 !== 0: not siblings.
    const wc = WorkingContext.make(
      [
        { level: 0, start: 0 },
        { level: 0, start: 1 },
        { level: 1, start: 2 },
        { level: 1, start: 4 },
        { level: 0, start: 6 },
        { level: 0, start: 7 }
      ],
      { blockSize: 2, maxLevel: 2, totalTokens: 8 }
    )
    const scores = [0, 0, -1, -1, 0, 0]
    for (const allocate of [Allocator.greedy, Allocator.optimal]) {
      const result = allocate(wc, scores, { budget: 100, ...cheap })
      assert.strictEqual(result.actions.length, 0)
    }
    assert.strictEqual(Allocator.candidates(wc, scores, { budget: 100, ...cheap }).collapses.length, 0)
    const relief = Allocator.relieve(wc, scores, { budget: 4, recentTokens: 0 })
    for (const action of relief.actions) assert.strictEqual(action.start % wc.blockSize ** (action.level + 1), 0)
  })

  it("a small hand-built context with gists inside the default 128-token tail is accepted, never made worse", () => {
    const wc = lod1(16, 4, 2)
    const result = Allocator.greedy(wc, [0.9, -0.9, -0.9, -0.9], { budget: 20 })
    assert.deepStrictEqual(result.actions, [{ kind: "expand", level: 1, start: 0 }])
    assert.strictEqual(result.context.entries.filter((e) => e.level > 0).length, 3)
  })

  it("the recent tail stays LOD0: no collapse reaches into it", () => {
    const wc = WorkingContext.fromTokens(16, { blockSize: 4, maxLevel: 1 })
    const result = Allocator.greedy(wc, new Float32Array(16).fill(-1), { budget: 100, recentTokens: 5 })
    // Groups [0,4) and [4,8) are outside the tail [11, 16); [8,12) reaches into it.
    assert.deepStrictEqual(
      result.actions.map((a) => a.start),
      [4, 0]
    )
  })

  it("terminates when both queue heads are blocked (the seed pseudocode spins)", () => {
    const wc = WorkingContext.make(
      [
        { level: 1, start: 0 },
        { level: 0, start: 2 },
        { level: 0, start: 3 },
        { level: 0, start: 4 }
      ],
      { blockSize: 2, maxLevel: 1, totalTokens: 5 }
    )
    // Expand of 1:0 is over budget; the collapse of [2, 4) would produce 1:2, which was just expanded.
    const cooldowns = new Map([["1:2", { action: "expand" as const, remaining: 2 }]])
    const result = Allocator.greedy(wc, [1, -1, -1, 0], { budget: 4, ...cheap }, cooldowns)
    assert.strictEqual(result.actions.length, 0)
    assert.deepStrictEqual(result.context, wc)
  })

  it("an expand blocked by the budget is retried after a collapse frees room", () => {
    // cost 3 = budget: the expand first waits, then a collapse frees a slot and it goes through.
    const wc = WorkingContext.make(
      [
        { level: 1, start: 0 },
        { level: 0, start: 2 },
        { level: 0, start: 3 }
      ],
      { blockSize: 2, maxLevel: 1, totalTokens: 4 }
    )
    const result = Allocator.greedy(wc, [1, -1, -1], { budget: 3, ...cheap })
    assert.deepStrictEqual(result.actions, [
      { kind: "collapse", level: 0, start: 2 },
      { kind: "expand", level: 1, start: 0 }
    ])
    assert.strictEqual(WorkingContext.cost(result.context), 3)
    for (let seed = 0; seed < 10; seed++) {
      const sampled = Allocator.stochastic(wc, [0.9, -1, -1], { budget: 3, ...cheap }, { seed })
      assert.deepStrictEqual(sampled.actions, [
        { kind: "collapse", level: 0, start: 2 },
        { kind: "expand", level: 1, start: 0 }
      ])
    }
  })

  it("cooldowns: a gist expanded at t cannot be collapsed at t+1, t+2 and can be at t+3", () => {
    const wc = lod1(8, 2, 1)
    const config = { budget: 100, cooldownSteps: 2, ...cheap }
    const t = Allocator.greedy(wc, [1, 0, 0, 0], config)
    assert.deepStrictEqual(t.actions, [{ kind: "expand", level: 1, start: 0 }])
    const wantCollapse = t.context.entries.map((e) => (e.level === 0 ? -1 : 0))
    let cooldowns = t.cooldowns
    for (const step of [1, 2]) {
      const blocked = Allocator.greedy(t.context, wantCollapse, config, cooldowns)
      assert.strictEqual(blocked.actions.length, 0, `step t+${step}`)
      cooldowns = blocked.cooldowns
    }
    const allowed = Allocator.greedy(t.context, wantCollapse, config, cooldowns)
    assert.deepStrictEqual(allowed.actions, [{ kind: "collapse", level: 0, start: 0 }])
  })

  it("cooldowns block only the opposite action", () => {
    const wc = lod1(4, 2, 1)
    const expanded = new Map([["1:0", { action: "expand" as const, remaining: 2 }]])
    const collapsed = new Map([["1:0", { action: "collapse" as const, remaining: 2 }]])
    const config = { budget: 100, ...cheap }
    assert.strictEqual(Allocator.greedy(wc, [1, 0], config, expanded).actions.length, 1)
    assert.strictEqual(Allocator.greedy(wc, [1, 0], config, collapsed).actions.length, 0)
    assert.strictEqual(Allocator.optimal(wc, [1, 0], config, collapsed).actions.length, 0)
  })

  it("property: cooldown timing is exact for any cooldownSteps", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 5 }), (steps) => {
        const wc = lod1(8, 2, 1)
        const config = { budget: 100, cooldownSteps: steps, ...cheap }
        const t = Allocator.greedy(wc, [1, 0, 0, 0], config)
        const want = t.context.entries.map((e) => (e.level === 0 ? -1 : 0))
        let cooldowns = t.cooldowns
        for (let k = 1; k <= steps; k++) {
          const r = Allocator.greedy(t.context, want, config, cooldowns)
          if (r.actions.length !== 0) return false
          cooldowns = r.cooldowns
        }
        return Allocator.greedy(t.context, want, config, cooldowns).actions.length === 1
      })
    )
  })

  it("docs scenario: 100k tokens give 3,125 LOD1 and 97 LOD2 nodes; 2 expands + 2 collapses net 0", () => {
    assert.deepStrictEqual(LodTree.shape(100_000, { blockSize: 32, maxLevel: 2 }), [100_000, 3125, 97])
    const head = Array.from({ length: 128 }, (_, i) => ({ level: 1, start: i * 32 }))
    const tail = Array.from({ length: 128 }, (_, i) => ({ level: 0, start: 4096 + i }))
    const wc = WorkingContext.make([...head, ...tail], { blockSize: 32, maxLevel: 2, totalTokens: 4224 })
    const scores = new Float32Array(256)
    scores.fill(-1, 0, 64)
    scores[100] = 1
    scores[101] = 0.9
    const result = Allocator.greedy(wc, scores, { budget: 256 })
    assert.strictEqual(result.stats.expands, 2)
    assert.strictEqual(result.stats.collapses, 2)
    assert.strictEqual(result.stats.costAfter - result.stats.costBefore, 0)
    assert.deepStrictEqual(Invariants.check(result.context, { budget: 256, recentTokens: 128 }), [])
  })

  it("adaptive thresholds: x0.95 below 0.8 budget, x1.05 above 0.95, unchanged between; collapse mirrors", () => {
    const start = { tauExpand: 0.2, tauCollapse: 0.3 }
    const low = Allocator.adaptThresholds([700, 700, 700], start, { budget: 1000 })
    assert.closeTo(low.tauExpand, 0.19, 1e-12)
    assert.strictEqual(low.tauCollapse, low.tauExpand)
    const twice = Allocator.adaptThresholds([700], low, { budget: 1000 })
    assert.closeTo(twice.tauExpand, 0.2 * 0.95 * 0.95, 1e-12)
    const high = Allocator.adaptThresholds([990, 960], start, { budget: 1000 })
    assert.closeTo(high.tauExpand, 0.21, 1e-12)
    assert.strictEqual(high.tauCollapse, high.tauExpand)
    assert.deepStrictEqual(Allocator.adaptThresholds([900], start, { budget: 1000 }), {
      tauExpand: 0.2,
      tauCollapse: 0.2
    })
    assert.strictEqual(Allocator.adaptThresholds([], start, { budget: 1000 }), start)
    assert.strictEqual(
      Allocator.adaptThresholds([0], { tauExpand: 0.01, tauCollapse: 0.01 }, { budget: 10 }).tauExpand,
      0.01
    )
  })
})

const allocators = {
  greedy: (wc: WorkingContext.WorkingContext, s: ArrayLike<number>, c: Allocator.Config, cd?: Allocator.Cooldowns) =>
    Allocator.greedy(wc, s, c, cd),
  optimal: (wc: WorkingContext.WorkingContext, s: ArrayLike<number>, c: Allocator.Config, cd?: Allocator.Cooldowns) =>
    Allocator.optimal(wc, s, c, cd),
  stochastic: (
    wc: WorkingContext.WorkingContext,
    s: ArrayLike<number>,
    c: Allocator.Config,
    cd?: Allocator.Cooldowns
  ) => Allocator.stochastic(wc, s, c, { seed: wc.entries.length }, cd)
}

describe("Allocator (properties)", () => {
  const caseArb = contextArb().chain(({ params, wc }) =>
    fc.record({
      params: fc.constant(params),
      wc: fc.constant(wc),
      scores: scoresArb(wc.entries.length),
      slack: fc.integer({ min: -3, max: 40 }),
      maxActions: fc.integer({ min: 0, max: 6 }),
      kind: fc.constantFrom("greedy" as const, "optimal" as const, "stochastic" as const)
    })
  )

  it("the budget holds after every single action and invariants hold after the call", () => {
    fc.assert(
      fc.property(caseArb, ({ params, wc, scores, slack, maxActions, kind }) => {
        const budget = wc.entries.length + Math.max(0, slack)
        const config = { budget, maxActions, recentTokens: params.recentTokens }
        const result = allocators[kind](wc, scores, config)
        if (result.actions.length > maxActions) return false
        let current = wc
        for (const action of result.actions) {
          current = applyOne(current, action)
          if (current.entries.length > budget) return false
          if (Invariants.check(current, { budget, recentTokens: params.recentTokens }).length > 0) return false
        }
        assert.deepStrictEqual(current.entries, result.context.entries)
        return result.stats.costAfter === result.context.entries.length
      }),
      { numRuns: 300 }
    )
  })

  it("over budget, the allocators only collapse, and every action is still legal", () => {
    fc.assert(
      fc.property(caseArb, ({ params, wc, scores, kind }) => {
        const budget = Math.max(0, wc.entries.length - 5)
        const result = allocators[kind](wc, scores, { budget, recentTokens: params.recentTokens })
        let current = wc
        for (const action of result.actions) current = applyOne(current, action)
        return result.stats.expands === 0 || current.entries.length <= budget
      }),
      { numRuns: 200 }
    )
  })

  it("terminates with blocked queues: random cooldowns, tiny budgets, at most maxActions", () => {
    fc.assert(
      fc.property(caseArb, fc.array(fc.tuple(fc.nat(6), fc.boolean()), { maxLength: 30 }), (c, blocked) => {
        const { params, wc, scores, maxActions } = c
        const cooldowns = new Map<string, Allocator.Cooldown>()
        for (const [i, expand] of blocked) {
          const entry = wc.entries[i % Math.max(1, wc.entries.length)]
          if (entry === undefined) continue
          cooldowns.set(`${entry.level + (expand ? 1 : 0)}:${entry.start}`, {
            action: expand ? "expand" : "collapse",
            remaining: 2
          })
        }
        for (const kind of ["greedy", "optimal", "stochastic"] as const) {
          const result = allocators[kind](
            wc,
            scores,
            { budget: 1, maxActions, recentTokens: params.recentTokens },
            cooldowns
          )
          if (result.actions.length > maxActions) return false
        }
        return true
      }),
      { numRuns: 200 }
    )
  })

  it("optimal equals brute force for up to 12 candidates, and greedy <= optimal <= bound", () => {
    let checked = 0
    const smallArb = contextArb(48).chain(({ params, wc }) =>
      fc.record({
        params: fc.constant(params),
        wc: fc.constant(wc),
        scores: scoresArb(wc.entries.length),
        slack: fc.integer({ min: -3, max: 40 }),
        maxActions: fc.integer({ min: 0, max: 12 })
      })
    )
    fc.assert(
      fc.property(smallArb, ({ params, wc, scores, slack, maxActions }) => {
        const budget = Math.max(0, wc.entries.length + slack)
        const config = { budget, maxActions, recentTokens: params.recentTokens }
        const candidates = Allocator.candidates(wc, scores, config)
        fc.pre(candidates.expands.length + candidates.collapses.length <= 12)
        checked++
        const optimal = Allocator.optimal(wc, scores, config)
        const greedy = Allocator.greedy(wc, scores, config)
        const stochastic = Allocator.stochastic(wc, scores, config, { seed: 7 })
        const best = bruteForce(wc, candidates, budget, maxActions)
        const eps = 1e-9
        return (
          Math.abs(optimal.stats.value - best) < eps &&
          greedy.stats.value <= optimal.stats.value + eps &&
          stochastic.stats.value <= optimal.stats.value + eps &&
          optimal.stats.value <= optimal.stats.bound + eps &&
          Math.abs(optimal.stats.gap - (optimal.stats.bound - optimal.stats.value)) < 1e-6
        )
      }),
      { numRuns: 400 }
    )
    assert.isAbove(checked, 100)
  })

  it("optimal scales to large maxActions on 8,192 entries and still dominates greedy", () => {
    const wc = mixedContext(8192)
    const scores = randomScores(8192)
    for (const maxActions of [4, 64, 400]) {
      const config = { budget: 8192 + 31 * 40, maxActions }
      const optimal = Allocator.optimal(wc, scores, config)
      const greedy = Allocator.greedy(wc, scores, config)
      assert.isAtMost(optimal.actions.length, maxActions)
      assert.isAtMost(greedy.stats.value, optimal.stats.value + 1e-9)
      assert.isAtMost(optimal.stats.value, optimal.stats.bound + 1e-9)
      assert.isAtMost(WorkingContext.cost(optimal.context), config.budget)
    }
  })

  it("the LP bound is tight when there are no conflicts and the budget is loose", () => {
    const wc = WorkingContext.fromTokens(64, { blockSize: 4, maxLevel: 1 })
    const scores = Array.from({ length: 64 }, (_, i) => -((i % 7) + 3) / 10)
    const result = Allocator.optimal(wc, scores, { budget: 100, recentTokens: 0 })
    assert.strictEqual(result.stats.collapses, 4)
    assert.closeTo(result.stats.gap, 0, 1e-9)
  })

  it("invariants hold after any random sequence of appends and allocations", () => {
    const step = fc.oneof(
      fc.record({ op: fc.constant("append" as const), n: fc.integer({ min: 1, max: 20 }) }),
      fc.record({
        op: fc.constantFrom("greedy" as const, "optimal" as const, "stochastic" as const, "relieve" as const),
        seed: fc.nat()
      })
    )
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 4 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 0, max: 12 }),
        fc.array(step, { maxLength: 25 }),
        (blockSize, maxLevel, recentTokens, steps) => {
          let wc = WorkingContext.fromTokens(0, { blockSize, maxLevel })
          let cooldowns: Allocator.Cooldowns = new Map()
          const budget = recentTokens + 4 * blockSize
          for (const s of steps) {
            if (s.op === "append") {
              wc = WorkingContext.append(wc, s.n)
            } else {
              const rnd = (i: number) => Math.sin(s.seed * 9301 + i * 49297) * 0.999
              const scores = wc.entries.map((_, i) => rnd(i))
              const config = { budget, recentTokens }
              const before = wc.entries.length
              const result =
                s.op === "relieve"
                  ? Allocator.relieve(wc, scores, config, cooldowns)
                  : allocators[s.op](wc, scores, config, cooldowns)
              if (before <= budget && result.context.entries.length > budget) return false
              wc = result.context
              cooldowns = result.cooldowns
            }
            const violations = Invariants.check(wc, { budget: Number.POSITIVE_INFINITY, recentTokens })
            if (violations.length > 0) return false
            if (WorkingContext.coverage(wc) !== wc.totalTokens) return false
          }
          return true
        }
      ),
      { numRuns: 200 }
    )
  })

  it("recent tail: entries touching the last recentTokens tokens stay LOD0 after allocations", () => {
    for (const recentTokens of [8, 16, 32]) {
      let wc = build({ blockSize: 4, maxLevel: 2, totalTokens: 200, recentTokens }, [5, 3, 1, 2])
      for (let round = 0; round < 5; round++) {
        const scores = wc.entries.map((_, i) => (i % 3 === 0 ? 0.9 : -0.9))
        wc = Allocator.greedy(wc, scores, { budget: 300, recentTokens, maxActions: 8 }).context
        const tail = Invariants.tailStart(wc.totalTokens, recentTokens)
        for (const entry of wc.entries) {
          if (entry.start + wc.blockSize ** entry.level > tail) assert.strictEqual(entry.level, 0)
        }
        assert.strictEqual(WorkingContext.coverage(wc), 200)
      }
    }
  })
})

describe("Allocator.relieve", () => {
  it("collapses lowest scores first until the budget holds, never trimming the head", () => {
    const wc = WorkingContext.fromTokens(32, { blockSize: 4, maxLevel: 2 })
    const scores = Array.from({ length: 32 }, (_, i) => (i < 4 ? 0.9 : i < 8 ? -0.9 : 0))
    const result = Allocator.relieve(wc, scores, { budget: 29, recentTokens: 8 })
    assert.deepStrictEqual(result.actions, [{ kind: "collapse", level: 0, start: 4 }])
    assert.strictEqual(WorkingContext.cost(result.context), 29)
    assert.strictEqual(WorkingContext.coverage(result.context), 32)
    assert.strictEqual(result.context.entries[0]!.start, 0)
  })

  it("goes up levels when needed and stops when nothing more can be collapsed", () => {
    const wc = WorkingContext.fromTokens(40, { blockSize: 2, maxLevel: 2 })
    const result = Allocator.relieve(wc, new Float32Array(40), { budget: 1, recentTokens: 4 })
    // Head [0, 36) collapses to nine LOD2 gists; the 4-token tail stays LOD0.
    assert.deepStrictEqual(WorkingContext.levelCounts(result.context), [4, 0, 9])
    assert.deepStrictEqual(Invariants.check(result.context, { budget: 13, recentTokens: 4 }), [])
  })

  it("prefers groups whose collapse no cooldown blocks", () => {
    const wc = WorkingContext.fromTokens(8, { blockSize: 2, maxLevel: 1 })
    const cooldowns = new Map([["1:0", { action: "expand" as const, remaining: 1 }]])
    const scores = [-1, -1, 0, 0, 0, 0, 0, 0]
    const result = Allocator.relieve(wc, scores, { budget: 7, recentTokens: 0 }, cooldowns)
    assert.deepStrictEqual(result.actions, [{ kind: "collapse", level: 0, start: 2 }])
    assert.strictEqual(result.cooldowns.get("1:0")?.remaining, 1)
    assert.strictEqual(result.cooldowns.get("1:2")?.action, "collapse")
  })
})

describe("Allocator.fill", () => {
  it("expands the best gists, down several levels, up to the floor without passing the budget", () => {
    const wc = WorkingContext.make(
      [
        { level: 2, start: 0 },
        { level: 2, start: 4 },
        { level: 0, start: 8 }
      ],
      { blockSize: 2, maxLevel: 2, totalTokens: 9 }
    )
    const result = Allocator.fill(wc, [0.1, -0.1, 0], { budget: 6, floor: 6, recentTokens: 1 })
    // Pass 1: 2:0 (0.1) then 2:4 (-0.1 > -tauCollapse). Pass 2: children inherit 0.1 / -0.1; the most
    // recent of the best, 1:2, fills the last slot.
    assert.deepStrictEqual(result.actions, [
      { kind: "expand", level: 2, start: 0 },
      { kind: "expand", level: 2, start: 4 },
      { kind: "expand", level: 1, start: 2 }
    ])
    assert.strictEqual(WorkingContext.cost(result.context), 6)
    assert.deepStrictEqual(Invariants.check(result.context, { budget: 6, recentTokens: 1 }), [])
    assert.strictEqual(result.cooldowns.get("2:0")?.action, "expand")
  })

  it("never fills in gists the allocator would collapse, nor gists a collapse cooldown protects", () => {
    const wc = lod1(8, 2, 1)
    const low = Allocator.fill(wc, [-0.5, -0.2, -0.5, -0.5], { budget: 100, recentTokens: 0 })
    assert.strictEqual(low.actions.length, 0)
    const cooled = new Map([["1:0", { action: "collapse" as const, remaining: 1 }]])
    const blocked = Allocator.fill(wc, [0.9, -0.5, -0.5, -0.5], { budget: 100, recentTokens: 0 }, cooled)
    assert.strictEqual(blocked.actions.length, 0)
  })

  it("property: fill keeps every invariant and never exceeds the budget", () => {
    fc.assert(
      fc.property(
        contextArb().chain(({ params, wc }) =>
          fc.record({ params: fc.constant(params), wc: fc.constant(wc), scores: scoresArb(wc.entries.length) })
        ),
        fc.integer({ min: 0, max: 60 }),
        ({ params, wc, scores }, extra) => {
          const budget = wc.entries.length + extra
          const result = Allocator.fill(wc, scores, { budget, recentTokens: params.recentTokens })
          let current = wc
          for (const action of result.actions) {
            current = applyOne(current, action)
            if (current.entries.length > budget) return false
          }
          return Invariants.check(result.context, { budget, recentTokens: params.recentTokens }).length === 0
        }
      ),
      { numRuns: 200 }
    )
  })
})
