import { spawn } from "node:child_process"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { freePort, stats } from "./support.ts"

const port = await freePort()
const child = spawn(
  process.execPath,
  [
    "--conditions=@heed/source",
    "--cpu-prof",
    "--cpu-prof-dir=/tmp/awl/cprof",
    "src/main.ts",
    "serve",
    "--port",
    `${port}`,
    "--data-dir",
    "memory://"
  ],
  {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, HEED_LOG_LEVEL: "Warn", HEED_WATCH_INTERVAL_MS: "5000" }
  }
)
await new Promise<void>((resolve) => {
  let out = ""
  child.stdout!.on("data", (c: Buffer) => {
    out += c
    if (out.includes("Press Ctrl+C")) resolve()
  })
})
const url = new URL(`http://127.0.0.1:${port}/mcp`)
const clients = await Promise.all(
  Array.from({ length: 50 }, async () => {
    const c = new Client({ name: "p", version: "1" })
    await c.connect(new StreamableHTTPClientTransport(url))
    return c
  })
)
for (let i = 0; i < 300; i++)
  await clients[i % 50]!.callTool({
    name: "report_alert",
    arguments: { source: `s${i % 100}`, tags: [], alert_id: `a${i}`, level: "warning", message: `m${i}` }
  })
await clients[0]!.callTool({ name: "get_briefing", arguments: {} })
const samples: number[] = []
await Promise.all(
  clients.map(async (c) => {
    for (let j = 0; j < 40; j++) {
      const t = performance.now()
      await c.callTool({ name: "get_briefing", arguments: {} })
      samples.push(performance.now() - t)
    }
  })
)
console.log(stats(samples))
await Promise.all(clients.map((c) => c.close()))
child.kill("SIGTERM")
await new Promise((r) => child.on("exit", r))
