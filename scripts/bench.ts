// ./heed bench [package]: runs each package's bench/*.bench.ts under Node and writes
// bench-results/<package>.json with one entry per case.
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { cpus, tmpdir } from "node:os"
import { join, relative } from "node:path"
import { isNamed, root, workspacePackages } from "./workspace.ts"

const wanted = process.argv[2]
const benchFiles = (dir: string): Array<string> =>
  existsSync(join(dir, "bench"))
    ? readdirSync(join(dir, "bench"))
        .filter((file) => file.endsWith(".bench.ts"))
        .sort()
    : []
const withBenches = workspacePackages().filter((pkg) => benchFiles(pkg.dir).length > 0)
const selected = wanted === undefined ? withBenches : withBenches.filter((pkg) => isNamed(pkg, wanted))
if (selected.length === 0) {
  const known = withBenches.map((pkg) => pkg.shortName).join(", ") || "none yet"
  console.error(`heed: no benchmarks for '${wanted}'. Packages with benchmarks: ${known}`)
  process.exit(1)
}

mkdirSync(join(root, "bench-results"), { recursive: true })
let failures = 0
for (const pkg of selected) {
  const files = benchFiles(pkg.dir)
  const out = join(tmpdir(), `heed-bench-${pkg.shortName}-${process.pid}.jsonl`)
  rmSync(out, { force: true })
  for (const file of files) {
    console.log(`\n== ${pkg.name}: ${file}`)
    const result = spawnSync(process.execPath, ["--conditions=@heed/source", "--expose-gc", join("bench", file)], {
      cwd: pkg.dir,
      stdio: "inherit",
      env: { ...process.env, HEED_BENCH_OUT: out, NODE_ENV: "production" }
    })
    if (result.status !== 0) {
      failures += 1
      console.error(`heed: ${relative(root, join(pkg.dir, "bench", file))} failed (exit ${result.status})`)
    }
  }
  const cases = existsSync(out)
    ? readFileSync(out, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line))
    : []
  rmSync(out, { force: true })
  const target = join(root, "bench-results", `${pkg.shortName}.json`)
  const machine = { node: process.version, cpu: cpus()[0]?.model ?? "unknown", cores: cpus().length }
  writeFileSync(
    target,
    `${JSON.stringify({ package: pkg.name, generated: new Date().toISOString(), machine, cases }, null, 2)}\n`
  )
  console.log(`\nheed: wrote ${relative(root, target)} (${cases.length} cases)`)
}
process.exit(failures > 0 ? 1 : 0)
