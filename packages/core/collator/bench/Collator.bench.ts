import { Bench } from "@heed/bench"
import { TokenCounter } from "@heed/schema"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Awareness, type Briefing, BriefingView, Collator, type Entry, Store } from "../src/index.ts"

const now = new Date("2026-03-20T12:00:00Z")
const iso = (offsetSec: number) => new Date(now.getTime() + offsetSec * 1000).toISOString().replace(".000Z", "Z")

let seq = 0
const entry = (
  type: Entry.Entry["type"],
  source: string,
  data: Record<string, unknown>,
  extra: Partial<Entry.Entry> = {}
): Entry.Entry => ({
  id: `${type}-${++seq}`,
  type,
  source,
  tags: [],
  created: iso(-30),
  updated: null,
  expires: null,
  deleted: null,
  data,
  ...extra
})

// The large snapshot: 1,000 sources, 10,000 active alerts, 500 suppressions, 200 patterns, 1,000 intentions.
const sources = Array.from({ length: 1000 }, (_, i) => `host-${String(i).padStart(4, "0")}`)
const kinds = ["cpu_high", "disk_full", "memory_pressure", "backup_late", "link_flap", "temp_high", "raid_degraded"]
const statuses = sources.map((source, i) =>
  entry("status", source, { metrics: { cpu_pct: i % 100 }, ttl_sec: i % 97 === 0 ? 10 : 600 })
)
const alerts = Array.from({ length: 10_000 }, (_, i) => {
  const source = sources[i % 1000] as string
  const kind = kinds[i % kinds.length] as string
  return entry(
    "alert",
    source,
    {
      alert_id: `${kind}_${Math.floor(i / 1000)}`,
      level: i % 11 === 0 ? "critical" : "warning",
      alert_type: "threshold",
      message: `${kind.replace("_", " ")} on ${source}: value ${i % 100} over threshold`,
      resolved: false,
      metric: `${kind}_pct`
    },
    { tags: [kind.split("_")[0] as string, "infra"], created: iso(-(i % 3600)) }
  )
})
const suppressions = Array.from({ length: 500 }, (_, i) =>
  entry(
    "suppression",
    i < 20 ? "" : (sources[(i * 7) % 1000] as string),
    {
      metric: i % 3 === 0 ? `${kinds[i % kinds.length]}_pct` : null,
      suppress_level: i % 5 === 0 ? "critical" : "warning",
      escalation_override: true,
      reason: "maintenance"
    },
    { tags: i < 20 ? [`maint-${i}`] : [], expires: iso(i % 4 === 0 ? -600 : 3600) }
  )
)
const patterns = Array.from({ length: 200 }, (_, i) =>
  entry("pattern", i < 10 ? "" : (sources[(i * 13) % 1000] as string), {
    description: "expected load",
    // Global patterns (the first 10) only apply on Sundays, so they do not hide everything on this Friday.
    conditions:
      i < 10
        ? { day_of_week: "sunday" }
        : i % 2 === 0
          ? { day_of_week: "friday" }
          : { alert_id: `${kinds[i % kinds.length]}_*`, hour_range: [9, 17] },
    effect: i % 2 === 0 ? `suppress ${kinds[i % kinds.length]}` : "",
    learned_from: "conversation"
  })
)
const intentions = Array.from({ length: 1000 }, (_, i) =>
  entry("intention", "personal", {
    goal: `Follow up on item ${i}`,
    state: "pending",
    urgency: i % 10 === 0 ? "high" : "normal",
    deliver_at: iso(i % 50 === 0 ? -60 : 60 * (i + 1))
  })
)
const large: Collator.Snapshot = { statuses, alerts, suppressions, patterns, intentions }

// The seed's all-clear example: 3 sources, one active suppression.
const allClear: Collator.Snapshot = {
  statuses: ["synology-nas", "gcal", "github-ci"].map((source) =>
    entry("status", source, { metrics: {}, ttl_sec: 600 })
  ),
  alerts: [],
  suppressions: [
    entry(
      "suppression",
      "",
      { metric: null, suppress_level: "warning", escalation_override: true, reason: "" },
      { expires: iso(3600) }
    )
  ],
  patterns: [],
  intentions: []
}

// Two issues: a warning on the NAS and a critical CI failure.
const twoIssues: Collator.Snapshot = {
  ...allClear,
  alerts: [
    entry("alert", "synology-nas", {
      alert_id: "qbittorrent_stopped",
      level: "warning",
      alert_type: "structural",
      message: "qBittorrent stopped — should always be running",
      resolved: false
    }),
    entry("alert", "github-ci", {
      alert_id: "main_red",
      level: "critical",
      alert_type: "structural",
      message: "main branch build failing for 3 runs",
      resolved: false
    })
  ]
}

// One critical source, one stale source, one intention due (issue 15's mid-size case).
const mixed: Collator.Snapshot = {
  ...allClear,
  statuses: [...allClear.statuses, entry("status", "ci2", { metrics: {}, ttl_sec: 120 }, { created: iso(-400) })],
  alerts: [
    entry("alert", "synology-nas", {
      alert_id: "raid_degraded",
      level: "critical",
      alert_type: "structural",
      message: "RAID degraded: disk 3 failed",
      resolved: false
    })
  ],
  intentions: [entry("intention", "home", { goal: "Call the plumber", state: "pending", deliver_at: iso(-60) })]
}

