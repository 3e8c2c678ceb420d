/**
 * The data of one session, in CCM's file format: manifest entries, log lines, the expansion state
 * (`expanded.json`) and the session state (`session_state.json`). heed's extra fields are optional, so files
 * written by CCM load unchanged.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * An effort's status. "Expanded" is deliberately not a status: it is transient state in {@link ExpandedState}.
 *
 * @category schemas
 * @since 0.1.0
 */
export const EffortStatus = Schema.Literals(["open", "concluded"])

/**
 * An effort's status.
 *
 * @category models
 * @since 0.1.0
 */
export type EffortStatus = typeof EffortStatus.Type

/**
 * A manifest entry (`manifest.yaml`).
 *
 * @category schemas
 * @since 0.1.0
 */
export const Effort = Schema.Struct({
  id: Schema.String,
  status: EffortStatus,
  active: Schema.optional(Schema.Boolean),
  summary: Schema.NullOr(Schema.String),
  raw_file: Schema.String,
  created: Schema.String,
  updated: Schema.String
}).annotate({ identifier: "Effort" })

/**
 * A manifest entry.
 *
 * @category models
 * @since 0.1.0
 */
export type Effort = typeof Effort.Type

/**
 * A tool call recorded on an assistant message (heed extension of the log format).
 *
 * @category schemas
 * @since 0.1.0
 */
export const ToolCall = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  arguments: Schema.Unknown
}).annotate({ identifier: "ToolCall" })

/**
 * A tool call recorded on an assistant message.
 *
 * @category models
 * @since 0.1.0
 */
export type ToolCall = typeof ToolCall.Type

/**
 * One line of a raw log (`raw.jsonl`, `efforts/{id}.jsonl`): `{role, content, ts}`. heed adds the optional
 * `tool_calls` (on assistant messages) and `tool_call_id` (on `tool` results) so a call and its result stay
 * together.
 *
 * @category schemas
 * @since 0.1.0
 */
export const LogMessage = Schema.Struct({
  role: Schema.Literals(["system", "user", "assistant", "tool"]),
  content: Schema.String,
  ts: Schema.String,
  tool_calls: Schema.optional(Schema.Array(ToolCall)),
  tool_call_id: Schema.optional(Schema.String)
}).annotate({ identifier: "LogMessage" })

/**
 * One line of a raw log.
 *
 * @category models
 * @since 0.1.0
 */
export type LogMessage = typeof LogMessage.Type

const TurnRecord = Schema.Record(Schema.String, Schema.Finite)

/**
 * The expansion state (`expanded.json`). CCM's fields plus heed's optional `decay_thresholds` (per-effort
 * thresholds, raised by hysteresis), `auto_collapsed_turn` (when each effort last decayed) and `false_decays`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ExpandedState = Schema.Struct({
  expanded: Schema.Array(Schema.String),
  expanded_at: Schema.Record(Schema.String, Schema.String),
  last_referenced_turn: TurnRecord,
  summary_last_referenced_turn: Schema.optional(TurnRecord),
  decay_thresholds: Schema.optional(TurnRecord),
  expanded_turn: Schema.optional(TurnRecord),
  auto_collapsed_turn: Schema.optional(TurnRecord),
  false_decays: Schema.optional(TurnRecord)
}).annotate({ identifier: "ExpandedState" })

/**
 * The expansion state.
 *
 * @category models
 * @since 0.1.0
 */
export type ExpandedState = typeof ExpandedState.Type

/**
 * An empty expansion state.
 *
 * @category constructors
 * @since 0.1.0
 */
export const emptyExpanded: ExpandedState = { expanded: [], expanded_at: {}, last_referenced_turn: {} }

/**
 * Running totals behind the decay metrics, persisted with the session state (heed extension).
 *
 * @category schemas
 * @since 0.1.0
 */
export const MetricTotals = Schema.Struct({
  auto_collapses: Schema.Finite,
  manual_collapses: Schema.Finite,
  false_decays: Schema.Finite,
  completed_expansions: Schema.Finite,
  expansion_turns: Schema.Finite,
  tokens_saved_by_decay: Schema.Finite
}).annotate({ identifier: "MetricTotals" })

/**
 * Running totals behind the decay metrics.
 *
 * @category models
 * @since 0.1.0
 */
export type MetricTotals = typeof MetricTotals.Type

/**
 * All-zero metric totals.
 *
 * @category constructors
 * @since 0.1.0
 */
export const emptyTotals: MetricTotals = {
  auto_collapses: 0,
  manual_collapses: 0,
  false_decays: 0,
  completed_expansions: 0,
  expansion_turns: 0,
  tokens_saved_by_decay: 0
}

/**
 * The session state (`session_state.json`): `{turn_count, updated}`, plus heed's optional metric totals.
 *
 * @category schemas
 * @since 0.1.0
 */
export const SessionState = Schema.Struct({
  turn_count: Schema.Finite,
  updated: Schema.optional(Schema.String),
  metrics: Schema.optional(MetricTotals)
}).annotate({ identifier: "SessionState" })

/**
 * The session state.
 *
 * @category models
 * @since 0.1.0
 */
export type SessionState = typeof SessionState.Type

/**
 * Everything a `SessionStore` loads for one session.
 *
 * @category models
 * @since 0.1.0
 */
export interface Snapshot {
  /** The manifest, in order. */
  readonly manifest: ReadonlyArray<Effort>
  /** Ambient messages (`raw.jsonl`). */
  readonly ambient: ReadonlyArray<LogMessage>
  /** Each effort's raw log, by id. */
  readonly logs: ReadonlyMap<string, ReadonlyArray<LogMessage>>
  /** The expansion state. */
  readonly expanded: ExpandedState
  /** The session state. */
  readonly session: SessionState
}
