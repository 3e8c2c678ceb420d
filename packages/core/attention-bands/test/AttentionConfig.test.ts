import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { AttentionConfig } from "../src/index.ts"
import { captureLogs } from "./logs.ts"

const intervals = (config: AttentionConfig.AttentionConfig) => [
  config.bands.hot.interval_s,
  config.bands.warm.interval_s,
  config.bands.cool.interval_s,
  config.bands.idle.interval_s
]

const failureOf = <A>(effect: Effect.Effect<A, AttentionConfig.AttentionConfigError>) =>
  Effect.map(Effect.flip(effect), (error) => {
    assert.instanceOf(error, AttentionConfig.AttentionConfigError)
    assert.strictEqual(error._tag, "AttentionConfigError")
    return error.message
  })

describe("AttentionConfig defaults", () => {
  it("the default bands have monotonic intervals and holds of 120/300/600/none", () => {
    const { bands } = AttentionConfig.defaults
    assert.deepStrictEqual(intervals(AttentionConfig.defaults), [30, 120, 300, 600])
    assert.deepStrictEqual(
      [bands.hot.hold_s, bands.warm.hold_s, bands.cool.hold_s, bands.idle.hold_s],
      [120, 300, 600, undefined]
    )
    assert.strictEqual(AttentionConfig.defaults.enabled, true)
    assert.strictEqual(AttentionConfig.defaults.tick_s, 5)
    assert.strictEqual(AttentionConfig.defaults.thread_window_s, 1800)
    assert.strictEqual(AttentionConfig.intervalOf(AttentionConfig.defaults, "COOL"), 300)
    assert.strictEqual(AttentionConfig.holdOf(AttentionConfig.defaults, "IDLE"), undefined)
  })

  it("the schema accepts the defaults and rejects a full config that breaks a rule", () => {
    assert.deepStrictEqual(
      Schema.decodeUnknownSync(AttentionConfig.AttentionConfig)(AttentionConfig.defaults),
      AttentionConfig.defaults
    )
    const broken = { ...AttentionConfig.defaults, tick_s: 60 }
    assert.throws(() => Schema.decodeUnknownSync(AttentionConfig.AttentionConfig)(broken), /tick_s/)
  })
})

describe("AttentionConfig.decode: legacy migration (no attention block)", () => {
  it.effect("poll_interval 90 gives IDLE 90 and HOT 30", () =>
    Effect.gen(function* () {
      const config = yield* AttentionConfig.decode(undefined, { legacyPollInterval: 90 })
      assert.deepStrictEqual(intervals(config), [30, 90, 90, 90])
      assert.strictEqual(config.poll_interval, 90)
      assert.strictEqual(config.enabled, true)
    })
  )

  it.effect("no poll_interval gives the legacy 60: HOT 30, WARM 60, COOL 60, IDLE 60", () =>
    Effect.gen(function* () {
      const config = yield* AttentionConfig.decode(undefined)
      assert.deepStrictEqual(intervals(config), [30, 60, 60, 60])
      assert.strictEqual(config.bands.hot.hold_s, 120)
    })
  )

  it.effect("heed differs: legacy poll_interval <= 0 means polling disabled, not a crash", () =>
    Effect.gen(function* () {
      const zero = yield* AttentionConfig.decode(undefined, { legacyPollInterval: 0 })
      assert.strictEqual(zero.enabled, false)
      assert.strictEqual(zero.poll_interval, 0)
      const negative = yield* AttentionConfig.decode(undefined, { legacyPollInterval: -1 })
      assert.strictEqual(negative.enabled, false)
    })
  )

  it.effect("heed differs: a legacy poll_interval below tick_s clamps tick_s with a warning", () =>
    Effect.gen(function* () {
      const { lines, result } = yield* captureLogs(AttentionConfig.decode(undefined, { legacyPollInterval: 3 }))
      assert.strictEqual(result.tick_s, 3)
      assert.deepStrictEqual(intervals(result), [3, 3, 3, 3])
      assert.strictEqual(lines.length, 1)
      assert.strictEqual(lines[0]!.level, "Warn")
      assert.include(lines[0]!.text, "tick_s clamped to 3")
    })
  )

  it.effect("an empty block (or null) is a block: no migration", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(
        intervals(yield* AttentionConfig.decode({}, { legacyPollInterval: 90 })),
        [30, 120, 300, 600]
      )
      assert.deepStrictEqual(intervals(yield* AttentionConfig.decode(null)), [30, 120, 300, 600])
    })
  )

  it.effect("enabled: false with poll_interval 45 keeps the legacy value", () =>
    Effect.gen(function* () {
      const config = yield* AttentionConfig.decode({ enabled: false }, { legacyPollInterval: 45 })
      assert.strictEqual(config.enabled, false)
      assert.strictEqual(config.poll_interval, 45)
      const inline = yield* AttentionConfig.decode({ enabled: false, poll_interval: 45 })
      assert.strictEqual(inline.poll_interval, 45)
    })
  )
})

