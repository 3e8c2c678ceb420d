import { Bench } from "@heed/bench"
import { TokenCounter } from "@heed/schema"
import { Effect } from "effect"
import type { Session } from "../src/index.ts"
import { buildSession, effort, prose, sessionLayer } from "./fixtures.ts"

// ---------------------------------------------------------------------------------------------------------------
// 1. A scripted 50-turn session: 20 concluded efforts of 1-3k tokens, expand/decay cycles.
//    Context tokens per turn with decay (threshold 3) vs with expansions never collapsed.
// ---------------------------------------------------------------------------------------------------------------

const TURNS = 50
const tokensOf = (n: number) => 1000 + ((n * 397) % 2001)
// turn -> effort to expand at the start of that turn (later entries re-expand decayed efforts: cycles).
const expansions = new Map<number, number>([
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
// A turn references the effort expanded the turn before (a follow-up question), otherwise talks about other things.
const scriptTurn = (session: Session.Session["Service"], turn: number) =>
  Effect.gen(function* () {
    const expand = expansions.get(turn)
    if (expand !== undefined) {
      const id = effort(expand).id
      const { expanded } = yield* session.state()
      if (!expanded.includes(id)) yield* session.expandEffort({ id })
    }
    const previous = expansions.get(turn - 1)
    const user =
      previous !== undefined
        ? `Follow-up on widget${previous} and gadget${previous}: why did it time out?`
        : `Unrelated question ${turn}: ${prose(40, turn)}`
    return yield* session.processTurn({ user, assistant: `Answer ${turn}: ${prose(80, turn + 1)}` })
  })

const runScript = (threshold: number) => {
  const session = buildSession(sessionLayer(20, tokensOf, { decay_threshold: threshold }))
  const rows: Array<{ context: number; expansion: number; decayed: number }> = []
  for (let turn = 1; turn <= TURNS; turn++) {
    const result = Effect.runSync(scriptTurn(session, turn))
    rows.push({
      context: result.metrics.context_tokens,
      expansion: result.metrics.expansion_tokens,
      decayed: result.decayed.length
    })
  }
  return { rows, metrics: Effect.runSync(session.metrics()) }
}

const withDecay = runScript(3)
const neverCollapsed = runScript(1_000_000)

Bench.record(
  "decay: 50-turn session, context tokens per turn",
  withDecay.rows.map((row, i) => ({
    name: `turn ${String(i + 1).padStart(2, "0")}`,
    figures: {
      with_decay: row.context,
      never_collapsed: neverCollapsed.rows[i]!.context,
      expanded_with_decay: row.expansion,
      expanded_never_collapsed: neverCollapsed.rows[i]!.expansion,
      decayed: row.decayed
    }
  }))
)

const sum = (values: ReadonlyArray<number>) => values.reduce((a, b) => a + b, 0)
const expansionDecay = sum(withDecay.rows.map((r) => r.expansion))
const expansionNever = sum(neverCollapsed.rows.map((r) => r.expansion))
const contextDecay = sum(withDecay.rows.map((r) => r.context))
const contextNever = sum(neverCollapsed.rows.map((r) => r.context))

Bench.record("decay: 50-turn session, totals", [
  {
    name: "expansion tokens saved (target >= 80%)",
    figures: {
      saved_pct: Number((100 * (1 - expansionDecay / expansionNever)).toFixed(1)),
      expansion_token_turns_with_decay: expansionDecay,
      expansion_token_turns_never_collapsed: expansionNever
    }
  },
  {
    name: "context tokens saved over the session",
    figures: {
      saved_pct: Number((100 * (1 - contextDecay / contextNever)).toFixed(1)),
      context_token_turns_with_decay: contextDecay,
      context_token_turns_never_collapsed: contextNever
    }
  },
  {
    name: "slice-3 metrics with decay",
    figures: {
      auto_collapses: withDecay.metrics.auto_collapses,
      false_decays: withDecay.metrics.false_decays,
      avg_expansion_duration: withDecay.metrics.avg_expansion_duration,
      tokens_saved_by_decay: withDecay.metrics.tokens_saved_by_decay
    }
  }
])

// ---------------------------------------------------------------------------------------------------------------
// 2. processTurn cost with 200 expanded efforts and 2k-token messages (target: <= 1 ms median).
// ---------------------------------------------------------------------------------------------------------------

const userMessage = `User: ${prose(2000, 1)}`
const assistantMessage = `Assistant: ${prose(2000, 2)}`

const expandedSession = (counter: typeof TokenCounter.layerO200k) => {
  // A high threshold keeps all 200 expanded: every turn checks all of them.
  const session = buildSession(sessionLayer(200, () => 400, { decay_threshold: 1_000_000 }, counter))
  Effect.runSync(
    Effect.forEach(
      Array.from({ length: 200 }, (_, n) => effort(n).id),
      (id) => session.expandEffort({ id }),
      {
        discard: true
      }
    )
  )
  return session
}

const o200k = expandedSession(TokenCounter.layerO200k)
const approximate = expandedSession(TokenCounter.layerApproximate)

await Bench.run(
  "decay: processTurn, 200 expanded efforts, 2k-token messages",
  [
    {
      name: "o200k TokenCounter",
      fn: () => Effect.runSync(o200k.processTurn({ user: userMessage, assistant: assistantMessage })),
      figures: () => ({ expanded: Effect.runSync(o200k.state()).expanded.length })
    },
    {
      name: "approximate TokenCounter",
      fn: () => Effect.runSync(approximate.processTurn({ user: userMessage, assistant: assistantMessage })),
      figures: () => ({ expanded: Effect.runSync(approximate.state()).expanded.length })
    }
  ],
  { timeMs: 1000, maxSamples: 3000 }
)
