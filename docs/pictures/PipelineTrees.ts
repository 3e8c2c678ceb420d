// The pipeline: one application's state tree drawn before and after `Pipeline.optimize` at three node budgets, so a
// reader sees which subtrees compaction folds (low salience first), what windowing keeps, and what `pinned` protects.
import { type Node, Pipeline } from "@heed/state-tree"
import type * as vega from "vega"
import { renderVega } from "./Chart.ts"

const item = (id: string, salience: number, extra: Partial<Node.Node> = {}): Node.Node => ({
  id,
  type: "item",
  meta: { salience },
  ...extra
})

/** A small mail-and-ops application: a pinned incident, an inbox, a calendar and pull requests. */
export const tree: Node.Node = {
  id: "app",
  type: "root",
  children: [
    {
      id: "incident",
      type: "status",
      meta: { salience: 1, urgency: "critical", pinned: true },
      children: [item("api-5xx", 0.9), item("db-latency", 0.7)]
    },
    {
      id: "inbox",
      type: "collection",
      meta: { salience: 0.6 },
      children: [
        item("escalation", 0.95),
        item("invoice", 0.5),
        item("review-req", 0.45),
        item("lunch", 0.15),
        item("newsletter", 0.05),
        item("promo", 0.02)
      ]
    },
    {
      id: "calendar",
      type: "collection",
      meta: { salience: 0.4 },
      children: [item("standup", 0.6), item("1-on-1", 0.35), item("offsite", 0.1)]
    },
    {
      id: "repos",
      type: "collection",
      meta: { salience: 0.3 },
      children: [
        { id: "web", type: "repo", meta: { salience: 0.5 }, children: [item("pr-812", 0.7), item("pr-809", 0.2)] },
        { id: "api", type: "repo", meta: { salience: 0.3 }, children: [item("pr-77", 0.25), item("pr-75", 0.1)] },
        { id: "infra", type: "repo", meta: { salience: 0.1 }, children: [item("pr-3", 0.05)] }
      ]
    }
  ]
}

/** The three node budgets drawn after the original. */
export const budgets: ReadonlyArray<number> = [20, 12, 6]

interface Row {
  readonly order: number
  readonly view: string
  readonly key: string
  readonly parent: string | null
  readonly label: string
  readonly salience: number
  readonly folded: boolean
}

/** Flattens a view into rows for Vega's stratify, labelling what the pipeline folded or windowed. */
const rows = (order: number, view: string, node: Node.Node, parent: string | null = null): Array<Row> => {
  const key = `${parent ?? view}/${node.id}`
  const shown = node.children?.length ?? 0
  const total = node.meta?.total_children
  const hidden = total !== undefined && total > shown ? total - shown : 0
  const label = `${node.id}${node.meta?.pinned ? " [pinned]" : ""}${hidden === 0 ? "" : ` (+${hidden})`}`
  const own: Row = {
    order,
    view,
    key,
    parent,
    label,
    salience: node.meta?.salience ?? 0.5,
    folded: hidden > 0
  }
  return [own, ...(node.children ?? []).flatMap((child) => rows(order, view, child, key))]
}

/** The original tree and one optimised view per budget, as Vega rows. */
export const views = (): Array<Row> => [
  ...rows(0, `original (${countNodes(tree)} nodes)`, tree),
  ...budgets.flatMap((max_nodes, i) => {
    const view = Pipeline.optimize(tree, { max_nodes })
    return rows(i + 1, `max_nodes: ${max_nodes} (${countNodes(view)} nodes)`, view)
  })
]

const countNodes = (node: Node.Node): number =>
  1 + (node.children ?? []).reduce((sum, child) => sum + countNodes(child), 0)

const panelWidth = 250
const panelHeight = 440

/** A Vega spec: one panel per view, each laid out as a left-to-right tree. */
const spec = (values: Array<Row>): vega.Spec => ({
  $schema: "https://vega.github.io/schema/vega/v6.json",
  padding: 8,
  title: { text: "One tree, optimised for three node budgets (label (+N): N children folded away)" },
  // Two columns: the site shows pictures at most about 600 px wide, and four panels side by side (1,090 px) shrank
  // the labels to about 5 px there.
  layout: { columns: 2, padding: 16 },
  data: [{ name: "rows", values }],
  scales: [
    { name: "salience", type: "linear", domain: [0, 1], range: { scheme: "blues" }, zero: true },
    { name: "views", type: "ordinal", domain: { data: "rows", field: "view" } }
  ],
  legends: [{ fill: "salience", title: "salience", orient: "bottom", direction: "horizontal", gradientLength: 160 }],
  marks: [
    {
      type: "group",
      from: { facet: { name: "panel", data: "rows", groupby: ["order", "view"] } },
      sort: { field: "datum.order", order: "ascending" },
      encode: { update: { width: { value: panelWidth }, height: { value: panelHeight } } },
      title: { text: { signal: "parent.view" }, fontSize: 12, frame: "group" },
      data: [
        {
          name: "nodes",
          source: "panel",
          transform: [
            { type: "stratify", key: "key", parentKey: "parent" },
            {
              type: "tree",
              method: "cluster",
              size: [panelHeight, panelWidth - 110],
              as: ["y", "x", "depth", "children"]
            }
          ]
        },
        {
          name: "links",
          source: "nodes",
          transform: [{ type: "treelinks" }, { type: "linkpath", orient: "horizontal", shape: "diagonal" }]
        }
      ],
      marks: [
        {
          type: "path",
          from: { data: "links" },
          encode: { update: { path: { field: "path" }, stroke: { value: "#bbb" } } }
        },
        {
          type: "symbol",
          from: { data: "nodes" },
          encode: {
            update: {
              x: { field: "x" },
              y: { field: "y" },
              size: { value: 70 },
              fill: { scale: "salience", field: "salience" },
              stroke: { signal: "datum.folded ? '#d62728' : '#555'" },
              strokeWidth: { signal: "datum.folded ? 2 : 0.6" }
            }
          }
        },
        {
          type: "text",
          from: { data: "nodes" },
          encode: {
            update: {
              x: { field: "x", offset: 7 },
              y: { field: "y" },
              text: { field: "label" },
              baseline: { value: "middle" },
              fontSize: { value: 10 },
              fill: { signal: "datum.folded ? '#d62728' : '#222'" }
            }
          }
        }
      ]
    }
  ]
})

/** The picture. */
export const svg = (): Promise<string> => renderVega(spec(views()))
