/**
 * The poll scheduler: an Effect service that owns a {@link Tracker.Tracker} and an {@link Engagement.Engagement},
 * ticks every `tick_s` on Effect's `Clock` (monotonic time), polls due targets through a caller-supplied effect, and reports
 * culture's log line and metrics.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as AttentionConfig from "./AttentionConfig.ts"
import * as Band from "./Band.ts"
import * as Engagement from "./Engagement.ts"
import * as Tracker from "./Tracker.ts"

/**
 * What a poll found: `delivered` (unread messages were handed to the agent) or `empty` (nothing unread). Both
 * count as a completed poll; the outcome is the `outcome` attribute of `culture.attention.polls`.
 *
 * @category models
 * @since 0.1.0
 */
export type PollOutcome = "delivered" | "empty"

/**
 * The result of polling one due target in a tick.
 *
 * @category models
 * @since 0.1.0
 */
export interface PollResult {
  readonly target: string
  /** The band after the poll (the `band` attribute of `culture.attention.polls`). */
  readonly band: Band.Band
  /** `failed` when the poll effect failed or died; the target stays due and is retried next tick. */
  readonly outcome: PollOutcome | "failed"
}

/**
 * Options for {@link Scheduler.make} / {@link Scheduler.layer}.
 *
 * @category models
 * @since 0.1.0
 */
export interface SchedulerOptions<E, R> {
  /** The agent's effective config (after `AttentionConfig.resolve`). */
  readonly config: AttentionConfig.AttentionConfig
  /** The agent's nick, used in logs and as the `agent` metric attribute. */
  readonly agent: string
  /**
   * Polls one target and says what it found: `delivered` or `empty` (the `outcome` attribute of
   * `culture.attention.polls`). A failure is logged and isolated: other due targets are still polled in the same tick.
   */
  readonly poll: (target: string, band: Band.Band) => Effect.Effect<PollOutcome, E, R>
  /** Targets to seed at start (the configured channels), so quiet ones are polled too. */
  readonly targets?: Iterable<string> | undefined
  /** Whether agent-level overrides were applied; reported in the startup summary line. */
  readonly override?: boolean | undefined
}

/**
 * The scheduler's interface. Stimuli work while paused (a mention still makes its target `HOT`); only polling and
 * decay stop, and decay catches up in several steps on resume.
 *
 * @category models
 * @since 0.1.0
 */
export interface SchedulerShape {
  /** The effective config. */
  readonly config: AttentionConfig.AttentionConfig
  /** A mention or DM on `target`: engages the target and moves it to `HOT`. */
  readonly direct: (target: string) => Effect.Effect<Band.Band>
  /**
   * Ambient traffic on `target`: applied only while the agent is engaged there (spoke or was mentioned within
   * `thread_window_s`); otherwise nothing happens and no target is created (`None`).
   */
  readonly ambient: (target: string) => Effect.Effect<Option.Option<Band.Band>>
  /** The agent spoke on `target` (any line, including thread replies): opens the thread window. */
  readonly outgoing: (target: string) => Effect.Effect<void>
  /** Agent-controlled attention (#355): see `Tracker.set`. */
  readonly set: (target: string, band: Band.Band, options?: Tracker.SetOptions) => Effect.Effect<Band.Band>
  /** A channel joined at runtime: seeded so it is polled even while quiet. */
  readonly join: (target: string) => Effect.Effect<Band.Band>
  /** A channel parted: dropped from the tracker, the engagement table and the `culture.attention.band` gauge. */
  readonly part: (target: string) => Effect.Effect<boolean>
  /** Stops polling and decay until {@link SchedulerShape.resume}. */
  readonly pause: Effect.Effect<void>
  /** Resumes polling. */
  readonly resume: Effect.Effect<void>
  /** Whether the scheduler is paused. */
  readonly isPaused: Effect.Effect<boolean>
  /** Runs one tick now (the loop runs it every `tick_s`); does nothing while paused. */
  readonly tick: Effect.Effect<ReadonlyArray<PollResult>>
  /** One target's state. */
  readonly get: (target: string) => Effect.Effect<Option.Option<Tracker.TargetState>>
  /** Every target's state, in insertion order. */
  readonly snapshot: Effect.Effect<ReadonlyMap<string, Tracker.TargetState>>
}

