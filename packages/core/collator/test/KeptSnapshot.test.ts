/**
 * The kept snapshot against the store's own queries: after random writes (each refreshed by id, as the briefing
 * cache refreshes the ids of the store's changes) and clock moves through every window's edge, what it holds at
 * each instant is what the briefing's queries return then, part by part, in the store's order.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { type Entry, Store } from "../src/index.ts"
import { queryAll } from "../src/internal/briefingCache.ts"
import * as KeptSnapshot from "../src/internal/keptSnapshot.ts"
import { BriefingHistories } from "../src/testing/index.ts"

const minute = 60_000
const windows = { flapWindowMs: 10 * minute, resurfaceMs: 30 * minute, retentionMs: 20 * minute }
const start = Date.parse("2026-03-20T12:00:00.000Z")

type Rng = () => number
const pick = <A>(rng: Rng, items: ReadonlyArray<A>): A => items[Math.floor(rng() * items.length)] as A
const iso = (ms: number) => new Date(ms).toISOString()

/** Data that puts an entry of `type` in one part, another, or none (a missing field, another state or key). */
const dataFor = (rng: Rng, type: Entry.Entry["type"]): Record<string, unknown> => {
  switch (type) {
    case "alert":
      return pick(rng, [{ resolved: false }, { resolved: true }, {}])
    case "intention":
      return { state: pick(rng, ["pending", "snoozed", "fired", "acknowledged"]) }
    case "preference":
    case "note":
      // A note may carry the same fields: only a preference's count.
      return { key: pick(rng, ["timezone", "language"]), scope: pick(rng, ["global", "user"]), value: "UTC" }
    default:
      return {}
  }
}

/** An entry written at `now`: created up to an hour before (or updated now), maybe expiring within the hour. */
const entryAt = (rng: Rng, id: string, now: number): Entry.Entry => {
  // Notes and records: types no briefing query reads.
  const type = pick(rng, [
    "status",
    "alert",
    "alert",
    "suppression",
    "pattern",
    "intention",
    "preference",
    "note"
  ] as const)
  const created = now - Math.floor(rng() * 60) * minute
  return {
    id,
    type,
    source: pick(rng, ["nas", "ci"]),
    tags: [],
    created: iso(created),
    // Often exactly `now`, so that later clock moves by whole windows land on the edge of a `since` bound.
    updated: pick(rng, [null, iso(now), iso(created + Math.floor(rng() * (now - created + 1)))]),
    expires: rng() < 0.4 ? iso(now + Math.floor(rng() * 61 - 20) * minute) : null,
    deleted: rng() < 0.1 ? iso(now) : null,
    data: dataFor(rng, type)
  }
}

const idsOf = (parts: KeptSnapshot.Parts) =>
  Object.fromEntries(Object.entries(parts).map(([part, entries]) => [part, entries.map((entry) => entry.id)]))

/** One series: 12 entries, then 30 steps of writes and clock moves, comparing after each step. */
const series = (seed: number) =>
  Effect.gen(function* () {
    const store = yield* Store.Store
    const rng = BriefingHistories.random(seed)
    let now = start
    const ids = Array.from({ length: 12 }, (_, i) => `e${i}`)
    for (const id of ids) yield* store.insert(entryAt(rng, id, now))
    const ctx = { store, ...windows }
    const kept = KeptSnapshot.fromQueries(yield* store.version, now, windows, yield* queryAll(ctx, now))
    const reads: Array<{ readonly read: KeptSnapshot.Parts; readonly ids: ReturnType<typeof idsOf> }> = []
    for (let step = 0; step < 30; step++) {
      if (rng() < 0.5) {
        // Up to 40 minutes, often landing right on a window's edge.
        now += pick(rng, [1, 1000, minute, 9 * minute, 10 * minute, 20 * minute, 30 * minute, 40 * minute])
      } else {
        const id = rng() < 0.3 ? `e${ids.length}` : pick(rng, ids)
        if (!ids.includes(id)) ids.push(id)
        const existing = yield* store.get(id)
        if (Option.isNone(existing)) yield* store.insert(entryAt(rng, id, now))
        else yield* store.update(id, () => entryAt(rng, id, now))
        kept.refresh(id, Option.getOrUndefined(yield* store.get(id)), now)
      }
      const read = kept.at(now)
      const what = `seed ${seed}, step ${step}`
      assert.deepStrictEqual(idsOf(read), idsOf(yield* queryAll(ctx, now)), what)
      assert.strictEqual(kept.readAtMs, now, what)
      reads.push({ read, ids: idsOf(read) })
    }
    // Every read was a copy: the refreshes and reads after it left it as it was.
    for (const { ids, read } of reads) assert.deepStrictEqual(idsOf(read), ids, `seed ${seed}`)
  }).pipe(Effect.provide(Store.layerMemory))

describe("KeptSnapshot", () => {
  it.effect("holds what the briefing's queries return after every step of 300 random series", () =>
    Effect.gen(function* () {
      for (let seed = 1; seed <= 300; seed++) yield* series(seed)
    })
  )
})
