/**
 * The collator's Awareness service on @heed/postgres: a cross-package test (two packages' public APIs together), on
 * an in-memory PGlite and, when reachable, a fresh schema of the PostgreSQL server (skipped with a printed reason
 * otherwise, failed under CI=true). The database helpers are @heed/postgres's own test utilities.
 */
import { assert, describe, it } from "@effect/vitest"
import { Awareness, AwarenessTools, Store } from "@heed/collator"
import { PostgresStore } from "@heed/postgres"
import { ConfigProvider, Effect, Layer, Option } from "effect"
import type * as Context from "effect/Context"
import { TestClock } from "effect/testing"
import { serverUnavailable, serverUrl } from "../../adapters/postgres/test/utils/server.ts"
import { backends, type Db, freshOwner } from "../../adapters/postgres/test/utils/shared.ts"

const storeOn = (db: Context.Context<Db>, owner: string): Layer.Layer<Store.Store> =>
  PostgresStore.layerWith({ owner }).pipe(Layer.provide(Layer.succeedContext(db)), Layer.orDie)

const alert = {
  source: "nas",
  tags: ["infra"],
  alert_id: "disk",
  level: "warning",
  alert_type: "threshold",
  message: "Disk 91% full"
} as const

const reportAndBrief = Effect.gen(function* () {
  const awareness = yield* Awareness.Awareness
  yield* awareness.reportAlert(alert)
  return yield* awareness.getBriefing()
})

describe("Awareness on @heed/postgres's layers", () => {
  it.effect(
    "layerEmbedded({ dataDir: 'memory://' }): the alert is in the briefing and in the store",
    () =>
      Effect.gen(function* () {
        const briefing = yield* reportAndBrief
        assert.deepStrictEqual(
          [briefing.attention_needed, briefing.active_alerts, briefing.sources.nas?.status],
          [true, 1, "warning"]
        )
        const alerts = yield* (yield* Store.Store).query({ types: ["alert"] })
        assert.deepStrictEqual(
          alerts.map((entry) => entry.source),
          ["nas"]
        )
      }).pipe(
        Effect.provide(Awareness.layer.pipe(Layer.provideMerge(PostgresStore.layerEmbedded({ dataDir: "memory://" }))))
      ),
    60_000
  )

  it.effect.skipIf(serverUnavailable !== undefined)(
    `layerConfig() (DATABASE_URL=${serverUrl}): the briefing and the stored alert`,
    () =>
      Effect.gen(function* () {
        const provider = ConfigProvider.fromEnv({
          env: { DATABASE_URL: serverUrl, AWARENESS_DEFAULT_OWNER: freshOwner("config") }
        })
        const [briefing, alerts] = yield* Effect.gen(function* () {
          const briefing = yield* reportAndBrief
          return [briefing, yield* (yield* Store.Store).query({ types: ["alert"] })] as const
        }).pipe(
          Effect.provide(Awareness.layer.pipe(Layer.provideMerge(PostgresStore.layerConfig()))),
          Effect.provideService(ConfigProvider.ConfigProvider, provider)
        )
        assert.deepStrictEqual([briefing.active_alerts, briefing.sources.nas?.status], [1, "warning"])
        assert.strictEqual(alerts.length, 1)
      }),
    60_000
  )
})

