/**
 * `processTurn` as named stages: log the exchange (to the effort active when the turn began), summarize again an
 * effort closed during the turn, run decay (collapses, banners, counters), then persist and measure.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as Banner from "../Banner.ts"
import * as Decay from "../Decay.ts"
import type { LogMessage } from "../Model.ts"
import * as References from "../References.ts"
import type { TurnInput, TurnResult } from "../Session.ts"
import * as SessionMetrics from "../SessionMetrics.ts"
import type { SessionCore } from "./sessionCore.ts"
import * as Core from "./sessionCore.ts"
import { compute, emitGauges } from "./sessionMetrics.ts"

const stringify = (value: unknown): string => {
  if (typeof value === "string") return value
  try {
    return JSON.stringify(value) ?? ""
  } catch {
    return String(value)
  }
}

/** The turn's log lines: the user message, any tool calls with their results, then the assistant's text. */
const exchange = (input: TurnInput, user: string, logged: string, now: string): Array<LogMessage> => {
  const messages: Array<LogMessage> = [{ role: "user", content: user, ts: now }]
  const calls = input?.tool_calls ?? []
  if (calls.length > 0) {
    messages.push({
      role: "assistant",
      content: "",
      ts: now,
      tool_calls: calls.map((call) => ({ id: call.id, name: call.name, arguments: call.arguments }))
    })
    for (const call of calls) {
      messages.push({ role: "tool", content: stringify(call.result), ts: now, tool_call_id: call.id })
    }
  }
  messages.push({ role: "assistant", content: logged, ts: now })
  return messages
}

/**
 * The closing exchange belongs to the effort: summarize again now that it is logged. If that second summary
 * fails, the summary made at close time stays (the turn is already stored).
 */
const resummarize = (core: SessionCore, target: string | undefined) =>
  Effect.gen(function* () {
    if (target !== undefined && core.closedThisTurn.has(target) && Core.find(core, target)?.status === "concluded") {
      const summary = yield* Core.summarize(core, target).pipe(
        Effect.tapError((error) =>
          Effect.logWarning(`keeping the close-time summary of '${target}': ${error.message}`)
        ),
        Effect.orElseSucceed(() => undefined)
      )
      if (summary !== undefined) {
        Core.update(core, target, (entry) => ({ ...entry, summary }))
        yield* Core.saveManifest(core)
      }
    }
    core.closedThisTurn.clear()
  })

/** Runs decay on the turn's two messages: collapses what went unreferenced; returns the decayed ids and banners. */
const decay = (core: SessionCore, turn: number, user: string, logged: string) =>
  Effect.gen(function* () {
    const config = core.settings.config
    const result = Decay.checkPrepared(
      Core.decayState(core, config.token_budget !== undefined),
      turn,
      [References.prepareMessage(user), References.prepareMessage(logged)],
      config,
      core.cache
    )
    const stillExpanded = new Set(result.state.expanded)
    const banners: Array<string> = []
    let freed = 0
    for (const collapse of result.collapses) {
      freed += core.logTokens.get(collapse.id) ?? 0
      Core.finishExpansion(core, collapse.id, turn)
      core.autoCollapsedTurn[collapse.id] = turn
      banners.push(Banner.autoCollapsed(collapse.id, collapse.inactive_turns, collapse.reason === "token_budget"))
    }
    core.expanded = core.expanded.filter((id) => stillExpanded.has(id))
    core.lastReferenced = { ...result.state.last_referenced_turn }
    core.summaryReferenced = { ...result.state.summary_last_referenced_turn }
    if (result.collapses.length > 0) {
      core.totals = {
        ...core.totals,
        auto_collapses: core.totals.auto_collapses + result.collapses.length,
        tokens_saved_by_decay: core.totals.tokens_saved_by_decay + freed
      }
      yield* Metric.update(SessionMetrics.auto_collapses, result.collapses.length)
      yield* Metric.update(SessionMetrics.tokens_saved_by_decay, freed)
    }
    return { decayed: result.decayed, banners }
  })

/** Completes a turn: logs it, runs decay and returns banners and metrics. */
export const processTurn = (core: SessionCore, input: TurnInput) =>
  Effect.gen(function* () {
    const turn = core.turnCount + 1
    const now = yield* Core.nowIso
    const user = typeof input?.user === "string" ? input.user : ""
    const assistantText = typeof input?.assistant === "string" ? input.assistant : ""
    const toolBanners = core.pendingBanners
    const logged = toolBanners.length === 0 ? assistantText : `${toolBanners.join("\n\n")}\n\n${assistantText}`
    // Route: the effort active when the turn began (even if the turn closed it), else the one active now.
    const startedIn = core.activeAtTurnStart
    const target = startedIn !== undefined && Core.find(core, startedIn) ? startedIn : Core.active(core)?.id
    yield* Core.append(core, target, exchange(input, user, logged, now))
    // The exchange is stored: the turn is complete from here on.
    core.turnCount = turn
    core.pendingBanners = []
    yield* resummarize(core, target)
    const { decayed, banners } = yield* decay(core, turn, user, logged)
    core.activeAtTurnStart = Core.active(core)?.id
    yield* Core.saveExpanded(core)
    yield* Core.saveSession(core)
    const metrics = compute(core)
    yield* emitGauges(metrics)
    return {
      turn,
      decayed,
      banners: [...toolBanners, ...banners],
      response: banners.length === 0 ? logged : `${logged}\n\n${banners.join("\n")}`,
      metrics
    } satisfies TurnResult
  })
