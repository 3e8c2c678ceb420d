// ./heed bench bridge: the scenario of src/Scenario.ts (five generated apps, 50 scripted turns).
// 1. Tokens per turn: what heed-bridge injects (the bridge's own Turns and Budget, in process) against the full
//    trees that SLOP's bridge injects (SLOP's text format of every whole tree, counted with the same o200k counter),
//    and urgent-node recall (high and critical nodes present in the injected text).
// 2. The real thing: the five apps served by heed's SlopServer over WebSocket in this process, discovered by a
//    `heed-bridge serve` child process from a temporary HEED_SLOP_PROVIDER_DIRS; `inject` latency over the local
//    socket (the 50 turns, then 150 more asks) and the bridge process's RSS.
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Bench } from "@heed/bench"
import { Discovery, SlopServer } from "@heed/http"
import { TokenCounter } from "@heed/schema"
import type { Node } from "@heed/state-tree"
import { Provider, Render } from "@heed/state-tree"
import { Context, Effect, Layer } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import * as Budget from "../src/Budget.ts"
import * as InjectSocket from "../src/InjectSocket.ts"
import * as Scenario from "../src/Scenario.ts"
import * as Turns from "../src/Turns.ts"

const BUDGET = 1500
const EXTRA_ASKS = Number(process.env.HEED_BENCH_BRIDGE_ASKS ?? 150)

const stats = (samples: ReadonlyArray<number>) => {
  const sorted = [...samples].sort((a, b) => a - b)
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!
  const round = (x: number) => Math.round(x * 100) / 100
  return { samples: sorted.length, p50_ms: round(at(0.5)), p99_ms: round(at(0.99)), max_ms: round(sorted.at(-1)!) }
}

const fullTokens = new WeakMap<Node.Node, number>()
const fullOf = (tree: Node.Node) => {
  let tokens = fullTokens.get(tree)
  if (tokens === undefined) {
    tokens = TokenCounter.countO200k(Render.text(tree))
    fullTokens.set(tree, tokens)
  }
  return tokens
}

const shows = (text: string, id: string) =>
  new RegExp(`\\] ${id.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?=[: ]|$)`, "m").test(text)

// ---------------------------------------------------------------------------------------------------------------
// 1. Tokens per turn, in process

const script = Scenario.turns()
const turns = Turns.make({ budget: BUDGET })
const perTurn: Array<{ turn: number; heed: number; full: number }> = []
let urgentTotal = 0
let urgentShown = 0
const planMs: Array<number> = []
for (let i = 0; i < script.length; i++) {
  const { prompt, apps } = script[i]!
  const started = performance.now()
  const plan = Turns.inject(turns, apps, prompt, i * 60)
  planMs.push(performance.now() - started)
  const full = apps.reduce((sum, app) => sum + fullOf(app.tree), 0)
  perTurn.push({ turn: i + 1, heed: plan.tokens, full })
  for (const app of apps) {
    for (const { node } of Budget.urgentNodes(app.tree)) {
      urgentTotal++
      if (shows(plan.text, node.id)) urgentShown++
    }
  }
}
const heedTokens = perTurn.map((row) => row.heed)
const fullTokensPerTurn = perTurn.map((row) => row.full)
const mean = (values: ReadonlyArray<number>) => Math.round(values.reduce((a, b) => a + b, 0) / values.length)
const planStats = stats(planMs.slice(1))
Bench.record("bridge", [
  {
    name: "tokens per turn, 5 apps, 50 turns (heed vs full trees)",
    figures: {
      heed_mean: mean(heedTokens),
      heed_max: Math.max(...heedTokens),
      full_mean: mean(fullTokensPerTurn),
      full_min: Math.min(...fullTokensPerTurn),
      ratio: Math.round((mean(fullTokensPerTurn) / mean(heedTokens)) * 10) / 10,
      urgent_recall_pct: Math.round((urgentShown / Math.max(1, urgentTotal)) * 1000) / 10,
      urgent_nodes: urgentTotal
    }
  },
  { name: "plan one turn in process (Turns.inject)", figures: planStats }
])
// The size: five apps of 10,000 nodes each, one leaf changing in each app before every turn (the rest of
// each tree shared with the previous one, as a consumer's mirror shares what a patch does not touch).
const group = (app: number, g: number, value: number): Node.Node => ({
  id: `g${g}`,
  type: "collection",
  properties: { label: `Group ${g} of app ${app}` },
  children: Array.from({ length: 99 }, (_, i) => ({
    id: `n${i}`,
    type: "item",
    properties: { label: `Item ${g}.${i}`, value: i === 0 ? value : 0 },
    meta: { salience: ((g * 7 + i) % 10) / 10 }
  }))
})
let big = Array.from({ length: 5 }, (_, a) => ({
  id: `app${a}`,
  name: `App ${a}`,
  tree: {
    id: "root",
    type: "root",
    properties: { label: `App ${a}` },
    children: Array.from({ length: 100 }, (_, g) => group(a, g, 0))
  } as Node.Node
}))
const bigTurns = Turns.make({ budget: BUDGET })
const bigMs: Array<number> = []
for (let turn = 1; turn <= 40; turn++) {
  big = big.map((app, a) => {
    const children = [...app.tree.children!]
    children[turn % 100] = group(a, turn % 100, turn)
    return { ...app, tree: { ...app.tree, children } }
  })
  const started = performance.now()
  Turns.inject(bigTurns, big, turn % 4 === 0 ? "what about App 2?" : "carry on", turn * 60)
  if (turn > 1) bigMs.push(performance.now() - started)
}
Bench.record("bridge", [
  { name: "plan one turn in process, 5 apps of 10,000 nodes, one change in each", figures: stats(bigMs) }
])

