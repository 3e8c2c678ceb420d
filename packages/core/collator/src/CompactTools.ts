/**
 * The compact tool profile: six tools that cover what the 23 upstream-compatible tools of {@link AwarenessTools} do,
 * for agents that pay for `tools/list` on every request (`HEED_TOOLS=compact`). Each call is translated into calls of
 * the full tools and goes through the same validation path (`AwarenessTools.callWith`), so errors name the
 * parameter the same way, and replies are the full tools' replies.
 *
 * - `get_briefing(explain?, format?)`: as in the full profile.
 * - `recall(what?, query?, source?, tags?, type?, state?, since?, limit?, offset?, mode?)`: `search` (the default
 *   with a `query`), `knowledge` (the default without one), `alerts`, `status`, `intentions`, `suppressions`,
 *   `stats` or `tags`.
 * - `report(kind, source, ...)`: `kind: "status"` is `report_status`, `kind: "alert"` is `report_alert`.
 * - `remember(description, kind?, ...)`: a `note` (`remember`), `context` (`add_context`), `pattern`
 *   (`learn_pattern`) or `preference` (`set_preference`); with `entry_id` it edits that entry (`update_entry`).
 * - `remind(goal, deliver_at?, ...)`: `remind`.
 * - `act(action, entry_id?, ...)`: `acknowledge` / `acted_on` (`acted_on`), `resolve` (an alert, by `entry_id` or
 *   `source` + `alert_id`), `done` / `snooze` / `cancel` (`update_intention`), `suppress` (`suppress_alert`),
 *   `unsuppress` (`clear_suppression`), `delete` (`delete_entry`) and `restore` (`restore_entry`).
 *
 * A parameter that the chosen `what`, `kind` or `action` does not use is an `invalid_parameter` error naming it.
 *
 * @since 0.1.0
 */
import * as Toolkit from "effect/ai/Toolkit"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Awareness, type AwarenessShape } from "./Awareness.ts"
import { AwarenessError } from "./AwarenessError.ts"
import * as AwarenessTools from "./AwarenessTools.ts"
import { echo, invalidParameter } from "./internal/errors.ts"
import * as P from "./internal/params.ts"
import { GetBriefing } from "./internal/readTools.ts"
import { didYouMean } from "./internal/text.ts"
import * as ToolCall from "./internal/toolCall.ts"
import { EntryView, optional, required, tool } from "./internal/toolDefs.ts"
import * as ToolOutput from "./internal/toolOutput.ts"

const Reply = Schema.Record(Schema.String, Schema.Unknown)

const recallKinds = ["search", "knowledge", "alerts", "status", "intentions", "suppressions", "stats", "tags"] as const

/**
 * `recall(what?, query?, ...)`: every read besides the briefing.
 *
 * @category models
 * @since 0.1.0
 */
export const Recall = tool("recall", {
  title: "Recall",
  description: "Read: search (with query), knowledge (default), alerts, status, intentions, suppressions, stats, tags.",
  parameters: {
    what: optional(P.literals(recallKinds), "What to read."),
    query: optional(P.string, "Search text."),
    source: optional(P.string, "Source (status needs it)."),
    tags: optional(P.tags, "All of these tags."),
    limit: optional(P.integer(0), "Max entries."),
    fields: optional(P.object, "More filters: type, state, since, offset, mode ('list': metadata only).")
  },
  success: Schema.Union([Reply, Schema.Array(EntryView)]),
  readOnly: true
})

/**
 * `report(kind, source, ...)`: a status or an alert from an edge process.
 *
 * @category models
 * @since 0.1.0
 */
export const Report = tool("report", {
  title: "Report",
  description: "A source's status (stale after ttl_sec, 120) or an alert (by source, alert_id).",
  parameters: {
    kind: required(P.literals(["status", "alert"]), "What to report."),
    source: required(P.requiredString, "Source."),
    tags: optional(P.tags, "Tags."),
    metrics: optional(P.object, "status: metrics."),
    alert_id: optional(P.string, "alert: stable id."),
    level: optional(P.literals(["warning", "critical"]), "alert: severity."),
    message: optional(P.string, "alert: headline."),
    resolved: optional(P.boolean, "alert: resolve it."),
    fields: optional(
      P.object,
      "More: ttl_sec, headline, inventory (status); details, metric, value, threshold, labels, alert_type (alert)."
    )
  },
  success: Reply,
  idempotent: true
})

const memoryKinds = ["note", "context", "pattern", "preference"] as const

/**
 * `remember(description, kind?, ...)`: a note, context, pattern or preference; with `entry_id`, an edit.
 *
 * @category models
 * @since 0.1.0
 */
