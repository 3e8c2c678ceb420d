import { assert, describe, it } from "@effect/vitest"
import type { Band } from "@heed/attention-bands"
import { TokenCounter } from "@heed/schema"
import type { Node } from "@heed/state-tree"
import * as Budget from "../src/Budget.ts"

/** mulberry32: a small seeded PRNG, so every random app set replays exactly. */
const random = (seed: number) => {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (n: number) => Math.floor(next() * n)
  return { next, int, pick: <A>(items: ReadonlyArray<A>): A => items[int(items.length)]! }
}

const words = ["deploy", "invoice", "review", "alpha", "migration", "report", "queue", "backup", "ticket", "sprint"]

/** A random tree with unique ids `<prefix>n<k>`; `urgent` of its nodes get urgency high or critical. */
const randomTree = (rng: ReturnType<typeof random>, prefix: string, size: number, urgent: number): Node.Node => {
  let k = 0
  const nodes: Array<{ node: { -readonly [K in keyof Node.Node]: Node.Node[K] } }> = []
  const make = (depth: number): Node.Node => {
    const id = `${prefix}n${k++}`
    const node: { -readonly [K in keyof Node.Node]: Node.Node[K] } = {
      id,
      type: depth === 0 ? "collection" : "item",
      properties: { label: `${rng.pick(words)} ${rng.pick(words)} ${rng.int(1000)}`, n: rng.int(100) },
      meta: { salience: Math.round(rng.next() * 100) / 100 }
    }
    if (rng.next() < 0.2) node.affordances = [{ action: rng.pick(["open", "close", "archive"]) }]
    nodes.push({ node })
    if (depth < 2 && k < size) {
      const children: Array<Node.Node> = []
      const n = 1 + rng.int(depth === 0 ? 40 : 8)
      for (let i = 0; i < n && k < size; i++) children.push(make(depth + 1))
      node.children = children
    }
    return node
  }
  const top: Array<Node.Node> = []
  while (k < size) top.push(make(0))
  for (let i = 0; i < urgent && nodes.length > 0; i++) {
    const { node } = rng.pick(nodes)
    node.meta = { ...node.meta, urgency: rng.next() < 0.5 ? "critical" : "high", salience: 1 }
  }
  return { id: "root", type: "root", properties: { label: prefix }, children: top }
}

const bands: ReadonlyArray<Band.Band> = ["HOT", "WARM", "COOL", "IDLE"]

/** Whether the node with this (unique) id is on some line of the text. */
const shows = (text: string, id: string) => new RegExp(`\\] ${id}(?=[: ]|$)`, "m").test(text)

const urgentIds = (tree: Node.Node, onlyCritical: boolean) =>
  Budget.urgentNodes(tree, onlyCritical).map((entry) => entry.node.id)

