/**
 * The briefing as an agent reads it from `get_briefing`: the compact default (no `evaluation`, no timestamps on
 * healthy sources), the full briefing with `explain`, or plain text with one line per item, most severe first.
 * Every byte of a briefing costs the agent tokens; the full briefing stays the `awareness://briefing` resource for
 * operators.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { Briefing, Evaluation, type SourceGroup, type SourceLine } from "./Briefing.ts"
import { setOwn } from "./internal/data.ts"
import { groupHeadline } from "./Mention.ts"

/**
 * Options: `explain` (default `false`) keeps the `evaluation` block and healthy sources' `last_report`.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly explain?: boolean
}

/**
 * What `get_briefing` returns as JSON: a {@link Briefing} whose `evaluation` is present only with `explain`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const View = Schema.Struct({ ...Briefing.fields, evaluation: Schema.optionalKey(Evaluation) }).annotate({
  identifier: "BriefingView"
})

/**
 * What `get_briefing` returns as JSON.
 *
 * @category models
 * @since 0.1.0
 */
export type View = typeof View.Type

/**
 * The formats of `get_briefing`: `json` (the default) and `text`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Format = Schema.Literals(["json", "text"])

/**
 * A format of `get_briefing`.
 *
 * @category models
 * @since 0.1.0
 */
export type Format = typeof Format.Type

/**
 * The briefing as JSON for an agent: without `explain`, the `evaluation` block and healthy (`ok`) sources'
 * `last_report` are left out; with it, the briefing is returned as it is.
 *
 * @category combinators
 * @since 0.1.0
 */
export const json = (briefing: Briefing, options: Options = {}): View => {
  if (options.explain === true) return briefing
  const { evaluation: _evaluation, sources, ...rest } = briefing
  const compact: Record<string, SourceLine> = {}
  for (const [name, line] of Object.entries(sources)) {
    if (line.status === "ok") {
      const { last_report: _lastReport, ...healthy } = line
      setOwn(compact, name, healthy)
    } else {
      setOwn(compact, name, line)
    }
  }
  return { ...rest, sources: compact }
}

const rank: Record<string, number> = { critical: 0, stale: 1, warning: 2, info: 3 }

const marks = (line: SourceLine): string =>
  `${line.alerts !== undefined ? ` (${line.alerts} alerts)` : ""}${line.escalated === true ? " (escalated)" : ""}` +
  `${line.flapping === true ? " (flapping)" : ""}${line.resurfaced === true ? " (suppression expired)" : ""}`

const sourceText = (name: string, line: SourceLine): string =>
  `${line.status.toUpperCase()} ${name}${line.stale === true ? " (stopped reporting)" : ""}: ${line.headline ?? ""}${marks(line)}`

const groupText = (group: SourceGroup): string => {
  const more = group.count > group.sources.length ? ", …" : ""
  return `${group.status.toUpperCase()} ${group.count} sources (${group.sources.join(", ")}${more}): ${groupHeadline(group)}`
}

/** The problem lines, most severe first (within a status, in the briefing's order). */
const problemLines = (briefing: Briefing): Array<string> => {
  const grouped = new Set<string>()
  for (const group of briefing.groups ?? []) {
    if (group.count === group.sources.length) for (const name of group.sources) grouped.add(name)
  }
  const problems: Array<{ readonly text: string; readonly rank: number }> = []
  for (const group of briefing.groups ?? []) problems.push({ text: groupText(group), rank: rank[group.status] ?? 4 })
  for (const [name, line] of Object.entries(briefing.sources)) {
    if (line.headline === undefined) continue
    // A source shown in full in its group line is not repeated, unless its own line says more (another headline).
    const group = briefing.groups?.find((g) => g.sources.includes(name))
    const inGroup = group !== undefined && (group.headlines ?? [group.headline]).includes(line.headline)
    if (grouped.has(name) && inGroup && line.resurfaced !== true) continue
    problems.push({ text: sourceText(name, line), rank: rank[line.status] ?? 4 })
  }
  problems.sort((a, b) => a.rank - b.rank)
  return problems.map((problem) => problem.text)
}

const evaluationText = (evaluation: typeof Evaluation.Type): string =>
  `EVALUATION ${Object.entries(evaluation)
    .map(([key, value]) => `${key} ${value}`)
    .join(", ")}`

/**
 * The briefing as plain text, one line per item, most severe first: the summary (with the number of active
 * suppressions), then problem sources and groups (`CRITICAL db: Database down`), what did not fit, upcoming items
 * (`UPCOMING in 25 min (gcal): Q3 planning`), delivered intentions (`INTENTION i-1: Call the plumber`) and the
 * healthy sources as a count. With `explain`, the first line says when it was generated and an `EVALUATION` line
 * closes it.
 *
 * @category combinators
 * @since 0.1.0
 */
export const text = (briefing: Briefing, options: Options = {}): string => {
  const suppressions =
    briefing.active_suppressions > 0
      ? ` ${briefing.active_suppressions} suppression${briefing.active_suppressions === 1 ? "" : "s"} active.`
      : ""
  const head = options.explain === true ? `${briefing.generated} ` : ""
  const lines = [`${head}${briefing.summary}${suppressions}`, ...problemLines(briefing)]
  const omitted = Object.values(briefing.omitted?.sources ?? {}).reduce((a, b) => a + b, 0)
  if (omitted > 0) {
    lines.push(`+${omitted} more source${omitted === 1 ? "" : "s"} need${omitted === 1 ? "s" : ""} attention`)
  }
  for (const item of briefing.upcoming) {
    const due = item.in_minutes === undefined ? "" : ` in ${item.in_minutes} min`
    lines.push(`UPCOMING${due} (${item.source}): ${item.summary}`)
  }
  if ((briefing.omitted?.upcoming ?? 0) > 0) lines.push(`+${briefing.omitted?.upcoming} more upcoming`)
  for (const intention of briefing.fired_intentions ?? []) lines.push(`INTENTION ${intention.id}: ${intention.goal}`)
  const intentions = briefing.omitted?.intentions ?? 0
  if (intentions > 0) lines.push(`+${intentions} more fired reminder${intentions === 1 ? "" : "s"}`)
  if (briefing.attention_needed) {
    let ok = briefing.ok_sources ?? 0
    for (const line of Object.values(briefing.sources)) if (line.status === "ok") ok++
    if (ok > 0) lines.push(`OK ${ok} source${ok === 1 ? "" : "s"}`)
  }
  if (options.explain === true) lines.push(evaluationText(briefing.evaluation))
  return lines.join("\n")
}

/**
 * The briefing in the requested format (`json`, the default, or `text`), as `get_briefing` returns it.
 *
 * @category combinators
 * @since 0.1.0
 */
export const render = (briefing: Briefing, options: Options & { readonly format?: Format }): View | string =>
  options.format === "text" ? text(briefing, options) : json(briefing, options)