const transitionsCounter = Metric.counter("culture.attention.transitions", {
  description: "Attention band changes, by agent, target, from_band, to_band and cause",
  incremental: true
})

const pollsCounter = Metric.counter("culture.attention.polls", {
  description: "Completed attention polls, by agent, target, band and outcome (delivered or empty)",
  incremental: true
})

const bandGauge = Metric.gauge("culture.attention.band", {
  description: "Current attention band per target: 0 HOT, 1 WARM, 2 COOL, 3 IDLE"
})

/**
 * The log line of one band change, exactly as culture writes it:
 * `attention: agent=<nick> target=<T> band=<FROM>→<TO> cause=<cause>`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const transitionLine = (agent: string, transition: Tracker.Transition): string =>
  `attention: agent=${agent} target=${transition.target} band=${transition.from}\u2192${transition.to} cause=${transition.cause}`

/**
 * The outcome of a completed poll. A `poll` typed loosely (untyped callers) may return something else: `true`, a
 * positive count or a non-empty array count as `delivered`, anything else (`undefined`, `false`, `0`) as `empty`,
 * so the `outcome` attribute is always one of the two.
 */
const outcomeOf = (value: unknown): PollOutcome => {
  if (value === "delivered" || value === "empty") return value
  if (value === true || (typeof value === "number" && value > 0)) return "delivered"
  return Array.isArray(value) && value.length > 0 ? "delivered" : "empty"
}

// Monotonic seconds, as upstream uses (`time.monotonic()`): wall-clock jumps never reach the tracker.
const seconds = Effect.map(Clock.monotonicTimeNanos, (nanos) => Number(nanos) / 1e9)

/**
 * The attributed metrics of one agent's targets, cached per target: each keeps its precomputed series key, so a
 * poll does not re-hash its attributes. A parted target's entries (and its gauge series) are dropped.
 */
const targetMetrics = (agent: string) => {
  interface TargetMetrics {
    readonly gauge: Metric.Gauge<number>
    readonly polls: Map<string, Metric.Counter<number>>
  }
  const metrics = new Map<string, TargetMetrics>()
  const metricsOf = (target: string): TargetMetrics => {
    let entry = metrics.get(target)
    if (entry === undefined) {
      entry = { gauge: Metric.withAttributes(bandGauge, { agent, target }), polls: new Map() }
      metrics.set(target, entry)
    }
    return entry
  }
  const pollsOf = (target: string, band: Band.Band, outcome: PollOutcome) => {
    const { polls } = metricsOf(target)
    const key = `${band}/${outcome}`
    let counter = polls.get(key)
    if (counter === undefined) {
      counter = Metric.withAttributes(pollsCounter, { agent, target, band, outcome })
      polls.set(key, counter)
    }
    return counter
  }
  const setGauge = (target: string, band: Band.Band) => Metric.update(metricsOf(target).gauge, Band.rank(band))
  const report = (transition: Tracker.Transition) =>
    Effect.all(
      [
        Effect.logInfo(transitionLine(agent, transition)),
        Metric.update(
          Metric.withAttributes(transitionsCounter, {
            agent,
            target: transition.target,
            from_band: transition.from,
            to_band: transition.to,
            cause: transition.cause
          }),
          1
        ),
        setGauge(transition.target, transition.to)
      ],
      { discard: true }
    )
  const remove = (target: string) =>
    Effect.suspend(() => {
      const entry = metrics.get(target)
      if (entry === undefined) return Effect.void
      metrics.delete(target)
      return Metric.remove(entry.gauge)
    })
  return { pollsOf, setGauge, report, remove }
}

/**
 * One scheduler's state, shared by its operations below: the tracker and the transitions it produced since they were
 * last reported, the engagement table, the metrics, the poll with its context, and whether polling is paused.
 */
interface Core<E, R> {
  readonly options: SchedulerOptions<E, R>
  readonly context: Context.Context<R>
  readonly tracker: Tracker.Tracker
  readonly transitions: Array<Tracker.Transition>
  readonly engagement: Engagement.Engagement
  readonly metrics: ReturnType<typeof targetMetrics>
  paused: boolean
}

