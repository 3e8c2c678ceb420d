import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Metric } from "effect"
import { TestClock } from "effect/testing"
import { Focus, Gister, Invariants, LensScorer, WorkingContext } from "../src/index.ts"

/** Deterministic pseudo-random embeddings with a slowly drifting topic, so focus has something to follow. */
const embeddings = (from: number, to: number, dim: number): Float32Array => {
  const out = new Float32Array((to - from) * dim)
  for (let t = from; t < to; t++) {
    const topic = Math.floor(t / 300)
    for (let k = 0; k < dim; k++) {
      out[(t - from) * dim + k] = Math.sin(t * 12.9898 + k * 78.233) * 0.5 + Math.cos(topic * 3.1 + k) * 0.8
    }
  }
  return out
}

const ports = (maxLevel: number) => Layer.merge(LensScorer.layerAnalytic({ maxLevel }), Gister.layerMeanPool)

const small = {
  dim: 8,
  budget: 160,
  blockSize: 4,
  maxLevel: 3,
  refocusEvery: 8,
  recentTokens: 16
} as const

const eventKeys = [
  "swap_rate",
  "num_expand",
  "num_collapse",
  "num_relief",
  "num_fill",
  "wc_length",
  "utilization",
  "residency_mean",
  "residency_p95",
  "budget_compliance",
  "focus_coherence"
]

