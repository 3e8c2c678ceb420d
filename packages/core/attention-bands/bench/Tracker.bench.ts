import { Bench } from "@heed/bench"
import { AttentionConfig, Tracker } from "../src/index.ts"
import { ReferenceTracker } from "../test/ReferenceTracker.ts"

// A small deterministic PRNG (mulberry32) so every run simulates the same traffic.
const prng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const gc = (): void => (globalThis as { gc?: () => void }).gc?.()
const memory = (): number => {
  gc()
  gc()
  const usage = process.memoryUsage()
  return usage.heapUsed + usage.arrayBuffers
}

const quantile = (sorted: ReadonlyArray<number>, q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!
const round = (value: number): number => Number(value.toPrecision(4))

const config = AttentionConfig.defaults
const TICK_S = config.tick_s

interface Simulation {
  readonly tracker: Tracker.Tracker
  readonly names: ReadonlyArray<string>
  readonly random: () => number
  now: number
}

/** 1% of the targets stimulated per simulated second (1 in 10 of them a mention), a tick every 5 s. */
const simulate = (sim: Simulation, seconds: number, onTick?: (ms: number, due: number) => void): void => {
  const { names, random, tracker } = sim
  const perSecond = Math.round(names.length / 100)
  const end = sim.now + seconds
  while (sim.now < end) {
    for (let s = 0; s < TICK_S; s++) {
      const now = sim.now + s
      for (let i = 0; i < perSecond; i++) {
        const target = names[Math.floor(random() * names.length)]!
        if (random() < 0.1) tracker.onDirect(target, now)
        else tracker.onAmbient(target, now)
      }
    }
    sim.now += TICK_S
    const start = performance.now()
    const due = tracker.dueTargets(sim.now)
    for (const target of due) tracker.markPolled(target, sim.now)
    const ms = performance.now() - start
    onTick?.(ms, due.length)
  }
}

const setup = (count: number): Simulation => {
  const names = Array.from({ length: count }, (_, i) => `#channel-${i}`)
  const tracker = Tracker.make(config)
  for (const name of names) tracker.seed(name)
  return { tracker, names, random: prng(42), now: 0 }
}

// ---------------------------------------------------------------------------------------------------- the run

const TARGETS = 100_000
const before = memory()
const sim = setup(TARGETS)
let firstTickMs = 0
let firstTickDue = 0
// Warm-up hour (not measured): the first tick polls all 100,000 never-polled targets at once.
simulate(sim, 3600, (ms, due) => {
  if (firstTickDue === 0) {
    firstTickMs = ms
    firstTickDue = due
  }
})
const bytesPerTarget = (memory() - before) / TARGETS
const tickMs: Array<number> = []
const dueCounts: Array<number> = []
simulate(sim, 3600, (ms, due) => {
  tickMs.push(ms)
  dueCounts.push(due)
})
const sortedTicks = [...tickMs].sort((a, b) => a - b)
const meanDue = dueCounts.reduce((sum, n) => sum + n, 0) / dueCounts.length

Bench.record("attention-bands: 100k targets, 1%/s stimulated, tick every 5 s, one simulated hour", [
  {
    name: "tick (dueTargets + markPolled), steady-state hour",
    figures: {
      samples: tickMs.length,
      mean_ms: round(tickMs.reduce((sum, ms) => sum + ms, 0) / tickMs.length),
      p50_ms: round(quantile(sortedTicks, 0.5)),
      p99_ms: round(quantile(sortedTicks, 0.99)),
      max_ms: round(sortedTicks.at(-1)!),
      due_per_tick: Math.round(meanDue),
      max_due: Math.max(...dueCounts)
    }
  },
  {
    name: "first tick (all 100k never polled)",
    figures: { samples: 1, p50_ms: round(firstTickMs), due_per_tick: firstTickDue }
  },
  {
    name: "memory after one simulated hour",
    figures: { targets: TARGETS, bytes_per_target: Math.round(bytesPerTarget) }
  }
])

// ----------------------------------------------------------------------------- cost grows with due targets, not n

/** n targets that are never due, plus 100 kept HOT by a mention before every tick (so exactly 100 are due). */
const quiet = (count: number) => {
  const names = Array.from({ length: count }, (_, i) => `#c${i}`)
  const tracker = Tracker.make(config)
  const hot = names.slice(0, 100)
  // Polled "in the future": never due in this run. The 100 hot ones are polled at 0 and then every 30 s.
  for (const name of names) tracker.markPolled(name, hot.includes(name) ? 0 : 1e9)
  let now = 0
  return {
    tracker,
    tick: () => {
      now += 30
      for (const name of hot) tracker.onDirect(name, now)
      const due = tracker.dueTargets(now)
      for (const name of due) tracker.markPolled(name, now)
      return due.length
    }
  }
}

const quiet1k = quiet(1_000)
const quiet100k = quiet(100_000)
const quiet1m = quiet(1_000_000)
await Bench.run(
  "attention-bands: tick with 100 due targets, by tracked targets",
  [
    { name: "1,000 targets", fn: quiet1k.tick, figures: { due: quiet1k.tick() } },
    { name: "100,000 targets", fn: quiet100k.tick, figures: { due: quiet100k.tick() } },
    { name: "1,000,000 targets", fn: quiet1m.tick, figures: { due: quiet1m.tick() } }
  ],
  { timeMs: 500 }
)

// A scan-based tracker (upstream's algorithm) for comparison: it touches every target on every tick.
const scan = new ReferenceTracker(config)
for (let i = 0; i < 100_000; i++) scan.markPolled(`#c${i}`, i < 100 ? 0 : 1e9)
let scanNow = 0
await Bench.run(
  "attention-bands: scan baseline (upstream's algorithm)",
  [
    {
      name: "100,000 targets, 100 due",
      fn: () => {
        scanNow += 30
        for (let i = 0; i < 100; i++) scan.onDirect(`#c${i}`, scanNow)
        for (const name of scan.dueTargets(scanNow)) scan.markPolled(name, scanNow)
      }
    }
  ],
  { timeMs: 500 }
)

// ------------------------------------------------------------------------------------------------ stimulus cost

const stimuli = setup(TARGETS)
simulate(stimuli, 60)
const random = prng(7)
await Bench.run(
  "attention-bands: one stimulus (100k targets)",
  [
    {
      name: "onDirect",
      fn: () => stimuli.tracker.onDirect(stimuli.names[Math.floor(random() * TARGETS)]!, stimuli.now)
    },
    {
      name: "onAmbient",
      fn: () => stimuli.tracker.onAmbient(stimuli.names[Math.floor(random() * TARGETS)]!, stimuli.now)
    }
  ],
  { timeMs: 300 }
)

// -------------------------------------------------------------------------------------------------- message path

// 10k messages (1 in 10 a mention, the rest ambient) on n seeded and polled targets, with time moving on 10 ms per
// message; CPU time of the process (process.cpuUsage: on a shared machine it does not count the time spent waiting
// for a core) beside wall time. `uniform` picks every target
// with the same chance, so at 100k targets nearly every message touches state that is not in any CPU cache;
// `zipf` picks target k with weight 1/k (a few busy channels, a long quiet tail), as chat traffic is spread. The
// `Map.get only` rows are the floor of any tracker keyed by name: the one hash lookup each message needs;
// `Map.get + one record` rows add what any tracker also needs, reading and writing one per-target record (64 bytes,
// as heed's), whose cache misses are what make 100k targets dearer than 1k for every implementation.
const MESSAGES = 10_000
const ROUNDS = 30
const cpuMs = (): number => {
  const used = process.cpuUsage()
  return (used.user + used.system) / 1000
}

const picksFor = (count: number, traffic: "uniform" | "zipf", seed: number): Int32Array => {
  const random = prng(seed)
  const picks = new Int32Array(MESSAGES * ROUNDS)
  if (traffic === "uniform") {
    for (let i = 0; i < picks.length; i++) picks[i] = Math.floor(random() * count)
    return picks
  }
  const cumulative = new Float64Array(count)
  let total = 0
  for (let k = 0; k < count; k++) cumulative[k] = total += 1 / (k + 1)
  for (let i = 0; i < picks.length; i++) {
    const u = random() * total
    let lo = 0
    let hi = count - 1
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (cumulative[mid]! < u) lo = mid + 1
      else hi = mid
    }
    // spread the busy ranks over the id space, so busy targets are not also the first created (a plain product:
    // Math.imul would wrap past 2^31 and give negative indexes from rank 53,021 on)
    picks[i] = (lo * 40_503) % count
  }
  return picks
}