const makeCore = <E, R>(options: SchedulerOptions<E, R>, context: Context.Context<R>): Core<E, R> => {
  const transitions: Array<Tracker.Transition> = []
  return {
    options,
    context,
    tracker: Tracker.make(options.config, { onTransition: (transition) => transitions.push(transition) }),
    transitions,
    engagement: Engagement.make(options.config),
    metrics: targetMetrics(options.agent),
    paused: false
  }
}

const bandOf = <E, R>(core: Core<E, R>, target: string): Band.Band =>
  Option.match(core.tracker.get(target), { onNone: () => "IDLE", onSome: (state) => state.band })

/**
 * Runs a tracker call, then reports the transitions it produced. A target the call created without a transition
 * (e.g. a pinned one) gets its gauge set too.
 */
const reporting = <A, E, R>(core: Core<E, R>, f: (now: number) => A, target?: string): Effect.Effect<A> =>
  Effect.flatMap(seconds, (now) => {
    const { tracker, metrics } = core
    const sizeBefore = tracker.size
    const result = f(now)
    const produced = core.transitions.splice(0)
    const reports = Effect.forEach(produced, metrics.report, { discard: true })
    const created = target !== undefined && tracker.size > sizeBefore && produced.length === 0
    if (!created) return produced.length === 0 ? Effect.succeed(result) : Effect.as(reports, result)
    return Effect.as(metrics.setGauge(target, bandOf(core, target)), result)
  })

/** Polls one target; a failure is logged and retried next tick, a success marks the target polled and counts. */
const pollTarget = <E, R>(core: Core<E, R>, target: string, now: number) =>
  Effect.gen(function* () {
    const { options, tracker } = core
    const band = bandOf(core, target)
    const exit = yield* Effect.exit(Effect.provideContext(options.poll(target, band), core.context))
    if (Exit.isFailure(exit)) {
      yield* Effect.logWarning(
        `attention: poll failed agent=${options.agent} target=${target}; retrying next tick`,
        exit.cause
      )
      return { target, band: bandOf(core, target), outcome: "failed" } satisfies PollResult
    }
    const outcome = outcomeOf(exit.value)
    const state = tracker.get(target)
    // Parted while the poll ran: do not bring it back.
    if (Option.isNone(state)) return { target, band: "IDLE", outcome } satisfies PollResult
    tracker.markPolled(target, now)
    yield* Metric.update(core.metrics.pollsOf(target, state.value.band, outcome), 1)
    return { target, band: state.value.band, outcome } satisfies PollResult
  })

/**
 * One tick: nothing while paused; with attention enabled, decay then a poll of each due target; in legacy mode
 * (attention disabled) a poll of every tracked target.
 */
const tick = <E, R>(core: Core<E, R>): Effect.Effect<ReadonlyArray<PollResult>> =>
  Effect.suspend(() => {
    if (core.paused) return Effect.succeed([])
    const pollAll = (targets: ReadonlyArray<string>, now: number) =>
      Effect.forEach(targets, (target) => pollTarget(core, target, now))
    if (!core.options.config.enabled) {
      return Effect.flatMap(seconds, (now) => pollAll([...core.tracker.snapshot().keys()], now))
    }
    return Effect.flatMap(seconds, (now) =>
      Effect.flatMap(
        reporting(core, () => core.tracker.dueTargets(now)),
        (due) => pollAll(due, now)
      )
    )
  })

const join = <E, R>(core: Core<E, R>, target: string): Effect.Effect<Band.Band> =>
  Effect.tap(
    Effect.sync(() => core.tracker.seed(target)),
    (band) => core.metrics.setGauge(target, band)
  )

