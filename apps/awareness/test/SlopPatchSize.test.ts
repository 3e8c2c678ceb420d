import { assert, describe, it } from "@effect/vitest"
import type { Message } from "@heed/state-tree"
import { Provider } from "@heed/state-tree"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import { nodeId, type Snapshot, toTree } from "../src/AwarenessTree.ts"

// Issue 28: in SLOP's default patch format, a change of the store is a patch proportional to the change. The tree is
// the size the issue measured (120 sources, 1,300 alerts); the patches come from a real Provider subscription in the
// default format and are replayed into a mirror that applies ops the way SLOP's own consumer does.
const now = Date.parse("2026-06-01T12:00:00Z")
const at = (minute: number) => new Date(Date.parse("2026-06-01T00:00:00Z") + minute * 60_000).toISOString()

const names = Array.from({ length: 120 }, (_, i) => `host-${String((i * 37) % 120).padStart(3, "0")}`)
const statusOf = (source: string, minute: number) => ({
  id: `status-${source}`,
  type: "status",
  source,
  created: at(minute),
  data: { metrics: { load: 1 }, ttl_sec: 86_400, headline: `${source} reporting` }
})
const alertOf = (n: number, source: string, minute: number) => ({
  id: `alert-${n}`,
  type: "alert",
  source,
  created: at(minute),
  data: {
    alert_id: `check-${n}`,
    level: ["critical", "warning", "info"][n % 3],
    message: `check ${n} on ${source}: value ${n % 97} above its threshold`,
    metric: `metric-${n % 13}`
  }
})

/** The store as the live tree reads it: alerts newest first, like get_alerts. */
const world = (): { statuses: Array<unknown>; alerts: Array<ReturnType<typeof alertOf>> } => ({
  statuses: names.map((name, i) => statusOf(name, i)),
  alerts: Array.from({ length: 1300 }, (_, n) => alertOf(n, names[n % names.length]!, 200 + n)).reverse()
})
const snapshotOf = (store: ReturnType<typeof world>): Snapshot => ({
  briefing: { summary: `${store.alerts.length} alerts`, sources: {} },
  statuses: store.statuses,
  alerts: store.alerts,
  intentions: [],
  suppressions: []
})

type Json = Record<string, unknown>
const fields = new Set(["properties", "meta", "affordances", "content_ref"])

/** Applies ops as SLOP's own consumer does (as in @heed/http's SlopCompat test): add/remove/replace only, a child
 * add appended, every segment an id except the four field names. */
const slopApply = (tree: Json, op: { readonly op: string; readonly path: string; readonly value?: unknown }) => {
  const segments = op.path.split("/").filter((segment) => segment !== "")
  const last = segments[segments.length - 1]!
  const walk = (path: ReadonlyArray<string>, skipFields: boolean): Json | undefined => {
    let current: Json | undefined = tree
    for (const segment of path) {
      if (fields.has(segment)) {
        if (!skipFields) current = current?.[segment] as Json | undefined
        continue
      }
      current = (current?.children as Array<Json> | undefined)?.find((child) => child.id === segment)
    }
    return current
  }
  const fieldOp = segments.length === 1 ? fields.has(last) : segments.slice(0, -1).some((s) => fields.has(s))
  if ((op.op === "add" || op.op === "remove") && !fieldOp) {
    const parent = walk(segments.slice(0, -1), true)!
    const list = (parent.children as Array<Json> | undefined) ?? []
    parent.children =
      op.op === "add" ? [...list, structuredClone(op.value) as Json] : list.filter((child) => child.id !== last)
    return
  }
  const target = walk(segments.slice(0, -1), false)!
  if (op.op === "remove") delete target[last]
  else target[last] = structuredClone(op.value)
}

