import { assert, describe, it } from "@effect/vitest"
import { Option } from "effect"
import * as fc from "fast-check"
import { AttentionConfig, type Band, Tracker } from "../src/index.ts"
import { examinedInLastCall } from "../src/internal/stats.ts"
import { ReferenceTracker } from "./ReferenceTracker.ts"

const config = AttentionConfig.defaults

const recording = (cfg: AttentionConfig.AttentionConfig = config) => {
  const transitions: Array<Tracker.Transition> = []
  const tracker = Tracker.make(cfg, { onTransition: (t) => transitions.push(t) })
  return { tracker, transitions }
}

const bandOf = (tracker: Tracker.Tracker, target: string): Band.Band | undefined =>
  Option.getOrUndefined(Option.map(tracker.get(target), (state) => state.band))

describe("Tracker (upstream tests)", () => {
  it("an empty tracker has an empty snapshot and nothing due", () => {
    const tracker = Tracker.make(config)
    assert.strictEqual(tracker.snapshot().size, 0)
    assert.deepStrictEqual(tracker.dueTargets(0), [])
    assert.strictEqual(tracker.size, 0)
  })

  it("direct moves IDLE to HOT and sets both timestamps to now", () => {
    const { tracker, transitions } = recording()
    assert.strictEqual(tracker.onDirect("#dev", 42), "HOT")
    const state = Option.getOrThrow(tracker.get("#dev"))
    assert.strictEqual(state.band, "HOT")
    assert.strictEqual(state.lastPromoteAt, 42)
    assert.strictEqual(state.lastStimulusAt, 42)
    assert.isTrue(Option.isNone(state.lastPollAt))
    assert.deepStrictEqual(transitions, [{ target: "#dev", from: "IDLE", to: "HOT", cause: "direct" }])
  })

  it("ambient moves IDLE to COOL to WARM, then stays WARM (capped)", () => {
    const { tracker, transitions } = recording()
    assert.deepStrictEqual(
      [1, 2, 3, 4].map((now) => tracker.onAmbient("#dev", now)),
      ["COOL", "WARM", "WARM", "WARM"]
    )
    assert.deepStrictEqual(
      transitions.map((t) => `${t.from}->${t.to}:${t.cause}`),
      ["IDLE->COOL:ambient", "COOL->WARM:ambient"]
    )
  })

  it("ambient on HOT stays HOT (never demotes)", () => {
    const tracker = Tracker.make(config)
    tracker.onDirect("#dev", 0)
    assert.strictEqual(tracker.onAmbient("#dev", 1), "HOT")
  })

  it("direct after WARM gives HOT", () => {
    const tracker = Tracker.make(config)
    tracker.onAmbient("#dev", 0)
    tracker.onAmbient("#dev", 1)
    assert.strictEqual(bandOf(tracker, "#dev"), "WARM")
    assert.strictEqual(tracker.onDirect("#dev", 2), "HOT")
  })

  it("decay boundaries: HOT at 119, WARM at 121, COOL at 121+301, IDLE at 121+301+601", () => {
    const tracker = Tracker.make(config)
    tracker.onDirect("#a", 0)
    const at = (now: number) => {
      tracker.dueTargets(now)
      return bandOf(tracker, "#a")
    }
    assert.strictEqual(at(119), "HOT")
    assert.strictEqual(at(121), "WARM")
    assert.strictEqual(at(121 + 301), "COOL")
    assert.strictEqual(at(121 + 301 + 601), "IDLE")
  })

  it("IDLE is terminal far in the future", () => {
    const tracker = Tracker.make(config)
    tracker.onDirect("#a", 0)
    tracker.dueTargets(99_999)
    assert.strictEqual(bandOf(tracker, "#a"), "IDLE")
    tracker.dueTargets(999_999)
    assert.strictEqual(bandOf(tracker, "#a"), "IDLE")
  })

  it("a second direct at 119 extends the dwell: still HOT at 179", () => {
    const tracker = Tracker.make(config)
    tracker.onDirect("#a", 0)
    tracker.onDirect("#a", 119)
    tracker.dueTargets(179)
    assert.strictEqual(bandOf(tracker, "#a"), "HOT")
  })

  it("targets are isolated: a stimulus on #a does not create #b; ambient on #b leaves #a HOT", () => {
    const tracker = Tracker.make(config)
    tracker.onDirect("#a", 0)
    assert.isTrue(Option.isNone(tracker.get("#b")))
    assert.strictEqual(tracker.onAmbient("#b", 1), "COOL")
    assert.strictEqual(bandOf(tracker, "#a"), "HOT")
  })

  it("a clock moving backwards changes nothing and does not throw", () => {
    const { tracker, transitions } = recording()
    tracker.onDirect("#a", 1000)
    tracker.markPolled("#a", 1000)
    assert.deepStrictEqual(tracker.dueTargets(500), [])
    assert.strictEqual(bandOf(tracker, "#a"), "HOT")
    assert.strictEqual(transitions.length, 1)
  })

  it("due logic: never polled is due; after a poll at 0, not due at 10, due at 30", () => {
    const tracker = Tracker.make(config)
    tracker.onDirect("#a", 0)
    assert.deepStrictEqual(tracker.dueTargets(0), ["#a"])
    tracker.markPolled("#a", 0)
    assert.deepStrictEqual(tracker.dueTargets(10), [])
    assert.deepStrictEqual(tracker.dueTargets(30), ["#a"])
  })

  it("dueTargets applies decay first: polled at 0, at 121 it is due as WARM", () => {
    const tracker = Tracker.make(config)
    tracker.onDirect("#a", 0)
    tracker.markPolled("#a", 0)
    assert.deepStrictEqual(tracker.dueTargets(121), ["#a"])
    assert.strictEqual(bandOf(tracker, "#a"), "WARM")
  })

  it("set(IDLE) after HOT gives IDLE with cause manual", () => {
    const { tracker, transitions } = recording()
    tracker.onDirect("#a", 0)
    assert.strictEqual(tracker.set("#a", "IDLE", 5), "IDLE")
    assert.deepStrictEqual(transitions.at(-1), { target: "#a", from: "HOT", to: "IDLE", cause: "manual" })
  })

  it("seed creates an IDLE target that is immediately due, and is idempotent", () => {
    const tracker = Tracker.make(config)
    assert.strictEqual(tracker.seed("#quiet"), "IDLE")
    assert.deepStrictEqual(tracker.dueTargets(0), ["#quiet"])
    tracker.onDirect("#hot", 0)
    assert.strictEqual(tracker.seed("#hot"), "HOT")
    assert.strictEqual(bandOf(tracker, "#hot"), "HOT")
  })

  it("pause catch-up: direct at 0, no ticks, then dueTargets(421) gives COOL in two steps", () => {
    const { tracker, transitions } = recording()
    tracker.onDirect("#a", 0)
    tracker.dueTargets(421)
    assert.strictEqual(bandOf(tracker, "#a"), "COOL")
    assert.deepStrictEqual(
      transitions.map((t) => `${t.from}->${t.to}:${t.cause}`),
      ["IDLE->HOT:direct", "HOT->WARM:decay", "WARM->COOL:decay"]
    )
  })
})

