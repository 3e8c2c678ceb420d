/**
 * Focus allocators: turn one signed score per working-context entry into expand and collapse edits
 * within a budget. `greedy` follows the MegaContext seed (alternating queues, per-action budget check,
 * opposite-action cooldowns) but always terminates; `optimal` is an exact DP with an LP bound;
 * `stochastic` is a seeded exploration variant; `relieve` collapses under budget pressure.
 *
 * @since 0.1.0
 */
import { byRank, emptyCooldowns, fail, finish, validate } from "./internal/allocation.ts"
import { collect, Heap, type RawCandidate, Touched } from "./internal/core.ts"
import * as Optimal from "./internal/optimal.ts"
import * as Pressure from "./internal/pressure.ts"
import * as SeededRandom from "./SeededRandom.ts"
import type { WorkingContext } from "./WorkingContext.ts"

export { AllocatorInputError, defaults, resolveConfig } from "./internal/allocation.ts"

/**
 * Allocator configuration. Only `budget` (in entries) is required; the defaults follow the seed:
 * `tauExpand = 0.2`, `tauCollapse = 0.2`, `maxActions = 4`, `cooldownSteps = 2`, `recentTokens = 128`.
 *
 * @category models
 * @since 0.1.0
 */
export interface Config {
  /** Most entries the working context may hold (W_max). */
  readonly budget: number
  /** Expand when `score > tauExpand` (strict). */
  readonly tauExpand?: number | undefined
  /** Collapse when the mean score of the siblings is `< -tauCollapse` (strict). */
  readonly tauCollapse?: number | undefined
  /** Most edits one call applies (N_diff). */
  readonly maxActions?: number | undefined
  /** Calls during which the opposite action on a gist stays blocked. */
  readonly cooldownSteps?: number | undefined
  /** Most recent tokens that must stay LOD0. */
  readonly recentTokens?: number | undefined
}

/**
 * A {@link Config} with every default applied.
 *
 * @category models
 * @since 0.1.0
 */
export interface ResolvedConfig {
  readonly budget: number
  readonly tauExpand: number
  readonly tauCollapse: number
  readonly maxActions: number
  readonly cooldownSteps: number
  readonly recentTokens: number
}

/**
 * The kind of an edit.
 *
 * @category models
 * @since 0.1.0
 */
export type ActionKind = "expand" | "collapse"

/**
 * One applied edit. `level` is the level of what it acts on before the action: the gist's level for an
 * expand, the children's level for a collapse. `start` is the first token of the span.
 *
 * @category models
 * @since 0.1.0
 */
export interface Action {
  readonly kind: ActionKind
  readonly level: number
  readonly start: number
}

/**
 * A cooldown: the last action applied to a gist, and for how many more calls the opposite action stays
 * blocked.
 *
 * @category models
 * @since 0.1.0
 */
export interface Cooldown {
  readonly action: ActionKind
  readonly remaining: number
}

/**
 * Cooldowns keyed by the gist involved, `"<level>:<start>"` (the expanded gist, or the gist a collapse
 * produced).
 *
 * @category models
 * @since 0.1.0
 */
export type Cooldowns = ReadonlyMap<string, Cooldown>

/**
 * A legal candidate edit (thresholds, legality masks and cooldowns already applied). `index` is the
 * working-context index of the gist (expand) or of the first sibling (collapse); `score` is the entry's
 * score (expand) or the siblings' mean (collapse); `value` is what the edit contributes to the
 * objective: the score of an expand, the magnitude of a collapse's mean.
 *
 * @category models
 * @since 0.1.0
 */
export interface Candidate {
  readonly kind: ActionKind
  readonly level: number
  readonly start: number
  readonly index: number
  readonly score: number
  readonly value: number
}

/**
 * Statistics of one allocator call.
 *
 * @category models
 * @since 0.1.0
 */
