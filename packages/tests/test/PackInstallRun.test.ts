// Every public package as an npm user gets it: packed by pnpm (workspace: and catalog: ranges resolved, the published
// exports map), installed with npm into an empty project from the local tarballs (third-party dependencies come from
// the registry), and its README example run there on the built dist/, without the source condition. Public packages
// are found on disk, so a new one is tested as soon as it exists.

import { spawn, spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { root, workspacePackages } from "../../../scripts/workspace.ts"

interface Packed {
  readonly name: string
  readonly version: string
  readonly tarball: string
  readonly manifest: {
    readonly exports?: unknown
    readonly bin?: Record<string, string>
    readonly dependencies?: Record<string, string>
    readonly peerDependencies?: Record<string, string>
    readonly devDependencies?: Record<string, string>
  }
  readonly example: string
  /** npm settings the README tells its users to put in `.npmrc` (an ```ini block starting `# .npmrc`). */
  readonly npmrc: string | undefined
}

const publicPackages = workspacePackages().filter((pkg) => !pkg.private)
const work = mkdtempSync(join(tmpdir(), "heed-pack-"))
const packed = new Map<string, Packed>()
// Consumer folder per package, or why its npm install failed.
const installs = new Map<string, { readonly dir: string; readonly error?: string }>()

const run = (command: string, args: ReadonlyArray<string>, cwd: string) => {
  const result = spawnSync(command, args, { cwd, encoding: "utf8", timeout: 300_000 })
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(" ")} failed in ${cwd} (exit ${result.status ?? result.signal}):\n${result.stderr}`
    )
  }
  return result.stdout
}

// npm must not see the settings pnpm exports to the scripts it runs (npm_config_*): a user's shell has none.
const npmEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.toLowerCase().startsWith("npm_")))

/** `npm install` in `dir`, resolving with its error output when it fails. */
const npmInstall = (dir: string): Promise<string | undefined> =>
  new Promise((resolve) => {
    const child = spawn("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"], {
      cwd: dir,
      env: npmEnv,
      stdio: ["ignore", "ignore", "pipe"]
    })
    let stderr = ""
    child.stderr.on("data", (chunk) => {
      stderr += chunk
    })
    child.on("error", (error) =>
      resolve(`npm could not start (it comes with Node; is it on the PATH?): ${error.message}`)
    )
    child.on("close", (code) => resolve(code === 0 ? undefined : `npm install exited ${code}:\n${stderr}`))
  })

/** The package names an example imports (`effect/ai` → `effect`, `@heed/x/Y` → `@heed/x`; Node's own modules aside). */
const importedPackages = (code: string): Array<string> => [
  ...new Set(
    [...code.matchAll(/\bfrom\s+"((?!node:)[^".][^"]*)"/g)].map((match) => {
      const parts = match[1]!.split("/")
      return parts[0]!.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]!
    })
  )
]

// The workspace catalog (the `name: version` lines after `catalog:` in pnpm-workspace.yaml): the versions heed is
// developed against.
const catalogText = readFileSync(join(root, "pnpm-workspace.yaml"), "utf8").split(/^catalog:$/m)[1] ?? ""
const catalog = new Map(
  [...catalogText.matchAll(/^ {2}"?([@\w/.-]+)"?: (\S+)$/gm)].map((match) => [match[1]!, match[2]!] as const)
)

/**
 * The version range a consumer asks for when an example imports a third-party package the README tells it to add
 * (an app's example may use a client it is tested with, a devDependency).
 */
const rangeFor = (name: string, pkg: Packed): string =>
  pkg.manifest.peerDependencies?.[name] ??
  pkg.manifest.dependencies?.[name] ??
  pkg.manifest.devDependencies?.[name] ??
  catalog.get(name) ??
  "latest"

/** A package whose only exports entry is its manifest: a command (an app's bin), not a library. */
const binOnly = (pkg: Packed): boolean =>
  pkg.manifest.bin !== undefined &&
  JSON.stringify(pkg.manifest.exports) === JSON.stringify({ "./package.json": "./package.json" })

/** An empty npm project that installs `pkg` (and what its example imports) the way the README says. */
const consumerFor = (pkg: Packed): string => {
  const dir = join(work, "consumers", pkg.name.replace("/", "+"))
  mkdirSync(dir, { recursive: true })
  const local = (name: string) => `file:${packed.get(name)!.tarball}`
  const dependencies: Record<string, string> = { [pkg.name]: local(pkg.name) }
  for (const name of importedPackages(pkg.example)) {
    dependencies[name] = packed.has(name) ? local(name) : rangeFor(name, pkg)
  }
  // Every @heed package comes from its local tarball, also as a dependency of a dependency, never from the registry.
  const overrides = Object.fromEntries([...packed.keys()].map((name) => [name, local(name)]))
  const manifest = { name: "consumer", version: "1.0.0", private: true, type: "module", dependencies, overrides }
  writeFileSync(join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`)
  writeFileSync(join(dir, "main.ts"), pkg.example)
  if (pkg.npmrc !== undefined) writeFileSync(join(dir, ".npmrc"), pkg.npmrc)
  return dir
}

