/**
 * The canonical LLM text format of a state tree: one line per node, indented two spaces per level.
 *
 * @since 0.1.0
 */
import type { Node } from "./Node.ts"

const urgencyFlag: Record<string, string | undefined> = {
  critical: "CRITICAL",
  high: "HIGH",
  medium: "medium",
  low: "low"
}

const json = (value: unknown): string => {
  try {
    return JSON.stringify(value) ?? "undefined"
  } catch {
    return "[unserializable]"
  }
}

const paramList = (params: unknown): string => {
  if (typeof params !== "object" || params === null) return ""
  const properties = (params as { properties?: unknown }).properties
  if (typeof properties !== "object" || properties === null) return ""
  const parts: Array<string> = []
  for (const [name, schema] of Object.entries(properties)) {
    const type = typeof schema === "object" && schema !== null ? (schema as { type?: unknown }).type : undefined
    parts.push(typeof type === "string" ? `${name}: ${type}` : name)
  }
  return parts.join(", ")
}

/**
 * One node's line, without indentation:
 * `[type] id: Label (k=JSON, …)  — "summary"  salience=0.85  [pinned, focus, changed, HIGH]  reason: "…"  actions: {a(x: string)}`.
 * Everything after `[type] id` appears only when present. The flags, `reason` and `path` (digest entries) are heed
 * additions in the style of SLOP's Rust renderer.
 *
 * @category combinators
 * @since 0.1.0
 */
export const line = (node: Node): string => {
  let out = `[${node.type}] ${node.id}`
  const properties = node.properties
  if (properties !== undefined) {
    const label = properties.label ?? properties.title
    if (label !== undefined && label !== null && label !== "" && String(label) !== node.id) out += `: ${String(label)}`
    let extra = ""
    for (const key in properties) {
      if (key === "label" || key === "title") continue
      extra += `${extra === "" ? "" : ", "}${key}=${json(properties[key])}`
    }
    if (extra !== "") out += ` (${extra})`
  }
  const meta = node.meta
  if (meta !== undefined) {
    if (meta.summary !== undefined && meta.summary !== "") out += `  — ${json(meta.summary)}`
    if (typeof meta.salience === "number") out += `  salience=${Math.round(meta.salience * 100) / 100}`
    const flags: Array<string> = []
    if (meta.pinned === true) flags.push("pinned")
    if (meta.focus === true) flags.push("focus")
    if (meta.changed === true) flags.push("changed")
    const urgency = meta.urgency !== undefined ? urgencyFlag[meta.urgency] : undefined
    if (urgency !== undefined) flags.push(urgency)
    if (flags.length > 0) out += `  [${flags.join(", ")}]`
    if (meta.reason !== undefined && meta.reason !== "") out += `  reason: ${json(meta.reason)}`
    if (meta.path !== undefined) out += `  path=${meta.path}`
  }
  const affordances = node.affordances
  if (affordances !== undefined && affordances.length > 0) {
    out += `  actions: {${affordances
      .map((a) => {
        const params = paramList(a.params)
        return params === "" ? a.action : `${a.action}(${params})`
      })
      .join(", ")}}`
  }
  return out
}

/**
 * The extra lines printed right under a node whose children are incomplete, before its children (without
 * indentation): `(showing N of M)` for a window, `(M children not loaded)` when none are inline, and heed's
 * `(K hidden by filter)` when a filter hid some.
 *
 * @category combinators
 * @since 0.1.0
 */
export const extraLines = (node: Node): ReadonlyArray<string> => {
  const meta = node.meta
  if (meta === undefined) return none
  const inline = node.children?.length ?? 0
  const total = meta.total_children
  const out: Array<string> = []
  const filtered = meta.filtered !== undefined && meta.filtered > 0 ? meta.filtered : 0
  if (total !== undefined && total > 0) {
    if (meta.window !== undefined && total > inline) out.push(`(showing ${inline} of ${total})`)
    else if (inline === 0 && total - filtered > 0) {
      const missing = total - filtered
      out.push(missing === 1 ? "(1 child not loaded)" : `(${missing} children not loaded)`)
    }
  }
  if (filtered > 0) out.push(`(${filtered} hidden by filter)`)
  return out
}

const none: ReadonlyArray<string> = []

/**
 * Renders a tree in the canonical LLM text format: one line per node (see {@link line}), then any
 * {@link extraLines} right under it, then its children; extra lines and children are indented two spaces deeper.
 * Lines are joined with `\n`. This is the order of the SLOP spec's canonical example:
 *
 * ```text
 * [collection] catalog: Catalog (count=142)  — "142 products, 12 on sale"
 *   (showing 1 of 142)
 *   [item] prod-1: Rubber Duck (price=4.99, in_stock=true)
 * ```
 *
 * **Example** (Rendering a small tree)
 *
 * ```ts
 * import { Render } from "@heed/state-tree"
 *
 * Render.text({ id: "root", type: "root", children: [{ id: "a", type: "item", properties: { label: "Alpha" } }] })
 * // "[root] root\n  [item] a: Alpha"
 * ```
 *
 * @category combinators
 * @since 0.1.0
 */
export const text = (tree: Node): string => {
  const lines: Array<string> = []
  const walk = (node: Node, indent: string): void => {
    lines.push(indent + line(node))
    const inner = `${indent}  `
    const extra = extraLines(node)
    for (let i = 0; i < extra.length; i++) lines.push(inner + extra[i])
    const children = node.children
    if (children) for (let i = 0; i < children.length; i++) walk(children[i]!, inner)
  }
  walk(tree, "")
  return lines.join("\n")
}
