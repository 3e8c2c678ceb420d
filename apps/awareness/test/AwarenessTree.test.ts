import { assert, describe, it } from "@effect/vitest"
import { Node } from "@heed/state-tree"
import { nodeId, toTree } from "../src/AwarenessTree.ts"

const now = Date.parse("2026-06-01T12:00:00Z")
const alert = (id: string, source: string, level: string, message: string) => ({
  id,
  type: "alert",
  source,
  created: "2026-06-01T11:00:00Z",
  data: { alert_id: id, level, message }
})
const status = (source: string, created: string, ttl_sec = 120) => ({
  id: `s-${source}`,
  type: "status",
  source,
  created,
  data: { metrics: {}, ttl_sec, headline: `${source} fine` }
})

describe("AwarenessTree.toTree", () => {
  it("node ids: names with '/', '~', '%' or a reserved word map to distinct valid ids", () => {
    const names = ["ci/github", "nas~backup", "50%", "meta", "%meta", "children", "plain"]
    const ids = names.map(nodeId)
    assert.strictEqual(new Set(ids).size, names.length)
    for (const id of ids) assert.isUndefined(Node.validateId(id), id)
    assert.strictEqual(nodeId("ci/github"), "ci%2Fgithub")
  })

  it("with the tree it replaces, every list keeps its order and new children come last (no moves)", () => {
    const snapshot = (alerts: ReadonlyArray<unknown>, statuses: ReadonlyArray<unknown>) => ({
      briefing: {},
      statuses,
      alerts,
      intentions: [],
      suppressions: []
    })
    const first = toTree(
      snapshot([alert("a2", "nas", "warning", "two"), alert("a1", "nas", "critical", "one")], [status("zeta", "x")]),
      now
    )
    const order = (tree: Node.Node) =>
      tree.children![0]!.children!.map((s) => [s.id, ...(s.children ?? []).map((a) => a.id)])
    // alerts in insertion order (creation, then id), sources by name
    assert.deepStrictEqual(order(first), [["nas", "a1", "a2"], ["zeta"]])
    const next = toTree(
      snapshot(
        [
          alert("a3", "alpha", "info", "new source"),
          alert("a0", "nas", "info", "older id"),
          alert("a2", "nas", "warning", "two")
        ],
        [status("zeta", "x")]
      ),
      now,
      first
    )
    // a1 resolved; a0 is new to the tree, so it comes after a2 although it sorts first; alpha comes last
    assert.deepStrictEqual(order(next), [["nas", "a2", "a0"], ["zeta"], ["alpha", "a3"]])
    assert.deepStrictEqual(order(toTree(snapshot([alert("a0", "nas", "info", "x")], []), now)), [["nas", "a0"]])
  })

  it("sources the briefing left out still get a node, their status derived from alerts and the status's ttl", () => {
    const tree = toTree(
      {
        briefing: {
          summary: "s",
          sources: { nas: { status: "warning", last_report: "x", headline: "from briefing" } }
        },
        statuses: [
          status("nas", "2026-06-01T11:59:00Z"),
          status("old", "2026-06-01T10:00:00Z"),
          status("fresh", "2026-06-01T11:59:30Z")
        ],
        alerts: [alert("a1", "hot", "critical", "Disk full"), alert("a2", "hot", "warning", "Fan slow")],
        intentions: [],
        suppressions: []
      },
      now
    )
    const sources = Object.fromEntries(
      (tree.children![0]!.children ?? []).map((node) => [node.properties!.name, node] as const)
    )
    assert.deepStrictEqual(Object.keys(sources), ["fresh", "hot", "nas", "old"])
    assert.strictEqual(sources.nas!.properties!.headline, "from briefing")
    assert.strictEqual(sources.hot!.properties!.status, "critical")
    assert.strictEqual(sources.hot!.meta!.pinned, true)
    assert.strictEqual(sources.hot!.properties!.headline, "Disk full")
    assert.strictEqual(sources.old!.properties!.status, "stale")
    assert.strictEqual(sources.fresh!.properties!.status, "ok")
    assert.strictEqual(sources.fresh!.properties!.headline, "fresh fine")
    const [critical, warning] = sources.hot!.children!
    assert.isAbove(critical!.meta!.salience!, warning!.meta!.salience!)
    assert.strictEqual(critical!.meta!.reason, "Disk full")
  })

  it("intentions: open ones only, due ones urgent; suppressions carry their reason", () => {
    const tree = toTree(
      {
        briefing: {},
        statuses: [],
        alerts: [],
        intentions: [
          { id: "due", source: "x", data: { goal: "now", state: "pending", deliver_at: "2026-06-01T11:00:00Z" } },
          { id: "later", source: "x", data: { goal: "later", state: "pending", deliver_at: "2026-06-02T11:00:00Z" } },
          { id: "done", source: "x", data: { goal: "done", state: "completed" } }
        ],
        suppressions: [{ id: "s1", source: "nas", expires: "2026-06-01T13:00:00Z", data: { reason: "maintenance" } }]
      },
      now
    )
    const intentions = tree.children![1]!.children!
    assert.deepStrictEqual(
      intentions.map((node) => [node.id, node.meta!.urgency]),
      [
        ["due", "high"],
        ["later", "none"]
      ]
    )
    const suppression = tree.children![2]!.children![0]!
    assert.strictEqual(suppression.properties!.reason, "maintenance")
    assert.deepStrictEqual(
      suppression.affordances!.map((a) => a.action),
      ["clear"]
    )
  })

  it("alerts a suppression silences or a pattern explains say why and weigh little; stale sources are marked", () => {
    const tree = toTree(
      {
        briefing: { sources: { old: { status: "critical", stale: true, headline: "Disk full" } } },
        statuses: [status("old", "2026-06-01T10:00:00Z")],
        alerts: [
          {
            ...alert("disk", "nas", "critical", "Disk full"),
            tags: [],
            data: { alert_id: "disk", level: "critical", message: "Disk full", metric: "disk" }
          },
          { ...alert("torrent", "nas", "warning", "qbittorrent stopped"), tags: [] },
          { ...alert("fan", "nas", "warning", "Fan slow"), tags: [] },
          { ...alert("gone", "old", "critical", "Disk full"), tags: [] }
        ],
        intentions: [],
        suppressions: [
          {
            id: "s1",
            type: "suppression",
            source: "nas",
            tags: [],
            created: "2026-06-01T11:30:00Z",
            expires: "2026-06-01T13:00:00Z",
            data: { metric: "disk", suppress_level: "critical", reason: "disk swap", escalation_override: true }
          }
        ],
        patterns: [
          {
            id: "p1",
            type: "pattern",
            source: "nas",
            tags: [],
            created: "2026-06-01T09:00:00Z",
            data: {
              description: "the torrent client restarts nightly",
              conditions: {},
              effect: "suppress qbittorrent stopped"
            }
          }
        ]
      },
      now
    )
    const nas = tree.children![0]!.children!.find((node) => node.id === "nas")!
    const byId = Object.fromEntries(nas.children!.map((node) => [node.properties!.alert_id, node] as const))
    assert.deepStrictEqual(byId.fan!.properties!.evaluation, undefined)
    assert.strictEqual(byId.fan!.meta!.salience, 0.7)
    const disk = byId.disk!.properties!.evaluation as ReadonlyArray<string>
    assert.strictEqual(disk.length, 1)
    assert.include(disk[0], "suppressed: disk swap (until 2026-06-01T13:00:00Z)")
    assert.strictEqual(byId.disk!.meta!.salience, 0.2)
    assert.strictEqual(byId.disk!.meta!.urgency, "none")
    const torrent = byId.torrent!.properties!.evaluation as ReadonlyArray<string>
    assert.deepStrictEqual(torrent, ["pattern: the torrent client restarts nightly"])
    const old = tree.children![0]!.children!.find((node) => node.id === "old")!
    assert.strictEqual(old.properties!.status, "critical")
    assert.strictEqual(old.properties!.stale, true)
    assert.strictEqual(nas.properties!.stale, false)
  })
})
