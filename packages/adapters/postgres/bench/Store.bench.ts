/**
 * Store benchmarks on PGlite (in memory) and on the PostgreSQL server (`HEED_TEST_DATABASE_URL`, default
 * postgres://postgres@127.0.0.1:5432/test; skipped with a message when unreachable):
 *
 * - alert upserts per second with 1 and 8 concurrent writers (re-reports of 200 alert ids, merging data as
 *   `report_alert` does);
 * - briefings with 10,000 active alerts over 1,000 sources through the real `Awareness` service: a rebuild after a
 *   write (every run follows an untimed status report, which changes the store's version) and a cached read.
 *
 * The harness times synchronous functions only, so the async cases are timed here and reported with `record`.
 */
import { Bench } from "@heed/bench"
import { Awareness, Store } from "@heed/collator"
import { Effect, Layer } from "effect"
import * as Context from "effect/Context"
import * as SqlClient from "effect/sql/SqlClient"
import { Database, PostgresStore } from "../src/index.ts"

const serverUrl = process.env.HEED_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"
type Db = SqlClient.SqlClient | Database.Backend

const quantile = (sorted: ReadonlyArray<number>, q: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!
const round = (n: number) => Number(n.toPrecision(4))

let owners = 0
const storeOn = (db: Context.Context<Db>) =>
  Effect.provide(
    Store.Store,
    PostgresStore.layerWith({ owner: `bench-${process.pid}-${owners++}` }).pipe(Layer.provide(Layer.succeedContext(db)))
  )

const upsertAlert = (store: Store.Store["Service"], i: number) => {
  const alertId = `alert-${i % 200}`
  return store.upsert({ type: "alert", source: "bench", data: { alert_id: alertId } }, (existing) =>
    existing === undefined
      ? {
          id: `id-${i}`,
          type: "alert",
          source: "bench",
          tags: ["bench"],
          created: new Date().toISOString(),
          updated: null,
          expires: null,
          deleted: null,
          data: {
            alert_id: alertId,
            level: "warning",
            alert_type: "threshold",
            message: `report ${i}`,
            resolved: false
          }
        }
      : { ...existing, updated: new Date().toISOString(), data: { ...existing.data, message: `report ${i}` } }
  )
}

/** Upserts `total` alerts with `writers` concurrent fibers; returns per-upsert latencies and the wall time. */
const upserts = (db: Context.Context<Db>, writers: number, total: number) =>
  Effect.gen(function* () {
    const store = yield* storeOn(db)
    for (let i = 0; i < 50; i++) yield* upsertAlert(store, i) // warm-up
    const latencies: Array<number> = []
    const started = performance.now()
    yield* Effect.forEach(
      Array.from({ length: total }, (_, i) => i),
      (i) =>
        Effect.gen(function* () {
          const t = performance.now()
          yield* upsertAlert(store, i)
          latencies.push(performance.now() - t)
        }),
      { concurrency: writers, discard: true }
    )
    const wall = performance.now() - started
    latencies.sort((a, b) => a - b)
    return {
      samples: total,
      ops_per_s: round((total / wall) * 1000),
      mean_ms: round(latencies.reduce((s, x) => s + x, 0) / total),
      p50_ms: round(quantile(latencies, 0.5)),
      p99_ms: round(quantile(latencies, 0.99))
    }
  })

/** Seeds 1,000 fresh statuses and 10,000 active alerts (10% critical) for a new owner in two statements. */
const seedBriefing = (db: Context.Context<Db>) =>
  Effect.gen(function* () {
    const owner = `bench-briefing-${process.pid}-${owners++}`
    const sql = yield* Effect.provide(
      Effect.map(SqlClient.SqlClient, (s) => s),
      Layer.succeedContext(db)
    )
    const now = new Date().toISOString()
    yield* sql`INSERT INTO entries (id, owner_id, type, source, tags, created, data, envelope)
      SELECT id, ${owner}, 'status', source, '[]'::jsonb, ${now}::timestamptz, data,
        json_build_object('id', id, 'type', 'status', 'source', source, 'tags', '[]'::json, 'created', ${now}::text,
          'updated', null, 'expires', null, 'deleted', null, 'data', data)
      FROM (SELECT 'status-' || g AS id, 'host-' || g AS source,
        jsonb_build_object('metrics', jsonb_build_object('cpu', g % 100), 'ttl_sec', 3600) AS data
        FROM generate_series(1, 1000) g) s`
    yield* sql`INSERT INTO entries (id, owner_id, type, source, tags, created, data, envelope)
      SELECT id, ${owner}, 'alert', source, '["bench"]'::jsonb, ${now}::timestamptz, data,
        json_build_object('id', id, 'type', 'alert', 'source', source, 'tags', '["bench"]'::json, 'created',
          ${now}::text, 'updated', null, 'expires', null, 'deleted', null, 'data', data)
      FROM (SELECT 'alert-' || g AS id, 'host-' || (g % 1000) AS source,
        jsonb_build_object('alert_id', 'metric-' || g, 'level', CASE WHEN g % 10 = 0 THEN 'critical' ELSE 'warning' END,
          'alert_type', 'threshold', 'message', 'metric ' || g || ' over threshold', 'resolved', false) AS data
        FROM generate_series(1, 10000) g) s`
    return yield* Effect.provide(
      Store.Store,
      PostgresStore.layerWith({ owner }).pipe(Layer.provide(Layer.succeedContext(db)))
    )
  })

/** The awareness service on a seeded store, as the server runs it (`Awareness.layer`, its briefing cache included). */
const awarenessOn = (store: Store.Store["Service"]) =>
  Effect.map(Layer.build(Awareness.layer.pipe(Layer.provide(Layer.succeed(Store.Store, store)))), (context) =>
    Context.get(context, Awareness.Awareness)
  )

const timings = (times: Array<number>) => {
  times.sort((a, b) => a - b)
  return {
    samples: times.length,
    mean_ms: round(times.reduce((s, x) => s + x, 0) / times.length),
    p50_ms: round(quantile(times, 0.5)),
    p99_ms: round(quantile(times, 0.99))
  }
}

/** Rebuilt briefings (each after an untimed write) and cached ones (the same briefing read again). */
const briefings = (db: Context.Context<Db>, runs: number) =>
  Effect.gen(function* () {
    const awareness = yield* awarenessOn(yield* seedBriefing(db))
    const first = yield* awareness.getBriefing() // warm-up
    if (first.active_alerts !== 10_000) throw new Error(`expected 10,000 active alerts, got ${first.active_alerts}`)
    const rebuilt: Array<number> = []
    const cached: Array<number> = []
    for (let i = 0; i < runs; i++) {
      yield* awareness.reportStatus({ source: "host-1", tags: [], metrics: { cpu: i }, ttl_sec: 3600 })
      let t = performance.now()
      yield* awareness.getBriefing()
      rebuilt.push(performance.now() - t)
      t = performance.now()
      yield* awareness.getBriefing()
      cached.push(performance.now() - t)
    }
    return {
      rebuilt: { ...timings(rebuilt), active_alerts: first.active_alerts },
      cached: timings(cached)
    }
  })

const suite = (name: string, layer: Layer.Layer<Db, unknown>, sizes: { upserts: number; briefings: number }) =>
  Effect.gen(function* () {
    const db = yield* Layer.build(layer)
    const one = yield* upserts(db, 1, sizes.upserts)
    const eight = yield* upserts(db, 8, sizes.upserts)
    const brief = yield* briefings(db, sizes.briefings)
    Bench.record(`PostgresStore (${name})`, [
      { name: "alert upserts, 1 writer", figures: one },
      { name: "alert upserts, 8 concurrent writers", figures: eight },
      { name: "briefing rebuilt after a write, 10,000 active alerts (Awareness)", figures: brief.rebuilt },
      { name: "briefing from the cache, 10,000 active alerts (Awareness)", figures: brief.cached }
    ])
  }).pipe(Effect.scoped)

await Effect.runPromise(
  suite("PGlite memory://", Database.layerEmbedded({ dataDir: "memory://" }), { upserts: 1000, briefings: 10 })
)

const schema = `heed_bench_${process.pid}`
const server = Database.layer({ url: serverUrl, schema }).pipe(
  Layer.tap((context) =>
    Effect.addFinalizer(() =>
      Effect.ignore(
        Effect.map(SqlClient.SqlClient, (sql) => sql).pipe(
          Effect.flatMap((sql) => sql`DROP SCHEMA IF EXISTS ${sql(schema)} CASCADE`),
          Effect.provide(Layer.succeedContext(context))
        )
      )
    )
  )
)
await Effect.runPromise(
  suite(`PostgreSQL ${serverUrl}`, server, { upserts: 2000, briefings: 10 }).pipe(
    Effect.catchCause((cause) => Effect.sync(() => console.log(`\nPostgreSQL server benchmarks skipped: ${cause}`)))
  )
)
