/**
 * Awareness entries: mcp-awareness's envelope (`id, type, source, tags, created, updated, expires, deleted, data,
 * logical_key`) and one `data` schema per entry type, with upstream's field names and defaults.
 *
 * Timestamps are ISO 8601 strings, as upstream's JSON shapes have them; the schemas check that each one names a real
 * instant ({@link IsoTimestamp}).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { parseIso } from "./internal/time.ts"

const withDefault = <S extends Schema.Top>(schema: S, value: S["Encoded"]) =>
  schema.pipe(Schema.withDecodingDefaultKey(Effect.succeed(value)))

const JsonObject = Schema.Record(Schema.String, Schema.Unknown)

const isoShape = /^\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}(?::?\d{2})?)?)?$/

/**
 * An ISO 8601 timestamp string that names a real instant: a date (`2026-03-19`) or a date and time with optional
 * seconds, fraction and offset (`2026-03-19T15:00:00Z`, `2026-03-19T16:00:00.5+01:00`; without an offset it is
 * UTC). Anything else (`"yesterday"`, `"soon"`, `"2026-13-45T00:00:00Z"`) is rejected with a message naming the
 * expected shape.
 *
 * @category schemas
 * @since 0.1.0
 */
export const IsoTimestamp = Schema.String.check(
  Schema.makeFilter((text: string) =>
    isoShape.test(text) && parseIso(text) !== undefined
      ? undefined
      : `expected an ISO 8601 timestamp such as "2026-03-19T15:00:00Z", got ${JSON.stringify(text)}`
  )
).annotate({ identifier: "IsoTimestamp" })

/**
 * Every entry type upstream knows: `status, alert, pattern, suppression, context, preference, note, intention,
 * schema, record`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const EntryType = Schema.Literals([
  "status",
  "alert",
  "pattern",
  "suppression",
  "context",
  "preference",
  "note",
  "intention",
  "schema",
  "record"
])

/**
 * An entry type.
 *
 * @category models
 * @since 0.1.0
 */
export type EntryType = typeof EntryType.Type

/**
 * An alert level. Tools accept `warning | critical`; `info` is used internally (and by status headlines).
 *
 * @category schemas
 * @since 0.1.0
 */
export const Level = Schema.Literals(["info", "warning", "critical"])

/**
 * An alert level.
 *
 * @category models
 * @since 0.1.0
 */
export type Level = typeof Level.Type

/**
 * Severity rank as upstream: `info 0, warning 1, critical 2`, anything else `-1`.
 *
 * @category getters
 * @since 0.1.0
 */
export const severityRank = (level: unknown): number =>
  level === "critical" ? 2 : level === "warning" ? 1 : level === "info" ? 0 : -1

/**
 * The states of an intention. heed constrains the transitions (see `Awareness.updateIntention`).
 *
 * @category schemas
 * @since 0.1.0
 */
export const IntentionState = Schema.Literals(["pending", "fired", "active", "completed", "snoozed", "cancelled"])

/**
 * An intention state.
 *
 * @category models
 * @since 0.1.0
 */
export type IntentionState = typeof IntentionState.Type

/**
 * A recurring time window (Alertmanager's `time_intervals`, reduced to what a suppression needs): `weekdays`
 * (lower-case full names, e.g. `"saturday"`), `times` (`{ start_time: "HH:MM", end_time: "HH:MM" }`, end exclusive,
 * wrapping past midnight when end < start) and `location` (an IANA time zone; default: the owner's zone).
 * A missing list means "any".
 *
 * @category schemas
 * @since 0.1.0
 */
export const TimeInterval = Schema.Struct({
  weekdays: Schema.optionalKey(Schema.Array(Schema.String)),
  times: Schema.optionalKey(Schema.Array(Schema.Struct({ start_time: Schema.String, end_time: Schema.String }))),
  location: Schema.optionalKey(Schema.String)
})

/**
 * A recurring time window.
 *
 * @category models
 * @since 0.1.0
 */
export type TimeInterval = typeof TimeInterval.Type

