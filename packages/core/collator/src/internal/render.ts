/**
 * Rendering: the collator's model (one line per source, counters, due and upcoming intentions) written out as a
 * {@link Briefing} at a given level of detail ({@link Limits}). The budget fitter picks the limits.
 *
 * @since 0.1.0
 */
import type { Briefing, Evaluation, FiredIntention, SourceGroup, SourceLine, UpcomingItem } from "../Briefing.ts"
import type { Entry } from "../Entry.ts"
import { composeMention, composeSummary } from "../Mention.ts"
import { dataOf, groupBy, setOwn, str, tagsOf } from "./data.ts"
import { sentence, truncate } from "./text.ts"

/** One source as the collator judged it. */
export interface Line {
  readonly source: string
  readonly status: SourceLine["status"]
  readonly lastReport: string | null
  readonly headline: string | undefined
  readonly drillDown: string | undefined
  readonly alertCount: number
  readonly groupKey: string | undefined
  /** When its headline alert was last updated, else when its status was reported: recency orders sources. */
  readonly time: number
  readonly stale: boolean
  readonly resurfaced: boolean
  readonly flapping: boolean
  readonly escalated: boolean
}

export interface Limits {
  /** How many problem items (groups or single lines, most severe first) keep their detail. */
  readonly detailed: number
  readonly textChars: number | undefined
  readonly maxNames: number | undefined
  readonly maxIntentions: number
  readonly maxUpcoming: number
  readonly listOk: boolean
  readonly summaryChars: number | undefined
  /** Whether sources with the same problem fold into their group line (`false`: each keeps its own line). */
  readonly fold: boolean
}

const statusOrder: Record<SourceLine["status"], number> = { critical: 0, stale: 1, warning: 2, info: 3, ok: 4 }

/** Everything a briefing says, before its level of detail is chosen. */
export interface Model {
  readonly now: string
  readonly stalenessSec: number
  readonly lines: ReadonlyArray<Line>
  readonly activeAlerts: number
  readonly activeSuppressions: number
  readonly evaluation: Required<Evaluation>
  readonly due: ReadonlyArray<{ readonly entry: Entry }>
  readonly pending: number
  readonly upcoming: ReadonlyArray<UpcomingItem>
}

export const cut = (text: string, max: number | undefined): string => (max === undefined ? text : truncate(text, max))

const toSourceLine = (line: Line, textChars: number | undefined): SourceLine => {
  const out: { -readonly [K in keyof SourceLine]: SourceLine[K] } = {
    status: line.status,
    last_report: line.lastReport
  }
  if (line.headline !== undefined) out.headline = cut(line.headline, textChars)
  if (line.drillDown !== undefined) out.drill_down = line.drillDown
  if (line.alertCount > 1) out.alerts = line.alertCount
  if (line.stale) out.stale = true
  if (line.resurfaced) out.resurfaced = true
  if (line.flapping) out.flapping = true
  if (line.escalated) out.escalated = true
  return out
}

export type Item = {
  readonly lines: ReadonlyArray<Line>
  readonly status: SourceLine["status"]
  readonly weight: number
}

export interface Prepared {
  /** Groups of sources with the same problem (folded) and single lines, most severe first. */
  readonly items: ReadonlyArray<Item>
  /** Every problem line on its own, most severe first. */
  readonly lineItems: ReadonlyArray<Item>
  /** The groups with more than one source. */
  readonly multi: ReadonlyArray<Item>
  readonly okLines: ReadonlyArray<Line>
  readonly names: Readonly<Record<"critical" | "warning" | "info" | "stale", ReadonlyArray<string>>>
}

const byStatusThenWeight = (a: Item, b: Item) => statusOrder[a.status] - statusOrder[b.status] || b.weight - a.weight

/** Ranks what needs attention once: groups of sources with the same problem and single lines, most severe first. */
export const prepare = (model: Model): Prepared => {
  const problems = model.lines.filter((line) => line.status !== "ok")
  const byKey = groupBy(problems, (line) => line.groupKey ?? `\u0001${line.source}`)
  const items: Array<Item> = []
  const multi: Array<Item> = []
  for (const lines of byKey.values()) {
    const first = lines[0] as Line
    const item = { lines, status: first.status, weight: lines.length > 1 ? lines.length : first.alertCount }
    items.push(item)
    if (lines.length > 1) multi.push(item)
  }
  items.sort(byStatusThenWeight)
  multi.sort(byStatusThenWeight)
  const lineItems =
    multi.length === 0
      ? items
      : problems
          .map((line) => ({ lines: [line], status: line.status, weight: line.alertCount }))
          .sort(byStatusThenWeight)
  const names = {
    critical: [] as Array<string>,
    warning: [] as Array<string>,
    info: [] as Array<string>,
    stale: [] as Array<string>
  }
  for (const line of problems) {
    names[line.status as keyof typeof names].push(line.source)
    if (line.stale) names.stale.push(line.source)
  }
  // The summary names sources by name, as upstream does (the source lines carry the order of severity and recency).
  for (const list of Object.values(names)) list.sort()
  return { items, lineItems, multi, okLines: model.lines.filter((line) => line.status === "ok"), names }
}

