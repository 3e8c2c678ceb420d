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
  description: "Replace a source's status; stale after ttl_sec.",
  parameters: {
    source: required(P.requiredString, "Source."),
    tags: required(P.tags, "Tags."),
    metrics: required(P.object, "Metrics."),
    inventory: optional(P.object, "Inventory."),
    ttl_sec: optional(P.integer(1, Limits.maxTtlSec), "Seconds until stale.", 120),
    headline: optional(P.string, "Info line while ok.")
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
  description: "Raise, update or resolve an alert.",
  parameters: {
    source: required(P.requiredString, "Source."),
    tags: required(P.tags, "Tags."),
    alert_id: required(P.requiredString, "Stable id."),
    level: required(P.literals(["warning", "critical"]), "Severity."),
    alert_type: optional(P.literals(["threshold", "structural", "baseline"]), "Kind."),
    message: required(P.requiredString, "Headline."),
    details: optional(P.object, "Details."),
    diagnostics: optional(P.object, "Diagnostics."),
    resolved: optional(P.boolean, "Resolve it.", false),
    metric: optional(P.string, "Metric."),
    value: optional(P.number, "Value."),
    threshold: optional(P.number, "Threshold."),
    labels: optional(P.object, "Labels.")
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
  description: "Expected behaviour: matching alerts stay quiet.",
  parameters: {
    source: required(P.string, "Source ('': all)."),
    tags: required(P.tags, "Tags."),
    description: required(P.requiredString, "What and why."),
    conditions: optional(P.object, "day_of_week, hour_range."),
    effect: optional(P.string, "What to suppress."),
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
  description: "A durable note (true in 30 days).",
  parameters: {
    source: required(P.requiredString, "Source."),
    tags: required(P.tags, "2-3 tags."),
    description: required(P.requiredString, "Summary."),
    content: optional(P.jsonOf(["string", "object", "array", "number", "boolean"], "text or JSON"), "Body."),
    content_type: optional(P.string, "MIME type."),
    learned_from: learnedFromField,
    logical_key: optional(P.string, "Upsert key."),
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
  description: "Context that expires.",
  parameters: {
    source: required(P.requiredString, "Source."),
    tags: required(P.tags, "Tags."),
    description: required(P.requiredString, "Context."),
    expires_days: optional(P.integer(1, Limits.maxExpiresDays), "Days.", 30),
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
  description: "Set a preference.",
  parameters: {
    key: required(P.requiredString, "Key."),
    value: required(P.string, "Value."),
    scope: optional(P.string, "Scope.", "global")
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
  description: "Silence matching alerts for a while; give a source ('*': all), tags or a metric.",
  parameters: {
    source: optional(P.string, "Source ('*': all)."),
    tags: optional(P.tags, "Any of these tags."),
    metric: optional(P.string, "Metric."),
    level: optional(P.literals(["warning", "critical"]), "Up to this level.", "warning"),
    suppress_level: optional(
      P.literals(["warning", "critical"]).annotate({ [P.hiddenKey]: true }),
      "Alias of level (the name the entry stores it under)."
    ),
    duration_minutes: optional(P.integer(1, Limits.maxDurationMinutes), "Minutes.", 60),
    escalation_override: optional(P.boolean, "Worse breaks through.", true),
    reason: optional(P.string, "Why."),
    time_intervals: optional(TimeIntervals, "Recurring windows ({weekdays, times}).")
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
  description: "End a suppression.",
  parameters: { entry_id: required(P.requiredString, "Suppression id.") },
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
  description: "A reminder due at deliver_at.",
  parameters: {
    goal: required(P.requiredString, "Goal."),
    source: required(P.requiredString, "Source."),
    tags: required(P.tags, "Tags."),
    deliver_at: optional(P.timestamp, "When (ISO 8601)."),
    constraints: optional(P.string, "Constraints."),
    urgency: optional(P.literals(["low", "normal", "high"]), "Urgency.", "normal"),
    recurrence: optional(P.string, "Reserved."),
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
  description: "Change a reminder's state.",
  parameters: {
    entry_id: required(P.requiredString, "Id."),
    state: required(P.literals(IntentionState.literals), "New state."),
    reason: optional(P.string, "Why."),
    deliver_at: optional(P.timestamp, "Snooze until.")
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
  description: "Record an action; acknowledges the entry.",
  parameters: {
    entry_id: required(P.requiredString, "Id."),
    action: required(P.requiredString, "What was done."),
    platform: optional(P.string, "Where."),
    detail: optional(P.string, "Details."),
    tags: optional(P.tags, "Tags.")
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
  description: "Edit an entry.",
  parameters: {
    entry_id: required(P.requiredString, "Id."),
    description: optional(P.string, "New description."),
    tags: optional(P.tags, "New tags."),
    source: optional(P.string, "New source."),
    content: optional(P.string, "New content."),
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
  description: "Soft-delete by id, tags or source (bulk: confirm).",
  parameters: {
    source: optional(P.string, "Source."),
    entry_type: optional(entryType, "Type."),
    entry_id: optional(P.string, "Id."),
    tags: optional(P.tags, "Tags (all)."),
    confirm: optional(P.boolean, "Delete in bulk.", false)
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
  description: "Undelete.",
  parameters: {
    entry_id: optional(P.string, "Id."),
    tags: optional(P.tags, "Tags (all).")
  },
  success: Schema.Struct({ status: Schema.Literal("ok"), restored: Schema.Finite })
})
