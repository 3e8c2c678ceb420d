/**
 * Patch sizes of the live tree in SLOP's default patch format, run by @heed/http's SlopPatchSize.bench.ts (which
 * spawns this file from apps/awareness and reads one JSON line). A store the size issue 28 measured (120 sources,
 * 1,300 alerts) is built into the tree by `AwarenessTree.toTree`, served by a `Provider` with 1, 100 or 1,000
 * subscriptions in the default format, and changed three ways: one alert from a new source (named to sort in the
 * middle of the sources), one new alert on an existing source, one acknowledged alert. For each, the bytes of the
 * patch message one subscriber receives (JSON) and the bytes all subscribers receive together. The `unordered` rows
 * rebuild the tree without the tree it replaces (name-ordered sources, as before issue 28), for comparison.
 */
import type { Message } from "@heed/state-tree"
import { Provider } from "@heed/state-tree"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import { type Snapshot, toTree } from "../src/AwarenessTree.ts"

const now = Date.parse("2026-06-01T12:00:00Z")
const at = (minute: number) => new Date(Date.parse("2026-06-01T00:00:00Z") + minute * 60_000).toISOString()
const names = Array.from({ length: 120 }, (_, i) => `host-${String((i * 37) % 120).padStart(3, "0")}`)
const alertOf = (n: number, source: string, minute: number, extra: Record<string, unknown> = {}) => ({
  id: `alert-${n}`,
  type: "alert",
  source,
  created: at(minute),
  ...extra,
  data: {
    alert_id: `check-${n}`,
    level: ["critical", "warning", "info"][n % 3],
    message: `check ${n} on ${source}: value ${n % 97} above its threshold`,
    metric: `metric-${n % 13}`,
    ...(extra.acknowledged_at === undefined ? {} : { acknowledged_at: extra.acknowledged_at })
  }
})
const statuses = names.map((source, i) => ({
  id: `status-${source}`,
  type: "status",
  source,
  created: at(i),
  data: { metrics: { load: 1 }, ttl_sec: 86_400, headline: `${source} reporting` }
}))
const snapshotOf = (alerts: ReadonlyArray<unknown>): Snapshot => ({
  briefing: { summary: `${alerts.length} alerts`, sources: {} },
  statuses,
  alerts,
  intentions: [],
  suppressions: []
})

const measure = (subscribers: number, ordered: boolean) =>
  Effect.scoped(
    Effect.gen(function* () {
      let alerts: Array<unknown> = Array.from({ length: 1300 }, (_, n) =>
        alertOf(n, names[n % 120]!, 200 + n)
      ).reverse()
      // one connection carries every subscription: its outbox must hold one patch per subscription
      const provider = yield* Provider.make({ coalesceMs: 0, outboxLimit: 1e9 })
      let tree = toTree(snapshotOf(alerts), now)
      yield* provider.setTree(tree)
      const connection = yield* provider.connect()
      const patches = yield* Queue.unbounded<Message.Outbound>()
      const snapshots = yield* Queue.unbounded<void>()
      yield* connection.messages.pipe(
        Stream.runForEach((message) =>
          message.type === "patch"
            ? Queue.offer(patches, message)
            : message.type === "snapshot"
              ? Queue.offer(snapshots, undefined)
              : Effect.void
        ),
        Effect.forkScoped
      )
      for (let i = 0; i < subscribers; i++) yield* connection.send({ type: "subscribe", id: `s${i}`, depth: -1 })
      for (let i = 0; i < subscribers; i++) yield* Queue.take(snapshots)
      const snapshotBytes = JSON.stringify({ type: "snapshot", id: "s0", version: 1, tree }).length
      const write = Effect.fnUntraced(function* (next: Array<unknown>) {
        alerts = next
        tree = toTree(snapshotOf(alerts), now, ordered ? tree : undefined)
        yield* provider.setTree(tree)
        let total = 0
        for (let i = 0; i < subscribers; i++) total += JSON.stringify(yield* Queue.take(patches)).length
        return { bytes_per_subscriber: Math.round(total / subscribers), bytes_all_subscribers: total }
      })
      const newSource = yield* write([alertOf(5000, "host-050-new", 3000), ...alerts])
      const newAlert = yield* write([alertOf(5001, names[7]!, 3001), ...alerts])
      const acked = alerts.find((alert) => (alert as { id: string }).id === "alert-42") as ReturnType<typeof alertOf>
      const acknowledged = yield* write([
        alertOf(42, acked.source, 242, { updated: at(3002), acknowledged_at: at(3002) }),
        ...alerts.filter((alert) => alert !== acked)
      ])
      return { snapshotBytes, newSource, newAlert, acknowledged }
    })
  )

const rows: Array<{ name: string; figures: Record<string, number> }> = []
for (const ordered of [true, false]) {
  for (const subscribers of ordered ? [1, 100, 1000] : [1]) {
    const result = await Effect.runPromise(measure(subscribers, ordered))
    const label = `${subscribers.toLocaleString("en")} subscriber${subscribers === 1 ? "" : "s"}${ordered ? "" : ", unordered"}`
    rows.push({
      name: `new source's alert, ${label}`,
      figures: { ...result.newSource, snapshot_bytes: result.snapshotBytes }
    })
    rows.push({ name: `new alert on a source, ${label}`, figures: result.newAlert })
    rows.push({ name: `acknowledged alert, ${label}`, figures: result.acknowledged })
  }
}
console.log(JSON.stringify(rows))
