import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
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
