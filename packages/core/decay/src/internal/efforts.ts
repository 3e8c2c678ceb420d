/**
 * The effort tools' operations on a session's state: open, close, status, expand (with hysteresis on false
 * decays), collapse, switch and reopen. Each writes to the store before it queues its banner.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as Banner from "../Banner.ts"
import type { Effort } from "../Model.ts"
import type {
  CloseReply,
  CollapseReply,
  ExpandReply,
  OpenReply,
  ReopenReply,
  StatusEntry,
  StatusReply,
  SwitchReply
} from "../Session.ts"
import { DuplicateEffortId, EffortNotFound, EffortStateError, InvalidEffortInput } from "../SessionError.ts"
import * as SessionMetrics from "../SessionMetrics.ts"
import { validThreshold } from "./sessionConfig.ts"
import {
  active,
  append,
  baseThreshold,
  currentTurn,
  effortIn,
  find,
  finishExpansion,
  nowIso,
  type SessionCore,
  saveExpanded,
  saveManifest,
  saveSession,
  setActive,
  summarize,
  update,
  withoutActive
} from "./sessionCore.ts"

const hasForbiddenChar = (id: string): boolean => {
  for (let i = 0; i < id.length; i++) {
    const code = id.charCodeAt(i)
    if (code < 0x20 || code === 0x7f || id[i] === "/" || id[i] === "\\") return true
  }
  return false
}

/** An effort id names a log file: non-empty, trimmed, at most 120 characters, no slashes or control characters. */
const validateId = (id: unknown): InvalidEffortInput | undefined => {
  if (typeof id !== "string" || id.trim().length === 0) {
    return new InvalidEffortInput({ message: "An effort id must be a non-empty string." })
  }
  if (id !== id.trim() || id === "." || id === ".." || id.length > 120 || hasForbiddenChar(id)) {
    return new InvalidEffortInput({
      id,
      message: `Invalid effort id '${id}': use up to 120 characters without slashes, control characters or surrounding spaces.`
    })
  }
  return undefined
}

const duplicate = (id: string, existing: Effort) =>
  new DuplicateEffortId({
    id,
    message:
      `Effort '${id}' already exists (status '${existing.status}'). ` +
      (existing.status === "concluded"
        ? "Use reopen_effort to continue it, or choose another name."
        : "Use switch_effort to make it active, or choose another name.")
  })

export const openEffort = (core: SessionCore, input: { readonly name: string }) =>
  Effect.gen(function* () {
    const id = input?.name
    const invalid = validateId(id)
    if (invalid !== undefined) return yield* invalid
    const existing = find(core, id)
    if (existing !== undefined) return yield* duplicate(id, existing)
    const now = yield* nowIso
    setActive(core, undefined)
    core.manifest = [
      ...core.manifest,
      { id, status: "open", active: true, summary: null, raw_file: `efforts/${id}.jsonl`, created: now, updated: now }
    ]
    core.logs.set(id, [])
    core.logTokens.set(id, 0)
    yield* saveManifest(core)
    core.pendingBanners.push(Banner.started(id))
    return { status: "opened", effort_id: id } satisfies OpenReply
  })

/** The open effort to close: the one named, or the active one. */
const closing = (core: SessionCore, requested: string | undefined) =>
  Effect.gen(function* () {
    if (requested !== undefined) {
      const effort = core.manifest.find((entry) => entry.id === requested && entry.status === "open")
      if (effort === undefined) {
        return yield* new EffortNotFound({ id: requested, message: `No open effort with id '${requested}'.` })
      }
      return effort
    }
    const effort = active(core)
    if (effort === undefined) return yield* new EffortStateError({ message: "No active effort to close." })
    return effort
  })

export const closeEffort = (core: SessionCore, input?: { readonly id?: string | undefined }) =>
  Effect.gen(function* () {
    const effort = yield* closing(core, input?.id)
    const id = effort.id
    const wasActive = effort.active === true
    const summary = yield* summarize(core, id)
    const now = yield* nowIso
    update(core, id, (entry) => ({ ...withoutActive(entry), status: "concluded", summary, updated: now }))
    if (wasActive) {
      const next = core.manifest.find((entry) => entry.status === "open")
      if (next !== undefined) setActive(core, next.id)
    }
    core.closedThisTurn.add(id)
    yield* saveManifest(core)
    core.pendingBanners.push(Banner.concluded(id, summary))
    return { status: "concluded", effort_id: id, summary } satisfies CloseReply
  })

