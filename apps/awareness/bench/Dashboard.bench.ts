/**
 * The dashboard in a real browser (Debian's chromium, headless, through playwright-core) against the server on the
 * embedded PGlite store (a fresh data directory):
 * - write to paint: the page itself POSTs an alert to `/v1/alerts` and times, with `performance.now()` on the page's
 *   clock, until a MutationObserver sees the alert's row in the DOM, and until the frame after it (requestAnimationFrame:
 *   the change painted); 10 untimed writes, then 50 timed ones, each a new alert;
 * - page weight: the scripts and stylesheets the browser loads for `/` (the page built afresh by Vite, as
 *   `./heed build` does), raw and gzip (zlib's default level, as a server would send them).
 * Skips with a printed reason when chromium is missing (./heed bench installs it as root).
 */
import { mkdtempSync, rmSync } from "node:fs"
import { cpus, loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { gzipSync } from "node:zlib"
import { Bench } from "@heed/bench"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as HttpServer from "effect/http/HttpServer"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { chromium } from "playwright-core"
import * as Backend from "../src/Backend.ts"
import * as Server from "../src/Server.ts"
import { browserUnavailableReason, buildPage, chromiumArgs, chromiumPath } from "../test/browser.ts"
import { settingsFor } from "../test/harness.ts"
import { round, stats } from "./support.ts"

const WARMUP = 10
const WRITES = 50

const missing = browserUnavailableReason()
if (missing !== undefined) {
  console.log(`skipping the dashboard bench: ${missing}`)
  process.exit(0)
}

const dataDir = mkdtempSync(join(tmpdir(), "heed-bench-dashboard-"))
const scope = Effect.runSync(Scope.make())
const settings = settingsFor({
  dataDir,
  defaultOwner: "bench",
  watchIntervalMs: 5000,
  // The page as ./heed build makes it (Vite, production), built afresh into a temporary folder.
  dashboardDir: await Effect.runPromise(buildPage)
})
const context = await Effect.runPromise(
  Layer.buildWithScope(
    Server.layerHttp(settings, Date.now()).pipe(Layer.provideMerge(Backend.layer({ _tag: "embedded", dataDir }))),
    scope
  )
)
const address = Context.get(context, HttpServer.HttpServer).address
const base = `http://127.0.0.1:${address._tag === "UnixPathAddress" ? 0 : address.port}`

// A few sources, so that the page has a realistic tree to re-render on every change.
for (const source of ["synology-nas", "gcal", "github-ci", "router"]) {
  const response = await fetch(`${base}/v1/status`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ source, tags: ["infra"], metrics: { up: 1 }, ttl_sec: 86_400 })
  })
  if (!response.ok) throw new Error(`seeding ${source}: ${response.status} ${await response.text()}`)
}

const browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: [...chromiumArgs] })
const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
page.setDefaultTimeout(30_000)
// When each WebSocket message reaches the page (a listener added before the page's own), to split the time into the
// server's part (write to SLOP patch) and the page's part (patch to DOM).
await page.addInitScript(() => {
  const arrivals: Array<number> = []
  const Native = window.WebSocket
  Object.assign(window, {
    heedSocketArrivals: arrivals,
    WebSocket: class extends Native {
      constructor(url: string | URL, protocols?: string | Array<string>) {
        super(url, protocols)
        this.addEventListener("message", () => arrivals.push(performance.now()))
      }
    }
  })
})

// -- page weight ------------------------------------------------------------------------------------------------------

const assets: Array<{ readonly kind: "js" | "css"; readonly raw: number; readonly gzip: number }> = []
const bodies: Array<Promise<void>> = []
page.on("response", (response) => {
  const type = response.request().resourceType()
  if (type !== "script" && type !== "stylesheet") return
  bodies.push(
    response.body().then((body) => {
      assets.push({ kind: type === "script" ? "js" : "css", raw: body.length, gzip: gzipSync(body).length })
    })
  )
})
const loading = performance.now()
await page.goto(`${base}/`)
await page.waitForSelector("[data-testid=connection][data-state=live]")
await page.waitForSelector("[data-testid=source][data-source=router]")
const toLive = performance.now() - loading
await Promise.all(bodies)
const kB = (bytes: number) => round(bytes / 1000)
const sum = (kind: "js" | "css", field: "raw" | "gzip") =>
  assets.filter((asset) => asset.kind === kind).reduce((total, asset) => total + asset[field], 0)

