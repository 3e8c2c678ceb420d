/**
 * Entry bookkeeping shared by the awareness tools: new ids, changelogs, soft delete and restore, and the
 * intention state machine.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Random from "effect/Random"
import { AwarenessError } from "../AwarenessError.ts"
import type { Entry, EntryType } from "../Entry.ts"
import * as Limits from "../Limits.ts"
import type { Store, StoreError } from "../Store.ts"
import { notFound, unavailable } from "./errors.ts"
import { parseIso, toIso } from "./time.ts"

/** A version 4 UUID from Effect's `Random` (seedable in tests). */
export const uuid = Effect.gen(function* () {
  let hex = ""
  for (let i = 0; i < 4; i++) {
    const chunk = Math.floor((yield* Random.next) * 0x1_0000_0000)
    hex += chunk.toString(16).padStart(8, "0")
  }
  const variant = ((Number.parseInt(hex[16] ?? "0", 16) & 0x3) | 0x8).toString(16)
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`
})

/** A new live entry created at `nowMs`. */
export const newEntry = (
  type: EntryType,
  source: string,
  tags: ReadonlyArray<string>,
  data: Record<string, unknown>,
  nowMs: number,
  extra: { readonly expires?: string | null; readonly logical_key?: string | undefined } = {}
): Effect.Effect<Entry> =>
  Effect.map(uuid, (id) => ({
    id,
    type,
    source,
    tags: [...tags],
    created: toIso(nowMs),
    updated: null,
    expires: extra.expires ?? null,
    deleted: null,
    data,
    ...(extra.logical_key === undefined ? {} : { logical_key: extra.logical_key })
  }))

/** The changelog with one more `{ updated, changed }` record. */
export const appendChangelog = (data: Record<string, unknown>, now: string, changed: Record<string, unknown>) => {
  const previous = Array.isArray(data.changelog) ? data.changelog : []
  return [...previous, { updated: now, changed }]
}

/** Whether the entry is in the trash. */
export const isDeleted = (entry: Entry): boolean => entry.deleted !== null && entry.deleted !== undefined

/** The entry moved to the trash for 30 days (its expiry kept for restore). */
export const softDelete = (entry: Entry, nowMs: number): Entry => ({
  ...entry,
  deleted: toIso(nowMs),
  expires: toIso(nowMs + 30 * 86_400_000),
  data: { ...entry.data, _original_expires: entry.expires }
})

/** The entry back from the trash, with its original expiry. */
export const restore = (entry: Entry): Entry => {
  const { _original_expires, ...data } = entry.data
  return { ...entry, deleted: null, expires: typeof _original_expires === "string" ? _original_expires : null, data }
}

/** The intention states each state may move to (completed and cancelled are final). */
export const transitions: Readonly<Record<string, ReadonlyArray<string>>> = {
  pending: ["fired", "active", "completed", "snoozed", "cancelled"],
  fired: ["active", "completed", "snoozed", "cancelled"],
  active: ["completed", "snoozed", "cancelled"],
  snoozed: ["pending", "active", "completed", "cancelled"],
  completed: [],
  cancelled: []
}

/** A light English stemmer for lexical search: "walking", "walked" and "walks" all become "walk". */
export const stem = (word: string): string => (word.length > 4 ? word.replace(/(ing|ed|es|s)$/, "") : word)

/**
 * A timestamp for a write to `entry` at `nowMs` that is never before the entry's own `created` or `updated` (a
 * reader's clock may trail the writer's, or the row may have been written after the reader took its time).
 */
export const writeTime = (entry: Entry, nowMs: number): string => {
  const created = Date.parse(entry.created)
  const updated = entry.updated === null || entry.updated === undefined ? Number.NaN : Date.parse(entry.updated)
  return toIso(Math.max(nowMs, Number.isNaN(created) ? nowMs : created, Number.isNaN(updated) ? nowMs : updated))
}

/** What every awareness tool works with: the store, the clock, and store failures as `unavailable` errors. */
export interface Deps {
  readonly store: GuardedStore
  readonly now: Effect.Effect<number>
  readonly s: <A>(effect: Effect.Effect<A, StoreError | AwarenessError>) => Effect.Effect<A, AwarenessError>
  /** The live (not deleted, not expired) entry with this id, optionally of the given types, or `not_found`. */
  readonly liveEntry: (id: string, types?: ReadonlyArray<EntryType>) => Effect.Effect<Entry, AwarenessError>
}

/** Thrown from inside an upsert or update that would write an entry over the size limit (the write is undone). */
class EntryTooLarge {
  readonly error: AwarenessError
  constructor(error: AwarenessError) {
    this.error = error
  }
}

/** The JSON size of a value, in UTF-8 bytes. */
const jsonBytes = (value: unknown): number => Limits.utf8Length(JSON.stringify(value) ?? "")

/**
 * The `payload_too_large` error for an entry over `Limits.maxEntryBytes` of JSON, naming its largest field (a `data`
 * field, `tags` or `source`), or `undefined` when the entry fits.
 */
export const entrySizeProblem = (entry: Entry): AwarenessError | undefined => {
  const bytes = jsonBytes(entry)
  if (bytes <= Limits.maxEntryBytes) return undefined
  const fields: Array<readonly [string, unknown]> = [
    ["source", entry.source],
    ["tags", entry.tags],
    ...Object.entries(entry.data)
  ]
  let largest = "data"
  let largestBytes = -1
  for (const [name, value] of fields) {
    const size = jsonBytes(value)
    if (size > largestBytes) {
      largest = name
      largestBytes = size
    }
  }
  return new AwarenessError({
    code: "payload_too_large",
    message:
      `The entry would be ${bytes} bytes of JSON, over the limit of ${Limits.maxEntryBytes} bytes; its largest ` +
      `field is '${largest}' (${largestBytes} bytes): shorten it.`,
    retryable: false,
    param: largest
  })
}

const checked = (entry: Entry): Entry => {
  const problem = entrySizeProblem(entry)
  if (problem !== undefined) throw new EntryTooLarge(problem)
  return entry
}

const rethrown = <A>(effect: Effect.Effect<A, StoreError>): Effect.Effect<A, StoreError | AwarenessError> =>
  Effect.catchDefect(effect, (defect) =>
    defect instanceof EntryTooLarge ? Effect.fail(defect.error) : Effect.die(defect)
  )

/**
 * `store` with every write checked against `Limits.maxEntryBytes` before it reaches the store: an insert fails, an
 * upsert or update is undone, with `payload_too_large` naming the entry's largest field.
 */
const sizeChecked = (store: Store["Service"]): GuardedStore => ({
  ...store,
  insert: (entry) =>
    Effect.suspend((): Effect.Effect<Entry, StoreError | AwarenessError> => {
      const problem = entrySizeProblem(entry)
      return problem === undefined ? store.insert(entry) : Effect.fail(problem)
    }),
  upsert: (key, make) => rethrown(store.upsert(key, (existing) => checked(make(existing)))),
  update: (id, f) =>
    rethrown(
      store.update(id, (current) => {
        const next = f(current)
        return next === undefined ? undefined : checked(next)
      })
    )
})

/** The store as the tools see it: its writes may also fail with `payload_too_large` (an entry over the limit). */
export interface GuardedStore {
  readonly version: Store["Service"]["version"]
  readonly get: Store["Service"]["get"]
  readonly query: Store["Service"]["query"]
  readonly insert: (entry: Entry) => Effect.Effect<Entry, StoreError | AwarenessError>
  readonly upsert: (
    ...args: Parameters<Store["Service"]["upsert"]>
  ) => Effect.Effect<Effect.Success<ReturnType<Store["Service"]["upsert"]>>, StoreError | AwarenessError>
  readonly update: (
    ...args: Parameters<Store["Service"]["update"]>
  ) => Effect.Effect<Effect.Success<ReturnType<Store["Service"]["update"]>>, StoreError | AwarenessError>
}

/** The {@link Deps} over `store`. */
export const makeDeps = (raw: Store["Service"]): Deps => {
  const store = sizeChecked(raw)
  const s = <A>(effect: Effect.Effect<A, StoreError | AwarenessError>) =>
    Effect.mapError(effect, (error) => (error._tag === "StoreError" ? unavailable(error) : error))
  const now = Clock.currentTimeMillis
  const liveEntry = (id: string, types?: ReadonlyArray<EntryType>) =>
    Effect.gen(function* () {
      const nowMs = yield* now
      const found = yield* s(store.get(id))
      if (Option.isNone(found)) return yield* Effect.fail(notFound(`no entry with id ${id}`))
      const entry = found.value
      const expires = parseIso(entry.expires)
      if (
        isDeleted(entry) ||
        (expires !== undefined && expires <= nowMs) ||
        (types !== undefined && !types.includes(entry.type))
      ) {
        return yield* Effect.fail(
          notFound(`no ${types === undefined ? "" : `${types.join(" or ")} `}entry with id ${id}`)
        )
      }
      return entry
    })
  return { store, now, s, liveEntry }
}
