import { Bench } from "@heed/bench"
import { Effect, Layer } from "effect"
import { Allocator, Focus, Gister, LensScorer, LodTree, type WorkingContext } from "../src/index.ts"
import { mixedContext, prng } from "./fixtures.ts"

const dim = 64

/** Token embeddings with a topic that drifts every 400 tokens, plus noise. */
const synthetic = (from: number, to: number, seed = 5): Float32Array => {
  const random = prng(seed + from)
  const out = new Float32Array((to - from) * dim)
  for (let t = from; t < to; t++) {
    const topic = Math.floor(t / 400)
    for (let k = 0; k < dim; k++) {
      out[(t - from) * dim + k] = Math.cos(topic * 2.3 + k * 0.7) + (random() - 0.5)
    }
  }
  return out
}

const refocusStep = (tree: LodTree.LodTree, wc: WorkingContext.WorkingContext) => {
  const n = wc.entries.length
  const data = new Float32Array(n * dim)
  const levels = new Uint8Array(n)
  const positions = new Float64Array(n)
  for (let i = 0; i < n; i++) {
    const entry = wc.entries[i]!
    data.set(tree.entry(entry)!, i * dim)
    levels[i] = entry.level
    positions[i] = entry.start
  }
  const tail = tree.tokens(wc.totalTokens - 128, wc.totalTokens)
  const scores = LensScorer.analyticScore({ rows: n, dim, data }, levels, positions, tail, { maxLevel: 2 })
  return Allocator.greedy(wc, scores, { budget: n + 64 })
}

const fixtures = await Promise.all(
  [2048, 8192].map(async (n) => {
    const wc = mixedContext(n)
    const tree = await Effect.runPromise(
      LodTree.fromEmbeddings({ blockSize: 32, maxLevel: 2, dim }, synthetic(0, wc.totalTokens)).pipe(
        Effect.provide(Gister.layerMeanPool)
      )
    )
    return { n, wc, tree }
  })
)

await Bench.run(
  "Focus refocus step",
  fixtures.map(({ n, wc, tree }) => ({
    name: `gather + analytic score + greedy, ${n} entries, d=${dim}`,
    fn: () => refocusStep(tree, wc),
    figures: { tokens: wc.totalTokens }
  })),
  { timeMs: 500 }
)

const ports = Layer.merge(LensScorer.layerAnalytic({ maxLevel: 2 }), Gister.layerMeanPool)

const syntheticRun = (strategy: "greedy" | "optimal", budget: number, tokens: number) =>
  Effect.gen(function* () {
    const focus = yield* Focus.make({ dim, budget, strategy })
    const events: Array<Focus.FocusEvent> = []
    const started = performance.now()
    for (let t = 0; t < tokens; t += 32) events.push(...(yield* focus.append(synthetic(t, Math.min(tokens, t + 32)))))
    const elapsed = performance.now() - started
    const snapshot = yield* focus.snapshot
    const full = events.filter((e) => e.total_tokens >= budget)
    const utilization = full.map((e) => e.utilization)
    const average = (xs: ReadonlyArray<number>) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length)
    return {
      name: `${strategy}, budget ${budget}, ${tokens} tokens, d=${dim}`,
      figures: {
        refocuses: events.length,
        utilization_mean_pct: Number((100 * average(utilization)).toFixed(2)),
        utilization_min_pct: Number((100 * Math.min(...utilization)).toFixed(2)),
        utilization_max_pct: Number((100 * Math.max(...utilization)).toFixed(2)),
        compliance_pct: Number(
          (100 * (1 - snapshot.totals.budgetViolations / snapshot.totals.budgetChecks)).toFixed(2)
        ),
        swap_rate_mean: Number(average(full.map((e) => e.swap_rate)).toFixed(5)),
        residency_mean: Number(average(full.map((e) => e.residency_mean)).toFixed(1)),
        coherence_mean: Number(average(full.map((e) => e.focus_coherence)).toFixed(3)),
        expands: snapshot.totals.expands,
        collapses: snapshot.totals.collapses,
        relief_collapses: snapshot.totals.reliefCollapses,
        fill_expands: snapshot.totals.fillExpands,
        ms_per_token: Number((elapsed / tokens).toFixed(4))
      }
    }
  }).pipe(Effect.provide(ports))

Bench.record("Focus synthetic run", [
  await Effect.runPromise(syntheticRun("greedy", 2048, 10_000)),
  await Effect.runPromise(syntheticRun("optimal", 2048, 10_000)),
  await Effect.runPromise(syntheticRun("greedy", 1024, 10_000))
])
