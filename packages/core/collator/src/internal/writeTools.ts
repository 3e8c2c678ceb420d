/**
 * The write tools of the awareness toolkit (`report_status`, `report_alert`, `learn_pattern`, `remember`,
 * `add_context`, `set_preference`, `suppress_alert`, `clear_suppression`, `remind`, `update_intention`, `acted_on`,
 * `update_entry`, `delete_entry`, `restore_entry`), public as `AwarenessTools.ReportStatus` and so on.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { IntentionState } from "../Entry.ts"
import * as Limits from "../Limits.ts"
import * as P from "./params.ts"
import { DeleteReply, entryType, languageField, learnedFromField, ok, optional, required, tool } from "./toolDefs.ts"

/**
 * `report_status(source, tags, metrics, inventory?, ttl_sec=120, headline?)`.
 *
 * @category models
 * @since 0.1.0
 */
export const ReportStatus = tool("report_status", {
  title: "Report status",
  description:
    "Edge processes: report a source's current metrics. Replaces the previous status of the source. " +
    "The source goes stale when it does not report again within ttl_sec.",
  parameters: {
    source: required(P.requiredString, "The reporting source (e.g. 'synology-nas')."),
    tags: required(P.tags, "Tags for the source."),
    metrics: required(P.object, "Current metrics (numbers, strings)."),
    inventory: optional(P.object, "Optional inventory (containers, disks, …)."),
    ttl_sec: optional(P.integer(1, Limits.maxTtlSec), "Seconds until the source counts as stale.", 120),
    headline: optional(P.string, "heed: an informational headline shown for the source while it is ok.")
  },
  success: ok({ source: Schema.String }),
  idempotent: true
})

/**
 * `report_alert(source, tags, alert_id, level, alert_type="threshold", message, ...)`.
 *
 * @category models
 * @since 0.1.0
 */
export const ReportAlert = tool("report_alert", {
  title: "Report alert",
  description:
    "Edge processes: raise, update or resolve an alert, keyed by (source, alert_id). Re-reporting " +
    "merges details; resolved=true resolves it.",
  parameters: {
    source: required(P.requiredString, "The reporting source."),
    tags: required(P.tags, "Tags used by suppressions and patterns."),
    alert_id: required(P.requiredString, "Stable id of the alert within its source."),
    level: required(P.literals(["warning", "critical"]), "Severity."),
    alert_type: optional(P.literals(["threshold", "structural", "baseline"]), "Kind of alert.", "threshold"),
    message: required(P.requiredString, "One human sentence; becomes the briefing headline."),
    details: optional(P.object, "Structured details."),
    diagnostics: optional(P.object, "Diagnostics for drill-down."),
    resolved: optional(P.boolean, "Resolve the alert.", false),
    metric: optional(P.string, "heed: the metric this alert is about (enables metric-scoped suppressions)."),
    value: optional(P.number, "heed: the observed value."),
    threshold: optional(P.number, "heed: the threshold that was crossed."),
    labels: optional(P.object, "heed: string labels used by inhibition rules and grouping (Alertmanager style).")
  },
  success: ok({ action: Schema.Literals(["reported", "resolved"]), alert_id: Schema.String }),
  idempotent: true
})

/**
 * `learn_pattern(source, tags, description, conditions?, effect?, learned_from?)`.
 *
 * @category models
 * @since 0.1.0
 */
export const LearnPattern = tool("learn_pattern", {
  title: "Learn pattern",
  description:
    "Teach an expected behaviour so matching alerts stay out of the briefing (e.g. 'qbittorrent stops " +
    "on Fridays for maintenance').",
  parameters: {
    source: required(P.string, "The source the pattern applies to ('' for all)."),
    tags: required(P.tags, "Tags of the pattern."),
    description: required(P.requiredString, "What is expected and why."),
    conditions: optional(P.object, "When it holds: day_of_week (e.g. 'friday'), hour_range [start, end)."),
    effect: optional(P.string, "What to suppress (e.g. 'suppress qbittorrent_stopped')."),
    learned_from: learnedFromField,
    language: languageField
  },
  success: ok({})
})

/**
 * `remember(source, tags, description, content?, content_type="text/plain", learned_from?, logical_key?)`.
 *
 * @category models
 * @since 0.1.0
 */