export interface Stats {
  /** Expands applied. */
  readonly expands: number
  /** Collapses applied. */
  readonly collapses: number
  /** Objective reached: sum of expand scores plus magnitudes of collapse scores. */
  readonly value: number
  /** Entries before the call. */
  readonly costBefore: number
  /** Entries after the call. */
  readonly costAfter: number
  /** Legal candidates considered (expands + collapses). */
  readonly candidates: number
}

/**
 * Statistics of {@link optimal}: also the LP upper bound on the objective and the gap
 * `bound - value` (0 when the LP relaxation is tight).
 *
 * @category models
 * @since 0.1.0
 */
export interface OptimalStats extends Stats {
  readonly bound: number
  readonly gap: number
}

/**
 * The outcome of one allocator call: the new context, the edits in application order, the cooldowns to
 * pass to the next call, and statistics.
 *
 * @category models
 * @since 0.1.0
 */
export interface Result<S extends Stats = Stats> {
  readonly context: WorkingContext
  readonly actions: ReadonlyArray<Action>
  readonly cooldowns: Cooldowns
  readonly stats: S
}

/**
 * Lists the legal candidate edits for a call: expands of gists scoring above `tauExpand`, collapses of
 * `blockSize` aligned same-level siblings (outside the recent tail) whose mean is below `-tauCollapse`,
 * minus those a cooldown blocks. Throws an {@link AllocatorInputError} on bad input.
 *
 * @category getters
 * @since 0.1.0
 */
export const candidates = (
  wc: WorkingContext,
  scores: ArrayLike<number>,
  config: Config,
  cooldowns: Cooldowns = emptyCooldowns
): { readonly expands: ReadonlyArray<Candidate>; readonly collapses: ReadonlyArray<Candidate> } => {
  const resolved = validate(wc, scores, config)
  return collect(wc, scores, resolved, cooldowns)
}

/**
 * The seed's greedy allocator with alternating queues: each turn tries the best expand (only if the
 * budget still holds after it), then the best collapse. Heads that conflict with an applied edit are
 * dropped, an expand blocked by the budget stays queued until a collapse frees room, and the loop stops
 * after `maxActions` edits or a turn without progress, so it always terminates. The budget holds after
 * every single action; nothing is trimmed from the head.
 *
 * Throws an {@link AllocatorInputError} on bad input.
 *
 * @category combinators
 * @since 0.1.0
 */
export const greedy = (
  wc: WorkingContext,
  scores: ArrayLike<number>,
  config: Config,
  cooldowns: Cooldowns = emptyCooldowns
): Result => {
  const resolved = validate(wc, scores, config)
  const { expands, collapses } = collect(wc, scores, resolved, cooldowns)
  const K = wc.blockSize
  const expandQueue = new Heap(expands)
  const collapseQueue = new Heap(collapses)
  const touched = new Touched(wc.entries.length, K)
  const applied: Array<RawCandidate> = []
  let cost = wc.entries.length
  const dropConflicting = (queue: Heap) => {
    let head = queue.peek()
    while (head !== undefined && !touched.free(head)) {
      queue.pop()
      head = queue.peek()
    }
    return head
  }
  while (applied.length < resolved.maxActions) {
    let progress = false
    const expand = dropConflicting(expandQueue)
    if (expand !== undefined && cost + K - 1 <= resolved.budget) {
      expandQueue.pop()
      touched.mark(expand)
      applied.push(expand)
      cost += K - 1
      progress = true
    }
    if (applied.length >= resolved.maxActions) break
    const collapse = dropConflicting(collapseQueue)
    if (collapse !== undefined) {
      collapseQueue.pop()
      touched.mark(collapse)
      applied.push(collapse)
      cost -= K - 1
      progress = true
    }
    if (!progress) break
  }
  return finish<Stats>(wc, applied, cooldowns, resolved, expands.length + collapses.length, {})
}

/**
 * Options for {@link stochastic}: the seed (same seed, same result), how many of the best remaining
 * candidates to sample from (default 4) and the softmax temperature over their values (default 1).
 *
 * @category models
 * @since 0.1.0
 */
export interface StochasticOptions {
  readonly seed: number
  readonly topK?: number | undefined
  readonly temperature?: number | undefined
}

