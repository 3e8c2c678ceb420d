/**
 * The awareness tools as one typed toolkit: each of mcp-awareness's tools (plus heed's `clear_suppression`) is an
 * `effect/ai` `Tool` with Schema parameters, a Schema success and {@link AwarenessError} as its failure, grouped in
 * {@link toolkit} and implemented on the {@link Awareness} service ({@link layer}). Names, parameters, defaults and
 * reply shapes are upstream's.
 *
 * Every edge uses the same path: {@link call} validates untrusted parameters against the tool's schema (upstream's
 * loose coercions — numbers and booleans sent as strings, tags as a comma-separated string, a JSON object sent as
 * a string — are Schema transformations), runs the handler and encodes the reply. Anything else of the wrong type
 * is an `invalid_parameter` error naming the parameter, with the valid values and a did-you-mean suggestion where
 * it applies; the error echoes the offending value only in bounded form.
 *
 * @since 0.1.0
 */
import type * as Tool from "effect/ai/Tool"
import * as Toolkit from "effect/ai/Toolkit"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { Awareness, type AwarenessShape } from "./Awareness.ts"
import { AwarenessError } from "./AwarenessError.ts"
import * as BriefingView from "./BriefingView.ts"
import { EntryType, IntentionState } from "./Entry.ts"
import { echo } from "./internal/errors.ts"
import * as P from "./internal/params.ts"
import { didYouMean } from "./internal/text.ts"
import * as ToolCall from "./internal/toolCall.ts"
import * as Defs from "./internal/toolDefs.ts"

const {
  DeleteReply,
  EntryView,
  entryType,
  languageField,
  learnedFromField,
  limitField,
  modeField,
  offsetField,
  ok,
  optional,
  required,
  sinceField,
  Stats,
  tool,
  untilField
} = Defs

/**
 * A page of entries, as upstream's list tools return it: `{ entries, limit, offset, has_more }`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Page = Defs.Page

// ---------------------------------------------------------------------------------------------------------------
// Read tools

/**
 * `get_briefing(explain?, format?)`: the compact digest; read it first, once per conversation. By default compact
 * JSON without the `evaluation` block and without healthy sources' `last_report`; `explain: true` returns the
 * full briefing (as the `awareness://briefing` resource); `format: "text"` returns plain text, one line per item,
 * most severe first (see `BriefingView`).
 *
 * @category tools
 * @since 0.1.0
 */
export const GetBriefing = tool("get_briefing", {
  title: "Get briefing",
  description:
    "Read this first, once per conversation. A compact digest of everything the awareness service " +
    "watches. If attention_needed is false, say nothing about it. If true, mention suggested_mention (or compose " +
    "from the headlines) and drill down only when asked.",
  parameters: {
    explain: optional(
      P.boolean,
      "true adds the evaluation block (what was checked, suppressed, matched by patterns) and healthy sources' " +
        "last_report.",
      false
    ),
    format: optional(
      P.literals(BriefingView.Format.literals),
      "'json' (default) or 'text': plain text, one line per item, most severe first (fewest tokens).",
      "json"
    )
  },
  success: Schema.Union([BriefingView.View, Schema.String]),
  readOnly: true
})

/**
 * `get_alerts(source?, since?, mode?, limit?, offset?)`: active alerts, newest first, paginated.
 *
 * @category tools
 * @since 0.1.0
 */
export const GetAlerts = tool("get_alerts", {
  title: "Get active alerts",
  description:
    "Active (unresolved, unexpired) alerts, newest first, paginated. Mirrors awareness://alerts and " +
    "awareness://alerts/{source}.",
  parameters: {
    source: optional(P.string, "Only alerts from this source."),
    since: sinceField,
    mode: modeField,
    limit: limitField,
    offset: offsetField
  },
  success: Page,
  readOnly: true
})

/**
 * `get_status(source)`: the full latest status entry of one source.
 *
 * @category tools
 * @since 0.1.0
 */
export const GetStatus = tool("get_status", {
  title: "Get source status",
  description: "The full latest status of one source (metrics, inventory, ttl). Mirrors awareness://status/{source}.",
  parameters: { source: required(P.requiredString, "The source name, as it appears in the briefing.") },
  success: EntryView,
  readOnly: true
})

/**
 * `get_knowledge(...)`: patterns, context, preferences and notes, paginated.
 *
 * @category tools
 * @since 0.1.0
 */