describe("AttentionConfig.decode: explicit blocks", () => {
  it.effect("an explicit full block is honoured and IDLE has no hold", () =>
    Effect.gen(function* () {
      const config = yield* AttentionConfig.decode({
        enabled: true,
        tick_s: 3,
        thread_window_s: 600,
        bands: {
          hot: { interval_s: 15, hold_s: 60 },
          warm: { interval_s: 60, hold_s: 180 },
          cool: { interval_s: 180, hold_s: 360 },
          idle: { interval_s: 900 }
        }
      })
      assert.strictEqual(config.tick_s, 3)
      assert.strictEqual(config.thread_window_s, 600)
      assert.deepStrictEqual(intervals(config), [15, 60, 180, 900])
      assert.deepStrictEqual([config.bands.hot.hold_s, config.bands.cool.hold_s], [60, 360])
      assert.isUndefined(config.bands.idle.hold_s)
    })
  )

  it.effect("a partial override of HOT only leaves WARM 120 and COOL 300", () =>
    Effect.gen(function* () {
      const config = yield* AttentionConfig.decode({ bands: { hot: { interval_s: 10, hold_s: 60 } } })
      assert.deepStrictEqual(intervals(config), [10, 120, 300, 600])
    })
  )

  it.effect("validation errors name the rule", () =>
    Effect.gen(function* () {
      const monotonic = yield* failureOf(AttentionConfig.decode({ bands: { warm: { interval_s: 400, hold_s: 300 } } }))
      assert.include(monotonic, "monotonic")
      assert.include(
        yield* failureOf(AttentionConfig.decode({ bands: { hot: { interval_s: 0, hold_s: 120 } } })),
        "interval_s"
      )
      assert.include(
        yield* failureOf(AttentionConfig.decode({ bands: { hot: { interval_s: 30, hold_s: 0 } } })),
        "hold_s"
      )
      assert.include(yield* failureOf(AttentionConfig.decode({ bands: { hot: { interval_s: 30 } } })), "hold_s")
      assert.include(yield* failureOf(AttentionConfig.decode({ tick_s: 60 })), "tick_s")
      assert.include(yield* failureOf(AttentionConfig.decode({ tick_s: 0 })), "tick_s")
      assert.include(yield* failureOf(AttentionConfig.decode({ thread_window_s: -1 })), "thread_window_s")
      assert.include(
        yield* failureOf(AttentionConfig.decode({ bands: { scorching: { interval_s: 1, hold_s: 1 } } })),
        "unknown band name"
      )
      assert.include(yield* failureOf(AttentionConfig.decode({ tick_s: "fast" })), "tick_s")
      assert.include(yield* failureOf(AttentionConfig.decode([1, 2])), "mapping")
      assert.include(yield* failureOf(AttentionConfig.decode({}, { legacyPollInterval: Number.NaN })), "poll_interval")
    })
  )

  it.effect("heed differs: an IDLE hold_s is dropped with a logged warning", () =>
    Effect.gen(function* () {
      const { lines, result } = yield* captureLogs(
        AttentionConfig.decode({ bands: { idle: { interval_s: 900, hold_s: 100 } } })
      )
      assert.isUndefined(result.bands.idle.hold_s)
      assert.strictEqual(result.bands.idle.interval_s, 900)
      assert.deepStrictEqual(
        lines.map((line) => line.level),
        ["Warn"]
      )
      assert.include(lines[0]!.text, "bands.idle.hold_s")
    })
  )

  it.effect("pinned bands decode case-insensitively; unknown band names fail", () =>
    Effect.gen(function* () {
      const config = yield* AttentionConfig.decode({ pinned: { "#ops": "HOT", "#lobby": "cool" } })
      assert.deepStrictEqual(config.pinned, { "#ops": "HOT", "#lobby": "COOL" })
      const message = yield* failureOf(AttentionConfig.decode({ pinned: { "#ops": "SCORCHING" } }))
      assert.include(message, "unknown band name")
      assert.include(message, "#ops")
    })
  )
})