/**
 * A seeded stochastic greedy for exploration: repeatedly samples one of the `topK` best remaining
 * candidates with probability `softmax(value / temperature)`, applying it when it does not overlap an
 * applied edit and (for an expand) the budget still holds after it. Budget-blocked expands wait for a
 * collapse; same thresholds, legality, cooldowns and `maxActions` as {@link greedy}. Deterministic per
 * seed.
 *
 * Throws an {@link AllocatorInputError} on bad input.
 *
 * @category combinators
 * @since 0.1.0
 */
export const stochastic = (
  wc: WorkingContext,
  scores: ArrayLike<number>,
  config: Config,
  options: StochasticOptions,
  cooldowns: Cooldowns = emptyCooldowns
): Result => {
  const resolved = validate(wc, scores, config)
  const topK = options.topK ?? 4
  const temperature = options.temperature ?? 1
  if (!Number.isInteger(topK) || topK < 1) fail(`topK must be an integer >= 1, got ${topK}`)
  if (!(temperature > 0 && Number.isFinite(temperature))) fail(`temperature must be > 0, got ${temperature}`)
  if (!Number.isFinite(options.seed)) fail(`seed must be a finite number, got ${options.seed}`)
  const { expands, collapses } = collect(wc, scores, resolved, cooldowns)
  const pool = expands.concat(collapses).sort(byRank)
  const random = SeededRandom.make(options.seed)
  const K = wc.blockSize
  const touched = new Touched(wc.entries.length, K)
  const applied: Array<RawCandidate> = []
  let cost = wc.entries.length
  // Every expand costs the same, so one that the budget blocks blocks them all until a collapse.
  let expandsBlocked = false
  const window: Array<number> = []
  const weights: Array<number> = []
  while (applied.length < resolved.maxActions) {
    window.length = 0
    for (let i = 0; i < pool.length && window.length < topK; i++) {
      if (!(expandsBlocked && pool[i]!.kind === "expand")) window.push(i)
    }
    if (window.length === 0) break
    const top = pool[window[0]!]!.value
    let total = 0
    weights.length = 0
    for (const i of window) {
      const w = Math.exp((pool[i]!.value - top) / temperature)
      weights.push(w)
      total += w
    }
    let pick = 0
    let r = random() * total
    while (pick < window.length - 1 && r >= weights[pick]!) r -= weights[pick++]!
    const at = window[pick]!
    const candidate = pool[at]!
    if (!touched.free(candidate)) {
      pool.splice(at, 1)
      continue
    }
    if (candidate.kind === "expand") {
      if (cost + K - 1 > resolved.budget) {
        expandsBlocked = true
        continue
      }
      cost += K - 1
    } else {
      cost -= K - 1
      expandsBlocked = false
    }
    pool.splice(at, 1)
    touched.mark(candidate)
    applied.push(candidate)
  }
  return finish<Stats>(wc, applied, cooldowns, resolved, expands.length + collapses.length, {})
}

/**
 * The optimal allocator: among the same legal candidates as {@link greedy} (thresholds, legality,
 * cooldowns), picks the non-overlapping set of at most `maxActions` edits that maximises the sum of
 * expand scores plus collapse magnitudes, such that the budget holds after every action (collapses are
 * applied first, then expands). Every edit moves the cost by exactly `blockSize - 1`, so an exact
 * dynamic programme over (expands, collapses) counts solves it: each collapse candidate forms a group
 * with the expand candidates inside its span (take the collapse, or some of those expands, or nothing);
 * the other expands form one free group. `stats.bound` is the LP relaxation's value (conflicts dropped)
 * and `stats.gap = bound - value`.
 *
 * Throws an {@link AllocatorInputError} on bad input.
 *
 * @category combinators
 * @since 0.1.0
 */
export const optimal = Optimal.optimal

/**
 * Options for {@link relieve}: the budget to get under and the protected recent tail (default 128).
 *
 * @category models
 * @since 0.1.0
 */
