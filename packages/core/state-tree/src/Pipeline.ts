/**
 * The SLOP optimisation pipeline — Filter → Truncate → Compact → Window — that right-sizes a state tree for one
 * consumer's request. Pure and synchronous.
 *
 * @since 0.1.0
 */
import { TokenCounter } from "@heed/schema"
import * as Schema from "effect/Schema"
import { compactionScore, plan } from "./internal/plan.ts"
import type { QueryWindow } from "./internal/shapes.ts"
import { buildView, sliceWindow, windowRange } from "./internal/shapes.ts"
import type { Work } from "./internal/workTree.ts"
import { STUB, settle, workFor } from "./internal/workTree.ts"
import type { Node } from "./Node.ts"
import { find } from "./Node.ts"
import * as Render from "./Render.ts"

/**
 * The filter of a request: keep nodes with `salience >= min_salience` (missing salience counts as `0.5`) and whose
 * type is in `types`. With `keep_ancestors`, a node that fails the filter but has matching descendants stays as a
 * stub (`id`, `type`, `meta`) holding the path to them.
 *
 * @category models
 * @since 0.1.0
 */
export interface Filter {
  readonly min_salience?: number | undefined
  readonly types?: ReadonlyArray<string> | undefined
  readonly keep_ancestors?: boolean | undefined
}

/**
 * A consumer's request, in SLOP wire names (the fields of `subscribe` and `query`).
 *
 * - `path`: the subtree to serve (`"/"` by default);
 * - `depth`: levels below the path (`0` = the node only, `-1` = unlimited, the default);
 * - `max_nodes`: node budget; `max_tokens`: budget on the {@link Render.text} output;
 * - `filter`: see {@link Filter};
 * - `window`: `[offset, count]` slice of the served node's children.
 *
 * @category models
 * @since 0.1.0
 */
export interface Request {
  readonly path?: string | undefined
  readonly depth?: number | undefined
  readonly max_nodes?: number | undefined
  readonly max_tokens?: number | undefined
  readonly filter?: Filter | undefined
  readonly window?: readonly [number, number] | undefined
}

/**
 * Provider-side settings: `maxNodes` and `maxDepth` are ceilings (the more restrictive of request and ceiling wins;
 * a request depth of `-1` does not lift `maxDepth`); `countTokens` counts `max_tokens` (o200k by default).
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly maxNodes?: number | undefined
  readonly maxDepth?: number | undefined
  readonly countTokens?: ((text: string) => number) | undefined
}

/**
 * Raised by {@link optimize} when `request.path` names no node. Check with `Node.find` first to avoid it.
 *
 * @category errors
 * @since 0.1.0
 */
export class PathNotFound extends Schema.TaggedError<PathNotFound>()("PathNotFound", {
  path: Schema.String,
  message: Schema.String
}) {}

/**
 * The compaction score of a node: `salience − depth × 0.01 − descendants × 0.001` (SLOP's formula). Lower scores
 * are collapsed first.
 *
 * @category combinators
 * @since 0.1.0
 */
export const score: (salience: number, depth: number, descendants: number) => number = compactionScore

// Planning token budgets: see `internal/tokenCosts.ts` for how lines are costed and `internal/plan.ts` for how the
// planner decides on lower bounds and counts only the lines a decision depends on.

/** Tokens kept free for the last line's missing newline when planning with o200k. */
const LAST_LINE_MARGIN = 2

/** Extra plans tried to give back budget once a shrunken plan fits (query windows, non-additive counters). */
const MAX_BISECTIONS = 6

const finiteBudget = (value: number | undefined): number =>
  value === undefined || !Number.isFinite(value) ? Infinity : Math.max(0, Math.floor(value))

/**
 * Resolves the effective budget: the smaller of the request's `max_nodes` and the provider's `maxNodes`, whichever
 * are set (`undefined` when neither is).
 *
 * @category getters
 * @since 0.1.0
 */
export const nodeBudget = (request: Request, options: Options = {}): number | undefined => {
  const a = request.max_nodes
  const b = options.maxNodes
  if (a === undefined) return b
  if (b === undefined) return a
  return Math.min(a, b)
}

/**
 * Resolves the effective depth: the request's depth when non-negative, capped by the provider's `maxDepth`; a
 * missing or negative request depth falls back to `maxDepth` (or `-1`, unlimited).
 *
 * @category getters
 * @since 0.1.0
 */
export const effectiveDepth = (request: Request, options: Options = {}): number => {
  const requested = request.depth
  const ceiling = options.maxDepth !== undefined && options.maxDepth >= 0 ? options.maxDepth : undefined
  if (requested === undefined || requested < 0) return ceiling ?? -1
  return ceiling === undefined ? requested : Math.min(requested, ceiling)
}