describe("Tracker (cases upstream lacks)", () => {
  it("ambient refreshes the dwell without emitting a transition", () => {
    const { tracker, transitions } = recording()
    tracker.onAmbient("#a", 0)
    tracker.onAmbient("#a", 1)
    assert.strictEqual(transitions.length, 2)
    tracker.onAmbient("#a", 250) // WARM -> WARM: refresh only
    assert.strictEqual(transitions.length, 2)
    tracker.dueTargets(250 + 300)
    assert.strictEqual(bandOf(tracker, "#a"), "WARM")
    tracker.dueTargets(250 + 301)
    assert.strictEqual(bandOf(tracker, "#a"), "COOL")
  })

  it("a multi-step decay emits one transition per band, in order", () => {
    const { tracker, transitions } = recording()
    tracker.onDirect("#a", 0)
    transitions.length = 0
    tracker.dueTargets(5000)
    assert.deepStrictEqual(transitions, [
      { target: "#a", from: "HOT", to: "WARM", cause: "decay" },
      { target: "#a", from: "WARM", to: "COOL", cause: "decay" },
      { target: "#a", from: "COOL", to: "IDLE", cause: "decay" }
    ])
  })

  it("markPolled on an unknown target creates it at IDLE, polled", () => {
    const tracker = Tracker.make(config)
    tracker.markPolled("#new", 7)
    const state = Option.getOrThrow(tracker.get("#new"))
    assert.strictEqual(state.band, "IDLE")
    assert.deepStrictEqual(state.lastPollAt, Option.some(7))
    assert.deepStrictEqual(tracker.dueTargets(8), [])
    assert.deepStrictEqual(tracker.dueTargets(607), ["#new"])
  })

  it("exactly hold seconds later there is no decay yet (strict >)", () => {
    const tracker = Tracker.make(config)
    tracker.onDirect("#a", 0)
    tracker.dueTargets(120)
    assert.strictEqual(bandOf(tracker, "#a"), "HOT")
    tracker.dueTargets(120.001)
    assert.strictEqual(bandOf(tracker, "#a"), "WARM")
  })

  it("now = 0 is a real poll time, not the never-polled sentinel", () => {
    const tracker = Tracker.make(config)
    tracker.seed("#a")
    tracker.markPolled("#a", 0)
    assert.deepStrictEqual(tracker.dueTargets(0), [])
    assert.deepStrictEqual(tracker.dueTargets(599), [])
    assert.deepStrictEqual(tracker.dueTargets(600), ["#a"])
  })

  it("a due target stays due until it is marked polled", () => {
    const tracker = Tracker.make(config)
    tracker.seed("#a")
    assert.deepStrictEqual(tracker.dueTargets(0), ["#a"])
    assert.deepStrictEqual(tracker.dueTargets(5), ["#a"])
    tracker.markPolled("#a", 5)
    assert.deepStrictEqual(tracker.dueTargets(10), [])
  })

  it("due targets come back in insertion order", () => {
    const tracker = Tracker.make(config)
    for (const target of ["#c", "#a", "#b"]) tracker.seed(target)
    tracker.onDirect("#b", 0)
    assert.deepStrictEqual(tracker.dueTargets(0), ["#c", "#a", "#b"])
    assert.deepStrictEqual([...tracker.snapshot().keys()], ["#c", "#a", "#b"])
  })

  it("insertion order holds for thousands of due targets, including reused slots", () => {
    const tracker = Tracker.make(config)
    const names = Array.from({ length: 5000 }, (_, i) => `#c${i}`)
    for (const name of names) tracker.seed(name)
    // Forget every third target and add them back: they reuse freed slots but now come last.
    const moved = names.filter((_, i) => i % 3 === 0)
    for (const name of moved) tracker.forget(name)
    for (const name of [...moved].reverse()) tracker.seed(name)
    const expected = [...names.filter((_, i) => i % 3 !== 0), ...[...moved].reverse()]
    assert.deepStrictEqual(tracker.dueTargets(0), expected)
    assert.deepStrictEqual([...tracker.snapshot().keys()], expected)
  })

  it("non-finite times and unknown bands are ignored without creating targets", () => {
    const tracker = Tracker.make(config)
    assert.strictEqual(tracker.onDirect("#a", Number.NaN), "IDLE")
    assert.strictEqual(tracker.onAmbient("#a", Infinity), "IDLE")
    tracker.markPolled("#a", Number.NaN)
    assert.deepStrictEqual(tracker.dueTargets(Number.NaN), [])
    assert.strictEqual(tracker.size, 0)
    tracker.onDirect("#a", 0)
    assert.strictEqual(tracker.set("#a", "hot" as Band.Band, 1), "HOT")
    assert.strictEqual(Option.getOrThrow(tracker.get("#a")).lastPromoteAt, 0)
  })

  it("a throwing onTransition callback leaves the state consistent and still sees every transition", () => {
    const seen: Array<string> = []
    const tracker = Tracker.make(config, {
      onTransition: (t) => {
        seen.push(`${t.target}:${t.to}`)
        throw new Error("boom")
      }
    })
    assert.throws(() => tracker.onDirect("#a", 0), "boom")
    assert.throws(() => tracker.onDirect("#b", 0), "boom")
    assert.throws(() => tracker.dueTargets(5000), "boom")
    assert.deepStrictEqual(seen, ["#a:HOT", "#b:HOT", "#a:WARM", "#a:COOL", "#a:IDLE", "#b:WARM", "#b:COOL", "#b:IDLE"])
    assert.deepStrictEqual(tracker.dueTargets(5000), ["#a", "#b"])
  })
})