export const Remember = tool("remember", {
  title: "Remember",
  description: "A durable note, context that expires, a pattern of expected alerts or a preference.",
  parameters: {
    description: optional(P.string, "Summary (preference: key)."),
    kind: optional(P.literals(memoryKinds), "What (note)."),
    source: optional(P.string, "Source (preference: scope)."),
    tags: optional(P.tags, "2-3 tags."),
    content: optional(P.string, "note: body."),
    entry_id: optional(P.string, "Edit this entry."),
    fields: optional(P.object, "More: logical_key (note), expires_days (context), effect, conditions (pattern), value.")
  },
  success: Reply
})

/**
 * `remind(goal, deliver_at?, ...)`: an intention surfaced by a later briefing.
 *
 * @category models
 * @since 0.1.0
 */
export const Remind = tool("remind", {
  title: "Remind",
  description: "A reminder the briefing brings up at deliver_at.",
  parameters: {
    goal: required(P.requiredString, "Goal."),
    deliver_at: optional(P.timestamp, "When (ISO 8601)."),
    source: optional(P.string, "Source."),
    tags: optional(P.tags, "Tags."),
    fields: optional(P.object, "More: urgency (low, normal, high), constraints.")
  },
  success: Reply
})

const actions = [
  "acknowledge",
  "acted_on",
  "resolve",
  "done",
  "snooze",
  "cancel",
  "suppress",
  "unsuppress",
  "delete",
  "restore"
] as const

/**
 * `act(action, entry_id?, ...)`: acknowledge, resolve, finish, snooze, suppress, delete or restore.
 *
 * @category models
 * @since 0.1.0
 */
export const Act = tool("act", {
  title: "Act",
  description:
    "Acknowledge an alert or fired reminder, resolve an alert, finish (done), snooze or cancel a reminder, " +
    "suppress alerts (unsuppress ends it), delete or restore an entry.",
  parameters: {
    action: required(P.literals(actions), "What to do."),
    entry_id: optional(P.string, "The entry."),
    note: optional(P.string, "What was done, or why."),
    fields: optional(
      P.object,
      "More: source, alert_id (resolve); source, tags, metric, level, minutes (suppress, 60); deliver_at (snooze)."
    )
  },
  success: Reply,
  destructive: true
})

/**
 * The compact toolkit, in `tools/list` order.
 *
 * @category models
 * @since 0.1.0
 */
export const toolkit = Toolkit.make(GetBriefing, Recall, Report, Remember, Remind, Act)

/**
 * A compact tool's name.
 *
 * @category models
 * @since 0.1.0
 */
export type Name = keyof Toolkit.Tools<typeof toolkit> & string

/**
 * The compact tool names, in `tools/list` order.
 *
 * @category constants
 * @since 0.1.0
 */
export const names: ReadonlyArray<Name> = Object.keys(toolkit.tools) as Array<Name>

/**
 * The JSON Schema advertised for a compact tool's input.
 *
 * @category getters
 * @since 0.1.0
 */
export const inputSchema = (name: Name): Record<string, unknown> =>
  ToolCall.inputSchemaOf(toolkit.tools[name].parametersSchema.fields)

/**
 * The JSON Schema advertised as a compact tool's `outputSchema` (see `AwarenessTools.outputSchema`).
 *
 * @category getters
 * @since 0.1.0
 */
export const outputSchema = (_name: Name): Record<string, unknown> => ({ ...ToolOutput.outputSchema })

/**
 * Whether a compact tool only reads (`get_briefing`, `recall`); every other one may write, so the briefing notifier
 * looks for a change after it.
 *
 * @category getters
 * @since 0.1.0
 */
export const isReadOnly = (name: string): boolean => name === "get_briefing" || name === "recall"

// ---------------------------------------------------------------------------------------------------------------
// Translation into the full tools

type Params = Readonly<Record<string, unknown>>

/** The given parameters, renamed for the full tool (`from → to`), refusing those the chosen variant does not use. */
const pick = (
  params: Params,
  variant: string,
  allowed: Readonly<Record<string, string>>,
  always: ReadonlyArray<string>
): Effect.Effect<Record<string, unknown>, AwarenessError> => {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || always.includes(key)) continue
    const target = allowed[key]
    if (target === undefined) {
      return Effect.fail(
        invalidParameter(
          key,
          `'${key}' does not apply to ${variant}; ${
            Object.keys(allowed).length === 0
              ? "it takes no other parameters"
              : `it takes ${Object.keys(allowed).join(", ")}`
          }.`,
          { valid: Object.keys(allowed) }
        )
      )
    }
    // An empty target: the parameter is used by the translation itself (e.g. `note` as acted_on's action text).
    if (target !== "") out[target] = value
  }
  return Effect.succeed(out)
}

