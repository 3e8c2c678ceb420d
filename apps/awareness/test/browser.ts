/**
 * The real-browser harness of the dashboard tests: Debian's chromium driven by playwright-core (headless, no sandbox,
 * no background networking), one page per test with its console errors collected, and screenshots under the
 * git-ignored `screenshots/awareness/` folder at the repository root. Chromium comes from `./heed test` (it installs
 * the Debian package as root, scripts/debian-packages.txt); when it is missing the browser tests skip with the reason
 * printed, and under CI=true they run and fail instead.
 */
import { spawn } from "node:child_process"
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core"

/** Where Debian installs chromium (the `chromium` package's launcher script). */
export const chromiumPath = process.env.HEED_CHROMIUM ?? "/usr/bin/chromium"

/** Why the browser tests cannot run here, or undefined when chromium is installed and executable. */
export const browserUnavailableReason = (): string | undefined => {
  try {
    accessSync(chromiumPath, constants.X_OK)
    return undefined
  } catch {
    return `chromium is not installed at ${chromiumPath} (./heed test installs Debian's chromium as root; or run: apt-get install chromium)`
  }
}

const reason = browserUnavailableReason()
const ci = process.env.CI === "true"
if (reason !== undefined) {
  console.warn(ci ? `chromium missing under CI=true: ${reason}` : `skipping the browser tests: ${reason}`)
}

/** Whether the browser tests skip (the reason is printed above); under CI=true they run and fail instead. */
export const skipBrowser = reason !== undefined && !ci

/**
 * Chromium's switches: headless in a container (no sandbox, no GPU, /tmp instead of a small /dev/shm) and nothing
 * that talks to the network on its own (updates, sync, safe browsing, metrics, field trials, component downloads).
 */
export const chromiumArgs: ReadonlyArray<string> = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-default-apps",
  "--disable-domain-reliability",
  "--disable-extensions",
  "--disable-sync",
  "--disable-client-side-phishing-detection",
  "--disable-breakpad",
  "--disable-crash-reporter",
  "--metrics-recording-only",
  "--no-first-run",
  "--no-default-browser-check",
  "--no-pings",
  "--disable-field-trial-config",
  "--disable-features=Translate,OptimizationHints,MediaRouter,DialMediaRouteProvider,AutofillServerCommunication"
]

/** Launches headless chromium for the scope (closed with it). */
export const launchBrowser: Effect.Effect<Browser, never, Scope.Scope> = Effect.acquireRelease(
  Effect.promise(() =>
    chromium.launch({ executablePath: chromiumPath, headless: true, args: [...chromiumArgs], timeout: 60_000 })
  ),
  (browser) => Effect.promise(() => browser.close())
)

/** A page and what went wrong in it: uncaught errors and console errors, for the assertions and failure messages. */
export interface OpenPage {
  readonly page: Page
  readonly context: BrowserContext
  readonly errors: Array<string>
}

/**
 * A fresh browser context (its own storage) and page at `viewport`, closed with the scope. Waits for DOM signals get
 * `timeoutMs` as their bound (a failure, never a signal).
 */
export const openPage = (
  browser: Browser,
  options: { readonly viewport?: { readonly width: number; readonly height: number }; readonly timeoutMs?: number } = {}
) =>
  Effect.acquireRelease(
    Effect.promise(async (): Promise<OpenPage> => {
      const context = await browser.newContext({
        viewport: options.viewport ?? { width: 1280, height: 900 },
        reducedMotion: "reduce"
      })
      context.setDefaultTimeout(options.timeoutMs ?? 20_000)
      const page = await context.newPage()
      const errors: Array<string> = []
      page.on("pageerror", (error) => errors.push(`pageerror: ${error.message}`))
      page.on("console", (message) => {
        // Chromium asks every origin for /favicon.ico on its own; the 404 of that guess is not the page's error.
        if (message.type() !== "error" || message.location().url.endsWith("/favicon.ico")) return
        errors.push(`console.error: ${message.text()} (${message.location().url})`)
      })
      return { page, context, errors }
    }),
    ({ context }) => Effect.promise(() => context.close())
  )

/** Runs a playwright call as an Effect (a rejection is a test failure with playwright's message). */
export const pw = <A>(f: () => Promise<A>): Effect.Effect<A> => Effect.promise(f)

/** The app's folder (this file is apps/awareness/test/browser.ts) and the repository root. */
export const appDir = join(dirname(fileURLToPath(import.meta.url)), "..")
export const repoRoot = join(appDir, "..", "..")

let built: Promise<string> | undefined

/**
 * Builds the page as `./heed build` does (Vite, web/vite.config.ts, production) into a fresh temporary folder, once
 * per process, and returns that folder for `settings.dashboardDir`: the tests see the page of the sources they run
 * with (a clean checkout has no dist/web, and an old one may be stale), and never race a concurrent build of dist.
 */
export const buildPage: Effect.Effect<string> = Effect.promise(() => {
  built ??= new Promise<string>((resolve, reject) => {
    const outDir = mkdtempSync(join(tmpdir(), "heed-dashboard-page-"))
    process.once("exit", () => rmSync(outDir, { recursive: true, force: true }))
    const vite = join(
      dirname(createRequire(join(appDir, "package.json")).resolve("vite/package.json")),
      "bin",
      "vite.js"
    )
    const child = spawn(
      process.execPath,
      [vite, "build", "--config", "web/vite.config.ts", "--outDir", outDir, "--emptyOutDir", "--logLevel", "warn"],
      { cwd: appDir, stdio: ["ignore", "inherit", "pipe"], env: { ...process.env, NODE_ENV: "production" } }
    )
    let stderr = ""
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    child.on("error", reject)
    child.on("exit", (code) =>
      code === 0 && existsSync(join(outDir, "index.html"))
        ? resolve(outDir)
        : reject(new Error(`vite build of the dashboard failed (exit ${code}): ${stderr}`))
    )
  })
  return built
})

/** Screenshots of the test run: `screenshots/awareness/` at the repository root (git-ignored, never committed). */
export const screenshotDir = process.env.HEED_SCREENSHOT_DIR ?? join(repoRoot, "screenshots", "awareness")

/** Saves a full-page PNG of `page` as `<name>.png` in {@link screenshotDir}; returns its path. */
export const screenshot = (page: Page, name: string) =>
  pw(async () => {
    mkdirSync(screenshotDir, { recursive: true })
    const path = join(screenshotDir, `${name}.png`)
    await page.screenshot({ path, fullPage: true, animations: "disabled" })
    return path
  })

/** The first integer in `text` ("1,234 tokens" → 1234), or NaN when it has none. */
export const integerIn = (text: string | null): number => {
  const match = /\d[\d,]*/.exec(text ?? "")
  return match === null ? Number.NaN : Number(match[0].replaceAll(",", ""))
}
