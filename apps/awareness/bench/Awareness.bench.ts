/**
 * The `tools/list` cost of both tool profiles in o200k tokens; get_briefing and report_alert latency (p50/p99) over
 * Streamable HTTP with the official SDK client, 1 and 50
 * concurrent clients, on the embedded PGlite store (a fresh data directory); and the cold start of the server
 * (`serve` on a new data directory, then again on the migrated one) until it prints its banner. Then shared stdio
 * sessions on one data folder: the resident memory of attached sessions (the built bin, as users run it, and from
 * source, where Node's type stripping adds about 18 MB), and how long an attached session takes to answer again when
 * the holder is killed (SIGKILL) or its client closes.
 */
import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Bench } from "@heed/bench"
import { TokenCounter } from "@heed/schema"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as HttpServer from "effect/http/HttpServer"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import * as Backend from "../src/Backend.ts"
import * as Server from "../src/Server.ts"
import { settingsFor } from "../test/harness.ts"
import { call, openSession, rssMb, type Session } from "../test/sessions.ts"
import { freePort, round, stats } from "./support.ts"

// -- tools/list tokens per profile -----------------------------------------------------------------------------------

/** `tools/list` as the official SDK client receives it from a server with the given profile, in o200k tokens. */
const toolsListTokens = async (tools: "full" | "compact") => {
  const profileScope = Effect.runSync(Scope.make())
  const built = await Effect.runPromise(
    Layer.buildWithScope(
      Server.layerHttp(settingsFor({ tools }), Date.now()).pipe(Layer.provideMerge(Backend.layer({ _tag: "memory" }))),
      profileScope
    )
  )
  const bound = Context.get(built, HttpServer.HttpServer).address
  const client = new Client({ name: "heed-bench", version: "1.0.0" })
  await client.connect(
    new StreamableHTTPClientTransport(
      new URL(`http://127.0.0.1:${bound._tag === "UnixPathAddress" ? 0 : bound.port}/mcp`)
    )
  )
  const listed = await client.listTools()
  await client.close()
  await Effect.runPromise(Scope.close(profileScope, Exit.void))
  return { tools: listed.tools.length, tokens: TokenCounter.countO200k(JSON.stringify({ tools: listed.tools })) }
}

Bench.record("Awareness tools/list (o200k tokens, paid on every request)", [
  { name: "full profile (default, upstream-compatible)", figures: await toolsListTokens("full") },
  { name: "compact profile (HEED_TOOLS=compact)", figures: await toolsListTokens("compact") }
])

// -- cold start -----------------------------------------------------------------------------------------------------

const startOnce = async (dataDir: string) => {
  const port = await freePort()
  const started = performance.now()
  const child = spawn(
    process.execPath,
    ["--conditions=@heed/source", "src/main.ts", "serve", "--port", String(port), "--data-dir", dataDir],
    { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, HEED_LOG_LEVEL: "Warn" } }
  )
  const ready = await new Promise<number>((resolve, reject) => {
    let out = ""
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      if (out.includes("Press Ctrl+C")) resolve(performance.now() - started)
    })
    child.on("exit", (code) => reject(new Error(`server exited with ${code} before it was ready`)))
  })
  const stopping = performance.now()
  const code = await new Promise<number | null>((resolve) => {
    child.removeAllListeners("exit")
    child.on("exit", (exitCode) => resolve(exitCode))
    child.kill("SIGTERM")
  })
  return { ready, stop: performance.now() - stopping, code }
}

const coldDir = mkdtempSync(join(tmpdir(), "heed-bench-cold-"))
const first = await startOnce(join(coldDir, "data"))
const second = await startOnce(join(coldDir, "data"))
rmSync(coldDir, { recursive: true, force: true })
Bench.record("Awareness start", [
  { name: "cold start, new data dir (spawn to banner)", figures: { ms: round(first.ready) } },
  { name: "start, migrated data dir (spawn to banner)", figures: { ms: round(second.ready) } },
  { name: "SIGTERM to exit", figures: { ms: round(second.stop), exit_code: second.code ?? -1 } }
])

// -- latency over Streamable HTTP --------------------------------------------------------------------------------------

const dataDir = mkdtempSync(join(tmpdir(), "heed-bench-"))
const scope = Effect.runSync(Scope.make())
const settings = settingsFor({ dataDir, defaultOwner: "bench", watchIntervalMs: 5000 })
const context = await Effect.runPromise(
  Layer.buildWithScope(
    Server.layerHttp(settings, Date.now()).pipe(Layer.provideMerge(Backend.layer({ _tag: "embedded", dataDir }))),
    scope
  )
)
const address = Context.get(context, HttpServer.HttpServer).address
const url = new URL(`http://127.0.0.1:${address._tag === "UnixPathAddress" ? 0 : address.port}/mcp`)

const connect = async () => {
  const client = new Client({ name: "heed-bench", version: "1.0.0" })
  await client.connect(new StreamableHTTPClientTransport(url))
  return client
}