export const GetKnowledge = tool("get_knowledge", {
  title: "Get knowledge",
  description:
    "Patterns, context, preferences and notes (by default), most recently updated first, paginated. " +
    "Use list mode first, always set a limit, filter with 2-3 specific tags (AND). Mirrors awareness://knowledge.",
  parameters: {
    source: optional(P.string, "Only entries from this source."),
    tags: optional(P.tags, "Entries must carry all of these tags."),
    entry_type: optional(
      Schema.Union([entryType, Schema.Array(entryType)]).annotate({
        [P.jsonKey]: { type: "string", enum: EntryType.literals },
        [P.expectedKey]: `one of ${EntryType.literals.join(", ")}`,
        [P.validKey]: EntryType.literals
      }),
      "Only entries of this type."
    ),
    include_history: optional(
      P.literals(["true", "false", "only"]),
      "'true' keeps changelogs, 'only' returns only entries that have one."
    ),
    since: sinceField,
    until: untilField,
    learned_from: optional(P.string, "Only entries taught by this platform."),
    created_after: optional(P.timestamp, "ISO 8601; only entries created at or after it."),
    created_before: optional(P.timestamp, "ISO 8601; only entries created before it."),
    hint: optional(P.string, "Free text used to re-rank results by relevance."),
    mode: modeField,
    limit: limitField,
    offset: offsetField,
    language: languageField
  },
  success: Page,
  readOnly: true
})

/**
 * `get_suppressions()`: active suppressions.
 *
 * @category tools
 * @since 0.1.0
 */
export const GetSuppressions = tool("get_suppressions", {
  title: "Get suppressions",
  description: "Active (unexpired) suppressions. Mirrors awareness://suppressions.",
  parameters: {},
  success: Schema.Array(EntryView),
  readOnly: true
})

/**
 * `get_intentions(state?, source?, tags?, mode?, limit?)`: reminders and intentions.
 *
 * @category tools
 * @since 0.1.0
 */
export const GetIntentions = tool("get_intentions", {
  title: "Get intentions",
  description: "Reminders and intentions, filtered by state, source or tags.",
  parameters: {
    state: optional(P.literals(IntentionState.literals), "Only intentions in this state."),
    source: optional(P.string, "Only intentions from this source."),
    tags: optional(P.tags, "Intentions must carry all of these tags."),
    mode: modeField,
    limit: limitField,
    offset: offsetField
  },
  success: Page,
  readOnly: true
})

/**
 * `get_stats()`: entry counts per type, the sources and the total.
 *
 * @category tools
 * @since 0.1.0
 */
export const GetStats = tool("get_stats", {
  title: "Get statistics",
  description: "Entry counts per type, the known sources and the total. Cheap; call before broad queries.",
  parameters: {},
  success: Stats,
  readOnly: true
})

/**
 * `get_tags()`: every tag in use with its count.
 *
 * @category tools
 * @since 0.1.0
 */
export const GetTags = tool("get_tags", {
  title: "Get tags",
  description: "Every tag in use with its count, most used first. Cheap; call before filtering by tags.",
  parameters: {},
  success: Schema.Array(Schema.Struct({ tag: Schema.String, count: Schema.Finite })),
  readOnly: true
})

/**
 * `search(query, ...)`: full-text search over entries.
 *
 * @category tools
 * @since 0.1.0
 */
export const Search = tool("search", {
  title: "Search",
  description: "Full-text search over entries (hybrid with embeddings when a provider is configured).",
  parameters: {
    query: required(P.requiredString, "What to look for."),
    source: optional(P.string, "Only entries from this source."),
    tags: optional(P.tags, "Entries must carry all of these tags."),
    entry_type: optional(entryType, "Only entries of this type."),
    since: sinceField,
    until: untilField,
    limit: optional(P.number, "Maximum results, clamped to 1..100.", 10),
    mode: modeField,
    language: languageField
  },
  success: Schema.Array(EntryView),
  readOnly: true
})

// ---------------------------------------------------------------------------------------------------------------
// Write tools

/**
 * `report_status(source, tags, metrics, inventory?, ttl_sec=120, headline?)`.
 *
 * @category tools
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
    ttl_sec: optional(P.integer(1), "Seconds until the source counts as stale.", 120),
    headline: optional(P.string, "heed: an informational headline shown for the source while it is ok.")
  },
  success: ok({ source: Schema.String }),
  idempotent: true
})

/**
 * `report_alert(source, tags, alert_id, level, alert_type="threshold", message, ...)`.
 *
 * @category tools
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
 * @category tools
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
 * @category tools
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
 * @category tools
 * @since 0.1.0
 */