describe("AttentionConfig.resolve", () => {
  it.effect("a per-agent HOT override of 15/60 merges over the daemon; WARM stays 120", () =>
    Effect.gen(function* () {
      const daemon = yield* AttentionConfig.decode({})
      const agent = yield* AttentionConfig.resolve(daemon, {
        bands: { hot: { interval_s: 15, hold_s: 60 } }
      })
      assert.deepStrictEqual(intervals(agent), [15, 120, 300, 600])
      assert.strictEqual(agent.bands.hot.hold_s, 60)
    })
  )

  it.effect("empty overrides return the daemon config unchanged", () =>
    Effect.gen(function* () {
      const daemon = yield* AttentionConfig.decode({ tick_s: 4 })
      assert.strictEqual(yield* AttentionConfig.resolve(daemon, undefined), daemon)
      assert.strictEqual(yield* AttentionConfig.resolve(daemon, null), daemon)
      assert.strictEqual(yield* AttentionConfig.resolve(daemon, {}), daemon)
    })
  )

  it.effect("scalars override directly; a band given replaces the whole spec, so a missing hold_s fails", () =>
    Effect.gen(function* () {
      const daemon = yield* AttentionConfig.decode({
        bands: { idle: { interval_s: 1200 } },
        pinned: { "#a": "HOT" }
      })
      const agent = yield* AttentionConfig.resolve(daemon, {
        enabled: false,
        tick_s: 2,
        thread_window_s: 60,
        bands: { idle: { interval_s: 1800 } },
        pinned: { "#b": "WARM" }
      })
      assert.strictEqual(agent.enabled, false)
      assert.strictEqual(agent.tick_s, 2)
      assert.strictEqual(agent.thread_window_s, 60)
      assert.strictEqual(agent.bands.idle.interval_s, 1800)
      assert.deepStrictEqual(agent.pinned, { "#a": "HOT", "#b": "WARM" })
      const message = yield* failureOf(AttentionConfig.resolve(daemon, { bands: { warm: { interval_s: 100 } } }))
      assert.include(message, "bands.warm.hold_s")
    })
  )

  it.effect("the merged config is validated again", () =>
    Effect.gen(function* () {
      const daemon = yield* AttentionConfig.decode({})
      assert.include(
        yield* failureOf(AttentionConfig.resolve(daemon, { bands: { cool: { interval_s: 60, hold_s: 600 } } })),
        "monotonic"
      )
      assert.include(yield* failureOf(AttentionConfig.resolve(daemon, { tick_s: 31 })), "tick_s")
    })
  )
})

describe("AttentionConfig.overridesOf", () => {
  it("reads attention, falls back to attention_overrides, and attention wins", () => {
    const block = { bands: { hot: { interval_s: 15, hold_s: 60 } } }
    assert.strictEqual(AttentionConfig.overridesOf({ nick: "spark-bot", attention: block }), block)
    assert.strictEqual(AttentionConfig.overridesOf({ attention_overrides: block }), block)
    assert.strictEqual(AttentionConfig.overridesOf({ attention: block, attention_overrides: { tick_s: 1 } }), block)
    assert.isUndefined(AttentionConfig.overridesOf({ nick: "spark-bot" }))
    assert.isUndefined(AttentionConfig.overridesOf("spark-bot"))
  })

  it.effect("an agent entry without overrides resolves to the daemon config itself", () =>
    Effect.gen(function* () {
      const daemon = yield* AttentionConfig.decode({})
      assert.strictEqual(yield* AttentionConfig.resolve(daemon, AttentionConfig.overridesOf({ nick: "a" })), daemon)
    })
  )
})

describe("AttentionConfig.summary", () => {
  it("renders the startup line the upstream spec describes", () => {
    assert.strictEqual(
      AttentionConfig.summary(AttentionConfig.defaults, { override: true }),
      "attention: enabled=true bands=[hot=30/120 warm=120/300 cool=300/600 idle=600] override=yes"
    )
    assert.strictEqual(
      AttentionConfig.summary({
        ...AttentionConfig.defaults,
        pinned: { "#ops": "HOT" }
      }),
      "attention: enabled=true bands=[hot=30/120 warm=120/300 cool=300/600 idle=600] override=no pinned=[#ops=HOT]"
    )
    assert.strictEqual(
      AttentionConfig.summary({
        ...AttentionConfig.defaults,
        enabled: false,
        poll_interval: 45
      }),
      "attention: enabled=false poll_interval=45 override=no"
    )
  })
})