interface Stimulable {
  readonly onDirect: (target: string, now: number) => unknown
  readonly onAmbient: (target: string, now: number) => unknown
}

const messageRounds = (
  count: number,
  traffic: "uniform" | "zipf",
  make: (names: ReadonlyArray<string>) => Stimulable | ((name: string) => unknown)
) => {
  const names = Array.from({ length: count }, (_, i) => `#channel-${i}`)
  const subject = make(names)
  const picks = picksFor(count, traffic, 11)
  const mentions = Uint8Array.from(picksFor(10, "uniform", 13), (pick) => (pick === 0 ? 1 : 0))
  const wall: Array<number> = []
  const cpu: Array<number> = []
  let now = 1
  for (let round = 0; round < ROUNDS; round++) {
    const cpuStart = cpuMs()
    const start = performance.now()
    if (typeof subject === "function") {
      for (let i = round * MESSAGES; i < (round + 1) * MESSAGES; i++) subject(names[picks[i]!]!)
    } else {
      for (let i = round * MESSAGES; i < (round + 1) * MESSAGES; i++) {
        now += 0.01
        const name = names[picks[i]!]!
        if (mentions[i] === 1) subject.onDirect(name, now)
        else subject.onAmbient(name, now)
      }
    }
    wall.push(performance.now() - start)
    cpu.push(cpuMs() - cpuStart)
    if (subject instanceof ReferenceTracker) subject.transitions.length = 0
  }
  wall.sort((a, b) => a - b)
  cpu.sort((a, b) => a - b)
  return {
    samples: ROUNDS,
    p50_ms: round(quantile(wall, 0.5)),
    min_ms: round(wall[0]!),
    cpu_p50_ms: round(quantile(cpu, 0.5))
  }
}

