import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Token from "../src/Token.ts"
import { settingsFor, startHttp } from "./harness.ts"
import { send } from "./slop.ts"

const appDir = fileURLToPath(new URL("..", import.meta.url))
const secret = "test-secret-that-is-long-enough"
const { HEED_URL: _url, HEED_TOKEN: _token, ...inherited } = process.env

/** Runs `heed-awareness report …` as a shell would, to its exit. */
const report = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  Effect.promise(
    () =>
      new Promise<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }>((resolve) => {
        const child = spawn(process.execPath, ["--conditions=@heed/source", "src/main.ts", "report", ...args], {
          cwd: appDir,
          env: { ...inherited, ...env },
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
        child.on("exit", (code) => resolve({ code, stdout, stderr }))
      })
  )

describe("heed-awareness report", () => {
  it.live(
    "status, alert and remind post to a running server (URL and token from flags or HEED_URL/HEED_TOKEN); a refused report exits 1 with the problem",
    () =>
      Effect.gen(function* () {
        const settings = settingsFor({ authRequired: true, secret: Option.some(Redacted.make(secret)) })
        const { base } = yield* startHttp(settings, { _tag: "embedded", dataDir: "memory://" })
        const token = Token.sign({ sub: "cron", secret, nowSec: Math.floor(Date.now() / 1000), expiresInSec: 600 })
        const auth = { authorization: `Bearer ${token}` }

        const status = yield* report(
          ["status", "--source", "nas", "--tag", "infra", "--metric", "disk=91", "--headline", "fine"],
          { HEED_URL: base, HEED_TOKEN: token }
        )
        assert.strictEqual(status.code, 0, status.stderr)
        assert.strictEqual(JSON.parse(status.stdout).source, "nas")
        const stored = yield* send(base, "GET", "/v1/status/nas", undefined, auth)
        assert.deepStrictEqual(stored.body.data.metrics, { disk: 91 })

        const alert = yield* report([
          "alert",
          "--url",
          base,
          "--token",
          token,
          "--source",
          "nas",
          "--id",
          "disk",
          "--level",
          "critical",
          "--message",
          "Disk 91% full"
        ])
        assert.strictEqual(alert.code, 0, alert.stderr)
        const remind = yield* report(["remind", "--goal", "Order a disk", "--source", "nas"], {
          HEED_URL: base,
          HEED_TOKEN: token
        })
        assert.strictEqual(remind.code, 0, remind.stderr)
        assert.strictEqual(JSON.parse(remind.stdout).state, "pending")
        const briefing = yield* send(base, "GET", "/v1/briefing", undefined, auth)
        assert.strictEqual(briefing.body.sources.nas.status, "critical")

        const typo = yield* report(["alert", "--source", "nas", "--id", "x", "--level", "critcal", "--message", "m"], {
          HEED_URL: base,
          HEED_TOKEN: token
        })
        assert.strictEqual(typo.code, 1)
        // the error is logged by the runtime (stdout or stderr, as the CLI's logger is set up)
        assert.include(typo.stdout + typo.stderr, "Did you mean 'critical'?")
        assert.include(typo.stdout + typo.stderr, "parameter level")

        const anonymous = yield* report(["status", "--source", "nas"], { HEED_URL: base })
        assert.strictEqual(anonymous.code, 1)
        assert.include(anonymous.stdout + anonymous.stderr, "401")
      }),
    60_000
  )
})