export const effortStatus = (core: SessionCore): StatusReply => {
  if (core.manifest.length === 0) return { efforts: [], message: "No efforts yet." }
  return {
    efforts: core.manifest.map((effort): StatusEntry => {
      const raw_tokens = core.logTokens.get(effort.id) ?? 0
      return effort.status === "open"
        ? { id: effort.id, status: "open", summary: effort.summary, active: effort.active === true, raw_tokens }
        : {
            id: effort.id,
            status: "concluded",
            summary: effort.summary,
            expanded: core.expanded.includes(effort.id),
            raw_tokens,
            summary_tokens: core.counter.count(effort.summary ?? "")
          }
    })
  }
}

/** A re-expansion soon after an auto-collapse is a false decay: the effort was still needed (hysteresis). */
const countFalseDecay = (core: SessionCore, id: string, turn: number) =>
  Effect.gen(function* () {
    const collapsedAt = core.autoCollapsedTurn[id]
    if (collapsedAt === undefined) return
    delete core.autoCollapsedTurn[id]
    if (turn - collapsedAt > core.settings.hysteresisWindow) return
    const count = (core.falseDecays[id] ?? 0) + 1
    core.falseDecays[id] = count
    core.decayThresholds[id] = baseThreshold(core, id) + core.settings.hysteresisExtension * count
    core.totals = { ...core.totals, false_decays: core.totals.false_decays + 1 }
    yield* Metric.update(SessionMetrics.false_decays, 1)
  })

export const expandEffort = (
  core: SessionCore,
  input: { readonly id: string; readonly decay_threshold?: number | undefined }
) =>
  Effect.gen(function* () {
    const effort = yield* effortIn(core, input?.id, "concluded", "expand")
    const id = effort.id
    if (core.expanded.includes(id)) {
      return yield* new EffortStateError({ id, message: `Effort '${id}' is already expanded.` })
    }
    if (input.decay_threshold !== undefined && !validThreshold(input.decay_threshold)) {
      return yield* new InvalidEffortInput({
        id,
        message: `decay_threshold must be a whole number of turns, at least 1 (got ${input.decay_threshold}).`
      })
    }
    const turn = currentTurn(core)
    yield* countFalseDecay(core, id, turn)
    if (input.decay_threshold !== undefined) core.decayThresholds[id] = input.decay_threshold
    core.expanded = [...core.expanded, id]
    core.expandedAt[id] = yield* nowIso
    core.lastReferenced[id] = turn
    core.expandedTurn[id] = turn
    const tokens = core.logTokens.get(id) ?? 0
    yield* saveExpanded(core)
    core.pendingBanners.push(Banner.expanded(id, tokens))
    return { status: "expanded", effort_id: id, tokens_loaded: tokens } satisfies ExpandReply
  })

export const collapseEffort = (core: SessionCore, input: { readonly id: string }) =>
  Effect.gen(function* () {
    const id = input?.id
    if (typeof id !== "string" || !core.expanded.includes(id)) {
      return yield* new EffortStateError({ id: String(id), message: `Effort '${id}' is not currently expanded.` })
    }
    finishExpansion(core, id, currentTurn(core))
    core.totals = { ...core.totals, manual_collapses: core.totals.manual_collapses + 1 }
    yield* Metric.update(SessionMetrics.manual_collapses, 1)
    yield* saveExpanded(core)
    yield* saveSession(core)
    core.pendingBanners.push(Banner.collapsed(id))
    return { status: "collapsed", effort_id: id } satisfies CollapseReply
  })

export const switchEffort = (core: SessionCore, input: { readonly id: string }) =>
  Effect.gen(function* () {
    const { id } = yield* effortIn(core, input?.id, "open", "switch to")
    setActive(core, id)
    yield* saveManifest(core)
    core.pendingBanners.push(Banner.switched(id))
    return { status: "switched", effort_id: id } satisfies SwitchReply
  })

export const reopenEffort = (core: SessionCore, input: { readonly id: string }) =>
  Effect.gen(function* () {
    const effort = yield* effortIn(core, input?.id, "concluded", "reopen")
    const id = effort.id
    const prior = effort.summary
    const now = yield* nowIso
    if (core.expanded.includes(id)) finishExpansion(core, id, currentTurn(core))
    delete core.summaryReferenced[id]
    delete core.autoCollapsedTurn[id]
    update(core, id, (entry) => ({ ...entry, status: "open", updated: now }))
    setActive(core, id)
    yield* append(core, id, [{ role: "system", content: Banner.REOPENED_LOG_LINE, ts: now }])
    yield* saveManifest(core)
    yield* saveExpanded(core)
    core.pendingBanners.push(Banner.reopened(id))
    return { status: "reopened", effort_id: id, prior_summary: prior } satisfies ReopenReply
  })
