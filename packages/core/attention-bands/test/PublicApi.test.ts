/**
 * Acceptance-style tests of the public API exactly as issue 4 writes it, importing only the package barrel by name.
 */
import { assert, describe, it } from "@effect/vitest"
import { AttentionConfig, Band, Engagement, Scheduler, Tracker } from "@heed/attention-bands"
import { Cause, Effect, Exit, Logger, Metric, Option, References, Schema } from "effect"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"

// ------------------------------------------------------------------------------------------------ helpers

interface Line {
  readonly level: string
  readonly text: string
}

const withLogs = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const lines: Array<Line> = []
    const logger = Logger.make(({ logLevel, message }) => {
      const parts = Array.isArray(message) ? message : [message]
      lines.push({ level: logLevel, text: parts.filter((part) => typeof part === "string").join(" ") })
    })
    const result = yield* Effect.provide(effect, Logger.layer([logger]))
    return { result, lines }
  })

const configError = <A>(effect: Effect.Effect<A, AttentionConfig.AttentionConfigError>) =>
  Effect.map(Effect.flip(effect), (error) => {
    assert.instanceOf(error, AttentionConfig.AttentionConfigError)
    assert.strictEqual(error._tag, "AttentionConfigError")
    return error.message
  })

const recorder = () => {
  const transitions: Array<Tracker.Transition> = []
  return { transitions, onTransition: (t: Tracker.Transition) => transitions.push(t) }
}

const bandIn = (tracker: Tracker.Tracker, target: string): string | undefined => tracker.snapshot().get(target)?.band

const counter = (id: string, attributes: Record<string, string>) =>
  Effect.map(Metric.snapshot, (snapshots) =>
    snapshots
      .filter((s) => s.id === id && Object.entries(attributes).every(([k, v]) => s.attributes?.[k] === v))
      .reduce((sum, s) => sum + Number((s.state as { count: number | bigint }).count), 0)
  )

const gauge = (target: string) =>
  Effect.map(Metric.snapshot, (snapshots) => {
    const found = snapshots.find((s) => s.id === "culture.attention.band" && s.attributes?.target === target)
    return found === undefined ? undefined : Number((found.state as { value: number | bigint }).value)
  })

const isolatedMetrics = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.provideService(effect, Metric.MetricRegistry, new Map())

// ------------------------------------------------------------------------------------------------ Band

describe("Band", () => {
  it("is the HOT | WARM | COOL | IDLE literal union with rank 0..3", () => {
    const all: ReadonlyArray<Band.Band> = ["HOT", "WARM", "COOL", "IDLE"]
    assert.deepStrictEqual(
      all.map((band) => Band.rank(band)),
      [0, 1, 2, 3]
    )
    assert.isTrue(Schema.is(Band.Band)("WARM"))
    assert.isFalse(Schema.is(Band.Band)("warm"))
  })

  it("warmer and cooler return the adjacent band; HOT and IDLE saturate", () => {
    assert.deepStrictEqual(
      (["HOT", "WARM", "COOL", "IDLE"] as const).map((band) => Band.warmer(band)),
      ["HOT", "HOT", "WARM", "COOL"]
    )
    assert.deepStrictEqual(
      (["HOT", "WARM", "COOL", "IDLE"] as const).map((band) => Band.cooler(band)),
      ["WARM", "COOL", "IDLE", "IDLE"]
    )
  })
})

// ------------------------------------------------------------------------------------------------ AttentionConfig