/** The problem items shown in detail (single lines and group lines) and, by status, how many sources were left out. */
const detailItems = (prepared: Prepared, limits: Limits) => {
  const all = limits.fold ? prepared.items : prepared.lineItems
  const omittedCounts: Record<string, number> = {}
  for (let i = limits.detailed; i < all.length; i++) {
    const item = all[i] as Item
    omittedCounts[item.status] = (omittedCounts[item.status] ?? 0) + item.lines.length
  }
  const omittedAlerts = { count: 0 }
  for (let i = limits.detailed; i < all.length; i++) {
    for (const line of (all[i] as Item).lines) omittedAlerts.count += line.alertCount
  }
  /** `folded`: the group line stands for its sources' own lines, so it lists their distinct messages. */
  const toGroup = (item: Item, maxNames: number | undefined, folded: boolean): SourceGroup => {
    const first = item.lines[0] as Line
    const group: { -readonly [K in keyof SourceGroup]: SourceGroup[K] } = {
      status: first.status,
      headline: cut(first.headline ?? "", limits.textChars),
      sources: item.lines.slice(0, maxNames ?? item.lines.length).map((line) => line.source),
      count: item.lines.length,
      drill_down: "awareness://alerts"
    }
    // Every distinct message stays visible (the first few) or counted: one alert_id on two sources may say two
    // things. Unfolded, each source's own line carries its message and the group only counts them.
    const distinct = [...new Set(item.lines.map((line) => line.headline ?? ""))]
    if (distinct.length > 1) {
      if (folded) {
        const others = distinct.slice(1, Math.max(2, maxNames ?? distinct.length))
        group.headlines = others.map((text) => cut(text, limits.textChars))
      }
      group.distinct = distinct.length
    }
    return group
  }
  const groups: Array<SourceGroup> = []
  const singles: Array<Line> = []
  for (const item of all.slice(0, limits.detailed)) {
    if (item.lines.length === 1) singles.push(item.lines[0] as Line)
    else groups.push(toGroup(item, limits.maxNames, true))
  }
  // Unfolded, every source keeps its own line and the groups are added on top (the caller shows every line then).
  if (!limits.fold) for (const item of prepared.multi) groups.push(toGroup(item, undefined, false))
  return {
    groups,
    singles,
    omittedCounts,
    omittedAlerts: omittedAlerts.count,
    everything: limits.detailed >= all.length
  }
}

/** The `sources` record: the detailed lines and, when listed, the ok ones. */
const sourceLines = (
  model: Model,
  prepared: Prepared,
  limits: Limits,
  singles: ReadonlyArray<Line>,
  everything: boolean
): Record<string, SourceLine> => {
  const sources: Record<string, SourceLine> = {}
  if (limits.listOk && everything) {
    // Everything fits: every source in the model's order (most severe first, then the most recent).
    const single = new Set(singles)
    for (const line of model.lines) {
      if (line.status === "ok" || single.has(line)) setOwn(sources, line.source, toSourceLine(line, limits.textChars))
    }
  } else {
    for (const line of singles) setOwn(sources, line.source, toSourceLine(line, limits.textChars))
    if (limits.listOk)
      for (const line of prepared.okLines) setOwn(sources, line.source, toSourceLine(line, limits.textChars))
  }
  return sources
}

/** The intentions this briefing delivers (the most urgent `maxIntentions`) and the upcoming items it lists. */
const intentionParts = (model: Model, limits: Limits) => {
  const fired = model.due.slice(0, limits.maxIntentions).map((d) => d.entry)
  const firedIntentions: Array<FiredIntention> = fired.map((entry) => {
    const data = dataOf(entry)
    return {
      id: entry.id,
      goal: cut(str(data.goal) ?? str(data.description) ?? "", limits.textChars),
      source: entry.source,
      tags: [...tagsOf(entry)]
    }
  })
  const upcoming = model.upcoming
    .slice(0, limits.maxUpcoming)
    .map((item) => ({ ...item, summary: cut(item.summary, limits.textChars) }))
  const firedPending = fired.filter((entry) => (dataOf(entry).state ?? "pending") === "pending").length
  return {
    fired,
    firedIntentions,
    upcoming,
    pendingIntentions: model.pending - firedPending,
    omittedIntentions: model.due.length - fired.length
  }
}

