/**
 * The server as a deployment sees it, on both backends (a fresh PGlite data directory; a fresh database on the
 * PostgreSQL server at HEED_TEST_DATABASE_URL's host): the process's RSS after start and after 10k alerts, and
 * p50/p99 with 1 and 50 concurrent official SDK clients over Streamable HTTP for
 * - get_briefing, cached: no write since the last read (the version-cache hit; one read warms the cache first);
 * - get_briefing, fresh: right after the same client's own report_alert, so the briefing is generated on the seeded
 *   store of 1k sources and 10k alerts;
 * - report_alert (an upsert of one of the 10k alerts).
 * The server runs as its own process (`src/main.ts serve`), so its RSS is the server's alone; the memory rows also
 * split it (heap, external, PGlite's WebAssembly memory) through bench/memoryProbe.ts. Each latency row also
 * records the 1-minute load average of the machine when it ended (`load`): on a shared machine it says how much the
 * numbers can be trusted, and the server's own CPU time per operation (`server_cpu_ms`, from /proc on Linux): the
 * clients run on the same machine, so a latency row also pays for their CPU. The memory rows come twice: right
 * after the step, and `settled`, after 12 s idle (V8 gives back the garbage of a burst only once the process is idle
 * for some seconds). HEED_BENCH_BACKEND=pglite or =postgres runs one backend only.
 *
 * HEED_BENCH_PIN=1 (Linux, with `taskset`) pins the clients, this process and all its threads, to the first core and
 * the server to the second, so that on a 2-core machine the two do not take each other's core; the tables' names
 * then say "pinned".
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { Bench } from "@heed/bench"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { freePort, round, stats } from "./support.ts"

const SOURCES = 1000
const ALERTS = 10_000

/** HEED_BENCH_PIN=1: clients on core 0 (every thread of this process), the server on core 1. */
const pinned = process.env.HEED_BENCH_PIN === "1"
if (pinned) {
  const self = spawnSync("taskset", ["-a", "-cp", "0", String(process.pid)], { encoding: "utf8" })
  if (self.status !== 0) throw new Error(`HEED_BENCH_PIN=1: taskset failed (${self.error ?? self.stderr})`)
}

/** The server's memory in MB (rss, heap, external, wasm; see memoryProbe.ts), asked for with SIGUSR2. */
const memoryOf = async (child: ChildProcess): Promise<Record<string, number>> => {
  const file = probeFiles.get(child)!
  rmSync(file, { force: true })
  child.kill("SIGUSR2")
  for (let tries = 0; tries < 500 && !existsSync(file); tries++) await new Promise((resolve) => setTimeout(resolve, 10))
  return JSON.parse(readFileSync(file, "utf8"))
}
const probeFiles = new WeakMap<ChildProcess, string>()

/** The memory once the process has been idle for 12 s: V8's memory reducer shrinks the heap after about 8 s. */
const settledMemoryOf = async (child: ChildProcess) => {
  await new Promise((resolve) => setTimeout(resolve, 12_000))
  return memoryOf(child)
}

/** The server's CPU time (user + system) so far in ms, from /proc (undefined elsewhere). */
const cpuMsOf = (child: ChildProcess): number | undefined => {
  try {
    const fields = readFileSync(`/proc/${child.pid}/stat`, "utf8").split(") ")[1]!.split(" ")
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond
  } catch {
    return undefined
  }
}
// USER_HZ: 100 on every Linux this runs on; `getconf CLK_TCK` says so where it can.
const ticksPerSecond = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100