if (process.env.HEED_BENCH_BRIDGE_TURNS_OUT) {
  fs.writeFileSync(process.env.HEED_BENCH_BRIDGE_TURNS_OUT, JSON.stringify(perTurn))
}

// ---------------------------------------------------------------------------------------------------------------
// 2. A bridge process against five WebSocket providers

const appDir = fileURLToPath(new URL("../", import.meta.url))
const dir = fs.mkdtempSync(join(tmpdir(), "heed-bench-bridge-"))

const serveApp = (app: Scenario.App) =>
  Effect.gen(function* () {
    const provider = yield* Provider.make({ id: app.id, name: app.name, coalesceMs: 0 })
    yield* provider.setTree(app.tree)
    const server = HttpRouter.serve(
      SlopServer.layer({ path: "/slop" }).pipe(Layer.provide(Layer.succeed(Provider.Service, provider))),
      { disableLogger: true, disableListenLog: true }
    ).pipe(
      Layer.provideMerge(
        NodeHttpServer.layer(() => createServer(), {
          port: 0,
          host: "127.0.0.1",
          websocket: SlopServer.websocketOptions(),
          disablePreemptiveShutdown: true
        })
      )
    )
    const context = yield* Layer.build(server)
    const address = Context.get(context, HttpServer.HttpServer).address
    const url = `ws://127.0.0.1:${"port" in address ? address.port : 0}/slop`
    yield* Discovery.write(Discovery.descriptor({ id: app.id, name: app.name, url, pid: process.pid }), {
      directory: dir
    })
    return provider
  })

const rssOf = (pid: number): number => {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8")
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024
}

const live = (optimizeForSize: boolean) =>
  Effect.gen(function* () {
    const socket = join(dir, optimizeForSize ? "bridge-small.sock" : "bridge.sock")
    const providers = yield* Effect.forEach(Scenario.appsAt(0), serveApp)
    const child = spawn(process.execPath, ["--conditions=@heed/source", "src/main.ts", "serve", "--socket", socket], {
      cwd: appDir,
      env: { ...process.env, HEED_SLOP_PROVIDER_DIRS: dir, HEED_OPTIMIZE_FOR_SIZE: optimizeForSize ? "1" : "0" },
      stdio: ["pipe", "ignore", "ignore"]
    })
    yield* Effect.addFinalizer(() =>
      Effect.callback<void>((resume) => {
        if (child.exitCode !== null) return resume(Effect.void)
        child.once("exit", () => resume(Effect.void))
        child.kill("SIGTERM")
      })
    )
    // ready when every app is in the injected view with its whole tree counted
    for (let attempt = 0; ; attempt++) {
      const text = yield* Effect.promise(() => InjectSocket.ask(socket, "", 5000))
      if (["Sprint board", "Mail", "CI", "Team chat", "Project files"].every((name) => text.includes(`### ${name} [`)))
        break
      if (attempt > 600) return yield* Effect.die(new Error("the bridge did not connect to the five apps in 60 s"))
      yield* Effect.sleep("100 millis")
    }
    const latencies: Array<number> = []
    const repeats: Array<number> = []
    let overBudget = 0
    for (let i = 0; i < script.length; i++) {
      const { prompt, apps } = script[i]!
      for (let a = 0; a < apps.length; a++) {
        if (i === 0 || apps[a]!.tree !== script[i - 1]!.apps[a]!.tree) yield* providers[a]!.setTree(apps[a]!.tree)
      }
      const started = performance.now()
      const text = yield* Effect.promise(() => InjectSocket.ask(socket, prompt))
      latencies.push(performance.now() - started)
      if (TokenCounter.countO200k(text.trimEnd()) > BUDGET) overBudget++
    }
    for (let i = 0; i < EXTRA_ASKS; i++) {
      const started = performance.now()
      yield* Effect.promise(() => InjectSocket.ask(socket, "anything new?"))
      repeats.push(performance.now() - started)
    }
    const rss = rssOf(child.pid!)
    const mode = optimizeForSize ? ", HEED_OPTIMIZE_FOR_SIZE=1" : ""
    Bench.record("bridge", [
      {
        name: `inject over the socket, the 50 scripted turns (bridge process, 5 WebSocket apps${mode})`,
        figures: { ...stats(latencies), over_budget: overBudget }
      },
      {
        name: `inject over the socket, ${EXTRA_ASKS} asks with nothing changed${mode}`,
        figures: stats(repeats)
      },
      { name: `bridge process RSS after the run (MB${mode})`, figures: { rss_mb: Math.round(rss) } }
    ])
  })

for (const optimizeForSize of [false, true]) {
  for (const file of fs.readdirSync(dir)) if (file.endsWith(".json")) fs.rmSync(join(dir, file))
  await Effect.runPromise(live(optimizeForSize).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))
}
fs.rmSync(dir, { recursive: true, force: true })
process.exit(0)
