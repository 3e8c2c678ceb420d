/**
 * The tool catalogue: upstream mcp-awareness's tool names, parameters, defaults and descriptions, plus heed's
 * additions (`clear_suppression`; `metric`, `value` and `threshold` on `report_alert`). Each tool maps to the
 * `Awareness` method of the same name in camelCase and takes one object of snake_case parameters.
 *
 * @since 0.1.0
 */
import { EntryType, IntentionState } from "@heed/collator"

/**
 * The JSON type of one parameter.
 *
 * @category models
 * @since 0.1.0
 */
export type ParamType = "string" | "integer" | "number" | "boolean" | "object" | "string[]" | "any"

/**
 * One tool parameter.
 *
 * @category models
 * @since 0.1.0
 */
export interface Param {
  readonly type: ParamType
  readonly description: string
  readonly required?: boolean | undefined
  readonly enum?: ReadonlyArray<string> | undefined
  readonly default?: unknown
  readonly minimum?: number | undefined
}

/**
 * One tool: its upstream name, the `Awareness` method behind it, description, parameters and hints.
 *
 * @category models
 * @since 0.1.0
 */
export interface ToolDefinition {
  readonly name: string
  readonly method: string
  readonly title: string
  readonly description: string
  readonly params: Readonly<Record<string, Param>>
  readonly readOnly: boolean
  readonly destructive?: boolean | undefined
  readonly idempotent?: boolean | undefined
  /** Pretty-print the JSON response (upstream indents the briefing). */
  readonly indent?: boolean | undefined
}

const str = (description: string, extra?: Partial<Param>): Param => ({ type: "string", description, ...extra })
const req = (description: string, extra?: Partial<Param>): Param => ({
  type: "string",
  description,
  required: true,
  ...extra
})
const int = (description: string, extra?: Partial<Param>): Param => ({ type: "integer", description, ...extra })
const bool = (description: string, extra?: Partial<Param>): Param => ({ type: "boolean", description, ...extra })
const obj = (description: string, extra?: Partial<Param>): Param => ({ type: "object", description, ...extra })
const tags = (description: string, extra?: Partial<Param>): Param => ({ type: "string[]", description, ...extra })

const modeParam = str(
  "'list' returns metadata only (id, type, source, tags, description, dates); 'full' (default) whole entries.",
  {
    enum: ["full", "list"],
    default: "full"
  }
)
const limitParam = int("Maximum number of entries (default 100). Always set one.", { minimum: 0 })
const offsetParam = int("Number of entries to skip (default 0).", { minimum: 0, default: 0 })
const sinceParam = str("ISO 8601 timestamp; only entries updated at or after it. Naive timestamps are UTC.")
const untilParam = str("ISO 8601 timestamp; only entries updated before it.")
const languageParam = str("ISO 639-1 language code or 'simple' for full-text search.")
const learnedFrom = str("Who taught this (platform or agent name).", { default: "conversation" })

/**
 * The entry types knowledge queries accept.
 *
 * @category constants
 * @since 0.1.0
 */
export const entryTypes: ReadonlyArray<string> = EntryType.literals

/**
 * Intention states.
 *
 * @category constants
 * @since 0.1.0
 */
export const intentionStates: ReadonlyArray<string> = IntentionState.literals

/**
 * Every tool, in the order `tools/list` reports them.
 *
 * @category constants
 * @since 0.1.0
 */
