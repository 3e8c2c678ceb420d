/**
 * The budget: every connected app's state in one text, inside one token budget. Pure and synchronous.
 *
 * Each app gets a share of the budget from its attention band and how recently the conversation referred to it
 * (weights `HOT 8, WARM 4, COOL 2, IDLE 1` times `1 + 2 / (1 + turns since the last reference)`), split by water
 * filling: an app whose whole tree fits in less than its share gives the rest back to the others. Within its share an
 * app's tree is `Pipeline.optimize`d (the provider's pinned nodes survive; of a few cuts, by depth and by salience,
 * the one showing the most salience is kept) and rendered in SLOP's text format; urgent
 * nodes (`high`, `critical`) that the view leaves out are listed under it with their paths, so none is ever cut. A
 * digest of what changed since the last injection (urgent first) comes before the tree. An
 * app the conversation has not referred to for N turns collapses to a stub of at most 60 tokens that still lists
 * its urgent nodes (critical and high). Every cut is counted in the app's heading, and the header explains the split.
 *
 * @since 0.1.0
 */
import type { Band } from "@heed/attention-bands"
import { TokenCounter } from "@heed/schema"
import { Digest, Node, Patch, Pipeline, Render } from "@heed/state-tree"

/**
 * What changed in an app since the agent last saw it: nodes added or changed (with their paths) and the paths of
 * removed nodes.
 *
 * @category models
 * @since 0.1.0
 */
export interface Changes {
  readonly changed: ReadonlyArray<{ readonly path: string; readonly node: Node.Node }>
  readonly removed: ReadonlyArray<string>
}

/**
 * One app as the planner sees it.
 *
 * - `tree`: the mirrored tree (`undefined` while not connected);
 * - `band`: its attention band; `turnsSinceReference`: turns since the conversation last referred to it (`0` this
 *   turn; `Infinity` never);
 * - `collapsed`: decayed to a stub;
 * - `changes`: since the last injection (`undefined` on the first one).
 *
 * @category models
 * @since 0.1.0
 */
export interface AppView {
  readonly id: string
  readonly name: string
  readonly tree: Node.Node | undefined
  readonly band: Band.Band
  readonly turnsSinceReference: number
  readonly collapsed: boolean
  readonly changes: Changes | undefined
}

/**
 * What the planner did with one app: its weight and share, the tokens its section used, the nodes shown and cut,
 * the digest entries shown and left out, and whether it was a stub.
 *
 * @category models
 * @since 0.1.0
 */
export interface AppReport {
  readonly id: string
  readonly band: Band.Band
  readonly weight: number
  readonly share: number
  readonly tokens: number
  readonly totalNodes: number
  readonly shownNodes: number
  readonly digestShown: number
  readonly digestTotal: number
  readonly stub: boolean
}

/**
 * A planned injection: the `text`, its exact o200k `tokens`, and one report per app.
 *
 * @category models
 * @since 0.1.0
 */
export interface Plan {
  readonly text: string
  readonly tokens: number
  readonly budget: number
  readonly apps: ReadonlyArray<AppReport>
}

/**
 * The default budget, 1,500 o200k tokens.
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultBudget = 1500

/**
 * The most tokens a collapsed app's stub line takes (its urgent nodes come on top).
 *
 * @category constants
 * @since 0.1.0
 */
export const stubTokens = 60

/**
 * The weight of each band.
 *
 * @category constants
 * @since 0.1.0
 */
export const bandWeights: Readonly<Record<Band.Band, number>> = { HOT: 8, WARM: 4, COOL: 2, IDLE: 1 }

/**
 * An app's weight: its band's weight times `1 + 2 / (1 + turnsSinceReference)` (×3 when referenced this turn, ×2
 * one turn later, ×1 when never referenced).
 *
 * @category getters
 * @since 0.1.0
 */
export const weightOf = (band: Band.Band, turnsSinceReference: number): number =>
  bandWeights[band] * (1 + 2 / (1 + Math.max(0, turnsSinceReference)))

const count = TokenCounter.countO200k

const isUrgent = (node: Node.Node): boolean => node.meta?.urgency === "high" || node.meta?.urgency === "critical"

