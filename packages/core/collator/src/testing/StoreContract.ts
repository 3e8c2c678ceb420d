/**
 * The store contract suite: the behaviour every {@link Store} implementation must have, as tests that any test
 * runner can register. `Store.layerMemory` runs it in this package; the PostgreSQL/PGlite adapter runs it too.
 *
 * The suite has **no dependency on a test framework**: the caller passes its own `describe` and `it` (an
 * `@effect/vitest`-style `it` with an `effect` method), so it adds nothing to a consumer's dependencies. It ships in
 * the `@heed/collator/testing` subpath, not the main barrel. Failures are defects carrying a message that names the
 * broken rule.
 *
 * **Example** (Running the suite with @effect/vitest)
 *
 * ```ts
 * import { describe, it } from "@effect/vitest"
 * import { Store } from "@heed/collator"
 * import { StoreContract } from "@heed/collator/testing"
 *
 * StoreContract.run({ name: "memory", layer: Store.layerMemory, describe, it })
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { Entry } from "../Entry.ts"
import { Store } from "../Store.ts"

/**
 * What {@link run} needs: a `name` for the describe block, a `layer` that builds a **fresh, empty** store each
 * time it is provided (each test provides it separately), and the runner's `describe` and `it` (only `it.effect`
 * is used).
 *
 * @category models
 * @since 0.1.0
 */
export interface ContractOptions<E> {
  readonly name: string
  readonly layer: Layer.Layer<Store, E>
  readonly describe: (name: string, body: () => void) => unknown
  readonly it: {
    readonly effect: <A, Err>(name: string, body: () => Effect.Effect<A, Err, never>) => unknown
  }
}

const check = (condition: boolean, message: string): Effect.Effect<void> =>
  condition ? Effect.void : Effect.die(new Error(`store contract violated: ${message}`))

const equal = (actual: unknown, expected: unknown, message: string): Effect.Effect<void> => {
  const a = JSON.stringify(actual)
  const b = JSON.stringify(expected)
  return check(a === b, `${message}: expected ${b}, got ${a}`)
}

const t0 = Date.parse("2026-03-19T15:00:00.000Z")
const at = (seconds: number) => new Date(t0 + seconds * 1000).toISOString()

/**
 * Builds a test entry with sensible defaults.
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeEntry = (fields: Partial<Entry> & Pick<Entry, "id">): Entry => ({
  type: "note",
  source: "test",
  tags: [],
  created: at(0),
  updated: null,
  expires: null,
  deleted: null,
  data: {},
  ...fields
})

/**
 * The contract, as named Effects needing a {@link Store}. {@link run} registers each as a test.
 *
 * @category constructors
 * @since 0.1.0
 */