describe("Tracker: seed on join, forget on part", () => {
  it("forget drops a target; a later stimulus or seed starts it fresh", () => {
    const tracker = Tracker.make(config)
    tracker.onDirect("#a", 0)
    tracker.markPolled("#a", 0)
    assert.isTrue(tracker.forget("#a"))
    assert.isFalse(tracker.forget("#a"))
    assert.isTrue(Option.isNone(tracker.get("#a")))
    assert.deepStrictEqual(tracker.dueTargets(100), [])
    assert.strictEqual(tracker.seed("#a"), "IDLE")
    assert.deepStrictEqual(tracker.dueTargets(100), ["#a"])
  })

  it("a seeded runtime join is polled even while quiet; a parted one vanishes from polling", () => {
    const tracker = Tracker.make(config)
    tracker.seed("#a")
    tracker.seed("#b")
    for (const target of tracker.dueTargets(0)) tracker.markPolled(target, 0)
    tracker.seed("#joined")
    tracker.forget("#b")
    assert.deepStrictEqual(tracker.dueTargets(5), ["#joined"])
    tracker.markPolled("#joined", 5)
    assert.deepStrictEqual(tracker.dueTargets(600), ["#a"])
    assert.deepStrictEqual(tracker.dueTargets(605), ["#a", "#joined"])
  })

  it("forgotten slots are reused without leaking the old target's schedule", () => {
    const tracker = Tracker.make(config)
    tracker.onDirect("#old", 0)
    tracker.markPolled("#old", 0)
    tracker.forget("#old")
    tracker.seed("#new")
    tracker.markPolled("#new", 0)
    assert.deepStrictEqual(tracker.dueTargets(30), [])
    assert.deepStrictEqual(tracker.dueTargets(600), ["#new"])
    assert.strictEqual(bandOf(tracker, "#new"), "IDLE")
  })
})