/** The `evaluation` block: upstream's counters always, heed's only when non-zero. */
const evaluationOf = (model: Model, pendingIntentions: number, firedCount: number): Evaluation => {
  const counters = model.evaluation
  const evaluation: { -readonly [K in keyof Evaluation]: Evaluation[K] } = {
    alerts_checked: counters.alerts_checked,
    suppressed: counters.suppressed,
    pattern_matched: counters.pattern_matched,
    stale_sources: counters.stale_sources,
    surfaced: counters.surfaced,
    intentions_pending: pendingIntentions,
    intentions_fired: firedCount
  }
  for (const key of ["inhibited", "acknowledged", "flapping", "escalated", "resurfaced"] as const) {
    const value = counters[key] ?? 0
    if (value > 0) evaluation[key] = value
  }
  return evaluation
}

/** The `suggested_mention`: the mention of what is shown, then how many sources were left out. */
const mentionOf = (
  parts: Parameters<typeof composeMention>[0],
  omittedCounts: Record<string, number>,
  omittedIntentions: number,
  summary: string,
  summaryChars: number | undefined
): string => {
  const mention = composeMention(parts)
  const hidden = Object.values(omittedCounts).reduce((a, b) => a + b, 0)
  const tails: Array<string> = []
  if (hidden > 0) tails.push(`${hidden} more ${hidden === 1 ? "source needs" : "sources need"} attention.`)
  if (omittedIntentions > 0) {
    tails.push(`${omittedIntentions} more fired ${omittedIntentions === 1 ? "reminder" : "reminders"}.`)
  }
  const tail = tails.join(" ")
  const full = mention === "" ? tail || summary : tail === "" ? mention : `${sentence(mention)} ${tail}`
  return summaryChars === undefined ? full : truncate(full, summaryChars * 2)
}

/** The briefing at the given level of detail, and the intentions it delivers. */
export const render = (
  model: Model,
  prepared: Prepared,
  attention: boolean,
  limits: Limits
): { briefing: Briefing; fired: Array<Entry> } => {
  const { groups, singles, omittedCounts, omittedAlerts, everything } = detailItems(prepared, limits)
  const sources = sourceLines(model, prepared, limits, singles, everything)
  const { fired, firedIntentions, upcoming, pendingIntentions, omittedIntentions } = intentionParts(model, limits)
  const fullSummary = composeSummary(
    {
      attention_needed: attention,
      source_count: model.lines.length,
      critical: prepared.names.critical,
      warning: prepared.names.warning,
      info: prepared.names.info,
      stale: prepared.names.stale,
      upcoming: model.upcoming.length,
      intentions: fired.length,
      omitted_intentions: omittedIntentions
    },
    limits.maxNames
  )
  const summary = cut(fullSummary, limits.summaryChars)
  const briefing: { -readonly [K in keyof Briefing]: Briefing[K] } = {
    generated: model.now,
    staleness_sec: model.stalenessSec,
    summary,
    sources,
    active_alerts: model.activeAlerts,
    active_suppressions: model.activeSuppressions,
    upcoming,
    attention_needed: attention,
    pending_intentions: pendingIntentions,
    evaluation: evaluationOf(model, pendingIntentions, fired.length)
  }
  if (groups.length > 0) briefing.groups = groups
  if (!limits.listOk && prepared.okLines.length > 0) briefing.ok_sources = prepared.okLines.length
  if (firedIntentions.length > 0) briefing.fired_intentions = firedIntentions
  const omittedUpcoming = model.upcoming.length - upcoming.length
  if (Object.keys(omittedCounts).length > 0 || omittedUpcoming > 0 || omittedIntentions > 0) {
    briefing.omitted = {
      sources: omittedCounts,
      ...(omittedAlerts > 0 ? { alerts: omittedAlerts } : {}),
      ...(omittedUpcoming > 0 ? { upcoming: omittedUpcoming } : {}),
      ...(omittedIntentions > 0 ? { intentions: omittedIntentions } : {}),
      drill_down: "awareness://alerts"
    }
  }
  if (attention) {
    const parts = { sources, groups, upcoming, fired_intentions: firedIntentions }
    briefing.suggested_mention = mentionOf(parts, omittedCounts, omittedIntentions, summary, limits.summaryChars)
  }
  return { briefing, fired }
}
