/**
 * The briefing: what an agent reads at the start of a conversation to learn whether anything needs attention.
 * Upstream's fields plus heed's additions (grouping, omitted counts, heed's evaluation counters, markers for
 * re-surfaced, flapping and escalated problems).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * A source's status in the briefing: upstream's `ok | warning | critical | stale` plus `info` (a status headline
 * without an active alert).
 *
 * @category schemas
 * @since 0.1.0
 */
export const SourceStatus = Schema.Literals(["ok", "info", "warning", "critical", "stale"])

/**
 * A source's status in the briefing.
 *
 * @category models
 * @since 0.1.0
 */
export type SourceStatus = typeof SourceStatus.Type

/**
 * One source line: `status`, `last_report` (ISO or `null` for a source that only has alerts; left out for healthy
 * sources unless the briefing is read with `explain`), and when something is wrong a `headline` and a `drill_down`
 * URI. heed adds `alerts` (how many alerts surfaced, when more than one), `stale` (a critical source that has also
 * stopped reporting: staleness never hides a critical alert), `resurfaced` (a suppression on the headline alert
 * expired), `flapping` and `escalated` (an unacknowledged warning older than the escalation timeout now counts as
 * critical).
 *
 * @category schemas
 * @since 0.1.0
 */
export const SourceLine = Schema.Struct({
  status: SourceStatus,
  last_report: Schema.optionalKey(Schema.NullOr(Schema.String)),
  headline: Schema.optionalKey(Schema.String),
  drill_down: Schema.optionalKey(Schema.String),
  alerts: Schema.optionalKey(Schema.Int),
  stale: Schema.optionalKey(Schema.Boolean),
  resurfaced: Schema.optionalKey(Schema.Boolean),
  flapping: Schema.optionalKey(Schema.Boolean),
  escalated: Schema.optionalKey(Schema.Boolean)
})

/**
 * One source line.
 *
 * @category models
 * @since 0.1.0
 */
export type SourceLine = typeof SourceLine.Type

/**
 * Sources with the same problem (same status and headline alert id), rendered as one line: `sources` lists the
 * first few names and `count` says how many there are. `headline` is the first source's message; when the sources'
 * messages differ, `distinct` says how many distinct messages there are and, when the group stands for its sources
 * (folded to fit the budget, their own lines not shown), `headlines` lists the other distinct messages (the first
 * few, each once), so no source's text disappears into the group.
 *
 * @category schemas
 * @since 0.1.0
 */
export const SourceGroup = Schema.Struct({
  status: SourceStatus,
  headline: Schema.String,
  sources: Schema.Array(Schema.String),
  count: Schema.Int,
  drill_down: Schema.String,
  headlines: Schema.optionalKey(Schema.Array(Schema.String)),
  distinct: Schema.optionalKey(Schema.Int)
})

/**
 * A group line.
 *
 * @category models
 * @since 0.1.0
 */
export type SourceGroup = typeof SourceGroup.Type

/**
 * An upcoming item: an intention whose `deliver_at` falls within the horizon, with its `summary` (the goal), its
 * `deliver_at` (ISO, UTC) and `in_minutes` (minutes from the briefing's `generated` until then, rounded up).
 *
 * @category schemas
 * @since 0.1.0
 */
export const UpcomingItem = Schema.Struct({
  source: Schema.String,
  summary: Schema.String,
  deliver_at: Schema.optionalKey(Schema.String),
  in_minutes: Schema.optionalKey(Schema.Int)
})

/**
 * An upcoming item.
 *
 * @category models
 * @since 0.1.0
 */
export type UpcomingItem = typeof UpcomingItem.Type

/**
 * An intention delivered by this briefing (`goal` falls back to `description`).
 *
 * @category schemas
 * @since 0.1.0
 */
export const FiredIntention = Schema.Struct({
  id: Schema.String,
  goal: Schema.String,
  source: Schema.String,
  tags: Schema.Array(Schema.String),
  /** Only in the one read that delivered it; later reads show it without the mark until it is acknowledged. */
  new: Schema.optionalKey(Schema.Boolean)
})

