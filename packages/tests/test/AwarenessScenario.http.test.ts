/**
 * The seed scenario against the awareness app (apps/awareness) through the official MCP SDK client: a cross-package
 * test (the app, @heed/mcp, @heed/collator and @heed/postgres together), using the app's own test harness.
 */
import { assert, describe, it } from "@effect/vitest"
import { AwarenessMcp } from "@heed/mcp"
import * as Effect from "effect/Effect"
import {
  callTool,
  connectHttp,
  makeTravel,
  nextFriday10,
  ok,
  settingsFor,
  startHttp
} from "../../../apps/awareness/test/harness.ts"

const minute = 60_000
const day = 86_400

describe("seed scenario over Streamable HTTP with the official SDK client", () => {
  it.live(
    "three sources, a stop, a due intention, a suppression until expiry, a Friday pattern, a stale source",
    () =>
      Effect.gen(function* () {
        const travel = makeTravel(nextFriday10())
        const { url } = yield* startHttp(settingsFor(), { _tag: "embedded", dataDir: "memory://" }, travel)
        const client = yield* connectHttp(url)
        assert.strictEqual(client.getServerVersion()?.name, AwarenessMcp.serverName)
        assert.include(client.getInstructions() ?? "", "get_briefing")
        const tools = yield* Effect.promise(() => client.listTools())
        assert.isAtLeast(tools.tools.length, 23)
        // A bad argument is an isError result with upstream's body; the session goes on.
        const typo = yield* callTool(client, "report_alert", {
          source: "synology-nas",
          tags: [],
          alert_id: "x",
          level: "critcal",
          message: "m"
        })
        assert.deepStrictEqual(
          [typo.isError, typo.body.error.code, typo.body.error.suggestion],
          [true, "invalid_parameter", "critical"]
        )

        // 1. Three sources report.
        yield* ok(client, "report_status", {
          source: "synology-nas",
          tags: ["nas"],
          metrics: { cpu_pct: 8 },
          ttl_sec: day
        })
        yield* ok(client, "report_status", {
          source: "gcal",
          tags: ["calendar"],
          metrics: { events_today: 3 },
          ttl_sec: day
        })
        yield* ok(client, "report_status", {
          source: "github-ci",
          tags: ["ci"],
          metrics: { failing: 0 },
          ttl_sec: 7200
        })
        let briefing = yield* ok(client, "get_briefing", { explain: true })
        assert.strictEqual(briefing.summary, "All clear across 3 sources.")
        assert.strictEqual(briefing.attention_needed, false)
        assert.deepStrictEqual(Object.keys(briefing.sources).sort(), ["gcal", "github-ci", "synology-nas"])
        assert.isUndefined(briefing.suggested_mention)

        // 2. qBittorrent stops (warning).
        yield* ok(client, "report_alert", {
          source: "synology-nas",
          tags: ["qbittorrent", "docker"],
          alert_id: "qbittorrent_stopped",
          level: "warning",
          alert_type: "structural",
          message: "qBittorrent stopped — should always be running"
        })
        briefing = yield* ok(client, "get_briefing", { explain: true })
        assert.strictEqual(briefing.attention_needed, true)
        assert.strictEqual(briefing.active_alerts, 1)
        assert.deepStrictEqual(
          [briefing.sources["synology-nas"].status, briefing.sources["synology-nas"].headline],
          ["warning", "qBittorrent stopped — should always be running"]
        )
        assert.strictEqual(briefing.sources["synology-nas"].drill_down, "awareness://alerts/synology-nas")
        assert.include(briefing.suggested_mention, "qBittorrent stopped")
        const resource = yield* Effect.promise(() => client.readResource({ uri: "awareness://briefing" }))
        assert.include((resource.contents[0] as { text: string }).text, "qBittorrent stopped")

        // 3. A calendar intention comes due: upcoming first, then fired exactly once.
        const deliverAt = new Date(travel.now() + 30 * minute).toISOString()
        yield* ok(client, "remind", {
          goal: "Q3 planning with Sarah",
          source: "gcal",
          tags: ["meeting"],
          deliver_at: deliverAt
        })
        briefing = yield* ok(client, "get_briefing", { explain: true })
        assert.isTrue(briefing.upcoming.some((item: { summary: string }) => item.summary.includes("Q3 planning")))
        assert.strictEqual(briefing.pending_intentions, 1)
        travel.advance(31 * minute)
        briefing = yield* ok(client, "get_briefing", { explain: true })
        assert.deepStrictEqual(
          briefing.fired_intentions.map((fired: { goal: string }) => fired.goal),
          ["Q3 planning with Sarah"]
        )
        assert.strictEqual(briefing.evaluation.intentions_fired, 1)
        assert.include(briefing.suggested_mention, "Q3 planning with Sarah")
        const intentions = yield* ok(client, "get_intentions", { state: "fired" })
        assert.strictEqual(intentions.entries.length, 1)
        yield* ok(client, "update_intention", { entry_id: intentions.entries[0].id, state: "completed" })

        // qBittorrent comes back.
        yield* ok(client, "report_alert", {
          source: "synology-nas",
          tags: ["qbittorrent"],
          alert_id: "qbittorrent_stopped",
          level: "warning",
          message: "qBittorrent running again",
          resolved: true
        })
        briefing = yield* ok(client, "get_briefing", { explain: true })
        assert.strictEqual(briefing.sources["synology-nas"].status, "ok")
        assert.strictEqual(briefing.attention_needed, false)

        // 4. A suppression hides a disk warning until it expires.
        const suppression = yield* ok(client, "suppress_alert", {
          source: "synology-nas",
          metric: "disk_busy_pct",
          level: "warning",
          duration_minutes: 30,
          reason: "RAID scrub until 4 PM"
        })
        yield* ok(client, "report_alert", {
          source: "synology-nas",
          tags: ["disk"],
          alert_id: "disk_busy",
          level: "warning",
          alert_type: "threshold",
          message: "Disk busy 97%",
          metric: "disk_busy_pct",
          value: 97,
          threshold: 90
        })
        briefing = yield* ok(client, "get_briefing", { explain: true })
        assert.strictEqual(briefing.sources["synology-nas"].status, "ok")
        assert.strictEqual(briefing.active_suppressions, 1)
        assert.strictEqual(briefing.evaluation.suppressed, 1)
        assert.strictEqual(briefing.attention_needed, false)
        travel.advance(31 * minute)
        briefing = yield* ok(client, "get_briefing", { explain: true })
        assert.strictEqual(briefing.active_suppressions, 0)
        assert.strictEqual(briefing.sources["synology-nas"].status, "warning")
        assert.strictEqual(briefing.sources["synology-nas"].headline, "Disk busy 97%")
        assert.strictEqual(briefing.attention_needed, true)
        assert.isString(suppression.id)
        yield* ok(client, "report_alert", {
          source: "synology-nas",
          tags: ["disk"],
          alert_id: "disk_busy",
          level: "warning",
          message: "Disk calm",
          resolved: true
        })

        // 5. A Friday maintenance pattern hides an expected stop (it is Friday 11:02 UTC now).
        assert.strictEqual(new Date(travel.now()).getUTCDay(), 5)
        yield* ok(client, "learn_pattern", {
          source: "synology-nas",
          tags: ["qbittorrent", "maintenance"],
          description: "qBittorrent is stopped on Fridays for maintenance",
          conditions: { day_of_week: "friday" },
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
        assert.strictEqual(briefing.sources["synology-nas"].status, "ok")
        assert.strictEqual(briefing.evaluation.pattern_matched, 1)
        assert.strictEqual(briefing.attention_needed, false)

        // 6. A source goes stale (github-ci promised a report every two hours; three pass; the others keep reporting).
        travel.advance(3 * 3_600_000)
        yield* ok(client, "report_status", {
          source: "synology-nas",
          tags: ["nas"],
          metrics: { cpu_pct: 9 },
          ttl_sec: day
        })
        briefing = yield* ok(client, "get_briefing", { explain: true })
        assert.strictEqual(briefing.sources["github-ci"].status, "stale")
        assert.include(briefing.sources["github-ci"].headline, "has not reported")
        assert.strictEqual(briefing.sources["github-ci"].drill_down, "awareness://status/github-ci")
        assert.strictEqual(briefing.evaluation.stale_sources, 1)
        assert.strictEqual(briefing.attention_needed, true)
        assert.include(briefing.summary, "github-ci")
        const status = yield* Effect.promise(() => client.readResource({ uri: "awareness://status/github-ci" }))
        assert.include((status.contents[0] as { text: string }).text, '"failing":0')
      }).pipe(Effect.scoped),
    { timeout: 120_000 }
  )
})
