/**
 * Acceptance-style tests of the public contract: everything is imported from the package name, and
 * every API is used exactly as the issue writes it.
 */
import { assert, describe, it } from "@effect/vitest"
import { Allocator, Focus, Gister, Invariants, LensScorer, LodTree, WorkingContext } from "@heed/allocator"
import { Effect, Layer, Metric } from "effect"
import { TestClock } from "effect/testing"

/** A hand-written context (plain object, as a caller would write it). */
const lod1Context = (tokens: number, blockSize: number, maxLevel: number) => ({
  blockSize,
  maxLevel,
  totalTokens: tokens,
  entries: Array.from({ length: tokens / blockSize }, (_, i) => ({ level: 1, start: i * blockSize }))
})

const kinds = (violations: ReadonlyArray<{ readonly kind: string }>) => violations.map((v) => v.kind)

describe("public API: WorkingContext", () => {
  it("fromTokens builds the all-LOD0 context with the given shape; cost is one slot per entry", () => {
    const wc = WorkingContext.fromTokens(10, { blockSize: 4, maxLevel: 2 })
    assert.strictEqual(wc.blockSize, 4)
    assert.strictEqual(wc.maxLevel, 2)
    assert.strictEqual(wc.totalTokens, 10)
    assert.deepStrictEqual(
      wc.entries,
      Array.from({ length: 10 }, (_, i) => ({ level: 0, start: i }))
    )
    assert.strictEqual(WorkingContext.cost(wc), 10)
  })

  it("an entry costs 1 slot whatever its level; it covers [start, start + blockSize ** level)", () => {
    const wc = {
      blockSize: 4,
      maxLevel: 2,
      totalTokens: 22,
      entries: [
        { level: 2, start: 0 },
        { level: 1, start: 16 },
        { level: 0, start: 20 },
        { level: 0, start: 21 }
      ]
    }
    assert.strictEqual(WorkingContext.cost(wc), 4)
    assert.deepStrictEqual(Invariants.check(wc, { budget: 4, recentTokens: 2 }), [])
  })
})

describe("public API: Invariants.check", () => {
  const valid = {
    blockSize: 4,
    maxLevel: 2,
    totalTokens: 24,
    entries: [
      { level: 2, start: 0 },
      { level: 1, start: 16 },
      ...Array.from({ length: 4 }, (_, i) => ({ level: 0, start: 20 + i }))
    ]
  }

  it("a valid context has an empty violation list", () => {
    assert.deepStrictEqual(Invariants.check(valid, { budget: 6, recentTokens: 4 }), [])
  })

  it("budget: more entries than the budget", () => {
    assert.deepStrictEqual(kinds(Invariants.check(valid, { budget: 5, recentTokens: 4 })), ["budget"])
  })

  it("contiguity: a gap between entries", () => {
    const gap = { ...valid, entries: valid.entries.filter((e) => e.start !== 21) }
    assert.include(kinds(Invariants.check(gap, { budget: 10, recentTokens: 0 })), "contiguity")
  })

  it("full coverage of [0, totalTokens)", () => {
    const short = { ...valid, totalTokens: 25 }
    assert.include(kinds(Invariants.check(short, { budget: 10, recentTokens: 0 })), "coverage")
  })

  it("alignment: a gist off its blockSize ** level boundary (what a misaligned collapse produces)", () => {
    const wc = {
      blockSize: 4,
      maxLevel: 2,
      totalTokens: 8,
      entries: [
        { level: 0, start: 0 },
        { level: 0, start: 1 },
        { level: 1, start: 2 },
        { level: 0, start: 6 },
        { level: 0, start: 7 }
      ]
    }
    assert.deepStrictEqual(kinds(Invariants.check(wc, { budget: 10, recentTokens: 0 })), ["alignment"])
  })

  it("level bounds", () => {
    const wc = { blockSize: 2, maxLevel: 1, totalTokens: 4, entries: [{ level: 2, start: 0 }] }
    assert.include(kinds(Invariants.check(wc, { budget: 10, recentTokens: 0 })), "level")
  })

  it("recent tail at LOD0", () => {
    assert.deepStrictEqual(kinds(Invariants.check(valid, { budget: 6, recentTokens: 5 })), ["recentTail"])
  })

  it("lists every violation, not only the first", () => {
    const wc = {
      blockSize: 4,
      maxLevel: 1,
      totalTokens: 12,
      entries: [
        { level: 1, start: 2 },
        { level: 0, start: 6 },
        { level: 3, start: 7 },
        { level: 1, start: 8 }
      ]
    }
    const found = kinds(Invariants.check(wc, { budget: 3, recentTokens: 4 }))
    for (const kind of ["budget", "coverage", "alignment", "level", "recentTail"]) assert.include(found, kind)
  })
})