const startServer = async (store: ReadonlyArray<string>): Promise<{ child: ChildProcess; url: URL }> => {
  const port = await freePort()
  const probe = join(tmpdir(), `heed-bench-memory-${process.pid}-${port}.json`)
  const node = [
    process.execPath,
    "--conditions=@heed/source",
    "--import",
    "./bench/memoryProbe.ts",
    "src/main.ts",
    "serve",
    "--port",
    `${port}`,
    ...store
  ]
  // taskset execs node in its own process, so the pid (for /proc and signals) is the server's.
  const [command, ...args] = pinned ? ["taskset", "-c", "1", ...node] : node
  const child = spawn(command!, args, {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, HEED_LOG_LEVEL: "Warn", HEED_WATCH_INTERVAL_MS: "5000", HEED_BENCH_MEMORY_OUT: probe }
  })
  probeFiles.set(child, probe)
  await new Promise<void>((resolve, reject) => {
    let out = ""
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      if (out.includes("Press Ctrl+C")) resolve()
    })
    child.on("exit", (code) => reject(new Error(`server exited with ${code} before it was ready`)))
  })
  return { child, url: new URL(`http://127.0.0.1:${port}/mcp`) }
}

const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    child.removeAllListeners("exit")
    child.on("exit", () => resolve())
    child.kill("SIGTERM")
  })

const connect = async (url: URL) => {
  const client = new Client({ name: "heed-bench", version: "1.0.0" })
  await client.connect(new StreamableHTTPClientTransport(url))
  return client
}

