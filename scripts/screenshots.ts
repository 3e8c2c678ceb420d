// ./heed screenshots: runs the dashboard's real-browser tests (apps/awareness/test/Dashboard.browser.test.ts), which
// save the page's main states as PNGs under screenshots/awareness/ (git-ignored, never committed), then copies the one
// the awareness README and the docs site show to docs/guides/images/dashboard.png (committed). Run it after a change
// to the page's looks and commit the new picture.
import { spawnSync } from "node:child_process"
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs"
import { dirname, join, relative } from "node:path"
import { root } from "./workspace.ts"

const shots = join(root, "screenshots", "awareness")
const shown = "suppressed-alert.png"
const target = join(root, "docs", "guides", "images", "dashboard.png")

rmSync(shots, { recursive: true, force: true })
const run = spawnSync("pnpm", ["exec", "vitest", "run", "test/Dashboard.browser.test.ts"], {
  cwd: join(root, "apps", "awareness"),
  stdio: "inherit",
  // A missing chromium fails the run instead of skipping it: there would be nothing to copy.
  env: { ...process.env, CI: "true", HEED_SCREENSHOT_DIR: shots }
})
if (run.status !== 0) {
  console.error(`heed: screenshots: the browser tests failed (exit ${run.status ?? run.signal}); see above`)
  process.exit(1)
}
const source = join(shots, shown)
if (!existsSync(source)) {
  console.error(`heed: screenshots: the tests passed but did not save ${relative(root, source)}`)
  process.exit(1)
}
for (const file of readdirSync(shots).sort()) {
  console.log(
    `screenshots: ${relative(root, join(shots, file))} (${Math.round(statSync(join(shots, file)).size / 1000)} kB)`
  )
}
mkdirSync(dirname(target), { recursive: true })
copyFileSync(source, target)
console.log(`screenshots: copied ${shown} to ${relative(root, target)}; commit it`)
