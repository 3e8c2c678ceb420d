// Decay: context tokens per turn over the 50-turn session of @heed/decay's benchmark (bench/Decay.bench.ts), once
// with the default decay threshold (3 turns) and once with expansions never collapsed. The session is rebuilt here
// from the package's public API: 20 concluded efforts with logs of 1-3k tokens, expanded on a fixed schedule, each
// expansion followed by one turn that refers to it and then by unrelated talk.
import { type Model, Session, SessionStore, Summarizer } from "@heed/decay"
import { TokenCounter } from "@heed/schema"
import { Effect, Layer } from "effect"
import { palette, renderVegaLite } from "./Chart.ts"

const turns = 50
const efforts = 20
const timestamp = "2026-11-22T00:00:00.000Z"
const words = (
  "the team walked through the plan again and agreed that the next step would be to write it down " +
  "clearly so that everyone could follow along later without asking the same questions twice"
).split(" ")

/** Deterministic filler of about `tokens` tokens. */
const prose = (tokens: number, seed: number): string =>
  `${Array.from({ length: tokens }, (_, i) => words[(i * 7 + seed) % words.length]).join(" ")}.`

const effortId = (n: number) => `effort-${String(n).padStart(3, "0")}`

const effort = (n: number): Model.Effort => ({
  id: effortId(n),
  status: "concluded",
  summary: `Resolved topic${n} issue: the widget${n} crashed when gadget${n} timed out; added a retry for gizmo${n}.`,
  raw_file: `efforts/${effortId(n)}.jsonl`,
  created: timestamp,
  updated: timestamp
})

/** An effort's log: exchanges of about 200 tokens until it holds 1,000 to 3,000 tokens. */
const effortLog = (n: number): Array<Model.LogMessage> => {
  const size = 1000 + ((n * 397) % 2001)
  const log: Array<Model.LogMessage> = []
  for (let i = 0; i * 200 < size; i++) {
    log.push(
      { role: "user", content: `About widget${n} and gadget${n}: ${prose(60, i)}`, ts: timestamp },
      { role: "assistant", content: `For topic${n}, the gizmo${n} retry fixed it. ${prose(120, i + 3)}`, ts: timestamp }
    )
  }
  return log
}

/** Turn → effort expanded at its start; later entries re-expand efforts that decayed in between. */
const expansions = new Map([
  [1, 0],
  [4, 3],
  [7, 5],
  [10, 0],
  [14, 8],
  [18, 11],
  [21, 8],
  [25, 14],
  [29, 17],
  [33, 2],
  [37, 19],
  [41, 14],
  [45, 7]
])

/** Context tokens sent to the model at each of the 50 turns, with the given decay threshold. */
export const contextTokens = (decayThreshold: number): ReadonlyArray<number> => {
  const manifest = Array.from({ length: efforts }, (_, n) => effort(n))
  const logs = Object.fromEntries(manifest.map((entry, n) => [entry.id, effortLog(n)]))
  const layer = Session.layer({ decay_threshold: decayThreshold }).pipe(
    Layer.provide(
      Layer.mergeAll(
        SessionStore.layerMemoryWith({ manifest, logs }),
        Summarizer.layerExtractive,
        TokenCounter.layerO200k
      )
    )
  )
  const program = Effect.gen(function* () {
    const session = yield* Session.Session
    const tokens: Array<number> = []
    for (let turn = 1; turn <= turns; turn++) {
      const expand = expansions.get(turn)
      if (expand !== undefined && !(yield* session.state()).expanded.includes(effortId(expand))) {
        yield* session.expandEffort({ id: effortId(expand) })
      }
      const previous = expansions.get(turn - 1)
      const user =
        previous === undefined
          ? `Unrelated question ${turn}: ${prose(40, turn)}`
          : `Follow-up on widget${previous} and gadget${previous}: why did it time out?`
      const result = yield* session.processTurn({ user, assistant: `Answer ${turn}: ${prose(80, turn + 1)}` })
      tokens.push(result.metrics.context_tokens)
    }
    return tokens
  })
  return Effect.runSync(program.pipe(Effect.provide(layer)))
}

/** The picture: one line per run. */
export const svg = (): Promise<string> => {
  const withDecay = contextTokens(3)
  const never = contextTokens(Number.MAX_SAFE_INTEGER)
  const series = ["with decay (threshold 3)", "expansions never collapsed"]
  const values = withDecay.flatMap((tokens, i) => [
    { turn: i + 1, tokens, run: series[0] },
    { turn: i + 1, tokens: never[i]!, run: series[1] }
  ])
  return renderVegaLite({
    title: "Context tokens per turn over the 50-turn benchmark session",
    width: 640,
    height: 240,
    data: { values },
    mark: { type: "line", interpolate: "step-after", strokeWidth: 2 },
    encoding: {
      x: { field: "turn", type: "quantitative", scale: { domain: [1, turns] }, title: "turn" },
      y: { field: "tokens", type: "quantitative", title: "context tokens" },
      color: {
        field: "run",
        type: "nominal",
        scale: { domain: series, range: [palette.accent, palette.IDLE] },
        legend: { orient: "top-left", title: null, labelLimit: 0 }
      }
    }
  })
}