/**
 * `status` data: `metrics`, optional `inventory`, `ttl_sec` (default 120). heed adds an optional `headline`: an
 * informational line (e.g. a calendar note) that shows as status `info` when the source has no active alert.
 *
 * @category schemas
 * @since 0.1.0
 */
export const StatusData = Schema.Struct({
  metrics: withDefault(JsonObject, {}),
  inventory: Schema.optionalKey(JsonObject),
  ttl_sec: withDefault(Schema.Int, 120),
  headline: Schema.optionalKey(Schema.String)
})

/**
 * `status` data.
 *
 * @category models
 * @since 0.1.0
 */
export type StatusData = typeof StatusData.Type

/**
 * `alert` data: upstream's `alert_id, level, alert_type, message, resolved, details?, diagnostics?` plus heed's
 * `metric`, `value`, `threshold` (so metric-scoped suppressions match), `labels` (for inhibition `equal`),
 * `state_changes` (ISO times the alert fired or resolved, newest last; drives flap damping) and
 * `acknowledged_at` (set by `acted_on`).
 *
 * @category schemas
 * @since 0.1.0
 */
export const AlertData = Schema.Struct({
  alert_id: Schema.String,
  level: Level,
  alert_type: withDefault(Schema.Literals(["threshold", "structural", "baseline"]), "threshold"),
  message: Schema.String,
  resolved: withDefault(Schema.Boolean, false),
  details: Schema.optionalKey(Schema.Unknown),
  diagnostics: Schema.optionalKey(Schema.Unknown),
  metric: Schema.optionalKey(Schema.String),
  value: Schema.optionalKey(Schema.Finite),
  threshold: Schema.optionalKey(Schema.Finite),
  labels: Schema.optionalKey(Schema.Record(Schema.String, Schema.String)),
  state_changes: Schema.optionalKey(Schema.Array(IsoTimestamp)),
  acknowledged_at: Schema.optionalKey(IsoTimestamp)
})

/**
 * `alert` data.
 *
 * @category models
 * @since 0.1.0
 */
export type AlertData = typeof AlertData.Type

/**
 * `pattern` data: `description`, `conditions` (default `{}`), `effect` (default `""`), `learned_from` (default
 * `"conversation"`). Known condition keys are listed in `Pattern.conditionKeys`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const PatternData = Schema.Struct({
  description: Schema.String,
  conditions: withDefault(JsonObject, {}),
  effect: withDefault(Schema.String, ""),
  learned_from: withDefault(Schema.String, "conversation")
})

/**
 * `pattern` data.
 *
 * @category models
 * @since 0.1.0
 */
export type PatternData = typeof PatternData.Type

/**
 * `suppression` data: `metric` (default `null`), `suppress_level` (default `"warning"`), `escalation_override`
 * (default `true`), `reason` (default `""`), plus heed's optional `time_intervals` (recurring windows).
 *
 * @category schemas
 * @since 0.1.0
 */
export const SuppressionData = Schema.Struct({
  metric: withDefault(Schema.NullOr(Schema.String), null),
  suppress_level: withDefault(Schema.Literals(["warning", "critical"]), "warning"),
  escalation_override: withDefault(Schema.Boolean, true),
  reason: withDefault(Schema.String, ""),
  time_intervals: Schema.optionalKey(Schema.Array(TimeInterval))
})

/**
 * `suppression` data.
 *
 * @category models
 * @since 0.1.0
 */
export type SuppressionData = typeof SuppressionData.Type

/**
 * `context` data: a `description`; the envelope's `expires` defaults to 30 days after creation.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ContextData = Schema.Struct({ description: Schema.String })

/**
 * `context` data.
 *
 * @category models
 * @since 0.1.0
 */
export type ContextData = typeof ContextData.Type

/**
 * `preference` data: `key`, `value`, `scope` (default `"global"`).
 *
 * @category schemas
 * @since 0.1.0
 */
export const PreferenceData = Schema.Struct({
  key: Schema.String,
  value: Schema.String,
  scope: withDefault(Schema.String, "global")
})

/**
 * `preference` data.
 *
 * @category models
 * @since 0.1.0
 */
