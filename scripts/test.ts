// ./heed test [package...]: runs the tests of every package (or the named ones) through turbo, cached
// per package, then prints one summary block per package, the failing tests again, and one final line
// "N passed, N failed[, N skipped]" (CI reads it) from the vitest JSON reports. Not on a terminal (CI, a
// redirect), the output has no ANSI codes and only failing packages' logs, each package's lines together.
import { spawnSync } from "node:child_process"
import { existsSync, readFileSync, rmSync } from "node:fs"
import { join, relative } from "node:path"
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

interface Assertion {
  readonly status: string
  readonly fullName?: string
  readonly title?: string
}
interface Suite {
  readonly name: string
  readonly status: string
  readonly startTime?: number
  readonly endTime?: number
  readonly assertionResults?: ReadonlyArray<Assertion>
}
const failures: Array<string> = []
const blocks: Array<string> = []

let passed = 0
let failed = 0
let skipped = 0
const problems: Array<string> = []
for (const pkg of tested) {
  const report = join(pkg.dir, ".reports", "vitest.json")
  if (!existsSync(report)) {
    failed += 1
    problems.push(`${pkg.name}: no test report (the test run crashed before reporting; see its output above)`)
    continue
  }
  const json = JSON.parse(readFileSync(report, "utf8"))
  passed += json.numPassedTests ?? 0
  failed += json.numFailedTests ?? 0
  skipped += (json.numPendingTests ?? 0) + (json.numTodoTests ?? 0)
  const suites: ReadonlyArray<Suite> = json.testResults ?? []
  const seconds = Math.round(
    suites.reduce((sum, s) => sum + Math.max(0, (s.endTime ?? 0) - (s.startTime ?? 0)), 0) / 1000
  )
  const pending = (json.numPendingTests ?? 0) + (json.numTodoTests ?? 0)
  blocks.push(
    `${pkg.name}: ${json.numPassedTests ?? 0} passed, ${json.numFailedTests ?? 0} failed` +
      `${pending > 0 ? `, ${pending} skipped` : ""} in ${suites.length} files (${seconds} s of test time)`
  )
  for (const suite of suites) {
    for (const test of suite.assertionResults ?? []) {
      if (test.status === "failed") {
        failures.push(`${pkg.name} ${relative(pkg.dir, suite.name)} > ${test.fullName ?? test.title ?? "(unnamed)"}`)
      }
    }
  }
  // A suite that failed to load has no failed tests but is a failure all the same.
  const brokenSuites = (json.testResults ?? []).filter(
    (suite: { status: string; assertionResults?: Array<unknown> }) =>
      suite.status === "failed" && (suite.assertionResults ?? []).length === 0
  )
  for (const suite of brokenSuites) {
    failed += 1
    problems.push(`${pkg.name}: ${relative(pkg.dir, suite.name)} failed to load`)
  }
}
if (turbo.status !== 0 && failed === 0) {
  failed += 1
  problems.push(`turbo exited with status ${turbo.status}; see the output above`)
}
console.log("\nTest summary by package:")
for (const block of blocks) console.log(`  ${block}`)
if (failures.length > 0) {
  console.log(`\nFailed tests (${failures.length}):`)
  for (const failure of failures) console.log(`  ✗ ${failure}`)
}
for (const problem of problems) console.error(`heed: ${problem}`)
console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`)
process.exit(failed > 0 ? 1 : 0)
