// ./heed test [package...]: runs the tests of every package (or the named ones) through turbo, cached
// per package, then prints one summary block per package, why tests were skipped, the failing tests again, and one
// final line "N passed, N failed[, N skipped]" (CI reads it) from the vitest JSON reports. Not on a terminal (CI, a
// redirect), the output has no ANSI codes, a progress line per finished package, and only failing packages' logs,
// each package's lines together.
import { spawn } from "node:child_process"
import { existsSync, readFileSync, rmSync } from "node:fs"
import { join } from "node:path"
import { type PackageRun, progressLine, summarize } from "./test-summary.ts"
import { isNamed, root, workspacePackages } from "./workspace.ts"

const wanted = process.argv.slice(2)
const withTests = workspacePackages().filter((pkg) => pkg.scripts.test !== undefined)
const tested = wanted.length === 0 ? withTests : withTests.filter((pkg) => wanted.some((name) => isNamed(pkg, name)))
const unknown = wanted.filter((name) => !tested.some((pkg) => isNamed(pkg, name)))
if (unknown.length > 0) {
  const known = withTests.map((pkg) => pkg.shortName).join(", ")
  console.error(`heed: no tested package named ${unknown.join(", ")}; known: ${known}`)
  process.exit(2)
}
for (const pkg of tested) rmSync(join(pkg.dir, ".reports"), { recursive: true, force: true })

const filters = wanted.length === 0 ? [] : tested.map((pkg) => `--filter=${pkg.name}`)
const terminal = process.stdout.isTTY === true
const quiet = terminal ? [] : ["--no-color", "--log-order=grouped", "--output-logs=errors-only"]
const readRun = (pkg: (typeof tested)[number]): PackageRun => {
  const report = join(pkg.dir, ".reports", "vitest.json")
  const skips = join(pkg.dir, ".reports", "skips.json")
  return {
    name: pkg.name,
    dir: pkg.dir,
    report: existsSync(report) ? JSON.parse(readFileSync(report, "utf8")) : undefined,
    skips: existsSync(skips) ? JSON.parse(readFileSync(skips, "utf8")) : undefined
  }
}

// Off a terminal turbo prints only failing packages' logs, all at the end; so that a CI log shows progress, a line
// goes out as each package's report appears (vitest writes it when the package's run ends; turbo restores it from
// its cache for an unchanged package).
const finished = new Set<string>()
const reportProgress = () => {
  for (const pkg of tested) {
    if (finished.has(pkg.name) || !existsSync(join(pkg.dir, ".reports", "vitest.json"))) continue
    try {
      const line = progressLine(readRun(pkg), finished.size + 1, tested.length)
      finished.add(pkg.name)
      console.log(line)
    } catch {
      // The report is still being written: read it at the next look.
    }
  }
}

const turboStatus = await new Promise<number | null>((resolve) => {
  const turbo = spawn("pnpm", ["exec", "turbo", "run", "test", "--continue", "--concurrency=2", ...quiet, ...filters], {
    cwd: root,
    stdio: "inherit",
    env: terminal ? process.env : { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0", CI: process.env.CI ?? "" }
  })
  const progress = terminal ? undefined : setInterval(reportProgress, 2000)
  turbo.on("close", (code) => {
    if (progress !== undefined) clearInterval(progress)
    resolve(code)
  })
})
if (!terminal) reportProgress()

const runs = tested.map(readRun)
const summary = summarize(runs, turboStatus)
for (const line of summary.lines.slice(0, -1)) console.log(line)
for (const problem of summary.problems) console.error(problem)
console.log(summary.lines.at(-1))
process.exit(summary.failed > 0 ? 1 : 0)