describe("Focus", () => {
  it.effect("runs append -> refocus every refocusEvery tokens, keeping the budget, coverage and tail", () =>
    Effect.gen(function* () {
      const focus = yield* Focus.make(small)
      let events = 0
      for (let t = 0; t < 2000; t += 50) {
        events += (yield* focus.append(embeddings(t, t + 50, small.dim))).length
        const { context: wc, ages } = yield* focus.snapshot
        assert.deepStrictEqual(Invariants.check(wc, { budget: small.budget, recentTokens: small.recentTokens }), [])
        assert.strictEqual(ages.length, wc.entries.length)
        // The newest token arrived last: age 0, or 1 when a refocus round ran after it.
        assert.isAtMost(ages[ages.length - 1]!, 1)
        assert.isTrue(ages.every((age) => age >= 0))
        assert.strictEqual(WorkingContext.coverage(wc), t + 50)
      }
      assert.strictEqual(events, 2000 / 8)
      const snapshot = yield* focus.snapshot
      assert.strictEqual(snapshot.totals.budgetViolations, 0)
      assert.isAbove(snapshot.totals.budgetChecks, 250)
      assert.isAbove(snapshot.totals.expands, 0)
      assert.isAbove(snapshot.totals.collapses + snapshot.totals.reliefCollapses, 0)
      const last = (yield* focus.events).at(-1)!
      assert.strictEqual(last.budget_compliance, 1)
      assert.isAtMost(last.utilization, 1)
      assert.isAtLeast(last.utilization, 0.8)
      assert.strictEqual(focus.tree.totalTokens, 2000)
    }).pipe(Effect.provide(ports(3)))
  )

  it.effect("the optimal strategy keeps the same guarantees", () =>
    Effect.gen(function* () {
      const focus = yield* Focus.make({ ...small, strategy: "optimal", iterations: 2 })
      yield* focus.append(embeddings(0, 1200, small.dim))
      const snapshot = yield* focus.snapshot
      assert.strictEqual(snapshot.totals.budgetViolations, 0)
      assert.deepStrictEqual(
        Invariants.check(snapshot.context, { budget: small.budget, recentTokens: small.recentTokens }),
        []
      )
    }).pipe(Effect.provide(ports(3)))
  )

  it.effect("defaults refocus every 32 tokens (100 tokens: 3 refocuses, 4 pending)", () =>
    Effect.gen(function* () {
      const focus = yield* Focus.make({ dim: 4, budget: 512 })
      const events = yield* focus.append(embeddings(0, 100, 4))
      assert.deepStrictEqual(
        events.map((e) => e.total_tokens),
        [32, 64, 96]
      )
      assert.strictEqual((yield* focus.snapshot).tokensSinceRefocus, 4)
      assert.strictEqual(focus.options.blockSize, 32)
      assert.strictEqual(focus.options.tauExpand, 0.2)
    }).pipe(Effect.provide(ports(2)))
  )

  it.effect("events carry the telemetry fields even with zero edits; time comes from the Clock", () =>
    Effect.gen(function* () {
      const neutral = Layer.succeed(
        LensScorer.LensScorer,
        LensScorer.LensScorer.of({ score: (entries) => Effect.succeed(new Float32Array(entries.rows)) })
      )
      const focus = yield* Focus.make(small).pipe(Effect.provide(Layer.merge(neutral, Gister.layerMeanPool)))
      yield* TestClock.adjust(1234)
      const [event] = yield* focus.append(embeddings(0, 8, small.dim))
      for (const key of eventKeys) assert.property(event, key)
      assert.strictEqual(event!.type, "focus_allocator")
      assert.strictEqual(event!.at, 1234)
      assert.strictEqual(event!.swap_rate, 0)
      assert.strictEqual(event!.num_expand + event!.num_collapse + event!.num_relief + event!.num_fill, 0)
      assert.strictEqual(event!.utilization, 8 / small.budget)
      assert.strictEqual(event!.focus_coherence, 1)
      assert.strictEqual(event!.residency_p95, 8)
    })
  )

  it.effect("updates the Effect metrics", () =>
    Effect.gen(function* () {
      const focus = yield* Focus.make(small)
      yield* focus.append(embeddings(0, 400, small.dim))
      const refocuses = yield* Metric.value(Focus.metrics.refocuses)
      assert.strictEqual(refocuses.count, 50)
      const compliance = yield* Metric.value(Focus.metrics.budgetCompliance)
      assert.strictEqual(compliance.value, 1)
      const utilization = yield* Metric.value(Focus.metrics.utilization)
      assert.isAbove(utilization.value, 0)
      const violations = yield* Metric.value(Focus.metrics.budgetViolations)
      assert.strictEqual(violations.count, 0)
    }).pipe(Effect.provide(ports(3)), Effect.provideService(Metric.MetricRegistry, new Map()))
  )

  it.effect(
    "a failing scorer stops the append at the failed refocus; earlier tokens stay, the refocus is retried",
    () =>
      Effect.gen(function* () {
        let broken = true
        const flaky = Layer.succeed(
          LensScorer.LensScorer,
          LensScorer.LensScorer.of({
            score: (entries) =>
              broken
                ? Effect.fail(new LensScorer.LensScorerError({ message: "gpu lost" }))
                : Effect.succeed(new Float32Array(entries.rows))
          })
        )
        const focus = yield* Focus.make(small).pipe(Effect.provide(Layer.merge(flaky, Gister.layerMeanPool)))
        const error = yield* Effect.flip(focus.append(embeddings(0, 300, small.dim)))
        assert.strictEqual(error._tag, "LensScorerError")
        const stuck = yield* focus.snapshot
        assert.strictEqual(stuck.context.totalTokens, 8)
        assert.strictEqual(focus.tree.totalTokens, 8)
        assert.strictEqual(stuck.tokensSinceRefocus, 8)
        broken = false
        const events = yield* focus.append(embeddings(8, 301, small.dim))
        assert.strictEqual(events.length, 1 + Math.floor(293 / 8))
        const after = yield* focus.snapshot
        assert.strictEqual(after.context.totalTokens, 301)
        assert.strictEqual(after.tokensSinceRefocus, 5)
        assert.deepStrictEqual(Invariants.check(after.context, { budget: small.budget, recentTokens: 16 }), [])
      })
  )

  it.effect("a scorer returning out-of-range scores is reported as an AllocatorInputError", () =>
    Effect.gen(function* () {
      const wild = Layer.succeed(
        LensScorer.LensScorer,
        LensScorer.LensScorer.of({ score: (entries) => Effect.succeed(new Float32Array(entries.rows).fill(7)) })
      )
      const focus = yield* Focus.make(small).pipe(Effect.provide(Layer.merge(wild, Gister.layerMeanPool)))
      const error = yield* Effect.flip(focus.append(embeddings(0, 8, small.dim)))
      assert.strictEqual(error._tag, "AllocatorInputError")
      assert.include(error.message, "[-1, 1]")
    })
  )

  it.effect("bad input and bad options fail with typed errors", () =>
    Effect.gen(function* () {
      const focus = yield* Focus.make(small)
      const input = yield* Effect.flip(focus.append(new Float32Array(7)))
      assert.strictEqual(input._tag, "FocusInputError")
      assert.strictEqual((yield* focus.context).totalTokens, 0)
      const strategy = yield* Effect.flip(Focus.make({ ...small, strategy: "bogus" as "greedy" }))
      assert.strictEqual(strategy._tag, "FocusConfigError")
      assert.include(strategy.message, "strategy")
      const budget = yield* Effect.flip(Focus.make({ ...small, budget: 20 }))
      assert.include(budget.message, "too small")
      const tau = yield* Effect.flip(Focus.make({ ...small, tauExpand: -1 }))
      assert.include(tau.message, "tauExpand")
      const dim = yield* Effect.flip(Focus.make({ ...small, dim: 0 }))
      assert.include(dim.message, "dim")
    }).pipe(Effect.provide(ports(3)))
  )

  it.effect("adaptive thresholds lower tauExpand while the budget is underused", () =>
    Effect.gen(function* () {
      const focus = yield* Focus.make({ ...small, budget: 1000, adaptive: true })
      yield* focus.append(embeddings(0, 200, small.dim))
      const { thresholds } = yield* focus.snapshot
      assert.isBelow(thresholds.tauExpand, 0.2)
      assert.strictEqual(thresholds.tauCollapse, thresholds.tauExpand)
    }).pipe(Effect.provide(ports(3)))
  )

  it.effect("keeps utilisation at the floor even when every score asks to collapse", () =>
    Effect.gen(function* () {
      const gloomy = Layer.succeed(
        LensScorer.LensScorer,
        LensScorer.LensScorer.of({ score: (entries) => Effect.succeed(new Float32Array(entries.rows).fill(-0.9)) })
      )
      const focus = yield* Focus.make(small).pipe(Effect.provide(Layer.merge(gloomy, Gister.layerMeanPool)))
      const events = yield* focus.append(embeddings(0, 1000, small.dim))
      const steady = events.filter((e) => e.total_tokens >= 400)
      const floor = Math.floor(0.85 * small.budget)
      for (const event of steady) assert.isAtLeast(event.wc_length, floor)
      const { totals, ages, context } = yield* focus.snapshot
      assert.isAbove(totals.fillExpands, 0)
      assert.strictEqual(ages.length, context.entries.length)
      assert.isTrue(ages.every((age) => age >= 0))
      assert.strictEqual(totals.budgetViolations, 0)
      const off = yield* Focus.make({ ...small, minUtilization: 0 }).pipe(
        Effect.provide(Layer.merge(gloomy, Gister.layerMeanPool))
      )
      const sparse = yield* off.append(embeddings(0, 1000, small.dim))
      assert.isBelow(sparse.at(-1)!.wc_length, floor)
    })
  )

  it.effect("Focus.layer provides the service", () =>
    Effect.gen(function* () {
      const focus = yield* Focus.Focus
      yield* focus.append(embeddings(0, 64, small.dim))
      assert.strictEqual((yield* focus.events).length, 8)
    }).pipe(Effect.provide(Focus.layer(small).pipe(Layer.provide(ports(3)))))
  )
})