const call = async (client: Client, name: string, args: Record<string, unknown>) => {
  const result = await client.callTool({ name, arguments: args })
  if (result.isError === true) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`)
}

const timed = async (client: Client, name: string, args: Record<string, unknown>) => {
  const start = performance.now()
  await call(client, name, args)
  return performance.now() - start
}

const alertArgs = (i: number) => ({
  source: `src-${i % SOURCES}`,
  tags: ["bench"],
  alert_id: `a-${Math.floor(i / SOURCES)}`,
  level: i % 7 === 0 ? "critical" : "warning",
  message: `threshold ${i} crossed`
})

/** 1k sources with a status each and 10k alerts, written by 10 clients at once. */
const seed = async (clients: ReadonlyArray<Client>) => {
  const work = async (total: number, op: (client: Client, i: number) => Promise<void>) => {
    let next = 0
    await Promise.all(
      clients.map(async (client) => {
        while (next < total) await op(client, next++)
      })
    )
  }
  await work(SOURCES, (client, i) =>
    call(client, "report_status", { source: `src-${i}`, tags: [], metrics: { up: 1 }, ttl_sec: 864_000 })
  )
  await work(ALERTS, (client, i) => call(client, "report_alert", alertArgs(i)))
}

let writes = 0
const reportAlert = (client: Client) => timed(client, "report_alert", alertArgs((writes++ * 37) % ALERTS))
const cached = (client: Client) => timed(client, "get_briefing", {})
const fresh = async (client: Client) => {
  await call(client, "report_alert", alertArgs((writes++ * 37) % ALERTS))
  return timed(client, "get_briefing", {})
}

const measure = async (
  server: ChildProcess,
  clients: ReadonlyArray<Client>,
  op: (client: Client) => Promise<number>,
  each: number
) => {
  // A cached row measures hits only: the write before it (another row's) left the cache stale, so one read first.
  if (op === cached) await cached(clients[0]!)
  const samples: Array<number> = []
  const cpuBefore = cpuMsOf(server)
  await Promise.all(
    clients.map(async (client) => {
      for (let j = 0; j < each; j++) samples.push(await op(client))
    })
  )
  const cpuAfter = cpuMsOf(server)
  // A fresh briefing's operation is the write and the read that follows it.
  const cpu =
    cpuBefore === undefined || cpuAfter === undefined
      ? {}
      : { server_cpu_ms: round((cpuAfter - cpuBefore) / samples.length) }
  return { ...stats(samples), ...cpu, load: round(loadavg()[0]!) }
}

const runBackend = async (label: string, store: ReadonlyArray<string>) => {
  const { child, url } = await startServer(store)
  try {
    await new Promise((resolve) => setTimeout(resolve, 1000))
    const memoryStart = await memoryOf(child)
    const memoryStartSettled = await settledMemoryOf(child)
    const seeders = await Promise.all(Array.from({ length: 10 }, () => connect(url)))
    const seedStart = performance.now()
    await seed(seeders)
    const seedSeconds = (performance.now() - seedStart) / 1000
    const one = seeders[0]!
    await cached(one)
    const memoryAlerts = await memoryOf(child)
    const memoryAlertsSettled = await settledMemoryOf(child)
    const many = await Promise.all(Array.from({ length: 40 }, () => connect(url)))
    const fifty = [...seeders, ...many]
    await Promise.all(fifty.map((client) => cached(client)))
    const rows = [
      { name: "RSS after start (MB)", figures: memoryStart },
      { name: "RSS after start, settled (MB)", figures: memoryStartSettled },
      {
        name: `RSS after ${SOURCES} sources and ${ALERTS} alerts (MB)`,
        figures: { ...memoryAlerts, seed_s: round(seedSeconds) }
      },
      { name: `RSS after ${SOURCES} sources and ${ALERTS} alerts, settled (MB)`, figures: memoryAlertsSettled },
      { name: "get_briefing cached, 1 client", figures: await measure(child, [one], cached, 200) },
      {
        name: "get_briefing fresh (1k sources, 10k alerts), 1 client",
        figures: await measure(child, [one], fresh, 30)
      },
      { name: "report_alert, 1 client", figures: await measure(child, [one], reportAlert, 200) },
      { name: "get_briefing cached, 50 clients", figures: await measure(child, fifty, cached, 10) },
      {
        name: "get_briefing fresh (1k sources, 10k alerts), 50 clients",
        figures: await measure(child, fifty, fresh, 3)
      },
      { name: "report_alert, 50 clients", figures: await measure(child, fifty, reportAlert, 10) },
      { name: "RSS after the latency runs (MB)", figures: await memoryOf(child) },
      { name: "RSS after the latency runs, settled (MB)", figures: await settledMemoryOf(child) }
    ]
    await Promise.all(fifty.map((client) => client.close()))
    await stop(child)
    // A restart on the populated store: the steady state of a deployment (a new PGlite folder also pays initdb).
    const again = await startServer(store)
    try {
      await new Promise((resolve) => setTimeout(resolve, 1000))
      const restarted = await memoryOf(again.child)
      const client = await connect(again.url)
      await cached(client)
      rows.push(
        { name: "RSS after a restart on the populated store (MB)", figures: restarted },
        { name: "RSS after the restart's first briefing (MB)", figures: await memoryOf(again.child) }
      )
      await client.close()
    } finally {
      await stop(again.child)
    }
    Bench.record(`Awareness at scale (${label}${pinned ? ", pinned: clients on core 0, server on core 1" : ""})`, rows)
  } finally {
    if (child.exitCode === null) await stop(child)
  }
}

const only = process.env.HEED_BENCH_BACKEND
if (only === undefined || only === "pglite") {
  const dataDir = mkdtempSync(join(tmpdir(), "heed-bench-scale-"))
  try {
    await runBackend("embedded PGlite", ["--data-dir", join(dataDir, "data")])
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}

if (only === undefined || only === "postgres") {
  const serverUrl = new URL(process.env.HEED_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test")
  const database = `heed_bench_scale_${process.pid}`
  const psql = (sql: string) => spawnSync("psql", [serverUrl.toString(), "-qc", sql], { encoding: "utf8" })
  const created = psql(`CREATE DATABASE ${database}`)
  if (created.status !== 0) {
    console.warn(`Skipping the PostgreSQL rows: could not create a database (${created.error ?? created.stderr})`)
  } else {
    try {
      const url = new URL(serverUrl)
      url.pathname = `/${database}`
      await runBackend("PostgreSQL server", ["--database-url", url.toString()])
    } finally {
      psql(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
    }
  }
}