describe("public API: Allocator contract details", () => {
  it("greedy and optimal return { context, actions, cooldowns, stats }", () => {
    const wc = lod1Context(16, 4, 2)
    for (const result of [
      Allocator.greedy(wc, [0.9, 0, 0, 0], { budget: 100, recentTokens: 0 }),
      Allocator.optimal(wc, [0.9, 0, 0, 0], { budget: 100, recentTokens: 0 })
    ]) {
      assert.deepStrictEqual(result.actions, [{ kind: "expand", level: 1, start: 0 }])
      assert.strictEqual(WorkingContext.cost(result.context), 7)
      assert.isTrue(result.cooldowns.has("1:0"))
      assert.strictEqual(result.stats.expands, 1)
    }
  })

  it("an action's level is the level before the action: the gist for an expand, the children for a collapse", () => {
    const wc = {
      blockSize: 2,
      maxLevel: 2,
      totalTokens: 12,
      entries: [
        { level: 2, start: 0 },
        { level: 1, start: 4 },
        { level: 1, start: 6 },
        ...Array.from({ length: 4 }, (_, i) => ({ level: 0, start: 8 + i }))
      ]
    }
    const result = Allocator.greedy(wc, [0.9, -0.9, -0.9, -0.5, -0.5, 0, 0], {
      budget: 100,
      recentTokens: 2,
      maxActions: 3
    })
    // Turn 1: expand LOD2 at 0, collapse the LOD1 pair at 4 (mean -0.9); turn 2: collapse the LOD0 pair at 8.
    assert.deepStrictEqual(result.actions, [
      { kind: "expand", level: 2, start: 0 },
      { kind: "collapse", level: 1, start: 4 },
      { kind: "collapse", level: 0, start: 8 }
    ])
    assert.deepStrictEqual(result.context.entries.slice(0, 4), [
      { level: 1, start: 0 },
      { level: 1, start: 2 },
      { level: 2, start: 4 },
      { level: 1, start: 8 }
    ])
  })

  it("default config: tauExpand = tauCollapse = 0.2, both strict", () => {
    const wc = lod1Context(16, 4, 2)
    const config = { budget: 100, recentTokens: 0 }
    assert.strictEqual(Allocator.greedy(wc, [0.2, 0, 0, 0], config).actions.length, 0)
    assert.strictEqual(Allocator.greedy(wc, [0.2000001, 0, 0, 0], config).actions.length, 1)
    assert.strictEqual(Allocator.greedy(wc, [-0.2, -0.2, -0.2, -0.2], config).actions.length, 0)
    assert.deepStrictEqual(Allocator.greedy(wc, [-0.21, -0.21, -0.21, -0.21], config).actions, [
      { kind: "collapse", level: 1, start: 0 }
    ])
    assert.strictEqual(Allocator.optimal(wc, [0.2, -0.2, -0.2, -0.2], config).actions.length, 0)
  })

  it("thresholds are strict for Float32Array scores too (a scorer's output): float32 0.2 is not above 0.2", () => {
    const wc = lod1Context(16, 4, 2)
    const config = { budget: 100, recentTokens: 0 }
    for (const run of [Allocator.greedy, Allocator.optimal]) {
      assert.strictEqual(run(wc, Float32Array.of(0.2, 0, 0, 0), config).actions.length, 0)
      assert.strictEqual(run(wc, Float32Array.of(-0.2, -0.2, -0.2, -0.2), config).actions.length, 0)
      assert.strictEqual(run(wc, Float32Array.of(-0.3, -0.1, -0.2, -0.2), config).actions.length, 0)
      assert.strictEqual(run(wc, Float32Array.of(0.21, 0, 0, 0), config).actions.length, 1)
      assert.strictEqual(run(wc, Float32Array.of(-0.21, -0.2, -0.2, -0.2), config).actions.length, 1)
    }
  })

  it("explicit thresholds are strict too", () => {
    const wc = lod1Context(16, 4, 2)
    const config = { budget: 100, recentTokens: 0, tauExpand: 0.5, tauCollapse: 0.5 }
    assert.strictEqual(Allocator.greedy(wc, [0.5, -0.5, -0.5, -0.5], config).actions.length, 0)
    assert.strictEqual(Allocator.optimal(wc, [0.5, -0.5, -0.5, -0.5], config).actions.length, 0)
    assert.strictEqual(Allocator.greedy(wc, [0.75, -0.75, -0.75, -0.75], config).actions.length, 1)
  })

  it("default config: maxActions = 4 and recentTokens = 128", () => {
    // 256 tokens of LOD1 gists (K = 4): every group of 4 siblings wants to collapse.
    const wc = lod1Context(256, 4, 2)
    const result = Allocator.greedy(wc, new Array(64).fill(-1), { budget: 1000 })
    assert.strictEqual(result.actions.length, 4)
    // Collapses only produce gists that end at or before the tail start 256 - 128.
    for (const action of result.actions) assert.isAtMost(action.start + 16, 128)
    const all = Allocator.greedy(wc, new Array(64).fill(-1), { budget: 1000, maxActions: 100 })
    assert.strictEqual(all.actions.length, 8)
    const opt = Allocator.optimal(wc, new Array(64).fill(-1), { budget: 1000 })
    assert.strictEqual(opt.actions.length, 4)
  })

  it("a collapse's score is the mean over the blockSize entries it merges", () => {
    const wc = lod1Context(16, 4, 2)
    const config = { budget: 100, recentTokens: 0 }
    // One sibling above -0.2, but the mean (-0.725) is below: collapse.
    assert.deepStrictEqual(Allocator.greedy(wc, [-1, -1, -1, 0.1], config).actions, [
      { kind: "collapse", level: 1, start: 0 }
    ])
    // Three siblings below -0.2, but the mean (-0.1875) is not: no collapse.
    assert.strictEqual(Allocator.greedy(wc, [-0.3, -0.3, -0.3, 0.15], config).actions.length, 0)
    // The optimum counts the collapse at the magnitude of its mean.
    const opt = Allocator.optimal(wc, [-1, -1, -1, 0.1], config)
    assert.deepStrictEqual(opt.actions, [{ kind: "collapse", level: 1, start: 0 }])
    assert.closeTo(opt.stats.value, 0.725, 1e-12)
  })

  it("actions are in application order: a budget-blocked expand waits, a collapse frees room, the expand goes", () => {
    const wc = {
      blockSize: 2,
      maxLevel: 1,
      totalTokens: 4,
      entries: [
        { level: 1, start: 0 },
        { level: 0, start: 2 },
        { level: 0, start: 3 }
      ]
    }
    const result = Allocator.greedy(wc, [1, -1, -1], { budget: 3, recentTokens: 0 })
    assert.deepStrictEqual(result.actions, [
      { kind: "collapse", level: 0, start: 2 },
      { kind: "expand", level: 1, start: 0 }
    ])
    assert.deepStrictEqual(result.context.entries, [
      { level: 0, start: 0 },
      { level: 0, start: 1 },
      { level: 1, start: 2 }
    ])
    const opt = Allocator.optimal(wc, [1, -1, -1], { budget: 3, recentTokens: 0 })
    assert.deepStrictEqual(opt.actions, result.actions)
  })

  it("replaying the actions in order keeps the budget after every single action", () => {
    const wc = {
      blockSize: 2,
      maxLevel: 2,
      totalTokens: 16,
      entries: [
        { level: 2, start: 0 },
        { level: 2, start: 4 },
        ...Array.from({ length: 8 }, (_, i) => ({ level: 0, start: 8 + i }))
      ]
    }
    const scores = [0.9, 0.8, -1, -1, -0.9, -0.9, -0.8, -0.8, 0, 0]
    for (const run of [Allocator.greedy, Allocator.optimal]) {
      const result = run(wc, scores, { budget: 10, recentTokens: 2, maxActions: 6 })
      let cost = WorkingContext.cost(wc)
      for (const action of result.actions) {
        cost += action.kind === "expand" ? 1 : -1
        assert.isAtMost(cost, 10)
      }
      assert.strictEqual(cost, WorkingContext.cost(result.context))
      assert.deepStrictEqual(Invariants.check(result.context, { budget: 10, recentTokens: 2 }), [])
    }
  })

  it("cooldown keys: '<level>:<start>' of the expanded gist, or of the gist a collapse produced", () => {
    const wc = {
      blockSize: 4,
      maxLevel: 2,
      totalTokens: 20,
      entries: [{ level: 1, start: 0 }, ...Array.from({ length: 16 }, (_, i) => ({ level: 0, start: 4 + i }))]
    }
    const scores = [0.9, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    const result = Allocator.greedy(wc, scores, { budget: 100, recentTokens: 0 })
    assert.deepStrictEqual(result.actions, [
      { kind: "expand", level: 1, start: 0 },
      { kind: "collapse", level: 0, start: 4 }
    ])
    assert.deepStrictEqual([...result.cooldowns.keys()].sort(), ["1:0", "1:4"])
    assert.strictEqual(result.cooldowns.get("1:0")!.action, "expand")
    assert.strictEqual(result.cooldowns.get("1:4")!.action, "collapse")
  })

  it("cooldown timing: the opposite action is blocked for the next cooldownSteps calls (default 2)", () => {
    const wc = lod1Context(16, 4, 2)
    const config = { budget: 100, recentTokens: 0 }
    const t = Allocator.greedy(wc, [0.9, 0, 0, 0], config)
    assert.deepStrictEqual(t.actions, [{ kind: "expand", level: 1, start: 0 }])
    const collapse = t.context.entries.map((e) => (e.level === 0 ? -1 : 0))
    const t1 = Allocator.greedy(t.context, collapse, config, t.cooldowns)
    assert.strictEqual(t1.actions.length, 0)
    assert.strictEqual(Allocator.optimal(t.context, collapse, config, t.cooldowns).actions.length, 0)
    const t2 = Allocator.greedy(t.context, collapse, config, t1.cooldowns)
    assert.strictEqual(t2.actions.length, 0)
    const t3 = Allocator.greedy(t.context, collapse, config, t2.cooldowns)
    assert.deepStrictEqual(t3.actions, [{ kind: "collapse", level: 0, start: 0 }])
  })

  it("cooldown timing with cooldownSteps = 1 and a collapse blocking re-expansion", () => {
    const wc = lod1Context(16, 4, 2)
    const config = { budget: 100, recentTokens: 0, cooldownSteps: 1 }
    const t = Allocator.greedy(wc, [-1, -1, -1, -1], config)
    assert.deepStrictEqual(t.actions, [{ kind: "collapse", level: 1, start: 0 }])
    assert.isTrue(t.cooldowns.has("2:0"))
    const t1 = Allocator.greedy(t.context, [1], config, t.cooldowns)
    assert.strictEqual(t1.actions.length, 0)
    const t2 = Allocator.greedy(t.context, [1], config, t1.cooldowns)
    assert.deepStrictEqual(t2.actions, [{ kind: "expand", level: 2, start: 0 }])
  })

  it("a cooldown blocks only the opposite action", () => {
    const wc = lod1Context(8, 2, 2)
    const expanded = new Map([["1:0", { action: "expand" as const, remaining: 2 }]])
    const config = { budget: 100, recentTokens: 0 }
    assert.strictEqual(Allocator.greedy(wc, [0.9, 0, 0, 0], config, expanded).actions.length, 1)
  })

  it("an action blocked by a cooldown is skipped: the next candidate goes", () => {
    const wc = lod1Context(16, 4, 2)
    const collapsed = new Map([["1:0", { action: "collapse" as const, remaining: 1 }]])
    const result = Allocator.greedy(wc, [1, 0.5, 0, 0], { budget: 100, recentTokens: 0 }, collapsed)
    assert.deepStrictEqual(result.actions, [{ kind: "expand", level: 1, start: 4 }])
  })

  it("terminates with both queue heads blocked and never applies more than maxActions", () => {
    const wc = {
      blockSize: 2,
      maxLevel: 1,
      totalTokens: 5,
      entries: [
        { level: 1, start: 0 },
        { level: 0, start: 2 },
        { level: 0, start: 3 },
        { level: 0, start: 4 }
      ]
    }
    const cooldowns = new Map([["1:2", { action: "expand" as const, remaining: 2 }]])
    const result = Allocator.greedy(wc, [1, -1, -1, 0], { budget: 4, recentTokens: 0 }, cooldowns)
    assert.strictEqual(result.actions.length, 0)
    const many = lod1Context(64, 2, 2)
    const capped = Allocator.greedy(many, new Array(32).fill(1), { budget: 1000, recentTokens: 0, maxActions: 3 })
    assert.strictEqual(capped.actions.length, 3)
  })

  it("optimal maximises expand scores plus collapse magnitudes within maxActions (greedy does not)", () => {
    const wc = {
      blockSize: 2,
      maxLevel: 2,
      totalTokens: 6,
      entries: [
        { level: 1, start: 0 },
        { level: 0, start: 2 },
        { level: 0, start: 3 },
        { level: 0, start: 4 },
        { level: 0, start: 5 }
      ]
    }
    const scores = [0.3, -1, -1, -0.9, -0.9]
    const config = { budget: 100, recentTokens: 0, maxActions: 2 }
    const greedy = Allocator.greedy(wc, scores, config)
    assert.closeTo(greedy.stats.value, 1.3, 1e-12)
    const best = Allocator.optimal(wc, scores, config)
    assert.deepStrictEqual(best.actions, [
      { kind: "collapse", level: 0, start: 2 },
      { kind: "collapse", level: 0, start: 4 }
    ])
    assert.closeTo(best.stats.value, 1.9, 1e-12)
    assert.isAtLeast(best.stats.bound, best.stats.value - 1e-12)
    assert.closeTo(best.stats.gap, best.stats.bound - best.stats.value, 1e-12)
  })

  it("optimal respects the budget: with no room it must collapse before it expands", () => {
    const wc = {
      blockSize: 2,
      maxLevel: 1,
      totalTokens: 6,
      entries: [
        { level: 1, start: 0 },
        { level: 1, start: 2 },
        { level: 0, start: 4 },
        { level: 0, start: 5 }
      ]
    }
    const result = Allocator.optimal(wc, [0.9, 0.8, -0.25, -0.25], { budget: 4, recentTokens: 0 })
    assert.deepStrictEqual(result.actions, [
      { kind: "collapse", level: 0, start: 4 },
      { kind: "expand", level: 1, start: 0 }
    ])
    assert.isAtMost(WorkingContext.cost(result.context), 4)
  })

  it("adaptThresholds follows the seed: x0.95 under 0.8 budget, x1.05 over 0.95 budget, tauCollapse mirrors", () => {
    const down = Allocator.adaptThresholds([700, 700], { tauExpand: 0.2, tauCollapse: 0.2 }, { budget: 1000 })
    assert.closeTo(down.tauExpand, 0.19, 1e-12)
    assert.closeTo(down.tauCollapse, 0.19, 1e-12)
    const up = Allocator.adaptThresholds([980], { tauExpand: 0.2, tauCollapse: 0.2 }, { budget: 1000 })
    assert.closeTo(up.tauExpand, 0.21, 1e-12)
    assert.closeTo(up.tauCollapse, 0.21, 1e-12)
  })

  it("docs' 100k-token scenario: 3,125 LOD1 and 97 LOD2 nodes; 2 expands + 2 collapses at ±31 net 0", () => {
    assert.deepStrictEqual(LodTree.shape(100_000, { blockSize: 32, maxLevel: 2 }), [100_000, 3125, 97])
    // The whole history: 97 LOD2 gists then the 672 tokens past the last full LOD2 block, all LOD0.
    const head = Array.from({ length: 97 }, (_, i) => ({ level: 2, start: i * 1024 }))
    const tail = Array.from({ length: 100_000 - 97 * 1024 }, (_, i) => ({ level: 0, start: 97 * 1024 + i }))
    const wc = { blockSize: 32, maxLevel: 2, totalTokens: 100_000, entries: [...head, ...tail] }
    const budget = WorkingContext.cost(wc)
    assert.strictEqual(budget, 769)
    const scores = new Float32Array(budget)
    scores[10] = 0.9
    scores[20] = 0.8
    scores.fill(-1, 97, 97 + 64)
    const result = Allocator.greedy(wc, scores, { budget })
    assert.deepStrictEqual(result.actions, [
      { kind: "collapse", level: 0, start: 99_360 },
      { kind: "expand", level: 2, start: 10_240 },
      { kind: "collapse", level: 0, start: 99_328 },
      { kind: "expand", level: 2, start: 20_480 }
    ])
    assert.strictEqual(WorkingContext.cost(result.context), budget)
    assert.deepStrictEqual(Invariants.check(result.context, { budget, recentTokens: 128 }), [])
  })
})

describe("public API: LodTree, ports and Focus", () => {
  it("LodTree.shape returns the node count per level; partial blocks get no gist", () => {
    assert.deepStrictEqual(LodTree.shape(70, { blockSize: 4, maxLevel: 2 }), [70, 17, 4])
    assert.deepStrictEqual(LodTree.shape(3, { blockSize: 4, maxLevel: 2 }), [3, 0, 0])
  })

  it.effect("LodTree over Float32Array embeddings with the mean-pool Gister: partial tail blocks stay LOD0", () =>
    Effect.gen(function* () {
      const dim = 2
      const embeddings = Float32Array.from({ length: 10 * dim }, (_, i) => i)
      const tree = yield* LodTree.fromEmbeddings({ blockSize: 4, maxLevel: 2, dim }, embeddings)
      assert.deepStrictEqual(tree.counts, LodTree.shape(10, { blockSize: 4, maxLevel: 2 }))
      assert.deepStrictEqual(Array.from(tree.node(1, 0)!), [3, 4])
      assert.deepStrictEqual(Array.from(tree.node(1, 1)!), [11, 12])
      assert.isUndefined(tree.node(1, 2))
    }).pipe(Effect.provide(Gister.layerMeanPool))
  )

  it.effect("docs' 100k-token scenario on a real tree: 3,125 LOD1 and 97 LOD2 nodes", () =>
    Effect.gen(function* () {
      const dim = 2
      const tree = yield* LodTree.fromEmbeddings(
        { blockSize: 32, maxLevel: 2, dim },
        Float32Array.from({ length: 100_000 * dim }, (_, i) => i % 7)
      )
      assert.deepStrictEqual(tree.counts, [100_000, 3125, 97])
      assert.isUndefined(tree.node(2, 97))
    }).pipe(Effect.provide(Gister.layerMeanPool))
  )

  it.effect("LodTree and Focus also take one Float32Array per token", () =>
    Effect.gen(function* () {
      const rows = Array.from({ length: 10 }, (_, t) => Float32Array.of(2 * t, 2 * t + 1))
      const tree = yield* LodTree.fromEmbeddings({ blockSize: 4, maxLevel: 2, dim: 2 }, rows)
      assert.deepStrictEqual(tree.counts, [10, 2, 0])
      assert.deepStrictEqual(Array.from(tree.node(1, 1)!), [11, 12])
      const bad = yield* Effect.flip(LodTree.append(tree, [Float32Array.of(1, 2, 3)]))
      assert.strictEqual(bad._tag, "LodTreeError")
      assert.deepStrictEqual(tree.counts, [10, 2, 0])
      const focus = yield* Focus.make({ dim: 2, budget: 512 }).pipe(
        Effect.provide(LensScorer.layerAnalytic({ maxLevel: 2 }))
      )
      const events = yield* focus.append(Array.from({ length: 40 }, (_, t) => Float32Array.of(t, 1)))
      assert.strictEqual(events.length, 1)
      assert.strictEqual((yield* focus.context).totalTokens, 40)
    }).pipe(Effect.provide(Gister.layerMeanPool))
  )

  it.effect("Gister port: gist(blocks) -> one mean gist per block", () =>
    Effect.gen(function* () {
      const gister = yield* Gister.Gister
      const gists = yield* gister.gist({ count: 2, blockSize: 2, dim: 1, data: Float32Array.of(1, 3, 5, 9) })
      assert.deepStrictEqual(Array.from(gists), [2, 7])
    }).pipe(Effect.provide(Gister.layerMeanPool))
  )

  it.effect("LensScorer port: analytic scores in [-1, 1], legality-masked", () =>
    Effect.gen(function* () {
      const scorer = yield* LensScorer.LensScorer
      const dim = 2
      const entries = { rows: 3, dim, data: Float32Array.of(1, 0, -1, 0, 1, 0) }
      const tail = { rows: 1, dim, data: Float32Array.of(1, 0) }
      const scores = yield* scorer.score(entries, [0, 1, 2], [0, 4, 16], tail)
      assert.instanceOf(scores, Float32Array)
      assert.strictEqual(scores.length, 3)
      for (const s of scores) assert.isTrue(s >= -1 && s <= 1)
      assert.isAtMost(scores[0]!, 0) // LOD0 cannot expand
      assert.isAtLeast(scores[2]!, 0) // max level cannot collapse
      assert.isBelow(scores[1]!, 0) // opposite the tail: wants less detail
    }).pipe(Effect.provide(LensScorer.layerAnalytic({ maxLevel: 2 })))
  )

  it.effect("Focus refocuses every 32 tokens and emits the telemetry as events and Effect metrics", () =>
    Effect.gen(function* () {
      const focus = yield* Focus.Focus
      yield* TestClock.adjust(5000)
      const dim = 8
      const tokens = Float32Array.from({ length: 100 * dim }, (_, i) => Math.sin(i * 0.37))
      const events = yield* focus.append(tokens)
      assert.deepStrictEqual(
        events.map((e) => e.total_tokens),
        [32, 64, 96]
      )
      const last = events.at(-1)!
      assert.strictEqual(last.type, "focus_allocator")
      assert.strictEqual(last.at, 5000)
      for (const key of [
        "swap_rate",
        "num_expand",
        "num_collapse",
        "wc_length",
        "utilization",
        "residency_mean",
        "residency_p95",
        "budget_compliance",
        "focus_coherence"
      ]) {
        assert.property(last, key)
      }
      const record = last as unknown as Record<string, number>
      assert.strictEqual(record.utilization, 96 / 512)
      assert.strictEqual(record.budget_compliance, 1)
      const ids = new Set((yield* Metric.snapshot).map((m) => m.id))
      for (const id of [
        "swap_rate",
        "utilization",
        "residency_mean",
        "residency_p95",
        "budget_compliance",
        "focus_coherence"
      ]) {
        assert.isTrue(ids.has(id), `metric ${id}`)
      }
    }).pipe(
      Effect.provide(
        Focus.layer({ dim: 8, budget: 512 }).pipe(
          Layer.provide(Layer.merge(LensScorer.layerAnalytic({ maxLevel: 2 }), Gister.layerMeanPool))
        )
      ),
      Effect.provideService(Metric.MetricRegistry, new Map())
    )
  )
})
