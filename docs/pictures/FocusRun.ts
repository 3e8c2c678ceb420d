// The allocator: utilisation and the level-of-detail mix at every refocus of @heed/allocator's 10,000-token synthetic
// run (bench/Focus.bench.ts: greedy, budget 2,048, 64-dimensional embeddings whose topic drifts every 400 tokens),
// with the analytic reference scorer and the mean-pool gister.
import { Focus, Gister, LensScorer, WorkingContext } from "@heed/allocator"
import { Effect, Layer } from "effect"
import { palette, renderVegaLite } from "./Chart.ts"

const dim = 64
const budget = 2048
const tokens = 10_000

/** mulberry32: seeded noise, so the picture is the same on every build. */
const random = (seed: number) => {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = Math.imul(state ^ (state >>> 15), state | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Embeddings of tokens `[from, to)`: a topic that changes every 400 tokens, plus noise. */
const embeddings = (from: number, to: number): Float32Array => {
  const noise = random(5 + from)
  const out = new Float32Array((to - from) * dim)
  for (let t = from; t < to; t++) {
    for (let k = 0; k < dim; k++)
      out[(t - from) * dim + k] = Math.cos(Math.floor(t / 400) * 2.3 + k * 0.7) + (noise() - 0.5)
  }
  return out
}

export interface Refocus {
  readonly tokens: number
  readonly utilization: number
  readonly levels: ReadonlyArray<number>
}

/** Appends the run 32 tokens at a time and records every refocus with the working context's level counts. */
export const run = (): Promise<ReadonlyArray<Refocus>> =>
  Effect.gen(function* () {
    const focus = yield* Focus.make({ dim, budget, strategy: "greedy" })
    const refocuses: Array<Refocus> = []
    for (let t = 0; t < tokens; t += 32) {
      const events = yield* focus.append(embeddings(t, Math.min(tokens, t + 32)))
      const levels = WorkingContext.levelCounts(yield* focus.context)
      for (const event of events) refocuses.push({ tokens: event.total_tokens, utilization: event.utilization, levels })
    }
    return refocuses
  }).pipe(
    Effect.provide(Layer.merge(LensScorer.layerAnalytic({ maxLevel: 2 }), Gister.layerMeanPool)),
    Effect.runPromise
  )

/** The picture: utilisation on top, the entries per level of detail below, both against tokens appended. */
export const svg = async (): Promise<string> => {
  const refocuses = await run()
  const x = { field: "tokens", type: "quantitative" as const, title: "tokens appended", scale: { domain: [0, tokens] } }
  // Only the levels the run used: with this budget the 1,024-token LOD2 gists are never needed.
  const used = [0, 1, 2].filter((level) => refocuses.some((refocus) => (refocus.levels[level] ?? 0) > 0))
  const levelNames = ["LOD0 (tokens)", "LOD1 (32-token gists)", "LOD2 (1,024-token gists)"]
  return renderVegaLite({
    title: `Focus over a ${tokens.toLocaleString("en")}-token run (greedy, budget ${budget.toLocaleString("en")} entries)`,
    vconcat: [
      {
        width: 640,
        height: 120,
        data: { values: refocuses.map(({ tokens, utilization }) => ({ tokens, utilization })) },
        mark: { type: "line", color: palette.accent, strokeWidth: 1.5 },
        encoding: {
          x: { ...x, title: null },
          y: { field: "utilization", type: "quantitative", title: "utilisation", axis: { format: "%" } }
        }
      },
      {
        width: 640,
        height: 180,
        data: {
          values: refocuses.flatMap(({ tokens, levels }) =>
            used.map((level) => ({ tokens, entries: levels[level] ?? 0, level: levelNames[level] }))
          )
        },
        mark: { type: "area" },
        encoding: {
          x,
          y: { field: "entries", type: "quantitative", stack: "zero", title: "working-context entries" },
          color: {
            field: "level",
            type: "nominal",
            scale: {
              domain: used.map((level) => levelNames[level]!),
              range: used.map((level) => [palette.HOT, palette.WARM, palette.COOL][level]!)
            },
            legend: { orient: "top", title: null, labelLimit: 0 }
          }
        }
      }
    ]
  })
}