const same = (...keys: ReadonlyArray<string>): Record<string, string> => Object.fromEntries(keys.map((k) => [k, k]))

const need = (params: Params, key: string, variant: string): Effect.Effect<void, AwarenessError> =>
  params[key] === undefined || params[key] === ""
    ? Effect.fail(invalidParameter(key, `${variant} needs '${key}'.`))
    : Effect.void

const recall = (awareness: AwarenessShape, params: Params) => {
  const what = (params.what as string | undefined) ?? (params.query === undefined ? "knowledge" : "search")
  const variant = `what=${what}`
  const call = (name: string, allowed: Record<string, string>) =>
    Effect.flatMap(pick(params, variant, allowed, ["what"]), (args) => AwarenessTools.callWith(awareness, name, args))
  switch (what) {
    case "search":
      return Effect.andThen(
        need(params, "query", variant),
        call("search", { ...same("query", "source", "tags", "since", "limit", "mode"), type: "entry_type" })
      )
    case "knowledge":
      return call("get_knowledge", {
        ...same("source", "tags", "since", "limit", "offset", "mode"),
        type: "entry_type",
        query: "hint"
      })
    case "alerts":
      return call("get_alerts", same("source", "since", "mode", "limit", "offset"))
    case "status":
      return call("get_status", same("source"))
    case "intentions":
      return call("get_intentions", same("state", "source", "tags", "mode", "limit", "offset"))
    case "suppressions":
      return call("get_suppressions", {})
    case "stats":
      return call("get_stats", {})
    default:
      return call("get_tags", {})
  }
}

const report = (awareness: AwarenessShape, params: Params) => {
  const kind = params.kind as "status" | "alert"
  const variant = `kind=${kind}`
  const common = { tags: params.tags ?? [] }
  return kind === "status"
    ? Effect.flatMap(
        pick(params, variant, same("source", "metrics", "inventory", "ttl_sec", "headline"), ["kind", "tags"]),
        (args) => AwarenessTools.callWith(awareness, "report_status", { metrics: {}, ...args, ...common })
      )
    : Effect.flatMap(
        pick(
          params,
          variant,
          same(
            "source",
            "alert_id",
            "level",
            "message",
            "alert_type",
            "resolved",
            "details",
            "metric",
            "value",
            "threshold",
            "labels"
          ),
          ["kind", "tags"]
        ),
        (args) => AwarenessTools.callWith(awareness, "report_alert", { ...args, ...common })
      )
}

const remember = (awareness: AwarenessShape, params: Params) => {
  if (params.entry_id !== undefined) {
    return Effect.flatMap(
      pick(params, "an edit (entry_id)", same("entry_id", "description", "tags", "source", "content"), []),
      (args) => AwarenessTools.callWith(awareness, "update_entry", args)
    )
  }
  const kind = (params.kind as string | undefined) ?? "note"
  const variant = `kind=${kind}`
  const base = { source: params.source ?? "user", tags: params.tags ?? [] }
  const always = ["kind", "source", "tags"]
  const write = (name: string, allowed: Record<string, string>, extra: Record<string, unknown>) =>
    Effect.flatMap(pick(params, variant, allowed, always), (args) =>
      AwarenessTools.callWith(awareness, name, { ...extra, ...args })
    )
  switch (kind) {
    case "context":
      return write("add_context", same("description", "expires_days"), base)
    case "pattern":
      return write("learn_pattern", same("description", "effect", "conditions"), {
        source: params.source ?? "",
        tags: base.tags
      })
    case "preference":
      return Effect.andThen(
        need(params, "value", variant),
        write("set_preference", { description: "key", value: "value" }, { scope: params.source ?? "global" })
      )
    default:
      return write("remember", same("description", "content", "logical_key"), base)
  }
}

const remind = (awareness: AwarenessShape, params: Params) =>
  Effect.flatMap(
    pick(params, "remind", same("goal", "deliver_at", "source", "tags", "urgency", "constraints"), []),
    (args) => AwarenessTools.callWith(awareness, "remind", { source: "user", tags: [], ...args })
  )

/** The alert an entry id or a (source, alert_id) pair names, among the active ones. */
const findAlert = (awareness: AwarenessShape, params: Params) =>
  Effect.gen(function* () {
    const page = yield* awareness.getAlerts({
      ...(params.source === undefined ? {} : { source: params.source as string }),
      limit: 10_000
    })
    const found = page.entries.find((entry) =>
      params.entry_id === undefined
        ? (entry.data as Params | undefined)?.alert_id === params.alert_id
        : entry.id === params.entry_id
    )
    if (found === undefined) {
      return yield* Effect.fail(
        new AwarenessError({
          code: "not_found",
          message: `No active alert ${echo(String(params.entry_id ?? `${params.source}/${params.alert_id}`))}.`,
          retryable: false
        })
      )
    }
    return found as { readonly source: string; readonly tags: ReadonlyArray<string>; readonly data: Params }
  })

