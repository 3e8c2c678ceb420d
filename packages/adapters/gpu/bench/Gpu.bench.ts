// ./heed bench gpu: the TS reference scorers against onnxruntime, side by side in one run.
//
// Rows: one refocus step (gather + score + greedy) at N = 2,048 / 8,192 entries and d = 64 / 768, for the
// analytic LensNet and the LensNet-size attention head, TS reference vs ORT CPU (and the GPU provider named
// by HEED_EP_REQUIRE, when set); batched scoring of 8 variants; session start-up and the first (cold) score of a
// new session; RSS.
//
// The refocus-step backends are timed interleaved, round after round, so the load from other work on a shared
// machine falls on all of them alike. ORT CPU sessions are pinned to 1 intra-op thread, like the single-threaded TS
// reference, so score_cpu_ms (the process's CPU time during the score call, all threads) compares like with like; at
// 8,192 x 768 a row with onnxruntime's default (one thread per core) is added. CPU time moves less than wall time
// under load, so the speedups are CPU-time ratios.
//
// Session and scoring calls are asynchronous, so this file times them itself and reports through `record`.
import { availableParallelism, loadavg } from "node:os"
import { Bench } from "@heed/bench"

const mb = (bytes: number) => Number((bytes / 2 ** 20).toFixed(1))
const rssBefore = process.memoryUsage().rss
const importStarted = performance.now()
const { Allocator, Gister, LensScorer, LodTree, SeededRandom, WorkingContext } = await import("@heed/allocator")
const { AttentionLens, Graphs, OnnxLensScorer } = await import("../src/index.ts")
const { Effect, Exit, Scope } = await import("effect")
const importMs = performance.now() - importStarted
const rssAfterImport = process.memoryUsage().rss

type Embeddings = import("@heed/allocator").LensScorer.Embeddings
type WC = import("@heed/allocator").WorkingContext.WorkingContext
type Tree = import("@heed/allocator").LodTree.LodTree
type Shape = import("../src/index.ts").OnnxLensScorer.OnnxLensScorerShape
type Provider = import("../src/index.ts").ExecutionProvider.Provider

const gpu =
  process.env.HEED_EP_REQUIRE === "cuda" || process.env.HEED_EP_REQUIRE === "webgpu"
    ? process.env.HEED_EP_REQUIRE
    : undefined
const providers: ReadonlyArray<Provider> = gpu === undefined ? ["cpu"] : ["cpu", gpu]
const timeMs = Number(process.env.HEED_BENCH_TIME_MS ?? 1000)
let sink = 0

interface Timing {
  readonly samples: number
  readonly mean_ms: number
  readonly p50_ms: number
  readonly p99_ms: number
  readonly cpu_ms: number
}

const round = (ms: number) => Number(ms.toPrecision(4))

/**
 * Times `fn` (after one untimed warm-up call) for `timeMs`, with at least `minSamples` samples. `cpu_ms` is the
 * process's CPU time per call (all threads): on a shared, loaded machine it moves far less than wall time.
 */
const time = async (fn: () => unknown, minSamples = 5): Promise<Timing> => {
  await fn()
  const samples: Array<number> = []
  const cpu = process.cpuUsage()
  const end = performance.now() + timeMs
  while (samples.length < minSamples || (performance.now() < end && samples.length < 1000)) {
    const start = performance.now()
    await fn()
    samples.push(performance.now() - start)
  }
  const used = process.cpuUsage(cpu)
  samples.sort((a, b) => a - b)
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.ceil(q * samples.length) - 1)]!
  return {
    samples: samples.length,
    mean_ms: round(samples.reduce((a, b) => a + b, 0) / samples.length),
    p50_ms: round(at(0.5)),
    p99_ms: round(at(0.99)),
    cpu_ms: round((used.user + used.system) / 1000 / samples.length)
  }
}

/** Seeded inputs in [-0.5, 0.5). */
const prng = (seed: number) => {
  const next = SeededRandom.make(seed)
  return () => next() - 0.5
}

/** A valid context of exactly `n` entries (K = 32): 30 % LOD1 gists, 70 % whole LOD0 blocks, a 160-token tail. */
const context = (n: number): WC => {
  const random = prng(n)
  const entries: Array<{ level: number; start: number }> = []
  let pos = 0
  while (entries.length < n - 160 - 32) {
    if (random() < -0.2) entries.push({ level: 1, start: pos })
    else for (let i = 0; i < 32; i++) entries.push({ level: 0, start: pos + i })
    pos += 32
  }
  while (entries.length < n) entries.push({ level: 0, start: pos++ })
  return WorkingContext.make(entries, { blockSize: 32, maxLevel: 2, totalTokens: pos })
}