export const AddContext = tool("add_context", {
  title: "Add context",
  description: "Store time-limited context that expires after expires_days.",
  parameters: {
    source: required(P.requiredString, "Where the context belongs."),
    tags: required(P.tags, "Tags."),
    description: required(P.requiredString, "The context."),
    expires_days: optional(P.integer(1), "Days until it expires (minimum 1).", 30),
    language: languageField
  },
  success: ok({ expires: Schema.String })
})

/**
 * `set_preference(key, value, scope="global")`.
 *
 * @category tools
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
 * @category tools
 * @since 0.1.0
 */
export const SuppressAlert = tool("suppress_alert", {
  title: "Suppress alerts",
  description:
    "Silence matching alerts for duration_minutes (use this, not memory edits). Matches by source " +
    "(omit for all), metric and tags; with escalation_override a more severe alert still breaks through.",
  parameters: {
    source: optional(P.string, "Only alerts from this source (omit for every source)."),
    tags: optional(P.tags, "Alerts matching any of these tags (or mentioning them)."),
    metric: optional(P.string, "Only alerts about this metric."),
    level: optional(P.literals(["warning", "critical"]), "Suppress up to this level.", "warning"),
    suppress_level: optional(
      P.literals(["warning", "critical"]).annotate({ [P.hiddenKey]: true }),
      "Alias of level (the name the entry stores it under)."
    ),
    duration_minutes: optional(P.integer(1), "Minutes until the suppression expires (at least 1).", 60),
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
 * @category tools
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
 * @category tools
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
 * @category tools
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
 * @category tools
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
 * @category tools
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
 * @category tools
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
 * @category tools
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

/**
 * Every awareness tool, in the order `tools/list` reports them.
 *
 * @category tools
 * @since 0.1.0
 */
export const toolkit = Toolkit.make(
  GetBriefing,
  GetAlerts,
  GetStatus,
  GetKnowledge,
  GetSuppressions,
  GetIntentions,
  GetStats,
  GetTags,
  Search,
  ReportStatus,
  ReportAlert,
  LearnPattern,
  Remember,
  AddContext,
  SetPreference,
  SuppressAlert,
  ClearSuppression,
  Remind,
  UpdateIntention,
  ActedOn,
  UpdateEntry,
  DeleteEntry,
  RestoreEntry
)

/**
 * The toolkit's handlers on an `Awareness` service.
 *
 * @category constructors
 * @since 0.1.0
 */
export const handlers = (awareness: AwarenessShape) =>
  toolkit.of({
    get_briefing: (params) =>
      Effect.map(awareness.getBriefing(params), (briefing) =>
        BriefingView.render(briefing, {
          ...(params.explain === undefined ? {} : { explain: params.explain }),
          ...(params.format === undefined ? {} : { format: params.format })
        })
      ),
    get_alerts: (params) => awareness.getAlerts(params),
    get_status: (params) => awareness.getStatus(params),
    get_knowledge: (params) => awareness.getKnowledge(params),
    get_suppressions: (params) => awareness.getSuppressions(params),
    get_intentions: (params) => awareness.getIntentions(params),
    get_stats: (params) => awareness.getStats(params),
    get_tags: (params) => awareness.getTags(params),
    search: (params) => awareness.search(params),
    report_status: (params) => awareness.reportStatus(params),
    report_alert: (params) => awareness.reportAlert(params),
    learn_pattern: (params) => awareness.learnPattern(params),
    remember: (params) => awareness.remember(params),
    add_context: (params) => awareness.addContext(params),
    set_preference: (params) => awareness.setPreference(params),
    suppress_alert: (params) => awareness.suppressAlert(params),
    clear_suppression: (params) => awareness.clearSuppression(params),
    remind: (params) => awareness.remind(params),
    update_intention: (params) => awareness.updateIntention(params),
    acted_on: (params) => awareness.actedOn(params),
    update_entry: (params) => awareness.updateEntry(params),
    delete_entry: (params) => awareness.deleteEntry(params),
    restore_entry: (params) => awareness.restoreEntry(params)
  })

/**
 * The handlers of {@link toolkit} on the `Awareness` service in context, for a `LanguageModel` or
 * `McpServer.registerToolkit`.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer: Layer.Layer<Tool.HandlersFor<Toolkit.Tools<typeof toolkit>>, never, Awareness> = toolkit.toLayer(
  Effect.gen(function* () {
    return handlers(yield* Awareness)
  })
)

/**
 * The name of an awareness tool.
 *
 * @category models
 * @since 0.1.0
 */
export type Name = keyof Toolkit.Tools<typeof toolkit> & string

/**
 * The tool names, in `tools/list` order.
 *
 * @category constants
 * @since 0.1.0
 */
export const names: ReadonlyArray<Name> = Object.keys(toolkit.tools) as Array<Name>

/**
 * The decoded parameters of a tool: what the `Awareness` method of the same name takes.
 *
 * @category models
 * @since 0.1.0
 */
export type Input<N extends Name> = Tool.Parameters<Toolkit.Tools<typeof toolkit>[N]>

/**
 * The reply of a tool, before encoding.
 *
 * @category models
 * @since 0.1.0
 */
export type Reply<N extends Name> = Tool.Success<Toolkit.Tools<typeof toolkit>[N]>

// ---------------------------------------------------------------------------------------------------------------
// One entry point for every edge

type AnyTool = (typeof toolkit.tools)[Name]

/**
 * The closest of `valid` to `value` within an edit distance of 2 (case-insensitive), as upstream's did-you-mean
 * suggestions; `undefined` when nothing is close enough. Edges phrase their own errors with it.
 *
 * @category getters
 * @since 0.1.0
 */
export const suggest = (value: string, valid: ReadonlyArray<string>): string | undefined => didYouMean(value, valid)

const lookup = (name: string): AnyTool | undefined =>
  Object.hasOwn(toolkit.tools, name) ? toolkit.tools[name as Name] : undefined

/**
 * The JSON Schema (object root) advertised for a tool's input: each parameter's JSON type, description, default,
 * enum and minimum, and the required ones. Coercions a client may rely on (numbers as strings) are accepted but not
 * advertised.
 *
 * @category getters
 * @since 0.1.0
 */
export const inputSchema = (name: Name): Record<string, unknown> =>
  ToolCall.inputSchemaOf(toolkit.tools[name].parametersSchema.fields)

/**
 * Calls one awareness tool by name on the given service with untrusted parameters (a JSON object; `null` values
 * count as omitted): validates them against the tool's schema, runs the handler and returns the reply encoded as
 * JSON-ready data. Fails only with {@link AwarenessError} — `{ code, message, retryable, param?, value?, valid?,
 * suggestion?, help_url? }` where `param` names the offending parameter — so an edge maps it directly: MCP answers
 * it as an `isError` result with upstream's `{"status":"error","error":{…}}` body (`toEnvelope()`), REST as
 * `application/problem+json` (`invalid_parameter` → 400, `not_found` → 404, `unavailable` → 503). An unknown tool
 * name is `not_found` with a did-you-mean suggestion.
 *
 * @category constructors
 * @since 0.1.0
 */
export const callWith = (
  awareness: AwarenessShape,
  name: string,
  params: unknown
): Effect.Effect<unknown, AwarenessError> => {
  const found = lookup(name)
  if (found === undefined) {
    const suggestion = didYouMean(name, names)
    return Effect.fail(
      new AwarenessError({
        code: "not_found",
        message: `There is no tool named '${echo(name)}'.${suggestion === undefined ? "" : ` Did you mean '${suggestion}'?`}`,
        retryable: false,
        ...(suggestion === undefined ? {} : { suggestion })
      })
    )
  }
  const handler: (params: never) => Effect.Effect<unknown, AwarenessError> = handlers(awareness)[found.name]
  const decoded = ToolCall.decodeParameters(found.name, found.parametersSchema, params)
  // Every reply schema is a plain JSON shape (no transformations), so a reply is its own encoding: it is returned
  // as is rather than walked again (a 1,000-entry page would cost milliseconds per call). The toolkit's own
  // `handle` (effect/ai) still encodes, and the tests check the replies against their schemas there.
  return Effect.flatMap(decoded, (decoded) => handler(decoded as never))
}

/**
 * {@link callWith} on the `Awareness` service in context: the entry point for REST (`POST /v1/tools/{name}`) and
 * any other edge outside MCP.
 *
 * @category constructors
 * @since 0.1.0
 */
export const call = (name: string, params: unknown): Effect.Effect<unknown, AwarenessError, Awareness> =>
  Effect.flatMap(Awareness, (awareness) => callWith(awareness, name, params))