describe("Tracker: agent-controlled attention (#355) and pinned bands", () => {
  it("set with ttlS holds the band until the TTL, then decays normally from that band", () => {
    const { tracker, transitions } = recording()
    assert.strictEqual(tracker.set("#a", "HOT", 0, { ttlS: 1000 }), "HOT")
    tracker.dueTargets(999)
    assert.strictEqual(bandOf(tracker, "#a"), "HOT")
    // The hold timer restarts at expiry (t=1000): HOT decays only after 1000 + 120.
    tracker.dueTargets(1120)
    assert.strictEqual(bandOf(tracker, "#a"), "HOT")
    assert.isTrue(Option.isNone(Option.getOrThrow(tracker.get("#a")).manualUntil))
    tracker.dueTargets(1121)
    assert.strictEqual(bandOf(tracker, "#a"), "WARM")
    assert.strictEqual(Option.getOrThrow(tracker.get("#a")).lastPromoteAt, 1120)
    assert.deepStrictEqual(
      transitions.map((t) => `${t.from}->${t.to}:${t.cause}`),
      ["IDLE->HOT:manual", "HOT->WARM:decay"]
    )
  })

  it("one late check after a TTL walks several bands from the expiry", () => {
    const tracker = Tracker.make(config)
    tracker.set("#a", "HOT", 0, { ttlS: 100 })
    tracker.dueTargets(100 + 121 + 301)
    assert.strictEqual(bandOf(tracker, "#a"), "COOL")
  })

  it("the deprecated ttl_s option still holds the band like ttlS; ttlS wins when both are set", () => {
    const viaAlias = Tracker.make(config)
    const viaCamel = Tracker.make(config)
    viaAlias.set("#a", "HOT", 0, { ttl_s: 1000 })
    viaCamel.set("#a", "HOT", 0, { ttlS: 1000 })
    for (const now of [500, 999, 1000, 1500, 5000]) {
      viaAlias.dueTargets(now)
      viaCamel.dueTargets(now)
      assert.deepStrictEqual(viaAlias.get("#a"), viaCamel.get("#a"), `at ${now}`)
      if (now === 999) assert.strictEqual(bandOf(viaAlias, "#a"), "HOT")
    }
    const both = Tracker.make(config)
    both.set("#a", "HOT", 0, { ttlS: 10, ttl_s: 1_000_000 })
    both.dueTargets(5000)
    assert.notStrictEqual(bandOf(both, "#a"), "HOT")
  })

  it("without ttlS a manual band decays normally from now (upstream)", () => {
    const tracker = Tracker.make(config)
    tracker.set("#a", "HOT", 0)
    tracker.dueTargets(121)
    assert.strictEqual(bandOf(tracker, "#a"), "WARM")
  })

  it("a direct stimulus always wins over a manual hold", () => {
    const { tracker, transitions } = recording()
    tracker.set("#a", "IDLE", 0, { ttlS: 3600 })
    assert.strictEqual(tracker.onDirect("#a", 10), "HOT")
    assert.isTrue(Option.isNone(Option.getOrThrow(tracker.get("#a")).manualUntil))
    tracker.dueTargets(131)
    assert.strictEqual(bandOf(tracker, "#a"), "WARM")
    assert.deepStrictEqual(transitions.at(0)?.cause, "direct")
  })

  it("ambient traffic does not move a band under a manual hold, but does after it", () => {
    const tracker = Tracker.make(config)
    tracker.set("#a", "IDLE", 0, { ttlS: 60 })
    assert.strictEqual(tracker.onAmbient("#a", 30), "IDLE")
    assert.strictEqual(tracker.onAmbient("#a", 61), "COOL")
  })

  it("a manual hold that dueTargets saw end stays over, also when the clock then goes back (IDLE and HOT)", () => {
    const tracker = Tracker.make(config)
    tracker.set("#idle", "IDLE", 0, { ttlS: 60 })
    tracker.set("#hot", "HOT", 0, { ttlS: 60 })
    tracker.dueTargets(61)
    assert.isTrue(Option.isNone(Option.getOrThrow(tracker.get("#idle")).manualUntil))
    assert.isTrue(Option.isNone(Option.getOrThrow(tracker.get("#hot")).manualUntil))
    // The clock steps back before the hold's end: ambient traffic counts again, and HOT's hold restarts from it.
    assert.strictEqual(tracker.onAmbient("#idle", 30), "COOL")
    tracker.onAmbient("#hot", 30)
    tracker.dueTargets(30 + 121) // HOT holds 120 s by default
    assert.strictEqual(bandOf(tracker, "#hot"), "WARM")
  })

  it("ttlS: Infinity holds until a direct stimulus; a non-positive ttlS means no hold", () => {
    const tracker = Tracker.make(config)
    tracker.set("#a", "HOT", 0, { ttlS: Infinity })
    tracker.dueTargets(1e7)
    assert.strictEqual(bandOf(tracker, "#a"), "HOT")
    tracker.onDirect("#a", 1e7)
    tracker.dueTargets(1e7 + 121)
    assert.strictEqual(bandOf(tracker, "#a"), "WARM")
    tracker.set("#b", "HOT", 0, { ttlS: -5 })
    assert.isTrue(Option.isNone(Option.getOrThrow(tracker.get("#b")).manualUntil))
    tracker.dueTargets(121)
    assert.strictEqual(bandOf(tracker, "#b"), "WARM")
  })

  it("pinned targets start at their band and never change it", () => {
    const pinnedConfig: AttentionConfig.AttentionConfig = { ...config, pinned: { "#ops": "HOT", "#spam": "IDLE" } }
    const { tracker, transitions } = recording(pinnedConfig)
    assert.strictEqual(tracker.seed("#ops"), "HOT")
    assert.isTrue(Option.getOrThrow(tracker.get("#ops")).pinned)
    tracker.dueTargets(100_000)
    assert.strictEqual(bandOf(tracker, "#ops"), "HOT")
    assert.strictEqual(tracker.set("#ops", "IDLE", 100_001, { ttlS: 10 }), "HOT")
    assert.strictEqual(tracker.onDirect("#spam", 100_002), "IDLE")
    assert.strictEqual(tracker.onAmbient("#spam", 100_003), "IDLE")
    assert.deepStrictEqual(transitions, [])
    tracker.markPolled("#ops", 100_010)
    assert.deepStrictEqual(tracker.dueTargets(100_040), ["#ops", "#spam"])
  })
})

