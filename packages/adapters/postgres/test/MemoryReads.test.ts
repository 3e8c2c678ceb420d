/**
 * PGlite's in-memory reads (`memoryReads`, the default there) answer every `query` and `get` exactly as SQL does:
 * a seeded random history of inserts, upserts (which remove the rows they replace), updates, deletions, expiries
 * and purges is written through a store with in-memory reads, and after each step a store of the same owner that
 * reads through SQL (`memoryReads: false`) must give the same entries in the same order for random filters.
 */
import { assert, describe, it } from "@effect/vitest"
import { Store } from "@heed/collator"
import type { Entry } from "@heed/collator/Entry"
import { StoreContract } from "@heed/collator/testing"
import { Effect, Layer } from "effect"
import { PostgresStore } from "../src/index.ts"
import { backends, freshOwner } from "./utils/shared.ts"

/** A small seeded PRNG (mulberry32): the same history on every run. */
const prng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

// Ids whose UTF-16 order differs from the database's byte order (U+E000 sorts before U+1D7D8 in bytes, after it
// in UTF-16 code units), and times that tie, so the order's second key matters.
const ids = ["a", "b", "B", "é", "\ue000", "\u{1d7d8}", "a1", "a10", "a2", "z"]
const types = ["alert", "status", "note", "intention"] as const
const tagPool = ["x", "y", "z"]
const { makeEntry } = StoreContract
const minute = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, n)).toISOString()

describe("PGlite in-memory reads", async () => {
  const [pglite] = await backends("memory_reads")
  const layerOf = (owner: string, memoryReads: boolean) =>
    PostgresStore.layerWith({ owner, memoryReads }).pipe(Layer.provide(Layer.succeedContext(pglite!.db)), Layer.orDie)

  it.effect(
    "answer 40 random filters after each of 120 random writes exactly as SQL does",
    () => {
      const random = prng(20261127)
      const pick = <A>(items: ReadonlyArray<A>): A => items[Math.floor(random() * items.length)]!
      // a filter field present or absent (never `undefined`, which the port's type does not allow)
      const maybe = <K extends keyof Store.EntryFilter>(key: K, value: () => Store.EntryFilter[K]) =>
        random() < 0.4 ? { [key]: value() } : {}
      const randomEntry = (id: string): Entry =>
        makeEntry({
          id,
          type: pick(types),
          source: pick(["nas", "ci", "web"]),
          tags: tagPool.filter(() => random() < 0.4),
          created: minute(Math.floor(random() * 6)),
          updated: random() < 0.5 ? minute(Math.floor(random() * 6)) : null,
          expires: random() < 0.3 ? minute(Math.floor(random() * 8)) : null,
          deleted: random() < 0.15 ? minute(7) : null,
          data: {
            state: pick(["pending", "fired", null, 1, true, { nested: 1 }]),
            ...(random() < 0.5 ? { resolved: random() < 0.5 } : {})
          }
        })
      const randomFilter = (): Store.EntryFilter => ({
        ...(random() < 0.2 ? { ids: ids.filter(() => random() < 0.3) } : {}),
        ...(random() < 0.5 ? { types: types.filter(() => random() < 0.5) } : {}),
        ...maybe("source", () => pick(["nas", "ci", "web"])),
        ...maybe("tags", () => tagPool.filter(() => random() < 0.4)),
        ...maybe("data", () => ({
          [pick(["state", "resolved", "constructor"])]: pick(["pending", "fired", null, 1, true, false])
        })),
        ...maybe("deleted", () => pick(["exclude", "include", "only"] as const)),
        ...maybe("activeAt", () => minute(Math.floor(random() * 8))),
        ...maybe("since", () => minute(Math.floor(random() * 6))),
        ...maybe("until", () => minute(Math.floor(random() * 6))),
        ...maybe("createdAfter", () => minute(Math.floor(random() * 6))),
        ...maybe("createdBefore", () => minute(Math.floor(random() * 6))),
        ...maybe("limit", () => Math.floor(random() * 5)),
        ...maybe("offset", () => Math.floor(random() * 3))
      })
      const owner = freshOwner("memory")
      return Effect.gen(function* () {
        const memory = yield* Effect.provide(
          Effect.map(Store.Store, (store) => store),
          layerOf(owner, true)
        )
        const sql = yield* Effect.provide(
          Effect.map(Store.Store, (store) => store),
          layerOf(owner, false)
        )
        let compared = 0
        for (let step = 0; step < 120; step++) {
          const id = pick(ids)
          const roll = random()
          if (roll < 0.35) {
            yield* Effect.ignore(memory.insert(randomEntry(id))) // a taken id fails, as above
          } else if (roll < 0.65) {
            const next = randomEntry(id)
            // an id already taken by a row outside the key fails the write, which must leave the copy as it was
            yield* Effect.ignore(memory.upsert({ type: next.type, source: next.source }, () => next))
          } else {
            yield* memory.update(id, (current) =>
              random() < 0.2 ? undefined : { ...randomEntry(id), created: current.created }
            )
          }
          for (let f = 0; f < 40; f++) {
            const filter = randomFilter()
            const expected = yield* sql.query(filter)
            const actual = yield* memory.query(filter)
            assert.deepStrictEqual(actual, expected, `step ${step}, filter ${JSON.stringify(filter)}`)
            compared += expected.length
          }
          for (const one of ids) assert.deepStrictEqual(yield* memory.get(one), yield* sql.get(one), `get ${one}`)
        }
        // the comparison saw entries, not only empty answers
        assert.isAbove(compared, 1000)
      }).pipe(Effect.scoped)
    },
    120_000
  )

  it.effect("an expiry purge reaches the in-memory copy", () => {
    const owner = freshOwner("purge")
    return Effect.gen(function* () {
      const context = yield* Layer.build(layerOf(owner, true))
      const store = Layer.succeedContext(context)
      const memory = yield* Effect.provide(
        Effect.map(Store.Store, (s) => s),
        store
      )
      const cleanup = yield* Effect.provide(
        Effect.map(PostgresStore.Cleanup, (c) => c),
        store
      )
      yield* memory.insert(makeEntry({ id: "old", expires: minute(1) }))
      yield* memory.insert(makeEntry({ id: "kept", expires: minute(9) }))
      yield* memory.insert(
        makeEntry({ id: "pref", type: "preference", data: { key: "auto_cleanup", value: "true", scope: "global" } })
      )
      assert.strictEqual(yield* cleanup.purgeExpired(minute(5)), 1)
      const left = yield* memory.query({ deleted: "include" })
      assert.deepStrictEqual(left.map((entry) => entry.id).sort(), ["kept", "pref"])
    }).pipe(Effect.scoped)
  })
})
