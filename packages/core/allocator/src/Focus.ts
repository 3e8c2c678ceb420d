/**
 * The `Focus` service: the runtime loop append → refocus every `refocusEvery` tokens → up to
 * `iterations` rounds of score-and-allocate, with budget headroom for the tokens that arrive before the
 * next refocus, budget-pressure collapses, and `focus_allocator` telemetry as Effect metrics and events.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as Semaphore from "effect/Semaphore"
import * as Allocator from "./Allocator.ts"
import { Gister, type GisterError } from "./Gister.ts"
import { flattenEmbeddings } from "./internal/core.ts"
import * as Refocus from "./internal/refocus.ts"
import { LensScorer, type LensScorerError } from "./LensScorer.ts"
import type { LodTreeError, TokenEmbeddings } from "./LodTree.ts"
import * as LodTree from "./LodTree.ts"
import * as WorkingContext from "./WorkingContext.ts"

/**
 * Options of the focus loop. Required: the embedding width `dim` and the `budget` in entries. Defaults:
 * `blockSize = 32`, `maxLevel = 2`, `refocusEvery = 32` tokens, `iterations = 1` allocator rounds per
 * refocus, `strategy = "greedy"`, `adaptive = false` (seed's adaptive thresholds), `tailTokens =
 * recentTokens` (tail rows given to the scorer), `minUtilization = 0.85`, plus the
 * {@link Allocator.Config} thresholds and limits.
 *
 * Each refocus runs up to `iterations` rounds of score → allocate against `budget - refocusEvery`
 * (keeping room for the tokens appended before the next refocus, so the context never exceeds `budget`
 * as long as it can be collapsed that far); then, if still over that, {@link Allocator.relieve}; or, if
 * under the utilisation floor `minUtilization · budget`, {@link Allocator.fill} with the best gists
 * (set `minUtilization: 0` to turn filling off). While the context is under the floor, rounds apply no
 * collapses: unused budget is better spent on detail (upstream likewise collapses only over its soft
 * maximum).
 *
 * @category models
 * @since 0.1.0
 */
export interface FocusOptions {
  readonly dim: number
  readonly budget: number
  readonly blockSize?: number | undefined
  readonly maxLevel?: number | undefined
  readonly refocusEvery?: number | undefined
  readonly iterations?: number | undefined
  readonly strategy?: "greedy" | "optimal" | undefined
  readonly adaptive?: boolean | undefined
  readonly tailTokens?: number | undefined
  readonly minUtilization?: number | undefined
  readonly tauExpand?: number | undefined
  readonly tauCollapse?: number | undefined
  readonly maxActions?: number | undefined
  readonly cooldownSteps?: number | undefined
  readonly recentTokens?: number | undefined
}

/**
 * {@link FocusOptions} with every default applied.
 *
 * @category models
 * @since 0.1.0
 */
export interface ResolvedFocusOptions {
  readonly dim: number
  readonly budget: number
  readonly blockSize: number
  readonly maxLevel: number
  readonly refocusEvery: number
  readonly iterations: number
  readonly strategy: "greedy" | "optimal"
  readonly adaptive: boolean
  readonly tailTokens: number
  readonly minUtilization: number
  readonly tauExpand: number
  readonly tauCollapse: number
  readonly maxActions: number
  readonly cooldownSteps: number
  readonly recentTokens: number
}

/**
 * One `focus_allocator` event, emitted after each refocus. Field names are upstream's snake_case telemetry
 * payload (`swap_rate`, `num_expand`, `num_collapse`, `wc_length`, `utilization`, `residency_mean`,
 * `residency_p95`, `score_mean/std/min/max`) plus heed's own figures. `num_relief` and `num_fill` count the
 * budget-pressure collapses and the utilisation-floor expands; `swap_rate` is all edits per
 * working-context entry; `utilization` is entries / budget;
 * `residency_mean` and `residency_p95` are entry ages (one per appended token and per allocator round);
 * `budget_compliance` is the fraction of checks so far (after every append chunk and refocus) within
 * budget; `focus_coherence` is the share of entries scoring above `tauExpand` at the first round that got
 * expanded (1 when none did).
 *
 * @category models
 * @since 0.1.0
 */
