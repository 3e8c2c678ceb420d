/**
 * The maintenance tools of the awareness service: `update_entry` (in place, with a changelog), `delete_entry`
 * (soft delete; bulk paths are a dry run unless confirmed) and `restore_entry`.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { AwarenessError } from "../AwarenessError.ts"
import type { Input, Reply } from "../AwarenessTools.ts"
import type { Entry } from "../Entry.ts"
import { appendChangelog, type Deps, isDeleted, restore, softDelete } from "./entries.ts"
import { invalidParameter, notFound } from "./errors.ts"
import { toIso } from "./time.ts"

const updatable: ReadonlyArray<string> = ["note", "pattern", "context", "preference", "record"]

/** The entry with `input`'s edits and a changelog record, or `undefined` when nothing changes. */
const edited = (current: Entry, input: Input<"update_entry">, nowIso: string): Entry | undefined => {
  const changed: Record<string, unknown> = {}
  const data = { ...current.data }
  for (const key of ["description", "content", "content_type"] as const) {
    const value = input[key]
    if (value !== undefined && data[key] !== value) {
      changed[key] = data[key] ?? null
      data[key] = value
    }
  }
  let next: Entry = current
  if (input.tags !== undefined && JSON.stringify(current.tags) !== JSON.stringify(input.tags)) {
    changed.tags = current.tags
    next = { ...next, tags: [...input.tags] }
  }
  if (input.source !== undefined && current.source !== input.source) {
    changed.source = current.source
    next = { ...next, source: input.source }
  }
  if (Object.keys(changed).length === 0) return undefined
  return { ...next, updated: nowIso, data: { ...data, changelog: appendChangelog(current.data, nowIso, changed) } }
}

const updateEntry = (deps: Deps) =>
  Effect.fn("Awareness.updateEntry")(function* (input: Input<"update_entry">) {
    const id = input.entry_id
    const entry = yield* deps.liveEntry(id)
    if (entry.type === "schema") {
      return yield* Effect.fail(
        new AwarenessError({ code: "schema_immutable", message: "schemas cannot be updated", retryable: false })
      )
    }
    if (!updatable.includes(entry.type)) {
      return yield* Effect.fail(
        notFound(`no updatable entry with id ${id} (status, alert and suppression entries are immutable)`)
      )
    }
    const nowIso = toIso(yield* deps.now)
    const result = yield* deps.s(deps.store.update(id, (current) => edited(current, input, nowIso)))
    return { status: "ok", id, updated: Option.isSome(result) ? nowIso : entry.updated } satisfies Reply<"update_entry">
  })

const trash = (deps: Deps, id: string, nowMs: number) =>
  deps.s(deps.store.update(id, (current) => (isDeleted(current) ? undefined : softDelete(current, nowMs))))

const deleteEntry = (deps: Deps) =>
  Effect.fn("Awareness.deleteEntry")(function* (input: Input<"delete_entry">) {
    const { entry_id: entryId, source, entry_type: entryType } = input
    const tags = input.tags ?? []
    const nowMs = yield* deps.now
    if (entryId !== undefined) {
      yield* trash(deps, entryId, nowMs)
      return {
        status: "acknowledged",
        entry_id: entryId,
        recoverable_days: 30,
        note: "If the entry exists it was moved to trash; restore_entry brings it back within 30 days."
      } satisfies Reply<"delete_entry">
    }
    if (source === undefined && tags.length === 0) {
      return yield* Effect.fail(invalidParameter("entry_id", "give entry_id, tags or source to choose what to delete"))
    }
    const rows = yield* deps.s(
      deps.store.query({
        ...(source === undefined ? {} : { source }),
        ...(entryType === undefined ? {} : { types: [entryType] }),
        ...(tags.length === 0 ? {} : { tags })
      })
    )
    if (input.confirm !== true) {
      return {
        status: "dry_run",
        would_trash: rows.length,
        note: "Nothing was deleted. Call again with confirm=true to move these entries to trash."
      } satisfies Reply<"delete_entry">
    }
    let trashed = 0
    for (const entry of rows) if (Option.isSome(yield* trash(deps, entry.id, nowMs))) trashed++
    return { status: "ok", trashed, recoverable_days: 30 } satisfies Reply<"delete_entry">
  })

const restoreEntry = (deps: Deps) =>
  Effect.fn("Awareness.restoreEntry")(function* (input: Input<"restore_entry">) {
    const { entry_id: entryId } = input
    const tags = input.tags ?? []
    if (entryId === undefined && tags.length === 0) {
      return yield* Effect.fail(invalidParameter("entry_id", "give entry_id or tags to choose what to restore"))
    }
    const ids =
      entryId !== undefined
        ? [entryId]
        : (yield* deps.s(deps.store.query({ tags, deleted: "only" }))).map((entry) => entry.id)
    let restored = 0
    for (const id of ids) {
      const result = yield* deps.s(
        deps.store.update(id, (current) => (isDeleted(current) ? restore(current) : undefined))
      )
      if (Option.isSome(result)) restored++
    }
    if (entryId !== undefined && restored === 0) {
      return yield* Effect.fail(notFound(`no deleted entry with id ${entryId}`))
    }
    return { status: "ok", restored } satisfies Reply<"restore_entry">
  })

/** The maintenance tools over `deps`. */
export const make = (deps: Deps) => ({
  updateEntry: updateEntry(deps),
  deleteEntry: deleteEntry(deps),
  restoreEntry: restoreEntry(deps)
})
