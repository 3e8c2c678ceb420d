import { spawn, spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, writeFileSync } from "node:fs"
import { createConnection, type Socket } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { NgircdServer } from "@heed/irc"
import * as Effect from "effect/Effect"
import type { AttentionControlShape } from "../src/AttentionControl.ts"
import * as Control from "../src/Control.ts"
import { NICK, person, skipIrc, waitForAgentIn } from "./harness.ts"

const bin = join(import.meta.dirname, "../bin/heed-agent")

const cli = (...args: Array<string>) => {
  const result = spawnSync(bin, args, { encoding: "utf8" })
  return { status: result.status, stdout: result.stdout, stderr: result.stderr }
}

/** Runs `heed-agent run` as a process; collects its stderr; resolves `exited` with its exit code. */
const runProcess = (config: string) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const child = spawn(bin, ["run", "--config", config], { stdio: ["ignore", "pipe", "pipe"] })
      const output = { text: "" }
      child.stdout!.on("data", (chunk: Buffer) => (output.text += chunk.toString()))
      child.stderr!.on("data", (chunk: Buffer) => (output.text += chunk.toString()))
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
      return { child, output, exited }
    }),
    ({ child }) => Effect.sync(() => child.kill("SIGKILL"))
  )

describe.skipIf(skipIrc)("the heed-agent command line", () => {
  it.live(
    "run logs its startup summary, answers status and attention over the socket, and quits cleanly on SIGTERM",
    () =>
      Effect.gen(function* () {
        const server = yield* NgircdServer.start
        const alice = yield* person(server, "alice", ["#dev"])
        const dir = mkdtempSync(join(tmpdir(), "heed-agent-cli-"))
        const config = join(dir, "agent.yaml")
        writeFileSync(
          config,
          [
            "server:",
            `  host: ${server.host}`,
            `  port: ${server.port}`,
            `  nick: ${NICK}`,
            'channels: ["#dev"]',
            "attention:",
            "  tick_s: 1",
            "runner:",
            "  type: command",
            '  command: ["printf", "hello from the cli"]',
            "  context: prompt",
            "state_dir: ./state",
            "quit_message: see you later",
            ""
          ].join("\n")
        )
        const agent = yield* runProcess(config)
        yield* waitForAgentIn(alice, ["#dev"])
        assert.include(
          agent.output.text,
          "attention: enabled=true bands=[hot=30/120 warm=120/300 cool=300/600 idle=600] override=no"
        )
        assert.include(
          agent.output.text,
          `heed-agent: agent=${NICK} server=127.0.0.1:${server.port} channels=1 runner=command`
        )

        // Bands in any case: `--band idle` is IDLE.
        const set = cli("attention", "#dev", "--band", "idle", "--ttl", "30", "--config", config)
        assert.strictEqual(set.status, 0, set.stderr)
        const held = JSON.parse(set.stdout)
        assert.strictEqual(held.band, "IDLE")
        // Seconds to a tenth: a 30 s hold read back at once is 30 or just under it, never 29.97312…
        assert.strictEqual(held.manual_ttl_s, Math.round(held.manual_ttl_s * 10) / 10)
        assert.isAtLeast(held.manual_ttl_s, 29)
        yield* alice.say("#dev", "@bot hi there")
        yield* alice.waitForMessages((m) => m.from === NICK, 1, "the reply")
        const status = cli("status", "--config", config)
        assert.strictEqual(status.status, 0, status.stderr)
        const parsed = JSON.parse(status.stdout)
        assert.deepStrictEqual([parsed.agent, parsed.connection, parsed.runner], [NICK, "connected", "command"])
        assert.strictEqual(parsed.targets.find((t: { target: string }) => t.target === "#dev").band, "HOT")
        assert.include(agent.output.text, `attention: agent=${NICK} target=#dev band=IDLE\u2192HOT cause=direct`)
        for (const target of parsed.targets) {
          if (target.last_poll_ago_s !== null) {
            assert.strictEqual(target.last_poll_ago_s, Math.round(target.last_poll_ago_s * 10) / 10)
          }
        }
        const bad = cli("attention", "#dev", "--band", "LUKEWARM", "--config", config)
        assert.notStrictEqual(bad.status, 0)
        assert.include(bad.stderr, "--band must be one of HOT, WARM, COOL, IDLE (any case)")

        agent.child.kill("SIGTERM")
        const code = yield* Effect.promise(() => agent.exited)
        assert.strictEqual(code, 0)
        yield* alice.waitForPresence((line) => line.startsWith(`QUIT ${NICK}`), "the agent's QUIT")
        assert.include(
          alice.presence.find((line) => line.startsWith(`QUIT ${NICK}`)),
          "see you later"
        )
        assert.isFalse(existsSync(join(dir, "state", "agent.sock")))
        assert.isTrue(existsSync(join(dir, "state", "context.json")))
      }).pipe(Effect.scoped)
  )
})