export interface FocusEvent {
  readonly type: "focus_allocator"
  readonly at: number
  readonly step: number
  readonly total_tokens: number
  readonly wc_length: number
  readonly num_expand: number
  readonly num_collapse: number
  readonly num_relief: number
  readonly num_fill: number
  readonly swap_rate: number
  readonly utilization: number
  readonly residency_mean: number
  readonly residency_p95: number
  readonly budget_compliance: number
  readonly focus_coherence: number
  readonly score_mean: number
  readonly score_std: number
  readonly score_min: number
  readonly score_max: number
  readonly tau_expand: number
  readonly tau_collapse: number
}

/**
 * Cumulative figures of a focus loop.
 *
 * @category models
 * @since 0.1.0
 */
export interface FocusTotals {
  readonly appendedTokens: number
  readonly refocuses: number
  readonly expands: number
  readonly collapses: number
  readonly reliefCollapses: number
  readonly fillExpands: number
  readonly budgetChecks: number
  readonly budgetViolations: number
}

/**
 * A consistent view of the loop's state.
 *
 * @category models
 * @since 0.1.0
 */
export interface FocusSnapshot {
  readonly context: WorkingContext.WorkingContext
  readonly cooldowns: Allocator.Cooldowns
  readonly thresholds: Allocator.Thresholds
  readonly ages: ReadonlyArray<number>
  readonly tokensSinceRefocus: number
  readonly totals: FocusTotals
}

/**
 * Raised for unusable focus options.
 *
 * @category errors
 * @since 0.1.0
 */
export class FocusConfigError extends Schema.TaggedError<FocusConfigError>()("FocusConfigError", {
  message: Schema.String
}) {}

/**
 * Raised for unusable input to the loop (embeddings of the wrong width).
 *
 * @category errors
 * @since 0.1.0
 */
export class FocusInputError extends Schema.TaggedError<FocusInputError>()("FocusInputError", {
  message: Schema.String
}) {}

/**
 * Everything a focus operation can fail with. The state stays consistent: an append stops at the first
 * failed refocus, the tokens before it stay appended (see `snapshot.context.totalTokens`), and the failed
 * refocus is retried first on the next append.
 *
 * @category errors
 * @since 0.1.0
 */
export type FocusError = FocusInputError | LodTreeError | GisterError | LensScorerError | Allocator.AllocatorInputError

/**
 * The focus loop's interface.
 *
 * @category models
 * @since 0.1.0
 */
export interface FocusShape {
  /** The options in force, defaults applied. */
  readonly options: ResolvedFocusOptions
  /** The LOD tree (read it; do not append to it directly). */
  readonly tree: LodTree.LodTree
  /**
   * Appends token embeddings (`n · dim` floats, or one `dim`-float row per token), refocusing at every
   * `refocusEvery` boundary.
   */
  readonly append: (embeddings: TokenEmbeddings) => Effect.Effect<ReadonlyArray<FocusEvent>, FocusError>
  /** Refocuses now, whatever the token count since the last refocus. */
  readonly refocus: Effect.Effect<FocusEvent, FocusError>
  /** The current working context. */
  readonly context: Effect.Effect<WorkingContext.WorkingContext>
  /** A consistent snapshot of the state. */
  readonly snapshot: Effect.Effect<FocusSnapshot>
  /** The most recent events (up to 256), oldest first. */
  readonly events: Effect.Effect<ReadonlyArray<FocusEvent>>
}

/**
 * The loop's Effect metrics: gauges `swap_rate`, `utilization`, `residency_mean`, `residency_p95`, `budget_compliance`, `focus_coherence` (named as the upstream telemetry; updated at each refocus) and counters `focus_refocus_total`, `focus_expand_total`, `focus_collapse_total`, `focus_budget_violations_total`.
 *
 * @category constants
 * @since 0.1.0
 */
export const metrics = {
  swapRate: Metric.gauge("swap_rate", { description: "Edits per working-context entry at the last refocus" }),
  utilization: Metric.gauge("utilization", { description: "Working-context entries / budget" }),
  residencyMean: Metric.gauge("residency_mean", { description: "Mean entry age" }),
  residencyP95: Metric.gauge("residency_p95", { description: "95th percentile entry age" }),
  budgetCompliance: Metric.gauge("budget_compliance", { description: "Share of budget checks passed" }),
  focusCoherence: Metric.gauge("focus_coherence", { description: "Share of high-scoring gists expanded" }),
  refocuses: Metric.counter("focus_refocus_total", { description: "Refocus steps run" }),
  expands: Metric.counter("focus_expand_total", { description: "Expands applied" }),
  collapses: Metric.counter("focus_collapse_total", { description: "Collapses applied (including pressure)" }),
  budgetViolations: Metric.counter("focus_budget_violations_total", { description: "Budget checks failed" })
}

