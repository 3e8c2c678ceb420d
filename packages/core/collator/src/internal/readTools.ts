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
    "Read first, once per conversation. attention_needed is true only for an alert, a stale source, an " +
    "unacknowledged fired reminder or an upcoming item (never info headlines): then say suggested_mention, else " +
    "nothing. omitted counts what did not fit.",
  parameters: {
    explain: optional(P.boolean, "Add evaluation and last_report."),
    format: optional(P.literals(BriefingView.Format.literals), "text: fewest tokens.")
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
  description: "Active alerts, newest first.",
  parameters: {
    source: optional(P.string, "Source."),
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
  description: "A source's latest status.",
  parameters: { source: required(P.requiredString, "Source name.") },
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
  description: "Notes, patterns, context, preferences. Use list mode and a limit.",
  parameters: {
    source: optional(P.string, "Source."),
    tags: optional(P.tags, "Tags (all)."),
    entry_type: optional(
      Schema.Union([entryType, Schema.Array(entryType)]).annotate({
        [P.jsonKey]: { type: "string", enum: EntryType.literals },
        [P.expectedKey]: `one of ${EntryType.literals.join(", ")}`,
        [P.validKey]: EntryType.literals
      }),
      "Entry type."
    ),
    include_history: optional(P.literals(["true", "false", "only"]), "Changelogs: keep or only."),
    since: sinceField,
    until: untilField,
    learned_from: optional(P.string, "Taught by."),
    created_after: optional(P.timestamp, "Created since."),
    created_before: optional(P.timestamp, "Created before."),
    hint: optional(P.string, "Ranking text."),
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
  description: "Active suppressions.",
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
  description: "Reminders (intentions).",
  parameters: {
    state: optional(P.literals(IntentionState.literals), "State."),
    source: optional(P.string, "Source."),
    tags: optional(P.tags, "Tags (all)."),
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
  description: "Counts and sources. Cheap.",
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
  description: "Tags with counts. Cheap.",
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
  description: "Full-text search.",
  parameters: {
    query: required(P.requiredString, "Query."),
    source: optional(P.string, "Source."),
    tags: optional(P.tags, "Tags (all)."),
    entry_type: optional(entryType, "Entry type."),
    since: sinceField,
    until: untilField,
    limit: optional(P.number, "Max results.", 10),
    mode: modeField,
    language: languageField
  },
  success: Schema.Array(EntryView),
  readOnly: true
})
