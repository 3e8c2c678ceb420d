/**
 * One refocus of the focus loop, as stages: the allocator rounds on fresh scores, then relief (collapse under
 * budget pressure) or fill (expand up to the utilisation floor), then the telemetry event of the step. Ages
 * travel with the entries through every edit.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Allocator from "../Allocator.ts"
import type { FocusEvent, FocusTotals, ResolvedFocusOptions } from "../Focus.ts"
import * as WorkingContext from "../WorkingContext.ts"
import { applyEdits, locate } from "./core.ts"

/** Where the entries are: the working context, each entry's age in tokens, and the cooldowns. */
export interface Placement {
  readonly wc: WorkingContext.WorkingContext
  readonly ages: Float64Array
  readonly cooldowns: Allocator.Cooldowns
}

/** Scores for every entry of a working context. */
export type Score<E> = (wc: WorkingContext.WorkingContext) => Effect.Effect<Float32Array, E>

export const percentile = (values: Float64Array, p: number): number => {
  if (values.length === 0) return 0
  const sorted = Float64Array.from(values).sort()
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!
}

export const mean = (values: ArrayLike<number>): number => {
  if (values.length === 0) return 0
  let sum = 0
  for (let i = 0; i < values.length; i++) sum += values[i]!
  return sum / values.length
}

/** Carries entry ages through actions applied one after the other (new entries start at age 0). */
const replayAges = (
  wc: WorkingContext.WorkingContext,
  actions: ReadonlyArray<Allocator.Action>,
  ages: Float64Array
): Float64Array => {
  let context = wc
  let current = ages
  for (const action of actions) {
    const step = applyEdits(context, locate(context, [action]), current)
    context = step.context
    current = step.ages!
  }
  return current
}

const tryAllocate = <A>(f: () => A): Effect.Effect<A, Allocator.AllocatorInputError> =>
  Effect.try({
    try: f,
    catch: (error) =>
      error instanceof Allocator.AllocatorInputError
        ? error
        : new Allocator.AllocatorInputError({ message: `allocator failed: ${String(error)}` })
  })

/** The placement after an allocator result, ages carried over. */
const after = (placement: Placement, result: Allocator.Result): Placement => ({
  wc: result.context,
  ages: replayAges(placement.wc, result.actions, placement.ages),
  cooldowns: result.cooldowns
})

/** The limits of one refocus: the allocator's budget (`target`), the utilisation floor and the thresholds. */
export interface Limits {
  readonly target: number
  readonly floor: number
  readonly thresholds: Allocator.Thresholds
}

/**
 * Up to `iterations` allocator rounds, each on fresh scores, stopping at a round without actions. Below the
 * utilisation floor nothing is collapsed (tauCollapse 1 admits no mean): the budget is there to be used, as
 * upstream only collapses over its soft maximum. The first round's scores and its high scorers are kept for
 * the telemetry (score statistics, focus coherence).
 */
export const allocate = <E>(opts: ResolvedFocusOptions, limits: Limits, score: Score<E>, start: Placement) =>
  Effect.gen(function* () {
    const { thresholds } = limits
    let placement = start
    let expands = 0
    let collapses = 0
    let expandedHigh = 0
    let firstScores: Float32Array = new Float32Array(0)
    const high = new Set<string>()
    for (let round = 0; round < opts.iterations; round++) {
      const { wc, cooldowns } = placement
      const scores = yield* score(wc)
      if (round === 0) {
        firstScores = scores
        for (let i = 0; i < scores.length; i++) {
          if (scores[i]! > Math.fround(thresholds.tauExpand))
            high.add(WorkingContext.key(wc.entries[i]!.level, wc.entries[i]!.start))
        }
      }
      const config: Allocator.Config = {
        budget: limits.target,
        tauExpand: thresholds.tauExpand,
        tauCollapse: wc.entries.length < limits.floor ? 1 : thresholds.tauCollapse,
        maxActions: opts.maxActions,
        cooldownSteps: opts.cooldownSteps,
        recentTokens: opts.recentTokens
      }
      const result = yield* tryAllocate(() =>
        opts.strategy === "optimal"
          ? Allocator.optimal(wc, scores, config, cooldowns)
          : Allocator.greedy(wc, scores, config, cooldowns)
      )
      placement = after(placement, result)
      for (let i = 0; i < placement.ages.length; i++) placement.ages[i]! += 1
      expands += result.stats.expands
      collapses += result.stats.collapses
      for (const action of result.actions) {
        if (action.kind === "expand" && high.has(WorkingContext.key(action.level, action.start))) expandedHigh++
      }
      if (result.actions.length === 0) break
    }
    return { placement, expands, collapses, firstScores, coherence: high.size === 0 ? 1 : expandedHigh / high.size }
  })

