/**
 * The benchmark harness. A bench file (`bench/*.bench.ts` in a package) calls {@link run} with its
 * cases; `./heed bench` runs every file under Node and collects the results into
 * `bench-results/<package>.json`.
 *
 * @since 0.1.0
 */
import { appendFileSync } from "node:fs"

/**
 * A timed case. `fn` runs once per iteration; fast functions are batched automatically so each sample
 * lasts long enough to time. Every value `fn` returns is kept in a sink, so a pure function's work cannot be
 * optimised away. `figures` are extra numbers reported with the case (tokens, bytes, ratios).
 *
 * @category models
 * @since 0.1.0
 */
export interface Case {
  readonly name: string
  readonly fn: () => unknown
  readonly figures?: Readonly<Record<string, number>> | (() => Readonly<Record<string, number>>)
  /**
   * Runs before every call of `fn`, untimed (e.g. to build the fresh state that `fn` consumes): each timed call
   * sees its own fresh state, however many calls a sample batches.
   */
  readonly beforeEach?: () => void
}

/**
 * How long each case runs. Defaults: 1,000 ms (or `HEED_BENCH_TIME_MS`), at least 10 and at most
 * 100,000 samples, after 100 ms of warm-up.
 *
 * @category models
 * @since 0.1.0
 */
export interface RunOptions {
  readonly timeMs?: number
  readonly minSamples?: number
  readonly maxSamples?: number
  readonly warmupMs?: number
}

/**
 * One result, as written to `bench-results/<package>.json`. Figures-only results ({@link record}) have
 * `samples: 0` and no timings.
 *
 * @category models
 * @since 0.1.0
 */
export interface Result {
  readonly suite: string
  readonly name: string
  readonly samples: number
  readonly mean_ms?: number
  readonly p50_ms?: number
  readonly p99_ms?: number
  /** CPU time of the process per call (it leaves out time spent waiting for a core on a busy machine). */
  readonly cpu_mean_ms?: number
  readonly cpu_p50_ms?: number
  readonly [figure: string]: string | number | undefined
}

const quantile = (sorted: ReadonlyArray<number>, q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!

const round = (ms: number): number => Number(ms.toPrecision(4))

const emit = (result: Result): void => {
  const out = process.env.HEED_BENCH_OUT
  if (out) appendFileSync(out, `${JSON.stringify(result)}\n`)
}

/** Every result of a timed call lands here: a write the engine must keep, so the call's work is kept too. */
const sink: Array<unknown> = new Array(256)
let sunk = 0

/**
 * CPU time of the process in ms (user + system, every thread, so the garbage collector's helpers too): unlike wall
 * time, it leaves out the time spent waiting for a core on a busy machine. (`process.threadCpuUsage` would leave out
 * the helpers, but on Linux it moves in steps of a scheduler tick, too coarse for one sample.)
 */
const cpuMs = (): number => {
  const used = process.cpuUsage()
  return (used.user + used.system) / 1000
}

/** The CPU time of the last {@link timeOnce} batch, per call. */
let lastCpuMs = 0

/** The mean time of one call over a batch; with `beforeEach`, each call is timed on its own after its set-up. */
const timeOnce = (benchCase: Case, batch: number): number => {
  const { fn, beforeEach } = benchCase
  if (beforeEach === undefined) {
    const cpuStart = cpuMs()
    const start = performance.now()
    for (let i = 0; i < batch; i++) sink[sunk++ & 255] = fn()
    const wall = (performance.now() - start) / batch
    lastCpuMs = (cpuMs() - cpuStart) / batch
    return wall
  }
  let total = 0
  let cpu = 0
  for (let i = 0; i < batch; i++) {
    beforeEach()
    const cpuStart = cpuMs()
    const start = performance.now()
    sink[sunk++ & 255] = fn()
    total += performance.now() - start
    cpu += cpuMs() - cpuStart
  }
  lastCpuMs = cpu / batch
  return total / batch
}

const measure = (benchCase: Case, options: RunOptions): { wall: Array<number>; cpu: Array<number> } => {
  const timeMs = options.timeMs ?? Number(process.env.HEED_BENCH_TIME_MS ?? 1000)
  const minSamples = options.minSamples ?? 10
  const maxSamples = options.maxSamples ?? 100_000
  const warmupMs = options.warmupMs ?? 100
  // Warm up, and find how many calls make a sample of at least 0.05 ms (timer resolution is ~µs).
  let batch = 1
  const warmupEnd = performance.now() + warmupMs
  do {
    const ms = timeOnce(benchCase, batch)
    if (ms * batch < 0.05) batch = Math.min(batch * 2, 1 << 20)
  } while (performance.now() < warmupEnd)
  const wall: Array<number> = []
  const cpu: Array<number> = []
  const end = performance.now() + timeMs
  while (wall.length < maxSamples && (wall.length < minSamples || performance.now() < end)) {
    wall.push(timeOnce(benchCase, batch))
    cpu.push(lastCpuMs)
  }
  return { wall, cpu }
}

const printTable = (suite: string, results: ReadonlyArray<Result>): void => {
  const figureKeys = [...new Set(results.flatMap((r) => Object.keys(r)))].filter(
    (key) => !["suite", "name", "samples", "mean_ms", "p50_ms", "p99_ms", "cpu_mean_ms", "cpu_p50_ms"].includes(key)
  )
  const header = ["case", "samples", "mean ms", "p50 ms", "p99 ms", "cpu mean ms", "cpu p50 ms", ...figureKeys]
  const rows = results.map((r) => [
    r.name,
    String(r.samples),
    r.mean_ms === undefined ? "-" : String(r.mean_ms),
    r.p50_ms === undefined ? "-" : String(r.p50_ms),
    r.p99_ms === undefined ? "-" : String(r.p99_ms),
    r.cpu_mean_ms === undefined ? "-" : String(r.cpu_mean_ms),
    r.cpu_p50_ms === undefined ? "-" : String(r.cpu_p50_ms),
    ...figureKeys.map((key) => (r[key] === undefined ? "" : String(r[key])))
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)))
  const line = (cells: ReadonlyArray<string>) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`
  console.log(`\n${suite}`)
  console.log(line(header))
  console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`)
  for (const row of rows) console.log(line(row))
}

