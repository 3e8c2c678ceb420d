/**
 * The read tools of the awareness toolkit (`get_briefing`, `get_alerts`, `get_status`, `get_knowledge`,
 * `get_suppressions`, `get_intentions`, `get_stats`, `get_tags`, `search`), public as `AwarenessTools.GetBriefing`
 * and so on.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as BriefingView from "../BriefingView.ts"
import { EntryType, IntentionState } from "../Entry.ts"
import * as P from "./params.ts"
import {
  EntryView,
  entryType,
  languageField,
  limitField,
  modeField,
  offsetField,
  optional,
  Page,
  required,
  Stats,
  sinceField,
  tool,
  untilField
} from "./toolDefs.ts"

/**
 * `get_briefing(explain?, format?)`: the compact digest; read it first, once per conversation. By default compact
 * JSON without the `evaluation` block and without healthy sources' `last_report`; `explain: true` returns the
 * full briefing (as the `awareness://briefing` resource); `format: "text"` returns plain text, one line per item,
 * most severe first (see `BriefingView`).
 *
 * @category models
 * @since 0.1.0
 */
export const GetBriefing = tool("get_briefing", {
  title: "Get briefing",
  description:
    "Read first, once per conversation: a compact digest of everything watched. attention_needed is true only " +
    "for a surfaced alert, a stale source, a fired unacknowledged reminder or an upcoming item (info headlines " +
    "never set it). If false, say nothing and there is no suggested_mention; if true, say suggested_mention. " +
    "omitted counts what did not fit.",
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
 * @category models
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
 * @category models
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
 * @category models
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
 * @category models
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
 * @category models
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
 * @category models
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
 * @category models
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
 * @category models
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
