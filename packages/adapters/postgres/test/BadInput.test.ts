import { assert, describe, it } from "@effect/vitest"
import { type Entry, Store } from "@heed/collator"
import { StoreContract } from "@heed/collator/testing"
import { Effect, Layer, Option } from "effect"
import type * as Context from "effect/Context"
import * as fc from "fast-check"
import { PostgresStore } from "../src/index.ts"
import { backends, type Db, freshOwner } from "./utils/shared.ts"

const { makeEntry } = StoreContract

const open = (db: Context.Context<Db>, options: PostgresStore.StoreOptions = {}) =>
  Effect.provide(
    Store.Store,
    PostgresStore.layerWith({ owner: freshOwner("bad"), ...options }).pipe(Layer.provide(Layer.succeedContext(db)))
  )

const payloads = [
  "'; DROP TABLE entries; --",
  '" OR 1=1 --',
  "x'); DELETE FROM entries WHERE ('1'='1",
  "$1 $2 ::jsonb",
  `%s %n %x {0} $${"{process.env.HOME}"} {{var}}`,
  "\\'; SELECT pg_sleep(10); --",
  "Robert'); DROP TABLE store_versions;--"
]

const rejected = (effect: Effect.Effect<unknown, unknown>, mentions: string) =>
  Effect.gen(function* () {
    const error = yield* Effect.flip(effect)
    assert.strictEqual((error as { _tag?: unknown })._tag, "StoreError")
    assert.include((error as Error).message, mentions)
  })