/**
 * What the planner needs to know about a subtree without walking it again: its node count, whether an urgent node
 * (`high`, `critical`) is in it, and the labels of its salient nodes (at most 50). Kept per subtree object, so a new
 * tree that shares most subtrees with the last one (a consumer's mirror after a patch) costs only its changed
 * path.
 *
 * @category models
 * @since 0.1.0
 */
export interface Summary {
  readonly count: number
  readonly urgent: boolean
  readonly salientLabels: ReadonlyArray<string>
}

const summaries = new WeakMap<Node.Node, Summary>()

const labelOf = (node: Node.Node): string | undefined => {
  const value = node.properties?.label ?? node.properties?.title
  return typeof value === "string" ? value : undefined
}

/**
 * The {@link Summary} of a subtree (memoised per subtree object). Salient means focused, urgent or salience of at
 * least 0.9.
 *
 * @category getters
 * @since 0.1.0
 */
export const summaryOf = (node: Node.Node): Summary => {
  const cached = summaries.get(node)
  if (cached !== undefined) return cached
  let count = 1
  let urgent = isUrgent(node)
  let labels: Array<string> | undefined
  const meta = node.meta
  if (meta?.focus === true || urgent || (meta?.salience ?? 0) >= 0.9) {
    const label = labelOf(node)
    if (label !== undefined) labels = [label]
  }
  const children = node.children
  if (children) {
    for (let i = 0; i < children.length; i++) {
      const child = summaryOf(children[i]!)
      count += child.count
      if (child.urgent) urgent = true
      if (child.salientLabels.length > 0 && (labels === undefined || labels.length < 50)) {
        labels ??= []
        for (const label of child.salientLabels) if (labels.length < 50) labels.push(label)
      }
    }
  }
  const summary: Summary = { count, urgent, salientLabels: labels ?? noLabels }
  summaries.set(node, summary)
  return summary
}

const noLabels: ReadonlyArray<string> = []

/**
 * Every urgent node of a tree (optionally only `critical` ones) with its path, in tree order.
 *
 * @category getters
 * @since 0.1.0
 */
export const urgentNodes = (
  tree: Node.Node,
  onlyCritical = false
): ReadonlyArray<{ readonly path: string; readonly node: Node.Node }> => {
  const out: Array<{ path: string; node: Node.Node }> = []
  const ids: Array<string> = []
  const walk = (node: Node.Node, root: boolean): void => {
    if (!summaryOf(node).urgent) return
    if (!root) ids.push(node.id)
    const urgency = node.meta?.urgency
    if (!root && (urgency === "critical" || (!onlyCritical && urgency === "high"))) {
      out.push({ path: Node.pathOf(ids), node })
    }
    const children = node.children
    if (children) for (let i = 0; i < children.length; i++) walk(children[i]!, false)
    if (!root) ids.pop()
  }
  walk(tree, true)
  return out
}

const fields = new Set(["properties", "meta", "affordances", "content_ref", "children"])

/**
 * What changed between two trees of an app, from `Patch.diff`: the nodes added or changed, and the removed paths.
 *
 * @category constructors
 * @since 0.1.0
 */
export const changesBetween = (previous: Node.Node, next: Node.Node): Changes => {
  if (previous === next) return noChanges
  const cached = diffs.get(previous)
  if (cached !== undefined && cached.next === next) return cached.changes
  const changes = diffOf(previous, next)
  diffs.set(previous, { next, changes })
  return changes
}

const noChanges: Changes = { changed: [], removed: [] }

/** The last diff from each tree: the same pair is asked for on every peek and injection until one of them moves. */
const diffs = new WeakMap<Node.Node, { readonly next: Node.Node; readonly changes: Changes }>()

