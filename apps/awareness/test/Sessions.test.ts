import { statSync } from "node:fs"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { call, lockOf, lockSatisfies, openSession, type Session } from "./sessions.ts"

const briefingUri = "awareness://briefing"

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

const alertIds = (body: { readonly alerts?: ReadonlyArray<{ readonly alert_id?: string }> }) =>
  new Set((body.alerts ?? []).map((alert) => alert.alert_id))

describe("one awareness per data folder, many stdio sessions", () => {
  it.live(
    "5 concurrent sessions share one store: a write through A reaches B's get_briefing and B's resources/updated",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir
        const dataDir = join(dir, "data")
        const [a, b, ...others] = yield* sessions(dataDir, 5, { HEED_WATCH_INTERVAL_MS: "0" })
        const all: ReadonlyArray<Session> = [a!, b!, ...others]
        // One holder: the first session; the others attached instead of failing on the lock.
        assert.strictEqual(lockOf(dataDir).pid, a!.pid)
        assert.match(lockOf(dataDir).socket, /heed-awareness\.sock$/)
        assert.strictEqual(statSync(lockOf(dataDir).socket).mode & 0o777, 0o600)
        assert.strictEqual(statSync(dataDir).mode & 0o777, 0o700)
        for (const session of all) {
          assert.strictEqual(session.client.getServerVersion()?.name, "heed-awareness")
        }

        yield* Effect.promise(() => b!.client.subscribeResource({ uri: briefingUri }))
        const updated = b!.nextUpdate()
        yield* Effect.promise(() =>
          call(a!, "report_alert", {
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
    { timeout: 180_000 }
  )
})