/**
 * Right-sizes `tree` for one request, running only the steps whose parameters are present, in SLOP's mandatory
 * order:
 *
 * 1. **Filter** (`filter`): drop children below `min_salience` (missing = `0.5`) or not in `types`, with their
 *    subtrees; the root is never filtered. A parent that lost children gets `meta.total_children` (the original
 *    count) and `meta.filtered` (how many it hid). `keep_ancestors` keeps stubs leading to matching descendants.
 * 2. **Truncate** (`depth`): nodes at the depth limit that still have children become depth stubs
 *    `{ id, type, meta: { ...meta, total_children } }`; leaves stay whole.
 * 3. **Compact** (`max_nodes`, `max_tokens`): collapse subtrees by ascending {@link score} into compacted nodes
 *    (`properties` and `affordances` kept, `meta.total_children` and a default `"{N} children"` summary). Root
 *    children, pinned subtrees and ancestors of pinned nodes are never collapsed. When candidates run out, child
 *    lists are windowed, lowest mean salience first (deeper lists first on ties), keeping their first N children
 *    (`meta.window: [0, N]`), so the budget is met whenever pinned subtrees allow it; a last pass gives back, in
 *    order, children that still fit. A list holding a pinned node is never windowed.
 * 4. **Window** (`window`): slice the served node's children; `meta.window` is the requested window and
 *    `meta.total_children` the original child count.
 *
 * `max_tokens` bounds the {@link Render.text} output as counted by `options.countTokens` (o200k by default).
 * Unchanged subtrees are shared with the input, not copied.
 *
 * Throws {@link PathNotFound} when `request.path` names no node.
 *
 * **Example** (A budgeted view)
 *
 * ```ts
 * import { Pipeline } from "@heed/state-tree"
 *
 * const view = Pipeline.optimize(tree, { depth: 3, filter: { min_salience: 0.3 }, max_nodes: 200 })
 * ```
 *
 * @category combinators
 * @since 0.1.0
 */
export const optimize = (tree: Node, request: Request, options: Options = {}): Node => {
  const path = request.path ?? "/"
  const root = find(tree, path)
  if (root === undefined) {
    throw new PathNotFound({ path, message: `no node at path "${path}": check the ids along the path` })
  }
  const depth = effectiveDepth(request, options)
  const filter = request.filter
  const filtering = filter !== undefined && (filter.min_salience !== undefined || filter.types !== undefined)
  const maxNodes = finiteBudget(nodeBudget(request, options))
  const maxTokens = finiteBudget(request.max_tokens)
  if (!filtering && depth < 0 && maxNodes === Infinity && maxTokens === Infinity) {
    return request.window === undefined ? root : sliceWindow(root, request.window)
  }
  const work = workFor(root, depth, filtering ? filter : undefined)
  const count = maxTokens < Infinity ? (options.countTokens ?? TokenCounter.countO200k) : undefined
  return fit(work, maxNodes, maxTokens, count, queryWindow(work, request.window))
}

// The window applies to the root's list as served (after the filter), and only when the root shows children: a
// depth stub or a root without children is served as it is.
const queryWindow = (work: Work, window: readonly [number, number] | undefined): QueryWindow | undefined => {
  if (window === undefined) return undefined
  settle(work, 0)
  return work.kind[0] === STUB || work.childCount[0] === 0
    ? undefined
    : { range: windowRange(work.childCount[0]!, window), requested: window }
}

// Plans and builds the view. Unit costs are exact for o200k, but the plan does not count the "(showing N of M)" line
// a query window adds; other counters need not be additive. Then the real text is measured: while it is over, the
// planning budget shrinks (faster each time), then a short bisection between the largest budget that fit and the
// smallest that did not gives back what it can.
const fit = (
  work: Work,
  maxNodes: number,
  maxTokens: number,
  count: ((text: string) => number) | undefined,
  query: QueryWindow | undefined
): Node => {
  let tokenBudget = count === TokenCounter.countO200k ? Math.max(0, maxTokens - LAST_LINE_MARGIN) : maxTokens
  const measure = count !== undefined && (count !== TokenCounter.countO200k || query !== undefined)
  let out: Node
  let fitted: Node | undefined
  let low = -1
  let high = Infinity
  let bisections = 0
  for (let attempt = 0; ; attempt++) {
    const { collapsed, keep } = plan(work, maxNodes, tokenBudget, count, query?.range)
    out = buildView(work, 0, collapsed, keep, query)
    if (!measure) break
    const measured = count!(Render.text(out))
    if (measured <= maxTokens) {
      fitted = out
      low = tokenBudget
    } else {
      high = tokenBudget
      if (tokenBudget === 0) break
    }
    if (high === Infinity || high - low <= 1 || (low >= 0 && ++bisections > MAX_BISECTIONS)) break
    tokenBudget =
      low < 0 ? Math.max(0, tokenBudget - (measured - maxTokens) * 2 ** attempt) : Math.floor((low + high) / 2)
  }
  return fitted ?? out
}