const diffOf = (previous: Node.Node, next: Node.Node): Changes => {
  const changed = new Map<string, Node.Node>()
  const removed: Array<string> = []
  const touch = (segments: ReadonlyArray<string>) => {
    const path = Node.pathOf(segments)
    if (changed.has(path)) return
    const node = Node.find(next, segments)
    if (node !== undefined) changed.set(path, node)
  }
  for (const op of Patch.diff(previous, next)) {
    const segments = Node.parsePath(op.path)
    const field = segments.findIndex((segment) => fields.has(segment))
    if (field === -1) {
      if (op.op === "remove") removed.push(Node.pathOf(segments))
      else if (op.op === "replace" && segments.length === 0) touch([])
      else touch(segments)
      continue
    }
    const owner = segments.slice(0, field)
    if (segments[field] === "children" && op.op === "replace") {
      // a whole child list: compare by id
      const before = new Set((Node.find(previous, owner)?.children ?? []).map((child) => child.id))
      const after = Node.find(next, owner)?.children ?? []
      for (const child of after) if (!before.has(child.id)) touch([...owner, child.id])
      const kept = new Set(after.map((child) => child.id))
      for (const id of before) if (!kept.has(id)) removed.push(Node.pathOf([...owner, id]))
      continue
    }
    touch(owner)
  }
  return { changed: [...changed].map(([path, node]) => ({ path, node })), removed }
}

const entryLine = (node: Node.Node, path: string): string => {
  const { children: _children, ...rest } = node
  return Render.line({ ...rest, meta: { ...node.meta, path } })
}

/** `12345` → `"12,345"` (Intl's formatter is slow on a hot path). */
const thousands = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",")

const plural = (n: number, one: string, many: string) => `${thousands(n)} ${n === 1 ? one : many}`

// ---------------------------------------------------------------------------------------------------------------
// Sections

interface Section {
  readonly text: string
  readonly tokens: number
  readonly shownNodes: number
  readonly digestShown: number
  readonly digestTotal: number
  /** whether the whole tree and digest were shown (a larger share would not change it) */
  readonly complete: boolean
}

/** The per-app caches: a tree's node count and its urgent-pinned copy, kept while the tree is the same object. */
const urgents = new WeakMap<
  Node.Node,
  ReadonlyArray<{ readonly path: string; readonly line: string; readonly cost: number }>
>()

const totalOf = (tree: Node.Node): number => summaryOf(tree).count

/** The urgent nodes of a tree as lines with their paths and token costs, most urgent first. */
const urgentOf = (tree: Node.Node) => {
  let out = urgents.get(tree)
  if (out === undefined) {
    out = [...urgentNodes(tree)]
      .sort((a, b) => Digest.compare(a.node, b.node))
      .map(({ node, path }) => {
        const line = `  ${entryLine(node, path)}`
        return { path, line, cost: count(line) + 1 }
      })
    urgents.set(tree, out)
  }
  return out
}

/** The last optimised view of each tree, by token budget: an unchanged tree at an unchanged share is not redone. */
interface View {
  readonly text: string
  readonly shown: number
  readonly paths: ReadonlySet<string>
}

const views = new WeakMap<Node.Node, Map<number, View>>()

const candidates: ReadonlyArray<Pipeline.Request> = [
  { depth: -1 },
  { depth: 2 },
  { depth: 1 },
  { filter: { min_salience: 0.5, keep_ancestors: true } },
  { filter: { min_salience: 0.7, keep_ancestors: true } }
]

/** What a view shows, weighted by salience squared (a salient node counts far more than background). */
const massOf = (view: Node.Node): number => {
  let mass = 0
  const walk = (node: Node.Node) => {
    const salience = node.meta?.salience ?? 0.5
    mass += salience * salience
    const children = node.children
    if (children) for (let i = 0; i < children.length; i++) walk(children[i]!)
  }
  walk(view)
  return mass
}

/** The paths of every node of a view. */
const pathsOf = (view: Node.Node): ReadonlySet<string> => {
  const out = new Set<string>()
  const ids: Array<string> = []
  const walk = (node: Node.Node, root: boolean): void => {
    if (!root) ids.push(node.id)
    out.add(Node.pathOf(ids))
    const children = node.children
    if (children) for (let i = 0; i < children.length; i++) walk(children[i]!, false)
    if (!root) ids.pop()
  }
  walk(view, true)
  return out
}

