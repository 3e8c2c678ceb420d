import { assert, describe, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import { TestClock } from "effect/testing"
import { Awareness, Store } from "../src/index.ts"
import { BriefingHistories } from "../src/testing/index.ts"

const histories = 3000
const steps = 12

/** Two replicas over one in-memory store (the incremental path), and the reference that re-reads everything. */
const instances = Effect.gen(function* () {
  const store = yield* Store.Store
  const build = (options: Awareness.AwarenessOptions) =>
    Effect.provide(
      Effect.service(Awareness.Awareness),
      Awareness.layerWith(options).pipe(Layer.provide(Layer.succeed(Store.Store, store)))
    )
  const a = yield* build({ maxCacheAgeSec: 0 })
  const b = yield* build({ maxCacheAgeSec: 0 })
  const reference = yield* build({ incremental: false, maxCacheAgeSec: 0 })
  return { a, b, reference }
}).pipe(Effect.provide(Store.layerMemory))

describe("incremental briefings on the in-memory store", () => {
  it.effect(
    `equal a full regeneration after every step of ${histories} random histories, on two replicas`,
    () =>
      Effect.gen(function* () {
        let writes = 0
        let refused = 0
        for (let seed = 1; seed <= histories; seed++) {
          yield* TestClock.setTime(Date.parse("2026-03-20T09:00:00Z"))
          const { a, b, reference } = yield* instances
          const outcome = yield* BriefingHistories.run({
            seed,
            steps,
            writers: [a, b],
            checked: [a, b],
            reference,
            advance: (ms) => TestClock.adjust(Duration.millis(ms))
          })
          writes += outcome.writes
          refused += outcome.refused
        }
        console.log(`${histories} histories: ${writes} writes, ${refused} refused`)
        // The histories write far more than they are refused, so the comparisons cover real changes.
        assert.isAbove(writes, histories * steps * 0.5)
        assert.isBelow(refused, writes / 4)
        // Each replica read its snapshot afresh once per history; every later one came from the store's changes.
        const reads = yield* BriefingHistories.snapshotReads
        assert.deepStrictEqual(reads.full, { first: 2 * histories, disabled: histories * steps })
        assert.isAbove(reads.changes, histories * steps)
      }).pipe(Effect.provideService(Metric.MetricRegistry, new Map())),
    120_000
  )
})