export const cases: ReadonlyArray<readonly [string, Effect.Effect<void, unknown, Store>]> = [
  [
    "insert then get round-trips every field; a missing id is None",
    Effect.gen(function* () {
      const store = yield* Store
      const entry = makeEntry({
        id: "e1",
        type: "alert",
        source: "nas",
        tags: ["infra", "disk"],
        updated: at(5),
        expires: at(600),
        data: { alert_id: "disk", level: "warning", message: "disk 91%", resolved: false, nested: { a: [1, 2] } },
        logical_key: "k1"
      })
      yield* store.insert(entry)
      const found = yield* store.get("e1")
      yield* check(Option.isSome(found), "get finds an inserted entry")
      yield* equal(Option.getOrUndefined(found), entry, "stored entry")
      yield* check(Option.isNone(yield* store.get("missing")), "get of an unknown id is None")
    })
  ],
  [
    "insert of an existing id fails and leaves the entry unchanged",
    Effect.gen(function* () {
      const store = yield* Store
      yield* store.insert(makeEntry({ id: "dup", data: { description: "first" } }))
      const failed = yield* Effect.flip(store.insert(makeEntry({ id: "dup", data: { description: "second" } })))
      yield* equal(failed._tag, "StoreError", "duplicate insert error tag")
      const found = yield* store.get("dup")
      yield* equal(Option.getOrUndefined(found)?.data.description, "first", "entry after failed insert")
    })
  ],
  [
    "query filters by type, source, tags (AND) and data, newest first",
    Effect.gen(function* () {
      const store = yield* Store
      yield* store.insert(
        makeEntry({
          id: "a",
          type: "alert",
          source: "nas",
          tags: ["x", "y"],
          created: at(1),
          data: { resolved: false }
        })
      )
      yield* store.insert(
        makeEntry({ id: "b", type: "alert", source: "nas", tags: ["x"], created: at(2), data: { resolved: true } })
      )
      yield* store.insert(
        makeEntry({ id: "c", type: "alert", source: "ci", tags: ["x", "y"], created: at(3), data: { resolved: false } })
      )
      yield* store.insert(makeEntry({ id: "d", type: "note", source: "nas", tags: ["x", "y"], created: at(4) }))
      const ids = (rows: ReadonlyArray<Entry>) => rows.map((e) => e.id)
      yield* equal(ids(yield* store.query({ types: ["alert"] })), ["c", "b", "a"], "types, newest first")
      yield* equal(ids(yield* store.query({ source: "nas" })), ["d", "b", "a"], "source")
      yield* equal(ids(yield* store.query({ tags: ["x", "y"] })), ["d", "c", "a"], "tags use AND")
      yield* equal(
        ids(yield* store.query({ types: ["alert"], data: { resolved: false } })),
        ["c", "a"],
        "data equality"
      )
      yield* equal(ids(yield* store.query({ data: { missing: null } })), ["d", "c", "b", "a"], "missing data is null")
      yield* equal(ids(yield* store.query({ ids: ["a", "d", "zz"] })), ["d", "a"], "ids")
      yield* equal(
        ids(yield* store.query({ types: ["note", "alert"], source: "nas", tags: ["y"] })),
        ["d", "a"],
        "AND of filters"
      )
    })
  ],
  [
    "query orders by COALESCE(updated, created) descending and pages with limit and offset",
    Effect.gen(function* () {
      const store = yield* Store
      yield* store.insert(makeEntry({ id: "old-but-updated", created: at(1), updated: at(100) }))
      yield* store.insert(makeEntry({ id: "mid", created: at(50) }))
      yield* store.insert(makeEntry({ id: "new", created: at(60) }))
      const ids = (rows: ReadonlyArray<Entry>) => rows.map((e) => e.id)
      yield* equal(ids(yield* store.query({})), ["old-but-updated", "new", "mid"], "ordering")
      yield* equal(ids(yield* store.query({ limit: 2 })), ["old-but-updated", "new"], "limit")
      yield* equal(ids(yield* store.query({ limit: 2, offset: 2 })), ["mid"], "offset")
      yield* equal(ids(yield* store.query({ limit: 0 })), [], "limit 0")
    })
  ],
  [
    "query honours deleted modes, activeAt expiry and time bounds",
    Effect.gen(function* () {
      const store = yield* Store
      yield* store.insert(makeEntry({ id: "live", created: at(10) }))
      yield* store.insert(makeEntry({ id: "gone", created: at(20), deleted: at(30) }))
      yield* store.insert(makeEntry({ id: "expiring", created: at(30), expires: at(100) }))
      yield* store.insert(makeEntry({ id: "touched", created: at(5), updated: at(40) }))
      const ids = (rows: ReadonlyArray<Entry>) => rows.map((e) => e.id).sort()
      yield* equal(ids(yield* store.query({})), ["expiring", "live", "touched"], "deleted excluded by default")
      yield* equal(ids(yield* store.query({ deleted: "only" })), ["gone"], "deleted only")
      yield* equal(ids(yield* store.query({ deleted: "include" })), ["expiring", "gone", "live", "touched"], "include")
      yield* equal(ids(yield* store.query({ activeAt: at(99) })), ["expiring", "live", "touched"], "not yet expired")
      yield* equal(ids(yield* store.query({ activeAt: at(100) })), ["live", "touched"], "expired at its instant")
      yield* equal(ids(yield* store.query({ since: at(30) })), ["expiring", "touched"], "since uses updated or created")
      yield* equal(ids(yield* store.query({ until: at(10) })), ["live"], "until is inclusive")
      yield* equal(
        ids(yield* store.query({ createdAfter: at(10), createdBefore: at(30) })),
        ["expiring", "live"],
        "created bounds"
      )
    })
  ],
  [
    "upsert inserts when nothing matches and replaces the live match otherwise",
    Effect.gen(function* () {
      const store = yield* Store
      const first = yield* store.upsert({ type: "alert", source: "nas", data: { alert_id: "cpu" } }, (existing) =>
        makeEntry({
          id: "u1",
          type: "alert",
          source: "nas",
          data: { alert_id: "cpu", n: existing === undefined ? 1 : 0 }
        })
      )
      yield* check(Option.isNone(first.previous), "first upsert has no previous entry")
      const second = yield* store.upsert({ type: "alert", source: "nas", data: { alert_id: "cpu" } }, (existing) =>
        existing === undefined
          ? makeEntry({ id: "u2", type: "alert", source: "nas", data: { alert_id: "cpu", n: -1 } })
          : { ...existing, updated: at(9), data: { ...existing.data, n: Number(existing.data.n) + 1 } }
      )
      yield* equal(Option.getOrUndefined(second.previous)?.id, "u1", "previous")
      yield* equal(second.entry.data.n, 2, "merged")
      const rows = yield* store.query({ types: ["alert"] })
      yield* equal(
        rows.map((e) => e.id),
        ["u1"],
        "one row per key"
      )
      yield* store.upsert({ type: "alert", source: "ci", data: { alert_id: "cpu" } }, () =>
        makeEntry({ id: "u3", type: "alert", source: "ci", data: { alert_id: "cpu" } })
      )
      yield* equal(
        (yield* store.query({ types: ["alert"] })).length,
        2,
        "same alert_id under another source is a new row"
      )
    })
  ],
  [
    "upsert with a new id replaces every live match (one status per source); deleted entries do not match",
    Effect.gen(function* () {
      const store = yield* Store
      yield* store.insert(makeEntry({ id: "s-old-1", type: "status", source: "nas", created: at(1) }))
      yield* store.insert(makeEntry({ id: "s-old-2", type: "status", source: "nas", created: at(2) }))
      yield* store.insert(makeEntry({ id: "s-deleted", type: "status", source: "nas", created: at(3), deleted: at(4) }))
      const result = yield* store.upsert({ type: "status", source: "nas" }, () =>
        makeEntry({ id: "s-new", type: "status", source: "nas", created: at(10) })
      )
      yield* equal(Option.getOrUndefined(result.previous)?.id, "s-old-2", "the newest live match is previous")
      yield* equal(
        (yield* store.query({ types: ["status"] })).map((e) => e.id),
        ["s-new"],
        "live statuses"
      )
      yield* check(Option.isNone(yield* store.get("s-old-1")), "replaced rows are gone")
      yield* check(Option.isSome(yield* store.get("s-deleted")), "deleted rows are untouched")
    })
  ],
  [
    "upsert by logical_key matches only that key and source",
    Effect.gen(function* () {
      const store = yield* Store
      yield* store.upsert({ type: "note", source: "a", logical_key: "k" }, () =>
        makeEntry({ id: "n1", source: "a", logical_key: "k" })
      )
      yield* store.upsert({ type: "note", source: "b", logical_key: "k" }, () =>
        makeEntry({ id: "n2", source: "b", logical_key: "k" })
      )
      const again = yield* store.upsert(
        { type: "note", source: "a", logical_key: "k" },
        (existing) => existing ?? makeEntry({ id: "n3", source: "a", logical_key: "k" })
      )
      yield* equal(again.entry.id, "n1", "same key and source updates in place")
      yield* equal((yield* store.query({ types: ["note"] })).length, 2, "different source does not conflict")
    })
  ],
  [
    "concurrent upserts on one key never create duplicates",
    Effect.gen(function* () {
      const store = yield* Store
      yield* Effect.forEach(
        Array.from({ length: 20 }, (_, i) => i),
        (i) =>
          store.upsert({ type: "preference", data: { key: "tz", scope: "global" } }, (existing) =>
            existing === undefined
              ? makeEntry({
                  id: `p${i}`,
                  type: "preference",
                  source: "global",
                  data: { key: "tz", scope: "global", n: 1 }
                })
              : { ...existing, data: { ...existing.data, n: Number(existing.data.n) + 1 } }
          ),
        { concurrency: "unbounded", discard: true }
      )
      const rows = yield* store.query({ types: ["preference"] })
      yield* equal(rows.length, 1, "one preference row")
      yield* equal(rows[0]?.data.n, 20, "every upsert saw the previous one")
    })
  ],
  [
    "update applies f atomically, returns None for unknown ids or when f declines, and sees deleted entries",
    Effect.gen(function* () {
      const store = yield* Store
      yield* store.insert(makeEntry({ id: "i1", type: "intention", data: { state: "pending" } }))
      yield* store.insert(makeEntry({ id: "i2", deleted: at(1) }))
      const declined = yield* store.update("i1", () => undefined)
      yield* check(Option.isNone(declined), "declined update is None")
      yield* check(Option.isNone(yield* store.update("nope", (e) => e)), "unknown id is None")
      const restored = yield* store.update("i2", (e) => ({ ...e, deleted: null }))
      yield* equal(Option.getOrUndefined(restored)?.deleted, null, "update reaches deleted entries")
      const updated = yield* store.update("i1", (e) => ({ ...e, data: { state: "fired" } }))
      yield* equal(Option.getOrUndefined(updated)?.data.state, "fired", "returns the written entry")
      yield* equal(Option.getOrUndefined(yield* store.get("i1"))?.data.state, "fired", "write is visible")
    })
  ],
  [
    "concurrent compare-and-set updates: exactly one wins",
    Effect.gen(function* () {
      const store = yield* Store
      yield* store.insert(makeEntry({ id: "fire-me", type: "intention", data: { state: "pending" } }))
      const results = yield* Effect.forEach(
        Array.from({ length: 10 }, (_, i) => i),
        (i) =>
          store.update("fire-me", (e) =>
            e.data.state === "pending" ? { ...e, data: { state: "fired", by: i } } : undefined
          ),
        { concurrency: "unbounded" }
      )
      yield* equal(results.filter(Option.isSome).length, 1, "winners")
    })
  ],
  [
    "version grows on every write and not on reads or declined updates",
    Effect.gen(function* () {
      const store = yield* Store
      const v0 = yield* store.version
      yield* store.insert(makeEntry({ id: "v1" }))
      const v1 = yield* store.version
      yield* check(v1 > v0, "insert bumps the version")
      yield* store.query({})
      yield* store.get("v1")
      yield* store.update("v1", () => undefined)
      yield* equal(yield* store.version, v1, "reads and declined updates keep the version")
      yield* store.update("v1", (e) => ({ ...e, tags: ["t"] }))
      const v2 = yield* store.version
      yield* check(v2 > v1, "update bumps the version")
      yield* store.upsert({ type: "note", source: "test", logical_key: "x" }, () =>
        makeEntry({ id: "v3", logical_key: "x" })
      )
      yield* check((yield* store.version) > v2, "upsert bumps the version")
    })
  ],
  [
    "changes (where a store reports them) name every entry written or removed since a version, up to the current one",
    Effect.gen(function* () {
      const store = yield* Store
      if (store.changes === undefined) return
      const changesSince = store.changes
      const ids = (since: number) =>
        Effect.map(
          changesSince(since),
          Option.map((changes) => ({ ...changes, ids: [...changes.ids].sort() }))
        )
      yield* store.insert(makeEntry({ id: "c1", type: "status", source: "nas" }))
      const v0 = yield* store.version
      yield* equal(yield* ids(v0), Option.some({ version: v0, ids: [] }), "nothing since the current version")
      yield* store.insert(makeEntry({ id: "c2" }))
      yield* store.update("c2", () => undefined)
      yield* store.update("c2", (e) => ({ ...e, tags: ["t"] }))
      const v1 = yield* store.version
      yield* equal(yield* ids(v0), Option.some({ version: v1, ids: ["c2"] }), "an insert and an update of one entry")
      // an upsert that replaces the source's status under another id removes the old one
      yield* store.upsert({ type: "status", source: "nas" }, () =>
        makeEntry({ id: "c3", type: "status", source: "nas" })
      )
      const v2 = yield* store.version
      yield* equal(yield* ids(v1), Option.some({ version: v2, ids: ["c1", "c3"] }), "the upsert's new and removed ids")
      yield* equal(yield* ids(v0), Option.some({ version: v2, ids: ["c1", "c2", "c3"] }), "all of them since v0")
    })
  ]
]

/**
 * Registers the contract suite: one `describe(name)` block with one `it.effect` test per rule in {@link cases},
 * each provided with a fresh build of `layer`.
 *
 * @category constructors
 * @since 0.1.0
 */
export const run = <E>(options: ContractOptions<E>): void => {
  options.describe(`Store contract: ${options.name}`, () => {
    for (const [name, body] of cases) {
      options.it.effect(name, () => Effect.provide(body, options.layer))
    }
  })
}