const viewOf = (tree: Node.Node, budget: number): View => {
  let byBudget = views.get(tree)
  if (byBudget === undefined) {
    byBudget = new Map()
    views.set(tree, byBudget)
  }
  let out = byBudget.get(budget)
  if (out === undefined) {
    // the optimiser windows a list by its first children, so a deep tree on a small budget can come out nearly empty
    // or show only background: shallower cuts and salience-filtered cuts of the same tree are tried too, and the one
    // showing the most salience wins (on the bench's workday, 12% of the salient nodes of expanded apps instead of 3%)
    let best = -1
    for (const request of candidates) {
      const view = Pipeline.optimize(tree, { ...request, max_tokens: budget })
      const text = Render.text(view)
      const candidate = { text, shown: Node.count(view), paths: pathsOf(view) }
      const value = massOf(view)
      if (out === undefined || value > best) {
        out = candidate
        best = value
      }
    }
    out = out!
    if (byBudget.size >= 8) byBudget.delete(byBudget.keys().next().value!)
    byBudget.set(budget, out)
  }
  return out
}

const headingOf = (app: AppView, share: number, shown: number, total: number): string => {
  const cut = total - shown
  return `### ${app.name} [${app.id}] ${app.band}, share ${share}: ${
    cut === 0
      ? `all ${plural(total, "node", "nodes")}`
      : `${thousands(shown)} of ${plural(total, "node", "nodes")} shown, ${thousands(cut)} cut`
  }`
}

/** The digest lines of an app within `budget` tokens, urgent first; `total` entries exist. */
const digestLines = (
  changes: Changes | undefined,
  budget: number
): { lines: Array<string>; shown: number; total: number; paths: Set<string> } => {
  const paths = new Set<string>()
  if (changes === undefined) return { lines: [], shown: 0, total: 0, paths }
  const total = changes.changed.length + changes.removed.length
  if (total === 0) return { lines: [], shown: 0, total: 0, paths }
  const entries = [...changes.changed].sort((a, b) => Digest.compare(a.node, b.node))
  const lines: Array<string> = []
  let used = 0
  let shown = 0
  const take = (line: string): boolean => {
    const cost = count(line) + 1
    if (used + cost > budget) return false
    lines.push(line)
    used += cost
    shown++
    return true
  }
  for (const entry of entries) {
    if (take(`  ${entryLine(entry.node, entry.path)}`)) paths.add(entry.path)
    else if (!isUrgent(entry.node)) break
  }
  for (const path of changes.removed) if (!take(`  - removed ${path}`)) break
  return { lines, shown, total, paths }
}

const digestHeading = (shown: number, total: number, urgent: number) =>
  `Since last look: ${plural(total, "change", "changes")}${urgent > 0 ? `, ${urgent} urgent` : ""}${
    shown < total ? ` (${total - shown} not shown)` : ""
  }`

/** An expanded app's section within `share` tokens. */
const expanded = (app: AppView, share: number): Section => {
  const tree = app.tree!
  const total = totalOf(tree)
  const changes = app.changes
  const changeCount = changes === undefined ? 0 : changes.changed.length + changes.removed.length
  const urgentChanges = changes === undefined ? 0 : changes.changed.filter((entry) => isUrgent(entry.node)).length
  // the heading is costed with the widest numbers it can show
  const headingCost = count(headingOf(app, share, total, total + 1)) + 1
  const digestBudget = changeCount === 0 ? 0 : Math.max(0, Math.floor((share - headingCost) * 0.3))
  const digest = digestLines(
    changes,
    digestBudget - (changeCount === 0 ? 0 : count(digestHeading(0, changeCount, urgentChanges)) + 1)
  )
  const digestText =
    digest.total === 0 ? "" : [digestHeading(digest.shown, digest.total, urgentChanges), ...digest.lines].join("\n")
  const digestCost = digestText === "" ? 0 : count(digestText) + 1
  // urgent nodes survive every cut: those the optimised view leaves out are listed under it
  const urgent = urgentOf(tree)
  const urgentHeading = "Urgent, outside the view above:"
  const urgentReserve =
    urgent.length === 0 ? 0 : urgent.reduce((sum, entry) => sum + entry.cost, count(urgentHeading) + 1)
  const treeBudget = Math.max(0, share - headingCost - digestCost - urgentReserve)
  const view = viewOf(tree, treeBudget)
  const missing = urgent.filter((entry) => !view.paths.has(entry.path) && !digest.paths.has(entry.path))
  const urgentText = missing.length === 0 ? [] : [urgentHeading, ...missing.map((entry) => entry.line)]
  const shown = view.shown + missing.length
  const text = [
    headingOf(app, share, shown, total),
    ...(digestText === "" ? [] : [digestText]),
    view.text,
    ...urgentText
  ].join("\n")
  return {
    text,
    tokens: count(text),
    shownNodes: shown,
    digestShown: digest.shown,
    digestTotal: digest.total,
    complete: shown === total && digest.shown === digest.total
  }
}