const timed = async (client: Client, name: string, args: Record<string, unknown>) => {
  const start = performance.now()
  const result = await client.callTool({ name, arguments: args })
  const elapsed = performance.now() - start
  if (result.isError === true) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`)
  return elapsed
}

const seed = await connect()
for (const source of ["synology-nas", "gcal", "github-ci"]) {
  await seed.callTool({ name: "report_status", arguments: { source, tags: [], metrics: { up: 1 }, ttl_sec: 86_400 } })
}
await seed.callTool({
  name: "report_alert",
  arguments: { source: "synology-nas", tags: ["qb"], alert_id: "qb", level: "warning", message: "qBittorrent stopped" }
})

let alertCounter = 0
const reportAlert = (client: Client, source: string) =>
  timed(client, "report_alert", {
    source,
    tags: ["bench"],
    alert_id: `a-${alertCounter++ % 200}`,
    level: "warning",
    message: "threshold crossed"
  })

const sequential = async (op: (client: Client) => Promise<number>, count: number) => {
  const samples: Array<number> = []
  for (let i = 0; i < 20; i++) await op(seed) // warm-up
  for (let i = 0; i < count; i++) samples.push(await op(seed))
  return stats(samples)
}

const concurrent = async (
  clients: ReadonlyArray<Client>,
  op: (client: Client, i: number) => Promise<number>,
  each: number
) => {
  const samples: Array<number> = []
  const started = performance.now()
  await Promise.all(
    clients.map(async (client, i) => {
      for (let j = 0; j < each; j++) samples.push(await op(client, i))
    })
  )
  const wall = performance.now() - started
  return { ...stats(samples), ops_per_s: round(samples.length / (wall / 1000)) }
}

const briefing1 = await sequential((client) => timed(client, "get_briefing", {}), 300)
const alert1 = await sequential((client) => reportAlert(client, "bench-1"), 300)
const many = await Promise.all(Array.from({ length: 50 }, () => connect()))
// One untimed call per new session first: the figures below are steady-state latencies under 50-way concurrency.
await Promise.all(many.map((client) => client.callTool({ name: "get_briefing", arguments: {} })))
const briefing50 = await concurrent(many, (client) => timed(client, "get_briefing", {}), 10)
const alert50 = await concurrent(many, (client, i) => reportAlert(client, `bench-${i % 10}`), 10)

Bench.record("Awareness over Streamable HTTP (embedded PGlite)", [
  { name: "get_briefing, 1 client", figures: briefing1 },
  { name: "report_alert, 1 client", figures: alert1 },
  { name: "get_briefing, 50 concurrent clients", figures: briefing50 },
  { name: "report_alert, 50 concurrent clients", figures: alert50 }
])

await Promise.all([seed, ...many].map((client) => client.close()))
await Effect.runPromise(Scope.close(scope, Exit.void))
rmSync(dataDir, { recursive: true, force: true })

// -- shared stdio sessions ----------------------------------------------------------------------------------------------

// The built bin's entry and its lazily loaded modules (tsup, as `./heed build` does; an attached session loads only
// `main.js`, `Session` and the lock file's chunk, so workspace packages need not be built).
const builtDir = mkdtempSync(join(tmpdir(), "heed-bench-bin-"))
const { build } = await import("tsup")
await build({
  entry: ["src/main.ts"],
  outDir: builtDir,
  format: ["esm"],
  splitting: true,
  platform: "node",
  target: "node20",
  silent: true,
  config: false,
  dts: false,
  sourcemap: false,
  tsconfig: "tsconfig.json"
})
const builtMain = join(builtDir, "main.js")

const sharedDir = mkdtempSync(join(tmpdir(), "heed-bench-shared-"))
const sharedData = join(sharedDir, "data")
const quiet = { HEED_WATCH_INTERVAL_MS: "0" }
const holderSession = await openSession(sharedData, quiet)
const builtSessions = await Promise.all([0, 1, 2].map(() => openSession(sharedData, quiet, builtMain)))
const sourceSessions = await Promise.all([0, 1].map(() => openSession(sharedData, quiet)))
// Some traffic through each attached session first: a write, a subscription and reads.
for (const [i, session] of [...builtSessions, ...sourceSessions].entries()) {
  await session.client.subscribeResource({ uri: "awareness://briefing" })
  await call(session, "report_status", { source: `agent-${i}`, tags: [], metrics: { up: 1 }, ttl_sec: 3600 })
  for (let j = 0; j < 20; j++) await call(session, "get_briefing")
}
const rssOf = (all: ReadonlyArray<Session>) => {
  const values = all.map((session) => rssMb(session.pid))
  return {
    rss_max_mb: round(Math.max(...values)),
    rss_mean_mb: round(values.reduce((a, b) => a + b, 0) / values.length)
  }
}
const builtRss = rssOf(builtSessions)
const sourceRss = rssOf(sourceSessions)
const holderRss = round(rssMb(holderSession.pid))

// Takeover: the holder is killed; an attached session's next request is answered once a session holds the folder.
const [left, right] = sourceSessions as [Session, Session]
let started = performance.now()
process.kill(holderSession.pid, "SIGKILL")
await call(left, "get_briefing")
const afterKill = performance.now() - started
// Takeover again: the new holder's client closes (the holder is whichever source session took over).
const newHolder = [left, right].find(
  (session) => session.pid === JSON.parse(readFileSync(join(sharedData, "heed-awareness.lock"), "utf8")).pid
)
const survivor = newHolder === left ? right : left
started = performance.now()
await newHolder?.close()
await call(survivor, "get_briefing")
const afterClose = performance.now() - started

Bench.record("Awareness shared stdio sessions (one data folder, embedded PGlite)", [
  { name: "attached session RSS, built bin (3 sessions)", figures: builtRss },
  { name: "attached session RSS, from source with type stripping (2 sessions)", figures: sourceRss },
  { name: "holder RSS (stdio session holding the store)", figures: { rss_mb: holderRss } },
  { name: "takeover after SIGKILL of the holder (kill to next answer)", figures: { ms: round(afterKill) } },
  { name: "takeover after the holder's client closes (close to next answer)", figures: { ms: round(afterClose) } }
])

await Promise.all([...builtSessions, survivor].map((session) => session.close().catch(() => undefined)))
rmSync(sharedDir, { recursive: true, force: true })
rmSync(builtDir, { recursive: true, force: true })
