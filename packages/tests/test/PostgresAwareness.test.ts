/**
 * The collator's Awareness service on @heed/postgres: a cross-package test (two packages' public APIs together), on
 * an in-memory PGlite and, when reachable, a fresh schema of the PostgreSQL server (skipped with a printed reason
 * otherwise, failed under CI=true). The database helpers are @heed/postgres's own test utilities.
 */
import { assert, describe, it } from "@effect/vitest"
import { Awareness, Store } from "@heed/collator"
import { layerConfig, layerEmbedded, PostgresStore } from "@heed/postgres"
import { ConfigProvider, Effect, Layer, Option } from "effect"
import type * as Context from "effect/Context"
import { serverUnavailable, serverUrl } from "../../adapters/postgres/test/utils/server.ts"
import { backends, type Db, freshOwner } from "../../adapters/postgres/test/utils/shared.ts"

const storeOn = (db: Context.Context<Db>, owner: string): Layer.Layer<Store> =>
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
  const awareness = yield* Awareness
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
        const alerts = yield* (yield* Store).query({ types: ["alert"] })
        assert.deepStrictEqual(
          alerts.map((entry) => entry.source),
          ["nas"]
        )
      }).pipe(Effect.provide(Awareness.layer.pipe(Layer.provideMerge(layerEmbedded({ dataDir: "memory://" }))))),
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
          return [briefing, yield* (yield* Store).query({ types: ["alert"] })] as const
        }).pipe(
          Effect.provide(Awareness.layer.pipe(Layer.provideMerge(layerConfig()))),
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
      "two Awareness services on two store instances deliver a due intention in exactly one briefing",
      () => {
        const owner = freshOwner()
        const awarenessOn = (db: typeof backend.db) => Awareness.layer.pipe(Layer.provide(storeOn(db, owner)))
        return Effect.gen(function* () {
          const first = yield* Effect.provide(
            Effect.map(Awareness, (a) => a),
            awarenessOn(backend.db)
          )
          const second = yield* Effect.provide(
            Effect.map(Awareness, (a) => a),
            awarenessOn(backend.other)
          )
          const past = new Date(Date.now() - 60_000).toISOString()
          const { id } = yield* first.remind({ goal: "call the plumber", source: "home", tags: [], deliver_at: past })
          const briefings = yield* Effect.forEach(
            Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? first : second)),
            (awareness) => awareness.getBriefing(),
            { concurrency: "unbounded" }
          )
          const deliveries = briefings.flatMap((b) => (b.fired_intentions ?? []).filter((f) => f.id === id))
          assert.strictEqual(deliveries.length, 1)
        }).pipe(Effect.scoped)
      },
      60_000
    )

    it.live(
      "soft delete, restore (with the original expiry) and double delete through Awareness",
      () => {
        const owner = freshOwner()
        return Effect.gen(function* () {
          const awareness = yield* Effect.provide(
            Effect.map(Awareness, (a) => a),
            Awareness.layer.pipe(Layer.provide(storeOn(backend.db, owner)))
          )
          const store = yield* Effect.provide(
            Effect.map(Store, (store) => store),
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
              Effect.map(Awareness, (a) => a),
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
          assert.strictEqual(done.trashed, dry.would_trash)
          assert.strictEqual(done.trashed, 1)
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