export type PreferenceData = typeof PreferenceData.Type

/**
 * One changelog record: when, and the previous values of the fields that changed.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ChangelogEntry = Schema.Struct({ updated: IsoTimestamp, changed: JsonObject })

/**
 * One changelog record.
 *
 * @category models
 * @since 0.1.0
 */
export type ChangelogEntry = typeof ChangelogEntry.Type

/**
 * `note` data: `description`, optional `content`, `content_type` (default `"text/plain"`), `learned_from`
 * (default `"conversation"`), optional `changelog`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const NoteData = Schema.Struct({
  description: Schema.String,
  content: Schema.optionalKey(Schema.String),
  content_type: withDefault(Schema.String, "text/plain"),
  learned_from: withDefault(Schema.String, "conversation"),
  changelog: Schema.optionalKey(Schema.Array(ChangelogEntry))
})

/**
 * `note` data.
 *
 * @category models
 * @since 0.1.0
 */
export type NoteData = typeof NoteData.Type

/**
 * `intention` data: `goal`, `state` (default `"pending"`), optional `deliver_at` (ISO), `constraints`, `urgency`
 * (`low | normal | high`, default `"normal"`), `recurrence` (reserved), `state_reason`, `learned_from`
 * (default `"conversation"`), `changelog`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const IntentionData = Schema.Struct({
  goal: Schema.String,
  state: withDefault(IntentionState, "pending"),
  deliver_at: Schema.optionalKey(IsoTimestamp),
  constraints: Schema.optionalKey(Schema.String),
  urgency: withDefault(Schema.Literals(["low", "normal", "high"]), "normal"),
  recurrence: Schema.optionalKey(Schema.String),
  state_reason: Schema.optionalKey(Schema.String),
  learned_from: withDefault(Schema.String, "conversation"),
  changelog: Schema.optionalKey(Schema.Array(ChangelogEntry))
})

/**
 * `intention` data.
 *
 * @category models
 * @since 0.1.0
 */
export type IntentionData = typeof IntentionData.Type

const envelope = Schema.Struct({
  id: Schema.String,
  type: EntryType,
  source: Schema.String,
  tags: withDefault(Schema.Array(Schema.String), []),
  created: IsoTimestamp,
  updated: withDefault(Schema.NullOr(IsoTimestamp), null),
  expires: withDefault(Schema.NullOr(IsoTimestamp), null),
  deleted: withDefault(Schema.NullOr(IsoTimestamp), null),
  data: withDefault(JsonObject, {}),
  logical_key: Schema.optionalKey(Schema.NullOr(Schema.String))
}).annotate({ identifier: "Entry" })

/**
 * The per-type `data` schemas, keyed by entry type (`schema` and `record` entries keep free-form data here).
 *
 * @category schemas
 * @since 0.1.0
 */
export const dataSchemas = {
  status: StatusData,
  alert: AlertData,
  pattern: PatternData,
  suppression: SuppressionData,
  context: ContextData,
  preference: PreferenceData,
  note: NoteData,
  intention: IntentionData
} as const

/**
 * The entry envelope schema (`id, type, source, tags, created, updated, expires, deleted, data, logical_key`). The
 * per-type data schemas ({@link StatusData}, {@link AlertData}, ...) decode its `data`; {@link dataSchemas} has them
 * keyed by type.
 *
 * **Example** (Decoding an alert entry)
 *
 * ```ts
 * import { Entry } from "@heed/collator"
 * import { Schema } from "effect"
 *
 * const entry = Schema.decodeUnknownSync(Entry.Entry)({
 *   id: "a1", type: "alert", source: "nas", created: "2026-03-19T15:00:00Z",
 *   data: { alert_id: "cpu", level: "warning", message: "CPU at 97%" }
 * })
 * const alert = Schema.decodeUnknownSync(Entry.AlertData)(entry.data) // resolved: false, alert_type: "threshold"
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const Entry = envelope

/**
 * An entry: the envelope with `data` as a JSON object (decode it with the type's schema for typed access).
 *
 * @category models
 * @since 0.1.0
 */
export type Entry = typeof envelope.Type
