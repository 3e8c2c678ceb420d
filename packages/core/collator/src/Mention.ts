/**
 * The briefing's text: the `summary` line and the `suggested_mention` an agent can say as it is. Deterministic
 * templates (the seed's open question "template vs LLM" was decided as template, as upstream did).
 *
 * @since 0.1.0
 */
import type { FiredIntention, SourceGroup, SourceLine, UpcomingItem } from "./Briefing.ts"
import { sentence } from "./internal/text.ts"

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`

/** `"N warning"` / `"N warnings"` */
const count = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`

const names = (list: ReadonlyArray<string>, max: number | undefined): string =>
  max === undefined || list.length <= max
    ? list.join(", ")
    : `${list.slice(0, max).join(", ")} and ${list.length - max} more`

/**
 * The inputs of {@link composeSummary}: source names by status, and counts.
 *
 * @category models
 * @since 0.1.0
 */
export interface SummaryInput {
  readonly attention_needed: boolean
  readonly source_count: number
  readonly critical: ReadonlyArray<string>
  readonly warning: ReadonlyArray<string>
  readonly info?: ReadonlyArray<string>
  readonly stale: ReadonlyArray<string>
  readonly upcoming: number
  readonly intentions: number
  /** Due or fired, unacknowledged intentions the briefing had no room to list. */
  readonly omitted_intentions?: number
}

/**
 * Upstream's `compose_summary`: `"All clear across N source[s]."`, or parts such as `"K critical on a, b"`,
 * `"K warning[s] on c"` (K counts sources), `"x, y stale"`, `"N upcoming item[s]"`, `"N intention[s] ready"` joined
 * with `". "` and ending with `"."`. heed adds `"K info on d"` (also after an all-clear: info headlines are shown
 * but need no attention), `"N more fired reminder[s]"` for intentions left out of the list and, with `maxNames`, caps
 * name lists (`"a, b and 3 more"`). Source names come in the order given (the collator gives them by name).
 *
 * @category combinators
 * @since 0.1.0
 */
export const composeSummary = (input: SummaryInput, maxNames?: number): string => {
  const info = input.info ?? []
  if (!input.attention_needed) {
    const clear = `All clear across ${plural(input.source_count, "source")}.`
    return info.length === 0 ? clear : `${clear} ${info.length} info on ${names(info, maxNames)}.`
  }
  const parts: Array<string> = []
  if (input.critical.length > 0) parts.push(`${input.critical.length} critical on ${names(input.critical, maxNames)}`)
  if (input.warning.length > 0)
    parts.push(`${count(input.warning.length, "warning")} on ${names(input.warning, maxNames)}`)
  if (info.length > 0) parts.push(`${info.length} info on ${names(info, maxNames)}`)
  if (input.stale.length > 0) parts.push(`${names(input.stale, maxNames)} stale`)
  if (input.upcoming > 0) parts.push(plural(input.upcoming, "upcoming item"))
  if (input.intentions > 0) parts.push(`${plural(input.intentions, "intention")} ready`)
  const omitted = input.omitted_intentions ?? 0
  if (omitted > 0) parts.push(`${omitted} more fired ${omitted === 1 ? "reminder" : "reminders"}`)
  return `${parts.join(". ")}.`
}

/**
 * The inputs of {@link composeMention}: the source lines (in order), upcoming items and fired intentions.
 *
 * @category models
 * @since 0.1.0
 */
export interface MentionInput {
  readonly sources: Readonly<Record<string, SourceLine>>
  readonly groups?: ReadonlyArray<SourceGroup>
  readonly upcoming: ReadonlyArray<UpcomingItem>
  readonly fired_intentions?: ReadonlyArray<FiredIntention>
}

const prefix = (status: string): string => (status === "critical" ? "CRITICAL" : status === "stale" ? "STALE" : "FYI")

const rank: Record<string, number> = { critical: 0, stale: 1, warning: 2, info: 3 }

/** `"UPCOMING in 25 min: goal"` (or the bare summary for an item without a due time). */
const upcomingItem = (item: UpcomingItem): string =>
  item.in_minutes === undefined ? item.summary : `UPCOMING in ${item.in_minutes} min: ${item.summary}`