describe("the live tree's SLOP patches are proportional to the change (default format)", () => {
  it.effect(
    "one alert from a new source is at most 10 KB; an acknowledged alert is a field replace",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const store = world()
          const provider = yield* Provider.make({ coalesceMs: 0 })
          let tree = toTree(snapshotOf(store), now)
          yield* provider.setTree(tree)
          const connection = yield* provider.connect()
          const messages = yield* Queue.unbounded<Message.Outbound>()
          yield* connection.messages.pipe(
            Stream.runForEach((message) => Queue.offer(messages, message)),
            Effect.forkScoped
          )
          yield* connection.send({ type: "subscribe", id: "s", depth: -1 })
          let message = yield* Queue.take(messages)
          while (message.type !== "snapshot") message = yield* Queue.take(messages)
          const mirror = structuredClone(message.tree) as unknown as Json
          const snapshotBytes = JSON.stringify(message).length
          const rebuild = Effect.fnUntraced(function* () {
            tree = toTree(snapshotOf(store), now, tree)
            yield* provider.setTree(tree)
            let patch = yield* Queue.take(messages)
            while (patch.type !== "patch") patch = yield* Queue.take(messages)
            for (const op of patch.ops) slopApply(mirror, op)
            // a fresh snapshot of the same view (the provider marks changed nodes in both)
            yield* connection.send({ type: "query", id: "fresh", path: "/", depth: -1 })
            let fresh = yield* Queue.take(messages)
            while (fresh.type !== "snapshot" || fresh.id !== "fresh") fresh = yield* Queue.take(messages)
            assert.deepStrictEqual(mirror, JSON.parse(JSON.stringify(fresh.tree)), "the SLOP-style mirror is exact")
            return patch
          })

          // a new source whose name sorts in the middle of the list
          store.alerts.unshift(alertOf(5000, "host-050-new", 3000))
          const added = yield* rebuild()
          const addedBytes = JSON.stringify(added).length
          assert.isAtMost(addedBytes, 10_000, `one alert from a new source: ${addedBytes} bytes`)
          assert.isAbove(snapshotBytes, 100 * addedBytes, "the tree is far larger than the patch")
          const adds = added.ops.filter((op) => op.op === "add")
          assert.deepStrictEqual(
            adds.map((op) => op.path),
            [`/sources/${nodeId("host-050-new")}`]
          )
          assert.isTrue(added.ops.every((op) => op.op === "add" || op.op === "replace"))

          // a new alert on an existing source is appended to its list
          const existing = names[7]!
          store.alerts.unshift(alertOf(5001, existing, 3001))
          const appended = yield* rebuild()
          assert.deepStrictEqual(
            appended.ops.filter((op) => op.op === "add").map((op) => op.path),
            [`/sources/${nodeId(existing)}/alert-5001`]
          )

          // acknowledging changes fields of that alert only (the store also moves it to the front of its list)
          const index = store.alerts.findIndex((alert) => alert.id === "alert-42")
          const acknowledged = store.alerts.splice(index, 1)[0]!
          store.alerts.unshift({
            ...acknowledged,
            updated: at(3002),
            data: { ...acknowledged.data, acknowledged_at: at(3002) }
          } as typeof acknowledged)
          const ack = yield* rebuild()
          const sourcePath = `/sources/${nodeId(acknowledged.source)}`
          const ackBytes = JSON.stringify(ack).length
          assert.isTrue(
            ack.ops.some((op) => op.op === "replace" && op.path === `${sourcePath}/alert-42/properties/acknowledged_at`)
          )
          for (const op of ack.ops) {
            assert.strictEqual(op.op, "replace", op.path)
            // a `meta` replace sets or clears the provider's `changed` marks; properties change on the alert, on its
            // source (the headline is its newest alert) and on the root
            if (!op.path.endsWith("/meta")) {
              assert.match(op.path, new RegExp(`^(${sourcePath}(/alert-42)?)?/properties/[a-z_]+$`), op.path)
            }
          }
          assert.isAtMost(ackBytes, 2_000, `acknowledging: ${ackBytes} bytes`)
          console.log(`SLOP patch bytes: snapshot ${snapshotBytes}, new source ${addedBytes}, ack ${ackBytes}`)
        })
      ),
    60_000
  )
})
