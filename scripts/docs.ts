// ./heed docs [--serve] [--port N]: builds the docs site into docs/site/ — pictures generated from the code, a page
// per app from its README, then typedoc (API reference, one entry page per package with its README, the guides from
// docs/guides/) — checks its
// links and that it loads nothing from elsewhere, and reports its size. With --serve it then serves the site.
import { spawnSync } from "node:child_process"
import { rmSync } from "node:fs"
import { join } from "node:path"
import { serve } from "./docs-serve.ts"
import { checkSite } from "./docs-site.ts"
import { root } from "./workspace.ts"

const site = join(root, "docs", "site")
const pictures = join(root, "docs", "guides", "pictures")
const args = process.argv.slice(2)
const portArg = args.indexOf("--port")
const port = portArg === -1 ? 8440 : Number(args[portArg + 1])
const unknown = args.filter((arg, i) => arg !== "--serve" && arg !== "--port" && !(portArg !== -1 && i === portArg + 1))
if (unknown.length > 0 || !Number.isInteger(port) || port < 0 || port > 65535) {
  console.error("usage: ./heed docs [--serve] [--port N]   (N: 0-65535, default 8440; 0 picks a free port)")
  process.exit(2)
}

const step = (name: string, hint: string, command: string, commandArgs: ReadonlyArray<string>) => {
  const started = performance.now()
  const result = spawnSync(command, commandArgs, { cwd: root, stdio: "inherit" })
  if (result.status !== 0) {
    console.error(`heed: docs: ${name} failed (exit ${result.status ?? result.signal}); ${hint}`)
    process.exit(1)
  }
  console.log(`docs: ${name} done in ${((performance.now() - started) / 1000).toFixed(1)} s`)
}

rmSync(pictures, { recursive: true, force: true })
step("pictures", "the picture's code (docs/pictures/) failed above", process.execPath, [
  "--conditions=@heed/source",
  "docs/pictures/main.ts",
  pictures
])
step("app pages", "the app READMEs could not be turned into pages (scripts/docs-apps.ts)", process.execPath, [
  "scripts/docs-apps.ts"
])
step("typedoc", "fix the warnings above (every export needs JSDoc; guide links must resolve)", "pnpm", [
  "exec",
  "typedoc",
  "--logLevel",
  "Warn"
])

const report = checkSite(site)
for (const problem of report.problems) console.error(`heed: docs: ${problem}`)
const mb = (bytes: number) => `${(bytes / 1_000_000).toFixed(1)} MB`
console.log(
  `docs: site ${mb(report.bytes)} in ${report.files} files, ${report.pages} pages; ` +
    `largest page ${report.largest.path} (${(report.largest.bytes / 1000).toFixed(0)} kB)`
)
if (report.problems.length > 0) {
  console.error(
    `heed: docs: ${report.problems.length} problem(s) in the built site (broken links or external resources)`
  )
  process.exit(1)
}
console.log(`docs: links checked, no external resources; open ${join(site, "index.html")}`)

if (args.includes("--serve")) {
  try {
    const url = await serve(site, port)
    console.log(`docs: serving ${url} (Ctrl-C stops)`)
  } catch (error) {
    console.error(`heed: docs: cannot serve on 127.0.0.1:${port}: ${String(error)}; try --port 0 for a free port`)
    process.exit(1)
  }
}