describe("AttentionConfig", () => {
  it("defaults are upstream's table: tick 5, window 1800, 30/120, 120/300, 300/600, 600/terminal", () => {
    const d = AttentionConfig.defaults
    assert.strictEqual(d.enabled, true)
    assert.strictEqual(d.tick_s, 5)
    assert.strictEqual(d.thread_window_s, 1800)
    assert.deepStrictEqual(d.bands.hot, { interval_s: 30, hold_s: 120 })
    assert.deepStrictEqual(d.bands.warm, { interval_s: 120, hold_s: 300 })
    assert.deepStrictEqual(d.bands.cool, { interval_s: 300, hold_s: 600 })
    assert.strictEqual(d.bands.idle.interval_s, 600)
    assert.isUndefined(d.bands.idle.hold_s)
  })

  it.effect("is a Schema over the snake_case keys: an upstream-shaped config decodes", () =>
    Effect.gen(function* () {
      const upstream = {
        enabled: true,
        tick_s: 5,
        thread_window_s: 1800,
        bands: {
          hot: { interval_s: 30, hold_s: 120 },
          warm: { interval_s: 120, hold_s: 300 },
          cool: { interval_s: 300, hold_s: 600 },
          idle: { interval_s: 600 }
        }
      }
      const config = yield* Schema.decodeUnknownEffect(AttentionConfig.AttentionConfig)(upstream)
      assert.strictEqual(config.bands.warm.interval_s, 120)
      assert.deepStrictEqual(config.pinned, {})
      assert.strictEqual(config.poll_interval, 60)
      const withLegacy = yield* Schema.decodeUnknownEffect(AttentionConfig.AttentionConfig)({
        ...upstream,
        poll_interval: 45
      })
      assert.strictEqual(withLegacy.poll_interval, 45)
      // The schema checks the validation rules too.
      const broken = { ...upstream, tick_s: 60 }
      assert.isTrue(Option.isNone(Schema.decodeUnknownOption(AttentionConfig.AttentionConfig)(broken)))
    })
  )

  it.effect("the Schema drops an IDLE hold_s with a warning too, and fills every missing key with its default", () =>
    Effect.gen(function* () {
      const { lines, result } = yield* withLogs(
        Schema.decodeUnknownEffect(AttentionConfig.AttentionConfig)({
          bands: { ...AttentionConfig.defaults.bands, idle: { interval_s: 900, hold_s: 60 } }
        })
      )
      assert.deepStrictEqual(result.bands.idle, { interval_s: 900 })
      assert.deepStrictEqual(
        lines.map((line) => line.level),
        ["Warn"]
      )
      assert.deepStrictEqual(
        yield* Schema.decodeUnknownEffect(AttentionConfig.AttentionConfig)({}),
        AttentionConfig.defaults
      )
    })
  )

  it.effect("decode(undefined, { legacyPollInterval }) means no attention block: the legacy migration applies", () =>
    Effect.gen(function* () {
      const c90 = yield* AttentionConfig.decode(undefined, { legacyPollInterval: 90 })
      assert.deepStrictEqual(
        [c90.bands.hot.interval_s, c90.bands.warm.interval_s, c90.bands.cool.interval_s, c90.bands.idle.interval_s],
        [30, 90, 90, 90]
      )
      assert.isTrue(c90.enabled)
      const c60 = yield* AttentionConfig.decode(undefined)
      assert.deepStrictEqual(
        [c60.bands.hot.interval_s, c60.bands.warm.interval_s, c60.bands.cool.interval_s, c60.bands.idle.interval_s],
        [30, 60, 60, 60]
      )
      // An (empty) block disables the migration.
      const block = yield* AttentionConfig.decode({}, { legacyPollInterval: 90 })
      assert.strictEqual(block.bands.idle.interval_s, 600)
    })
  )

  it.effect("a legacy poll_interval <= 0 yields enabled: false, not a failure", () =>
    Effect.gen(function* () {
      assert.isFalse((yield* AttentionConfig.decode(undefined, { legacyPollInterval: 0 })).enabled)
      assert.isFalse((yield* AttentionConfig.decode(undefined, { legacyPollInterval: -1 })).enabled)
    })
  )

  it.effect("a legacy poll_interval below tick_s clamps tick_s with a warning", () =>
    Effect.gen(function* () {
      const { lines, result } = yield* withLogs(AttentionConfig.decode(undefined, { legacyPollInterval: 3 }))
      assert.strictEqual(result.tick_s, 3)
      assert.strictEqual(result.bands.idle.interval_s, 3)
      assert.deepStrictEqual(
        lines.map((line) => line.level),
        ["Warn"]
      )
    })
  )

  it.effect("decode fails with AttentionConfigError on each validation rule", () =>
    Effect.gen(function* () {
      const monotonic = yield* configError(AttentionConfig.decode({ bands: { hot: { interval_s: 200, hold_s: 120 } } }))
      assert.include(monotonic, "monotonic")
      assert.include(
        yield* configError(AttentionConfig.decode({ bands: { hot: { interval_s: 0, hold_s: 120 } } })),
        "interval_s"
      )
      assert.include(
        yield* configError(AttentionConfig.decode({ bands: { warm: { interval_s: 120, hold_s: 0 } } })),
        "hold_s"
      )
      assert.include(yield* configError(AttentionConfig.decode({ tick_s: -1 })), "tick_s")
      assert.include(yield* configError(AttentionConfig.decode({ tick_s: 60 })), "tick_s")
      assert.include(
        yield* configError(AttentionConfig.decode({ bands: { lukewarm: { interval_s: 60, hold_s: 60 } } })),
        "unknown band name"
      )
      assert.include(
        yield* configError(AttentionConfig.decode({ pinned: { "#ops": "SCORCHING" } })),
        "unknown band name"
      )
    })
  )

  it.effect("an IDLE hold_s is dropped with Effect.logWarning", () =>
    Effect.gen(function* () {
      const { lines, result } = yield* withLogs(
        AttentionConfig.decode({ bands: { idle: { interval_s: 600, hold_s: 60 } } })
      )
      assert.isUndefined(result.bands.idle.hold_s)
      assert.strictEqual(lines.length, 1)
      assert.strictEqual(lines[0]!.level, "Warn")
      assert.include(lines[0]!.text, "hold_s")
    })
  )

  it.effect("pinned bands live in the attention block as pinned: { target: BAND }", () =>
    Effect.gen(function* () {
      const config = yield* AttentionConfig.decode({ pinned: { "#ops": "HOT" } })
      assert.deepStrictEqual(config.pinned, { "#ops": "HOT" })
    })
  )

  it.effect("resolve merges per band: a band given replaces the daemon's spec, others inherit", () =>
    Effect.gen(function* () {
      const daemon = yield* AttentionConfig.decode({ thread_window_s: 900 })
      const agent = yield* AttentionConfig.resolve(daemon, {
        tick_s: 3,
        bands: { hot: { interval_s: 15, hold_s: 60 }, idle: { interval_s: 1800 } }
      })
      assert.deepStrictEqual(agent.bands.hot, { interval_s: 15, hold_s: 60 })
      assert.deepStrictEqual(agent.bands.warm, { interval_s: 120, hold_s: 300 })
      assert.strictEqual(agent.bands.idle.interval_s, 1800)
      assert.strictEqual(agent.tick_s, 3)
      assert.strictEqual(agent.thread_window_s, 900)
      assert.strictEqual(yield* AttentionConfig.resolve(daemon, undefined), daemon)
      assert.strictEqual(yield* AttentionConfig.resolve(daemon, {}), daemon)
    })
  )

  it.effect("resolve validates the merged config and fails with AttentionConfigError", () =>
    Effect.gen(function* () {
      const daemon = AttentionConfig.defaults
      assert.include(
        yield* configError(AttentionConfig.resolve(daemon, { bands: { hot: { interval_s: 15 } } })),
        "hold_s"
      )
      assert.include(
        yield* configError(AttentionConfig.resolve(daemon, { bands: { warm: { interval_s: 20, hold_s: 60 } } })),
        "monotonic"
      )
      assert.include(
        yield* configError(AttentionConfig.resolve(daemon, { bands: { tepid: { interval_s: 20, hold_s: 60 } } })),
        "unknown band name"
      )
    })
  )
})

