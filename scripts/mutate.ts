// ./heed mutate <package> [--files glob]... [--incremental] [--concurrency N] [--no-check]: mutation testing with
// Stryker on a package's src/, killed by the package's own vitest tests. Writes mutation-results/<package>/
// (report.json, report.html, survivors.txt, incremental.json) and prints a one-screen summary.
//
// Stryker runs in place (inPlace: true) in the package folder: the package's vitest.config.ts (custom condition
// @heed/source, the fast-check seed file two folders up) and its tsconfig.json (project references) only resolve
// from their real location, which a sandbox copy of the package would break. Stryker backs the mutated files up
// under the package's .stryker-tmp/ and restores them when it ends, also on Ctrl-C; a killed run (SIGKILL) leaves
// instrumented sources behind: `git checkout -- <package>/src` restores them.
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { join, relative } from "node:path"
import { isNamed, root, workspacePackages } from "./workspace.ts"

const usage = `Usage: ./heed mutate <package> [--files <glob>]... [--tests <glob>]... [--incremental] [--concurrency <n>] [--no-check]

  <package>          the package to mutate (short or full name: collator, @heed/collator)
  --files <glob>     mutate only these files, relative to the package's src/ (repeatable; default: every
                     src/**/*.ts except index.ts), e.g. --files Pattern.ts --files 'internal/*.ts'
  --tests <glob>     run only these test files, relative to the package (repeatable; default: the package's
                     vitest include), e.g. --tests test/Token.test.ts: much faster where the suite is slow, but the
                     score then counts only what these tests catch
  --incremental      reuse mutation-results/<package>/incremental.json from the previous run: only mutants in
                     changed code, or covered by changed tests, run again
  --concurrency <n>  test runner processes (default 1; the machine is shared)
  --no-check         skip the TypeScript checker (faster; mutants that do not compile count as survivors or kills)`

interface Options {
  readonly pkg: string
  readonly files: ReadonlyArray<string>
  readonly tests: ReadonlyArray<string>
  readonly incremental: boolean
  readonly concurrency: number
  readonly check: boolean
}

const parse = (args: ReadonlyArray<string>): Options => {
  let pkg: string | undefined
  const files: Array<string> = []
  const tests: Array<string> = []
  let incremental = false
  let concurrency = 1
  let check = true
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string
    const value = (): string => {
      const next = args[i + 1]
      if (next === undefined) throw new Error(`${arg} needs a value`)
      i += 1
      return next
    }
    if (arg === "--files") files.push(value())
    else if (arg.startsWith("--files=")) files.push(arg.slice("--files=".length))
    else if (arg === "--tests") tests.push(value())
    else if (arg.startsWith("--tests=")) tests.push(arg.slice("--tests=".length))
    else if (arg === "--incremental") incremental = true
    else if (arg === "--no-check") check = false
    else if (arg === "--concurrency" || arg.startsWith("--concurrency=")) {
      const raw = arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : value()
      concurrency = Number(raw)
      if (!Number.isInteger(concurrency) || concurrency < 1)
        throw new Error(`--concurrency: not a positive integer: ${raw}`)
    } else if (arg === "-h" || arg === "--help") {
      console.log(usage)
      process.exit(0)
    } else if (arg.startsWith("-")) throw new Error(`unknown option ${arg}`)
    else if (pkg === undefined) pkg = arg
    else throw new Error(`one package at a time (got ${pkg} and ${arg})`)
  }
  if (pkg === undefined) throw new Error("name the package to mutate")
  return { pkg, files, tests, incremental, concurrency, check }
}

let options: Options
try {
  options = parse(process.argv.slice(2))
} catch (error) {
  console.error(`heed: mutate: ${(error as Error).message}\n\n${usage}`)
  process.exit(2)
}

const tested = workspacePackages().filter((pkg) => pkg.scripts.test !== undefined && existsSync(join(pkg.dir, "src")))
const pkg = tested.find((candidate) => isNamed(candidate, options.pkg))
if (pkg === undefined) {
  console.error(
    `heed: mutate: no tested package named ${options.pkg}; known: ${tested.map((p) => p.shortName).join(", ")}`
  )
  process.exit(2)
}

// A glob names files under src/ ("Pattern.ts", "internal/*.ts"); one already starting with src/ is taken as is.
const inSrc = (glob: string): string => (glob.startsWith("src/") ? glob : `src/${glob.replace(/^\.?\//, "")}`)
const mutate =
  options.files.length > 0 ? options.files.map(inSrc) : ["src/**/*.ts", "!src/**/index.ts", "!src/**/*.d.ts"]

const out = join(root, "mutation-results", pkg.shortName)
mkdirSync(out, { recursive: true })
const reportJson = join(out, "report.json")
rmSync(reportJson, { force: true })