const act = (awareness: AwarenessShape, params: Params) => {
  const action = params.action as (typeof actions)[number]
  const variant = `action=${action}`
  const always = ["action"]
  const byId = (name: string, extra: Record<string, unknown>, allowed: Record<string, string> = same("entry_id")) =>
    Effect.andThen(
      need(params, "entry_id", variant),
      Effect.flatMap(pick(params, variant, allowed, always), (args) =>
        AwarenessTools.callWith(awareness, name, { ...args, ...extra })
      )
    )
  const state = (target: string, allowed: Record<string, string>) =>
    byId("update_intention", { state: target }, allowed)
  switch (action) {
    case "acknowledge":
    case "acted_on":
      return byId("acted_on", { action: params.note ?? "acknowledged" }, { ...same("entry_id", "tags"), note: "" })
    case "done":
      return state("completed", { ...same("entry_id"), note: "reason" })
    case "snooze":
      return Effect.andThen(
        need(params, "deliver_at", variant),
        state("snoozed", { ...same("entry_id", "deliver_at"), note: "reason" })
      )
    case "cancel":
      return state("cancelled", { ...same("entry_id"), note: "reason" })
    case "unsuppress":
      return byId("clear_suppression", {})
    case "delete":
      return byId("delete_entry", {})
    case "restore":
      return byId("restore_entry", {})
    case "suppress":
      return Effect.flatMap(
        pick(
          params,
          variant,
          { ...same("source", "tags", "metric", "level"), minutes: "duration_minutes", note: "reason" },
          always
        ),
        (args) => AwarenessTools.callWith(awareness, "suppress_alert", args)
      )
    default:
      return Effect.gen(function* () {
        yield* pick(params, variant, same("entry_id", "source", "alert_id"), always)
        if (params.entry_id === undefined) {
          yield* need(params, "source", variant)
          yield* need(params, "alert_id", variant)
        }
        const alert = yield* findAlert(awareness, params)
        return yield* AwarenessTools.callWith(awareness, "report_alert", {
          source: alert.source,
          tags: alert.tags,
          alert_id: alert.data.alert_id,
          level: alert.data.level,
          message: alert.data.message,
          resolved: true
        })
      })
  }
}

const handlers: Readonly<
  Record<Name, (awareness: AwarenessShape, params: Params) => Effect.Effect<unknown, AwarenessError>>
> = {
  get_briefing: (awareness, params) => AwarenessTools.callWith(awareness, "get_briefing", params),
  recall,
  report,
  remember,
  remind,
  act
}

/**
 * Calls one compact tool by name on the given service with untrusted parameters: validates them against the
 * compact tool's schema (null as omitted, misspelled names caught), translates the call into full tools and returns
 * their reply. Fails only with `AwarenessError`, as `AwarenessTools.callWith` does; an unknown name is
 * `not_found` with a did-you-mean suggestion.
 *
 * @category constructors
 * @since 0.1.0
 */
export const callWith = (
  awareness: AwarenessShape,
  name: string,
  params: unknown
): Effect.Effect<unknown, AwarenessError> => {
  if (!Object.hasOwn(toolkit.tools, name)) {
    const suggestion = didYouMean(name, names)
    return Effect.fail(
      new AwarenessError({
        code: "not_found",
        message: `There is no tool named '${echo(name)}' in the compact profile.${suggestion === undefined ? "" : ` Did you mean '${suggestion}'?`}`,
        retryable: false,
        ...(suggestion === undefined ? {} : { suggestion })
      })
    )
  }
  const found = toolkit.tools[name as Name]
  const decoded = ToolCall.decodeParameters(found.name, found.parametersSchema, params)
  // Decoding applied no defaults; the full tools apply theirs. `fields` holds the less used parameters: they join
  // the others (the ones given directly win) and are validated by the full tool they go to.
  return Effect.flatMap(decoded, (input) => {
    const { fields, ...direct } = input as Params
    const flat: Record<string, unknown> = {}
    for (const [key, value] of Object.entries((fields ?? {}) as Params)) if (value !== null) flat[key] = value
    return handlers[name as Name](awareness, { ...flat, ...direct })
  })
}

/**
 * {@link callWith} on the `Awareness` service in context.
 *
 * @category constructors
 * @since 0.1.0
 */
export const call = (name: string, params: unknown): Effect.Effect<unknown, AwarenessError, Awareness> =>
  Effect.flatMap(Awareness, (awareness) => callWith(awareness, name, params))
