/**
 * The awareness server's edge, measured on running servers (`heed-awareness serve --memory`, spawned from
 * apps/awareness, auth off, time-driven rebuilds off):
 *
 * - REST `POST /v1/alerts` beside MCP `report_alert` (official SDK client over Streamable HTTP), 1 and 50 concurrent
 *   clients: p50/p99 latency and throughput, warm (each client's first 20 calls are not timed);
 * - fan-out, on a fresh server holding 20 sources with 5 alerts each: the latency from a REST `POST /v1/alerts` to the
 *   patch carrying its message arriving at 1, 100 and 1,000 SLOP WebSocket subscribers of the live tree (p50/p99 over every subscriber of every write), and the server
 *   process's resident memory per subscriber.
 *
 * Clients and subscribers run on this machine too (subscribers in a worker thread), sharing its cores with the server.
 */
import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { createServer } from "node:net"
import { fileURLToPath } from "node:url"
import { Worker } from "node:worker_threads"
import { Bench } from "@heed/bench"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"

const quantile = (sorted: ReadonlyArray<number>, q: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!
const round = (value: number) => Number(value.toPrecision(4))
const now = () => performance.timeOrigin + performance.now()
const sink: Array<unknown> = []

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer()
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      probe.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })

// -- the server -------------------------------------------------------------------------------------------------------

const appDir = fileURLToPath(new URL("../../../../apps/awareness/", import.meta.url))

/** Spawns `heed-awareness serve --memory` on a free port and waits for its banner. */
const startServer = async () => {
  const port = await freePort()
  const child = spawn(
    process.execPath,
    ["--conditions=@heed/source", "src/main.ts", "serve", "--memory", "--port", String(port)],
    {
      cwd: appDir,
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, HEED_LOG_LEVEL: "Warn", HEED_WATCH_INTERVAL_MS: "0", HEED_AUTH_REQUIRED: "false" }
    }
  )
  await new Promise<void>((resolve, reject) => {
    let out = ""
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      if (out.includes("Press Ctrl+C")) resolve()
    })
    child.on("exit", (code) => reject(new Error(`the server exited with ${code} before it was ready`)))
  })
  const rssKb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))?.[1] ?? 0)
  return { port, base: `http://127.0.0.1:${port}`, rssKb, stop: () => child.kill("SIGTERM") }
}

let server = await startServer()

// -- REST beside MCP --------------------------------------------------------------------------------------------------

const alertBody = (client: number, i: number, message = `disk at ${i % 100}%`) => ({
  source: `bench-${client}`,
  tags: ["bench"],
  alert_id: `a${i % 20}`,
  level: i % 2 === 0 ? "warning" : "critical",
  message
})

const restCall = async (client: number, i: number) => {
  const response = await fetch(`${server.base}/v1/alerts`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(alertBody(client, i))
  })
  if (response.status !== 200) throw new Error(`REST answered ${response.status}: ${await response.text()}`)
  sink.push(await response.json())
}