describe("AttentionConfig: bad input", () => {
  const band = fc.record(
    {
      interval_s: fc.oneof(fc.integer({ min: -10, max: 2000 }), fc.constant(null), fc.string()),
      hold_s: fc.anything()
    },
    { requiredKeys: [] }
  )
  const block = fc.oneof(
    fc.anything(),
    fc.record(
      {
        enabled: fc.oneof(fc.boolean(), fc.anything()),
        tick_s: fc.oneof(fc.integer({ min: -5, max: 100 }), fc.anything()),
        thread_window_s: fc.oneof(fc.integer({ min: -5, max: 4000 }), fc.anything()),
        bands: fc.oneof(
          fc.dictionary(fc.constantFrom("hot", "warm", "cool", "idle", "HOT", "tepid", "__proto__"), band),
          fc.anything()
        ),
        pinned: fc.oneof(fc.dictionary(fc.string(), fc.constantFrom("HOT", "cool", "nope")), fc.anything()),
        poll_interval: fc.oneof(fc.integer({ min: -5, max: 100 }), fc.anything())
      },
      { requiredKeys: [] }
    )
  )

  it.effect("decode and resolve never die: they succeed or fail with AttentionConfigError", () =>
    Effect.gen(function* () {
      const samples = fc.sample(fc.tuple(block, block, fc.option(fc.integer({ min: -5, max: 200 }))), 400)
      let failures = 0
      for (const [raw, overrides, legacy] of samples) {
        const options = legacy === null ? {} : { legacyPollInterval: legacy }
        const exit = yield* Effect.exit(
          AttentionConfig.decode(raw, options).pipe(
            Effect.flatMap((daemon) => AttentionConfig.resolve(daemon, overrides)),
            Effect.provideService(References.MinimumLogLevel, "None")
          )
        )
        if (Exit.isFailure(exit)) {
          failures++
          const error = Cause.findErrorOption(exit.cause)
          assert.isTrue(
            Option.isSome(error) && error.value instanceof AttentionConfig.AttentionConfigError,
            Cause.pretty(exit.cause)
          )
        }
      }
      assert.isAbove(failures, 0)
      assert.isBelow(failures, samples.length)
    })
  )
})

