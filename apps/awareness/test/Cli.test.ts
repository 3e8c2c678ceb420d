import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer as createHttpServer } from "node:http"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Token from "../src/Token.ts"
import { connectHttp, ok } from "./harness.ts"

const appDir = fileURLToPath(new URL("..", import.meta.url))

const run = (args: ReadonlyArray<string>, env: Record<string, string> = {}) => {
  const child = spawn(process.execPath, ["--conditions=@heed/source", "src/main.ts", ...args], {
    cwd: appDir,
    env: { ...process.env, HEED_LOG_LEVEL: "Warn", ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let stdout = ""
  let stderr = ""
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString()
  })
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
  return {
    child,
    exited,
    output: () => stdout,
    errors: () => stderr,
    waitFor: async (text: string, timeoutMs = 60_000) => {
      const deadline = Date.now() + timeoutMs
      while (!stdout.includes(text)) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no '${text}' in: ${stdout}${stderr}`)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    }
  }
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer()
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      probe.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })

describe("command line", () => {
  it.live(
    "serve prints the URL, a client snippet and the briefing; SIGTERM exits 0; data survives a restart",
    () =>
      Effect.gen(function* () {
        const dir = mkdtempSync(join(tmpdir(), "heed-cli-"))
        yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dir, { recursive: true, force: true })))
        const port = yield* Effect.promise(freePort)
        const server = run(["serve", "--port", String(port), "--data-dir", join(dir, "nested", "data")])
        yield* Effect.promise(() => server.waitFor("Press Ctrl+C"))
        const banner = server.output()
        assert.include(banner, `http://127.0.0.1:${port}/mcp`)
        assert.include(banner, `dashboard: http://127.0.0.1:${port}/\n`)
        assert.include(banner, "tools: full")
        assert.include(banner, '"mcpServers"')
        assert.include(banner, '"attention_needed": false')

        // A port already taken: the second server fails with a non-zero exit code instead of pretending to serve.
        const clash = run(["serve", "--port", String(port), "--memory"])
        const clashCode = yield* Effect.promise(() => clash.exited)
        assert.notStrictEqual(clashCode, 0)
        assert.strictEqual(
          clash.errors().trim(),
          `heed-awareness: port ${port} on 127.0.0.1 is already in use (another server?): stop it, or choose another port with --port or HEED_PORT`
        )

        // The data directory is locked: a second server on it fails naming the holder's PID (issue 12 #9; stdio
        // sessions attach to the holder instead, see Sessions.test.ts) ...
        const otherPort = yield* Effect.promise(freePort)
        const second = run(["serve", "--port", String(otherPort), "--data-dir", join(dir, "nested", "data")])
        assert.strictEqual(yield* Effect.promise(() => second.exited), 1)
        assert.include(second.errors(), `is in use by process ${server.child.pid}`)
        assert.notInclude(second.errors(), "    at ")
        // ... and `briefing` reads through the running server instead.
        const through = run(["briefing", "--data-dir", join(dir, "nested", "data")])
        assert.strictEqual(yield* Effect.promise(() => through.exited), 0, through.errors())
        assert.strictEqual(JSON.parse(through.output()).attention_needed, false)

        yield* Effect.scoped(
          Effect.gen(function* () {
            const client = yield* connectHttp(`http://127.0.0.1:${port}/mcp`)
            yield* ok(client, "report_alert", {
              source: "synology-nas",
              tags: ["disk"],
              alert_id: "disk",
              level: "critical",
              message: "Disk failing"
            })
          })
        )
        server.child.kill("SIGTERM")
        assert.strictEqual(yield* Effect.promise(() => server.exited), 0)

        const briefing = run(["briefing", "--data-dir", join(dir, "nested", "data")])
        assert.strictEqual(yield* Effect.promise(() => briefing.exited), 0)
        const printed = JSON.parse(briefing.output())
        assert.strictEqual(printed.sources["synology-nas"].status, "critical")
        assert.strictEqual(printed.sources["synology-nas"].headline, "Disk failing")
      }),
    { timeout: 180_000 }
  )

  it.live(
    "user errors print one line without a stack trace and exit 1; --log-level debug adds the cause; --help lists --log-level once",
    () =>
      Effect.gen(function* () {
        const cases: ReadonlyArray<[ReadonlyArray<string>, Record<string, string>, string]> = [
          [
            ["serve", "--memory"],
            { HEED_AUTH_REQUIRED: "true", HEED_JWT_SECRET: "" },
            "HEED_AUTH_REQUIRED=true needs HEED_JWT_SECRET"
          ],
          [["briefing", "--database-url", "postgres://nobody@127.0.0.1:1/none"], {}, "the database is unavailable"],
          [
            ["serve", "--memory"],
            { HEED_PORT: "not-a-port" },
            'bad setting: Expected a string representing a finite number at ["HEED_PORT"]'
          ],
          [["token", "--user", "alice"], { HEED_JWT_SECRET: "" }, "set HEED_JWT_SECRET"]
        ]
        for (const [args, env, expected] of cases) {
          const child = run(args, env)
          assert.strictEqual(yield* Effect.promise(() => child.exited), 1, args.join(" "))
          const lines = child.errors().trim().split("\n")
          assert.strictEqual(lines.length, 1, child.errors())
          assert.match(lines[0]!, /^heed-awareness: /)
          assert.include(lines[0]!, expected)
        }
        const debug = run(["--log-level", "debug", "token", "--user", "alice"], { HEED_JWT_SECRET: "" })
        assert.strictEqual(yield* Effect.promise(() => debug.exited), 1)
        assert.include(debug.errors(), "CliFailure")
        assert.include(debug.errors(), "heed-awareness: set HEED_JWT_SECRET")
        const help = run(["serve", "--help"])
        assert.strictEqual(yield* Effect.promise(() => help.exited), 0)
        assert.strictEqual(help.output().split("--log-level").length - 1, 1)
        assert.include(help.output(), "heed/awareness")
      }),
    { timeout: 180_000 }
  )

  it.live(
    "migrate prepares a data directory; OTEL_EXPORTER_OTLP_ENDPOINT exports telemetry over OTLP/HTTP",
    () =>
      Effect.gen(function* () {
        const dir = mkdtempSync(join(tmpdir(), "heed-migrate-"))
        yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dir, { recursive: true, force: true })))
        const migrate = run(["migrate", "--data-dir", join(dir, "data")])
        assert.strictEqual(yield* Effect.promise(() => migrate.exited), 0)
        assert.include(migrate.output(), "migrated")

        const received: Array<string> = []
        const collector = createHttpServer((request, response) => {
          received.push(request.url ?? "")
          request.resume()
          request.on("end", () => response.end("{}"))
        })
        const collectorPort = yield* Effect.promise(
          () =>
            new Promise<number>((resolve) =>
              collector.listen(0, "127.0.0.1", () => {
                const address = collector.address()
                resolve(typeof address === "object" && address !== null ? address.port : 0)
              })
            )
        )
        yield* Effect.addFinalizer(() => Effect.sync(() => collector.close()))
        const port = yield* Effect.promise(freePort)
        const server = run(["serve", "--port", String(port), "--memory"], {
          OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collectorPort}`,
          HEED_LOG_LEVEL: "Info"
        })
        yield* Effect.promise(() => server.waitFor("Press Ctrl+C"))
        yield* Effect.scoped(
          Effect.gen(function* () {
            const client = yield* connectHttp(`http://127.0.0.1:${port}/mcp`)
            yield* ok(client, "get_briefing")
          })
        )
        server.child.kill("SIGTERM")
        assert.strictEqual(yield* Effect.promise(() => server.exited), 0)
        assert.isTrue(
          received.some((path) => path.startsWith("/v1/")),
          `collector saw: ${received.join(", ")}`
        )
      }),
    { timeout: 120_000 }
  )

  it.live(
    "token prints a verifiable HS256 token, and refuses without a secret or with a bad duration",
    () =>
      Effect.gen(function* () {
        const secret = "cli-test-secret-0123"
        const good = run(["token", "--user", "alice", "--expires", "2h"], { HEED_JWT_SECRET: secret })
        assert.strictEqual(yield* Effect.promise(() => good.exited), 0)
        const verdict = Token.verify(good.output().trim(), secret, Math.floor(Date.now() / 1000))
        assert.isTrue(verdict.ok)
        if (verdict.ok) assert.strictEqual(verdict.claims.sub, "alice")
        const noSecret = run(["token", "--user", "alice"], { HEED_JWT_SECRET: "" })
        assert.notStrictEqual(yield* Effect.promise(() => noSecret.exited), 0)
        const badDuration = run(["token", "--user", "alice", "--expires", "soon"], { HEED_JWT_SECRET: secret })
        assert.notStrictEqual(yield* Effect.promise(() => badDuration.exited), 0)
        assert.include(badDuration.errors() + badDuration.output(), "soon")
      }),
    { timeout: 60_000 }
  )
})
