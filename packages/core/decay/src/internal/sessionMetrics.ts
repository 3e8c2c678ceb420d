/**
 * A session's metrics: computed from its state (token sums over the context's parts, ratios over the running
 * totals) and published to the Effect gauges of `SessionMetrics`.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import type { DecayMetrics } from "../SessionMetrics.ts"
import * as SessionMetrics from "../SessionMetrics.ts"
import { ambientStart, summaryLine, visibleSummaries } from "./sessionContext.ts"
import type { SessionCore } from "./sessionCore.ts"

/** Tokens of the system message: the prompt, plus the summary lines (cached per summary) and fixed sections. */
const systemTokens = (core: SessionCore) => {
  const hasConcluded = core.manifest.some((effort) => effort.status === "concluded")
  let system = core.settings.systemPromptTokens + (hasConcluded ? core.settings.fixedSystemTokens : 0)
  for (const effort of visibleSummaries(core)) {
    const cached = core.summaryLineTokens.get(effort.id)
    if (cached !== undefined && cached.summary === effort.summary) system += cached.tokens
    else {
      const tokens = core.counter.count(summaryLine(effort))
      core.summaryLineTokens.set(effort.id, { summary: effort.summary, tokens })
      system += tokens
    }
  }
  return system
}

/** Token sums of the working context's parts and of the whole session. */
const tokenSums = (core: SessionCore) => {
  let ambientWindow = 0
  for (let i = ambientStart(core); i < core.ambient.length; i++) ambientWindow += core.ambientTokens[i]!
  let expansion = 0
  for (const id of core.expanded) expansion += core.logTokens.get(id) ?? 0
  let open = 0
  let allLogs = 0
  for (const effort of core.manifest) {
    const tokens = core.logTokens.get(effort.id) ?? 0
    allLogs += tokens
    if (effort.status === "open") open += tokens
  }
  const context = systemTokens(core) + ambientWindow + expansion + open
  const naive = core.settings.systemPromptTokens + core.ambientTotal + allLogs
  return { context, expansion, naive }
}

export const compute = (core: SessionCore): DecayMetrics => {
  const { context, expansion, naive } = tokenSums(core)
  const totals = core.totals
  const collapses = totals.manual_collapses + totals.auto_collapses
  return {
    turn: core.turnCount,
    auto_collapses: totals.auto_collapses,
    manual_collapses: totals.manual_collapses,
    avg_expansion_duration:
      totals.completed_expansions === 0 ? 0 : totals.expansion_turns / totals.completed_expansions,
    manual_vs_auto_collapse: collapses === 0 ? 0 : totals.manual_collapses / collapses,
    false_decays: totals.false_decays,
    false_decay_rate: totals.auto_collapses === 0 ? 0 : totals.false_decays / totals.auto_collapses,
    tokens_saved_by_decay: totals.tokens_saved_by_decay,
    context_tokens: context,
    expansion_tokens: expansion,
    expansion_overhead: context === 0 ? 0 : expansion / context,
    savings_vs_naive: naive <= 0 ? 0 : Math.max(0, 1 - context / naive)
  }
}

export const emitGauges = (metrics: DecayMetrics) =>
  Effect.all(
    [
      Metric.update(SessionMetrics.avg_expansion_duration, metrics.avg_expansion_duration),
      Metric.update(SessionMetrics.manual_vs_auto_collapse, metrics.manual_vs_auto_collapse),
      Metric.update(SessionMetrics.false_decay_rate, metrics.false_decay_rate),
      Metric.update(SessionMetrics.context_tokens, metrics.context_tokens),
      Metric.update(SessionMetrics.expansion_tokens, metrics.expansion_tokens),
      Metric.update(SessionMetrics.expansion_overhead, metrics.expansion_overhead),
      Metric.update(SessionMetrics.savings_vs_naive, metrics.savings_vs_naive)
    ],
    { discard: true }
  )