const cases = {
  "all clear, 3 sources": allClear,
  "1 critical + 1 stale + 1 intention": mixed,
  "2 issues, 3 sources": twoIssues
}
const largeResult = Collator.generate(large, now)

await Bench.run(
  "Collator.generate",
  [
    {
      name: "large snapshot (1k sources, 10k alerts, 500 supp., 200 patterns, 1k intentions)",
      fn: () => Collator.generate(large, now),
      figures: () => ({ tokens: largeResult.tokens, active_alerts: largeResult.briefing.active_alerts })
    },
    ...Object.entries(cases).map(([name, snapshot]) => ({ name, fn: () => Collator.generate(snapshot, now) })),
    {
      name: "all clear, 3 sources, then its compact JSON",
      fn: () => TokenCounter.toCompactJson(BriefingView.json(Collator.generate(allClear, now).briefing))
    },
    {
      name: "all clear, 3 sources, then its text",
      fn: () => BriefingView.text(Collator.generate(allClear, now).briefing)
    }
  ],
  { timeMs: 2000 }
)

// Incremental collation: a series of calls sharing a memo, each after one alert changed (a new object, as a store
// hands out for a changed entry). The change is made untimed, before each call.
const memo = Collator.makeMemo()
const changing = { ...large, alerts: [...large.alerts] }
let changes = 0
const changeOneAlert = () => {
  const i = (changes++ * 7919) % changing.alerts.length
  const alert = changing.alerts[i] as Entry.Entry
  changing.alerts[i] = { ...alert, data: { ...alert.data, message: `${alert.data.message} (${changes})` } }
}
Collator.generate(changing, now, { memo })

// The awareness service's briefing over the in-memory store holding the large snapshot: one alert changes
// (`Store.update`), then the briefing is read, with the cache's incremental rebuild and with a full one.
const serviceOver = (incremental: boolean) =>
  Effect.runSync(
    Effect.gen(function* () {
      const store = yield* Store.Store
      for (const entry of [...statuses, ...alerts, ...suppressions, ...patterns]) yield* store.insert(entry)
      const awareness = yield* Effect.provide(
        Effect.service(Awareness.Awareness),
        Awareness.layerWith({ incremental }).pipe(Layer.provide(Layer.succeed(Store.Store, store)))
      )
      let writes = 0
      const writeThenRead = Effect.gen(function* () {
        const id = alerts[(writes++ * 7919) % alerts.length]!.id
        yield* store.update(id, (entry) => ({ ...entry, data: { ...entry.data, message: `changed ${writes}` } }))
        return yield* awareness.getBriefing()
      })
      yield* writeThenRead
      return () => Effect.runSync(writeThenRead)
    }).pipe(Effect.provide(Store.layerMemory))
  )
const incrementalService = serviceOver(true)
const fullService = serviceOver(false)

await Bench.run(
  "Collator: a briefing after one change (1k sources, 10k alerts, 500 supp., 200 patterns)",
  [
    {
      name: "Collator.generate with a memo, one alert changed before each call (warm)",
      beforeEach: changeOneAlert,
      fn: () => Collator.generate(changing, now, { memo })
    },
    {
      name: "Collator.generate without a memo (the same snapshot, for comparison)",
      fn: () => Collator.generate(changing, now)
    },
    {
      name: "Awareness: Store.update of one alert, then getBriefing (incremental, in-memory store)",
      fn: incrementalService
    },
    { name: "Awareness: Store.update of one alert, then getBriefing (incremental: false)", fn: fullService }
  ],
  { timeMs: 2000 }
)

/** o200k tokens of what `get_briefing` returns: compact JSON (default and `explain: true`) and plain text. */
const tokenRow = (name: string, briefing: Briefing.Briefing) => ({
  name,
  figures: {
    json: TokenCounter.countO200k(TokenCounter.toCompactJson(BriefingView.json(briefing))),
    json_explain: TokenCounter.countO200k(TokenCounter.toCompactJson(BriefingView.json(briefing, { explain: true }))),
    text: TokenCounter.countO200k(BriefingView.text(briefing)),
    pretty_json_explain: TokenCounter.countO200k(JSON.stringify(briefing, null, 2))
  }
})

Bench.record(
  "Collator briefing tokens (o200k): get_briefing JSON, JSON with explain, text; pretty = the old tool text",
  [
    tokenRow("all clear, 3 sources (targets: text <= 60, json <= 100)", Collator.generate(allClear, now).briefing),
    tokenRow("1 critical + 1 stale + 1 intention (target: text <= 120)", Collator.generate(mixed, now).briefing),
    tokenRow("2 issues, 3 sources", Collator.generate(twoIssues, now).briefing),
    tokenRow("large snapshot (target: json <= 400)", largeResult.briefing)
  ]
)
