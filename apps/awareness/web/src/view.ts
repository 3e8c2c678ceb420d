/**
 * Rendering: the live tree (sources with their alerts, intentions, suppressions), the briefing, and the budgeted
 * agent view. Every function builds fresh DOM from plain data; `data-testid` and `data-*` attributes follow the DOM
 * contract the browser tests rely on.
 */
import type * as SlopNode from "@heed/state-tree/Node"
import type { BriefingReply, ViewReply, ViewRow } from "./api.ts"
import { type Child, h, time } from "./dom.ts"

type Node = SlopNode.Node
type Props = Readonly<Record<string, unknown>>

const props = (node: Node): Props => (node.properties ?? {}) as Props
const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)

/** Joins ids into a SLOP path (RFC 6901 escaping, as `Node.pathOf`). */
export const pathOf = (ids: ReadonlyArray<string>): string =>
  `/${ids.map((id) => id.replace(/~/g, "~0").replace(/\//g, "~1")).join("/")}`

/** What a click on an affordance button asks for. */
export interface ActionRequest {
  readonly path: string
  readonly node: Node
  readonly affordance: SlopNode.Affordance
  /** Who it is about, for the result message ("alert cpu on nas"). */
  readonly target: string
  /** The button, so focus can come back to it. */
  readonly key: string
}

export type OnAction = (request: ActionRequest) => void

const affordanceButtons = (node: Node, path: string, target: string, onAction: OnAction): Array<HTMLElement> =>
  (node.affordances ?? []).map((affordance) => {
    const key = `${path}#${affordance.action}`
    const button = h(
      "button",
      {
        type: "button",
        "data-action": affordance.action,
        "data-key": key,
        class: affordance.dangerous === true ? "danger" : undefined,
        title: affordance.description,
        "aria-label": `${affordance.label ?? affordance.action} ${target}`
      },
      affordance.label ?? affordance.action
    )
    button.addEventListener("click", () => onAction({ path, node, affordance, target, key }))
    return button
  })

const statusRank: Readonly<Record<string, number>> = { critical: 0, warning: 1, stale: 2, info: 3, ok: 4 }
const levelRank: Readonly<Record<string, number>> = { critical: 0, warning: 1, info: 2 }

const childrenOf = (node: Node | undefined): ReadonlyArray<Node> => node?.children ?? []
const collection = (tree: Node, id: string): Node | undefined => childrenOf(tree).find((child) => child.id === id)

const alertItem = (source: Node, alert: Node, onAction: OnAction): HTMLElement => {
  const p = props(alert)
  const evaluation = Array.isArray(p.evaluation) ? p.evaluation.map(String) : []
  const dimmed = evaluation.length > 0
  const level = str(p.level) ?? "warning"
  const alertId = str(p.alert_id) ?? alert.id
  const sourceName = str(props(source).name) ?? source.id
  return h(
    "li",
    {
      "data-testid": "alert",
      "data-alert-id": alertId,
      "data-source": sourceName,
      "data-level": level,
      "data-dimmed": String(dimmed),
      class: `alert level-${level}${dimmed ? " dimmed" : ""}`
    },
    h(
      "div",
      { class: "row" },
      h("span", { class: `badge level-${level}` }, level),
      h("span", { class: "message" }, str(p.message) ?? ""),
      h("code", { class: "muted" }, alertId),
      h("span", { class: "muted" }, time(str(p.reported)))
    ),
    dimmed && h("p", { "data-testid": "alert-why", class: "why" }, `Not in the briefing: ${evaluation.join("; ")}`),
    h(
      "div",
      { class: "actions" },
      affordanceButtons(alert, pathOf(["sources", source.id, alert.id]), `alert ${alertId} on ${sourceName}`, onAction)
    )
  )
}