for (const backend of await backends("awareness")) {
  describe(`Awareness on PostgresStore (${backend.name})`, () => {
    it.live(
      "two Awareness replicas on two connections: a due reminder is marked new in exactly one of 50 concurrent reads and shown in all",
      () => {
        const owner = freshOwner()
        const awarenessOn = (db: typeof backend.db) => Awareness.layer.pipe(Layer.provide(storeOn(db, owner)))
        return Effect.gen(function* () {
          const first = yield* Effect.provide(
            Effect.map(Awareness.Awareness, (a) => a),
            awarenessOn(backend.db)
          )
          const second = yield* Effect.provide(
            Effect.map(Awareness.Awareness, (a) => a),
            awarenessOn(backend.other)
          )
          yield* first.reportStatus({ source: "nas", tags: [], metrics: { up: 1 } })
          const past = new Date(Date.now() - 60_000).toISOString()
          const { id } = yield* first.remind({ goal: "call the plumber", source: "home", tags: [], deliver_at: past })
          // A background watcher's look delivers nothing on either replica.
          for (const replica of [first, second]) {
            assert.deepStrictEqual(
              (yield* replica.peekBriefing).fired_intentions?.map((f) => f.id),
              [id]
            )
          }
          assert.lengthOf((yield* second.getIntentions({ state: "pending" })).entries, 1)
          const briefings = yield* Effect.forEach(
            Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? first : second)),
            (awareness) => awareness.getBriefing(),
            { concurrency: "unbounded" }
          )
          const shown = briefings.map((b) => (b.fired_intentions ?? []).filter((f) => f.id === id))
          assert.isTrue(shown.every((items) => items.length === 1))
          assert.strictEqual(shown.flat().filter((f) => f.new === true).length, 1)
          const fired = yield* first.getIntentions({ state: "fired" })
          const row = fired.entries[0] as { created: string; updated: string }
          assert.lengthOf(fired.entries, 1)
          assert.isAtLeast(Date.parse(row.updated), Date.parse(row.created))
          yield* second.actedOn({ entry_id: id, action: "called" })
          assert.isUndefined((yield* first.getBriefing()).fired_intentions)
        }).pipe(Effect.scoped)
      },
      60_000
    )

    it.effect(
      "a reader whose clock trails the writer's fires a reminder without an updated before its created",
      () => {
        const owner = freshOwner()
        return Effect.gen(function* () {
          const awareness = yield* Effect.provide(
            Effect.map(Awareness.Awareness, (a) => a),
            Awareness.layer.pipe(Layer.provide(storeOn(backend.db, owner)))
          )
          yield* TestClock.setTime(Date.parse("2026-03-20T12:00:10Z"))
          const { id } = yield* awareness.remind({
            goal: "water the plants",
            source: "home",
            tags: [],
            deliver_at: "2026-03-20T12:00:00Z"
          })
          yield* TestClock.setTime(Date.parse("2026-03-20T12:00:05Z"))
          const briefing = yield* awareness.getBriefing()
          assert.deepStrictEqual(
            briefing.fired_intentions?.map((f) => [f.id, f.new]),
            [[id, true]]
          )
          const row = (yield* awareness.getIntentions({ state: "fired" })).entries[0] as {
            created: string
            updated: string
          }
          assert.strictEqual(row.created, "2026-03-20T12:00:10Z")
          assert.strictEqual(row.updated, "2026-03-20T12:00:10Z")
        }).pipe(Effect.scoped)
      },
      60_000
    )

    it.live(
      "tool input the database cannot store is invalid_parameter naming the field, never store unavailable",
      () => {
        const owner = freshOwner()
        return Effect.gen(function* () {
          const cases: ReadonlyArray<readonly [string, Record<string, unknown>, string]> = [
            ["get_alerts", { since: "0000-01-01" }, "since"],
            ["get_alerts", { since: "-000001-01-01T00:00:00Z" }, "since"],
            ["get_knowledge", { until: "2027-02-30" }, "until"],
            ["report_status", { source: "nas\ud800", tags: [], metrics: {} }, "source"],
            ["report_alert", { source: "s", tags: ["\udfff"], alert_id: "a", level: "warning", message: "m" }, "tags"],
            ["remember", { source: "s", tags: [], description: "d", content: { k: "v\u0000" } }, "content"],
            ["get_status", { source: "a\u0000b" }, "source"],
            ["clear_suppression", { entry_id: "x\u0000" }, "entry_id"]
          ]
          for (const [name, params, param] of cases) {
            const error = yield* Effect.flip(AwarenessTools.call(name, params))
            assert.deepStrictEqual([name, error.code, error.param], [name, "invalid_parameter", param])
            assert.notInclude(error.message, "store unavailable")
          }
          const stats = yield* AwarenessTools.call("get_stats", {})
          assert.strictEqual((stats as { total: number }).total, 0)
        }).pipe(Effect.provide(Awareness.layer.pipe(Layer.provide(storeOn(backend.db, owner)))))
      },
      60_000
    )

    it.live(
      "soft delete, restore (with the original expiry) and double delete through Awareness",
      () => {
        const owner = freshOwner()
        return Effect.gen(function* () {
          const awareness = yield* Effect.provide(
            Effect.map(Awareness.Awareness, (a) => a),
            Awareness.layer.pipe(Layer.provide(storeOn(backend.db, owner)))
          )
          const store = yield* Effect.provide(
            Effect.map(Store.Store, (store) => store),
            storeOn(backend.db, owner)
          )
          const { id } = yield* awareness.addContext({
            source: "work",
            tags: ["trip"],
            description: "in Berlin",
            expires_days: 3
          })
          const before = Option.getOrThrow(yield* store.get(id))
          yield* awareness.deleteEntry({ entry_id: id })
          const deleted = Option.getOrThrow(yield* store.get(id))
          assert.isNotNull(deleted.deleted)
          assert.strictEqual(deleted.data._original_expires, before.expires)
          assert.deepStrictEqual(
            (yield* store.query({ types: ["context"] })).map((e) => e.id),
            []
          )
          assert.deepStrictEqual(
            (yield* store.query({ types: ["context"], deleted: "only" })).map((e) => e.id),
            [id]
          )
          // deleting twice is a no-op with the same response
          const again = yield* awareness.deleteEntry({ entry_id: id })
          assert.strictEqual(again.status, "acknowledged")
          assert.strictEqual(Option.getOrThrow(yield* store.get(id)).deleted, deleted.deleted)
          yield* awareness.restoreEntry({ entry_id: id })
          const restored = Option.getOrThrow(yield* store.get(id))
          assert.isNull(restored.deleted)
          assert.strictEqual(restored.expires, before.expires)
          assert.isUndefined(restored.data._original_expires)
        }).pipe(Effect.scoped)
      },
      60_000
    )

    it.live(
      "upstream's store tests through Awareness: logical keys, bulk delete by tags, stats per owner",
      () =>
        Effect.gen(function* () {
          const awarenessFor = (owner: string) =>
            Effect.provide(
              Effect.map(Awareness.Awareness, (a) => a),
              Awareness.layer.pipe(Layer.provide(storeOn(backend.db, owner)))
            )
          const alice = yield* awarenessFor(freshOwner("alice"))
          const bob = yield* awarenessFor(freshOwner("bob"))
          // logical_key: create, update, no-op update; the same key under another source does not conflict
          const created = yield* alice.remember({
            source: "repo",
            tags: ["a"],
            description: "v1",
            logical_key: "readme"
          })
          assert.strictEqual(created.action, "created")
          const updated = yield* alice.remember({
            source: "repo",
            tags: ["a"],
            description: "v2",
            logical_key: "readme"
          })
          assert.strictEqual(updated.action, "updated")
          assert.strictEqual(updated.id, created.id)
          yield* alice.remember({ source: "repo", tags: ["a"], description: "v2", logical_key: "readme" })
          const other = yield* alice.remember({ source: "wiki", tags: ["a"], description: "v1", logical_key: "readme" })
          assert.notStrictEqual(other.id, created.id)
          // delete by tags uses AND; the dry run counts what the confirmed delete trashes
          yield* alice.remember({ source: "x", tags: ["a", "b"], description: "both" })
          yield* alice.remember({ source: "x", tags: ["b"], description: "only b" })
          const dry = yield* alice.deleteEntry({ tags: ["a", "b"] })
          assert.strictEqual(dry.status, "dry_run")
          const done = yield* alice.deleteEntry({ tags: ["a", "b"], confirm: true })
          assert.deepStrictEqual([dry.status === "dry_run" ? dry.would_trash : -1], [1])
          assert.deepStrictEqual(done, { status: "ok", trashed: 1, recoverable_days: 30 })
          // deleting an unknown id answers exactly as deleting a real one (no existence probing)
          const real = yield* bob.deleteEntry({ entry_id: created.id })
          const missing = yield* bob.deleteEntry({ entry_id: "no-such-entry" })
          assert.deepStrictEqual({ ...real, entry_id: "" }, { ...missing, entry_id: "" })
          // bob's delete of alice's id touched nothing, and stats are per owner
          const stats = yield* alice.getStats()
          assert.strictEqual(stats.entries.note, 3)
          assert.strictEqual((yield* bob.getStats()).total, 0)
        }).pipe(Effect.scoped),
      60_000
    )
  })
}
