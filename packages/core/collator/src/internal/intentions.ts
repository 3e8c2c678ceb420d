/**
 * The intention tools of the awareness service: `remind`, `update_intention` (a constrained state machine) and
 * `acted_on` (which also acknowledges alerts and fired intentions).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { AwarenessError } from "../AwarenessError.ts"
import type { Input, Reply } from "../AwarenessTools.ts"
import { appendChangelog, type Deps, newEntry, transitions, uuid, writeTime } from "./entries.ts"
import { invalidParameter } from "./errors.ts"
import { parseIso, toIso } from "./time.ts"

const remind = (deps: Deps) =>
  Effect.fn("Awareness.remind")(function* (input: Input<"remind">) {
    const data = {
      goal: input.goal,
      state: "pending",
      ...(input.deliver_at === undefined ? {} : { deliver_at: input.deliver_at }),
      ...(input.constraints === undefined ? {} : { constraints: input.constraints }),
      urgency: input.urgency ?? "normal",
      ...(input.recurrence === undefined ? {} : { recurrence: input.recurrence }),
      learned_from: input.learned_from ?? "conversation"
    }
    const entry = yield* newEntry("intention", input.source, input.tags, data, yield* deps.now)
    yield* deps.s(deps.store.insert(entry))
    return { status: "ok", id: entry.id, state: "pending" } satisfies Reply<"remind">
  })

const updateIntention = (deps: Deps) =>
  Effect.fn("Awareness.updateIntention")(function* (input: Input<"update_intention">) {
    const { entry_id: id, state, reason, deliver_at: deliverAt } = input
    const entry = yield* deps.liveEntry(id, ["intention"])
    const current = typeof entry.data.state === "string" ? entry.data.state : "pending"
    const allowed = transitions[current] ?? []
    if (!allowed.includes(state)) {
      return yield* Effect.fail(
        invalidParameter("state", `an intention cannot go from ${current} to ${state}`, {
          value: state,
          valid: allowed
        })
      )
    }
    const nowMs = yield* deps.now
    if (state === "snoozed" && (deliverAt === undefined || (parseIso(deliverAt) ?? 0) <= nowMs)) {
      return yield* Effect.fail(
        invalidParameter("deliver_at", "snoozing needs a future deliver_at: the intention fires again then")
      )
    }
    const result = yield* deps.s(
      deps.store.update(id, (latest) => {
        if ((latest.data.state ?? "pending") !== current) return undefined
        const at = writeTime(latest, nowMs)
        const changed: Record<string, unknown> = { state: current }
        if (deliverAt !== undefined) changed.deliver_at = latest.data.deliver_at ?? null
        return {
          ...latest,
          updated: at,
          data: {
            ...latest.data,
            state,
            ...(reason === undefined ? {} : { state_reason: reason }),
            ...(deliverAt === undefined ? {} : { deliver_at: deliverAt }),
            changelog: appendChangelog(latest.data, at, changed)
          }
        }
      })
    )
    if (Option.isNone(result)) {
      return yield* Effect.fail(
        new AwarenessError({
          code: "unavailable",
          message: "the intention changed concurrently; retry",
          retryable: true
        })
      )
    }
    return { status: "ok", id } satisfies Reply<"update_intention">
  })

const actedOn = (deps: Deps) =>
  Effect.fn("Awareness.actedOn")(function* (input: Input<"acted_on">) {
    const { entry_id: entryId, action, platform, detail } = input
    const entry = yield* deps.liveEntry(entryId)
    const tags = input.tags ?? entry.tags
    const nowMs = yield* deps.now
    const timestamp = toIso(nowMs)
    const actionId = yield* uuid
    const record = {
      id: actionId,
      action,
      timestamp,
      tags,
      ...(platform === undefined ? {} : { platform }),
      ...(detail === undefined ? {} : { detail })
    }
    yield* deps.s(
      deps.store.update(entryId, (current) => ({
        ...current,
        data: {
          ...current.data,
          ...(current.type === "alert" ? { acknowledged_at: timestamp } : {}),
          acted_on: [...(Array.isArray(current.data.acted_on) ? current.data.acted_on : []), record].slice(-20)
        }
      }))
    )
    return { status: "ok", id: actionId, entry_id: entryId, action, timestamp } satisfies Reply<"acted_on">
  })

/** The intention tools over `deps`. */
export const make = (deps: Deps) => ({
  remind: remind(deps),
  updateIntention: updateIntention(deps),
  actedOn: actedOn(deps)
})