interface State {
  readonly wc: WorkingContext.WorkingContext
  readonly ages: Float64Array
  readonly cooldowns: Allocator.Cooldowns
  readonly thresholds: Allocator.Thresholds
  readonly sinceRefocus: number
  readonly history: ReadonlyArray<number>
  readonly totals: FocusTotals
  readonly events: ReadonlyArray<FocusEvent>
}

const isInt = (n: unknown, min: number): n is number => typeof n === "number" && Number.isInteger(n) && n >= min

const resolveOptions = (options: FocusOptions): Effect.Effect<ResolvedFocusOptions, FocusConfigError> =>
  Effect.suspend(() => {
    const bad = (message: string) => Effect.fail(new FocusConfigError({ message: `invalid focus options: ${message}` }))
    const blockSize = options.blockSize ?? 32
    const maxLevel = options.maxLevel ?? 2
    const refocusEvery = options.refocusEvery ?? 32
    const iterations = options.iterations ?? 1
    const strategy = options.strategy ?? "greedy"
    if (!isInt(options.dim, 1)) return bad(`dim must be an integer >= 1, got ${options.dim}`)
    if (!isInt(blockSize, 2)) return bad(`blockSize must be an integer >= 2, got ${blockSize}`)
    if (!isInt(maxLevel, 1)) return bad(`maxLevel must be an integer >= 1, got ${maxLevel}`)
    if (!isInt(refocusEvery, 1)) return bad(`refocusEvery must be an integer >= 1, got ${refocusEvery}`)
    if (!isInt(iterations, 1)) return bad(`iterations must be an integer >= 1, got ${iterations}`)
    if (strategy !== "greedy" && strategy !== "optimal") return bad(`strategy must be "greedy" or "optimal"`)
    let config: Allocator.ResolvedConfig
    try {
      config = Allocator.resolveConfig(options)
    } catch (error) {
      return bad(error instanceof Allocator.AllocatorInputError ? error.message : String(error))
    }
    const tailTokens = options.tailTokens ?? (config.recentTokens > 0 ? config.recentTokens : blockSize)
    if (!isInt(tailTokens, 1)) return bad(`tailTokens must be an integer >= 1, got ${tailTokens}`)
    const minUtilization = options.minUtilization ?? 0.85
    if (!(typeof minUtilization === "number" && minUtilization >= 0 && minUtilization <= 1)) {
      return bad(`minUtilization must be a number in [0, 1], got ${minUtilization}`)
    }
    const minimum = refocusEvery + config.recentTokens + 2 * blockSize
    if (config.budget < minimum) {
      return bad(
        `budget ${config.budget} is too small: it must be at least refocusEvery + recentTokens + 2 · blockSize = ${minimum}`
      )
    }
    return Effect.succeed({
      dim: options.dim,
      budget: config.budget,
      blockSize,
      maxLevel,
      refocusEvery,
      iterations,
      strategy,
      adaptive: options.adaptive ?? false,
      tailTokens,
      minUtilization,
      tauExpand: config.tauExpand,
      tauCollapse: config.tauCollapse,
      maxActions: config.maxActions,
      cooldownSteps: config.cooldownSteps,
      recentTokens: config.recentTokens
    })
  })

/** Publishes a refocus to the Effect metrics and the debug log. */
const publish = (event: FocusEvent, budget: number) =>
  Effect.gen(function* () {
    yield* Metric.update(metrics.swapRate, event.swap_rate)
    yield* Metric.update(metrics.utilization, event.utilization)
    yield* Metric.update(metrics.residencyMean, event.residency_mean)
    yield* Metric.update(metrics.residencyP95, event.residency_p95)
    yield* Metric.update(metrics.budgetCompliance, event.budget_compliance)
    yield* Metric.update(metrics.focusCoherence, event.focus_coherence)
    yield* Metric.update(metrics.refocuses, 1)
    yield* Metric.update(metrics.expands, event.num_expand + event.num_fill)
    yield* Metric.update(metrics.collapses, event.num_collapse + event.num_relief)
    if (event.wc_length > budget) yield* Metric.update(metrics.budgetViolations, 1)
    yield* Effect.logDebug("focus_allocator").pipe(Effect.annotateLogs({ ...event }))
  })

