/**
 * The reporting and memory tools of the awareness service: statuses, alerts, patterns, notes, context,
 * preferences and suppressions. Inputs are already decoded by the tools' schemas; what is checked here are the
 * rules that need more than a type (conditions, time intervals, time zones, labels).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { AwarenessError } from "../AwarenessError.ts"
import type { Input, Reply } from "../AwarenessTools.ts"
import * as Pattern from "../Pattern.ts"
import * as Suppression from "../Suppression.ts"
import { appendChangelog, type Deps, isDeleted, newEntry, softDelete } from "./entries.ts"
import { invalidParameter, notFound } from "./errors.ts"
import { isTimeZone, parseIso, toIso } from "./time.ts"

const reportStatus = (deps: Deps) =>
  Effect.fn("Awareness.reportStatus")(function* (input: Input<"report_status">) {
    const nowMs = yield* deps.now
    const data = {
      metrics: input.metrics,
      ...(input.inventory === undefined ? {} : { inventory: input.inventory }),
      ttl_sec: input.ttl_sec ?? 120,
      ...(input.headline === undefined ? {} : { headline: input.headline })
    }
    const entry = yield* newEntry("status", input.source, input.tags, data, nowMs)
    const result = yield* deps.s(deps.store.upsert({ type: "status", source: input.source }, () => entry))
    return { status: "ok", id: result.entry.id, source: input.source } satisfies Reply<"report_status">
  })

const reportAlert = (deps: Deps) =>
  Effect.fn("Awareness.reportAlert")(function* (input: Input<"report_alert">) {
    const { source, alert_id: alertId, labels } = input
    if (labels !== undefined && !Object.values(labels).every((v) => typeof v === "string")) {
      return yield* Effect.fail(invalidParameter("labels", "labels must map label names to strings", { value: labels }))
    }
    const resolved = input.resolved ?? false
    const nowMs = yield* deps.now
    const nowIso = toIso(nowMs)
    const incoming: Record<string, unknown> = {
      alert_id: alertId,
      level: input.level,
      alert_type: input.alert_type ?? "threshold",
      message: input.message,
      resolved,
      ...(input.details === undefined ? {} : { details: input.details }),
      ...(input.diagnostics === undefined ? {} : { diagnostics: input.diagnostics }),
      ...(input.metric === undefined ? {} : { metric: input.metric }),
      ...(input.value === undefined ? {} : { value: input.value }),
      ...(input.threshold === undefined ? {} : { threshold: input.threshold }),
      ...(labels === undefined ? {} : { labels })
    }
    const fresh = yield* newEntry(
      "alert",
      source,
      input.tags,
      { ...incoming, state_changes: resolved ? [] : [nowIso] },
      nowMs
    )
    const result = yield* deps.s(
      deps.store.upsert({ type: "alert", source, data: { alert_id: alertId } }, (existing) => {
        if (existing === undefined) return fresh
        const changes = Array.isArray(existing.data.state_changes) ? existing.data.state_changes : []
        const toggled = (existing.data.resolved === true) !== resolved
        return {
          ...existing,
          tags: [...input.tags],
          updated: nowIso,
          data: { ...existing.data, ...incoming, state_changes: toggled ? [...changes, nowIso].slice(-20) : changes }
        }
      })
    )
    const action = resolved ? "resolved" : "reported"
    return { status: "ok", id: result.entry.id, action, alert_id: alertId } satisfies Reply<"report_alert">
  })

const learnPattern = (deps: Deps) =>
  Effect.fn("Awareness.learnPattern")(function* (input: Input<"learn_pattern">) {
    const conditions = input.conditions ?? {}
    const problem = Pattern.validateConditions(conditions)
    if (problem !== undefined) {
      return yield* Effect.fail(
        invalidParameter("conditions", problem.message, {
          value: problem.key,
          valid: Pattern.conditionKeys,
          suggestion: problem.suggestion
        })
      )
    }
    const data = {
      description: input.description,
      conditions,
      effect: input.effect ?? "",
      learned_from: input.learned_from ?? "conversation"
    }
    const entry = yield* newEntry("pattern", input.source, input.tags, data, yield* deps.now)
    yield* deps.s(deps.store.insert(entry))
    return { status: "ok", id: entry.id } satisfies Reply<"learn_pattern">
  })

/** What changed between a stored note and a re-remembered one (empty when nothing did). */
const noteChanges = (
  existing: { readonly data: Record<string, unknown>; readonly tags: ReadonlyArray<string> },
  next: { readonly description: string; readonly content?: string; readonly contentType: string },
  tags: ReadonlyArray<string>
) => {
  const changed: Record<string, unknown> = {}
  if (existing.data.description !== next.description) changed.description = existing.data.description
  if (next.content !== undefined && existing.data.content !== next.content) {
    changed.content = existing.data.content ?? null
  }
  if (existing.data.content_type !== next.contentType) changed.content_type = existing.data.content_type
  if (JSON.stringify([...existing.tags].sort()) !== JSON.stringify([...tags].sort())) changed.tags = existing.tags
  return changed
}

