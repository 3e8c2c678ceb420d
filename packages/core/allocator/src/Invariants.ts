/**
 * The working-context invariants: budget, contiguity, full coverage, block alignment, level bounds and
 * the LOD0 recent tail. `check` lists every violation instead of stopping at the first.
 *
 * @since 0.1.0
 */
import type { WorkingContext } from "./WorkingContext.ts"

/**
 * The invariant a {@link Violation} breaks.
 *
 * @category models
 * @since 0.1.0
 */
export type ViolationKind = "shape" | "budget" | "contiguity" | "coverage" | "alignment" | "level" | "recentTail"

/**
 * One broken invariant. `index` is the offending entry, or `-1` for a whole-context violation.
 *
 * @category models
 * @since 0.1.0
 */
export interface Violation {
  readonly kind: ViolationKind
  readonly index: number
  readonly message: string
}

/**
 * Options for {@link check}: the budget in entries and the protected recent tail in tokens (default 0).
 *
 * @category models
 * @since 0.1.0
 */
export interface CheckOptions {
  readonly budget: number
  readonly recentTokens?: number | undefined
}

/**
 * First token of the protected recent tail: `max(0, totalTokens - recentTokens)`. Every entry that
 * covers a token at or after it must be LOD0.
 *
 * @category getters
 * @since 0.1.0
 */
export const tailStart = (totalTokens: number, recentTokens: number): number =>
  Math.max(0, totalTokens - Math.max(0, recentTokens))

/**
 * Lists every invariant the working context breaks (empty when it is valid):
 *
 * - `shape`: `blockSize` an integer ≥ 2, `maxLevel` an integer ≥ 0, `totalTokens` an integer ≥ 0;
 * - `budget`: at most `budget` entries;
 * - `contiguity`: each entry starts where the previous one ends (no gap, no overlap, in order);
 * - `coverage`: the entries tile exactly `[0, totalTokens)`;
 * - `alignment`: `start % blockSize ** level === 0` (so every gist, including one a collapse produced,
 *   sits on its parent boundary);
 * - `level`: `0 ≤ level ≤ maxLevel`, an integer;
 * - `recentTail`: every entry touching the last `recentTokens` tokens is LOD0.
 *
 * @category guards
 * @since 0.1.0
 */
export const check = (wc: WorkingContext, options: CheckOptions): ReadonlyArray<Violation> => {
  const violations: Array<Violation> = []
  const { blockSize, maxLevel, totalTokens, entries } = wc
  if (!Number.isInteger(blockSize) || blockSize < 2) {
    violations.push({ kind: "shape", index: -1, message: `blockSize must be an integer >= 2, got ${blockSize}` })
    return violations
  }
  if (!Number.isInteger(maxLevel) || maxLevel < 0) {
    violations.push({ kind: "shape", index: -1, message: `maxLevel must be an integer >= 0, got ${maxLevel}` })
    return violations
  }
  if (!Number.isInteger(totalTokens) || totalTokens < 0) {
    violations.push({ kind: "shape", index: -1, message: `totalTokens must be an integer >= 0, got ${totalTokens}` })
    return violations
  }
  if (entries.length > options.budget) {
    violations.push({
      kind: "budget",
      index: -1,
      message: `the context uses ${entries.length} entries, over the budget of ${options.budget}`
    })
  }
  const tail = tailStart(totalTokens, options.recentTokens ?? 0)
  // Built by multiplication so small spans stay small integers (fast integer `%`).
  const spans: Array<number> = [1]
  for (let level = 1; level <= maxLevel; level++) spans.push(spans[level - 1]! * blockSize)
  let expected = 0
  for (let i = 0; i < entries.length; i++) {
    const { level, start } = entries[i]!
    const span = spans[level]
    if (span === undefined) {
      violations.push({ kind: "level", index: i, message: `entry ${i} has level ${level}, outside [0, ${maxLevel}]` })
      continue
    }
    if (start !== expected) {
      violations.push({
        kind: i === 0 ? "coverage" : "contiguity",
        index: i,
        message: `entry ${i} starts at token ${start} but the previous entry ends at ${expected}`
      })
    }
    if (!Number.isInteger(start) || start % span !== 0) {
      violations.push({
        kind: "alignment",
        index: i,
        message: `entry ${i} (LOD${level} at ${start}) is not aligned to its ${span}-token block`
      })
    }
    if (level > 0 && start + span > tail) {
      violations.push({
        kind: "recentTail",
        index: i,
        message: `entry ${i} (LOD${level} at ${start}) reaches into the recent tail starting at token ${tail}`
      })
    }
    expected = start + span
  }
  if (expected !== totalTokens) {
    violations.push({
      kind: "coverage",
      index: -1,
      message: `the entries cover [0, ${expected}) but the history is [0, ${totalTokens})`
    })
  }
  return violations
}

/**
 * `true` when {@link check} finds no violation.
 *
 * @category guards
 * @since 0.1.0
 */
export const isValid = (wc: WorkingContext, options: CheckOptions): boolean => check(wc, options).length === 0