// ------------------------------------------------------------------------------------------------ Tracker

describe("Tracker", () => {
  it("onDirect moves to HOT and emits { target, from, to, cause: direct } only on a change", () => {
    const r = recorder()
    const tracker = Tracker.make(AttentionConfig.defaults, { onTransition: r.onTransition })
    assert.strictEqual(tracker.onDirect("#dev", 10), "HOT")
    assert.strictEqual(tracker.onDirect("#dev", 11), "HOT")
    assert.deepStrictEqual(r.transitions, [{ target: "#dev", from: "IDLE", to: "HOT", cause: "direct" }])
    const state = tracker.snapshot().get("#dev")!
    assert.strictEqual(state.lastPromoteAt, 11)
    assert.strictEqual(state.lastStimulusAt, 11)
  })

  it("make works without options, and with a hand-built upstream-shaped config (no pinned key)", () => {
    const tracker = Tracker.make(AttentionConfig.defaults)
    assert.strictEqual(tracker.onDirect("#dev", 0), "HOT")
    const { pinned: _pinned, ...upstreamShaped } = AttentionConfig.defaults
    const untyped = Tracker.make(upstreamShaped as unknown as AttentionConfig.AttentionConfig)
    assert.strictEqual(untyped.onDirect("#dev", 0), "HOT")
    assert.strictEqual(
      AttentionConfig.summary(upstreamShaped as unknown as AttentionConfig.AttentionConfig).includes("pinned"),
      false
    )
  })

  it("onAmbient steps one band warmer capped at WARM, never demotes, and always refreshes the hold", () => {
    const r = recorder()
    const tracker = Tracker.make(AttentionConfig.defaults, { onTransition: r.onTransition })
    assert.deepStrictEqual(
      [tracker.onAmbient("#a", 0), tracker.onAmbient("#a", 1), tracker.onAmbient("#a", 2)],
      ["COOL", "WARM", "WARM"]
    )
    assert.deepStrictEqual(
      r.transitions.map((t) => `${t.from}>${t.to}:${t.cause}`),
      ["IDLE>COOL:ambient", "COOL>WARM:ambient"]
    )
    assert.strictEqual(tracker.snapshot().get("#a")!.lastPromoteAt, 2)
    tracker.onDirect("#b", 0)
    assert.strictEqual(tracker.onAmbient("#b", 100), "HOT")
    // The refresh at 100 extends HOT's hold: still HOT at 220, WARM at 221.
    tracker.dueTargets(220)
    assert.strictEqual(bandIn(tracker, "#b"), "HOT")
    tracker.dueTargets(221)
    assert.strictEqual(bandIn(tracker, "#b"), "WARM")
  })

  it("decay is lazy (inside dueTargets), strict against hold, and one late check walks several bands", () => {
    const r = recorder()
    const tracker = Tracker.make(AttentionConfig.defaults, { onTransition: r.onTransition })
    tracker.onDirect("#a", 0)
    r.transitions.length = 0
    tracker.dueTargets(120)
    assert.strictEqual(bandIn(tracker, "#a"), "HOT")
    assert.strictEqual(tracker.snapshot().get("#a")!.band, "HOT")
    tracker.dueTargets(420) // 120 + 300 exactly: WARM only (the WARM hold has not strictly passed)
    assert.strictEqual(bandIn(tracker, "#a"), "WARM")
    tracker.dueTargets(1021) // past 120 + 300 + 600: two more steps in one call
    assert.strictEqual(bandIn(tracker, "#a"), "IDLE")
    assert.deepStrictEqual(
      r.transitions.map((t) => `${t.from}>${t.to}:${t.cause}`),
      ["HOT>WARM:decay", "WARM>COOL:decay", "COOL>IDLE:decay"]
    )
    assert.strictEqual(tracker.snapshot().get("#a")!.lastPromoteAt, 1020)
  })

  it("never-polled targets are always due; markPolled makes them wait their band's interval", () => {
    const tracker = Tracker.make(AttentionConfig.defaults)
    tracker.onDirect("#hot", 0)
    tracker.seed("#quiet")
    assert.deepStrictEqual(tracker.dueTargets(0), ["#hot", "#quiet"])
    assert.deepStrictEqual(tracker.dueTargets(0), ["#hot", "#quiet"])
    tracker.markPolled("#hot", 0)
    tracker.markPolled("#quiet", 0)
    assert.deepStrictEqual(tracker.dueTargets(29), [])
    assert.deepStrictEqual(tracker.dueTargets(30), ["#hot"])
    assert.isTrue(Option.isSome(tracker.snapshot().get("#hot")!.lastPollAt))
  })

  it("a backwards clock does nothing", () => {
    const r = recorder()
    const tracker = Tracker.make(AttentionConfig.defaults, { onTransition: r.onTransition })
    tracker.onDirect("#a", 1000)
    tracker.markPolled("#a", 1000)
    assert.deepStrictEqual(tracker.dueTargets(500), [])
    assert.strictEqual(bandIn(tracker, "#a"), "HOT")
    assert.strictEqual(r.transitions.length, 1)
  })

  it("seed is idempotent and forget drops a target", () => {
    const tracker = Tracker.make(AttentionConfig.defaults)
    tracker.onDirect("#a", 0)
    tracker.seed("#a")
    assert.strictEqual(bandIn(tracker, "#a"), "HOT")
    tracker.seed("#b")
    tracker.seed("#b")
    assert.strictEqual(tracker.snapshot().size, 2)
    tracker.forget("#a")
    assert.isFalse(tracker.snapshot().has("#a"))
    assert.deepStrictEqual(tracker.dueTargets(0), ["#b"])
  })

  it("set(target, band, now) is manual and decays normally from now", () => {
    const r = recorder()
    const tracker = Tracker.make(AttentionConfig.defaults, { onTransition: r.onTransition })
    assert.strictEqual(tracker.set("#a", "WARM", 10), "WARM")
    assert.deepStrictEqual(r.transitions, [{ target: "#a", from: "IDLE", to: "WARM", cause: "manual" }])
    tracker.dueTargets(310)
    assert.strictEqual(bandIn(tracker, "#a"), "WARM")
    tracker.dueTargets(311)
    assert.strictEqual(bandIn(tracker, "#a"), "COOL")
  })

  it("set with ttlS holds the band until expiry; the hold timer restarts at expiry, then decay is normal", () => {
    const r = recorder()
    const tracker = Tracker.make(AttentionConfig.defaults, { onTransition: r.onTransition })
    tracker.set("#a", "HOT", 0, { ttlS: 1000 })
    tracker.dueTargets(999)
    assert.strictEqual(bandIn(tracker, "#a"), "HOT")
    tracker.dueTargets(1120) // expiry at 1000 + HOT hold 120, not strictly passed
    assert.strictEqual(bandIn(tracker, "#a"), "HOT")
    tracker.dueTargets(1121)
    assert.strictEqual(bandIn(tracker, "#a"), "WARM")
    assert.deepStrictEqual(
      r.transitions.map((t) => `${t.from}>${t.to}:${t.cause}`),
      ["IDLE>HOT:manual", "HOT>WARM:decay"]
    )
  })

  it("a direct stimulus always wins over a manual hold", () => {
    const tracker = Tracker.make(AttentionConfig.defaults)
    tracker.set("#a", "IDLE", 0, { ttlS: 10_000 })
    tracker.onDirect("#a", 0) // creates nothing new: #a exists at IDLE
    assert.strictEqual(bandIn(tracker, "#a"), "HOT")
    tracker.set("#b", "COOL", 0, { ttlS: 10_000 })
    assert.strictEqual(tracker.onDirect("#b", 50), "HOT")
    // The manual hold is over: normal decay from the direct stimulus.
    tracker.dueTargets(171)
    assert.strictEqual(bandIn(tracker, "#b"), "WARM")
  })

  it("pinned targets start at their band and never decay", () => {
    const config = { ...AttentionConfig.defaults, pinned: { "#ops": "HOT" as const } }
    const tracker = Tracker.make(config)
    tracker.seed("#ops")
    assert.strictEqual(bandIn(tracker, "#ops"), "HOT")
    tracker.dueTargets(100_000)
    assert.strictEqual(bandIn(tracker, "#ops"), "HOT")
    tracker.onAmbient("#ops", 100_001)
    tracker.set("#ops", "IDLE", 100_002)
    assert.strictEqual(bandIn(tracker, "#ops"), "HOT")
  })
})

