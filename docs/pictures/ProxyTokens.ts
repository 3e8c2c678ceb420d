// heed-proxy: input tokens per turn over the deterministic 100-turn tool-heavy session of `./heed bench proxy`
// (apps/proxy/src/Replay.ts), sent three ways: no management, Anthropic's "clear the oldest tool results past 100k
// tokens, keep the last 3" (re-implemented as the baseline), and heed-proxy with its defaults.

import * as Replay from "@heed/proxy/Replay"
import { TokenCounter } from "@heed/schema"
import { palette, renderVegaLite } from "./Chart.ts"

/** The picture: one line per strategy. */
export const svg = (): Promise<string> => {
  const steps = Replay.session()
  const series = ["no management", "clear oldest past 100k, keep 3", "heed-proxy"]
  const runs = [
    Replay.replay("none", steps, TokenCounter.countO200k),
    Replay.replay("clear-oldest", steps, TokenCounter.countO200k),
    Replay.replay("heed", steps, TokenCounter.countO200k)
  ]
  const values = runs.flatMap((run, r) => run.map((turn, i) => ({ turn: i + 1, tokens: turn.tokens, run: series[r] })))
  return renderVegaLite({
    title: "Input tokens per request over the 100-turn benchmark session",
    width: 640,
    height: 260,
    data: { values },
    mark: { type: "line", interpolate: "step-after", strokeWidth: 2 },
    encoding: {
      x: { field: "turn", type: "quantitative", scale: { domain: [1, steps.length] }, title: "turn" },
      y: { field: "tokens", type: "quantitative", title: "input tokens sent" },
      color: {
        field: "run",
        type: "nominal",
        scale: { domain: series, range: [palette.IDLE, palette.COOL, palette.accent] },
        legend: { orient: "top-left", title: null, labelLimit: 0 }
      }
    }
  })
}