export const sources = (tree: Node, onAction: OnAction): HTMLElement => {
  const list = [...childrenOf(collection(tree, "sources"))].sort(
    (a, b) =>
      (statusRank[str(props(a).status) ?? "ok"] ?? 5) - (statusRank[str(props(b).status) ?? "ok"] ?? 5) ||
      String(props(a).name).localeCompare(String(props(b).name))
  )
  if (list.length === 0) return h("p", { class: "empty" }, "No sources have reported yet.")
  return h(
    "ul",
    { class: "sources" },
    list.map((source) => {
      const p = props(source)
      const name = str(p.name) ?? source.id
      const status = str(p.status) ?? "ok"
      const stale = p.stale === true || status === "stale"
      const alerts = [...childrenOf(source)].sort(
        (a, b) =>
          Number(Array.isArray(props(a).evaluation)) - Number(Array.isArray(props(b).evaluation)) ||
          (levelRank[str(props(a).level) ?? "warning"] ?? 3) - (levelRank[str(props(b).level) ?? "warning"] ?? 3)
      )
      return h(
        "li",
        {
          "data-testid": "source",
          "data-source": name,
          "data-status": status,
          "data-stale": String(stale),
          class: `source status-${status}`
        },
        h(
          "div",
          { class: "row" },
          h("span", { class: `badge status-${status}` }, status),
          h("strong", { class: "name" }, name),
          stale && h("span", { class: "stale", title: "This source stopped reporting" }, "stale"),
          str(p.last_report) === undefined
            ? h(
                "span",
                { class: "muted", "data-testid": "no-status" },
                alerts.length > 0 ? "alerts only, no status reported" : "no status reported"
              )
            : h("span", { class: "muted" }, "last report ", time(str(p.last_report))),
          h(
            "span",
            { class: "actions" },
            affordanceButtons(source, pathOf(["sources", source.id]), `source ${name}`, onAction)
          )
        ),
        str(p.headline) !== undefined && h("p", { class: "headline" }, str(p.headline)),
        alerts.length > 0 &&
          h(
            "ul",
            { class: "alerts", "aria-label": `alerts of ${name}` },
            alerts.map((alert) => alertItem(source, alert, onAction))
          )
      )
    })
  )
}

export const intentions = (tree: Node, onAction: OnAction): HTMLElement => {
  const list = [...childrenOf(collection(tree, "intentions"))].sort((a, b) =>
    String(props(a).deliver_at ?? "9999").localeCompare(String(props(b).deliver_at ?? "9999"))
  )
  if (list.length === 0) return h("p", { class: "empty" }, "No open intentions.")
  return h(
    "ul",
    { class: "intentions" },
    list.map((node) => {
      const p = props(node)
      const id = str(p.entry_id) ?? node.id
      const state = str(p.state) ?? "pending"
      return h(
        "li",
        {
          "data-testid": "intention",
          "data-intention-id": id,
          "data-state": state,
          class: p.due === true ? "due" : ""
        },
        h(
          "div",
          { class: "row" },
          h("span", { class: `badge state-${state}` }, p.due === true && state === "pending" ? "due" : state),
          h("span", { class: "message" }, str(p.goal) ?? ""),
          h("span", { class: "muted" }, "due ", time(str(p.deliver_at))),
          h(
            "span",
            { class: "actions" },
            affordanceButtons(node, pathOf(["intentions", node.id]), `intention ${str(p.goal) ?? id}`, onAction)
          )
        )
      )
    })
  )
}

export const suppressions = (tree: Node, onAction: OnAction): HTMLElement => {
  const list = childrenOf(collection(tree, "suppressions"))
  if (list.length === 0) return h("p", { class: "empty" }, "Nothing is suppressed.")
  return h(
    "ul",
    { class: "suppressions" },
    list.map((node) => {
      const p = props(node)
      const id = str(p.entry_id) ?? node.id
      const what = [
        str(p.source) ?? "every source",
        str(p.metric),
        str(p.level) === undefined ? undefined : `up to ${str(p.level)}`
      ]
        .filter((part) => part !== undefined)
        .join(" · ")
      return h(
        "li",
        { "data-testid": "suppression", "data-suppression-id": id },
        h(
          "div",
          { class: "row" },
          h("strong", {}, what),
          str(p.reason) !== undefined && str(p.reason) !== "" && h("span", { class: "message" }, `“${str(p.reason)}”`),
          h("span", { class: "muted" }, "ends ", time(str(p.expires))),
          h(
            "span",
            { class: "actions" },
            affordanceButtons(node, pathOf(["suppressions", node.id]), `suppression of ${what}`, onAction)
          )
        )
      )
    })
  )
}