/** The state of a loop over an empty history. */
const initialState = (opts: ResolvedFocusOptions): State => ({
  wc: WorkingContext.fromTokens(0, opts),
  ages: new Float64Array(0),
  cooldowns: new Map(),
  thresholds: { tauExpand: opts.tauExpand, tauCollapse: opts.tauCollapse },
  sinceRefocus: 0,
  history: [],
  totals: {
    appendedTokens: 0,
    refocuses: 0,
    expands: 0,
    collapses: 0,
    reliefCollapses: 0,
    fillExpands: 0,
    budgetChecks: 0,
    budgetViolations: 0
  },
  events: []
})

const checkBudget = (budget: number, totals: FocusTotals, wc: WorkingContext.WorkingContext): FocusTotals => ({
  ...totals,
  budgetChecks: totals.budgetChecks + 1,
  budgetViolations: totals.budgetViolations + (wc.entries.length > budget ? 1 : 0)
})

/** Scores every entry of a working context with the scorer, from the tree's entries and its recent tail. */
const scoreWith =
  (opts: ResolvedFocusOptions, tree: LodTree.LodTree, scorer: LensScorer["Service"]) =>
  (wc: WorkingContext.WorkingContext) =>
    Effect.gen(function* () {
      const entries = yield* tree.gather(wc.entries)
      const n = wc.entries.length
      const levels = new Uint8Array(n)
      const positions = new Float64Array(n)
      for (let i = 0; i < n; i++) {
        levels[i] = wc.entries[i]!.level
        positions[i] = wc.entries[i]!.start
      }
      const tail = tree.tokens(wc.totalTokens - opts.tailTokens, wc.totalTokens)
      return yield* scorer.score(entries, levels, positions, tail)
    })

/** One refocus (see internal/refocus): the allocator rounds, relief or fill, then the new state and its event. */
const refocusOnce = <E>(opts: ResolvedFocusOptions, score: Refocus.Score<E>, state: Ref.Ref<State>) =>
  Effect.gen(function* () {
    const before = yield* Ref.get(state)
    const thresholds = before.thresholds
    const target = opts.budget - opts.refocusEvery
    const limits: Refocus.Limits = {
      target,
      floor: Math.min(target, Math.floor(opts.minUtilization * opts.budget)),
      thresholds
    }
    let placement: Refocus.Placement = before
    let rounds = { expands: 0, collapses: 0, firstScores: new Float32Array(0) as Float32Array, coherence: 1 }
    let settled = { relief: 0, filled: 0 }
    if (before.wc.totalTokens > 0) {
      const allocated = yield* Refocus.allocate(opts, limits, score, placement)
      const done = yield* Refocus.settle(opts, limits, score, allocated.placement)
      placement = done.placement
      const { expands, collapses, firstScores, coherence } = allocated
      rounds = { expands, collapses, firstScores, coherence }
      settled = { relief: done.relief, filled: done.filled }
    }
    const { wc } = placement
    const totals = checkBudget(
      opts.budget,
      {
        ...before.totals,
        refocuses: before.totals.refocuses + 1,
        expands: before.totals.expands + rounds.expands,
        collapses: before.totals.collapses + rounds.collapses,
        reliefCollapses: before.totals.reliefCollapses + settled.relief,
        fillExpands: before.totals.fillExpands + settled.filled
      },
      wc
    )
    const history = [...before.history, wc.entries.length].slice(-8)
    const at = yield* Clock.currentTimeMillis
    const event = Refocus.event(opts, { at, placement, totals, thresholds, ...rounds, ...settled })
    yield* Ref.set(state, {
      ...placement,
      thresholds: opts.adaptive ? Allocator.adaptThresholds(history, thresholds, { budget: target }) : thresholds,
      sinceRefocus: 0,
      history,
      totals,
      events: [...before.events, event].slice(-256)
    })
    yield* publish(event, opts.budget)
    return event
  })

/** Appends `count` tokens to the tree and the working context; every entry ages by `count`. */
const appendChunk = (
  opts: ResolvedFocusOptions,
  tree: LodTree.LodTree,
  state: Ref.Ref<State>,
  chunk: Float32Array,
  count: number
) =>
  Effect.gen(function* () {
    yield* LodTree.append(tree, chunk)
    const before = yield* Ref.get(state)
    const wc = WorkingContext.append(before.wc, count)
    const ages = new Float64Array(wc.entries.length)
    for (let i = 0; i < before.ages.length; i++) ages[i] = before.ages[i]! + count
    for (let j = 0; j < count; j++) ages[before.ages.length + j] = count - 1 - j
    const totals = checkBudget(
      opts.budget,
      { ...before.totals, appendedTokens: before.totals.appendedTokens + count },
      wc
    )
    if (wc.entries.length > opts.budget) yield* Metric.update(metrics.budgetViolations, 1)
    yield* Ref.set(state, { ...before, wc, ages, totals, sinceRefocus: before.sinceRefocus + count })
  })