const messageRows: Array<{ name: string; figures: Record<string, number> }> = []
for (const traffic of ["uniform", "zipf"] as const) {
  const heed: Record<number, number> = {}
  for (const count of [1_000, 10_000, 100_000]) {
    const tracked = messageRounds(count, traffic, (names) => {
      const tracker = Tracker.make(config)
      for (const name of names) tracker.markPolled(name, 0)
      return tracker
    })
    heed[count] = tracked.cpu_p50_ms
    messageRows.push({
      name: `${traffic}: 10k messages, ${count.toLocaleString("en")} targets`,
      figures: { ...tracked, cpu_vs_1k: round(tracked.cpu_p50_ms / heed[1_000]!) }
    })
    const reference = messageRounds(count, traffic, (names) => {
      const tracker = new ReferenceTracker(config)
      for (const name of names) tracker.markPolled(name, 0)
      return tracker
    })
    messageRows.push({
      name: `${traffic}: 10k messages, ${count.toLocaleString("en")} targets, scan-based reference`,
      figures: { ...reference, reference_cpu_over_heed: round(reference.cpu_p50_ms / tracked.cpu_p50_ms) }
    })
    const floor = messageRounds(count, traffic, (names) => {
      const map = new Map(names.map((name, i) => [name, i]))
      const seen = new Int32Array(1)
      return (name: string) => {
        seen[0] = seen[0]! + map.get(name)!
      }
    })
    messageRows.push({ name: `${traffic}: 10k Map.get only, ${count.toLocaleString("en")} targets`, figures: floor })
    const recordFloor = messageRounds(count, traffic, (names) => {
      const map = new Map(names.map((name, i) => [name, i]))
      const records = new Float64Array(names.length * 8)
      let stamp = 0
      return (name: string) => {
        const at = map.get(name)! * 8
        records[at + 5] = records[at + 2]! + ++stamp
      }
    })
    messageRows.push({
      name: `${traffic}: 10k Map.get + one record, ${count.toLocaleString("en")} targets`,
      figures: recordFloor
    })
  }
}
Bench.record("attention-bands: message path (onDirect 1 in 10, onAmbient 9 in 10)", messageRows)