/** Relief over the target, or fill below the floor; nothing in between. */
export const settle = <E>(opts: ResolvedFocusOptions, limits: Limits, score: Score<E>, placement: Placement) =>
  Effect.gen(function* () {
    const { wc, cooldowns } = placement
    const common = { budget: limits.target, recentTokens: opts.recentTokens, cooldownSteps: opts.cooldownSteps }
    if (wc.entries.length > limits.target) {
      const scores = yield* score(wc)
      const result = yield* tryAllocate(() => Allocator.relieve(wc, scores, common, cooldowns))
      return { placement: after(placement, result), relief: result.actions.length, filled: 0 }
    }
    if (wc.entries.length < limits.floor) {
      const scores = yield* score(wc)
      const fill = { ...common, floor: limits.floor, tauCollapse: 1 }
      const result = yield* tryAllocate(() => Allocator.fill(wc, scores, fill, cooldowns))
      return { placement: after(placement, result), relief: 0, filled: result.actions.length }
    }
    return { placement, relief: 0, filled: 0 }
  })

/** Mean, standard deviation, minimum and maximum of the scores (all 0 without scores). */
const scoreStats = (scores: Float32Array) => {
  const scoreMean = mean(scores)
  let variance = 0
  let min = 0
  let max = 0
  for (let i = 0; i < scores.length; i++) {
    const s = scores[i]!
    variance += (s - scoreMean) ** 2
    min = i === 0 ? s : Math.min(min, s)
    max = i === 0 ? s : Math.max(max, s)
  }
  return { mean: scoreMean, std: scores.length > 0 ? Math.sqrt(variance / scores.length) : 0, min, max }
}

/** What one refocus did, for its telemetry event. */
export interface Step {
  readonly at: number
  readonly placement: Placement
  readonly totals: FocusTotals
  readonly thresholds: Allocator.Thresholds
  readonly expands: number
  readonly collapses: number
  readonly relief: number
  readonly filled: number
  readonly firstScores: Float32Array
  readonly coherence: number
}

/** The step's telemetry event, named as upstream's `focus_allocator` record. */
export const event = (opts: ResolvedFocusOptions, step: Step): FocusEvent => {
  const { wc, ages } = step.placement
  const length = wc.entries.length
  const scores = scoreStats(step.firstScores)
  return {
    type: "focus_allocator",
    at: step.at,
    step: step.totals.refocuses,
    total_tokens: wc.totalTokens,
    wc_length: length,
    num_expand: step.expands,
    num_collapse: step.collapses,
    num_relief: step.relief,
    num_fill: step.filled,
    swap_rate: length > 0 ? (step.expands + step.collapses + step.relief + step.filled) / length : 0,
    utilization: length / opts.budget,
    residency_mean: mean(ages),
    residency_p95: percentile(ages, 0.95),
    budget_compliance: 1 - step.totals.budgetViolations / step.totals.budgetChecks,
    focus_coherence: step.coherence,
    score_mean: scores.mean,
    score_std: scores.std,
    score_min: scores.min,
    score_max: scores.max,
    tau_expand: step.thresholds.tauExpand,
    tau_collapse: step.thresholds.tauCollapse
  }
}