/**
 * Builds a loop over an empty history, using the {@link LensScorer} and {@link Gister} in context.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (options: FocusOptions): Effect.Effect<FocusShape, FocusConfigError, LensScorer | Gister> =>
  Effect.gen(function* () {
    const opts = yield* resolveOptions(options)
    const scorer = yield* LensScorer
    const gister = yield* Gister
    const tree = yield* LodTree.make({ blockSize: opts.blockSize, maxLevel: opts.maxLevel, dim: opts.dim }).pipe(
      Effect.mapError((error) => new FocusConfigError({ message: error.message }))
    )
    const state = yield* Ref.make<State>(initialState(opts))
    const lock = yield* Semaphore.make(1)
    const refocusUnlocked = () => refocusOnce(opts, scoreWith(opts, tree, scorer), state)

    // Refocuses whenever refocusEvery tokens arrived since the last one, so a long input refocuses on the way.
    const append = (input: TokenEmbeddings): Effect.Effect<ReadonlyArray<FocusEvent>, FocusError> =>
      Semaphore.withPermits(
        lock,
        1,
        Effect.gen(function* () {
          const embeddings = flattenEmbeddings(input, opts.dim)
          if (embeddings === undefined) {
            return yield* new FocusInputError({
              message: `embeddings must be a Float32Array whose length is a multiple of dim ${opts.dim}, or an array of Float32Arrays of dim ${opts.dim} floats each`
            })
          }
          const n = embeddings.length / opts.dim
          const events: Array<FocusEvent> = []
          let offset = 0
          for (;;) {
            const current = yield* Ref.get(state)
            if (current.sinceRefocus >= opts.refocusEvery) {
              events.push(yield* refocusUnlocked())
              continue
            }
            if (offset >= n) break
            const take = Math.min(n - offset, opts.refocusEvery - current.sinceRefocus)
            const chunk = embeddings.subarray(offset * opts.dim, (offset + take) * opts.dim)
            yield* appendChunk(opts, tree, state, chunk, take).pipe(Effect.provideService(Gister, gister))
            offset += take
          }
          return events
        })
      )

    return {
      options: opts,
      tree,
      append,
      refocus: Semaphore.withPermits(lock, 1, refocusUnlocked()),
      context: Effect.map(Ref.get(state), (s) => s.wc),
      snapshot: Effect.map(
        Ref.get(state),
        (s): FocusSnapshot => ({
          context: s.wc,
          cooldowns: s.cooldowns,
          thresholds: s.thresholds,
          ages: Array.from(s.ages),
          tokensSinceRefocus: s.sinceRefocus,
          totals: s.totals
        })
      ),
      events: Effect.map(Ref.get(state), (s) => s.events)
    } satisfies FocusShape
  })

/**
 * The focus loop service. `Focus.layer(options)` builds it from the {@link LensScorer} and {@link Gister}
 * in context; `Focus.make(options)` builds an instance directly; `Focus.metrics` are its Effect metrics.
 *
 * **Example** (A focus loop with the reference ports)
 *
 * ```ts
 * import { Focus, Gister, LensScorer } from "@heed/allocator"
 * import { Effect, Layer } from "effect"
 *
 * const FocusLive = Focus.layer({ dim: 64, budget: 2048 }).pipe(
 *   Layer.provide(Layer.merge(LensScorer.layerAnalytic({ maxLevel: 2 }), Gister.layerMeanPool))
 * )
 * const program = Effect.gen(function*() {
 *   const focus = yield* Focus.Focus
 *   yield* focus.append(new Float32Array(64 * 100))
 *   return (yield* focus.context).entries.length
 * }).pipe(Effect.provide(FocusLive))
 * ```
 *
 * @category services
 * @since 0.1.0
 */
export class Focus extends Context.Service<Focus, FocusShape>()("@heed/allocator/Focus") {}

/**
 * A layer for the given options.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options: FocusOptions): Layer.Layer<Focus, FocusConfigError, LensScorer | Gister> =>
  Layer.effect(Focus, make(options))