beforeAll(async () => {
  // The tarballs carry dist/, so build first (turbo replays its cache when nothing changed).
  run("pnpm", ["exec", "turbo", "run", "build", "--output-logs=errors-only"], root)
  const tarballs = join(work, "tarballs")
  for (const pkg of publicPackages) {
    const summary = JSON.parse(run("pnpm", ["pack", "--pack-destination", tarballs, "--json"], pkg.dir))
    const tarball: string = summary.filename
    const manifest = JSON.parse(run("tar", ["-xzOf", tarball, "package/package.json"], work))
    const readme = readFileSync(join(pkg.dir, "README.md"), "utf8")
    const example = /```ts\n([\s\S]*?)```/.exec(readme)?.[1] ?? ""
    const npmrc = /```ini\n\s*# \.npmrc\n([\s\S]*?)```/.exec(readme)?.[1]?.replace(/^\s+/gm, "")
    packed.set(pkg.name, { name: pkg.name, version: manifest.version, tarball, manifest, example, npmrc })
  }
  // npm mostly waits on the registry and the disk: two installs at a time cut the wall time without taking more
  // than the two cores a CI machine has.
  const queue = [...packed.values()]
  const worker = async () => {
    for (let pkg = queue.shift(); pkg !== undefined; pkg = queue.shift()) {
      const dir = consumerFor(pkg)
      const error = await npmInstall(dir)
      installs.set(pkg.name, error === undefined ? { dir } : { dir, error })
    }
  }
  await Promise.all([worker(), worker()])
})

afterAll(() => rmSync(work, { recursive: true, force: true }))

describe("packed packages", () => {
  it("every public package is packed", () => {
    assert.isAbove(publicPackages.length, 0)
    assert.deepStrictEqual([...packed.keys()].sort(), publicPackages.map((pkg) => pkg.name).sort())
  })

  it("internal dependency ranges accept the versions packed beside them", () => {
    const mismatches = [...packed.values()].flatMap((pkg) =>
      Object.entries({ ...pkg.manifest.dependencies, ...pkg.manifest.peerDependencies })
        .filter(([name]) => packed.has(name))
        .filter(([name, range]) => ![`^${packed.get(name)!.version}`, packed.get(name)!.version].includes(range))
        .map(([name, range]) => `${pkg.name} asks for ${name}@${range}, packed ${packed.get(name)!.version}`)
    )
    assert.deepStrictEqual(mismatches, [])
  })

  it("published manifests point at dist/, never at the sources", () => {
    for (const pkg of packed.values()) {
      const exports = JSON.stringify(pkg.manifest.exports)
      assert.notInclude(exports, "@heed/source", pkg.name)
      if (binOnly(pkg)) {
        for (const file of Object.values(pkg.manifest.bin!)) assert.match(file, /^\.\/dist\/[^/]+\.js$/, pkg.name)
      } else {
        assert.include(exports, "./dist/index.js", pkg.name)
      }
    }
  })
})

describe("installed from the tarball into an empty npm project", () => {
  for (const { name } of publicPackages) {
    it(`${name}: installs, resolves to dist/ and runs its README example`, () => {
      assert.notStrictEqual(packed.get(name)!.example, "", `${name}'s README has no \`\`\`ts example`)
      const { dir, error } = installs.get(name)!
      assert.isUndefined(error, error)
      const entry = binOnly(packed.get(name)!) ? `${name}/package.json` : name
      const resolved = run(
        process.execPath,
        ["--input-type=module", "-e", `console.log(import.meta.resolve("${entry}"))`],
        dir
      )
      const expected = binOnly(packed.get(name)!) ? "package\\.json" : "dist/index\\.js"
      assert.match(resolved.trim(), new RegExp(`/node_modules/${name}/${expected}$`))
      const example = spawnSync(process.execPath, ["main.ts"], { cwd: dir, encoding: "utf8", timeout: 120_000 })
      assert.strictEqual(example.status, 0, `the README example failed:\n${example.stderr}`)
    })
  }
})