/** Token embeddings with a topic drifting every 400 tokens, plus noise. */
const tokens = (count: number, dim: number): Float32Array => {
  const random = prng(dim)
  const out = new Float32Array(count * dim)
  for (let t = 0; t < count; t++) {
    const topic = Math.floor(t / 400)
    for (let k = 0; k < dim; k++) out[t * dim + k] = Math.cos(topic * 2.3 + k * 0.7) + random()
  }
  return out
}

const scope = Effect.runSync(Scope.make())
const open = (options: Parameters<typeof OnnxLensScorer.make>[0]): Promise<Shape> =>
  Effect.runPromise(Scope.provide(OnnxLensScorer.make(options), scope))

type ScoreFn = (
  entries: Embeddings,
  levels: Uint8Array,
  positions: Float64Array,
  tail: Embeddings
) => Float32Array | Promise<Float32Array>

const onnx =
  (scorer: Shape): ScoreFn =>
  (entries, levels, positions, tail) =>
    Effect.runPromise(scorer.score(entries, levels, positions, tail))

const cpuNow = () => {
  const used = process.cpuUsage()
  return (used.user + used.system) / 1000
}

interface StepSample {
  readonly step: number
  readonly stepCpu: number
  readonly wall: number
  readonly cpu: number
}

/** One refocus step (gather + score + greedy), timing the whole and the score call (wall and process CPU time). */
const step = async (tree: Tree, wc: WC, score: ScoreFn): Promise<StepSample> => {
  const [stepStarted, stepCpuStarted] = [performance.now(), cpuNow()]
  const entries = Effect.runSync(tree.gather(wc.entries))
  const levels = Uint8Array.from(wc.entries, (entry) => entry.level)
  const positions = Float64Array.from(wc.entries, (entry) => entry.start)
  const tail = tree.tokens(wc.totalTokens - 128, wc.totalTokens)
  const [started, cpuStarted] = [performance.now(), cpuNow()]
  const scores = await score(entries, levels, positions, tail)
  const [wall, cpu] = [performance.now() - started, cpuNow() - cpuStarted]
  const result = Allocator.greedy(wc, scores, { budget: wc.entries.length + 64 })
  sink += result.actions.length + scores[0]!
  return { step: performance.now() - stepStarted, stepCpu: cpuNow() - stepCpuStarted, wall, cpu }
}

const mean = (values: ReadonlyArray<number>) => values.reduce((a, b) => a + b, 0) / values.length

const summary = (wall: ReadonlyArray<number>) => {
  const sorted = [...wall].sort((a, b) => a - b)
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!
  return { samples: sorted.length, mean_ms: round(mean(sorted)), p50_ms: round(at(0.5)), p99_ms: round(at(0.99)) }
}

/**
 * Refocus steps of every backend in turn, round after round (after one untimed warm-up step each), so load from
 * other work on a shared machine falls on all of them alike. Each backend gets at least 5 steps (the slow TS
 * attention head exactly 3); the others go on until their own steps add up to `timeMs`.
 */
const interleaved = async (tree: Tree, wc: WC, backends: ReadonlyArray<readonly [string, ScoreFn]>) => {
  const samples = new Map(backends.map(([name]) => [name, [] as Array<StepSample>]))
  const wanted = (name: string) => (name.startsWith("TS attention") ? 3 : 5)
  const spent = (name: string) => samples.get(name)!.reduce((total, sample) => total + sample.step, 0)
  for (const [, score] of backends) await step(tree, wc, score)
  for (let round = 0; round < 1000; round++) {
    const more = backends.filter(([name]) => {
      const taken = samples.get(name)!.length
      return taken < wanted(name) || (!name.startsWith("TS attention") && spent(name) < timeMs)
    })
    if (more.length === 0) break
    for (const [name, score] of more) samples.get(name)!.push(await step(tree, wc, score))
  }
  return samples
}

const startup: Array<{ name: string; figures: Record<string, number> }> = []
const coldStarted = performance.now()
const coldCpu = cpuNow()
const analyticCpu = await open({ executionProvider: "cpu", threads: 1 })
startup.push({
  name: "first session of the process, cpu (cold: creates onnxruntime's environment; the import is under memory)",
  figures: { samples: 1, mean_ms: round(performance.now() - coldStarted), cpu_ms: round(cpuNow() - coldCpu) }
})

