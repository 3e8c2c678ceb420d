/**
 * The suite of incremental briefings against a full regeneration after every step of random write histories
 * (`BriefingHistories` from `@heed/collator/testing`), for one backend. Two replicas of the awareness service share
 * each history's owner: on a server each has its own connection pool and so reads the other's writes through the
 * store's change log; on PGlite they share the one client. The reference rebuilds every briefing from a full read.
 */
import { assert, describe, it } from "@effect/vitest"
import { Awareness } from "@heed/collator"
import { BriefingHistories } from "@heed/collator/testing"
import { Duration, Effect, Layer, Metric } from "effect"
import * as Context from "effect/Context"
import { TestClock } from "effect/testing"
import { PostgresStore } from "../../src/index.ts"
import { type Backend, type Db, freshOwner } from "./shared.ts"

/** Histories run at once, each on its own owner and test clock: the database works while the test collates. */
const concurrency = 4

/** The awareness service for `owner` over the connection `db`. */
const awarenessOn = (db: Context.Context<Db>, owner: string, options: Awareness.AwarenessOptions) =>
  Effect.map(
    Layer.build(
      Awareness.layerWith(options).pipe(
        Layer.provide(PostgresStore.layerWith({ owner })),
        Layer.provide(Layer.succeedContext(db))
      )
    ),
    Context.get(Awareness.Awareness)
  )

/** One history on its own owner and its own test clock. */
const history = (backend: Backend, seed: number, steps: number) =>
  Effect.scoped(
    Effect.gen(function* () {
      yield* TestClock.setTime(Date.parse("2026-03-20T09:00:00Z"))
      const owner = freshOwner("history")
      const a = yield* awarenessOn(backend.db, owner, { maxCacheAgeSec: 0 })
      const b = yield* awarenessOn(backend.other, owner, { maxCacheAgeSec: 0 })
      const reference = yield* awarenessOn(backend.db, owner, { incremental: false, maxCacheAgeSec: 0 })
      return yield* BriefingHistories.run({
        seed,
        steps,
        writers: [a, b],
        checked: [a, b],
        reference,
        advance: (ms) => TestClock.adjust(Duration.millis(ms))
      })
    })
  ).pipe(Effect.provide(TestClock.layer()))

/** Registers the suite: `histories` random histories of `steps` steps each on `backend`. */
export const historiesSuite = (backend: Backend, histories: number, steps: number) =>
  describe(`incremental briefings on ${backend.name}`, () => {
    it.effect(
      `equal a full regeneration after every step of ${histories} random histories, on two replicas`,
      () =>
        Effect.gen(function* () {
          const outcomes = yield* Effect.forEach(
            Array.from({ length: histories }, (_, i) => i + 1),
            (seed) => history(backend, seed, steps),
            { concurrency }
          )
          const writes = outcomes.reduce((sum, outcome) => sum + outcome.writes, 0)
          console.log(`${backend.name}: ${histories} histories of ${steps} steps, ${writes} writes`)
          // Most steps write, so the comparisons follow real changes.
          assert.isAbove(writes, histories * steps * 0.5)
          // Each replica read its snapshot afresh once per history; every later one came from the store's changes
          // (on a server: from the change log, across the two connection pools).
          const reads = yield* BriefingHistories.snapshotReads
          assert.deepStrictEqual(reads.full, { first: 2 * histories, disabled: histories * steps })
          assert.isAbove(reads.changes, histories * steps)
        }).pipe(Effect.provideService(Metric.MetricRegistry, new Map())),
      900_000
    )
  })
