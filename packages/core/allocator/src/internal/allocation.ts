/**
 * What every allocator shares: the defaults, input validation (an {@link AllocatorInputError} naming the first
 * bad field, thrown) and the result of a set of applied edits.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import type { Action, Config, Cooldowns, ResolvedConfig, Result, Stats } from "../Allocator.ts"
import { check } from "../Invariants.ts"
import type { WorkingContext } from "../WorkingContext.ts"
import { applyEdits, type CooldownState, nextCooldowns, type RawCandidate } from "./core.ts"

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
 * Raised (thrown by the synchronous allocators) when the context, the scores or the configuration are
 * unusable. The message names what is wrong; nothing is modified.
 *
 * @category errors
 * @since 0.1.0
 */
export class AllocatorInputError extends Schema.TaggedError<AllocatorInputError>()("AllocatorInputError", {
  message: Schema.String
}) {}

export const fail = (message: string): never => {
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

export const validate = (wc: WorkingContext, scores: ArrayLike<number>, config: Config): ResolvedConfig => {
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

export const emptyCooldowns: Cooldowns = new Map()

/** Best first: higher value, then more recent (the order of `better`). */
export const byRank = (a: RawCandidate, b: RawCandidate): number => b.value - a.value || b.start - a.start

export const toAction = (edit: RawCandidate): Action => ({ kind: edit.kind, level: edit.level, start: edit.start })

export const finish = <S extends Stats>(
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
