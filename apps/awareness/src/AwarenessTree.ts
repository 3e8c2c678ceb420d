/**
 * The awareness store as a SLOP state tree (a view at the app level; the cores stay independent): root → `sources`
 * (one node per source: status, last report, headline; salience and urgency from its status, critical sources
 * pinned) → that source's active alerts (salience from level, `reason` from the message); `intentions` (due ones
 * urgent); `suppressions`. Affordances name the tools they invoke (see `LiveTree`).
 *
 * Children keep a stable order and priority is expressed by salience and urgency, as SLOP intends: a change of the
 * store is then appends, removes and field replaces, which SLOP's own consumer applies exactly in its default patch
 * format (a reordered list would be sent whole). Consumers that show severity order sort on their side.
 *
 * @since 0.1.0
 */
import { type Entry, Pattern, Suppression } from "@heed/collator"
import type { Node as SlopNode } from "@heed/state-tree"
import * as Predicate from "effect/Predicate"
import { inputSchemaOf } from "./ToolCall.ts"

/**
 * What the tree is built from: the tools' own replies (`get_briefing`, `get_knowledge` of status entries,
 * `get_alerts`, `get_intentions`, `get_suppressions`).
 *
 * @category models
 * @since 0.1.0
 */
export interface Snapshot {
  readonly briefing: unknown
  /** The sources' latest status entries (`get_knowledge` with `entry_type: "status"`). */
  readonly statuses: ReadonlyArray<unknown>
  readonly alerts: ReadonlyArray<unknown>
  readonly intentions: ReadonlyArray<unknown>
  readonly suppressions: ReadonlyArray<unknown>
  /** The patterns (`get_knowledge` with `entry_type: "pattern"`): alerts they explain are marked, as suppressed ones. */
  readonly patterns?: ReadonlyArray<unknown> | undefined
}

type Node = SlopNode.Node
type Json = Readonly<Record<string, unknown>>
type Urgency = "none" | "low" | "medium" | "high" | "critical"

const record = (value: unknown): Json => (Predicate.isObject(value) && !Array.isArray(value) ? (value as Json) : {})
const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)

/**
 * A node id for a name that may contain `/`, `~` or `%`, or be a reserved word: those characters are
 * percent-encoded and a reserved word gets a `%` prefix, so every name maps to a distinct valid id.
 *
 * @category getters
 * @since 0.1.0
 */