describe("Tracker: scale", () => {
  it("dueTargets looks only at due and decaying targets, not at every target", () => {
    const tracker = Tracker.make(config)
    for (let i = 0; i < 10_000; i++) tracker.seed(`#c${i}`)
    assert.strictEqual(tracker.dueTargets(0).length, 10_000)
    for (let i = 0; i < 10_000; i++) tracker.markPolled(`#c${i}`, 0)
    tracker.onDirect("#c42", 10)
    tracker.onDirect("#c7", 12)
    assert.deepStrictEqual(tracker.dueTargets(60), ["#c7", "#c42"])
    assert.isAtMost(examinedInLastCall(tracker), 10)
    tracker.dueTargets(61)
    assert.isAtMost(examinedInLastCall(tracker), 10)
  })
})

// ------------------------------------------------------------------------------------------------------------
// Properties

const fastConfig: AttentionConfig.AttentionConfig = {
  ...config,
  tick_s: 1,
  bands: {
    hot: { interval_s: 2, hold_s: 3 },
    warm: { interval_s: 4, hold_s: 5 },
    cool: { interval_s: 6, hold_s: 7 },
    idle: { interval_s: 10 }
  },
  pinned: { "#pin": "WARM" }
}

const targets = ["#a", "#b", "#c", "#pin", "DM:alice"]
const anyTarget = fc.constantFrom(...targets)
const anyBand = fc.constantFrom<Band.Band>("HOT", "WARM", "COOL", "IDLE")

