// heed-bridge: injected tokens per turn over the 50 scripted turns of the bridge's benchmark (apps/bridge's
// Scenario: a board with 500 cards, 2,000 mails, 300 CI jobs, 1,000 chat messages, a 5,000-node file tree), heed's
// budgeted view (the bridge's own Turns and Budget, default budget 1,500) against the full trees SLOP's bridge
// injects (SLOP's text format of every whole tree, counted with the same o200k counter). Log scale.
import * as Scenario from "@heed/bridge/Scenario"
import * as Turns from "@heed/bridge/Turns"
import { TokenCounter } from "@heed/schema"
import type { Node } from "@heed/state-tree"
import { Render } from "@heed/state-tree"
import { palette, renderVegaLite } from "./Chart.ts"

/** Tokens per turn: heed's injection and the full trees. */
export const tokensPerTurn = (): ReadonlyArray<{
  readonly turn: number
  readonly heed: number
  readonly full: number
}> => {
  const full = new WeakMap<Node.Node, number>()
  const fullOf = (tree: Node.Node) => {
    let tokens = full.get(tree)
    if (tokens === undefined) {
      tokens = TokenCounter.countO200k(Render.text(tree))
      full.set(tree, tokens)
    }
    return tokens
  }
  const turns = Turns.make({ budget: 1500 })
  return Scenario.turns().map(({ prompt, apps }, i) => ({
    turn: i + 1,
    heed: Turns.inject(turns, apps, prompt, i * 60).tokens,
    full: apps.reduce((sum, app) => sum + fullOf(app.tree), 0)
  }))
}

/** The picture: one line per way of injecting. */
export const svg = (): Promise<string> => {
  const rows = tokensPerTurn()
  const series = ["heed-bridge (budget 1,500)", "full trees (SLOP's bridge)"]
  const values = rows.flatMap((row) => [
    { turn: row.turn, tokens: row.heed, run: series[0] },
    { turn: row.turn, tokens: row.full, run: series[1] }
  ])
  return renderVegaLite({
    title: "Injected tokens per turn, five apps over 50 turns",
    width: 640,
    height: 240,
    data: { values },
    mark: { type: "line", interpolate: "step-after", strokeWidth: 2 },
    encoding: {
      x: { field: "turn", type: "quantitative", scale: { domain: [1, rows.length] }, title: "turn" },
      y: {
        field: "tokens",
        type: "quantitative",
        scale: { type: "log", domain: [100, 3_000_000] },
        title: "tokens (log scale)"
      },
      color: {
        field: "run",
        type: "nominal",
        scale: { domain: series, range: [palette.accent, palette.IDLE] },
        legend: { orient: "top-left", title: null, labelLimit: 0 }
      }
    }
  })
}
