import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { connectHttp, ok, postgresReachable } from "./harness.ts"
import { call, lockOf, lockSatisfies, openSession, requestTimeout, rssMb, type Session, spawnCli } from "./sessions.ts"

const briefingUri = "awareness://briefing"
const databaseUrl = process.env.HEED_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"
const databaseReachable = await postgresReachable(databaseUrl, "the stdio sessions on PostgreSQL")

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer()
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      probe.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })

const tempDir = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "heed-sessions-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

const sessions = (dataDir: string, count: number, env: Record<string, string> = {}) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const first = await openSession(dataDir, env) // becomes the holder
      const rest = await Promise.all(Array.from({ length: count - 1 }, () => openSession(dataDir, env)))
      return [first, ...rest]
    }),
    (all) => Effect.promise(() => Promise.all(all.map((session) => session.close().catch(() => undefined))))
  )

/** Whether every alert id in `ids` is among the active alerts `session` reads. */
const missingAlerts = async (session: Session, ids: ReadonlyArray<string>) => {
  const page = JSON.stringify(await call(session, "get_alerts", { limit: 200 }))
  return ids.filter((id) => !page.includes(`"${id}"`))
}

const alert = (alertId: string) => ({
  source: "agents",
  tags: ["sessions"],
  alert_id: alertId,
  level: "warning",
  message: `alert ${alertId}`
})

