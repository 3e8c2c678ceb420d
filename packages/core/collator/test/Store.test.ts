import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { matchesFilter, Store, StoreContract } from "../src/index.ts"

StoreContract.run({ name: "layerMemory", layer: Store.layerMemory, describe, it })

describe("Store.layerMemory", () => {
  it.effect("each build starts empty", () =>
    Effect.gen(function* () {
      const first = yield* Effect.provide(
        Effect.gen(function* () {
          const store = yield* Store
          yield* store.insert(StoreContract.makeEntry({ id: "x" }))
          return (yield* store.query({})).length
        }),
        Store.layerMemory
      )
      const second = yield* Effect.provide(
        Effect.gen(function* () {
          const store = yield* Store
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
    assert.isTrue(matchesFilter(entry, { data: { x: 1, y: null } }))
    assert.isFalse(matchesFilter(entry, { data: { x: 2 } }))
  })
})