/** A collapsed app's stub: one line of at most {@link stubTokens} tokens, then its urgent (high and critical) nodes. */
const stub = (app: AppView): Section => {
  const tree = app.tree
  const total = tree === undefined ? 0 : totalOf(tree)
  const changes = app.changes
  const changeCount = changes === undefined ? 0 : changes.changed.length + changes.removed.length
  const urgent = changes === undefined ? 0 : changes.changed.filter((entry) => isUrgent(entry.node)).length
  const turns = Number.isFinite(app.turnsSinceReference) ? `${app.turnsSinceReference} turns` : "ever"
  let name = app.name
  let line = ""
  for (;;) {
    line = `### ${name} [${app.id}] collapsed (not mentioned for ${turns}): ${plural(total, "node", "nodes")}, ${plural(
      changeCount,
      "change",
      "changes"
    )}${urgent > 0 ? ` (${urgent} urgent)` : ""} since last look; mention it to expand`
    if (count(line) <= stubTokens || name.length <= 8) break
    name = `${name.slice(0, Math.floor(name.length / 2))}…`
  }
  const critical = tree === undefined ? [] : urgentNodes(tree)
  const lines = [line, ...critical.map((entry) => `  ${entryLine(entry.node, entry.path)}`)]
  const text = lines.join("\n")
  return {
    text,
    tokens: count(text),
    shownNodes: critical.length,
    digestShown: 0,
    digestTotal: changeCount,
    complete: true
  }
}

/** An app without a tree yet (connecting or reconnecting). */
const pending = (app: AppView): Section => {
  const text = `### ${app.name} [${app.id}] not connected yet`
  return { text, tokens: count(text), shownNodes: 0, digestShown: 0, digestTotal: 0, complete: true }
}

// ---------------------------------------------------------------------------------------------------------------
// The plan

const headerOf = (
  budget: number,
  used: number,
  reports: ReadonlyArray<AppReport>,
  names: ReadonlyMap<string, string>
) => {
  const open = reports.filter((report) => !report.stub && report.share > 0)
  const collapsed = reports.filter((report) => report.stub)
  const shares = open
    .map(
      (report) =>
        `${names.get(report.id)} ${report.share} (${report.band}, weight ${Math.round(report.weight * 10) / 10})`
    )
    .join(", ")
  return [
    `## SLOP apps (heed-bridge): ${thousands(used)} of ${thousands(budget)} tokens`,
    `Shares = band weight (HOT 8, WARM 4, COOL 2, IDLE 1) × (1 + 2/(1 + turns since mentioned)), water-filled: ${
      shares === "" ? "none" : shares
    }${collapsed.length > 0 ? `; collapsed: ${collapsed.map((report) => names.get(report.id)).join(", ")}` : ""}.`
  ].join("\n")
}

/**
 * Plans one injection for the apps within `budget` tokens (o200k). The result never exceeds the budget: when the
 * header, stubs and urgent nodes alone do not fit, lines are dropped from the end (urgent lines last).
 *
 * @category constructors
 * @since 0.1.0
 */
