// ./heed check: the facts a reader takes from the docs agree with the code.
// - One release line: every workspace package has the same version, and no source writes a version of its own
//   (`--version`, MCP `serverInfo` and the OpenAPI document read it from their package.json).
// - One Node requirement: every `engines.node` is the root's, and the top README states it.
// - Every `./heed <command>` named in a README or guide exists, and CONTRIBUTING's command table lists them all.
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { versionFiles } from "./sync-versions.ts"
import { root, workspacePackages } from "./workspace.ts"

const problems: Array<string> = []
const read = (path: string) => readFileSync(join(root, path), "utf8")
const tracked = (...patterns: Array<string>) =>
  execFileSync("git", ["ls-files", "-co", "--exclude-standard", ...patterns], { cwd: root, encoding: "utf8" })
    .split("\n")
    .filter((file) => file !== "" && !file.startsWith(".changeset/"))

// One release line.
const manifests = workspacePackages().map((pkg) => ({
  pkg,
  json: JSON.parse(readFileSync(join(pkg.dir, "package.json"), "utf8"))
}))
const versions = new Set(manifests.map(({ json }) => json.version))
if (versions.size !== 1) {
  const listing = manifests.map(({ pkg, json }) => `${pkg.name}@${json.version}`).join(", ")
  problems.push(`packages disagree on the version (one release line for all): ${listing}`)
}
for (const { name, manifest, written } of versionFiles()) {
  if (written !== manifest) {
    problems.push(
      `${name}: src/internal/version.ts says ${written}, package.json ${manifest}: run ./heed node scripts/sync-versions.ts`
    )
  }
}
// A semver literal beside the word "version" in a source file is a second source of truth. The GPU adapter's ONNX
// graphs carry an opset producer version, which is the graph format's, not heed's.
const literal = /version\W{0,12}["'`]\d+\.\d+\.\d+["'`]/i
for (const file of tracked("packages/*/src/*.ts", "packages/*/*/src/*.ts", "apps/*/src/*.ts")) {
  if (file.startsWith("packages/adapters/gpu/") || file.endsWith("/src/internal/version.ts")) continue
  read(file)
    .split("\n")
    .forEach((line, index) => {
      if (literal.test(line)) {
        problems.push(`${file}:${index + 1}: a written version; read it from package.json instead: ${line.trim()}`)
      }
    })
}

// One Node requirement.
const rootEngine: string | undefined = JSON.parse(read("package.json")).engines?.node
const minimum = /^>=(\d+)\.(\d+)\.\d+$/.exec(rootEngine ?? "")
if (minimum === null) problems.push(`the root package.json's engines.node must be ">=X.Y.Z" (it is ${rootEngine})`)
for (const { pkg, json } of manifests) {
  // Private workspace helpers (@heed/bench, @heed/tests) are never installed by anyone: no engines to state.
  if (json.private === true && json.engines === undefined) continue
  if (json.engines?.node !== rootEngine) {
    problems.push(`${pkg.name}: engines.node is ${json.engines?.node}; every package states the root's ${rootEngine}`)
  }
}
if (minimum !== null && !read("README.md").includes(`Node ${minimum[1]}.${minimum[2]} or newer`)) {
  problems.push(`README.md must state the Node requirement as "Node ${minimum[1]}.${minimum[2]} or newer"`)
}

// Every ./heed command named in the docs exists; CONTRIBUTING lists them all.
const wrapper = read("heed")
const commands = new Set(
  [...wrapper.matchAll(/^ {2}([a-z][a-z-]*(?: \| [a-z-]+)*)\)$/gm)].flatMap((match) => match[1]!.split(" | "))
)
for (const file of tracked("*.md")) {
  read(file)
    .split("\n")
    .forEach((line, index) => {
      for (const [, command] of line.matchAll(/\.\/heed ([a-z][a-z-]*)/g)) {
        if (!commands.has(command!)) problems.push(`${file}:${index + 1}: \`./heed ${command}\` is not a command`)
      }
    })
}
const contributing = read("docs/CONTRIBUTING.md")
for (const command of commands) {
  if (["help", "-h", "--help"].includes(command)) continue
  if (!contributing.includes(`\`./heed ${command}`)) {
    problems.push(`docs/CONTRIBUTING.md's command table lacks \`./heed ${command}\``)
  }
}

if (problems.length > 0) {
  for (const problem of problems) console.error(`heed: ${problem}`)
  process.exit(1)
}
console.log(
  `docs: one version (${[...versions][0]}), one Node requirement (${rootEngine}), ${commands.size} ./heed commands, all documented`
)
