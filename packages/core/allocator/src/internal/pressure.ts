/**
 * Budget pressure and slack: `relieve` collapses and `fill` expands, whatever the scores' thresholds, until the
 * context fits the budget or reaches the floor (see `Allocator.relieve` and `Allocator.fill`). Both work in
 * passes over the context the previous pass produced, carrying the scores over to it.
 *
 * @since 0.1.0
 */
import type { Action, Config, Cooldowns, FillConfig, RelieveConfig, ResolvedConfig, Result } from "../Allocator.ts"
import type { WorkingContext } from "../WorkingContext.ts"
import { byRank, emptyCooldowns, fail, toAction, validate } from "./allocation.ts"
import { addCooldowns, applyEdits, type CooldownState, collect, type RawCandidate } from "./core.ts"

/** The passes so far: the context and its scores, and what was applied. */
interface Passes {
  context: WorkingContext
  scores: ArrayLike<number>
  considered: number
  value: number
  readonly actions: Array<Action>
  readonly applied: Array<RawCandidate>
}

const start = (wc: WorkingContext, scores: ArrayLike<number>): Passes => ({
  context: wc,
  scores,
  considered: 0,
  value: 0,
  actions: [],
  applied: []
})

/**
 * Applies one pass's edits and carries the scores over: a collapsed group gets its mean (the edit's score), an
 * expanded gist's children inherit its score, everything else keeps its own.
 */
const applyPass = (passes: Passes, chosen: ReadonlyArray<RawCandidate>, blockSize: number) => {
  const { context } = applyEdits(passes.context, chosen)
  const current = passes.scores
  const next = new Float64Array(context.entries.length)
  const sorted = chosen.slice().sort((a, b) => a.index - b.index)
  let src = 0
  let dst = 0
  for (const edit of sorted) {
    while (src < edit.index) next[dst++] = current[src++]!
    const copies = edit.kind === "collapse" ? 1 : blockSize
    for (let c = 0; c < copies; c++) next[dst++] = edit.score
    src += edit.kind === "collapse" ? blockSize : 1
  }
  while (src < current.length) next[dst++] = current[src++]!
  passes.scores = next
  passes.context = context
  return sorted
}

const record = (passes: Passes, edits: ReadonlyArray<RawCandidate>, value: (edit: RawCandidate) => number) => {
  for (const edit of edits) {
    passes.actions.push(toAction(edit))
    passes.applied.push(edit)
    passes.value += value(edit)
  }
}

/** The result of the passes: existing cooldowns kept, each applied edit blocking its opposite for `steps` calls. */
const result = (wc: WorkingContext, passes: Passes, cooldowns: Cooldowns, steps: number): Result => {
  const next = new Map(cooldowns as ReadonlyMap<string, CooldownState>)
  addCooldowns(next, passes.applied, steps)
  const expands = passes.applied.filter((edit) => edit.kind === "expand").length
  return {
    context: passes.context,
    actions: passes.actions,
    cooldowns: next,
    stats: {
      expands,
      collapses: passes.actions.length - expands,
      value: passes.value,
      costBefore: wc.entries.length,
      costAfter: passes.context.entries.length,
      candidates: passes.considered
    }
  }
}

export const relieve = (
  wc: WorkingContext,
  scores: ArrayLike<number>,
  config: RelieveConfig,
  cooldowns: Cooldowns = emptyCooldowns
): Result => {
  const full: Config = { budget: config.budget, recentTokens: config.recentTokens, cooldownSteps: config.cooldownSteps }
  const resolved = validate(wc, scores, full)
  // Every legal group qualifies: a mean is always < 2, and no score is > 1.
  const pressure: ResolvedConfig = { ...resolved, tauExpand: 1, tauCollapse: -2 }
  const K = wc.blockSize
  const blocked = (c: RawCandidate) => {
    const cd = cooldowns.get(`${c.level + 1}:${c.start}`)
    return cd !== undefined && cd.action === "expand" && cd.remaining > 0 ? 1 : 0
  }
  const passes = start(wc, scores)
  while (passes.context.entries.length > resolved.budget) {
    const { collapses } = collect(passes.context, passes.scores, pressure, emptyCooldowns)
    if (collapses.length === 0) break
    passes.considered += collapses.length
    collapses.sort((a, b) => blocked(a) - blocked(b) || a.score - b.score || a.start - b.start)
    const over = Math.ceil((passes.context.entries.length - resolved.budget) / (K - 1))
    record(passes, applyPass(passes, collapses.slice(0, over), K), (edit) => -edit.score)
  }
  return result(wc, passes, cooldowns, resolved.cooldownSteps)
}

export const fill = (
  wc: WorkingContext,
  scores: ArrayLike<number>,
  config: FillConfig,
  cooldowns: Cooldowns = emptyCooldowns
): Result => {
  const resolved = validate(wc, scores, {
    budget: config.budget,
    tauCollapse: config.tauCollapse,
    recentTokens: config.recentTokens,
    cooldownSteps: config.cooldownSteps
  })
  const floor = config.floor ?? resolved.budget
  if (typeof floor !== "number" || Number.isNaN(floor)) fail(`floor must be a number, got ${floor}`)
  const slack: ResolvedConfig = { ...resolved, tauExpand: -resolved.tauCollapse, tauCollapse: 2 }
  const K = wc.blockSize
  const passes = start(wc, scores)
  while (passes.context.entries.length < floor && passes.context.entries.length + K - 1 <= resolved.budget) {
    const { expands } = collect(passes.context, passes.scores, slack, cooldowns)
    if (expands.length === 0) break
    passes.considered += expands.length
    expands.sort(byRank)
    const chosen: Array<RawCandidate> = []
    let cost = passes.context.entries.length
    for (const candidate of expands) {
      if (cost >= floor || cost + K - 1 > resolved.budget) break
      chosen.push(candidate)
      cost += K - 1
    }
    applyPass(passes, chosen, K)
    // Actions in the order chosen (best first), as before.
    record(passes, chosen, (edit) => edit.score)
  }
  return result(wc, passes, cooldowns, resolved.cooldownSteps)
}
