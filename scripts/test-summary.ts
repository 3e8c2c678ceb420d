// The summary ./heed test prints after turbo has run every package's tests: one block per package, the failing tests
// listed again at the end (so a failure 300 lines up is not missed), and one final line
// "N passed, N failed[, N skipped]" that CI reads. Pure, so its format is tested without running a test suite.
import { relative } from "node:path"

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

/** The parts of vitest's JSON report the summary reads. */
export interface VitestReport {
  readonly numPassedTests?: number
  readonly numFailedTests?: number
  readonly numPendingTests?: number
  readonly numTodoTests?: number
  readonly testResults?: ReadonlyArray<Suite>
}

/** A reason a skipped test printed, as scripts/skip-reporter.ts keeps it in `.reports/skips.json`. */
export interface SkipReason {
  readonly file: string
  readonly reason: string
}

/**
 * One tested package: its name, its folder, its report (undefined when the run crashed before writing one), and the
 * reasons its skipped tests printed.
 */
export interface PackageRun {
  readonly name: string
  readonly dir: string
  readonly report: VitestReport | undefined
  readonly skips?: ReadonlyArray<SkipReason> | undefined
}

export interface Summary {
  readonly passed: number
  readonly failed: number
  readonly skipped: number
  /** Lines for stdout: the per-package blocks, the failed tests again, and the final count line. */
  readonly lines: ReadonlyArray<string>
  /** Lines for stderr: runs that produced no usable result. */
  readonly problems: ReadonlyArray<string>
}

const skippedOf = (report: VitestReport): number => (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0)

/** The line printed as soon as one package's tests have finished (before the summary), e.g. on a CI log. */
export const progressLine = (run: PackageRun, done: number, total: number): string => {
  if (run.report === undefined) return `test: ${done}/${total} ${run.name}: no report`
  const skipped = skippedOf(run.report)
  return (
    `test: ${done}/${total} ${run.name}: ${run.report.numPassedTests ?? 0} passed, ` +
    `${run.report.numFailedTests ?? 0} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`
  )
}

/** Why each package skipped what it skipped: the printed reasons, or a note that none was printed. */
const skipLines = (runs: ReadonlyArray<PackageRun>): Array<string> =>
  runs.flatMap((run) => {
    const skipped = run.report === undefined ? 0 : skippedOf(run.report)
    if (skipped === 0) return []
    const reasons = run.skips ?? []
    if (reasons.length === 0) return [`  ${run.name}: ${skipped} skipped, and no reason was printed`]
    return reasons.map(({ file, reason }) => `  ${run.name}${file === "" ? "" : ` ${file}`}: ${reason}`)
  })

const testSeconds = (suites: ReadonlyArray<Suite>): number =>
  Math.round(suites.reduce((sum, s) => sum + Math.max(0, (s.endTime ?? 0) - (s.startTime ?? 0)), 0) / 1000)

const failedTests = (run: PackageRun, suites: ReadonlyArray<Suite>): Array<string> =>
  suites.flatMap((suite) =>
    (suite.assertionResults ?? [])
      .filter((test) => test.status === "failed")
      .map((test) => `${run.name} ${relative(run.dir, suite.name)} > ${test.fullName ?? test.title ?? "(unnamed)"}`)
  )

/** Summarises the packages' reports; `turboStatus` is turbo's exit status (non-zero with no failed test is a failure). */
export const summarize = (runs: ReadonlyArray<PackageRun>, turboStatus: number | null): Summary => {
  let passed = 0
  let failed = 0
  let skipped = 0
  const blocks: Array<string> = []
  const failures: Array<string> = []
  const problems: Array<string> = []
  for (const run of runs) {
    const report = run.report
    if (report === undefined) {
      failed += 1
      problems.push(`${run.name}: no test report (the test run crashed before reporting; see its output above)`)
      continue
    }
    const suites = report.testResults ?? []
    const pending = skippedOf(report)
    passed += report.numPassedTests ?? 0
    failed += report.numFailedTests ?? 0
    skipped += pending
    blocks.push(
      `${run.name}: ${report.numPassedTests ?? 0} passed, ${report.numFailedTests ?? 0} failed` +
        `${pending > 0 ? `, ${pending} skipped` : ""} in ${suites.length} files (${testSeconds(suites)} s of test time)`
    )
    failures.push(...failedTests(run, suites))
    // A suite that failed to load has no failed tests but is a failure all the same.
    for (const suite of suites.filter((s) => s.status === "failed" && (s.assertionResults ?? []).length === 0)) {
      failed += 1
      problems.push(`${run.name}: ${relative(run.dir, suite.name)} failed to load`)
    }
  }
  if (turboStatus !== 0 && failed === 0) {
    failed += 1
    problems.push(`turbo exited with status ${turboStatus}; see the output above`)
  }
  const lines = ["", "Test summary by package:", ...blocks.map((block) => `  ${block}`)]
  const skips = skipLines(runs)
  if (skips.length > 0) lines.push("", "Skipped, and why:", ...skips)
  if (failures.length > 0) lines.push("", `Failed tests (${failures.length}):`, ...failures.map((f) => `  ✗ ${f}`))
  lines.push(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`)
  return { passed, failed, skipped, lines, problems: problems.map((problem) => `heed: ${problem}`) }
}
