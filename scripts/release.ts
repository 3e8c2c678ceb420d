// ./heed check, step 6: a release rehearsal that changes nothing in the repository. It copies the working tree (and
// the public packages' built dist/, which publint's step just built) into a throwaway git repository, runs
// `changeset version` there, checks that every public package gets a real version (none left at 0.0.0) and shows
// the version table, then runs `pnpm publish --dry-run` of every public package on the versioned copy and checks
// that each tarball holds what its published `exports` point at.
import { execFileSync, spawnSync } from "node:child_process"
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, relative } from "node:path"
import { root, workspacePackages } from "./workspace.ts"

const publicPackages = workspacePackages().filter((pkg) => !pkg.private)
const manifestOf = (dir: string) => JSON.parse(readFileSync(join(dir, "package.json"), "utf8"))

/** Copies the working tree as git sees it (tracked and untracked, not ignored) plus the public packages' dist/. */
const copyWorkingTree = (target: string) => {
  const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: root,
    encoding: "utf8"
  })
  for (const file of files.split("\0").filter((name) => name !== "" && existsSync(join(root, name)))) {
    mkdirSync(dirname(join(target, file)), { recursive: true })
    cpSync(join(root, file), join(target, file))
  }
  for (const pkg of publicPackages) {
    const dist = join(pkg.dir, "dist")
    if (existsSync(dist)) cpSync(dist, join(target, relative(root, dist)), { recursive: true })
  }
  // changelog-git reads each changeset's commit, so the copy is a repository with one commit.
  const git = (...args: Array<string>) => execFileSync("git", args, { cwd: target, stdio: "ignore" })
  git("init", "-q", "-b", "main")
  git("add", "-A")
  git(
    "-c",
    "user.name=heed",
    "-c",
    "user.email=heed@localhost",
    "-c",
    "commit.gpgsign=false",
    "commit",
    "-q",
    "-m",
    "rehearsal"
  )
}

/** The files a published `exports` map points at (patterns such as `./*` aside). */
const exportTargets = (exports: unknown): Array<string> => {
  if (typeof exports === "string") return exports.includes("*") ? [] : [exports.replace(/^\.\//, "")]
  if (exports === null || typeof exports !== "object") return []
  return Object.values(exports).flatMap(exportTargets)
}

const copy = mkdtempSync(join(tmpdir(), "heed-release-"))
const problems: Array<string> = []
try {
  copyWorkingTree(copy)
  const version = spawnSync(process.execPath, [join(root, "node_modules/@changesets/cli/bin.js"), "version"], {
    cwd: copy,
    encoding: "utf8"
  })
  if (version.status !== 0) {
    console.error(version.stdout, version.stderr)
    throw new Error("changeset version failed in the throwaway copy; see above")
  }
  for (const pkg of publicPackages) {
    const before = manifestOf(pkg.dir).version
    const after = manifestOf(join(copy, relative(root, pkg.dir))).version
    console.log(`release: ${pkg.name} ${before} → ${after}`)
    if (after === "0.0.0") problems.push(`${pkg.name} would be published as 0.0.0: add a changeset for it`)
    // A package without a CHANGELOG.md was never released: it starts at 0.0.0 and its first release is 0.1.0, so
    // the packages released together for the first time share a version.
    const firstRelease = !existsSync(join(pkg.dir, "CHANGELOG.md"))
    if (firstRelease && before !== "0.0.0") problems.push(`${pkg.name} is unreleased but at ${before}: set it to 0.0.0`)
    if (firstRelease && after !== "0.0.0" && after !== "0.1.0") {
      problems.push(`${pkg.name}'s first release would be ${after}: make its changeset a minor bump (0.1.0)`)
    }
  }
  for (const pkg of publicPackages) {
    const dir = join(copy, relative(root, pkg.dir))
    const dryRun = spawnSync("pnpm", ["publish", "--dry-run", "--no-git-checks", "--json"], {
      cwd: dir,
      encoding: "utf8"
    })
    if (dryRun.status !== 0) {
      problems.push(`${pkg.name}: pnpm publish --dry-run failed:\n${dryRun.stderr || dryRun.stdout}`)
      continue
    }
    const summary = JSON.parse(dryRun.stdout.slice(dryRun.stdout.indexOf("{")))
    const packed = new Set<string>(summary.files.map((file: { path: string }) => file.path))
    const missing = exportTargets(manifestOf(dir).publishConfig?.exports).filter((file) => !packed.has(file))
    if (missing.length > 0) problems.push(`${pkg.name}: the tarball lacks ${missing.join(", ")} (was it built?)`)
    else console.log(`release: ${summary.id} packs ${packed.size} files (${(summary.size / 1024).toFixed(0)} KiB)`)
  }
} catch (error) {
  problems.push(String(error instanceof Error ? error.message : error))
} finally {
  rmSync(copy, { recursive: true, force: true })
}
for (const problem of problems) console.error(`heed: release: ${problem}`)
process.exit(problems.length > 0 ? 1 : 0)
