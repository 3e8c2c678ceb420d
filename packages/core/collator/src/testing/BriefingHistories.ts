/**
 * Random write histories that check an incremental briefing against a full regeneration after every step.
 *
 * A history is a seeded sequence of steps: tool calls through `AwarenessTools.call` (statuses, alerts raised and
 * resolved, suppressions set and cleared, patterns, reminders and their state changes, acknowledgements, deletes and
 * restores, the time-zone preference), reads that deliver due intentions, and clock advances (so that statuses go
 * stale, suppressions and acknowledgements expire and reminders fall due). Each step runs on one of the `writers`
 * (replicas over one store); after it, every one of `checked` must peek the same briefing as `reference`, field for
 * field. Build `reference` with `incremental: false` and `maxCacheAgeSec: 0`, so that it reads the store afresh and
 * collates from scratch every time, and `checked` with `maxCacheAgeSec: 0`, so that each check regenerates through
 * the incremental path.
 *
 * @since 0.2.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Metric from "effect/Metric"
import type { AwarenessShape } from "../Awareness.ts"
import { Awareness } from "../Awareness.ts"
import * as AwarenessTools from "../AwarenessTools.ts"

/**
 * What {@link run} needs. `advance(ms)` moves the clock every instance reads, which is the `Clock` of the effect
 * `run` returns (for example `TestClock.adjust(Duration.millis(ms))` in a test).
 *
 * @category models
 * @since 0.2.0
 */
export interface Options {
  readonly seed: number
  readonly steps: number
  readonly writers: ReadonlyArray<AwarenessShape>
  readonly checked: ReadonlyArray<AwarenessShape>
  readonly reference: AwarenessShape
  readonly advance: (ms: number) => Effect.Effect<void>
}

/**
 * What a history did: how many steps wrote (tool calls that succeeded), failed (refused tool calls, such as an
 * update of an id that is gone) and compared.
 *
 * @category models
 * @since 0.2.0
 */
export interface Outcome {
  readonly writes: number
  readonly refused: number
  readonly compared: number
}

/**
 * A small seeded generator of numbers in [0, 1) (mulberry32): a failing history replays from its seed, and other
 * randomized tests can use it the same way.
 *
 * @category constructors
 * @since 0.2.0
 */
export const random = (seed: number): (() => number) => {
  let state = seed >>> 0
  return (): number => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

type Rng = () => number

const pick = <A>(rng: Rng, items: ReadonlyArray<A>): A => items[Math.floor(rng() * items.length)] as A
const chance = (rng: Rng, p: number): boolean => rng() < p

const sources = ["nas", "ci", "web", "db"]
const alertIds = ["disk", "cpu", "backup", "link"]
const tags = ["infra", "disk", "net", "maintenance"]
const metrics = ["disk_pct", "cpu_pct"]

/** The ids the history has seen, by kind, so that later steps can change or remove them. */
interface Known {
  readonly intentions: Array<string>
  readonly suppressions: Array<string>
  readonly any: Array<string>
}

type Call = readonly [name: string, params: Record<string, unknown>, kind?: keyof Known]

const statusCall = (rng: Rng): Call => [
  "report_status",
  {
    source: pick(rng, sources),
    tags: [],
    metrics: { load: Math.floor(rng() * 100) },
    ttl_sec: pick(rng, [30, 120, 3600]),
    ...(chance(rng, 0.3) ? { headline: `running ${Math.floor(rng() * 5)} jobs` } : {})
  }
]

const alertCall = (rng: Rng): Call => [
  "report_alert",
  {
    source: pick(rng, sources),
    tags: chance(rng, 0.5) ? [pick(rng, tags)] : [],
    alert_id: pick(rng, alertIds),
    level: pick(rng, ["warning", "critical"]),
    message: `${pick(rng, ["disk full", "cpu high", "backup late", "link down"])} (${Math.floor(rng() * 3)})`,
    resolved: chance(rng, 0.3),
    ...(chance(rng, 0.4) ? { metric: pick(rng, metrics) } : {}),
    ...(chance(rng, 0.2) ? { labels: { rack: pick(rng, ["a", "b"]) } } : {})
  }
]

const suppressCall = (rng: Rng): Call => [
  "suppress_alert",
  {
    ...(chance(rng, 0.6) ? { source: pick(rng, sources) } : {}),
    ...(chance(rng, 0.3) ? { tags: [pick(rng, tags)] } : {}),
    ...(chance(rng, 0.3) ? { metric: pick(rng, metrics) } : {}),
    level: pick(rng, ["warning", "critical"]),
    duration_minutes: pick(rng, [1, 5, 60]),
    escalation_override: chance(rng, 0.7)
  },
  "suppressions"
]

const patternCall = (rng: Rng): Call => [
  "learn_pattern",
  {
    source: pick(rng, ["", ...sources]),
    tags: [],
    description: "expected",
    conditions: chance(rng, 0.5)
      ? { day_of_week: pick(rng, ["friday", "saturday"]) }
      : { alert_id: `${pick(rng, alertIds)}*`, hour_range: [pick(rng, [0, 10]), pick(rng, [14, 24])] },
    effect: chance(rng, 0.5) ? `suppress ${pick(rng, alertIds)}` : ""
  }
]

const remindCall = (rng: Rng, nowMs: number): Call => [
  "remind",
  {
    goal: `follow up ${Math.floor(rng() * 10)}`,
    source: pick(rng, sources),
    tags: [],
    deliver_at: new Date(nowMs + pick(rng, [-60_000, 30_000, 600_000, 7_200_000])).toISOString(),
    urgency: pick(rng, ["low", "normal", "high"])
  },
  "intentions"
]

/** One step's tool call, or `undefined` when the step is a read or a clock advance (decided by the caller). */
const callOf = (rng: Rng, known: Known, nowMs: number): Call | undefined => {
  const roll = rng()
  if (roll < 0.18) return statusCall(rng)
  if (roll < 0.42) return alertCall(rng)
  if (roll < 0.5) return suppressCall(rng)
  if (roll < 0.55 && known.suppressions.length > 0)
    return ["clear_suppression", { entry_id: pick(rng, known.suppressions) }]
  if (roll < 0.6) return patternCall(rng)
  if (roll < 0.68) return remindCall(rng, nowMs)
  if (roll < 0.75 && known.intentions.length > 0) {
    const state = pick(rng, ["pending", "snoozed", "completed", "cancelled", "active"])
    const deliverAt = new Date(nowMs + pick(rng, [-1000, 120_000])).toISOString()
    return [
      "update_intention",
      { entry_id: pick(rng, known.intentions), state, ...(state === "snoozed" ? { deliver_at: deliverAt } : {}) }
    ]
  }
  if (roll < 0.79 && known.intentions.length > 0)
    return ["acted_on", { entry_id: pick(rng, known.intentions), action: "done" }]
  if (roll < 0.83 && known.any.length > 0) return ["delete_entry", { entry_id: pick(rng, known.any) }]
  if (roll < 0.86 && known.any.length > 0) return ["restore_entry", { entry_id: pick(rng, known.any) }]
  if (roll < 0.88)
    return ["set_preference", { key: "timezone", value: pick(rng, ["UTC", "Europe/Berlin", "America/New_York"]) }]
  return undefined
}

/** The first path where two JSON values differ, for the failure message. */
const firstDifference = (a: unknown, b: unknown, path = "briefing"): string | undefined => {
  if (JSON.stringify(a) === JSON.stringify(b)) return undefined
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) {
    return `${path}: ${JSON.stringify(a)} ≠ ${JSON.stringify(b)}`
  }
  const keys = new Set([...Object.keys(a), ...Object.keys(b)])
  for (const key of keys) {
    const found = firstDifference(
      (a as Record<string, unknown>)[key],
      (b as Record<string, unknown>)[key],
      `${path}.${key}`
    )
    if (found !== undefined) return found
  }
  return `${path}: ${JSON.stringify(a)} ≠ ${JSON.stringify(b)}`
}

