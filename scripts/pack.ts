// ./heed pack: builds every public package and packs it into dist-packs/ as the registry would receive it
// (`pnpm pack` rewrites workspace: and catalog: ranges to versions and applies publishConfig). Until the first
// release puts @heed on the npm registry, these tarballs are how a project outside the repository installs heed.
import { spawnSync } from "node:child_process"
import { mkdirSync, rmSync } from "node:fs"
import { basename, join, relative } from "node:path"
import { root, workspacePackages } from "./workspace.ts"

const destination = join(root, "dist-packs")
const publicPackages = workspacePackages().filter((pkg) => !pkg.private)

console.log(`pack: building ${publicPackages.length} public packages (turbo run build)`)
const build = spawnSync("pnpm", ["exec", "turbo", "run", "build", "--output-logs=errors-only"], {
  cwd: root,
  stdio: "inherit"
})
if (build.status !== 0) {
  console.error("heed: pack: the build failed; fix it and rerun ./heed pack")
  process.exit(1)
}

rmSync(destination, { recursive: true, force: true })
mkdirSync(destination)
const packed: Array<string> = []
for (const [index, pkg] of publicPackages.entries()) {
  const result = spawnSync("pnpm", ["pack", "--pack-destination", destination], { cwd: pkg.dir, encoding: "utf8" })
  if (result.status !== 0) {
    console.error(`heed: pack: ${pkg.name} failed:\n${result.stderr || result.stdout}`)
    process.exit(1)
  }
  const tarball = result.stdout.trim().split("\n").at(-1)!
  packed.push(tarball)
  console.log(`pack: ${index + 1}/${publicPackages.length} ${pkg.name} → ${relative(root, tarball)}`)
}

const files = packed.map((tarball) => `dist-packs/${basename(tarball)}`)
console.log(`\npack: ${packed.length} tarballs in dist-packs/. Install them into another project with npm, all at once`)
console.log("(npm resolves each @heed dependency to its tarball when they are installed together), e.g.:\n")
console.log(`  npm install ${files.map((file) => join(root, file)).join(" \\\n    ")}`)