export const tools: ReadonlyArray<ToolDefinition> = [
  {
    name: "get_briefing",
    method: "getBriefing",
    title: "Get briefing",
    description:
      "Read this first, once per conversation. A compact digest of everything the awareness service " +
      "watches. If attention_needed is false, say nothing about it. If true, mention suggested_mention (or compose " +
      "from the headlines) and drill down only when asked.",
    params: {},
    readOnly: true,
    indent: true
  },
  {
    name: "get_alerts",
    method: "getAlerts",
    title: "Get active alerts",
    description:
      "Active (unresolved, unexpired) alerts, newest first, paginated. Mirrors awareness://alerts and " +
      "awareness://alerts/{source}.",
    params: {
      source: str("Only alerts from this source."),
      since: sinceParam,
      mode: modeParam,
      limit: limitParam,
      offset: offsetParam
    },
    readOnly: true
  },
  {
    name: "get_status",
    method: "getStatus",
    title: "Get source status",
    description: "The full latest status of one source (metrics, inventory, ttl). Mirrors awareness://status/{source}.",
    params: { source: req("The source name, as it appears in the briefing.") },
    readOnly: true
  },
  {
    name: "get_knowledge",
    method: "getKnowledge",
    title: "Get knowledge",
    description:
      "Patterns, context, preferences and notes (by default), most recently updated first, paginated. " +
      "Use list mode first, always set a limit, filter with 2-3 specific tags (AND). Mirrors awareness://knowledge.",
    params: {
      source: str("Only entries from this source."),
      tags: tags("Entries must carry all of these tags."),
      entry_type: str("Only entries of this type.", { enum: entryTypes }),
      include_history: str("'true' keeps changelogs, 'only' returns only entries that have one.", {
        enum: ["true", "false", "only"]
      }),
      since: sinceParam,
      until: untilParam,
      learned_from: str("Only entries taught by this platform."),
      created_after: str("ISO 8601; only entries created at or after it."),
      created_before: str("ISO 8601; only entries created before it."),
      hint: str("Free text used to re-rank results by relevance."),
      mode: modeParam,
      limit: limitParam,
      offset: offsetParam,
      language: languageParam
    },
    readOnly: true
  },
  {
    name: "get_suppressions",
    method: "getSuppressions",
    title: "Get suppressions",
    description: "Active (unexpired) suppressions. Mirrors awareness://suppressions.",
    params: {},
    readOnly: true
  },
  {
    name: "get_intentions",
    method: "getIntentions",
    title: "Get intentions",
    description: "Reminders and intentions, filtered by state, source or tags.",
    params: {
      state: str("Only intentions in this state.", { enum: intentionStates }),
      source: str("Only intentions from this source."),
      tags: tags("Intentions must carry all of these tags."),
      mode: modeParam,
      limit: limitParam
    },
    readOnly: true
  },
  {
    name: "get_stats",
    method: "getStats",
    title: "Get statistics",
    description: "Entry counts per type, the known sources and the total. Cheap; call before broad queries.",
    params: {},
    readOnly: true
  },
  {
    name: "get_tags",
    method: "getTags",
    title: "Get tags",
    description: "Every tag in use with its count, most used first. Cheap; call before filtering by tags.",
    params: {},
    readOnly: true
  },
  {
    name: "search",
    method: "search",
    title: "Search",
    description: "Full-text search over entries (hybrid with embeddings when a provider is configured).",
    params: {
      query: req("What to look for."),
      source: str("Only entries from this source."),
      tags: tags("Entries must carry all of these tags."),
      entry_type: str("Only entries of this type.", { enum: entryTypes }),
      since: sinceParam,
      until: untilParam,
      limit: int("Maximum results, clamped to 1..100.", { default: 10 }),
      mode: modeParam,
      language: languageParam
    },
    readOnly: true
  },
  {
    name: "report_status",
    method: "reportStatus",
    title: "Report status",
    description:
      "Edge processes: report a source's current metrics. Replaces the previous status of the source. " +
      "The source goes stale when it does not report again within ttl_sec.",
    params: {
      source: req("The reporting source (e.g. 'synology-nas')."),
      tags: tags("Tags for the source.", { required: true }),
      metrics: obj("Current metrics (numbers, strings).", { required: true }),
      inventory: obj("Optional inventory (containers, disks, …)."),
      ttl_sec: int("Seconds until the source counts as stale.", { default: 120, minimum: 1 }),
      headline: str("heed: an informational headline shown for the source while it is ok.")
    },
    readOnly: false,
    idempotent: true
  },
  {
    name: "report_alert",
    method: "reportAlert",
    title: "Report alert",
    description:
      "Edge processes: raise, update or resolve an alert, keyed by (source, alert_id). Re-reporting " +
      "merges details; resolved=true resolves it.",
    params: {
      source: req("The reporting source."),
      tags: tags("Tags used by suppressions and patterns.", { required: true }),
      alert_id: req("Stable id of the alert within its source."),
      level: req("Severity.", { enum: ["warning", "critical"] }),
      alert_type: str("Kind of alert.", { enum: ["threshold", "structural", "baseline"], default: "threshold" }),
      message: req("One human sentence; becomes the briefing headline."),
      details: obj("Structured details."),
      diagnostics: obj("Diagnostics for drill-down."),
      resolved: bool("Resolve the alert.", { default: false }),
      metric: str("heed: the metric this alert is about (enables metric-scoped suppressions)."),
      value: { type: "number", description: "heed: the observed value." },
      threshold: { type: "number", description: "heed: the threshold that was crossed." },
      labels: obj("heed: string labels used by inhibition rules and grouping (Alertmanager style).")
    },
    readOnly: false,
    idempotent: true
  },
  {
    name: "learn_pattern",
    method: "learnPattern",
    title: "Learn pattern",
    description:
      "Teach an expected behaviour so matching alerts stay out of the briefing (e.g. 'qbittorrent stops " +
      "on Fridays for maintenance').",
    params: {
      source: req("The source the pattern applies to ('' for all)."),
      tags: tags("Tags of the pattern.", { required: true }),
      description: req("What is expected and why."),
      conditions: obj("When it holds: day_of_week (e.g. 'friday'), hour_range [start, end)."),
      effect: str("What to suppress (e.g. 'suppress qbittorrent_stopped')."),
      learned_from: learnedFrom,
      language: languageParam
    },
    readOnly: false
  },
  {
    name: "remember",
    method: "remember",
    title: "Remember",
    description:
      "Store a durable note. Use when it will still be true in 30 days; otherwise use add_context. " +
      "With logical_key, re-remembering updates the same note.",
    params: {
      source: req("Where the knowledge comes from or belongs."),
      tags: tags("2-3 specific tags.", { required: true }),
      description: req("A one-line summary."),
      content: { type: "any", description: "Optional body (text or JSON)." },
      content_type: str("MIME type of content.", { default: "text/plain" }),
      learned_from: learnedFrom,
      logical_key: str("Stable key to upsert the same note."),
      language: languageParam
    },
    readOnly: false
  },
  {
    name: "add_context",
    method: "addContext",
    title: "Add context",
    description: "Store time-limited context that expires after expires_days.",
    params: {
      source: req("Where the context belongs."),
      tags: tags("Tags.", { required: true }),
      description: req("The context."),
      expires_days: int("Days until it expires (minimum 1).", { default: 30, minimum: 1 }),
      language: languageParam
    },
    readOnly: false
  },
  {
    name: "set_preference",
    method: "setPreference",
    title: "Set preference",
    description: "Set a user preference (upserted by key and scope).",
    params: {
      key: req("Preference key."),
      value: req("Preference value."),
      scope: str("Scope of the preference.", { default: "global" })
    },
    readOnly: false,
    idempotent: true
  },
  {
    name: "suppress_alert",
    method: "suppressAlert",
    title: "Suppress alerts",
    description:
      "Silence matching alerts for duration_minutes (use this, not memory edits). Matches by source " +
      "(omit for all), metric and tags; with escalation_override a more severe alert still breaks through.",
    params: {
      source: str("Only alerts from this source (omit for every source)."),
      tags: tags("Alerts matching any of these tags (or mentioning them)."),
      metric: str("Only alerts about this metric."),
      level: str("Suppress up to this level.", { enum: ["warning", "critical"], default: "warning" }),
      duration_minutes: int("Minutes until the suppression expires (at least 1).", { default: 60, minimum: 1 }),
      escalation_override: bool("Let a more severe alert break through.", { default: true }),
      reason: str("Why (shown in get_suppressions).", { default: "" }),
      time_intervals: {
        type: "any",
        description:
          "heed: recurring windows in which the suppression applies (Alertmanager time_intervals), e.g. " +
          '[{"weekdays":["saturday","sunday"]}].'
      }
    },
    readOnly: false
  },
  {
    name: "clear_suppression",
    method: "clearSuppression",
    title: "Clear suppression",
    description: "heed: end a suppression now; its alerts re-surface in the next briefing.",
    params: { entry_id: req("The suppression's id.") },
    readOnly: false,
    destructive: true
  },
  {
    name: "remind",
    method: "remind",
    title: "Remind",
    description: "Create an intention: a goal to surface later (at deliver_at) in the briefing.",
    params: {
      goal: req("What should happen."),
      source: req("Where it belongs."),
      tags: tags("Tags.", { required: true }),
      deliver_at: str("ISO 8601 time to surface it."),
      constraints: { type: "any", description: "Optional constraints." },
      urgency: str("Urgency.", { enum: ["low", "normal", "high"], default: "normal" }),
      recurrence: str("Reserved for recurring intentions."),
      learned_from: learnedFrom,
      language: languageParam
    },
    readOnly: false
  },
  {
    name: "update_intention",
    method: "updateIntention",
    title: "Update intention",
    description: "Move an intention to another state (e.g. completed, snoozed, cancelled).",
    params: {
      entry_id: req("The intention's id."),
      state: req("The new state.", { enum: intentionStates }),
      reason: str("Why."),
      deliver_at: str("ISO 8601: when a snoozed intention fires again.")
    },
    readOnly: false
  },
  {
    name: "acted_on",
    method: "actedOn",
    title: "Acted on",
    description: "Record that you acted on an entry (acknowledges alerts).",
    params: {
      entry_id: req("The entry's id."),
      action: req("What was done."),
      platform: str("Where it was done."),
      detail: str("Details."),
      tags: tags("Tags (default: the entry's tags).")
    },
    readOnly: false
  },
  {
    name: "update_entry",
    method: "updateEntry",
    title: "Update entry",
    description: "Edit a note, pattern, context, preference or record in place; changes are kept in a changelog.",
    params: {
      entry_id: req("The entry's id."),
      description: str("New description."),
      tags: tags("New tags."),
      source: str("New source."),
      content: { type: "any", description: "New content." },
      content_type: str("New content type."),
      language: languageParam
    },
    readOnly: false
  },
  {
    name: "delete_entry",
    method: "deleteEntry",
    title: "Delete entries",
    description:
      "Soft-delete (recoverable for 30 days) by entry_id, or by tags (AND) or source(+type); bulk " +
      "deletes are a dry run unless confirm=true.",
    params: {
      source: str("Delete entries of this source."),
      entry_type: str("Restrict to this type.", { enum: entryTypes }),
      entry_id: str("Delete this entry."),
      tags: tags("Delete entries carrying all these tags."),
      confirm: bool("Really delete (bulk paths).", { default: false })
    },
    readOnly: false,
    destructive: true
  },
  {
    name: "restore_entry",
    method: "restoreEntry",
    title: "Restore entries",
    description: "Restore soft-deleted entries by id or by tags (AND).",
    params: { entry_id: str("Restore this entry."), tags: tags("Restore entries carrying all these tags.") },
    readOnly: false
  }
]

/**
 * Looks a tool up by name.
 *
 * @category getters
 * @since 0.1.0
 */
export const find = (name: string): ToolDefinition | undefined => tools.find((tool) => tool.name === name)

/**
 * The JSON Schema (object root) advertised for a tool's input.
 *
 * @category getters
 * @since 0.1.0
 */
export const inputSchema = (tool: ToolDefinition): Record<string, unknown> => {
  const properties: Record<string, unknown> = {}
  const required: Array<string> = []
  for (const [name, param] of Object.entries(tool.params)) {
    const schema: Record<string, unknown> = { description: param.description }
    switch (param.type) {
      case "string[]":
        schema.type = "array"
        schema.items = { type: "string" }
        break
      case "any":
        break
      default:
        schema.type = param.type
    }
    if (param.enum !== undefined) schema.enum = param.enum
    if (param.default !== undefined) schema.default = param.default
    if (param.minimum !== undefined) schema.minimum = param.minimum
    properties[name] = schema
    if (param.required === true) required.push(name)
  }
  return required.length === 0 ? { type: "object", properties } : { type: "object", properties, required }
}
