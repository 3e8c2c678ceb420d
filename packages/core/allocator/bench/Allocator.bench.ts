import { Bench } from "@heed/bench"
import { Allocator, Invariants, WorkingContext } from "../src/index.ts"
import { mixedContext, randomScores } from "./fixtures.ts"

const sizes = [2048, 8192] as const
const inputs = sizes.map((n) => {
  const wc = mixedContext(n)
  const violations = Invariants.check(wc, { budget: n, recentTokens: 128 })
  if (violations.length > 0) throw new Error(`bench fixture invalid: ${violations[0]!.message}`)
  return { n, wc, scores: randomScores(n), config: { budget: n + 64 } }
})

await Bench.run(
  "Allocator",
  inputs.flatMap(({ n, wc, scores, config }) => {
    const candidates = Allocator.candidates(wc, scores, config)
    const count = candidates.expands.length + candidates.collapses.length
    return [
      { name: `greedy ${n} entries`, fn: () => Allocator.greedy(wc, scores, config), figures: { candidates: count } },
      { name: `optimal ${n} entries`, fn: () => Allocator.optimal(wc, scores, config), figures: { candidates: count } },
      {
        name: `stochastic ${n} entries`,
        fn: () => Allocator.stochastic(wc, scores, config, { seed: 3 }),
        figures: { candidates: count }
      },
      { name: `Invariants.check ${n} entries`, fn: () => Invariants.check(wc, { budget: n, recentTokens: 128 }) }
    ]
  })
)

Bench.record(
  "Allocator quality",
  inputs.flatMap(({ n, wc, scores, config }) => {
    const greedy = Allocator.greedy(wc, scores, config)
    const optimal = Allocator.optimal(wc, scores, config)
    const tight = { ...config, budget: WorkingContext.cost(wc) }
    const greedyTight = Allocator.greedy(wc, scores, tight)
    const optimalTight = Allocator.optimal(wc, scores, tight)
    return [
      {
        name: `${n} entries, budget +64`,
        figures: {
          greedy_value: Number(greedy.stats.value.toFixed(4)),
          optimal_value: Number(optimal.stats.value.toFixed(4)),
          lp_bound: Number(optimal.stats.bound.toFixed(4)),
          gap: Number(optimal.stats.gap.toFixed(4))
        }
      },
      {
        name: `${n} entries, budget = cost`,
        figures: {
          greedy_value: Number(greedyTight.stats.value.toFixed(4)),
          optimal_value: Number(optimalTight.stats.value.toFixed(4)),
          lp_bound: Number(optimalTight.stats.bound.toFixed(4)),
          gap: Number(optimalTight.stats.gap.toFixed(4))
        }
      }
    ]
  })
)