const mcpClient = async () => {
  const client = new Client({ name: "heed-bench", version: "1.0.0" })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.base}/mcp`)))
  return client
}

const measure = async (
  clients: number,
  perClient: number,
  make: (client: number) => Promise<(i: number) => Promise<void>>
) => {
  const callers = await Promise.all(Array.from({ length: clients }, (_, c) => make(c)))
  const warmup = 20
  const samples: Array<number> = []
  const started = performance.now()
  let timed = 0
  let timedMs = 0
  await Promise.all(
    callers.map(async (call) => {
      for (let i = 0; i < warmup + perClient; i++) {
        const t0 = performance.now()
        await call(i)
        if (i >= warmup) {
          samples.push(performance.now() - t0)
          timed++
        }
      }
    })
  )
  timedMs = performance.now() - started
  samples.sort((a, b) => a - b)
  return {
    p50_ms: round(quantile(samples, 0.5)),
    p99_ms: round(quantile(samples, 0.99)),
    per_sec: round((timed / timedMs) * 1000),
    samples: samples.length
  }
}

const rest = (clients: number, perClient: number) => measure(clients, perClient, async (c) => (i) => restCall(c, i))

const mcp = async (clients: number, perClient: number) => {
  const opened: Array<Client> = []
  const figures = await measure(clients, perClient, async (c) => {
    const client = await mcpClient()
    opened.push(client)
    return async (i) => {
      const result = await client.callTool({ name: "report_alert", arguments: alertBody(1000 + c, i) })
      if (result.isError === true) throw new Error(`MCP failed: ${JSON.stringify(result.content)}`)
      sink.push(result)
    }
  })
  await Promise.all(opened.map((client) => client.close()))
  return figures
}

const calls = [
  { name: "REST POST /v1/alerts, 1 client", figures: await rest(1, 500) },
  { name: "MCP report_alert, 1 client", figures: await mcp(1, 500) },
  { name: "REST POST /v1/alerts, 50 clients", figures: await rest(50, 40) },
  { name: "MCP report_alert, 50 clients", figures: await mcp(50, 40) }
]
Bench.record("REST beside MCP on one awareness server (in-memory store, warm)", calls)
server.stop()

// -- fan-out ----------------------------------------------------------------------------------------------------------

// a fresh server holding an ordinary store: 20 sources with 5 alerts each (about 130 nodes in the tree)
server = await startServer()
for (let s = 0; s < 20; s++) {
  for (let a = 0; a < 5; a++) await restCall(s, a)
}

const fanOut = async (count: number, writes: number) => {
  const worker = new Worker(new URL("./awarenessSubscribers.ts", import.meta.url), {
    workerData: { url: `ws://127.0.0.1:${server.port}/slop`, count }
  })
  const rounds = new Map<number, Float64Array>()
  const seen = new Set<string>()
  let wake: (() => void) | undefined
  worker.on("message", (message: { type: string; k?: number; times?: Float64Array }) => {
    if (message.type === "round") rounds.set(message.k!, message.times!)
    seen.add(message.type === "armed" ? `armed-${message.k}` : message.type)
    wake?.()
  })
  const until = async (holds: () => boolean) => {
    while (!holds()) await new Promise<void>((resolve) => (wake = resolve))
  }
  await until(() => seen.has("started"))
  const before = server.rssKb()
  worker.postMessage({ type: "connect" })
  await until(() => seen.has("ready"))
  const rss = (server.rssKb() - before) / count
  const latencies: Array<number> = []
  for (let k = 0; k < writes; k++) {
    const message = `fan-${count}-${k}`
    worker.postMessage({ type: "expect", token: JSON.stringify(message), k })
    await until(() => seen.has(`armed-${k}`))
    const written = now()
    const response = await fetch(`${server.base}/v1/alerts`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(alertBody(k % 20, k % 5, message))
    })
    sink.push(await response.json())
    await until(() => rounds.has(k))
    for (const arrived of rounds.get(k)!) latencies.push(arrived - written)
  }
  await worker.terminate()
  latencies.sort((a, b) => a - b)
  return {
    samples: latencies.length,
    writes,
    p50_ms: round(quantile(latencies, 0.5)),
    p99_ms: round(quantile(latencies, 0.99)),
    max_ms: round(latencies.at(-1)!),
    server_rss_kb_per_subscriber: round(rss)
  }
}

const fans = []
for (const [count, writes] of [
  [1, 200],
  [100, 60],
  [1000, 30]
] as const) {
  fans.push({
    name: `REST write → patch at ${count} subscriber${count === 1 ? "" : "s"}`,
    figures: await fanOut(count, writes)
  })
}
Bench.record("REST write → SLOP patch fan-out (live awareness tree, one subscription per connection)", fans)

server.stop()
if (sink.length === 0) throw new Error("nothing was measured")