/**
 * A fired intention.
 *
 * @category models
 * @since 0.1.0
 */
export type FiredIntention = typeof FiredIntention.Type

/**
 * What did not fit the token budget, summarised with counts and a drill-down URI: sources by status, how many
 * surfaced `alerts` belong to those sources, how many upcoming items and how many due or fired, unacknowledged
 * `intentions` were left out (the summary says so too: "41 more fired reminders"). Left-out intentions that were
 * not delivered yet are not fired; they stay pending for the next briefing.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Omitted = Schema.Struct({
  sources: Schema.Record(Schema.String, Schema.Int),
  alerts: Schema.optionalKey(Schema.Int),
  upcoming: Schema.optionalKey(Schema.Int),
  intentions: Schema.optionalKey(Schema.Int),
  drill_down: Schema.String
})

/**
 * What did not fit.
 *
 * @category models
 * @since 0.1.0
 */
export type Omitted = typeof Omitted.Type

/**
 * The `evaluation` block ("makes silence tangible"): upstream's `alerts_checked, suppressed, pattern_matched,
 * stale_sources, surfaced, intentions_pending, intentions_fired` (always present) plus heed's `inhibited`,
 * `acknowledged`, `flapping`, `escalated` and `resurfaced`, present only when non-zero to save tokens (a missing
 * counter is 0). `alerts_checked = suppressed + pattern_matched + inhibited + acknowledged + surfaced`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Evaluation = Schema.Struct({
  alerts_checked: Schema.Int,
  suppressed: Schema.Int,
  pattern_matched: Schema.Int,
  stale_sources: Schema.Int,
  surfaced: Schema.Int,
  intentions_pending: Schema.Int,
  intentions_fired: Schema.Int,
  inhibited: Schema.optionalKey(Schema.Int),
  acknowledged: Schema.optionalKey(Schema.Int),
  flapping: Schema.optionalKey(Schema.Int),
  escalated: Schema.optionalKey(Schema.Int),
  resurfaced: Schema.optionalKey(Schema.Int)
})

/**
 * The evaluation block.
 *
 * @category models
 * @since 0.1.0
 */
export type Evaluation = typeof Evaluation.Type

/**
 * The briefing: upstream's `generated, staleness_sec, summary, sources, active_alerts, active_suppressions,
 * upcoming, attention_needed, fired_intentions (only when non-empty), pending_intentions, evaluation,
 * suggested_mention (only when attention is needed)`, plus heed's optional `groups` (sources with the same
 * problem), `ok_sources` (how many healthy sources were folded away to fit the budget) and `omitted` (what else did
 * not fit). `evaluation` (and healthy sources' `last_report`) are present in the full briefing (the resource) and
 * left out of what `get_briefing` returns unless it is asked to `explain`.
 *
 * `attention_needed` is true only when something needs the person: a surfaced (warning or critical) alert, a
 * stale source, a fired intention not yet acknowledged, or an upcoming item inside its horizon. An `info` headline
 * (a status headline without an alert) is shown and counted but never sets it alone, and `suggested_mention` is
 * present only when `attention_needed` is true.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Briefing = Schema.Struct({
  generated: Schema.String,
  staleness_sec: Schema.Int,
  summary: Schema.String,
  sources: Schema.Record(Schema.String, SourceLine),
  groups: Schema.optionalKey(Schema.Array(SourceGroup)),
  ok_sources: Schema.optionalKey(Schema.Int),
  active_alerts: Schema.Int,
  active_suppressions: Schema.Int,
  upcoming: Schema.Array(UpcomingItem),
  attention_needed: Schema.Boolean,
  fired_intentions: Schema.optionalKey(Schema.Array(FiredIntention)),
  pending_intentions: Schema.Int,
  evaluation: Evaluation,
  omitted: Schema.optionalKey(Omitted),
  suggested_mention: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "Briefing" })

/**
 * A briefing.
 *
 * @category models
 * @since 0.1.0
 */
export type Briefing = typeof Briefing.Type