export const plan = (apps: ReadonlyArray<AppView>, budget: number = defaultBudget): Plan => {
  const names = new Map(apps.map((app) => [app.id, app.name]))
  if (apps.length === 0) return { text: "", tokens: 0, budget, apps: [] }
  const sections = new Map<string, Section>()
  const reports = new Map<string, AppReport>()
  const weights = new Map<string, number>()
  const fixed = apps.filter((app) => app.collapsed || app.tree === undefined)
  for (const app of fixed) sections.set(app.id, app.tree === undefined ? pending(app) : stub(app))
  const open = apps.filter((app) => !app.collapsed && app.tree !== undefined)
  for (const app of open) weights.set(app.id, weightOf(app.band, app.turnsSinceReference))
  // the header is costed with placeholder shares as wide as real ones
  const draftReports = apps.map((app) => ({
    id: app.id,
    band: app.band,
    weight: weights.get(app.id) ?? 0,
    share: budget,
    tokens: 0,
    totalNodes: 0,
    shownNodes: 0,
    digestShown: 0,
    digestTotal: 0,
    stub: app.collapsed && app.tree !== undefined
  }))
  const headerCost = count(headerOf(budget, budget, draftReports, names)) + 2
  let fixedCost = 0
  for (const section of sections.values()) fixedCost += section.tokens + 2
  const available = Math.max(0, budget - headerCost - fixedCost - 2 * open.length)
  // water filling: proportional shares first; what the apps leave unused (a whole tree that fits in less, or a view
  // that could not use all of its share) goes to the apps that were cut, by weight, and those are planned again
  const shares = new Map<string, number>()
  const weightSum = open.reduce((sum, app) => sum + weights.get(app.id)!, 0)
  for (const app of open) {
    const share = Math.floor((available * weights.get(app.id)!) / weightSum)
    shares.set(app.id, share)
    sections.set(app.id, expanded(app, share))
  }
  for (let round = 0; round < 3; round++) {
    const used = open.reduce((sum, app) => sum + sections.get(app.id)!.tokens, 0)
    const spare = available - used
    const cut = open.filter((app) => !sections.get(app.id)!.complete)
    if (spare < 16 || cut.length === 0) break
    // a cut app keeps what it used and gets its part of the spare tokens
    const cutWeight = cut.reduce((sum, app) => sum + weights.get(app.id)!, 0)
    for (const app of cut) {
      const share = sections.get(app.id)!.tokens + Math.floor((spare * weights.get(app.id)!) / cutWeight)
      if (share <= shares.get(app.id)!) continue
      const section = expanded(app, share)
      // a larger share that shows less (the optimiser's windows are coarse) is not taken
      if (section.shownNodes < sections.get(app.id)!.shownNodes) continue
      shares.set(app.id, share)
      sections.set(app.id, section)
    }
  }
  for (const app of apps) {
    const section = sections.get(app.id)!
    reports.set(app.id, {
      id: app.id,
      band: app.band,
      weight: weights.get(app.id) ?? 0,
      share: shares.get(app.id) ?? 0,
      tokens: section.tokens,
      totalNodes: app.tree === undefined ? 0 : totalOf(app.tree),
      shownNodes: section.shownNodes,
      digestShown: section.digestShown,
      digestTotal: section.digestTotal,
      stub: app.collapsed && app.tree !== undefined
    })
  }
  const body = apps.map((app) => sections.get(app.id)!.text).join("\n\n")
  const assemble = (used: number) => `${headerOf(budget, used, [...reports.values()], names)}\n\n${body}`
  // the header states the text's own token count: settle it in a few rounds (a number's width barely moves it)
  let claimed = Math.min(budget, count(body) + headerCost)
  let text = assemble(claimed)
  let tokens = count(text)
  for (let round = 0; round < 3 && tokens !== claimed; round++) {
    claimed = tokens
    text = assemble(claimed)
    tokens = count(text)
  }
  if (tokens > budget) {
    text = trim(text, budget)
    tokens = count(text)
  }
  return { text, tokens, budget, apps: apps.map((app) => reports.get(app.id)!) }
}

const urgentFlag = /\[(?:[^\]]*, )?(?:CRITICAL|HIGH)(?:, [^\]]*)?\]/

/** Drops lines from the end until the text fits: ordinary lines first, then urgent ones, headings last. */
const trim = (text: string, budget: number): string => {
  const lines = text.split("\n")
  const keep = lines.map(() => true)
  const rank = (line: string) => (line.startsWith("#") ? 2 : urgentFlag.test(line) ? 1 : 0)
  let tokens = count(text)
  for (let level = 0; level <= 2 && tokens > budget; level++) {
    for (let i = lines.length - 1; i >= 0 && tokens > budget; i--) {
      if (!keep[i] || rank(lines[i]!) !== level) continue
      keep[i] = false
      tokens -= count(lines[i]!) + 1
      if (tokens <= budget + 4) tokens = count(lines.filter((_, j) => keep[j]).join("\n"))
    }
  }
  let out = lines.filter((_, j) => keep[j]).join("\n")
  while (count(out) > budget && out.length > 0) out = out.slice(0, Math.floor(out.length * 0.9))
  return out
}