for (const backend of await backends("bad")) {
  describe(`bad input on ${backend.name}`, () => {
    it.effect(
      "SQL-looking and format-string text in every field is stored verbatim and never executed",
      () =>
        Effect.gen(function* () {
          const store = yield* open(backend.db)
          for (const [i, text] of payloads.entries()) {
            const entry: Entry.Entry = {
              id: `${text}#${i}`,
              type: "note",
              source: text,
              tags: [text, `${text}-2`],
              created: "2026-03-19T15:00:00.000Z",
              updated: null,
              expires: null,
              deleted: null,
              data: { description: text, content: text, [text]: text, nested: { [text]: [text] } },
              logical_key: text
            }
            yield* store.insert(entry)
            assert.strictEqual(JSON.stringify(Option.getOrThrow(yield* store.get(entry.id))), JSON.stringify(entry))
            const byFilters = yield* store.query({
              source: text,
              tags: [text],
              data: { [text]: text, description: text }
            })
            assert.deepStrictEqual(
              byFilters.map((e) => e.id),
              [entry.id]
            )
            const upserted = yield* store.upsert(
              { type: "note", source: text, logical_key: text },
              (existing) => existing!
            )
            assert.strictEqual(upserted.entry.id, entry.id)
          }
          assert.strictEqual((yield* store.query({})).length, payloads.length)
          const error = yield* Effect.flip(
            store.insert(makeEntry({ id: "t", type: "note'); DROP TABLE entries; --" as never }))
          )
          assert.strictEqual(error._tag, "StoreError")
          assert.include(error.message, "entries_type_check")
          assert.strictEqual((yield* store.query({})).length, payloads.length)
        }),
      60_000
    )

    it.effect(
      "oversized entries are rejected with the limit in the message; nothing is written",
      () =>
        Effect.gen(function* () {
          const store = yield* open(backend.db)
          const huge = "x".repeat(1024 * 1024 + 1)
          yield* rejected(
            store.insert(makeEntry({ id: "huge", data: { content: huge } })),
            "over the store's limit of 1048576"
          )
          assert.isTrue(Option.isNone(yield* store.get("huge")))
          assert.strictEqual(yield* store.version, 0)
          const small = yield* open(backend.db, { maxEntryBytes: 512 })
          yield* rejected(
            small.insert(makeEntry({ id: "big", data: { content: "y".repeat(600) } })),
            "limit of 512 bytes"
          )
          // a large entry within a raised limit is stored and read back whole
          const roomy = yield* open(backend.db, { maxEntryBytes: 4 * 1024 * 1024 })
          yield* roomy.insert(makeEntry({ id: "large", data: { content: huge } }))
          assert.strictEqual(String(Option.getOrThrow(yield* roomy.get("large")).data.content).length, huge.length)
        }),
      60_000
    )

    it.effect("data that is not a JSON object is rejected, whatever its shape", () =>
      Effect.gen(function* () {
        const store = yield* open(backend.db)
        const circular: Record<string, unknown> = {}
        circular.self = circular
        yield* rejected(store.insert(makeEntry({ id: "s", data: "{not json" as never })), "data must be a JSON object")
        yield* rejected(store.insert(makeEntry({ id: "a", data: [1, 2] as never })), "data must be a JSON object")
        yield* rejected(store.insert(makeEntry({ id: "n", data: null as never })), "data must be a JSON object")
        yield* rejected(store.insert(makeEntry({ id: "c", data: circular })), "data is not JSON-serialisable")
        yield* rejected(store.insert(makeEntry({ id: "b", data: { big: 1n } })), "data is not JSON-serialisable")
        yield* rejected(store.insert(makeEntry({ id: "t", tags: "a,b" as never })), "tags must be an array of strings")
        yield* rejected(store.insert(makeEntry({ id: "t2", tags: [1] as never })), "tags must be an array of strings")
        yield* rejected(store.insert(makeEntry({ id: 7 as never })), "id must be a string")
        yield* rejected(store.insert(makeEntry({ id: "" })), "id must not be empty")
        assert.deepStrictEqual(yield* store.query({ deleted: "include" }), [])
      })
    )

    it.effect("NUL characters and malformed timestamps are rejected with the field named", () =>
      Effect.gen(function* () {
        const store = yield* open(backend.db)
        yield* rejected(store.insert(makeEntry({ id: "nul\u0000id" })), "id contains a NUL")
        yield* rejected(store.insert(makeEntry({ id: "d", data: { description: "a\u0000b" } })), "data contains a NUL")
        yield* rejected(store.insert(makeEntry({ id: "src", source: "a\u0000" })), "source contains a NUL")
        yield* rejected(
          store.insert(makeEntry({ id: "c", created: "yesterday" })),
          "created must be an ISO 8601 timestamp"
        )
        yield* rejected(store.insert(makeEntry({ id: "e", expires: "2026-13-45T99:00:00Z" })), "expires must be")
        yield* rejected(store.query({ since: "not a date" }), "since must be an ISO 8601 timestamp")
        // a backslash followed by "u0000" is ordinary text
        yield* store.insert(makeEntry({ id: "escaped", data: { description: "\\u0000" } }))
        assert.strictEqual(Option.getOrThrow(yield* store.get("escaped")).data.description, "\\u0000")
      })
    )

    it.effect("a rejected upsert or update rolls back: the previous entry is untouched", () =>
      Effect.gen(function* () {
        const store = yield* open(backend.db)
        const original = makeEntry({ id: "keep", type: "status", source: "nas", data: { metrics: { cpu: 1 } } })
        yield* store.upsert({ type: "status", source: "nas" }, () => original)
        const version = yield* store.version
        yield* rejected(
          store.upsert({ type: "status", source: "nas" }, () =>
            makeEntry({ id: "new", type: "status", source: "nas", created: "never" })
          ),
          "created must be"
        )
        yield* rejected(
          store.update("keep", (e) => ({ ...e, data: { metrics: { cpu: "\u0000" } } })),
          "NUL"
        )
        assert.strictEqual(JSON.stringify(yield* store.query({ types: ["status"] })), JSON.stringify([original]))
        assert.strictEqual(yield* store.version, version)
      })
    )

    it.effect(
      "property: arbitrary JSON data and unicode text round-trip exactly",
      () =>
        Effect.gen(function* () {
          const store = yield* open(backend.db)
          const text = fc.string({ unit: "grapheme", maxLength: 40 }).filter((s) => !s.includes("\u0000"))
          const leaf = fc.oneof(
            text,
            fc.integer(),
            fc.double({ noNaN: true, noDefaultInfinity: true }),
            fc.boolean(),
            fc.constant(null)
          )
          const value = fc.letrec((tie) => ({
            node: fc.oneof(
              { depthSize: "small" },
              leaf,
              fc.array(tie("node"), { maxLength: 4 }),
              fc.dictionary(text, tie("node"), { maxKeys: 4 })
            )
          })).node
          const samples = fc.sample(
            fc.record({
              source: text,
              tags: fc.array(text, { maxLength: 4 }),
              data: fc.dictionary(text, value, { maxKeys: 6 })
            }),
            { numRuns: 40, seed: 20260319 }
          )
          for (const [i, sample] of samples.entries()) {
            const entry = makeEntry({ id: `p${i}`, ...sample })
            yield* store.insert(entry)
            assert.strictEqual(JSON.stringify(Option.getOrThrow(yield* store.get(entry.id))), JSON.stringify(entry))
          }
        }),
      60_000
    )
  })
}