type Op =
  | { readonly kind: "direct" | "ambient" | "seed" | "forget" | "poll"; readonly target: string }
  | { readonly kind: "set"; readonly target: string; readonly band: Band.Band; readonly ttl: number | undefined }
  | { readonly kind: "due" }

const anyOp: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constantFrom("direct", "ambient", "seed", "forget", "poll" as const), target: anyTarget }),
  fc.record({
    kind: fc.constant("set" as const),
    target: anyTarget,
    band: anyBand,
    ttl: fc.option(fc.integer({ min: 1, max: 30 }), { nil: undefined })
  }),
  fc.constant({ kind: "due" as const })
)

// Time steps: mostly forward (including fractional and exact-boundary steps), sometimes backwards.
const anyStep = fc.oneof(
  fc.integer({ min: 0, max: 12 }),
  fc.constantFrom(0.5, 0.25, 0.1),
  fc.integer({ min: -5, max: -1 })
)

const anyScript = fc.array(fc.tuple(anyStep, anyOp), { maxLength: 120 })

describe("Tracker properties", () => {
  it("agrees with a scan-based reference tracker (transitions, due lists, bands)", () => {
    fc.assert(
      fc.property(anyScript, (script) => {
        const { tracker, transitions } = recording(fastConfig)
        const reference = new ReferenceTracker(fastConfig)
        let now = 0
        for (const [step, op] of script) {
          now += step
          switch (op.kind) {
            case "direct":
              tracker.onDirect(op.target, now)
              reference.onDirect(op.target, now)
              break
            case "ambient":
              tracker.onAmbient(op.target, now)
              reference.onAmbient(op.target, now)
              break
            case "seed":
              tracker.seed(op.target)
              reference.seed(op.target)
              break
            case "forget":
              tracker.forget(op.target)
              reference.forget(op.target)
              break
            case "poll":
              tracker.markPolled(op.target, now)
              reference.markPolled(op.target, now)
              break
            case "set":
              tracker.set(op.target, op.band, now, { ttlS: op.ttl })
              reference.set(op.target, op.band, now, op.ttl)
              break
            case "due":
              assert.deepStrictEqual(tracker.dueTargets(now), reference.dueTargets(now))
          }
          assert.deepStrictEqual(transitions, reference.transitions)
        }
        assert.deepStrictEqual(tracker.dueTargets(now), reference.dueTargets(now))
        assert.deepStrictEqual(
          [...tracker.snapshot()].map(([target, state]) => [target, state.band]),
          [...reference.states].map(([target, state]) => [target, ["HOT", "WARM", "COOL", "IDLE"][state.band]])
        )
      }),
      { numRuns: 300 }
    )
  })

  it("bands only change through the documented transitions", () => {
    fc.assert(
      fc.property(anyScript, (script) => {
        const { tracker, transitions } = recording(fastConfig)
        const known = new Map<string, Band.Band>()
        let now = 0
        for (const [step, op] of script) {
          now += Math.max(0, step)
          const before = transitions.length
          if (op.kind === "direct") tracker.onDirect(op.target, now)
          else if (op.kind === "ambient") tracker.onAmbient(op.target, now)
          else if (op.kind === "set") tracker.set(op.target, op.band, now, { ttlS: op.ttl })
          else if (op.kind === "seed") tracker.seed(op.target)
          else if (op.kind === "forget") tracker.forget(op.target) && known.delete(op.target)
          else if (op.kind === "poll") tracker.markPolled(op.target, now)
          else tracker.dueTargets(now)
          for (const t of transitions.slice(before)) {
            const rank = { HOT: 0, WARM: 1, COOL: 2, IDLE: 3 }
            assert.notStrictEqual(t.from, t.to)
            assert.strictEqual(t.from, known.get(t.target) ?? (t.target === "#pin" ? "WARM" : "IDLE"))
            if (t.cause === "direct") assert.strictEqual(t.to, "HOT")
            if (t.cause === "ambient") {
              assert.strictEqual(rank[t.to], rank[t.from] - 1)
              assert.isAtLeast(rank[t.to], 1)
            }
            if (t.cause === "decay") assert.strictEqual(rank[t.to], rank[t.from] + 1)
            assert.notStrictEqual(t.target, "#pin")
            known.set(t.target, t.to)
          }
          for (const [target, state] of tracker.snapshot()) {
            assert.strictEqual(state.band, known.get(target) ?? (target === "#pin" ? "WARM" : "IDLE"))
          }
        }
      }),
      { numRuns: 300 }
    )
  })

  it("without a stimulus, a target is IDLE once the sum of holds has passed", () => {
    const sumOfHolds = 3 + 5 + 7
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 20 }), fc.constantFrom("direct", "ambient"), anyTarget)),
        (stimuli) => {
          const tracker = Tracker.make(fastConfig)
          let now = 0
          for (const [step, kind, target] of stimuli) {
            now += step
            if (kind === "direct") tracker.onDirect(target, now)
            else tracker.onAmbient(target, now)
            tracker.dueTargets(now)
          }
          tracker.dueTargets(now + sumOfHolds + 0.001)
          for (const [target, state] of tracker.snapshot()) {
            assert.strictEqual(state.band, target === "#pin" ? "WARM" : "IDLE")
          }
        }
      )
    )
  })

  it("ticking every tick_s, no target waits longer than its band's interval plus one tick", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom("direct", "ambient", "none"), anyTarget), { maxLength: 200 }),
        (events) => {
          const tracker = Tracker.make(fastConfig)
          for (const target of targets) tracker.seed(target)
          const intervals = { HOT: 2, WARM: 4, COOL: 6, IDLE: 10 }
          const lastPoll = new Map<string, number>()
          const bandAtPreviousTick = new Map<string, Band.Band>()
          for (let tick = 0; tick < events.length; tick++) {
            const now = tick * fastConfig.tick_s
            const [kind, target] = events[tick]!
            if (kind === "direct") tracker.onDirect(target, now)
            if (kind === "ambient") tracker.onAmbient(target, now)
            const due = new Set(tracker.dueTargets(now))
            for (const [name, state] of tracker.snapshot()) {
              const polled = lastPoll.get(name)
              // Complete and sound: due exactly when never polled or at least one interval has passed.
              assert.strictEqual(due.has(name), polled === undefined || now - polled >= intervals[state.band])
              if (due.has(name) && polled !== undefined) {
                const previous = bandAtPreviousTick.get(name) ?? state.band
                assert.isBelow(now - polled, intervals[previous] + fastConfig.tick_s + 1e-9)
              }
            }
            for (const name of due) {
              tracker.markPolled(name, now)
              lastPoll.set(name, now)
            }
            for (const [name, state] of tracker.snapshot()) bandAtPreviousTick.set(name, state.band)
          }
        }
      )
    )
  })
})
