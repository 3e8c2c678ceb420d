/**
 * The seed scenario against the awareness app (apps/awareness) through the official MCP SDK client: a cross-package
 * test (the app, @heed/mcp, @heed/collator and @heed/postgres together), using the app's own test harness.
 */
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import * as Effect from "effect/Effect"
import { ok } from "../../../apps/awareness/test/harness.ts"

const appDir = fileURLToPath(new URL("../../../apps/awareness/", import.meta.url))
const weekdays = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]

/** Spawns the app (`serve --stdio`, embedded PGlite in memory) under the official SDK's stdio transport. */
const spawnApp = Effect.acquireRelease(
  Effect.promise(async () => {
    const updates: Array<string> = []
    const client = new Client({ name: "heed-stdio-test", version: "1.0.0" })
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      updates.push(notification.params.uri)
    })
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ["--conditions=@heed/source", "src/main.ts", "serve", "--stdio", "--data-dir", "memory://"],
      cwd: appDir,
      env: { ...(process.env as Record<string, string>), HEED_WATCH_INTERVAL_MS: "100", HEED_LOG_LEVEL: "Warn" },
      stderr: "pipe"
    })
    await client.connect(transport)
    return { client, updates }
  }),
  ({ client }) => Effect.promise(() => client.close())
)

/** Waits until more than `seen` resource-updated notifications arrived; fails the test when none comes in 15 s. */
const nextUpdate = (updates: Array<string>, seen: number, step: string) =>
  Effect.promise(async () => {
    const deadline = Date.now() + 15_000
    while (updates.length <= seen) {
      if (Date.now() >= deadline) {
        throw new Error(`${step}: no notifications/resources/updated within 15 s (${seen} before)`)
      }
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
    return updates.length
  })

/**
 * Waits for notifications until the briefing read after one satisfies `done`: a change that time alone causes (an
 * intention coming due, a source going stale) is shown by its notification, not by sleeping past it.
 */
const updateUntil = (
  client: Client,
  updates: Array<string>,
  seen: number,
  step: string,
  // biome-ignore lint/suspicious/noExplicitAny: the briefing as parsed JSON, as `ok` returns it
  done: (briefing: any) => boolean
) =>
  Effect.gen(function* () {
    for (;;) {
      seen = yield* nextUpdate(updates, seen, step)
      const briefing = yield* ok(client, "get_briefing", { explain: true })
      if (done(briefing)) return { seen, briefing }
    }
  })

describe("seed scenario over stdio with the official SDK client (spawned app)", () => {
  it.live(
    "briefing fields at each step and notifications/resources/updated for awareness://briefing",
    () =>
      Effect.gen(function* () {
        const { client, updates } = yield* spawnApp
        assert.isTrue(client.getServerCapabilities()?.resources?.subscribe === true)
        yield* Effect.promise(() => client.subscribeResource({ uri: "awareness://briefing" }))

        // 1. Three sources report.
        for (const source of ["synology-nas", "gcal", "github-ci"]) {
          yield* ok(client, "report_status", { source, tags: [], metrics: { up: 1 }, ttl_sec: 3600 })
        }
        let { seen, briefing } = yield* updateUntil(
          client,
          updates,
          0,
          "three sources report",
          (next) => Object.keys(next.sources).length === 3
        )
        assert.isTrue(updates.every((uri) => uri === "awareness://briefing"))
        assert.deepStrictEqual([briefing.summary, briefing.attention_needed], ["All clear across 3 sources.", false])

        // 2. qBittorrent stops.
        yield* ok(client, "report_alert", {
          source: "synology-nas",
          tags: ["qbittorrent"],
          alert_id: "qbittorrent_stopped",
          level: "warning",
          message: "qBittorrent stopped — should always be running"
        })
        ;({ seen, briefing } = yield* updateUntil(
          client,
          updates,
          seen,
          "qBittorrent stops",
          (next) => next.sources["synology-nas"].status === "warning"
        ))
        assert.include(briefing.suggested_mention, "qBittorrent stopped")

        // 3. A calendar intention comes due (in 6 s): the write notifies once (one pending intention), then time
        // alone notifies again as it comes due; the notifier announces a due intention up to 2 s ahead and leaves
        // the delivery to the subscriber's read at or after deliver_at.
        yield* ok(client, "report_alert", {
          source: "synology-nas",
          tags: ["qbittorrent"],
          alert_id: "qbittorrent_stopped",
          level: "warning",
          message: "back",
          resolved: true
        })
        ;({ seen } = yield* updateUntil(
          client,
          updates,
          seen,
          "qBittorrent is back",
          (next) => next.sources["synology-nas"].status === "ok"
        ))
        const deliverAt = Date.now() + 6000
        yield* ok(client, "remind", {
          goal: "Q3 planning with Sarah",
          source: "gcal",
          tags: ["meeting"],
          deliver_at: new Date(deliverAt).toISOString()
        })
        ;({ seen } = yield* updateUntil(
          client,
          updates,
          seen,
          "the intention is recorded",
          (next) => next.pending_intentions === 1 && next.fired_intentions === undefined
        ))
        seen = yield* nextUpdate(updates, seen, "the intention comes due")
        yield* Effect.sleep(Math.max(0, deliverAt - Date.now()))
        briefing = yield* ok(client, "get_briefing", { explain: true })
        assert.deepStrictEqual(
          briefing.fired_intentions?.map((fired: { goal: string }) => fired.goal),
          ["Q3 planning with Sarah"]
        )
        const fired = yield* ok(client, "get_intentions", { state: "fired" })
        yield* ok(client, "update_intention", { entry_id: fired.entries[0].id, state: "completed" })

        // 4. A suppression hides a disk warning; when it ends (cleared here: the minimum duration is a minute) the
        // warning re-surfaces.
        const suppression = yield* ok(client, "suppress_alert", {
          source: "synology-nas",
          metric: "disk_busy_pct",
          duration_minutes: 1,
          reason: "scrub"
        })
        yield* ok(client, "report_alert", {
          source: "synology-nas",
          tags: ["disk"],
          alert_id: "disk_busy",
          level: "warning",
          message: "Disk busy 97%",
          metric: "disk_busy_pct",
          value: 97,
          threshold: 90
        })
        briefing = yield* ok(client, "get_briefing", { explain: true })
        assert.deepStrictEqual([briefing.sources["synology-nas"].status, briefing.evaluation.suppressed], ["ok", 1])
        seen = updates.length
        yield* ok(client, "clear_suppression", { entry_id: suppression.id })
        ;({ seen, briefing } = yield* updateUntil(
          client,
          updates,
          seen,
          "the suppression is cleared",
          (next) => next.sources["synology-nas"].status === "warning"
        ))
        assert.deepStrictEqual(
          [briefing.sources["synology-nas"].status, briefing.sources["synology-nas"].headline],
          ["warning", "Disk busy 97%"]
        )
        yield* ok(client, "report_alert", {
          source: "synology-nas",
          tags: ["disk"],
          alert_id: "disk_busy",
          level: "warning",
          message: "calm",
          resolved: true
        })

        // 5. A maintenance-day pattern (today's weekday here, Friday in the HTTP run) hides an expected stop.
        const today = weekdays[new Date().getUTCDay()]!
        yield* ok(client, "learn_pattern", {
          source: "synology-nas",
          tags: ["qbittorrent"],
          description: `qBittorrent is stopped on ${today}s for maintenance`,
          conditions: { day_of_week: today },
          effect: "suppress qbittorrent_stopped"
        })
        yield* ok(client, "report_alert", {
          source: "synology-nas",
          tags: ["qbittorrent"],
          alert_id: "qbittorrent_stopped",
          level: "warning",
          message: "Expected container 'qbittorrent' is not running"
        })
        briefing = yield* ok(client, "get_briefing", { explain: true })
        assert.deepStrictEqual(
          [briefing.sources["synology-nas"].status, briefing.evaluation.pattern_matched, briefing.attention_needed],
          ["ok", 1, false]
        )

        // 6. A source goes stale (it promised a report every second).
        yield* ok(client, "report_status", { source: "github-ci", tags: [], metrics: { up: 1 }, ttl_sec: 1 })
        seen = updates.length
        ;({ briefing } = yield* updateUntil(
          client,
          updates,
          seen,
          "github-ci goes stale",
          (next) => next.sources["github-ci"].status === "stale"
        ))
        assert.strictEqual(briefing.sources["github-ci"].status, "stale")
        assert.strictEqual(briefing.attention_needed, true)
        assert.isTrue(updates.every((uri) => uri === "awareness://briefing"))
      }).pipe(Effect.scoped),
    { timeout: 120_000 }
  )
})