const lineClass = (line: string): string => {
  const word = /^[A-Z]+/.exec(line)?.[0]?.toLowerCase() ?? ""
  return `line line-${word}`
}

export const briefing = (reply: BriefingReply): ReadonlyArray<Child> => {
  const b = reply.briefing
  const evaluation = b.evaluation ?? {}
  return [
    h(
      "div",
      { class: "facts" },
      h(
        "span",
        {
          "data-testid": "briefing-tokens",
          class: "fact",
          title: `${reply.text_tokens} tokens as text (format: "text")`
        },
        `${reply.tokens} tokens`
      ),
      h(
        "span",
        {
          "data-testid": "attention-needed",
          "data-value": String(b.attention_needed),
          class: `fact attention-${b.attention_needed}`
        },
        b.attention_needed ? "attention needed" : "all clear"
      ),
      h("span", { class: "fact" }, `${b.active_alerts} active alerts`),
      h(
        "span",
        { "data-testid": "active-suppressions", "data-count": String(b.active_suppressions), class: "fact" },
        `${b.active_suppressions} active suppressions`
      )
    ),
    h("p", { class: "summary", "data-testid": "briefing-summary" }, reply.summary),
    b.suggested_mention !== undefined && h("p", { class: "muted" }, "Suggested mention: ", b.suggested_mention),
    reply.lines.length > 0 &&
      h(
        "ol",
        { class: "lines" },
        reply.lines.map((line) => h("li", { "data-testid": "briefing-line", class: lineClass(line) }, line))
      ),
    h(
      "p",
      { class: "muted evaluation", "data-testid": "evaluation" },
      "Evaluation: ",
      Object.entries(evaluation)
        .map(([key, value]) => `${key.replace(/_/g, " ")} ${value}`)
        .join(", ")
    )
  ]
}

const rowsList = (rows: ReadonlyArray<ViewRow>, nodeId: string, stubId: string): HTMLElement =>
  h(
    "ol",
    { class: "tree" },
    rows.flatMap((row) => {
      const item = h("li", { "data-testid": nodeId, class: `depth type-${row.type}` }, row.line)
      item.style.setProperty("--depth", String(row.depth))
      if (row.cut === 0) return [item]
      const stub = h(
        "li",
        { "data-testid": stubId, "data-count": String(row.cut), class: "depth stub" },
        `… ${row.cut} node${row.cut === 1 ? "" : "s"} cut`
      )
      stub.style.setProperty("--depth", String(row.depth + 1))
      return [item, stub]
    })
  )

export const agentView = (reply: ViewReply): HTMLElement => rowsList(reply.view.rows, "view-node", "view-stub")

export const viewFacts = (reply: ViewReply): string => {
  const over =
    reply.unit === "tokens" && reply.view.tokens > reply.budget ? " (over budget: pinned nodes are never cut)" : ""
  return `${reply.view.tokens} tokens, ${reply.view.nodes} of ${reply.total.nodes} nodes${over}`
}

export const digest = (reply: ViewReply): ReadonlyArray<Child> => [
  h("p", { class: "muted" }, `${reply.digest.summary} — ${reply.digest.tokens} tokens`),
  rowsList(reply.digest.rows.slice(1), "digest-entry", "digest-stub"),
  reply.digest.cut > 0 &&
    h(
      "p",
      { "data-testid": "digest-cut", "data-count": String(reply.digest.cut), class: "stub" },
      `… ${reply.digest.cut} entries cut`
    )
]

export const viewBriefing = (reply: ViewReply): ReadonlyArray<Child> => [
  h("p", { class: "muted" }, `${reply.briefing.tokens} tokens`),
  h(
    "ol",
    { class: "lines" },
    reply.briefing.lines.map((line) => h("li", { class: lineClass(line) }, line)),
    reply.briefing.cut > 0 &&
      h(
        "li",
        { "data-testid": "briefing-stub", "data-count": String(reply.briefing.cut), class: "stub" },
        reply.unit === "tokens"
          ? `${reply.briefing.cut} fewer lines than the default briefing (folded or left out to fit)`
          : `+${reply.briefing.cut} more lines`
      )
  )
]