/** The service over one scheduler's state: a few lines per operation. */
const service = <E, R>(core: Core<E, R>): SchedulerShape => {
  const { tracker, engagement } = core
  return {
    config: core.options.config,
    direct: (target) =>
      reporting(
        core,
        (now) => {
          engagement.engage(target, now)
          return tracker.onDirect(target, now)
        },
        target
      ),
    ambient: (target) =>
      reporting(
        core,
        (now) => (engagement.isEngaged(target, now) ? Option.some(tracker.onAmbient(target, now)) : Option.none()),
        target
      ),
    outgoing: (target) => Effect.map(seconds, (now) => engagement.engage(target, now)),
    set: (target, band, setOptions) => reporting(core, (now) => tracker.set(target, band, now, setOptions), target),
    join: (target) => join(core, target),
    part: (target) =>
      Effect.suspend(() => {
        const engaged = engagement.forget(target)
        const known = tracker.forget(target) || engaged
        return Effect.as(core.metrics.remove(target), known)
      }),
    pause: Effect.sync(() => {
      core.paused = true
    }),
    resume: Effect.sync(() => {
      core.paused = false
    }),
    isPaused: Effect.sync(() => core.paused),
    tick: tick(core),
    get: (target) => Effect.sync(() => tracker.get(target)),
    snapshot: Effect.sync(() => tracker.snapshot())
  }
}

/** Builds the state, logs the startup summary, seeds the configured targets and forks the loop. */
const build = Effect.fnUntraced(function* <E, R>(
  options: SchedulerOptions<E, R>
): Effect.fn.Return<SchedulerShape, never, Scope.Scope | R> {
  const { config } = options
  const core = makeCore(options, yield* Effect.context<R>())
  yield* Effect.logInfo(AttentionConfig.summary(config, { override: options.override }))
  for (const target of options.targets ?? []) yield* join(core, target)
  // Legacy mode (attention disabled): poll every tracked target every `poll_interval` seconds; none when <= 0.
  const period = config.enabled ? config.tick_s : config.poll_interval
  if (period > 0) {
    yield* Effect.sleep(Duration.seconds(period)).pipe(Effect.andThen(tick(core)), Effect.forever, Effect.forkScoped)
  }
  return service(core)
})

/**
 * The attention scheduler service.
 *
 * - `Scheduler.make(options)`: builds one in the current scope: logs the startup summary
 *   (`attention: enabled=true bands=[hot=30/120 ...] override=no`), seeds `options.targets`, and forks the
 *   loop (every `tick_s` with attention enabled; every `poll_interval` in legacy mode, never when it is `<= 0`).
 * - `Scheduler.layer(options)`: the same as a layer.
 *
 * Each tick (skipped while paused) applies decay, polls the due targets one by one with `poll(target, band)`, marks
 * each successful poll and counts it in `culture.attention.polls` (`{agent, target, band, outcome}`). A failing
 * poll is logged and does not stop the other targets; it is retried next tick. Every band change is logged at INFO
 * as `attention: agent=<nick> target=<T> band=<FROM>→<TO> cause=<cause>`, counted in
 * `culture.attention.transitions` (`{agent, target, from_band, to_band, cause}`) and sets the
 * `culture.attention.band` gauge (`{agent, target}`, 0 HOT .. 3 IDLE).
 *
 * **Example** (Polling channels by attention)
 *
 * ```ts
 * import { AttentionConfig, Scheduler } from "@heed/attention-bands"
 * import { Effect, Layer } from "effect"
 *
 * const program = Effect.gen(function*() {
 *   const scheduler = yield* Scheduler.Scheduler
 *   yield* scheduler.direct("#dev") // @mention: HOT, polled every 30 s for 2 min
 * })
 *
 * const SchedulerLive = Scheduler.layer({
 *   config: AttentionConfig.defaults,
 *   agent: "spark-claude",
 *   targets: ["#dev", "#general"],
 *   poll: (target, band) => Effect.log(`poll ${target} (${band})`).pipe(Effect.as("empty" as const))
 * })
 *
 * Effect.runFork(program.pipe(Effect.provide(SchedulerLive), Effect.andThen(Effect.never)))
 * ```
 *
 * @category services
 * @since 0.1.0
 */
export class Scheduler extends Context.Service<Scheduler, SchedulerShape>()("@heed/attention-bands/Scheduler") {}

/**
 * Builds a scheduler in the current scope (its loop stops when the scope closes).
 *
 * @category constructors
 * @since 0.1.0
 */
export const make: <E, R>(options: SchedulerOptions<E, R>) => Effect.Effect<SchedulerShape, never, Scope.Scope | R> =
  build

/**
 * A layer running a scheduler for the layer's lifetime.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = <E, R>(options: SchedulerOptions<E, R>): Layer.Layer<Scheduler, never, R> =>
  Layer.effect(Scheduler, make(options))
