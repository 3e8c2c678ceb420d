// ./heed check, step 3: builds the public packages and runs publint on each as it would be packed.
import { spawnSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { publint } from "publint"
import { formatMessage } from "publint/utils"
import { root, workspacePackages } from "./workspace.ts"

const publicPackages = workspacePackages().filter((pkg) => !pkg.private)
const build = spawnSync("pnpm", ["exec", "turbo", "run", "build", "--output-logs=errors-only"], {
  cwd: root,
  stdio: "inherit"
})
if (build.status !== 0) {
  console.error("heed: the build failed, so publint cannot check the packed packages")
  process.exit(1)
}
let problems = 0
for (const pkg of publicPackages) {
  const manifest = JSON.parse(readFileSync(join(pkg.dir, "package.json"), "utf8"))
  const { messages } = await publint({ pkgDir: pkg.dir, pack: "pnpm", strict: true, level: "suggestion" })
  for (const message of messages) {
    problems += 1
    console.error(`${pkg.name}: [${message.type}] ${formatMessage(message, manifest) ?? message.code}`)
  }
  if (messages.length === 0) console.log(`publint: ${pkg.name} ok`)
}
process.exit(problems > 0 ? 1 : 0)
