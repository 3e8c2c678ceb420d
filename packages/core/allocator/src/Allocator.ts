/**
 * Focus allocators: turn one signed score per working-context entry into expand and collapse edits
 * within a budget. `greedy` follows the MegaContext seed (alternating queues, per-action budget check,
 * opposite-action cooldowns) but always terminates; `optimal` is an exact DP with an LP bound;
 * `stochastic` is a seeded exploration variant; `relieve` collapses under budget pressure.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { check } from "./Invariants.ts"
import {
  addCooldowns,
  applyEdits,
  better,
  type CooldownState,
  collect,
  Heap,
  nextCooldowns,
  prng,
  type RawCandidate,
  Touched,
  topValues
} from "./internal/core.ts"
import type { WorkingContext } from "./WorkingContext.ts"

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
 * The defaults applied to a {@link Config}.
 *
 * @category constants
 * @since 0.1.0
 */
export const defaults = {
  tauExpand: 0.2,
  tauCollapse: 0.2,
  maxActions: 4,
  cooldownSteps: 2,
  recentTokens: 128
} as const

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
 * Raised (thrown by the synchronous allocators) when the context, the scores or the configuration are
 * unusable. The message names what is wrong; nothing is modified.
 *
 * @category errors
 * @since 0.1.0
 */
export class AllocatorInputError extends Schema.TaggedError<AllocatorInputError>()("AllocatorInputError", {
  message: Schema.String
}) {}

const fail = (message: string): never => {
  throw new AllocatorInputError({ message })
}

const isNonNegativeInteger = (n: unknown): n is number => typeof n === "number" && Number.isInteger(n) && n >= 0

/**
 * Applies the defaults and validates a configuration, throwing an {@link AllocatorInputError} naming the
 * first bad field.
 *
 * @category constructors
 * @since 0.1.0
 */
export const resolveConfig = (config: Config): ResolvedConfig => {
  const resolved = {
    budget: config.budget,
    tauExpand: config.tauExpand ?? defaults.tauExpand,
    tauCollapse: config.tauCollapse ?? defaults.tauCollapse,
    maxActions: config.maxActions ?? defaults.maxActions,
    cooldownSteps: config.cooldownSteps ?? defaults.cooldownSteps,
    recentTokens: config.recentTokens ?? defaults.recentTokens
  }
  if (!isNonNegativeInteger(resolved.budget)) fail(`budget must be an integer >= 0, got ${resolved.budget}`)
  for (const name of ["tauExpand", "tauCollapse"] as const) {
    const tau = resolved[name]
    if (typeof tau !== "number" || !(tau >= 0 && tau <= 1)) fail(`${name} must be a number in [0, 1], got ${tau}`)
  }
  for (const name of ["maxActions", "cooldownSteps", "recentTokens"] as const) {
    if (!isNonNegativeInteger(resolved[name])) fail(`${name} must be an integer >= 0, got ${resolved[name]}`)
  }
  return resolved
}

const validate = (wc: WorkingContext, scores: ArrayLike<number>, config: Config): ResolvedConfig => {
  const resolved = resolveConfig(config)
  if (scores === null || typeof scores !== "object" || typeof scores.length !== "number") {
    fail("scores must be an array or Float32Array with one score per entry")
  }
  if (scores.length !== wc.entries.length) {
    fail(`expected one score per entry (${wc.entries.length}), got ${scores.length}`)
  }
  for (let i = 0; i < scores.length; i++) {
    const s = scores[i]!
    if (!(s >= -1 && s <= 1)) fail(`score ${i} is ${s}; scores must be finite numbers in [-1, 1]`)
  }
  // Structure must be sound; a context that already has gists in the recent tail is accepted (the
  // allocators never add any there), so small hand-built contexts work with the default tail.
  const violations = check(wc, { budget: Number.POSITIVE_INFINITY, recentTokens: 0 })
  if (violations.length > 0) {
    fail(`the working context is invalid: ${violations[0]!.message} (${violations.length} violation(s))`)
  }
  return resolved
}