describe("Budget.plan", () => {
  it("200 seeded random app sets: never over budget, every urgent node present, in stubs too", () => {
    const rng = random(29)
    for (let set = 0; set < 200; set++) {
      const budget = rng.pick([600, 900, 1500, 3000])
      const count = 1 + rng.int(5)
      let urgentLeft = 3
      const apps: Array<Budget.AppView> = []
      for (let a = 0; a < count; a++) {
        const id = `a${a}`
        const urgent = Math.min(urgentLeft, rng.int(3))
        urgentLeft -= urgent
        const tree = randomTree(rng, id, 1 + rng.int(rng.next() < 0.3 ? 3000 : 300), urgent)
        const previous = rng.next() < 0.5 ? randomTree(random(set * 31 + a), id, 1 + rng.int(300), 0) : undefined
        const turns = rng.pick([0, 1, 2, 3, 5, Infinity])
        apps.push({
          id,
          name: `App ${id}`,
          tree,
          band: rng.pick(bands),
          turnsSinceReference: turns,
          collapsed: turns >= 3,
          changes: previous === undefined ? undefined : Budget.changesBetween(previous, tree)
        })
      }
      const plan = Budget.plan(apps, budget)
      const context = `set ${set}, budget ${budget}`
      assert.isAtMost(plan.tokens, budget, context)
      assert.strictEqual(plan.tokens, TokenCounter.countO200k(plan.text), context)
      for (const app of apps) {
        for (const id of urgentIds(app.tree!, false)) assert.isTrue(shows(plan.text, id), `${context}: ${id}`)
      }
      const reports = new Map(plan.apps.map((report) => [report.id, report]))
      for (const app of apps) {
        const report = reports.get(app.id)!
        assert.strictEqual(report.stub, app.collapsed, context)
        assert.isAtMost(report.shownNodes, report.totalNodes, context)
      }
    }
  })

  it("an app referenced this turn gets a larger share than the same app never referenced", () => {
    const rng = random(7)
    const tree = randomTree(rng, "x", 2000, 0)
    const base = { tree, band: "IDLE" as const, collapsed: false, changes: undefined }
    const plan = Budget.plan(
      [
        { ...base, id: "referenced", name: "Referenced", turnsSinceReference: 0 },
        { ...base, id: "ignored", name: "Ignored", turnsSinceReference: Infinity }
      ],
      1500
    )
    const [referenced, ignored] = plan.apps
    assert.isAbove(referenced!.share, ignored!.share)
    assert.isAbove(referenced!.shownNodes, ignored!.shownNodes)
    assert.isAbove(plan.tokens, 1500 * 0.8, "the budget is used")
    assert.strictEqual(referenced!.weight, 3)
    assert.strictEqual(ignored!.weight, 1)
    assert.match(plan.text, /Shares = band weight/)
    assert.match(plan.text, /### Referenced \[referenced\] IDLE, share \d+: [\d,]+ of 2,001 nodes shown, [\d,]+ cut/)
  })

  it("a collapsed app is a stub of at most 60 tokens plus its urgent nodes", () => {
    const rng = random(11)
    const tree = randomTree(rng, "s", 500, 2)
    const plan = Budget.plan(
      [
        {
          id: "mail",
          name: "A mail client with a rather long and descriptive name for its window title bar",
          tree,
          band: "IDLE",
          turnsSinceReference: 4,
          collapsed: true,
          changes: undefined
        }
      ],
      1500
    )
    const stubLine = plan.text.split("\n").find((line) => line.startsWith("### "))!
    assert.include(stubLine, "collapsed (not mentioned for 4 turns)")
    assert.include(stubLine, "501 nodes")
    assert.isAtMost(TokenCounter.countO200k(stubLine), Budget.stubTokens)
    for (const id of urgentIds(tree, false)) assert.isTrue(shows(plan.text, id))
  })

  it("the digest of changes since the last look comes first, urgent first, and cuts are counted", () => {
    const before: Node.Node = {
      id: "root",
      type: "root",
      children: [
        { id: "a", type: "item", properties: { label: "Alpha" } },
        { id: "b", type: "item", properties: { label: "Beta" } }
      ]
    }
    const after: Node.Node = {
      id: "root",
      type: "root",
      children: [
        { id: "a", type: "item", properties: { label: "Alpha renamed" } },
        { id: "c", type: "notification", properties: { label: "Outage" }, meta: { urgency: "critical", salience: 1 } }
      ]
    }
    const changes = Budget.changesBetween(before, after)
    assert.deepStrictEqual(changes.removed, ["/b"])
    assert.deepStrictEqual(changes.changed.map((entry) => entry.path).sort(), ["/a", "/c"])
    const plan = Budget.plan(
      [{ id: "app", name: "App", tree: after, band: "HOT", turnsSinceReference: 0, collapsed: false, changes }],
      1500
    )
    const lines = plan.text.split("\n")
    const digest = lines.findIndex((line) => line.startsWith("Since last look: 3 changes, 1 urgent"))
    assert.isAbove(digest, 0)
    assert.match(lines[digest + 1]!, /\] c: Outage .*CRITICAL.*path=\/c/)
    assert.include(lines[digest + 3], "- removed /b")
    assert.isAbove(
      lines.findIndex((line) => line.startsWith("[root] root")),
      digest
    )
  })
})
