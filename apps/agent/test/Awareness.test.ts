import { spawn } from "node:child_process"
import { createServer } from "node:net"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { NgircdServer } from "@heed/irc"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import * as Effect from "effect/Effect"
import { fastAttention, nextTurn, person, skipIrc, startAgent, waitForAgentIn } from "./harness.ts"

const freePort = Effect.callback<number>((resume) => {
  const server = createServer()
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    server.close(() => resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : 0)))
  })
})

/** The real awareness server (apps/awareness) as a process on a free port, in memory. */
const awarenessServer = Effect.gen(function* () {
  const port = yield* freePort
  const main = join(import.meta.dirname, "../../awareness/src/main.ts")
  yield* Effect.acquireRelease(
    Effect.callback<ReturnType<typeof spawn>>((resume) => {
      const child = spawn(process.execPath, ["--conditions=@heed/source", main, "serve", "--memory"], {
        env: { ...process.env, HEED_PORT: String(port), HEED_HOST: "127.0.0.1", HEED_LOG_LEVEL: "Warn" },
        stdio: ["ignore", "pipe", "pipe"]
      })
      let output = ""
      const onData = (chunk: Buffer) => {
        output += chunk.toString()
        if (output.includes("heed awareness is serving MCP")) resume(Effect.succeed(child))
      }
      child.stdout!.on("data", onData)
      child.stderr!.on("data", onData)
      child.once("exit", (code) => resume(Effect.die(new Error(`awareness exited (${code}):\n${output}`))))
    }),
    (child) =>
      Effect.callback<void>((resume) => {
        if (child.exitCode !== null) return resume(Effect.void)
        child.once("exit", () => resume(Effect.void))
        child.kill("SIGTERM")
      })
  )
  return `http://127.0.0.1:${port}/mcp`
})

describe.skipIf(skipIrc)("the awareness briefing in poll prompts (MCP, official SDK client)", () => {
  it.live("a poll prompt carries the briefing only while the awareness server says attention is needed", () =>
    Effect.gen(function* () {
      const url = yield* awarenessServer
      const server = yield* NgircdServer.start
      const alice = yield* person(server, "alice", ["#ops"])
      const { turns } = yield* startAgent(server, {
        channels: ["#ops"],
        attention: fastAttention(),
        awareness: { url },
        runner: { type: "command", command: ["printf", "ack"], context: "prompt" }
      })
      yield* waitForAgentIn(alice, ["#ops"])
      yield* alice.say("#ops", "morning all")
      const calm = yield* nextTurn(turns, (t) => t.kind === "poll", "a poll while all is clear")
      assert.notInclude(calm.prompt, "[Awareness briefing]")
      assert.include(calm.prompt, "[IRC Channel Poll: #ops] Recent unread messages:\n  <alice> morning all")

      // An edge process reports a critical alert through MCP.
      const reporter = new Client({ name: "edge", version: "1.0.0" })
      yield* Effect.promise(() => reporter.connect(new StreamableHTTPClientTransport(new URL(url))))
      yield* Effect.addFinalizer(() => Effect.promise(() => reporter.close()))
      const reported = yield* Effect.promise(() =>
        reporter.callTool({
          name: "report_alert",
          arguments: {
            source: "synology-nas",
            alert_id: "disk1",
            level: "critical",
            message: "Disk 1 is failing",
            tags: ["storage"]
          }
        })
      )
      assert.notStrictEqual(reported.isError, true)
      yield* alice.say("#ops", "anything I should know?")
      const alert = yield* nextTurn(turns, (t) => t.kind === "poll", "a poll with the alert")
      assert.include(alert.prompt, "[Awareness briefing]")
      assert.include(alert.prompt, "Disk 1 is failing")
      assert.include(alert.prompt, "<alice> anything I should know?")
    }).pipe(Effect.scoped)
  )
})