/**
 * Times each case in turn, prints a table and reports the results to `./heed bench`.
 *
 * **Example** (A bench file)
 *
 * ```ts
 * import { Bench } from "@heed/bench"
 *
 * await Bench.run("sorting", [
 *   { name: "sort 1k numbers", fn: () => Array.from({ length: 1000 }, Math.random).sort() }
 * ])
 * ```
 *
 * @category running
 * @since 0.1.0
 */
export const run = async (suite: string, cases: ReadonlyArray<Case>, options: RunOptions = {}): Promise<void> => {
  const results: Array<Result> = []
  for (const benchCase of cases) {
    const measured = measure(benchCase, options)
    const samples = measured.wall.sort((a, b) => a - b)
    const cpu = measured.cpu.sort((a, b) => a - b)
    const mean = samples.reduce((sum, ms) => sum + ms, 0) / samples.length
    const cpuMean = cpu.reduce((sum, ms) => sum + ms, 0) / cpu.length
    const figures = typeof benchCase.figures === "function" ? benchCase.figures() : (benchCase.figures ?? {})
    const result: Result = {
      suite,
      name: benchCase.name,
      samples: samples.length,
      mean_ms: round(mean),
      p50_ms: round(quantile(samples, 0.5)),
      p99_ms: round(quantile(samples, 0.99)),
      cpu_mean_ms: round(cpuMean),
      cpu_p50_ms: round(quantile(cpu, 0.5)),
      ...figures
    }
    results.push(result)
    emit(result)
    // Give the event loop a turn between cases so timers and GC do not pile up.
    await new Promise((resolve) => setImmediate(resolve))
  }
  printTable(suite, results)
}

/**
 * Reports figures as their own rows: untimed ones (token counts, bytes, ratios) with `samples: 0`, or timings a
 * bench measured itself (e.g. ticks of a simulation), passing `samples`, `mean_ms`, `p50_ms` and `p99_ms` as figures.
 *
 * @category running
 * @since 0.1.0
 */
export const record = (
  suite: string,
  rows: ReadonlyArray<{ readonly name: string; readonly figures: Readonly<Record<string, number>> }>
): void => {
  const results = rows.map((row): Result => ({ suite, name: row.name, samples: 0, ...row.figures }))
  for (const result of results) emit(result)
  printTable(suite, results)
}