// --tests: a vitest config beside the package's own (so its relative paths resolve the same) that narrows include.
const vitestConfig = options.tests.length === 0 ? "vitest.config.ts" : "vitest.stryker.config.ts"
if (options.tests.length > 0) {
  writeFileSync(
    join(pkg.dir, vitestConfig),
    `// written by ./heed mutate --tests; git-ignored, removed after the run\n` +
      `import base from "./vitest.config.ts"\n\n` +
      `export default { ...base, test: { ...base.test, include: ${JSON.stringify(options.tests)} } }\n`
  )
}
// Plugins by absolute path: under pnpm, Stryker's default "@stryker-mutator/*" glob only sees its own dependencies.
const require = createRequire(join(root, "package.json"))
const plugins = ["@stryker-mutator/vitest-runner", ...(options.check ? ["@stryker-mutator/typescript-checker"] : [])]
const config = {
  $schema: join(root, "node_modules/@stryker-mutator/core/schema/stryker-schema.json"),
  packageManager: "pnpm",
  plugins: plugins.map((name) => require.resolve(name)),
  testRunner: "vitest",
  vitest: { configFile: vitestConfig },
  checkers: options.check ? ["typescript"] : [],
  tsconfigFile: "tsconfig.json",
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  coverageAnalysis: "perTest",
  inPlace: true,
  mutate,
  concurrency: options.concurrency,
  timeoutMS: 10_000,
  reporters: ["json", "html", "progress"],
  jsonReporter: { fileName: reportJson },
  htmlReporter: { fileName: join(out, "report.html") },
  incremental: options.incremental,
  incrementalFile: join(out, "incremental.json"),
  tempDirName: ".stryker-tmp",
  cleanTempDir: true,
  logLevel: "info",
  fileLogLevel: "off",
  allowConsoleColors: process.stdout.isTTY === true
}
const configFile = join(out, "stryker.config.json")
writeFileSync(configFile, `${JSON.stringify(config, null, 2)}\n`)

console.log(
  `heed: mutating ${pkg.name} ${mutate.join(" ")} (concurrency ${options.concurrency}${options.check ? ", TypeScript checker" : ""}${options.incremental ? ", incremental" : ""})`
)
const started = Date.now()
const stryker = spawnSync(
  process.execPath,
  [join(root, "node_modules/@stryker-mutator/core/bin/stryker.js"), "run", configFile],
  {
    cwd: pkg.dir,
    stdio: "inherit",
    env: { ...process.env, NODE_ENV: "test" }
  }
)
const seconds = Math.round((Date.now() - started) / 1000)
if (options.tests.length > 0) rmSync(join(pkg.dir, vitestConfig), { force: true })
// The vitest runner leaves its setup files (stryker-setup-<n>.js) in the package folder when it runs in place.
for (const entry of readdirSync(pkg.dir)) {
  if (/^stryker-setup-\d+\.js$/.test(entry)) rmSync(join(pkg.dir, entry), { force: true })
}
if (!existsSync(reportJson)) {
  console.error(`heed: mutate: Stryker wrote no report (exit ${stryker.status}); see its output above`)
  process.exit(1)
}

// The report follows mutation-testing-report-schema: files -> { source, mutants: [{ mutatorName, replacement,
// status, location: { start: { line, column } } }] }.
interface Mutant {
  readonly mutatorName: string
  readonly replacement?: string
  readonly status: string
  readonly location: { readonly start: { readonly line: number; readonly column: number } }
}
interface Report {
  readonly files: Record<string, { readonly source: string; readonly mutants: ReadonlyArray<Mutant> }>
}
const report = JSON.parse(readFileSync(reportJson, "utf8")) as Report
const detected = new Set(["Killed", "Timeout"])
const undetected = new Set(["Survived", "NoCoverage"])
const rows: Array<{
  file: string
  score: number
  killed: number
  survived: number
  noCoverage: number
  other: number
}> = []
const survivors: Array<string> = []
for (const [file, { source, mutants }] of Object.entries(report.files).sort(([a], [b]) => a.localeCompare(b))) {
  const lines = source.split("\n")
  const name = relative(pkg.dir, join(pkg.dir, file))
  const killed = mutants.filter((m) => detected.has(m.status)).length
  const survived = mutants.filter((m) => m.status === "Survived").length
  const noCoverage = mutants.filter((m) => m.status === "NoCoverage").length
  const valid = killed + survived + noCoverage
  rows.push({
    file: name,
    score: valid === 0 ? 100 : (100 * killed) / valid,
    killed,
    survived,
    noCoverage,
    other: mutants.length - valid
  })
  for (const m of mutants.filter((m) => undetected.has(m.status))) {
    const { line, column } = m.location.start
    const original = (lines[line - 1] ?? "").trim()
    const replacement = (m.replacement ?? "").replace(/\s+/g, " ").slice(0, 80)
    survivors.push(
      `${name}:${line}:${column} ${m.mutatorName}${m.status === "NoCoverage" ? " (no coverage)" : ""} -> ${replacement}\n    ${original.slice(0, 110)}`
    )
  }
}
const totalKilled = rows.reduce((sum, row) => sum + row.killed, 0)
const totalValid = rows.reduce((sum, row) => sum + row.killed + row.survived + row.noCoverage, 0)
const total = totalValid === 0 ? 100 : (100 * totalKilled) / totalValid
writeFileSync(
  join(out, "survivors.txt"),
  `${pkg.name} ${mutate.join(" ")}: mutation score ${total.toFixed(1)}% (${totalKilled}/${totalValid}), ${seconds} s\n\n${survivors.join("\n")}\n`
)

const width = Math.max(4, ...rows.map((row) => row.file.length))
console.log(`\n${"file".padEnd(width)}  score  killed  survived  no-cov  other`)
for (const row of rows) {
  console.log(
    `${row.file.padEnd(width)}  ${row.score.toFixed(1).padStart(5)}  ${String(row.killed).padStart(6)}  ${String(row.survived).padStart(8)}  ${String(row.noCoverage).padStart(6)}  ${String(row.other).padStart(5)}`
  )
}
const shown = 12
console.log(`\nsurvivors (${survivors.length}${survivors.length > shown ? `, first ${shown}` : ""}):`)
for (const line of survivors.slice(0, shown)) console.log(`  ${line}`)
console.log(
  `\nheed: ${pkg.name}: mutation score ${total.toFixed(1)}% (${totalKilled} of ${totalValid} detected) in ${seconds} s; ` +
    `survivors in ${relative(root, join(out, "survivors.txt"))}, full report ${relative(root, join(out, "report.html"))}`
)
process.exit(stryker.status === 0 ? 0 : 1)