export const nodeId = (name: string): string => {
  const escaped = name.replace(/[%/~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`)
  if (escaped === "") return "%"
  return ["properties", "children", "affordances", "meta", "content_ref", "id", "type"].includes(escaped)
    ? `%${escaped}`
    : escaped
}

const statusAttention: Record<string, { salience: number; urgency: Urgency }> = {
  critical: { salience: 1, urgency: "critical" },
  warning: { salience: 0.8, urgency: "medium" },
  stale: { salience: 0.6, urgency: "low" },
  ok: { salience: 0.3, urgency: "none" }
}

const levelAttention: Record<string, { salience: number; urgency: Urgency }> = {
  critical: { salience: 1, urgency: "high" },
  warning: { salience: 0.7, urgency: "medium" },
  info: { salience: 0.4, urgency: "low" }
}

const dimmedAttention: { salience: number; urgency: Urgency } = { salience: 0.2, urgency: "none" }

/** The schema of an affordance: the named parameters of a tool's own input schema (never a second copy). */
const paramsFrom = (tool: string, names: ReadonlyArray<string>): SlopNode.JsonSchema => {
  const properties = record(inputSchemaOf(tool).properties)
  const picked: Record<string, unknown> = {}
  for (const name of names) if (properties[name] !== undefined) picked[name] = properties[name]
  return { type: "object", properties: picked as Record<string, SlopNode.JsonSchema> }
}

const suppress = {
  action: "suppress",
  label: "Suppress",
  description: "Silence this for a while (suppress_alert).",
  params: paramsFrom("suppress_alert", ["duration_minutes", "reason"])
}
const acknowledge = {
  action: "acknowledge",
  label: "Acknowledge",
  description: "Record that the alert was seen and acted on (acted_on).",
  params: paramsFrom("acted_on", ["action", "platform", "detail"])
}
const clear = {
  action: "clear",
  label: "Clear",
  description: "End this suppression now (clear_suppression).",
  dangerous: true
}
const fire = { action: "fire", label: "Fire", description: "Surface this intention now (update_intention: fired)." }
const done = {
  action: "done",
  label: "Done",
  description: "Acknowledge this reminder: it leaves the briefing (acted_on)."
}
const cancel = {
  action: "cancel",
  label: "Cancel",
  description: "Cancel this intention (update_intention: cancelled).",
  params: paramsFrom("update_intention", ["reason"]),
  dangerous: true
}

/** Why an alert stays out of the briefing: the suppressions that silence it and the patterns that explain it. */
interface Screen {
  readonly suppressions: ReadonlyArray<Json>
  readonly patterns: ReadonlyArray<Json>
  readonly now: Date
}

const asEntry = (json: Json): Entry.Entry => json as unknown as Entry.Entry

const suppressionWhy = (suppression: Json): string => {
  const data = record(suppression.data)
  const reason = text(data.reason)
  const until = text(suppression.expires)
  return `suppressed${reason === undefined || reason === "" ? "" : `: ${reason}`}${until === undefined ? "" : ` (until ${until})`}`
}

const patternWhy = (pattern: Json): string => {
  const data = record(pattern.data)
  const why = text(pattern.description) ?? text(data.description) ?? text(data.effect) ?? String(pattern.id ?? "")
  return `pattern: ${why}`
}

/**
 * The briefing's evaluation of one alert, as reasons: each suppression that silences it and each pattern that
 * explains it (the collator's own predicates, one entry at a time so the reason can be named).
 */
const evaluationOf = (entry: Json, screen: Screen): ReadonlyArray<string> => {
  const alert = asEntry(entry)
  const out: Array<string> = []
  try {
    for (const suppression of screen.suppressions) {
      if (Suppression.isSuppressed(alert, [asEntry(suppression)], screen.now)) out.push(suppressionWhy(suppression))
    }
    for (const pattern of screen.patterns) {
      if (Pattern.matchesPattern(alert, [asEntry(pattern)], screen.now)) out.push(patternWhy(pattern))
    }
  } catch {
    // an entry the collator cannot read explains nothing
  }
  return out
}

const alertNode = (entry: Json, screen: Screen): Node => {
  const data = record(entry.data)
  const level = text(data.level) ?? "warning"
  const message = text(data.message) ?? ""
  const evaluation = evaluationOf(entry, screen)
  // a suppressed or explained alert is what the briefing leaves out: it weighs little in budgeted views too
  const attention = evaluation.length > 0 ? dimmedAttention : (levelAttention[level] ?? levelAttention.warning!)
  const properties: Record<string, unknown> = {
    entry_id: entry.id,
    alert_id: data.alert_id,
    source: entry.source,
    level,
    message,
    alert_type: data.alert_type ?? null,
    reported: entry.updated ?? entry.created ?? null,
    // always present, so acknowledging is one field replace
    acknowledged_at: data.acknowledged_at ?? null
  }
  if (data.metric !== undefined && data.metric !== null) properties.metric = data.metric
  if (evaluation.length > 0) properties.evaluation = evaluation
  return {
    id: String(entry.id),
    type: "alert",
    properties,
    meta: { salience: attention.salience, urgency: attention.urgency, reason: message, summary: message },
    affordances: [acknowledge, suppress]
  }
}

const sourceNode = (name: string, line: Json, alerts: ReadonlyArray<Node>): Node => {
  const status = text(line.status) ?? "ok"
  const attention = statusAttention[status] ?? statusAttention.ok!
  const headline = text(line.headline)
  return {
    id: nodeId(name),
    type: "source",
    properties: {
      name,
      status,
      stale: status === "stale" || line.stale === true,
      last_report: line.last_report ?? null,
      headline: headline ?? null
    },
    meta: {
      salience: attention.salience,
      urgency: attention.urgency,
      ...(status === "critical" ? { pinned: true } : {}),
      ...(headline === undefined ? {} : { summary: headline })
    },
    affordances: [suppress],
    children: alerts
  }
}

const intentionNode = (entry: Json, nowMs: number): Node => {
  const data = record(entry.data)
  const at = text(data.deliver_at)
  const state = text(data.state) ?? "pending"
  const due = state === "fired" || (state === "pending" && at !== undefined && Date.parse(at) <= nowMs)
  const goal = text(data.goal) ?? ""
  return {
    id: String(entry.id),
    type: "intention",
    properties: {
      entry_id: entry.id,
      goal,
      state,
      source: entry.source,
      deliver_at: at ?? null,
      urgency: data.urgency ?? "normal",
      due
    },
    meta: { salience: due ? 0.9 : 0.4, urgency: due ? "high" : "none", summary: goal },
    // A fired reminder is acknowledged (done), not fired again.
    affordances: state === "fired" ? [done, cancel] : [fire, cancel]
  }
}

const suppressionNode = (entry: Json): Node => {
  const data = record(entry.data)
  return {
    id: String(entry.id),
    type: "suppression",
    properties: {
      entry_id: entry.id,
      source: entry.source ?? null,
      metric: data.metric ?? null,
      level: data.suppress_level ?? null,
      reason: data.reason ?? "",
      expires: entry.expires ?? null
    },
    meta: { salience: 0.3 },
    affordances: [clear]
  }
}

const collection = (id: string, children: ReadonlyArray<Node>, summary: string): Node => ({
  id,
  type: "collection",
  meta: { summary, total_children: children.length },
  children
})

const bySource = (
  alerts: ReadonlyArray<unknown>,
  screen: Screen,
  createdOf: Map<Node, string>
): Map<string, Array<Node>> => {
  const out = new Map<string, Array<Node>>()
  for (const value of alerts) {
    const entry = record(value)
    const source = text(entry.source) ?? ""
    const list = out.get(source) ?? []
    const node = alertNode(entry, screen)
    createdOf.set(node, text(entry.created) ?? "")
    list.push(node)
    out.set(source, list)
  }
  return out
}

const severity: Record<string, number> = { critical: 3, warning: 2, stale: 1, ok: 0 }

/** Insertion order of a source's alerts (the store lists them newest first): by creation, then by id. */
const insertionOrder = (alerts: ReadonlyArray<Node>, createdOf: ReadonlyMap<Node, string>): Array<Node> =>
  [...alerts].sort((a, b) => {
    const x = createdOf.get(a) ?? ""
    const y = createdOf.get(b) ?? ""
    return x < y ? -1 : x > y ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0
  })

/**
 * `children` in the order the previous tree showed them (by id), followed by the new ones in their own order, so that
 * a rebuild adds at the end, removes, or changes fields, never moves a child.
 */
const stable = (children: ReadonlyArray<Node>, previous: ReadonlyArray<Node> | null | undefined): Array<Node> => {
  if (previous == null || previous.length === 0) return [...children]
  const byId = new Map<string, Node>()
  for (const child of children) byId.set(child.id, child)
  const out: Array<Node> = []
  for (const old of previous) {
    const kept = byId.get(old.id)
    if (kept !== undefined) {
      out.push(kept)
      byId.delete(old.id)
    }
  }
  for (const child of children) if (byId.has(child.id)) out.push(child)
  return out
}

const childById = (node: Node | undefined, id: string): Node | undefined => node?.children?.find((c) => c.id === id)

/**
 * A source's line: the briefing's when it has one (it knows suppressions and patterns), else one derived from the
 * store, as the briefing leaves lines out to stay within its token budget: the most severe active alert, else
 * `stale` once the status's `ttl_sec` has passed, else `ok`; the last report from the status entry.
 */
const lineOf = (
  briefingLine: Json | undefined,
  status: Json | undefined,
  alerts: ReadonlyArray<Node>,
  nowMs: number
) => {
  if (briefingLine !== undefined) return briefingLine
  const data = record(status?.data)
  const reported = text(status?.updated) ?? text(status?.created)
  let level = "ok"
  for (const alert of alerts) {
    const candidate = String(alert.properties?.level ?? "warning")
    if ((severity[candidate] ?? 2) > (severity[level] ?? 0)) level = candidate
  }
  const ttl = typeof data.ttl_sec === "number" ? data.ttl_sec : 120
  if (level === "ok" && reported !== undefined && Date.parse(reported) + ttl * 1000 < nowMs) level = "stale"
  const headline = alerts[0]?.properties?.message ?? data.headline
  return {
    status: level,
    last_report: reported ?? null,
    ...(typeof headline === "string" ? { headline } : {})
  } as Json
}

/**
 * Builds the tree from a snapshot of the store (`nowMs` decides which intentions are due and which sources are
 * stale). Sources are every source with a status or an active alert, in name order (`stale` marks one that stopped
 * reporting, even when an alert keeps it critical); a source's alerts are in insertion order (oldest first). An alert
 * that a suppression silences or a pattern explains lists why in `evaluation` and weighs little (salience 0.2, no
 * urgency).
 *
 * With `previous` (the tree this one replaces), every list keeps the previous tree's order and new children come
 * last, so that the patch between the two is appends, removes and field replaces (see the module's note).
 *
 * @category constructors
 * @since 0.1.0
 */
export const toTree = (snapshot: Snapshot, nowMs: number, previous?: Node | undefined): Node => {
  const briefing = record(snapshot.briefing)
  const lines = record(briefing.sources)
  const createdOf = new Map<Node, string>()
  const alerts = bySource(
    snapshot.alerts,
    {
      suppressions: snapshot.suppressions.map(record),
      patterns: (snapshot.patterns ?? []).map(record),
      now: new Date(nowMs)
    },
    createdOf
  )
  const statuses = new Map<string, Json>()
  for (const value of snapshot.statuses) {
    const entry = record(value)
    if (typeof entry.source === "string") statuses.set(entry.source, entry)
  }
  const names = [...new Set([...Object.keys(lines), ...statuses.keys(), ...alerts.keys()])].sort()
  const before = {
    sources: childById(previous, "sources"),
    intentions: childById(previous, "intentions"),
    suppressions: childById(previous, "suppressions")
  }
  const sources = names.map((name) => {
    const own = alerts.get(name) ?? []
    const line = lineOf(lines[name] === undefined ? undefined : record(lines[name]), statuses.get(name), own, nowMs)
    const children = stable(insertionOrder(own, createdOf), childById(before.sources, nodeId(name))?.children)
    return sourceNode(name, line, children)
  })
  const intentions = snapshot.intentions
    .map((entry) => record(entry))
    .filter((entry) => {
      const data = record(entry.data)
      const state = text(data.state)
      // A fired reminder that was acknowledged (done) has left the briefing, and leaves the tree too.
      if (state === "fired") return !(Array.isArray(data.acted_on) && data.acted_on.length > 0)
      return state === "pending" || state === "active" || state === "snoozed"
    })
    .map((entry) => intentionNode(entry, nowMs))
  const suppressions = snapshot.suppressions.map((entry) => suppressionNode(record(entry)))
  const summary = text(briefing.summary) ?? ""
  return {
    id: "awareness",
    type: "root",
    properties: { summary, attention_needed: briefing.attention_needed === true },
    meta: { summary },
    children: [
      collection("sources", stable(sources, before.sources?.children), `${sources.length} sources`),
      collection("intentions", stable(intentions, before.intentions?.children), `${intentions.length} open intentions`),
      collection(
        "suppressions",
        stable(suppressions, before.suppressions?.children),
        `${suppressions.length} active suppressions`
      )
    ]
  }
}