const stepRows: Array<{ name: string; figures: Record<string, number> }> = []
for (const n of [2048, 8192]) {
  for (const dim of [64, 768]) {
    const wc = context(n)
    const tree = await Effect.runPromise(
      LodTree.fromEmbeddings({ blockSize: 32, maxLevel: 2, dim }, tokens(wc.totalTokens, dim)).pipe(
        Effect.provide(Gister.layerMeanPool)
      )
    )
    const weights = AttentionLens.weights({ dim })
    const backends: Array<[string, ScoreFn]> = [
      ["TS analytic", (e, l, p, t) => LensScorer.analyticScore(e, l, p, t, { maxLevel: 2 })],
      ["TS attention head", (e, l, p, t) => AttentionLens.score(weights, e, l, p, t)]
    ]
    for (const provider of providers) {
      // CPU: 1 intra-op thread; a GPU provider: its defaults.
      const threads = provider === "cpu" ? 1 : undefined
      const label = provider === "cpu" ? "cpu, 1 thread" : provider
      const analytic =
        provider === "cpu" ? analyticCpu : await open({ executionProvider: provider, fallback: false, threads })
      const attention = await open({
        executionProvider: provider,
        fallback: false,
        threads,
        graph: Graphs.attentionLens(weights)
      })
      backends.push([`ORT ${label} analytic`, onnx(analytic)], [`ORT ${label} attention head`, onnx(attention)])
    }
    if (n === 8192 && dim === 768) {
      const label = `cpu, ${availableParallelism()} threads (default)`
      const analytic = await open({ executionProvider: "cpu" })
      const attention = await open({ executionProvider: "cpu", graph: Graphs.attentionLens(weights) })
      backends.push([`ORT ${label} analytic`, onnx(analytic)], [`ORT ${label} attention head`, onnx(attention)])
    }
    const reference = new Map<string, number>()
    for (const [name, samples] of await interleaved(tree, wc, backends)) {
      const model = name.endsWith("analytic") ? "analytic" : "attention"
      const timing = summary(samples.map((sample) => sample.step))
      const scoreMs = mean(samples.map((sample) => sample.wall))
      const scoreCpuMs = mean(samples.map((sample) => sample.cpu))
      if (name.startsWith("TS")) reference.set(model, scoreCpuMs)
      stepRows.push({
        name: `${name}, N=${n}, d=${dim}`,
        figures: {
          ...timing,
          cpu_ms: round(mean(samples.map((sample) => sample.stepCpu))),
          score_ms: round(scoreMs),
          score_cpu_ms: round(scoreCpuMs),
          score_cpu_speedup_vs_ts: round(reference.get(model)! / scoreCpuMs)
        }
      })
    }
  }
}
Bench.record(
  "refocus step (gather + score + greedy), warm sessions; score_ms / score_cpu_ms = the score call alone (wall / process CPU)",
  stepRows
)

// Batched scoring: 8 working-context variants (lengths 2,048 − 64·i) sharing one 128-token tail, d = 768.
const batchDim = 768
const batchTail = { rows: 128, dim: batchDim, data: tokens(128, batchDim) }
const variants = Array.from({ length: 8 }, (_, i) => {
  const rows = 2048 - 64 * i
  const random = prng(i + 1)
  return {
    entries: { rows, dim: batchDim, data: Float32Array.from({ length: rows * batchDim }, random) },
    levels: Uint8Array.from({ length: rows }, (_, j) => j % 3),
    positions: Float64Array.from({ length: rows }, (_, j) => j * 32),
    tail: batchTail
  }
})
const batchWeights = AttentionLens.weights({ dim: batchDim })
const batchRows: Array<{ name: string; figures: Record<string, number> }> = []
const batchRow = async (name: string, fn: () => unknown, minSamples = 3) => {
  const timing = await time(fn, minSamples)
  batchRows.push({ name, figures: { ...timing, per_variant_ms: round(timing.mean_ms / 8) } })
}
await batchRow("TS analytic, 8 calls", () =>
  variants.map((v) => LensScorer.analyticScore(v.entries, v.levels, v.positions, v.tail, { maxLevel: 2 }))
)
await batchRow(
  "TS attention head, 8 calls",
  () => variants.map((v) => AttentionLens.score(batchWeights, v.entries, v.levels, v.positions, v.tail)),
  2
)
for (const provider of providers) {
  for (const [model, graph] of [
    ["analytic", Graphs.analyticLens({ maxLevel: 2 })],
    ["attention head", Graphs.attentionLens(batchWeights)]
  ] as const) {
    const threads = provider === "cpu" ? 1 : undefined
    const scorer = await open({ executionProvider: provider, fallback: false, threads, graph })
    const label = provider === "cpu" ? "cpu, 1 thread," : provider
    await batchRow(`ORT ${label} ${model}, 8 single runs`, async () => {
      for (const v of variants)
        sink += (await Effect.runPromise(scorer.score(v.entries, v.levels, v.positions, v.tail)))[0]!
    })
    await batchRow(`ORT ${label} ${model}, one batched run`, async () => {
      sink += (await Effect.runPromise(scorer.scoreBatch(variants)))[7]![0]!
    })
  }
}
Bench.record(`batched scoring: 8 variants of up to 2,048 entries, d=${batchDim}, one 128-token tail`, batchRows)

