/**
 * Affordances as LLM tools, with SLOP's naming and grouping rules (see `Consumer.tools`): collect the affordances,
 * group them by action and params schema, name each group, resolve name collisions, cut long names.
 *
 * @since 0.1.0
 * @internal
 */
import type { Resolved, Tool, ToolOptions, ToolSet } from "../Consumer.ts"
import type { Affordance, JsonSchema, Node } from "../Node.ts"
import { escapeSegment } from "./pointer.ts"

const sanitize = (name: string) => name.replace(/[^a-zA-Z0-9]/g, "_")

const canonical = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`
  if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>
    return `{${Object.keys(record)
      .sort()
      .filter((key) => record[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonical(record[key])}`)
      .join(",")}}`
  }
  return JSON.stringify(value) ?? "null"
}

const hash7 = (text: string): string => {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return (h >>> 0).toString(16).padStart(8, "0").slice(0, 7)
}

const shorten = (name: string, limit: number) =>
  name.length <= limit ? name : `${name.slice(0, limit - 8)}_${hash7(name)}`

const dangerSuffix = " [DANGEROUS - confirm first]"

/** One affordance and where it is. */
interface Entry {
  readonly path: string
  readonly ids: ReadonlyArray<string>
  readonly node: Node
  readonly affordance: Affordance
}

/** A tool before its final name: `base` is its name within its group rules; `entry` is set for a singleton. */
interface Candidate {
  readonly tool: Omit<Tool, "name">
  readonly base: string
  readonly resolved: Resolved
  readonly entry?: Entry
}

/** The tools of every affordance in `tree` (see `Consumer.tools`). */
export const toolSet = (tree: Node, options: ToolOptions): ToolSet => {
  const limit = options.maxLength ?? 64
  const prefix = options.provider !== undefined ? `${sanitize(options.provider)}__` : ""
  const candidates = candidatesOf(groupsOf(entriesOf(tree)))
  const names = uniqueNames(candidates)
  const table = new Map<string, Resolved>()
  const tools: Array<Tool> = candidates.map((candidate, i) => {
    const name = shorten(`${prefix}${names[i]!}`, limit)
    table.set(name, candidate.resolved)
    return { name, ...candidate.tool }
  })
  return { tools, resolve: (name) => table.get(name) }
}

const entriesOf = (tree: Node): Array<Entry> => {
  const entries: Array<Entry> = []
  const walk = (node: Node, path: string, ids: ReadonlyArray<string>) => {
    for (const affordance of node.affordances ?? [])
      entries.push({ path: path === "" ? "/" : path, ids, node, affordance })
    for (const child of node.children ?? []) walk(child, `${path}/${escapeSegment(child.id)}`, [...ids, child.id])
  }
  walk(tree, "", [tree.id])
  return entries
}

// By action, then by canonical params schema, in order of first appearance.
const groupsOf = (entries: ReadonlyArray<Entry>): Map<string, Map<string, Array<Entry>>> => {
  const byAction = new Map<string, Map<string, Array<Entry>>>()
  for (const entry of entries) {
    let groups = byAction.get(entry.affordance.action)
    if (groups === undefined) {
      groups = new Map()
      byAction.set(entry.affordance.action, groups)
    }
    const key = canonical(entry.affordance.params ?? null)
    const group = groups.get(key)
    if (group === undefined) groups.set(key, [entry])
    else group.push(entry)
  }
  return byAction
}

const candidatesOf = (byAction: Map<string, Map<string, Array<Entry>>>): Array<Candidate> => {
  const out: Array<Candidate> = []
  for (const [action, groups] of byAction) {
    // the first shared group of an action is named `{action}`, later ones `{action}__{firstNodeId}`
    let groupedNamed = false
    for (const group of groups.values()) {
      if (group.length === 1) out.push(singleton(action, group[0]!))
      else {
        out.push(grouped(action, group, groupedNamed))
        groupedNamed = true
      }
    }
  }
  return out
}

const describe = (affordance: Affordance, action: string, where: string, dangerous: boolean): string =>
  `${affordance.label ?? action}${affordance.description ? `: ${affordance.description}` : ""} (${where})${
    dangerous ? dangerSuffix : ""
  }`

const singleton = (action: string, entry: Entry): Candidate => {
  const dangerous = entry.affordance.dangerous === true
  return {
    base: `${sanitize(entry.node.id)}__${sanitize(action)}`,
    tool: {
      description: describe(entry.affordance, action, `on ${entry.path}`, dangerous),
      inputSchema: entry.affordance.params ?? { type: "object", properties: {} },
      dangerous
    },
    resolved: { path: entry.path, action },
    entry
  }
}

const grouped = (action: string, group: ReadonlyArray<Entry>, named: boolean): Candidate => {
  const first = group[0]!
  const dangerous = group.some((entry) => entry.affordance.dangerous === true)
  const params = first.affordance.params
  const targets = group.map((entry) => entry.path)
  const inputSchema: JsonSchema = {
    type: "object",
    properties: {
      target: { type: "string", description: "Path of the node to act on", enum: targets },
      ...(params?.properties ?? {})
    },
    required: ["target", ...(params?.required ?? [])]
  }
  return {
    base: named ? `${sanitize(action)}__${sanitize(first.node.id)}` : sanitize(action),
    tool: {
      description: describe(first.affordance, action, `targets: ${targets.join(", ")}`, dangerous),
      inputSchema,
      dangerous
    },
    resolved: { path: null, action, targets }
  }
}

// Singleton names that collide get their ancestors' ids prepended, one more per round, until names are unique.
const uniqueNames = (candidates: ReadonlyArray<Candidate>): Array<string> => {
  const names = candidates.map((candidate) => candidate.base)
  for (let round = 1; round < 64; round++) {
    const seen = new Map<string, Array<number>>()
    names.forEach((name, i) => {
      seen.set(name, [...(seen.get(name) ?? []), i])
    })
    let clash = false
    for (const indices of seen.values()) {
      if (indices.length < 2) continue
      for (const i of indices) {
        const entry = candidates[i]!.entry
        if (entry === undefined) continue
        const ancestors = entry.ids.slice(Math.max(0, entry.ids.length - 1 - round), entry.ids.length - 1)
        const next = `${ancestors.map(sanitize).join("__")}${ancestors.length > 0 ? "__" : ""}${candidates[i]!.base}`
        if (next !== names[i]) {
          names[i] = next
          clash = true
        }
      }
    }
    if (!clash) break
  }
  return names
}
