/**
 * `npx @heed/awareness` from the tarballs a release would publish (slow: it builds, packs seven packages and installs
 * them, about 20 s when the builds are cached). The app and the workspace packages it depends on are built
 * (`turbo run build`, cached) and packed with `pnpm pack`, which rewrites `workspace:` and `catalog:` ranges to
 * versions; a project outside the repository installs the app's tarball with pnpm, the workspace packages coming from
 * their tarballs (overrides) and everything else from pnpm's store (`--prefer-offline`: no network when the store
 * has it). Then the installed bin answers `--help`, and an MCP client starts it over stdio, writes and reads a
 * briefing. Where npm is installed, `npm exec @heed/awareness` (what `npx` runs) is used too.
 */
import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import * as Effect from "effect/Effect"
import { afterAll, beforeAll } from "vitest"
import { ok } from "./harness.ts"

const root = fileURLToPath(new URL("../../..", import.meta.url))

interface Manifest {
  readonly name: string
  readonly private?: boolean
  readonly bin?: Record<string, string>
  readonly dependencies?: Record<string, string>
}
const manifestAt = (dir: string): Manifest => JSON.parse(readFileSync(join(dir, "package.json"), "utf8"))

/** Every workspace package's directory by name. */
const workspaceDirs = (): Map<string, string> => {
  const dirs = new Map<string, string>()
  for (const group of ["packages/core", "packages/adapters", "apps"]) {
    for (const entry of readdirSync(join(root, group))) {
      const dir = join(root, group, entry)
      try {
        dirs.set(manifestAt(dir).name, dir)
      } catch {
        // not a package
      }
    }
  }
  return dirs
}

/** The app and the workspace packages it needs at run time, transitively. */
const closure = (dirs: Map<string, string>, name: string, seen = new Set<string>()): Set<string> => {
  seen.add(name)
  for (const [dep, range] of Object.entries(manifestAt(dirs.get(name)!).dependencies ?? {})) {
    if (range.startsWith("workspace:") && !seen.has(dep)) closure(dirs, dep, seen)
  }
  return seen
}

const run = (command: string, args: ReadonlyArray<string>, cwd: string, timeout = 300_000) => {
  const result = spawnSync(command, args, { cwd, encoding: "utf8", timeout, env: { ...process.env, NO_COLOR: "1" } })
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(" ")} (in ${cwd}) failed: ${result.error ?? ""}${result.stderr}${result.stdout}`
    )
  }
  return result.stdout
}

const npmAvailable = spawnSync("npm", ["--version"], { encoding: "utf8" }).status === 0
if (!npmAvailable) console.warn("Skipping the `npm exec @heed/awareness` cases: npm is not installed")

const work = mkdtempSync(join(tmpdir(), "heed-npx-"))
const project = join(work, "project")
const tarballs = new Map<string, string>()

beforeAll(() => {
  run("pnpm", ["exec", "turbo", "run", "build", "--filter=@heed/awareness...", "--output-logs=errors-only"], root)
  const dirs = workspaceDirs()
  for (const name of closure(dirs, "@heed/awareness")) {
    const packed = run("pnpm", ["pack", "--pack-destination", work], dirs.get(name)!).trim().split("\n").at(-1)!
    tarballs.set(name, packed)
  }
  mkdirSync(project)
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({
      name: "npx-check",
      private: true,
      dependencies: { "@heed/awareness": `file:${tarballs.get("@heed/awareness")}` }
    })
  )
  const overrides = [...tarballs].filter(([name]) => name !== "@heed/awareness")
  writeFileSync(
    join(project, "pnpm-workspace.yaml"),
    `overrides:\n${overrides.map(([name, file]) => `  "${name}": "file:${file}"\n`).join("")}`
  )
  run("pnpm", ["install", "--prefer-offline", "--ignore-scripts"], project)
}, 600_000)

afterAll(() => rmSync(work, { recursive: true, force: true }))

/** An MCP client over stdio to a server started by `command args` in the project directory. */
const stdioClient = (command: string, args: ReadonlyArray<string>) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client({ name: "heed-npx-test", version: "1.0.0" })
      await client.connect(new StdioClientTransport({ command, args: [...args], cwd: project, stderr: "ignore" }))
      return client
    }),
    (client) => Effect.promise(() => client.close())
  )

/** report_alert then get_briefing through `client`: the briefing carries the alert. */
const roundTrip = (client: Client) =>
  Effect.gen(function* () {
    const alert = { source: "nas", tags: ["infra"], alert_id: "disk", level: "critical", message: "Disk 97% full" }
    yield* ok(client, "report_alert", alert)
    const briefing = yield* ok(client, "get_briefing")
    assert.strictEqual(briefing.summary, "1 critical on nas.")
    assert.strictEqual(briefing.active_alerts, 1)
    assert.strictEqual(briefing.attention_needed, true)
  })

describe("npx @heed/awareness from the packed tarballs", () => {
  it("packs a publishable manifest: no workspace or catalog ranges, one bin", () => {
    const manifest = JSON.parse(
      run("tar", ["-xzOf", tarballs.get("@heed/awareness")!, "package/package.json"], work)
    ) as Manifest
    assert.isUndefined(manifest.private)
    // npx runs a package's only bin
    assert.deepStrictEqual(manifest.bin, { "heed-awareness": "./dist/main.js" })
    for (const [dep, range] of Object.entries(manifest.dependencies ?? {})) {
      assert.match(range, /^[\^~]?\d/, `${dep}: ${range}`)
    }
  })

  it("the installed bin prints its help", () => {
    const help = run(join(project, "node_modules/.bin/heed-awareness"), ["--help"], project)
    assert.include(help, "heed-awareness <subcommand>")
    assert.include(help, "serve")
  })

  it.live(
    "an MCP client starts the installed bin over stdio and gets a briefing",
    () =>
      Effect.gen(function* () {
        const bin = join(project, "node_modules/.bin/heed-awareness")
        yield* roundTrip(yield* stdioClient(bin, ["serve", "--stdio", "--memory"]))
      }).pipe(Effect.scoped),
    60_000
  )

  it.skipIf(!npmAvailable)("npm exec @heed/awareness (npx) prints the help", () => {
    const help = run("npm", ["exec", "--offline", "--yes", "--", "@heed/awareness", "--help"], project)
    assert.include(help, "heed-awareness <subcommand>")
  })

  it.live.skipIf(!npmAvailable)(
    "npm exec @heed/awareness serve --stdio (npx) serves a briefing",
    () =>
      Effect.gen(function* () {
        const args = ["exec", "--offline", "--yes", "--", "@heed/awareness", "serve", "--stdio", "--memory"]
        yield* roundTrip(yield* stdioClient("npm", args))
      }).pipe(Effect.scoped),
    60_000
  )
})