const remember = (deps: Deps) =>
  Effect.fn("Awareness.remember")(function* (input: Input<"remember">) {
    const { source, tags, description, logical_key: logicalKey } = input
    const raw = input.content
    const content = raw === undefined ? undefined : typeof raw === "string" ? raw : JSON.stringify(raw)
    const contentType = input.content_type ?? "text/plain"
    const nowMs = yield* deps.now
    const nowIso = toIso(nowMs)
    const data: Record<string, unknown> = {
      description,
      ...(content === undefined ? {} : { content }),
      content_type: contentType,
      learned_from: input.learned_from ?? "conversation"
    }
    const fresh = yield* newEntry("note", source, tags, data, nowMs, { logical_key: logicalKey })
    if (logicalKey === undefined) {
      yield* deps.s(deps.store.insert(fresh))
      return { status: "ok", id: fresh.id } satisfies Reply<"remember">
    }
    const result = yield* deps.s(
      deps.store.upsert({ type: "note", source, logical_key: logicalKey }, (existing) => {
        if (existing === undefined) return fresh
        const next = { description, contentType, ...(content === undefined ? {} : { content }) }
        const changed = noteChanges(existing, next, tags)
        if (Object.keys(changed).length === 0) return existing
        return {
          ...existing,
          tags: [...tags],
          updated: nowIso,
          data: {
            ...existing.data,
            description,
            ...(content === undefined ? {} : { content }),
            content_type: contentType,
            changelog: appendChangelog(existing.data, nowIso, changed)
          }
        }
      })
    )
    const action = Option.isSome(result.previous) ? "updated" : "created"
    return { status: "ok", id: result.entry.id, action } satisfies Reply<"remember">
  })

const addContext = (deps: Deps) =>
  Effect.fn("Awareness.addContext")(function* (input: Input<"add_context">) {
    const nowMs = yield* deps.now
    const expires = toIso(nowMs + (input.expires_days ?? 30) * 86_400_000)
    const data = { description: input.description }
    const entry = yield* newEntry("context", input.source, input.tags, data, nowMs, { expires })
    yield* deps.s(deps.store.insert(entry))
    return { status: "ok", id: entry.id, expires } satisfies Reply<"add_context">
  })

const setPreference = (deps: Deps) =>
  Effect.fn("Awareness.setPreference")(function* (input: Input<"set_preference">) {
    const { key, value } = input
    const scope = input.scope ?? "global"
    if (key === "timezone" && !isTimeZone(value)) {
      return yield* Effect.fail(
        invalidParameter("value", `timezone must be an IANA time zone such as "Europe/Berlin"`, { value })
      )
    }
    const nowMs = yield* deps.now
    const fresh = yield* newEntry("preference", scope, [], { key, value, scope }, nowMs)
    const result = yield* deps.s(
      deps.store.upsert({ type: "preference", data: { key, scope } }, (existing) =>
        existing === undefined ? fresh : { ...existing, updated: toIso(nowMs), data: { ...existing.data, value } }
      )
    )
    return { status: "ok", id: result.entry.id, key, scope } satisfies Reply<"set_preference">
  })