export interface RelieveConfig {
  readonly budget: number
  readonly recentTokens?: number | undefined
  readonly cooldownSteps?: number | undefined
}

/**
 * Budget pressure: collapses legal sibling groups (aligned, same level, outside the recent tail), whatever
 * their scores, until the context fits `budget` or nothing more can be collapsed. Groups whose collapse
 * a cooldown blocks come last, then lower mean scores first, then older spans first. It does not count
 * as a step: existing cooldowns are kept as they are, and each collapse it applies blocks re-expansion
 * for `cooldownSteps` calls. Use it after appends or when shrinking the budget; never trims the head.
 *
 * Throws an {@link AllocatorInputError} on bad input.
 *
 * @category combinators
 * @since 0.1.0
 */
export const relieve = Pressure.relieve

/**
 * Options for {@link fill}: the budget never to exceed, the `floor` to fill up to (default `budget`),
 * `tauCollapse` (default 0.2: gists scoring `<= -tauCollapse` are never filled in, since the allocator
 * would collapse them straight back), the protected recent tail and the cooldown length.
 *
 * @category models
 * @since 0.1.0
 */
export interface FillConfig {
  readonly budget: number
  readonly floor?: number | undefined
  readonly tauCollapse?: number | undefined
  readonly recentTokens?: number | undefined
  readonly cooldownSteps?: number | undefined
}

/**
 * Budget slack: the mirror of {@link relieve}. Expands gists (score `> -tauCollapse`, no collapse cooldown
 * on them), best score first (ties: most recent first), while the cost is below `floor` and the budget
 * still holds after the expand. It works in passes: children inherit their parent's score and are
 * considered in the next pass, so it can go down several levels. Use it to keep utilisation up
 * when the scores ask for little (MegaContext's rebuild fills the budget the same way). It does not count
 * as a step: existing cooldowns are kept, and each expand blocks re-collapse for `cooldownSteps` calls.
 *
 * Throws an {@link AllocatorInputError} on bad input.
 *
 * @category combinators
 * @since 0.1.0
 */
export const fill = Pressure.fill

/**
 * Expand and collapse thresholds.
 *
 * @category models
 * @since 0.1.0
 */
export interface Thresholds {
  readonly tauExpand: number
  readonly tauCollapse: number
}

/**
 * Options for {@link adaptThresholds}: an allocator {@link Config} (only its `budget` is used) plus the
 * utilisation band (default 0.8 to 0.95), the factors (default 0.95 down, 1.05 up) and the clamp on the
 * result (default [0.01, 0.99]).
 *
 * @category models
 * @since 0.1.0
 */
export interface AdaptConfig extends Config {
  readonly low?: number | undefined
  readonly high?: number | undefined
  readonly down?: number | undefined
  readonly up?: number | undefined
  readonly min?: number | undefined
  readonly max?: number | undefined
}

/**
 * The seed's adaptive thresholds. `history` holds the entries used at recent steps: if their average is
 * below `0.8 · budget`, `tauExpand *= 0.95` (expand more); above `0.95 · budget`, `tauExpand *= 1.05`;
 * `tauCollapse` mirrors `tauExpand`. An empty history changes nothing; results are clamped to
 * [0.01, 0.99] so thresholds never collapse to 0 or exceed the score range.
 *
 * @category combinators
 * @since 0.1.0
 */
export const adaptThresholds = (
  history: ReadonlyArray<number>,
  thresholds: Thresholds,
  config: AdaptConfig
): Thresholds => {
  if (history.length === 0 || !(config.budget > 0)) return thresholds
  let sum = 0
  for (const used of history) sum += used
  const average = sum / history.length
  let tau = thresholds.tauExpand
  if (average < (config.low ?? 0.8) * config.budget) tau *= config.down ?? 0.95
  else if (average > (config.high ?? 0.95) * config.budget) tau *= config.up ?? 1.05
  tau = Math.min(config.max ?? 0.99, Math.max(config.min ?? 0.01, tau))
  return { tauExpand: tau, tauCollapse: tau }
}