describe("the heed-agent command line without a server", () => {
  it("a config with a bad field fails with a message naming it", () => {
    const dir = mkdtempSync(join(tmpdir(), "heed-agent-cli-"))
    const config = join(dir, "agent.yaml")
    writeFileSync(
      config,
      'server: { host: 127.0.0.1, nick: bot, port: 99999 }\nrunner: { type: command, command: "cat" }\n'
    )
    const result = cli("run", "--config", config)
    assert.notStrictEqual(result.status, 0)
    assert.include(result.stderr, "port")
  })

  it("attention --ttl without --band is refused with a hint instead of being ignored", () => {
    const result = cli("attention", "#dev", "--ttl", "60", "--socket", join(tmpdir(), "no-such-agent.sock"))
    assert.strictEqual(result.status, 1)
    assert.include(result.stderr, "--ttl holds a band: give it with --band")
  })

  it.live("a second agent with the same state_dir is refused while the first one's socket answers", () =>
    Effect.gen(function* () {
      const path = join(mkdtempSync(join(tmpdir(), "heed-agent-cli-")), "agent.sock")
      const control = { status: Effect.die("unused") } as unknown as AttentionControlShape
      yield* Control.serve(path, control)
      const second = yield* Effect.flip(Control.serve(path, control))
      assert.include(second.message, "another heed-agent is running with this state_dir")
    }).pipe(Effect.scoped)
  )

  it.live("the control socket serves at most 16 clients at once and tells the next one it is busy", () =>
    Effect.gen(function* () {
      const path = join(mkdtempSync(join(tmpdir(), "heed-agent-cli-")), "agent.sock")
      const status = { agent: "bot", connection: "connected", paused: false, runner: "command", turns: 0, targets: [] }
      yield* Control.serve(path, { status: Effect.succeed(status) } as unknown as AttentionControlShape)
      const idle = yield* Effect.acquireRelease(
        Effect.forEach(Array.from({ length: 16 }), () =>
          Effect.callback<Socket>((resume) => {
            const socket = createConnection(path, () => resume(Effect.succeed(socket)))
          })
        ),
        (sockets) =>
          Effect.sync(() => {
            for (const socket of sockets) socket.destroy()
          })
      )
      const refused = yield* Effect.flip(Control.request(path, { op: "status" }))
      assert.strictEqual(refused.message, "busy: 16 clients are connected")
      // Once one client leaves, the next is served (retried until the server has seen it leave).
      idle[0]!.destroy()
      let answer = yield* Effect.exit(Control.request(path, { op: "status" }))
      while (answer._tag === "Failure") answer = yield* Effect.exit(Control.request(path, { op: "status" }))
      assert.deepStrictEqual(answer.value, status)
    }).pipe(Effect.scoped)
  )

  it("status without a running agent says so", () => {
    const result = cli("status", "--socket", join(tmpdir(), "no-such-agent.sock"))
    assert.notStrictEqual(result.status, 0)
    assert.include(result.stderr, "is heed-agent run going?")
  })
})