// ------------------------------------------------------------------------------------------------ Engagement

describe("Engagement", () => {
  it("is the thread-window predicate: spoke or was mentioned within thread_window_s, exactly the window counts", () => {
    const engagement = Engagement.make(AttentionConfig.defaults)
    assert.isFalse(engagement.isEngaged("#dev", 0))
    engagement.engage("#dev", 100)
    assert.isTrue(engagement.isEngaged("#dev", 1900))
    assert.isFalse(engagement.isEngaged("#dev", 1900.001))
    assert.isTrue(Engagement.isWithinWindow(Option.some(0), 1800, 1800))
    assert.isFalse(Engagement.isWithinWindow(Option.some(0), 1801, 1800))
    assert.isFalse(Engagement.isWithinWindow(Option.none(), 0, 1800))
    // A plain number of seconds works too.
    assert.isTrue(Engagement.isWithinWindow(0, 1800, 1800))
    assert.isFalse(Engagement.isWithinWindow(0, 1801, 1800))
    assert.isFalse(Engagement.isWithinWindow(undefined, 0, 1800))
  })
})

// ------------------------------------------------------------------------------------------------ Scheduler

const schedulerOptions = (
  polls: Array<string>,
  extra: Partial<Scheduler.SchedulerOptions<never, never>> = {}
): Scheduler.SchedulerOptions<never, never> => ({
  config: AttentionConfig.defaults,
  agent: "spark-bot",
  poll: (target: string, band: Band.Band) =>
    Effect.sync(() => {
      polls.push(`${target}@${band}`)
      return "empty" as const
    }),
  ...extra
})