export const Remember = tool("remember", {
  title: "Remember",
  description:
    "Store a durable note. Use when it will still be true in 30 days; otherwise use add_context. " +
    "With logical_key, re-remembering updates the same note.",
  parameters: {
    source: required(P.requiredString, "Where the knowledge comes from or belongs."),
    tags: required(P.tags, "2-3 specific tags."),
    description: required(P.requiredString, "A one-line summary."),
    content: optional(
      P.jsonOf(["string", "object", "array", "number", "boolean"], "text or JSON"),
      "Optional body (text or JSON; JSON is stored as its text)."
    ),
    content_type: optional(P.string, "MIME type of content.", "text/plain"),
    learned_from: learnedFromField,
    logical_key: optional(P.string, "Stable key to upsert the same note."),
    language: languageField
  },
  success: ok({ action: Schema.optionalKey(Schema.Literals(["created", "updated"])) })
})

/**
 * `add_context(source, tags, description, expires_days=30)`.
 *
 * @category models
 * @since 0.1.0
 */
export const AddContext = tool("add_context", {
  title: "Add context",
  description: "Store time-limited context that expires after expires_days.",
  parameters: {
    source: required(P.requiredString, "Where the context belongs."),
    tags: required(P.tags, "Tags."),
    description: required(P.requiredString, "The context."),
    expires_days: optional(P.integer(1, Limits.maxExpiresDays), "Days until it expires (minimum 1).", 30),
    language: languageField
  },
  success: ok({ expires: Schema.String })
})

/**
 * `set_preference(key, value, scope="global")`.
 *
 * @category models
 * @since 0.1.0
 */
export const SetPreference = tool("set_preference", {
  title: "Set preference",
  description: "Set a user preference (upserted by key and scope).",
  parameters: {
    key: required(P.requiredString, "Preference key."),
    value: required(P.string, "Preference value."),
    scope: optional(P.string, "Scope of the preference.", "global")
  },
  success: ok({ key: Schema.String, scope: Schema.String }),
  idempotent: true
})

const TimeIntervals = Schema.Array(Schema.Record(Schema.String, Schema.Unknown))
  .check(Schema.makeFilter((value: unknown) => P.unstorableJson(value) ?? true))
  .annotate({
    [P.jsonKey]: { type: "array", items: { type: "object" } },
    [P.expectedKey]: "an array of { weekdays?, times?, location? } objects"
  })

/**
 * `suppress_alert(source?, tags?, metric?, level="warning", duration_minutes=60, escalation_override=true, ...)`.
 *
 * @category models
 * @since 0.1.0
 */
export const SuppressAlert = tool("suppress_alert", {
  title: "Suppress alerts",
  description:
    "Silence matching alerts for duration_minutes (use this, not memory edits). Matches by source " +
    "('*' for every source), metric and tags (give at least one); with escalation_override a more severe alert " +
    "still breaks through.",
  parameters: {
    source: optional(P.string, "Only alerts from this source; '*' for every source."),
    tags: optional(P.tags, "Alerts matching any of these tags (or mentioning them)."),
    metric: optional(P.string, "Only alerts about this metric."),
    level: optional(P.literals(["warning", "critical"]), "Suppress up to this level.", "warning"),
    suppress_level: optional(
      P.literals(["warning", "critical"]).annotate({ [P.hiddenKey]: true }),
      "Alias of level (the name the entry stores it under)."
    ),
    duration_minutes: optional(
      P.integer(1, Limits.maxDurationMinutes),
      "Minutes until the suppression expires (at least 1, at most ten years).",
      60
    ),
    escalation_override: optional(P.boolean, "Let a more severe alert break through.", true),
    reason: optional(P.string, "Why (shown in get_suppressions).", ""),
    time_intervals: optional(
      TimeIntervals,
      "heed: recurring windows in which the suppression applies (Alertmanager time_intervals), e.g. " +
        '[{"weekdays":["saturday","sunday"]}].'
    )
  },
  success: ok({ expires: Schema.String })
})

/**
 * `clear_suppression(entry_id)`: heed's addition, ends a suppression now.
 *
 * @category models
 * @since 0.1.0
 */
export const ClearSuppression = tool("clear_suppression", {
  title: "Clear suppression",
  description: "heed: end a suppression now; its alerts re-surface in the next briefing.",
  parameters: { entry_id: required(P.requiredString, "The suppression's id.") },
  success: ok({ cleared: Schema.Literal(true) }),
  destructive: true
})