for (const [name, build] of [
  ["build analytic graph", () => Graphs.analyticLens({ maxLevel: 2 })],
  ["build attention graph d=768", () => Graphs.attentionLens({ dim: 768 })]
] as const) {
  startup.push({ name, figures: { ...(await time(() => build(), 5)) } })
}
for (const provider of providers) {
  const attention = Graphs.attentionLens({ dim: 768 })
  for (const [name, graph] of [
    ["analytic", Graphs.analyticLens({ maxLevel: 2 })],
    ["attention d=768", attention]
  ] as const) {
    const timing = await time(async () => {
      const local = Effect.runSync(Scope.make())
      await Effect.runPromise(
        Scope.provide(OnnxLensScorer.make({ executionProvider: provider, fallback: false, graph }), local)
      )
      await Effect.runPromise(Scope.close(local, Exit.void))
    }, 5)
    startup.push({ name: `open + close session, ${provider}, ${name} (warm)`, figures: { ...timing } })
  }
}

// The first score of a new session (cold: onnxruntime allocates its buffers and packs weights on first use)
// beside the second (warm), at N = 8,192, d = 768; each a fresh session, three times.
const coldInput = { rows: 8192, dim: 768, data: Float32Array.from({ length: 8192 * 768 }, prng(11)) }
const coldTail = { rows: 128, dim: 768, data: tokens(128, 768) }
const coldLevels = Uint8Array.from({ length: 8192 }, (_, j) => j % 3)
const coldPositions = Float64Array.from({ length: 8192 }, (_, j) => j * 4)
for (const provider of providers) {
  for (const [name, graph] of [
    ["analytic", Graphs.analyticLens({ maxLevel: 2 })],
    ["attention head", Graphs.attentionLens({ dim: 768 })]
  ] as const) {
    const runs = { cold: { wall: 0, cpu: 0 }, warm: { wall: 0, cpu: 0 } }
    for (let i = 0; i < 3; i++) {
      const local = Effect.runSync(Scope.make())
      const threads = provider === "cpu" ? 1 : undefined
      const scorer = await Effect.runPromise(
        Scope.provide(OnnxLensScorer.make({ executionProvider: provider, fallback: false, threads, graph }), local)
      )
      for (const which of ["cold", "warm"] as const) {
        const [started, cpuStarted] = [performance.now(), cpuNow()]
        sink += (await Effect.runPromise(scorer.score(coldInput, coldLevels, coldPositions, coldTail)))[0]!
        runs[which].wall += (performance.now() - started) / 3
        runs[which].cpu += (cpuNow() - cpuStarted) / 3
      }
      await Effect.runPromise(Scope.close(local, Exit.void))
    }
    for (const which of ["cold", "warm"] as const) {
      startup.push({
        name: `${which === "cold" ? "first" : "second"} score of a new session, ${provider}${provider === "cpu" ? " 1 thread" : ""}, ${name}, N=8192, d=768 (${which})`,
        figures: { samples: 3, mean_ms: round(runs[which].wall), cpu_ms: round(runs[which].cpu) }
      })
    }
  }
}
Bench.record("session start-up and first score", startup)

const usage = process.memoryUsage()
Bench.record("memory (whole process)", [
  { name: "before importing onnxruntime", figures: { rss_mb: mb(rssBefore) } },
  { name: "after importing @heed/gpu", figures: { rss_mb: mb(rssAfterImport), import_ms: round(importMs) } },
  {
    name: "end of bench (sessions open, fixtures live)",
    figures: { rss_mb: mb(usage.rss), heap_mb: mb(usage.heapUsed) }
  },
  { name: "machine load (1-minute average, 2 cores)", figures: { loadavg: Number(loadavg()[0]!.toFixed(2)) } }
])
await Effect.runPromise(Scope.close(scope, Exit.void))
if (sink === Number.MIN_VALUE) console.log(sink)
