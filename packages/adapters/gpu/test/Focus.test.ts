import { assert, describe, it } from "@effect/vitest"
import { type Focus, Gister, LensScorer } from "@heed/allocator"
import { Effect, Layer } from "effect"
import { Graphs, OnnxGister, OnnxLensScorer } from "../src/index.ts"
import { providers } from "./providers.ts"
import { budget, syntheticRun, tokens } from "./synthetic.ts"

const reference = Layer.merge(LensScorer.layerAnalytic({ maxLevel: 2 }), Gister.layerMeanPool)

/** Every field of an event except the statistics of the scores, which float32 reductions move in the 7th digit. */
const decisions = ({ score_mean, score_std, score_min, score_max, ...rest }: Focus.FocusEvent) => rest
const scoreStats = (e: Focus.FocusEvent) => [e.score_mean, e.score_std, e.score_min, e.score_max]

describe.each(providers)("Focus on OnnxLensScorer + OnnxGister (%s)", (provider) => {
  const ports = (precision: "float32" | "float64") =>
    Layer.merge(
      OnnxLensScorer.layer({
        executionProvider: provider,
        fallback: false,
        threads: 1,
        graph: Graphs.analyticLens({ maxLevel: 2, precision })
      }),
      OnnxGister.layer({ executionProvider: provider, fallback: false, threads: 1 })
    )

  it.effect(
    `the ${tokens.toLocaleString("en")}-token synthetic run keeps every invariant and decides as the TS reference`,
    () =>
      Effect.gen(function* () {
        const want = yield* syntheticRun.pipe(Effect.provide(reference))
        const got = yield* syntheticRun.pipe(Effect.provide(ports("float32")))
        assert.strictEqual(got.steps.length, want.steps.length)
        for (let i = 0; i < got.steps.length; i++) {
          const [g, w] = [got.steps[i]!, want.steps[i]!]
          assert.strictEqual(g.violations, 0, `step ${i}: invariants`)
          assert.deepStrictEqual(g.context.entries, w.context.entries, `step ${i}: working context`)
          assert.deepStrictEqual(g.events.map(decisions), w.events.map(decisions), `step ${i}: events`)
          for (let j = 0; j < g.events.length; j++) {
            const [gs, ws] = [scoreStats(g.events[j]!), scoreStats(w.events[j]!)]
            for (let k = 0; k < gs.length; k++) assert.closeTo(gs[k]!, ws[k]!, 1e-6, `step ${i}: score statistics`)
          }
        }
        assert.strictEqual(got.snapshot.totals.budgetViolations, 0)
        assert.strictEqual(got.snapshot.totals.appendedTokens, tokens)
        assert.deepStrictEqual(got.snapshot.totals, want.snapshot.totals)
        // The run must exercise the allocator, or equal decisions would prove nothing.
        const events = got.steps.flatMap((step) => step.events)
        assert.isAbove(got.snapshot.totals.expands, 50)
        assert.isAbove(got.snapshot.totals.collapses + got.snapshot.totals.reliefCollapses, 50)
        assert.isAtLeast(Math.min(...events.filter((e) => e.total_tokens >= 2 * budget).map((e) => e.utilization)), 0.8)
      }),
    120_000
  )

  it.effect(
    "with the float64 analytic graph every event equals the TS reference's, score statistics included",
    () =>
      Effect.gen(function* () {
        const want = yield* syntheticRun.pipe(Effect.provide(reference))
        const got = yield* syntheticRun.pipe(Effect.provide(ports("float64")))
        assert.deepStrictEqual(
          got.steps.map((step) => step.events),
          want.steps.map((step) => step.events)
        )
        assert.deepStrictEqual(got.snapshot.totals, want.snapshot.totals)
      }),
    120_000
  )
})
