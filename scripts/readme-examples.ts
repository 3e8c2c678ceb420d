// ./heed check, step 4: runs the first ```ts example of every public package's README under Node, so the
// examples users copy keep working. Each example runs from its package directory with the source condition.
import { spawnSync } from "node:child_process"
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join, relative } from "node:path"
import { root, workspacePackages } from "./workspace.ts"

let failures = 0
for (const pkg of workspacePackages().filter((candidate) => !candidate.private)) {
  const readme = join(pkg.dir, "README.md")
  if (!existsSync(readme)) {
    failures += 1
    console.error(`heed: ${pkg.name} has no README.md`)
    continue
  }
  const example = /```ts\n([\s\S]*?)```/.exec(readFileSync(readme, "utf8"))?.[1]
  if (example === undefined) {
    failures += 1
    console.error(`heed: ${relative(root, readme)} has no \`\`\`ts example`)
    continue
  }
  const file = join(pkg.dir, `.readme-example-${process.pid}.ts`)
  writeFileSync(file, example)
  const result = spawnSync(process.execPath, ["--conditions=@heed/source", file], {
    cwd: pkg.dir,
    encoding: "utf8",
    timeout: 60_000
  })
  rmSync(file, { force: true })
  if (result.status === 0) {
    console.log(`readme: ${pkg.name} example ok`)
  } else {
    failures += 1
    console.error(`heed: the example in ${relative(root, readme)} failed:\n${result.stderr || result.stdout}`)
  }
}
process.exit(failures > 0 ? 1 : 0)
