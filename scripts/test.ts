// ./heed test [package...]: runs the tests of every package (or the named ones) through turbo, cached
// per package, then prints one summary block per package, the failing tests again, and one final line
// "N passed, N failed[, N skipped]" (CI reads it) from the vitest JSON reports. Not on a terminal (CI, a
// redirect), the output has no ANSI codes and only failing packages' logs, each package's lines together.
import { spawnSync } from "node:child_process"
import { existsSync, readFileSync, rmSync } from "node:fs"
import { join } from "node:path"
import { summarize } from "./test-summary.ts"
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
const turbo = spawnSync(
  "pnpm",
  ["exec", "turbo", "run", "test", "--continue", "--concurrency=2", ...quiet, ...filters],
  {
    cwd: root,
    stdio: "inherit",
    env: terminal ? process.env : { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0", CI: process.env.CI ?? "" }
  }
)

const runs = tested.map((pkg) => {
  const report = join(pkg.dir, ".reports", "vitest.json")
  return {
    name: pkg.name,
    dir: pkg.dir,
    report: existsSync(report) ? JSON.parse(readFileSync(report, "utf8")) : undefined
  }
})
const summary = summarize(runs, turbo.status)
for (const line of summary.lines.slice(0, -1)) console.log(line)
for (const problem of summary.problems) console.error(problem)
console.log(summary.lines.at(-1))
process.exit(summary.failed > 0 ? 1 : 0)