// -- write to paint ---------------------------------------------------------------------------------------------------

interface Sample {
  readonly reply: number
  readonly socket: number
  readonly dom: number
  readonly paint: number
}

const writeAndWatch = (i: number) =>
  page.evaluate(async (i): Promise<Sample> => {
    const alertId = `bench-${i}`
    const selector = `[data-testid=alert][data-alert-id="${alertId}"]`
    const seen = new Promise<number>((resolve) => {
      const observer = new MutationObserver(() => {
        if (document.querySelector(selector) !== null) {
          observer.disconnect()
          resolve(performance.now())
        }
      })
      observer.observe(document.body, { childList: true, subtree: true, attributes: true, characterData: true })
    })
    const started = performance.now()
    const response = await fetch("/v1/alerts", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        source: "bench",
        tags: ["bench"],
        alert_id: alertId,
        level: i % 2 === 0 ? "warning" : "critical",
        message: `threshold crossed (${i})`
      })
    })
    if (!response.ok) throw new Error(`POST /v1/alerts: ${response.status} ${await response.text()}`)
    const replied = performance.now()
    const inDom = await seen
    const painted = await new Promise<number>((resolve) => requestAnimationFrame(() => resolve(performance.now())))
    const arrivals = (window as unknown as { heedSocketArrivals: Array<number> }).heedSocketArrivals
    const socket = arrivals.find((at) => at > started) ?? Number.NaN
    return { reply: replied - started, socket: socket - started, dom: inDom - started, paint: painted - started }
  }, i)

// How busy the machine was: the figures are wall-clock times, and another process's load shows in them.
const loadAtStart = loadavg()[0]!
for (let i = 0; i < WARMUP; i++) await writeAndWatch(i)
const samples: Array<Sample> = []
for (let i = WARMUP; i < WARMUP + WRITES; i++) samples.push(await writeAndWatch(i))
const version = await page.evaluate(() => document.body.dataset.version ?? "")

Bench.record("Dashboard: REST write to the change in the page (chromium headless, embedded PGlite)", [
  { name: `POST /v1/alerts reply (in the page, ${WRITES} writes)`, figures: stats(samples.map((s) => s.reply)) },
  { name: "write to the first SLOP message after it (WebSocket)", figures: stats(samples.map((s) => s.socket)) },
  { name: "write to the alert's row in the DOM (MutationObserver)", figures: stats(samples.map((s) => s.dom)) },
  { name: "write to the next frame after it (painted)", figures: stats(samples.map((s) => s.paint)) },
  { name: "page load to a live connection (first visit)", figures: { ms: round(toLive) } },
  {
    name: "machine: 1-minute load average at the start, and cores",
    figures: { load: round(loadAtStart), cores: cpus().length }
  }
])
Bench.record("Dashboard: page weight (scripts and stylesheets loaded for /)", [
  {
    name: "JavaScript",
    figures: {
      files: assets.filter((a) => a.kind === "js").length,
      raw_kB: kB(sum("js", "raw")),
      gzip_kB: kB(sum("js", "gzip"))
    }
  },
  {
    name: "CSS",
    figures: {
      files: assets.filter((a) => a.kind === "css").length,
      raw_kB: kB(sum("css", "raw")),
      gzip_kB: kB(sum("css", "gzip"))
    }
  },
  {
    name: "JS + CSS",
    figures: { raw_kB: kB(sum("js", "raw") + sum("css", "raw")), gzip_kB: kB(sum("js", "gzip") + sum("css", "gzip")) }
  }
])
console.log(`page painted tree version ${version || "(none: no data-version on <body>)"} at the end`)

await browser.close()
await Effect.runPromise(Scope.close(scope, Exit.void))
rmSync(dataDir, { recursive: true, force: true })
