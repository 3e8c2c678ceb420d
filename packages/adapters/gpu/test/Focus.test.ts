import { assert, describe, it } from "@effect/vitest"
import { Gister, LensScorer } from "@heed/allocator"
import { Effect, Layer } from "effect"
import { OnnxGister, OnnxLensScorer } from "../src/index.ts"
import { providers } from "./providers.ts"
import { budget, syntheticRun, tokens } from "./synthetic.ts"

const reference = Layer.merge(LensScorer.layerAnalytic({ maxLevel: 2 }), Gister.layerMeanPool)

describe.each(providers)("Focus on OnnxLensScorer + OnnxGister (%s)", (provider) => {
  const onnx = Layer.merge(
    OnnxLensScorer.layer({ executionProvider: provider, fallback: false, threads: 1 }),
    OnnxGister.layer({ executionProvider: provider, fallback: false, threads: 1 })
  )

  it.effect(
    `the ${tokens.toLocaleString("en")}-token synthetic run keeps every invariant and decides as the TS reference`,
    () =>
      Effect.gen(function* () {
        const want = yield* syntheticRun.pipe(Effect.provide(reference))
        const got = yield* syntheticRun.pipe(Effect.provide(onnx))
        assert.strictEqual(got.steps.length, want.steps.length)
        for (let i = 0; i < got.steps.length; i++) {
          const [g, w] = [got.steps[i]!, want.steps[i]!]
          assert.strictEqual(g.violations, 0, `step ${i}: invariants`)
          assert.deepStrictEqual(g.context.entries, w.context.entries, `step ${i}: working context`)
          assert.deepStrictEqual(g.events, w.events, `step ${i}: events`)
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
})