/**
 * Upstream's `compose_mention`, ordered and punctuated: for each source with a headline `"CRITICAL: h"`,
 * `"STALE: h"` or `"FYI: h"`, most severe first (critical, stale, warning, info; in the order given within one
 * status), then each upcoming item (`"UPCOMING in 25 min: goal"`), then `"INTENTION: goal"`; items are separated
 * by a full stop (unless one already ends a sentence) and a space. heed adds group lines
 * (`"FYI: h (3 sources: a, b, c)"`), marks re-surfaced headlines `"(suppression expired)"` and critical sources
 * that stopped reporting `"(a stopped reporting)"`. A group whose
 * sources are all listed in `sources` with the group's headline is mentioned once, as its group line, where its
 * first source would be; a group whose sources have different headlines is mentioned source by source; a group
 * whose sources were folded away (not all listed) is mentioned as its group line after the sources, with how many
 * other messages its sources carry (the group's `headlines` list them). Identical items are said once, with a count (`"INTENTION: Call the plumber
 * (×2)"`).
 *
 * @category combinators
 * @since 0.1.0
 */
export const composeMention = (input: MentionInput): string => {
  const groupLine = (group: SourceGroup) =>
    `${prefix(group.status)}: ${groupHeadline(group, false)} (${group.count} sources: ${names(group.sources, undefined)}${group.count > group.sources.length ? ", …" : ""})`
  const collapsed = new Map<string, SourceGroup>()
  const detailed = new Set<SourceGroup>()
  for (const group of input.groups ?? []) {
    const lines = group.sources.map((name) => input.sources[name])
    if (group.count > group.sources.length || lines.some((line) => line === undefined)) continue
    detailed.add(group)
    if (lines.every((line) => line?.headline === group.headline && line.resurfaced !== true) && !differs(group)) {
      for (const name of group.sources) collapsed.set(name, group)
    }
  }
  const problems: Array<{ readonly text: string; readonly rank: number }> = []
  const mentioned = new Set<SourceGroup>()
  for (const [name, line] of Object.entries(input.sources)) {
    if (line.headline === undefined) continue
    const group = collapsed.get(name)
    if (group !== undefined) {
      if (!mentioned.has(group)) problems.push({ text: groupLine(group), rank: rank[group.status] ?? 4 })
      mentioned.add(group)
      continue
    }
    const marks = `${line.resurfaced === true ? " (suppression expired)" : ""}${line.stale === true ? ` (${name} stopped reporting)` : ""}`
    problems.push({ text: `${prefix(line.status)}: ${line.headline}${marks}`, rank: rank[line.status] ?? 4 })
  }
  for (const group of input.groups ?? []) {
    if (!detailed.has(group)) problems.push({ text: groupLine(group), rank: rank[group.status] ?? 4 })
  }
  // A stable sort: within one status, the order given.
  problems.sort((a, b) => a.rank - b.rank)
  const parts = problems.map((problem) => problem.text)
  for (const item of input.upcoming) parts.push(upcomingItem(item))
  for (const intention of input.fired_intentions ?? []) parts.push(`INTENTION: ${intention.goal}`)
  const unique = once(parts)
  return unique.map((part, i) => (i < unique.length - 1 ? sentence(part) : part)).join(" ")
}

/** Identical items once, in first-seen order, with how many there were: `"INTENTION: Call the plumber (×2)"`. */
const once = (parts: ReadonlyArray<string>): Array<string> => {
  const counts = new Map<string, number>()
  for (const part of parts) counts.set(part, (counts.get(part) ?? 0) + 1)
  return [...counts].map(([part, n]) => (n === 1 ? part : `${part} (×${n})`))
}

/** Whether a group's sources reported different messages. */
const differs = (group: SourceGroup): boolean => (group.distinct ?? 1) > 1

/**
 * A group's headline with the other distinct messages of its sources: listed (`"a; b"`, `full`) as far as the
 * group lists them, and how many more there are (`"a; b (+3 other messages)"`).
 *
 * @category combinators
 * @since 0.1.0
 */
export const groupHeadline = (group: SourceGroup, full = true): string => {
  if (!differs(group)) return group.headline
  const listed = [group.headline, ...(full ? (group.headlines ?? []) : [])]
  const more = (group.distinct ?? listed.length) - listed.length
  return `${listed.join("; ")}${more > 0 ? ` (+${more} other ${more === 1 ? "message" : "messages"})` : ""}`
}