describe("Scheduler", () => {
  it.effect("is a service that ticks every tick_s on Effect's Clock and polls due targets with (target, band)", () =>
    Effect.gen(function* () {
      const polls: Array<string> = []
      yield* Effect.gen(function* () {
        const scheduler: Scheduler.SchedulerShape = yield* Scheduler.Scheduler
        yield* scheduler.direct("#dev")
        yield* TestClock.adjust("4 seconds")
        assert.deepStrictEqual(polls, [])
        yield* TestClock.adjust("1 second")
        assert.deepStrictEqual(polls, ["#general@IDLE", "#dev@HOT"])
        yield* TestClock.adjust("30 seconds") // HOT polls every 30 s
        assert.deepStrictEqual(polls.slice(2), ["#dev@HOT"])
      }).pipe(
        Effect.provide(Scheduler.layer(schedulerOptions(polls, { targets: ["#general"] }))),
        withLogs,
        isolatedMetrics
      )
    })
  )

  it.effect("pause stops polling; resume restarts it", () =>
    Effect.gen(function* () {
      const polls: Array<string> = []
      yield* Effect.gen(function* () {
        const scheduler = yield* Scheduler.Scheduler
        yield* scheduler.pause
        yield* TestClock.adjust("60 seconds")
        assert.deepStrictEqual(polls, [])
        yield* scheduler.resume
        yield* TestClock.adjust("5 seconds")
        assert.deepStrictEqual(polls, ["#a@IDLE"])
      }).pipe(Effect.provide(Scheduler.layer(schedulerOptions(polls, { targets: ["#a"] }))), withLogs, isolatedMetrics)
    })
  )

  it.effect("logs culture's transition line and the startup summary the spec describes", () =>
    Effect.gen(function* () {
      const { lines } = yield* Effect.gen(function* () {
        const scheduler = yield* Scheduler.Scheduler
        yield* scheduler.direct("#dev-chat")
        yield* TestClock.adjust("125 seconds")
      }).pipe(Effect.provide(Scheduler.layer(schedulerOptions([]))), withLogs, isolatedMetrics)
      const texts = lines.map((line) => line.text)
      assert.include(texts, "attention: agent=spark-bot target=#dev-chat band=IDLE→HOT cause=direct")
      assert.include(texts, "attention: agent=spark-bot target=#dev-chat band=HOT→WARM cause=decay")
      assert.strictEqual(
        texts[0],
        "attention: enabled=true bands=[hot=30/120 warm=120/300 cool=300/600 idle=600] override=no"
      )
      assert.isTrue(lines.filter((line) => line.text.includes("band=")).every((line) => line.level === "Info"))
    })
  )

  it.effect("metrics: culture.attention.transitions, culture.attention.polls with outcome, the band gauge", () =>
    Effect.gen(function* () {
      yield* Effect.gen(function* () {
        const scheduler = yield* Scheduler.Scheduler
        yield* scheduler.direct("#dev")
        assert.strictEqual(yield* gauge("#dev"), 0)
        assert.strictEqual(yield* gauge("#quiet"), 3)
        yield* TestClock.adjust("5 seconds")
        assert.strictEqual(
          yield* counter("culture.attention.transitions", {
            agent: "spark-bot",
            target: "#dev",
            from_band: "IDLE",
            to_band: "HOT",
            cause: "direct"
          }),
          1
        )
        assert.strictEqual(
          yield* counter("culture.attention.polls", {
            agent: "spark-bot",
            target: "#dev",
            band: "HOT",
            outcome: "delivered"
          }),
          1
        )
        assert.strictEqual(
          yield* counter("culture.attention.polls", { target: "#quiet", band: "IDLE", outcome: "empty" }),
          1
        )
        yield* TestClock.adjust("120 seconds")
        assert.strictEqual(yield* gauge("#dev"), 1)
      }).pipe(
        Effect.provide(
          Scheduler.layer({
            config: AttentionConfig.defaults,
            agent: "spark-bot",
            targets: ["#quiet"],
            poll: (target: string) => Effect.succeed(target === "#dev" ? ("delivered" as const) : ("empty" as const))
          })
        ),
        withLogs,
        isolatedMetrics
      )
    })
  )

  it.effect("a poll returning something other than delivered/empty still counts with a valid outcome", () =>
    Effect.gen(function* () {
      const results = yield* Effect.gen(function* () {
        const scheduler = yield* Scheduler.Scheduler
        const tick = yield* scheduler.tick
        assert.strictEqual(yield* counter("culture.attention.polls", { target: "#void", outcome: "empty" }), 1)
        assert.strictEqual(yield* counter("culture.attention.polls", { target: "#yes", outcome: "delivered" }), 1)
        return tick
      }).pipe(
        Effect.provide(
          Scheduler.layer({
            config: AttentionConfig.defaults,
            agent: "spark-bot",
            targets: ["#void", "#yes"],
            // An untyped caller: `void` for nothing found, `true` for delivered.
            poll: ((target: string) =>
              target === "#void" ? Effect.void : Effect.succeed(true)) as unknown as Scheduler.SchedulerOptions<
              never,
              never
            >["poll"]
          })
        ),
        withLogs,
        isolatedMetrics
      )
      assert.deepStrictEqual(
        results.result.map((r) => r.outcome),
        ["empty", "delivered"]
      )
    })
  )

  it.effect("one failing poll never skips the other due targets; the failed target is retried next tick", () =>
    Effect.gen(function* () {
      const polls: Array<string> = []
      let failing = true
      yield* Effect.gen(function* () {
        yield* TestClock.adjust("5 seconds")
        assert.deepStrictEqual(polls, ["#a", "#b", "#c"])
        failing = false
        yield* TestClock.adjust("5 seconds")
        assert.deepStrictEqual(polls.slice(3), ["#b"])
        yield* TestClock.adjust("5 seconds")
        assert.strictEqual(polls.length, 4)
      }).pipe(
        Effect.provide(
          Scheduler.layer({
            config: AttentionConfig.defaults,
            agent: "spark-bot",
            targets: ["#a", "#b", "#c"],
            poll: (target: string) =>
              Effect.suspend(() => {
                polls.push(target)
                return target === "#b" && failing ? Effect.fail("boom") : Effect.succeed("empty" as const)
              })
          })
        ),
        withLogs,
        isolatedMetrics
      )
    })
  )
})
