/**
 * The allocator's 10,000-token synthetic run (as in `@heed/allocator`'s Focus benchmark): token embeddings
 * whose topic drifts every 400 tokens, plus seeded noise, appended 32 tokens at a time.
 */
import { Focus, Invariants, type WorkingContext } from "@heed/allocator"
import { Effect } from "effect"
import { prng } from "./providers.ts"

export const dim = 64
export const budget = 2048
export const tokens = 10_000

/** Token embeddings `[from, to)`: a topic direction that changes every 400 tokens, plus noise. */
export const synthetic = (from: number, to: number, seed = 5): Float32Array => {
  const random = prng(seed + from)
  const out = new Float32Array((to - from) * dim)
  for (let t = from; t < to; t++) {
    const topic = Math.floor(t / 400)
    for (let k = 0; k < dim; k++) out[(t - from) * dim + k] = Math.cos(topic * 2.3 + k * 0.7) + random()
  }
  return out
}

/** What the loop decided at one append: the working context after it and the events it emitted. */
export interface Step {
  readonly context: WorkingContext.WorkingContext
  readonly events: ReadonlyArray<Focus.FocusEvent>
  readonly violations: number
}

/** Runs the synthetic history through a `Focus` built from the ports in context, recording every step. */
export const syntheticRun = Effect.gen(function* () {
  const focus = yield* Focus.make({ dim, budget, strategy: "greedy" })
  const steps: Array<Step> = []
  for (let t = 0; t < tokens; t += 32) {
    const events = yield* focus.append(synthetic(t, Math.min(tokens, t + 32)))
    const context = yield* focus.context
    const violations = Invariants.check(context, { budget, recentTokens: focus.options.recentTokens }).length
    steps.push({ context, events, violations })
  }
  return { steps, snapshot: yield* focus.snapshot }
})