/** Every checked instance peeks what the reference peeks; dies naming the seed, step and first difference. */
const compare = (options: Options, step: number, what: string) =>
  Effect.gen(function* () {
    const expected = yield* options.reference.peekBriefing
    for (const [index, checked] of options.checked.entries()) {
      const actual = yield* checked.peekBriefing
      const difference = firstDifference(actual, expected)
      if (difference !== undefined) {
        return yield* Effect.die(
          new Error(`seed ${options.seed}, step ${step} (${what}), checked instance ${index}: ${difference}`)
        )
      }
    }
  })

/**
 * Runs one history and checks after every step (see the module description). Dies with the seed, the step and the
 * first differing field when a checked briefing differs from the reference's.
 *
 * @category constructors
 * @since 0.2.0
 */
export const run = (options: Options): Effect.Effect<Outcome> =>
  Effect.gen(function* () {
    const rng = random(options.seed)
    const known: Known = { intentions: [], suppressions: [], any: [] }
    let writes = 0
    let refused = 0
    for (let step = 0; step < options.steps; step++) {
      const writer = pick(rng, options.writers)
      const call = callOf(rng, known, yield* Clock.currentTimeMillis)
      let what: string
      if (call !== undefined) {
        const [name, params, kind] = call
        what = name
        const exit = yield* Effect.exit(Effect.provideService(AwarenessTools.call(name, params), Awareness, writer))
        if (Exit.isSuccess(exit)) {
          writes++
          const id = (exit.value as { readonly id?: unknown }).id
          if (typeof id === "string") {
            known.any.push(id)
            if (kind !== undefined) known[kind].push(id)
          }
        } else refused++
      } else if (chance(rng, 0.4)) {
        what = "delivering read"
        yield* Effect.orDie(writer.getBriefing())
      } else {
        const ms = pick(rng, [1000, 30_000, 120_000, 1_800_000, 10_800_000])
        what = `advance ${ms} ms`
        yield* options.advance(ms)
      }
      yield* Effect.orDie(compare(options, step, what))
    }
    return { writes, refused, compared: options.steps }
  })

/**
 * How the briefings of this process read their snapshots so far, from the metric `heed.awareness.briefing_snapshots`:
 * refreshed from the store's changes (`changes`), or afresh, by reason (`first`, `disabled`, `unsupported`,
 * `unknown`, `large`, `clock`). Provide a fresh `Metric.MetricRegistry` around a test to count only its own.
 *
 * @category getters
 * @since 0.2.0
 */
export const snapshotReads: Effect.Effect<{
  readonly changes: number
  readonly full: Readonly<Record<string, number>>
}> = Effect.map(Metric.snapshot, (snapshots) => {
  let changes = 0
  const full: Record<string, number> = {}
  for (const snapshot of snapshots) {
    if (snapshot.id !== "heed.awareness.briefing_snapshots") continue
    const count = Number((snapshot.state as { readonly count: number | bigint }).count)
    const reason = snapshot.attributes?.reason
    if (snapshot.attributes?.read === "changes") changes += count
    else if (typeof reason === "string") full[reason] = (full[reason] ?? 0) + count
  }
  return { changes, full }
})
