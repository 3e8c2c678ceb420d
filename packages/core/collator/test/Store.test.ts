import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { Store } from "../src/index.ts"
import { StoreContract } from "../src/testing/index.ts"

StoreContract.run({ name: "layerMemory", layer: Store.layerMemory, describe, it })

describe("Store.layerMemory", () => {
  it.effect("each build starts empty", () =>
    Effect.gen(function* () {
      const first = yield* Effect.provide(
        Effect.gen(function* () {
          const store = yield* Store.Store
          yield* store.insert(StoreContract.makeEntry({ id: "x" }))
          return (yield* store.query({})).length
        }),
        Store.layerMemory
      )
      const second = yield* Effect.provide(
        Effect.gen(function* () {
          const store = yield* Store.Store
          return yield* store.query({})
        }),
        Store.layerMemory
      )
      assert.strictEqual(first, 1)
      assert.strictEqual(second.length, 0)
    })
  )

  it("matchesFilter treats a missing data field as null", () => {
    const entry = StoreContract.makeEntry({ id: "a", data: { x: 1 } })
    assert.isTrue(Store.matchesFilter(entry, { data: { x: 1, y: null } }))
    assert.isFalse(Store.matchesFilter(entry, { data: { x: 2 } }))
  })
})

describe("Store.ChangeLog", () => {
  const idsOf = (changes: Option.Option<Store.Changes>) => Option.map(changes, (c) => ({ ...c, ids: [...c.ids] }))

  it("answers the ids written after a version, each once, up to the current version", () => {
    const log = new Store.ChangeLog()
    log.record(6, ["a"])
    log.record(7, ["b", "a"])
    log.record(8, ["c"])
    assert.deepStrictEqual(idsOf(log.since(6, 8)), Option.some({ version: 8, ids: ["b", "a", "c"] }))
    assert.deepStrictEqual(idsOf(log.since(5, 8)), Option.some({ version: 8, ids: ["a", "b", "c"] }))
    assert.deepStrictEqual(idsOf(log.since(8, 8)), Option.some({ version: 8, ids: [] }))
  })

  it("cannot answer for a version before what it holds, or after the current one", () => {
    const log = new Store.ChangeLog()
    log.record(6, ["a"])
    assert.isTrue(Option.isNone(log.since(4, 6)))
    assert.isTrue(Option.isNone(log.since(7, 6)))
    // an empty log knows nothing but the current version
    assert.isTrue(Option.isNone(new Store.ChangeLog().since(3, 4)))
  })

  it("drops the oldest writes past its capacity, then answers only from what it kept", () => {
    const log = new Store.ChangeLog(2)
    for (let version = 1; version <= 5; version++) log.record(version, [`e${version}`])
    // at most twice the capacity is held; past it, the oldest half goes
    assert.isTrue(Option.isNone(log.since(0, 5)))
    assert.deepStrictEqual(idsOf(log.since(2, 5)), Option.some({ version: 5, ids: ["e3", "e4", "e5"] }))
  })
})