const emptyCooldowns: Cooldowns = new Map()

/** Best first: higher value, then more recent (the order of `better`). */
const byRank = (a: RawCandidate, b: RawCandidate): number => b.value - a.value || b.start - a.start

const toAction = (edit: RawCandidate): Action => ({ kind: edit.kind, level: edit.level, start: edit.start })

const finish = <S extends Stats>(
  wc: WorkingContext,
  applied: ReadonlyArray<RawCandidate>,
  cooldowns: Cooldowns,
  config: ResolvedConfig,
  candidates: number,
  extra: Omit<S, keyof Stats>
): Result<S> => {
  const { context } = applyEdits(wc, applied)
  let expands = 0
  let value = 0
  for (const edit of applied) {
    if (edit.kind === "expand") expands++
    value += edit.value
  }
  const stats = {
    expands,
    collapses: applied.length - expands,
    value,
    costBefore: wc.entries.length,
    costAfter: context.entries.length,
    candidates,
    ...extra
  } as S
  return {
    context,
    actions: applied.map(toAction),
    cooldowns: nextCooldowns(cooldowns as ReadonlyMap<string, CooldownState>, applied, config.cooldownSteps),
    stats
  }
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
 * @category allocators
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
 * @category allocators
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
  const random = prng(options.seed)
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

const interpolate = (values: ReadonlyArray<number>, prefix: ReadonlyArray<number>, x: number): number => {
  const whole = Math.floor(x)
  if (whole >= values.length) return prefix[values.length]!
  return prefix[whole]! + (x - whole) * values[whole]!
}

const prefixSums = (values: ReadonlyArray<number>): Array<number> => {
  const prefix = [0]
  for (const v of values) prefix.push(prefix[prefix.length - 1]! + v)
  return prefix
}

/**
 * The LP relaxation of the selection problem with conflicts dropped: at most `m` actions, and
 * (when anything is expanded) at most `sigma` more expands than collapses. `E` and `C` are expand and
 * collapse values in descending order. An upper bound on the optimum.
 *
 * @internal
 */
const lpBound = (E: ReadonlyArray<number>, C: ReadonlyArray<number>, m: number, sigma: number): number => {
  const PE = prefixSums(E)
  const PC = prefixSums(C)
  const F = (a: number) => interpolate(E, PE, a)
  const G = (b: number) => interpolate(C, PC, b)
  let best = G(Math.min(m, C.length))
  for (let a = 1; a <= Math.min(m, E.length); a++) {
    const b = Math.min(m - a, C.length)
    if (b >= a - sigma) best = Math.max(best, F(a) + G(b))
  }
  for (let b = 0; b <= Math.min(m, C.length); b++) {
    const a = Math.min(m - b, b + sigma, E.length)
    if (a > 0) best = Math.max(best, F(a) + G(b))
  }
  const va = (m + sigma) / 2
  const vb = (m - sigma) / 2
  if (va > 0 && va <= E.length && vb >= 0 && vb <= C.length) best = Math.max(best, F(va) + G(vb))
  return best
}

const topCandidates = (list: ReadonlyArray<RawCandidate>, k: number): Array<RawCandidate> => {
  const top: Array<RawCandidate> = []
  if (k <= 0) return top
  for (const candidate of list) {
    if (top.length === k && !better(candidate, top[k - 1]!)) continue
    let pos = top.length < k ? top.length : k - 1
    if (top.length < k) top.push(candidate)
    while (pos > 0 && better(candidate, top[pos - 1]!)) {
      top[pos] = top[pos - 1]!
      pos--
    }
    top[pos] = candidate
  }
  return top
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
 * @category allocators
 * @since 0.1.0
 */
export const optimal = (
  wc: WorkingContext,
  scores: ArrayLike<number>,
  config: Config,
  cooldowns: Cooldowns = emptyCooldowns
): Result<OptimalStats> => {
  const resolved = validate(wc, scores, config)
  const { expands, collapses } = collect(wc, scores, resolved, cooldowns)
  const K = wc.blockSize
  const m = resolved.maxActions
  const cost0 = wc.entries.length
  const n = wc.entries.length
  // Group the expands by the collapse candidate whose span contains them.
  const groupOf = new Int32Array(n).fill(-1)
  for (let g = 0; g < collapses.length; g++) groupOf.fill(g, collapses[g]!.index, collapses[g]!.index + K)
  const inGroup: Array<Array<RawCandidate>> = collapses.map(() => [])
  const free: Array<RawCandidate> = []
  for (const e of expands) {
    const g = groupOf[e.index]!
    if (g >= 0) inGroup[g]!.push(e)
    else free.push(e)
  }
  // DP over (expands, collapses) counts; only reachable counts get cells.
  const eMax = Math.min(m, expands.length)
  const cMax = Math.min(m, collapses.length)
  const width = cMax + 1
  const cells = (eMax + 1) * width
  const items = collapses.length + 1
  const choice = new Int32Array(items * cells)
  let current = new Float64Array(cells).fill(Number.NEGATIVE_INFINITY)
  current[0] = 0
  const groupExpands: Array<Array<RawCandidate>> = []
  for (let item = 0; item < items; item++) {
    const isFree = item === 0
    const exps = topCandidates(isFree ? free : inGroup[item - 1]!, eMax)
    groupExpands.push(exps)
    const gains = prefixSums(exps.map((x) => x.value))
    const collapseValue = isFree ? 0 : collapses[item - 1]!.value
    const next = current.slice()
    const base = item * cells
    // Option 0 (nothing) is the copy above; its choice stays 0.
    for (let e = 0; e <= eMax; e++) {
      for (let c = 0; c <= cMax && e + c <= m; c++) {
        const from = current[e * width + c]!
        if (from === Number.NEGATIVE_INFINITY) continue
        if (!isFree && c < cMax && e + c + 1 <= m) {
          const to = e * width + c + 1
          const v = from + collapseValue
          if (v > next[to]!) {
            next[to] = v
            choice[base + to] = 1
          }
        }
        for (let t = 1; t <= exps.length && e + t <= eMax && e + t + c <= m; t++) {
          const to = (e + t) * width + c
          const v = from + gains[t]!
          if (v > next[to]!) {
            next[to] = v
            choice[base + to] = t + 1
          }
        }
      }
    }
    current = next
  }
  let bestCell = 0
  let bestValue = 0
  for (let e = 0; e <= eMax; e++) {
    for (let c = 0; c <= cMax && e + c <= m; c++) {
      const v = current[e * width + c]!
      if (v === Number.NEGATIVE_INFINITY) continue
      if (e > 0 && cost0 + (e - c) * (K - 1) > resolved.budget) continue
      if (v > bestValue) {
        bestValue = v
        bestCell = e * width + c
      }
    }
  }
  const chosenCollapses: Array<RawCandidate> = []
  const chosenExpands: Array<RawCandidate> = []
  let cell = bestCell
  for (let item = items - 1; item >= 0; item--) {
    const option = choice[item * cells + cell]!
    if (option === 1) {
      chosenCollapses.push(collapses[item - 1]!)
      cell -= 1
    } else if (option >= 2) {
      const t = option - 1
      for (let i = 0; i < t; i++) chosenExpands.push(groupExpands[item]![i]!)
      cell -= t * width
    }
  }
  chosenCollapses.sort(byRank)
  chosenExpands.sort(byRank)
  const applied = chosenCollapses.concat(chosenExpands)
  const bound = lpBound(topValues(expands, m), topValues(collapses, m), m, (resolved.budget - cost0) / (K - 1))
  let value = 0
  for (const edit of applied) value += edit.value
  return finish<OptimalStats>(wc, applied, cooldowns, resolved, expands.length + collapses.length, {
    bound,
    gap: Math.max(0, bound - value)
  })
}

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
 * @category allocators
 * @since 0.1.0
 */
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
  const actions: Array<Action> = []
  const all: Array<RawCandidate> = []
  let context = wc
  let current: ArrayLike<number> = scores
  let considered = 0
  let value = 0
  while (context.entries.length > resolved.budget) {
    const { collapses } = collect(context, current, pressure, emptyCooldowns)
    if (collapses.length === 0) break
    considered += collapses.length
    const blocked = (c: RawCandidate) => {
      const cd = cooldowns.get(`${c.level + 1}:${c.start}`)
      return cd !== undefined && cd.action === "expand" && cd.remaining > 0 ? 1 : 0
    }
    collapses.sort((a, b) => blocked(a) - blocked(b) || a.score - b.score || a.start - b.start)
    const over = Math.ceil((context.entries.length - resolved.budget) / (K - 1))
    const chosen = collapses.slice(0, over)
    const applied = applyEdits(context, chosen)
    // Scores of the new context: a collapsed group gets its mean, everything else keeps its own.
    const nextScores = new Float64Array(applied.context.entries.length)
    const sorted = chosen.slice().sort((a, b) => a.index - b.index)
    let src = 0
    let dst = 0
    for (const edit of sorted) {
      while (src < edit.index) nextScores[dst++] = current[src++]!
      nextScores[dst++] = edit.score
      src += K
    }
    while (src < current.length) nextScores[dst++] = current[src++]!
    current = nextScores
    context = applied.context
    for (const edit of sorted) {
      actions.push(toAction(edit))
      all.push(edit)
      value += -edit.score
    }
  }
  const next = new Map(cooldowns as ReadonlyMap<string, CooldownState>)
  addCooldowns(next, all, resolved.cooldownSteps)
  return {
    context,
    actions,
    cooldowns: next,
    stats: {
      expands: 0,
      collapses: actions.length,
      value,
      costBefore: wc.entries.length,
      costAfter: context.entries.length,
      candidates: considered
    }
  }
}

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
 * @category allocators
 * @since 0.1.0
 */
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
  const actions: Array<Action> = []
  const all: Array<RawCandidate> = []
  let context = wc
  let current: ArrayLike<number> = scores
  let considered = 0
  let value = 0
  while (context.entries.length < floor && context.entries.length + K - 1 <= resolved.budget) {
    const { expands } = collect(context, current, slack, cooldowns)
    if (expands.length === 0) break
    considered += expands.length
    expands.sort(byRank)
    const chosen: Array<RawCandidate> = []
    let cost = context.entries.length
    for (const candidate of expands) {
      if (cost >= floor || cost + K - 1 > resolved.budget) break
      chosen.push(candidate)
      cost += K - 1
    }
    const applied = applyEdits(context, chosen)
    // Scores of the new context: children inherit their parent's score.
    const nextScores = new Float64Array(applied.context.entries.length)
    const sorted = chosen.slice().sort((a, b) => a.index - b.index)
    let src = 0
    let dst = 0
    for (const edit of sorted) {
      while (src < edit.index) nextScores[dst++] = current[src++]!
      for (let c = 0; c < K; c++) nextScores[dst++] = edit.score
      src += 1
    }
    while (src < current.length) nextScores[dst++] = current[src++]!
    current = nextScores
    context = applied.context
    for (const edit of chosen) {
      actions.push(toAction(edit))
      all.push(edit)
      value += edit.score
    }
  }
  const next = new Map(cooldowns as ReadonlyMap<string, CooldownState>)
  addCooldowns(next, all, resolved.cooldownSteps)
  return {
    context,
    actions,
    cooldowns: next,
    stats: {
      expands: actions.length,
      collapses: 0,
      value,
      costBefore: wc.entries.length,
      costAfter: context.entries.length,
      candidates: considered
    }
  }
}

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
