import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer, Metric, Option } from "effect"
import { TestClock } from "effect/testing"
import { AttentionConfig, type Band, Scheduler } from "../src/index.ts"
import { captureLogs } from "./logs.ts"

const agent = "spark-bot"

interface Harness {
  readonly polls: Array<string>
  readonly fail: Set<string>
  readonly die: Set<string>
  readonly outcomes: Map<string, Scheduler.PollOutcome>
}

const harness = (): Harness => ({ polls: [], fail: new Set(), die: new Set(), outcomes: new Map() })

const options = (
  h: Harness,
  overrides: Partial<Scheduler.SchedulerOptions<string, never>> = {}
): Scheduler.SchedulerOptions<string, never> => ({
  config: AttentionConfig.defaults,
  agent,
  poll: (target: string, band: Band.Band) =>
    Effect.suspend(() => {
      h.polls.push(`${target}@${band}`)
      if (h.fail.has(target)) return Effect.fail(`cannot read ${target}`)
      if (h.die.has(target)) return Effect.die(new Error(`crashed on ${target}`))
      return Effect.succeed(h.outcomes.get(target) ?? "empty")
    }),
  ...overrides
})

/** Runs a scheduler test with a fresh metric registry, capturing logs. */
const scenario = <A, E>(body: Effect.Effect<A, E, never>) =>
  captureLogs(body).pipe(Effect.provideService(Metric.MetricRegistry, new Map()))

const metric = (id: string, attributes: Record<string, string>) =>
  Effect.map(Metric.snapshot, (snapshots) =>
    snapshots
      .filter((s) => s.id === id)
      .filter((s) => Object.entries(attributes).every(([key, value]) => s.attributes?.[key] === value))
      .map((s) => s.state)
  )

const counterValue = (id: string, attributes: Record<string, string>) =>
  Effect.map(metric(id, attributes), (states) =>
    states.reduce((sum: number, state) => sum + Number((state as { count: number | bigint }).count), 0)
  )

const gaugeValue = (target: string) =>
  Effect.map(metric("culture.attention.band", { agent, target }), (states) =>
    states.length === 0 ? undefined : Number((states[0] as { value: number | bigint }).value)
  )

const bandOf = (scheduler: Scheduler.Scheduler["Service"], target: string) =>
  Effect.map(scheduler.get(target), (state) => Option.getOrUndefined(Option.map(state, (s) => s.band)))

const attentionLines = (lines: ReadonlyArray<{ readonly text: string }>) =>
  lines.map((line) => line.text).filter((text) => text.startsWith("attention: agent="))