/**
 * `remind(goal, source, tags, deliver_at?, constraints?, urgency="normal", recurrence?, learned_from?)`.
 *
 * @category models
 * @since 0.1.0
 */
export const Remind = tool("remind", {
  title: "Remind",
  description: "Create an intention: a goal to surface later (at deliver_at) in the briefing.",
  parameters: {
    goal: required(P.requiredString, "What should happen."),
    source: required(P.requiredString, "Where it belongs."),
    tags: required(P.tags, "Tags."),
    deliver_at: optional(
      P.timestamp,
      "ISO 8601 time to surface it; without a zone it is UTC ('2027-03-01T09:00' is 09:00 UTC). A date that does " +
        "not exist (2027-02-30) is refused."
    ),
    constraints: optional(P.string, "Optional constraints (free text)."),
    urgency: optional(P.literals(["low", "normal", "high"]), "Urgency.", "normal"),
    recurrence: optional(P.string, "Reserved for recurring intentions."),
    learned_from: learnedFromField,
    language: languageField
  },
  success: ok({ state: Schema.Literal("pending") })
})

/**
 * `update_intention(entry_id, state, reason?, deliver_at?)`.
 *
 * @category models
 * @since 0.1.0
 */
export const UpdateIntention = tool("update_intention", {
  title: "Update intention",
  description: "Move an intention to another state (e.g. completed, snoozed, cancelled).",
  parameters: {
    entry_id: required(P.requiredString, "The intention's id."),
    state: required(P.literals(IntentionState.literals), "The new state."),
    reason: optional(P.string, "Why."),
    deliver_at: optional(P.timestamp, "ISO 8601 (UTC without a zone): when a snoozed intention fires again.")
  },
  success: ok({})
})

/**
 * `acted_on(entry_id, action, platform?, detail?, tags?)`.
 *
 * @category models
 * @since 0.1.0
 */
export const ActedOn = tool("acted_on", {
  title: "Acted on",
  description: "Record that you acted on an entry (acknowledges alerts and fired intentions).",
  parameters: {
    entry_id: required(P.requiredString, "The entry's id."),
    action: required(P.requiredString, "What was done."),
    platform: optional(P.string, "Where it was done."),
    detail: optional(P.string, "Details."),
    tags: optional(P.tags, "Tags (default: the entry's tags).")
  },
  success: ok({ entry_id: Schema.String, action: Schema.String, timestamp: Schema.String })
})

/**
 * `update_entry(entry_id, description?, tags?, source?, content?, content_type?)`.
 *
 * @category models
 * @since 0.1.0
 */
export const UpdateEntry = tool("update_entry", {
  title: "Update entry",
  description: "Edit a note, pattern, context, preference or record in place; changes are kept in a changelog.",
  parameters: {
    entry_id: required(P.requiredString, "The entry's id."),
    description: optional(P.string, "New description."),
    tags: optional(P.tags, "New tags."),
    source: optional(P.string, "New source."),
    content: optional(P.string, "New content (text)."),
    content_type: optional(P.string, "New content type."),
    language: languageField
  },
  success: ok({ updated: Schema.NullOr(Schema.String) })
})

/**
 * `delete_entry(source?, entry_type?, entry_id?, tags?, confirm=false)`.
 *
 * @category models
 * @since 0.1.0
 */
export const DeleteEntry = tool("delete_entry", {
  title: "Delete entries",
  description:
    "Soft-delete (recoverable for 30 days) by entry_id, or by tags (AND) or source(+type); bulk " +
    "deletes are a dry run unless confirm=true.",
  parameters: {
    source: optional(P.string, "Delete entries of this source."),
    entry_type: optional(entryType, "Restrict to this type."),
    entry_id: optional(P.string, "Delete this entry."),
    tags: optional(P.tags, "Delete entries carrying all these tags."),
    confirm: optional(P.boolean, "Really delete (bulk paths).", false)
  },
  success: DeleteReply,
  destructive: true
})

/**
 * `restore_entry(entry_id? | tags?)`.
 *
 * @category models
 * @since 0.1.0
 */
export const RestoreEntry = tool("restore_entry", {
  title: "Restore entries",
  description: "Restore soft-deleted entries by id or by tags (AND).",
  parameters: {
    entry_id: optional(P.string, "Restore this entry."),
    tags: optional(P.tags, "Restore entries carrying all these tags.")
  },
  success: Schema.Struct({ status: Schema.Literal("ok"), restored: Schema.Finite })
})
