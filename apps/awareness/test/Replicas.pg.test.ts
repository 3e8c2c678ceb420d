/**
 * Two awareness server processes on one PostgreSQL database (the scale-out story in ARCHITECTURE): writes through one
 * are in the other's briefing and trigger its `notifications/resources/updated`; a due intention is delivered exactly
 * once across both under 50 concurrent reads split between them; owners stay isolated.
 */
import { spawn } from "node:child_process"
import { createServer } from "node:net"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Token from "../src/Token.ts"
import { callTool, connectHttp, ok, postgresReachable } from "./harness.ts"

const appDir = fileURLToPath(new URL("..", import.meta.url))
const databaseUrl = process.env.HEED_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"
const secret = "replica-test-secret-0123456789"
const run = `${process.pid}-${Date.now().toString(36)}`
const tokenFor = (sub: string) => Token.sign({ sub, secret, nowSec: Math.floor(Date.now() / 1000), expiresInSec: 3600 })

const databaseReachable = await postgresReachable(databaseUrl, "the replica test")

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer()
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      probe.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })

/** One `serve` process on the shared database, stopped with the scope. */
const replica = Effect.acquireRelease(
  Effect.promise(async () => {
    const port = await freePort()
    const child = spawn(
      process.execPath,
      ["--conditions=@heed/source", "src/main.ts", "serve", "--port", `${port}`, "--database-url", databaseUrl],
      {
        cwd: appDir,
        env: {
          ...process.env,
          HEED_LOG_LEVEL: "Warn",
          HEED_AUTH_REQUIRED: "true",
          HEED_JWT_SECRET: secret,
          HEED_DEFAULT_OWNER: `banner-${run}`,
          HEED_WATCH_INTERVAL_MS: "250"
        },
        stdio: ["ignore", "pipe", "pipe"]
      }
    )
    let output = ""
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString()
    })
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString()
    })
    const deadline = Date.now() + 90_000
    while (!output.includes("Press Ctrl+C")) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`replica did not start: ${output}`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    return { child, url: `http://127.0.0.1:${port}/mcp` }
  }),
  ({ child }) =>
    Effect.promise(
      () =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null) return resolve()
          child.on("exit", () => resolve())
          child.kill("SIGTERM")
        })
    )
)

/** A 2026-07-28 `subscriptions/listen` stream for the briefing, collecting its messages. */
const listen = (url: string, token: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const controller = new AbortController()
      const response = await fetch(url, {
        method: "POST",
        signal: controller.signal,
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${token}`,
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "subscriptions/listen"
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "subscriptions/listen",
          params: {
            _meta: {
              "io.modelcontextprotocol/protocolVersion": "2026-07-28",
              "io.modelcontextprotocol/clientCapabilities": {}
            },
            notifications: { resourceSubscriptions: ["awareness://briefing"] }
          }
        })
      })
      const methods: Array<string> = []
      const reader = response.body!.getReader()
      const decoder = new TextDecoder()
      void (async () => {
        let buffer = ""
        try {
          while (true) {
            const { done, value } = await reader.read()
            if (done) return
            buffer += decoder.decode(value, { stream: true })
            for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
              for (const line of buffer.slice(0, end).split("\n")) {
                if (line.startsWith("data: ")) methods.push(String(JSON.parse(line.slice(6)).method))
              }
              buffer = buffer.slice(end + 2)
            }
          }
        } catch {
          // aborted at the end of the test
        }
      })()
      return { methods, controller }
    }),
    ({ controller }) => Effect.sync(() => controller.abort())
  )

const waitFor = (methods: ReadonlyArray<string>, method: string, count: number) =>
  Effect.promise(async () => {
    const deadline = Date.now() + 15_000
    while (methods.filter((m) => m === method).length < count && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    return methods.filter((m) => m === method).length
  })

describe.skipIf(!databaseReachable)("two replicas on one PostgreSQL database", () => {
  it.live(
    "a write through one replica is in the other's briefing and triggers its resources/updated; owners stay isolated",
    () =>
      Effect.gen(function* () {
        const alice = tokenFor(`alice-${run}`)
        const bob = tokenFor(`bob-${run}`)
        const first = yield* replica
        const second = yield* replica
        const stream = yield* listen(second.url, alice)
        assert.strictEqual(yield* waitFor(stream.methods, "notifications/subscriptions/acknowledged", 1), 1)

        const writer = yield* connectHttp(first.url, alice)
        const reader = yield* connectHttp(second.url, alice)
        const stranger = yield* connectHttp(second.url, bob)
        // The reader's first briefing (as the server's instructions ask) is the second replica's baseline: its
        // notifier compares every owner it serves against the last briefing it saw.
        assert.isUndefined((yield* ok(reader, "get_briefing")).sources.nas)
        yield* ok(writer, "report_alert", {
          source: "nas",
          tags: ["disk"],
          alert_id: "disk",
          level: "critical",
          message: "Disk failing"
        })
        assert.isAtLeast(yield* waitFor(stream.methods, "notifications/resources/updated", 1), 1)
        const briefing = yield* ok(reader, "get_briefing")
        assert.strictEqual(briefing.sources.nas.status, "critical")
        assert.strictEqual(briefing.sources.nas.headline, "Disk failing")

        const theirs = yield* ok(stranger, "get_briefing")
        assert.isUndefined(theirs.sources.nas)
        assert.strictEqual(theirs.attention_needed, false)
        const theirAlerts = yield* ok(stranger, "get_alerts", {})
        assert.deepStrictEqual(theirAlerts.entries ?? theirAlerts, [])
      }).pipe(Effect.scoped),
    { timeout: 240_000 }
  )

  // Issue 12 defect #1 across processes: the delivery to a reader (`new: true`) happens exactly once.
  it.live(
    "a due intention is delivered exactly once across both replicas under 50 concurrent reads split between them",
    () =>
      Effect.gen(function* () {
        const owner = tokenFor(`carol-${run}`)
        const first = yield* replica
        const second = yield* replica
        const clients = yield* Effect.forEach(
          Array.from({ length: 10 }, (_, i) => i),
          (i) => connectHttp(i % 2 === 0 ? first.url : second.url, owner)
        )
        const reminder = yield* ok(clients[0]!, "remind", {
          goal: `rotate the backup disk ${run}`,
          source: "personal",
          tags: ["chores"],
          deliver_at: new Date(Date.now() - 60_000).toISOString()
        })
        const replies = yield* Effect.forEach(
          Array.from({ length: 50 }, (_, i) => clients[i % clients.length]!),
          (client) => callTool(client, "get_briefing"),
          { concurrency: "unbounded" }
        )
        // Fired intentions stay in the briefing until acted on; exactly one read across both replicas gets it as new.
        const shown = replies.flatMap((reply) =>
          ((reply.body.fired_intentions ?? []) as Array<{ id: string; new?: boolean }>).filter(
            (fired) => fired.id === reminder.id
          )
        )
        assert.strictEqual(shown.filter((fired) => fired.new === true).length, 1)
        for (const client of [clients[0]!, clients[1]!]) {
          const after = (yield* ok(client, "get_briefing")).fired_intentions as Array<{ id: string; new?: boolean }>
          assert.deepStrictEqual(
            after.filter((fired) => fired.id === reminder.id).map((fired) => fired.new === true),
            [false]
          )
        }
      }).pipe(Effect.scoped),
    { timeout: 240_000 }
  )
})