describe("Scheduler", () => {
  it.effect("logs the startup summary, seeds targets, and polls them on the first tick", () =>
    Effect.gen(function* () {
      const h = harness()
      const { lines } = yield* scenario(
        Effect.scoped(
          Effect.gen(function* () {
            yield* Scheduler.make(options(h, { targets: ["#dev", "#general"], override: true }))
            yield* TestClock.adjust("4 seconds")
            assert.deepStrictEqual(h.polls, [])
            yield* TestClock.adjust("1 second")
            assert.deepStrictEqual(h.polls, ["#dev@IDLE", "#general@IDLE"])
            // IDLE polls every 600 s: polled at t=5, due again at t=605.
            yield* TestClock.adjust("595 seconds")
            assert.strictEqual(h.polls.length, 2)
            yield* TestClock.adjust("5 seconds")
            assert.deepStrictEqual(h.polls.slice(2), ["#dev@IDLE", "#general@IDLE"])
          })
        )
      )
      assert.strictEqual(
        lines[0]!.text,
        "attention: enabled=true bands=[hot=30/120 warm=120/300 cool=300/600 idle=600] override=yes"
      )
      assert.strictEqual(lines[0]!.level, "Info")
    })
  )

  it.effect("logs each band change in culture's exact format and counts it", () =>
    Effect.gen(function* () {
      const h = harness()
      const { lines } = yield* scenario(
        Effect.scoped(
          Effect.gen(function* () {
            const scheduler = yield* Scheduler.make(options(h))
            assert.strictEqual(yield* scheduler.direct("#dev"), "HOT")
            assert.strictEqual(yield* gaugeValue("#dev"), 0)
            yield* TestClock.adjust("125 seconds")
            assert.strictEqual(yield* bandOf(scheduler, "#dev"), "WARM")
            assert.strictEqual(yield* gaugeValue("#dev"), 1)
            assert.strictEqual(
              yield* counterValue("culture.attention.transitions", {
                agent,
                target: "#dev",
                from_band: "IDLE",
                to_band: "HOT",
                cause: "direct"
              }),
              1
            )
            assert.strictEqual(
              yield* counterValue("culture.attention.transitions", { agent, target: "#dev", cause: "decay" }),
              1
            )
          })
        )
      )
      assert.deepStrictEqual(attentionLines(lines), [
        "attention: agent=spark-bot target=#dev band=IDLE→HOT cause=direct",
        "attention: agent=spark-bot target=#dev band=HOT→WARM cause=decay"
      ])
      assert.isTrue(lines.filter((line) => line.text.includes("band=")).every((line) => line.level === "Info"))
    })
  )

  it("transitionLine uses U+2192 and upper-case band names", () => {
    const line = Scheduler.transitionLine("spark-culture", {
      target: "#dev-chat",
      from: "COOL",
      to: "HOT",
      cause: "direct"
    })
    assert.strictEqual(line, "attention: agent=spark-culture target=#dev-chat band=COOL\u2192HOT cause=direct")
  })

  it.effect("counts polls with band and outcome (delivered or empty), including empty polls", () =>
    Effect.gen(function* () {
      const h = harness()
      h.outcomes.set("#busy", "delivered")
      yield* scenario(
        Effect.scoped(
          Effect.gen(function* () {
            const scheduler = yield* Scheduler.make(options(h, { targets: ["#busy", "#quiet"] }))
            yield* scheduler.direct("#busy")
            const results = yield* scheduler.tick
            assert.deepStrictEqual(results, [
              { target: "#busy", band: "HOT", outcome: "delivered" },
              { target: "#quiet", band: "IDLE", outcome: "empty" }
            ])
            const polls = (attributes: Record<string, string>) =>
              counterValue("culture.attention.polls", { agent, ...attributes })
            assert.strictEqual(yield* polls({ target: "#busy", band: "HOT", outcome: "delivered" }), 1)
            assert.strictEqual(yield* polls({ target: "#quiet", band: "IDLE", outcome: "empty" }), 1)
            assert.strictEqual(yield* polls({ outcome: "delivered" }), 1)
            assert.strictEqual(yield* gaugeValue("#quiet"), 3)
          })
        )
      )
    })
  )

  it.effect("isolates failures per target: others are still polled, the failed one is retried next tick", () =>
    Effect.gen(function* () {
      const h = harness()
      h.fail.add("#a")
      h.die.add("#b")
      const { lines } = yield* scenario(
        Effect.scoped(
          Effect.gen(function* () {
            yield* Scheduler.make(options(h, { targets: ["#a", "#b", "#c"] }))
            yield* TestClock.adjust("5 seconds")
            assert.deepStrictEqual(h.polls, ["#a@IDLE", "#b@IDLE", "#c@IDLE"])
            h.fail.clear()
            h.die.clear()
            yield* TestClock.adjust("5 seconds")
            assert.deepStrictEqual(h.polls.slice(3), ["#a@IDLE", "#b@IDLE"])
            yield* TestClock.adjust("5 seconds")
            assert.strictEqual(h.polls.length, 5)
            assert.strictEqual(yield* counterValue("culture.attention.polls", { agent, target: "#a" }), 1)
          })
        )
      )
      const warnings = lines.filter((line) => line.level === "Warn").map((line) => line.text)
      assert.deepStrictEqual(warnings, [
        "attention: poll failed agent=spark-bot target=#a; retrying next tick",
        "attention: poll failed agent=spark-bot target=#b; retrying next tick"
      ])
    })
  )

  it.effect("pause stops polling and decay; stimuli still apply; resume catches decay up step by step", () =>
    Effect.gen(function* () {
      const h = harness()
      const { lines } = yield* scenario(
        Effect.scoped(
          Effect.gen(function* () {
            const scheduler = yield* Scheduler.make(options(h, { targets: ["#dev"] }))
            yield* scheduler.pause
            assert.isTrue(yield* scheduler.isPaused)
            assert.strictEqual(yield* scheduler.direct("#dev"), "HOT")
            yield* TestClock.adjust("425 seconds")
            assert.deepStrictEqual(h.polls, [])
            assert.strictEqual(yield* bandOf(scheduler, "#dev"), "HOT")
            yield* scheduler.resume
            yield* TestClock.adjust("5 seconds")
            assert.deepStrictEqual(h.polls, ["#dev@COOL"])
          })
        )
      )
      assert.deepStrictEqual(attentionLines(lines), [
        "attention: agent=spark-bot target=#dev band=IDLE→HOT cause=direct",
        "attention: agent=spark-bot target=#dev band=HOT→WARM cause=decay",
        "attention: agent=spark-bot target=#dev band=WARM→COOL cause=decay"
      ])
    })
  )

  it.effect("daemon wiring: ambient counts only within the thread window opened by a mention or outgoing line", () =>
    Effect.gen(function* () {
      const h = harness()
      yield* scenario(
        Effect.scoped(
          Effect.gen(function* () {
            const scheduler = yield* Scheduler.make(options(h))
            // Ambient without prior engagement is a no-op: no target is created.
            assert.isTrue(Option.isNone(yield* scheduler.ambient("#dev")))
            assert.isTrue(Option.isNone(yield* scheduler.get("#dev")))
            // After a mention, ambient keeps HOT.
            yield* scheduler.direct("#dev")
            assert.deepStrictEqual(yield* scheduler.ambient("#dev"), Option.some("HOT"))
            // Outgoing then ambient gives COOL on a fresh channel.
            yield* scheduler.outgoing("#general")
            assert.deepStrictEqual(yield* scheduler.ambient("#general"), Option.some("COOL"))
            // Exactly thread_window_s later still counts; one second more does not.
            yield* scheduler.pause
            yield* TestClock.adjust("1800 seconds")
            assert.deepStrictEqual(yield* scheduler.ambient("#general"), Option.some("WARM"))
            yield* TestClock.adjust("1 second")
            assert.isTrue(Option.isNone(yield* scheduler.ambient("#general")))
          })
        )
      )
    })
  )

  it.effect("runtime joins are polled while quiet; parted targets vanish", () =>
    Effect.gen(function* () {
      const h = harness()
      yield* scenario(
        Effect.scoped(
          Effect.gen(function* () {
            const scheduler = yield* Scheduler.make(options(h, { targets: ["#a"] }))
            yield* TestClock.adjust("5 seconds")
            assert.strictEqual(yield* scheduler.join("#joined"), "IDLE")
            yield* scheduler.direct("#a")
            assert.strictEqual(yield* gaugeValue("#a"), 0)
            assert.isTrue(yield* scheduler.part("#a"))
            assert.isFalse(yield* scheduler.part("#never"))
            yield* TestClock.adjust("5 seconds")
            assert.deepStrictEqual(h.polls, ["#a@IDLE", "#joined@IDLE"])
            assert.deepStrictEqual([...(yield* scheduler.snapshot).keys()], ["#joined"])
            assert.isUndefined(yield* gaugeValue("#a"))
            assert.strictEqual(yield* gaugeValue("#joined"), 3)
          })
        )
      )
    })
  )

  it.effect("a target parted while its poll runs is not brought back", () =>
    Effect.gen(function* () {
      const h = harness()
      yield* scenario(
        Effect.scoped(
          Effect.gen(function* () {
            const scheduler = yield* Scheduler.make(
              options(h, {
                targets: ["#slow"],
                poll: (target) => Effect.as(Effect.sleep("2 seconds"), target === "#slow" ? "delivered" : "empty")
              })
            )
            yield* TestClock.adjust("5 seconds") // the tick starts polling #slow
            assert.isTrue(yield* scheduler.part("#slow"))
            yield* TestClock.adjust("2 seconds") // the poll completes after the part
            assert.strictEqual((yield* scheduler.snapshot).size, 0)
            assert.strictEqual(yield* counterValue("culture.attention.polls", { agent, target: "#slow" }), 0)
          })
        )
      )
    })
  )

  it.effect("agent-controlled attention: set with a TTL holds the band, logged with cause manual", () =>
    Effect.gen(function* () {
      const h = harness()
      const { lines } = yield* scenario(
        Effect.scoped(
          Effect.gen(function* () {
            const scheduler = yield* Scheduler.make(options(h))
            assert.strictEqual(yield* scheduler.set("#dev", "HOT", { ttlS: 600 }), "HOT")
            yield* TestClock.adjust("700 seconds")
            assert.strictEqual(yield* bandOf(scheduler, "#dev"), "HOT")
            yield* TestClock.adjust("30 seconds")
            assert.strictEqual(yield* bandOf(scheduler, "#dev"), "WARM")
          })
        )
      )
      assert.deepStrictEqual(attentionLines(lines), [
        "attention: agent=spark-bot target=#dev band=IDLE→HOT cause=manual",
        "attention: agent=spark-bot target=#dev band=HOT→WARM cause=decay"
      ])
    })
  )

  it.effect("pinned targets are polled at their band and get a gauge without any transition", () =>
    Effect.gen(function* () {
      const h = harness()
      const config: AttentionConfig.AttentionConfig = {
        ...AttentionConfig.defaults,
        pinned: { "#ops": "HOT" }
      }
      const { lines } = yield* scenario(
        Effect.scoped(
          Effect.gen(function* () {
            const scheduler = yield* Scheduler.make(options(h, { config }))
            assert.strictEqual(yield* scheduler.direct("#ops"), "HOT")
            assert.strictEqual(yield* gaugeValue("#ops"), 0)
            yield* TestClock.adjust("3600 seconds")
            assert.strictEqual(yield* bandOf(scheduler, "#ops"), "HOT")
            // HOT polls every 30 s: at t = 5, 35, ..., 3575 within the hour.
            assert.strictEqual(h.polls.length, 120)
          })
        )
      )
      assert.deepStrictEqual(attentionLines(lines), [])
    })
  )

  it.effect("enabled: false selects the legacy loop: every target every poll_interval", () =>
    Effect.gen(function* () {
      const h = harness()
      const config = yield* AttentionConfig.decode({ enabled: false }, { legacyPollInterval: 45 })
      yield* scenario(
        Effect.scoped(
          Effect.gen(function* () {
            const scheduler = yield* Scheduler.make(options(h, { config, targets: ["#a", "#b"] }))
            yield* scheduler.direct("#a")
            yield* TestClock.adjust("44 seconds")
            assert.deepStrictEqual(h.polls, [])
            yield* TestClock.adjust("1 second")
            assert.deepStrictEqual(h.polls, ["#a@HOT", "#b@IDLE"])
            yield* TestClock.adjust("45 seconds")
            assert.strictEqual(h.polls.length, 4)
          })
        )
      )
    })
  )

  it.effect("legacy poll_interval <= 0 means no polling at all", () =>
    Effect.gen(function* () {
      const h = harness()
      const config = yield* AttentionConfig.decode(undefined, { legacyPollInterval: 0 })
      const { lines } = yield* scenario(
        Effect.scoped(
          Effect.gen(function* () {
            yield* Scheduler.make(options(h, { config, targets: ["#a"] }))
            yield* TestClock.adjust("3600 seconds")
            assert.deepStrictEqual(h.polls, [])
          })
        )
      )
      assert.strictEqual(lines[0]!.text, "attention: enabled=false poll_interval=0 override=no")
    })
  )

  it.effect("Scheduler.layer provides the service for yield* Scheduler", () =>
    Effect.gen(function* () {
      const h = harness()
      yield* scenario(
        Effect.gen(function* () {
          const scheduler = yield* Scheduler.Scheduler
          yield* scheduler.direct("#dev")
          yield* TestClock.adjust("5 seconds")
          assert.deepStrictEqual(h.polls, ["#dev@HOT"])
        }).pipe(Effect.provide(Scheduler.layer(options(h))))
      )
    })
  )

  it.effect("the loop stops when its scope closes", () =>
    Effect.gen(function* () {
      const h = harness()
      yield* scenario(
        Effect.gen(function* () {
          yield* Effect.scoped(Scheduler.make(options(h, { targets: ["#a"] })))
          yield* TestClock.adjust("60 seconds")
          assert.deepStrictEqual(h.polls, [])
        })
      )
    })
  )

  it.effect("the poll effect's requirements are provided from where the scheduler was built", () =>
    Effect.gen(function* () {
      class Inbox extends Context.Service<Inbox, { readonly read: (target: string) => string }>()("test/Inbox") {}
      const seen: Array<string> = []
      yield* scenario(
        Effect.scoped(
          Effect.gen(function* () {
            const scheduler = yield* Scheduler.make({
              config: AttentionConfig.defaults,
              agent,
              targets: ["#a"],
              poll: (target) =>
                Effect.map(Inbox, (inbox) => {
                  seen.push(inbox.read(target))
                  return "delivered" as const
                })
            })
            yield* scheduler.tick
          }).pipe(Effect.provideService(Inbox, { read: (target) => `${target}:1` }))
        )
      )
      assert.deepStrictEqual(seen, ["#a:1"])
    })
  )
})

describe("Scheduler.layer typing", () => {
  it("builds a Layer that requires only what poll requires", () => {
    const layer: Layer.Layer<Scheduler.Scheduler> = Scheduler.layer({
      config: AttentionConfig.defaults,
      agent,
      poll: () => Effect.succeed("empty" as const)
    })
    assert.isTrue(Layer.isLayer(layer))
  })
})