describe("one awareness per data folder, many stdio sessions", () => {
  it.live(
    "5 concurrent sessions share one store: a write through A reaches B's get_briefing and B's resources/updated",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir
        const dataDir = join(dir, "data")
        // All five start at once on a new folder: one becomes the holder, the others attach instead of failing.
        const started = yield* Effect.acquireRelease(
          Effect.promise(() =>
            Promise.all(Array.from({ length: 5 }, () => openSession(dataDir, { HEED_WATCH_INTERVAL_MS: "0" })))
          ),
          (all) => Effect.promise(() => Promise.all(all.map((session) => session.close().catch(() => undefined))))
        )
        const holderIndex = started.findIndex((session) => session.pid === lockOf(dataDir).pid)
        assert.isAtLeast(holderIndex, 0)
        const all = [started[holderIndex]!, ...started.filter((_, i) => i !== holderIndex)]
        const [holder, a, b] = all as [Session, Session, Session]
        assert.match(lockOf(dataDir).socket, /heed-awareness\.sock$/)
        assert.strictEqual(statSync(lockOf(dataDir).socket).mode & 0o777, 0o600)
        assert.strictEqual(statSync(dataDir).mode & 0o777, 0o700)
        for (const session of all) {
          assert.strictEqual(session.client.getServerVersion()?.name, "heed-awareness")
        }
        // Attached sessions load neither PGlite nor the tokenizer: each is a fraction of the holder's memory (the bench
        // measures the built bin at about 50 MB; from source, Node's type stripping adds to it).
        for (const session of all.slice(1)) {
          assert.isBelow(rssMb(session.pid), rssMb(holder.pid) / 2, `session ${session.pid} vs holder ${holder.pid}`)
        }

        yield* Effect.promise(() => b.client.subscribeResource({ uri: briefingUri }, { timeout: requestTimeout }))
        const updated = b.nextUpdate()
        yield* Effect.promise(() =>
          call(a, "report_alert", {
            source: "synology-nas",
            tags: ["disk"],
            alert_id: "disk-1",
            level: "critical",
            message: "Disk 1 failing"
          })
        )
        assert.strictEqual(yield* Effect.promise(() => updated), briefingUri)
        for (const session of all) {
          const briefing = yield* Effect.promise(() => call(session, "get_briefing"))
          assert.strictEqual(briefing.sources["synology-nas"].status, "critical", JSON.stringify(briefing))
        }
      }),
    { timeout: 400_000 }
  )

  it.live(
    "SIGKILL the holder mid-run: every session keeps answering, one takes over, nothing acknowledged is lost",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir
        const dataDir = join(dir, "data")
        const [holder, ...attached] = yield* sessions(dataDir, 4, { HEED_WATCH_INTERVAL_MS: "0" })
        assert.strictEqual(lockOf(dataDir).pid, holder!.pid)
        const [b, c, d] = attached as [Session, Session, Session]
        yield* Effect.promise(() => b.client.subscribeResource({ uri: briefingUri }, { timeout: requestTimeout }))
        const acknowledged: Array<string> = []
        for (const [name, session] of [
          ["b", b],
          ["c", c],
          ["d", d]
        ] as const) {
          yield* Effect.promise(() => call(session, "report_alert", alert(`before-${name}`)))
          acknowledged.push(`before-${name}`)
        }

        // Each attached session writes in a loop: its first write, then (once the holder is dead) four more, so the
        // writes span the takeover. The holder is killed as soon as the first write of the run is answered.
        let firstAck: () => void = () => undefined
        const firstAcknowledged = new Promise<void>((resolve) => {
          firstAck = resolve
        })
        const writer = async (name: string, session: Session) => {
          for (let i = 0; i < 5; i++) {
            await call(session, "report_alert", alert(`run-${name}-${i}`))
            acknowledged.push(`run-${name}-${i}`)
            firstAck()
            if (i === 0) await holder!.exited
          }
        }
        const run = Promise.all([writer("b", b), writer("c", c), writer("d", d)])
        yield* Effect.promise(() => firstAcknowledged)
        process.kill(holder!.pid, "SIGKILL")
        yield* Effect.promise(() => holder!.exited)
        yield* Effect.promise(() => run)

        // A surviving session holds the folder now, and every session answers from the same store.
        yield* Effect.promise(() => lockSatisfies(dataDir, (record) => record?.socket !== undefined))
        assert.include([b.pid, c.pid, d.pid], lockOf(dataDir).pid)
        for (const session of [b, c, d]) {
          assert.deepStrictEqual(yield* Effect.promise(() => missingAlerts(session, acknowledged)), [])
          const briefing = yield* Effect.promise(() => call(session, "get_briefing"))
          assert.isObject(briefing.sources)
        }
        assert.strictEqual(acknowledged.length, 3 + 15)
        // B's subscription was renewed upstream: a later write through C still notifies it.
        const updated = b.nextUpdate()
        yield* Effect.promise(() => call(c, "report_alert", alert("after-takeover")))
        assert.strictEqual(yield* Effect.promise(() => updated), briefingUri)
      }),
    { timeout: 600_000 }
  )

  it.live(
    "a stale lock is taken over: its PID now belongs to another program, or to the starting process itself",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir
        const bootId = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim()

        // The lock names this test process, alive, but with another start time: a PID reused by another program.
        const reused = join(dir, "reused")
        mkdirSync(reused)
        writeFileSync(
          join(reused, "heed-awareness.lock"),
          JSON.stringify({ pid: process.pid, start: "1", boot: bootId, token: "an-earlier-holder" })
        )
        const first = yield* Effect.acquireRelease(
          Effect.promise(() => openSession(reused)),
          (session) => Effect.promise(() => session.close())
        )
        assert.strictEqual(lockOf(reused).pid, first.pid)
        assert.isObject((yield* Effect.promise(() => call(first, "get_briefing"))).sources)

        // The lock names the starting process's own PID and start time (a container restarted after SIGKILL gets
        // the same PIDs): a preload writes it before the program runs.
        const own = join(dir, "own")
        mkdirSync(own)
        const preload = join(dir, "preload.mjs")
        writeFileSync(
          preload,
          [
            'import { readFileSync, writeFileSync } from "node:fs"',
            "if (process.env.HEED_TEST_LOCK_DIR) {",
            '  const stat = readFileSync("/proc/" + process.pid + "/stat", "utf8")',
            '  const start = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]',
            '  const boot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim()',
            '  const lock = process.env.HEED_TEST_LOCK_DIR + "/heed-awareness.lock"',
            '  writeFileSync(lock, JSON.stringify({ pid: process.pid, start, boot, token: "before-the-restart" }))',
            "  delete process.env.HEED_TEST_LOCK_DIR",
            "}"
          ].join("\n")
        )
        const restarted = yield* Effect.acquireRelease(
          Effect.promise(() =>
            openSession(own, { HEED_TEST_LOCK_DIR: own, NODE_OPTIONS: `--import=${pathToFileURL(preload).href}` })
          ),
          (session) => Effect.promise(() => session.close())
        )
        assert.strictEqual(lockOf(own).pid, restarted.pid)
        assert.notStrictEqual(lockOf(own).token, "before-the-restart")
        assert.isObject((yield* Effect.promise(() => call(restarted, "get_briefing"))).sources)

        // A lock from another boot is stale too, even when its PID and start time match a live process.
        const rebooted = join(dir, "rebooted")
        mkdirSync(rebooted)
        writeFileSync(
          join(rebooted, "heed-awareness.lock"),
          JSON.stringify({ pid: first.pid, start: lockOf(reused).start, boot: "another-boot", token: "x" })
        )
        const third = yield* Effect.acquireRelease(
          Effect.promise(() => openSession(rebooted)),
          (session) => Effect.promise(() => session.close())
        )
        assert.strictEqual(lockOf(rebooted).pid, third.pid)
      }),
    { timeout: 300_000 }
  )

  it.live(
    "an HTTP server (./heed start) holding the folder serves 3 stdio sessions; when it stops, one of them takes over",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir
        const dataDir = join(dir, "data")
        const port = yield* Effect.promise(freePort)
        const server = spawnCli(["serve", "--port", String(port), "--data-dir", dataDir], {}, "Press Ctrl+C")
        yield* Effect.addFinalizer(() => Effect.sync(() => server.child.kill("SIGKILL")))
        yield* Effect.promise(() => server.ready)
        const stdio = yield* Effect.acquireRelease(
          Effect.promise(() => Promise.all([openSession(dataDir), openSession(dataDir), openSession(dataDir)])),
          (all) => Effect.promise(() => Promise.all(all.map((session) => session.close().catch(() => undefined))))
        )
        assert.strictEqual(lockOf(dataDir).pid, server.child.pid)
        assert.strictEqual(lockOf(dataDir).url, `http://127.0.0.1:${port}/mcp`)
        const [a, b, c] = stdio as [Session, Session, Session]
        yield* Effect.promise(() => b.client.subscribeResource({ uri: briefingUri }, { timeout: requestTimeout }))

        // A write over HTTP reaches the stdio sessions, and one over stdio reaches HTTP clients.
        const updated = b.nextUpdate()
        yield* Effect.scoped(
          Effect.gen(function* () {
            const client = yield* connectHttp(`http://127.0.0.1:${port}/mcp`)
            yield* ok(client, "report_alert", alert("over-http"))
            yield* Effect.promise(() => call(a, "report_alert", alert("over-stdio")))
            const page = JSON.stringify(yield* ok(client, "get_alerts", { limit: 50 }))
            assert.include(page, '"over-stdio"')
          })
        )
        assert.strictEqual(yield* Effect.promise(() => updated), briefingUri)
        for (const session of stdio) {
          assert.deepStrictEqual(yield* Effect.promise(() => missingAlerts(session, ["over-http", "over-stdio"])), [])
        }

        // The server stops (SIGTERM): a stdio session takes the folder over and they all keep answering.
        server.child.kill("SIGTERM")
        assert.strictEqual(yield* Effect.promise(() => server.exited), 0)
        for (const session of stdio) {
          assert.deepStrictEqual(yield* Effect.promise(() => missingAlerts(session, ["over-http", "over-stdio"])), [])
        }
        assert.include([a.pid, b.pid, c.pid], lockOf(dataDir).pid)
      }),
    { timeout: 600_000 }
  )

  it.live(
    "the holder's own client closing hands the folder to an attached session",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir
        const dataDir = join(dir, "data")
        const [holder, attached] = yield* sessions(dataDir, 2)
        yield* Effect.promise(() => call(attached!, "report_alert", alert("kept")))
        yield* Effect.promise(() => holder!.close())
        assert.deepStrictEqual(yield* Effect.promise(() => missingAlerts(attached!, ["kept"])), [])
        assert.strictEqual(lockOf(dataDir).pid, attached!.pid)
      }),
    { timeout: 300_000 }
  )

  it.live.skipIf(!databaseReachable)(
    "on PostgreSQL (DATABASE_URL) each stdio session connects itself: a write through A reaches B's briefing and B's resources/updated",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir
        const env = {
          DATABASE_URL: databaseUrl,
          HEED_DEFAULT_OWNER: `sessions-${process.pid}-${Date.now().toString(36)}`,
          HEED_WATCH_INTERVAL_MS: "0"
        }
        const all = yield* sessions(join(dir, "unused"), 3, env)
        const [, a, b] = all as [Session, Session, Session]
        assert.isUndefined(lockOf(join(dir, "unused"))) // no folder is held
        // As an agent does, B reads its briefing first: its process then watches that owner's briefing.
        yield* Effect.promise(() => call(b, "get_briefing"))
        yield* Effect.promise(() => b.client.subscribeResource({ uri: briefingUri }, { timeout: requestTimeout }))
        const updated = b.nextUpdate()
        yield* Effect.promise(() => call(a, "report_alert", alert("on-postgres")))
        assert.strictEqual(yield* Effect.promise(() => updated), briefingUri)
        for (const session of all) {
          assert.deepStrictEqual(yield* Effect.promise(() => missingAlerts(session, ["on-postgres"])), [])
        }
      }),
    { timeout: 300_000 }
  )
})
