// ./heed bench proxy: the deterministic 100-turn tool-heavy session of `Replay` sent three ways (no management;
// Anthropic's "clear the oldest tool results past 100k tokens, keep the last 3", re-implemented; heed-proxy with
// its defaults): input tokens per turn and in total, and how many results a later turn needed were sent whole.
// Then the proxy's own work per request on a 200k-token history (parse, plan, rewrite, serialise; the upstream
// excluded), in steady state: the session's state is that of the previous request, as for a client resending it.
import { Bench } from "@heed/bench"
import { TokenCounter } from "@heed/schema"
import * as ContextPlan from "../src/ContextPlan.ts"
import * as Protocol from "../src/Protocol.ts"
import * as Replay from "../src/Replay.ts"
import * as SessionState from "../src/SessionState.ts"
import * as Transcript from "../src/Transcript.ts"

const count = TokenCounter.countO200k
const steps = Replay.session()
const runs = {
  none: Replay.replay("none", steps, count),
  "clear-oldest": Replay.replay("clear-oldest", steps, count),
  heed: Replay.replay("heed", steps, count)
}
const none = Replay.totals(runs.none).tokens

console.log("turn   none  clear-oldest    heed")
for (let t = 10; t <= steps.length; t += 10) {
  const at = (name: keyof typeof runs) => String(runs[name][t - 1]!.tokens).padStart(7)
  console.log(`${String(t).padStart(4)} ${at("none")} ${at("clear-oldest")}      ${at("heed")}`)
}

Bench.record(
  "proxy: 100-turn session",
  (Object.keys(runs) as Array<keyof typeof runs>).map((name) => {
    const totals = Replay.totals(runs[name])
    return {
      name,
      figures: {
        input_tokens: totals.tokens,
        reduction_pct: Math.round((1000 * (none - totals.tokens)) / none) / 10,
        needed: totals.needed,
        needed_present: totals.present,
        needed_present_pct: Math.round((1000 * totals.present) / Math.max(1, totals.needed)) / 10,
        last_turn_tokens: runs[name].at(-1)!.tokens
      }
    }
  })
)

// A history of at least 200k tokens: the same kind of session, longer.
const long = Replay.session(200, 7)
const engine = ContextPlan.makeEngine(count)
let state = SessionState.empty("overhead")
let turn = 1
let body = Replay.request(long, turn)
for (;;) {
  const transcript = Transcript.read("anthropic", body)
  if (ContextPlan.tokensOf(transcript, engine.count) >= 200_000) break
  state = ContextPlan.plan(transcript, state, ContextPlan.defaults, engine).state
  body = Replay.request(long, ++turn)
}
const raw = new TextEncoder().encode(JSON.stringify(body))
const encoder = new TextEncoder()
let last: ContextPlan.Plan | undefined

await Bench.run(
  "proxy: overhead per request",
  [
    {
      name: `200k-token history (turn ${turn}, ${(raw.byteLength / 1024).toFixed(0)} KiB body)`,
      fn: () => {
        const json = JSON.parse(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString("utf8")) as Record<
          string,
          unknown
        >
        const transcript = Transcript.read("anthropic", json)
        const plan = ContextPlan.plan(transcript, state, ContextPlan.defaults, engine)
        last = plan
        if (plan.replacements.size === 0) return raw.byteLength
        return encoder.encode(
          JSON.stringify(Protocol.withExpandTool("anthropic", Transcript.rewrite(json, transcript, plan.replacements)))
        ).byteLength
      },
      figures: () => ({ tokens_in: last?.tokensIn ?? 0, tokens_sent: last?.tokensSent ?? 0 })
    }
  ],
  { timeMs: Number(process.env.HEED_BENCH_TIME_MS ?? 3000) }
)
