// ./heed bench proxy: the deterministic 100-turn tool-heavy session of `Replay` sent three ways (no management;
// Anthropic's "clear the oldest tool results past 100k tokens, keep the last 3", re-implemented; heed-proxy with
// its defaults): input tokens per turn and in total, and how many results a later turn needed were sent whole.
// Then the proxy's own work per request on a 200k-token history (parse, plan, rewrite, serialise; the upstream
// excluded), in steady state: the session's state is that of the previous request, as for a client resending it.
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { Bench } from "@heed/bench"
import { TokenCounter } from "@heed/schema"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as HttpServer from "effect/http/HttpServer"
import * as Layer from "effect/Layer"
import * as References from "effect/References"
import * as Cli from "../src/Cli.ts"
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

/** One request's work: parse the body, read it, plan, and rewrite and serialise when something is collapsed. */
const handle = (): ContextPlan.Plan => {
  const json = JSON.parse(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString("utf8")) as Record<
    string,
    unknown
  >
  const transcript = Transcript.read("anthropic", json)
  const plan = ContextPlan.plan(transcript, state, ContextPlan.defaults, engine)
  if (plan.replacements.size > 0) {
    encoder.encode(
      JSON.stringify(Protocol.withExpandTool("anthropic", Transcript.rewrite(json, transcript, plan.replacements)))
    )
  }
  return plan
}

// Timed by hand, wall clock and this process's CPU time per request: on a machine shared with other work the CPU
// time is what the request costs, the wall time includes waiting for a core.
for (let i = 0; i < 20; i++) handle()
const wall: Array<number> = []
const cpu: Array<number> = []
let last: ContextPlan.Plan | undefined
for (let i = 0; i < Number(process.env.HEED_BENCH_PROXY_SAMPLES ?? 200); i++) {
  const startedCpu = process.cpuUsage()
  const started = performance.now()
  last = handle()
  wall.push(performance.now() - started)
  const used = process.cpuUsage(startedCpu)
  cpu.push((used.user + used.system) / 1000)
}
const quantile = (samples: Array<number>, q: number) => {
  const sorted = [...samples].sort((a, b) => a - b)
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! * 1000) / 1000
}
Bench.record("proxy: overhead per request", [
  {
    name: `200k-token history (turn ${turn}, ${(raw.byteLength / 1024).toFixed(0)} KiB body)`,
    figures: {
      samples: wall.length,
      mean_ms: Math.round((wall.reduce((a, b) => a + b, 0) / wall.length) * 1000) / 1000,
      p50_ms: quantile(wall, 0.5),
      p99_ms: quantile(wall, 0.99),
      cpu_p50_ms: quantile(cpu, 0.5),
      cpu_p99_ms: quantile(cpu, 0.99),
      tokens_in: last?.tokensIn ?? 0,
      tokens_sent: last?.tokensSent ?? 0
    }
  }
])

// End to end over HTTP on loopback: the same 200k-token request through the proxy and straight to a fake upstream
// that answers at once, interleaved; the difference of the medians is what the proxy adds (HTTP handling included).
const answer = JSON.stringify({ type: "message", role: "assistant", content: [{ type: "text", text: "ok" }] })
const upstreamServer = createServer((request, response) => {
  request.resume()
  request.on("end", () => {
    response.writeHead(200, { "content-type": "application/json" })
    response.end(answer)
  })
})
await new Promise<void>((resolve) => upstreamServer.listen(0, "127.0.0.1", resolve))
const upstreamUrl = `http://127.0.0.1:${(upstreamServer.address() as AddressInfo).port}`
const payload = JSON.stringify(body)
const timed = async (url: string) => {
  const started = performance.now()
  const response = await fetch(`${url}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-heed-session": "bench-e2e" },
    body: payload
  })
  await response.text()
  return performance.now() - started
}
await Effect.runPromise(
  Effect.scoped(
    Effect.gen(function* () {
      const context = yield* Layer.build(
        Cli.layer({
          port: 0,
          host: "127.0.0.1",
          maxSessions: 10,
          databaseUrl: undefined,
          settings: { upstream: upstreamUrl, timeoutMs: 60_000, plan: ContextPlan.defaults }
        })
      )
      const proxyUrl = `http://127.0.0.1:${(Context.get(context, HttpServer.HttpServer).address as { port: number }).port}`
      yield* Effect.promise(async () => {
        for (let i = 0; i < 10; i++) await timed(proxyUrl)
        const viaProxy: Array<number> = []
        const direct: Array<number> = []
        for (let i = 0; i < Number(process.env.HEED_BENCH_PROXY_HTTP_SAMPLES ?? 60); i++) {
          viaProxy.push(await timed(proxyUrl))
          direct.push(await timed(upstreamUrl))
        }
        Bench.record("proxy: overhead over HTTP (loopback)", [
          {
            name: "200k-token request, proxy minus direct",
            figures: {
              samples: viaProxy.length,
              proxy_p50_ms: quantile(viaProxy, 0.5),
              direct_p50_ms: quantile(direct, 0.5),
              overhead_p50_ms: Math.round((quantile(viaProxy, 0.5) - quantile(direct, 0.5)) * 1000) / 1000
            }
          }
        ])
      })
    }).pipe(Effect.provideService(References.MinimumLogLevel, "Warn"))
  )
)
upstreamServer.close()