/** `suppress_alert`'s level: `level`, or its alias `suppress_level`; both only with the same value. */
const suppressLevel = (input: Input<"suppress_alert">) => {
  const { level, suppress_level: alias } = input
  if (level !== undefined && alias !== undefined && level !== alias) {
    return Effect.fail(
      invalidParameter("suppress_level", `level and suppress_level disagree ("${level}" vs "${alias}"): give one`, {
        value: alias,
        valid: ["warning", "critical"]
      })
    )
  }
  return Effect.succeed(level ?? alias ?? "warning")
}

/**
 * The source a suppression is stored under (`""`: every source). A suppression must say what it silences: a source,
 * tags or a metric; every source only when asked for with `source: "*"`, so an empty or missing body never hides
 * every warning.
 */
const suppressedSource = (input: Input<"suppress_alert">): Effect.Effect<string, AwarenessError> => {
  const source = input.source?.trim() ?? ""
  if (source === "*") return Effect.succeed("")
  if (source === "" && (input.tags ?? []).length === 0 && (input.metric ?? "").trim() === "") {
    return Effect.fail(
      invalidParameter(
        "source",
        'suppress_alert needs a source, tags or a metric to match; to silence every source, pass source: "*".'
      )
    )
  }
  return Effect.succeed(input.source ?? "")
}

const suppressAlert = (deps: Deps) =>
  Effect.fn("Awareness.suppressAlert")(function* (input: Input<"suppress_alert">) {
    const level = yield* suppressLevel(input)
    const intervals = input.time_intervals
    if (intervals !== undefined) {
      const problem = Suppression.validateTimeIntervals(intervals)
      if (problem !== undefined) {
        return yield* Effect.fail(invalidParameter("time_intervals", problem, { value: intervals }))
      }
    }
    const source = yield* suppressedSource(input)
    const nowMs = yield* deps.now
    const expires = toIso(nowMs + (input.duration_minutes ?? 60) * 60_000)
    const data = {
      metric: input.metric ?? null,
      suppress_level: level,
      escalation_override: input.escalation_override ?? true,
      reason: input.reason ?? "",
      ...(intervals === undefined ? {} : { time_intervals: intervals })
    }
    const entry = yield* newEntry("suppression", source, input.tags ?? [], data, nowMs, { expires })
    yield* deps.s(deps.store.insert(entry))
    return { status: "ok", id: entry.id, expires } satisfies Reply<"suppress_alert">
  })

const clearSuppression = (deps: Deps) =>
  Effect.fn("Awareness.clearSuppression")(function* (input: Input<"clear_suppression">) {
    const id = input.entry_id
    const nowMs = yield* deps.now
    const result = yield* deps.s(
      deps.store.update(id, (current) => {
        const expires = parseIso(current.expires)
        if (current.type !== "suppression" || isDeleted(current) || (expires !== undefined && expires <= nowMs)) {
          return undefined
        }
        return softDelete(current, nowMs)
      })
    )
    if (Option.isNone(result)) return yield* Effect.fail(notFound(`no active suppression with id ${id}`))
    return { status: "ok", id, cleared: true } satisfies Reply<"clear_suppression">
  })

/** The reporting and memory tools over `deps`. */
export const make = (deps: Deps) => ({
  reportStatus: reportStatus(deps),
  reportAlert: reportAlert(deps),
  learnPattern: learnPattern(deps),
  remember: remember(deps),
  addContext: addContext(deps),
  setPreference: setPreference(deps),
  suppressAlert: suppressAlert(deps),
  clearSuppression: clearSuppression(deps)
})
