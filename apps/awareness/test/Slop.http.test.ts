import { assert, describe, it } from "@effect/vitest"
import type { Node, Pipeline } from "@heed/state-tree"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Socket from "effect/socket/Socket"
import { nodeId } from "../src/AwarenessTree.ts"
import * as Token from "../src/Token.ts"
import { connectHttp, makeTravel, ok, postgresReachable, settingsFor, startHttp } from "./harness.ts"
import { alertsOf, mirrorOf, random, send, under } from "./slop.ts"

const memory = { _tag: "embedded", dataDir: "memory://" } as const
const sockets = Socket.layerWebSocketConstructorGlobal
const secret = "test-secret-that-is-long-enough"
const tokenFor = (sub: string) => Token.sign({ sub, secret, nowSec: Math.floor(Date.now() / 1000), expiresInSec: 3600 })

const slopUrl = (base: string) => `${base.replace("http://", "ws://")}/slop`
const sourceNode = (tree: Node.Node | undefined, name: string) =>
  under(tree, "sources").find((node) => node.id === nodeId(name))
const alertIn = (tree: Node.Node | undefined, source: string, alertId: string) =>
  (sourceNode(tree, source)?.children ?? []).find((node) => node.properties?.alert_id === alertId)

// Source names include ones that are not valid node ids as they stand ("/", "~", a reserved word).
const sources = ["nas", "ci/github", "nas~backup", "home.lab", "meta"]
const alertIds = ["disk", "cpu", "backup"]

interface World {
  readonly alerts: Map<string, { readonly source: string; readonly alertId: string }>
  readonly suppressions: Array<string>
  readonly intentions: Array<string>
}

type Step = {
  readonly method: string
  readonly path: string
  readonly body?: unknown
  readonly holds: (tree: Node.Node | undefined) => boolean
  readonly after?: (reply: { readonly body: { readonly id?: string } }) => void
}

/** One random store change through REST, and what the tree shows once it has arrived. */
const randomStep = (rng: ReturnType<typeof random>, world: World, i: number, current: Node.Node | undefined): Step => {
  const roll = rng.next()
  const source = rng.pick(sources)
  if (roll < 0.2) {
    // the briefing shows a status's own headline only while the source has no alert: wait for the new report time
    const before = sourceNode(current, source)?.properties?.last_report
    return {
      method: "POST",
      path: "/v1/status",
      body: { source, tags: ["t"], metrics: { n: i }, headline: `headline ${i}` },
      holds: (tree) => {
        const reported = sourceNode(tree, source)?.properties?.last_report
        return reported !== undefined && reported !== before
      }
    }
  }
  if (roll < 0.5 || world.alerts.size === 0) {
    const alertId = rng.pick(alertIds)
    const message = `message ${i}`
    world.alerts.set(`${source}\u0000${alertId}`, { source, alertId })
    return {
      method: "POST",
      path: "/v1/alerts",
      body: { source, tags: ["t"], alert_id: alertId, level: rng.pick(["warning", "critical"]), message },
      holds: (tree) => alertIn(tree, source, alertId)?.properties?.message === message
    }
  }
  if (roll < 0.6) {
    const [key, alert] = rng.pick([...world.alerts.entries()])
    world.alerts.delete(key)
    return {
      method: "POST",
      path: "/v1/alerts",
      body: {
        source: alert.source,
        tags: [],
        alert_id: alert.alertId,
        level: "warning",
        message: "ok",
        resolved: true
      },
      holds: (tree) => alertIn(tree, alert.source, alert.alertId) === undefined
    }
  }
  if (roll < 0.72) {
    const goal = `goal ${i}`
    return {
      method: "POST",
      path: "/v1/intentions",
      body: { source, tags: ["t"], goal, deliver_at: "2999-01-01T00:00:00Z" },
      holds: (tree) => under(tree, "intentions").some((node) => node.properties?.goal === goal),
      after: (reply) => void world.intentions.push(String(reply.body.id))
    }
  }
  if (roll < 0.8 && world.intentions.length > 0) {
    const id = world.intentions.splice(rng.int(world.intentions.length), 1)[0]!
    return {
      method: "POST",
      path: "/v1/tools/update_intention",
      body: { entry_id: id, state: "cancelled" },
      holds: (tree) => !under(tree, "intentions").some((node) => node.id === id)
    }
  }
  if (roll < 0.9 || world.suppressions.length === 0) {
    const reason = `reason ${i}`
    return {
      method: "POST",
      path: "/v1/suppressions",
      body: { source, duration_minutes: 60, reason },
      holds: (tree) => under(tree, "suppressions").some((node) => node.properties?.reason === reason),
      after: (reply) => void world.suppressions.push(String(reply.body.id))
    }
  }
  const id = world.suppressions.splice(rng.int(world.suppressions.length), 1)[0]!
  return {
    method: "DELETE",
    path: `/v1/suppressions/${id}`,
    holds: (tree) => !under(tree, "suppressions").some((node) => node.id === id)
  }
}

describe("the awareness store as a live SLOP tree at /slop", () => {
  it.live(
    "SlopClient + Consumer mirror the tree through 200 random REST changes, each reflected as it happens",
    () =>
      Effect.gen(function* () {
        const { base } = yield* startHttp(settingsFor(), memory)
        const { consumer, settle } = yield* mirrorOf(slopUrl(base))
        const hello = yield* consumer.hello
        assert.strictEqual(hello.provider.id, "heed-awareness")
        const request: Pipeline.Request = { path: "/", depth: 4 }
        const id = yield* consumer.subscribe(request)
        const rng = random(13)
        const world: World = { alerts: new Map(), suppressions: [], intentions: [] }
        for (let i = 0; i < 200; i++) {
          const step = randomStep(rng, world, i, yield* consumer.tree(id))
          const reply = yield* send(base, step.method, step.path, step.body)
          assert.strictEqual(reply.status, 200, `${step.method} ${step.path}: ${JSON.stringify(reply.body)}`)
          step.after?.(reply)
          yield* settle(
            id,
            request,
            step.holds,
            15_000,
            `after step ${i}: ${step.method} ${step.path} ${JSON.stringify(step.body)}`
          )
        }
        const final = yield* settle(id, request)
        const alerts = yield* send(base, "GET", "/v1/alerts?limit=1000")
        assert.strictEqual(alertsOf(final).length, alerts.body.entries.length)
        assert.strictEqual(yield* consumer.resubscriptions, 0)
      }).pipe(Effect.provide(sockets)),
    120_000
  )

  it.live(
    "attention: critical sources pinned and urgent, alert salience from level and reason from the message",
    () =>
      Effect.gen(function* () {
        const { base } = yield* startHttp(settingsFor(), memory)
        const { consumer, settle } = yield* mirrorOf(slopUrl(base))
        const request: Pipeline.Request = { depth: 4 }
        const id = yield* consumer.subscribe(request)
        yield* send(base, "POST", "/v1/status", { source: "ci/github", tags: [], metrics: {}, headline: "green" })
        yield* send(base, "POST", "/v1/alerts", {
          source: "nas",
          tags: [],
          alert_id: "disk",
          level: "critical",
          message: "Disk 97% full"
        })
        yield* send(base, "POST", "/v1/alerts", {
          source: "ci/github",
          tags: [],
          alert_id: "flaky",
          level: "warning",
          message: "Flaky test"
        })
        const tree = yield* settle(id, request, (tree) => alertsOf(tree).length === 2)
        const nas = sourceNode(tree, "nas")!
        assert.strictEqual(nas.properties?.status, "critical")
        assert.strictEqual(nas.meta?.pinned, true)
        assert.strictEqual(nas.meta?.urgency, "critical")
        const ci = sourceNode(tree, "ci/github")!
        assert.strictEqual(ci.id, "ci%2Fgithub")
        assert.strictEqual(ci.properties?.name, "ci/github")
        assert.notStrictEqual(ci.meta?.pinned, true)
        const disk = alertIn(tree, "nas", "disk")!
        const flaky = alertIn(tree, "ci/github", "flaky")!
        assert.strictEqual(disk.meta?.reason, "Disk 97% full")
        assert.isAbove(disk.meta!.salience!, flaky.meta!.salience!)
        assert.deepStrictEqual(
          disk.affordances?.map((a) => a.action),
          ["acknowledge", "suppress"]
        )

        // a small budget keeps the pinned critical source
        const small: Pipeline.Request = { depth: 2, max_nodes: 3 }
        const smallId = yield* consumer.subscribe(small)
        const compact = yield* settle(smallId, small)
        assert.isDefined(sourceNode(compact, "nas"))
      }).pipe(Effect.provide(sockets)),
    60_000
  )

  it.live(
    "affordances invoke the tools: suppress, clear, fire, cancel, acknowledge; bad params are refused",
    () =>
      Effect.gen(function* () {
        const { base } = yield* startHttp(settingsFor(), memory)
        const { consumer, settle } = yield* mirrorOf(slopUrl(base))
        const request: Pipeline.Request = { depth: 4 }
        const id = yield* consumer.subscribe(request)
        yield* send(base, "POST", "/v1/alerts", {
          source: "nas",
          tags: [],
          alert_id: "disk",
          level: "warning",
          message: "Disk filling up"
        })
        const reminder = yield* send(base, "POST", "/v1/intentions", {
          source: "nas",
          tags: [],
          goal: "Order a disk",
          deliver_at: "2999-01-01T00:00:00Z"
        })
        let tree = yield* settle(
          id,
          request,
          (tree) => alertsOf(tree).length === 1 && under(tree, "intentions").length === 1
        )
        const alert = alertIn(tree, "nas", "disk")!

        const acknowledged = yield* consumer.invoke(`/sources/nas/${alert.id}`, "acknowledge", { detail: "on it" })
        assert.strictEqual(acknowledged.status, "ok")

        const suppressed = yield* consumer.invoke("/sources/nas", "suppress", {
          duration_minutes: 30,
          reason: "maintenance"
        })
        assert.strictEqual(suppressed.status, "ok")
        tree = yield* settle(id, request, (tree) => under(tree, "suppressions").length === 1)
        const suppression = under(tree, "suppressions")[0]!
        assert.strictEqual(suppression.properties?.source, "nas")
        assert.strictEqual(suppression.properties?.reason, "maintenance")
        const viaRest = yield* send(base, "POST", "/v1/tools/get_suppressions", {})
        assert.strictEqual(viaRest.body[0].id, suppression.id)

        yield* consumer.invoke(`/suppressions/${suppression.id}`, "clear")
        tree = yield* settle(id, request, (tree) => under(tree, "suppressions").length === 0)

        const intention = under(tree, "intentions")[0]!
        assert.strictEqual(intention.id, reminder.body.id)
        assert.strictEqual(intention.meta?.urgency, "none")
        yield* consumer.invoke(`/intentions/${intention.id}`, "fire")
        tree = yield* settle(id, request, (tree) => under(tree, "intentions")[0]?.properties?.state === "fired")
        assert.strictEqual(under(tree, "intentions")[0]!.meta?.urgency, "high")
        yield* consumer.invoke(`/intentions/${intention.id}`, "cancel", { reason: "bought one" })
        tree = yield* settle(id, request, (tree) => under(tree, "intentions").length === 0)

        const refused = yield* Effect.exit(consumer.invoke("/sources/nas", "suppress", { duration_minutes: 0 }))
        assert.isTrue(Exit.isFailure(refused))
        assert.include(JSON.stringify(refused), "duration_minutes")
        const missing = yield* Effect.exit(consumer.invoke("/sources/nowhere", "suppress", {}))
        assert.isTrue(Exit.isFailure(missing))
      }).pipe(Effect.provide(sockets)),
    60_000
  )

  it.live(
    "auth: the upgrade needs a token (the token query parameter or the Authorization header); each owner sees only their own tree",
    () =>
      Effect.gen(function* () {
        const settings = settingsFor({ authRequired: true, secret: Option.some(Redacted.make(secret)) })
        const { base } = yield* startHttp(settings, memory)
        const alice = { authorization: `Bearer ${tokenFor("alice")}` }
        yield* send(base, "POST", "/v1/status", { source: "alice-nas", tags: [], metrics: {} }, alice)

        const anonymous = yield* Effect.exit(mirrorOf(slopUrl(base)))
        assert.isTrue(Exit.isFailure(anonymous))
        const forged = yield* Effect.exit(mirrorOf(slopUrl(base), "not-a-token"))
        assert.isTrue(Exit.isFailure(forged))

        const mine = yield* mirrorOf(slopUrl(base), tokenFor("alice"))
        const theirs = yield* mirrorOf(slopUrl(base), tokenFor("bob"))
        const request: Pipeline.Request = { depth: 4 }
        const aliceTree = yield* mine.settle(
          yield* mine.consumer.subscribe(request),
          request,
          (tree) => sourceNode(tree, "alice-nas") !== undefined
        )
        assert.strictEqual(under(aliceTree, "sources").length, 1)
        const bobTree = yield* theirs.settle(yield* theirs.consumer.subscribe(request), request)
        assert.strictEqual(under(bobTree, "sources").length, 0)

        // a consumer that can set headers sends the token in Authorization instead
        const viaHeader = yield* Effect.promise(
          () =>
            new Promise<ReadonlyArray<{ readonly type: string; readonly tree?: Node.Node }>>((resolve, reject) => {
              const ws = new WebSocket(slopUrl(base), {
                headers: { authorization: `Bearer ${tokenFor("alice")}` }
              } as never)
              const received: Array<{ readonly type: string; readonly tree?: Node.Node }> = []
              ws.onerror = () => reject(new Error("the upgrade with an Authorization header was refused"))
              ws.onmessage = (event) => {
                received.push(JSON.parse(String(event.data)))
                if (received.length === 1) ws.send(JSON.stringify({ type: "subscribe", id: "s", depth: 2 }))
                if (received.some((message) => message.type === "snapshot")) {
                  ws.close()
                  resolve(received)
                }
              }
            })
        )
        assert.strictEqual(viaHeader[0]!.type, "hello")
        const snapshot = viaHeader.find((message) => message.type === "snapshot")!
        assert.deepStrictEqual(
          under(snapshot.tree, "sources").map((node) => node.id),
          ["alice-nas"]
        )

        const discovery = yield* send(base, "GET", "/.well-known/slop")
        assert.strictEqual(discovery.status, 200)
        assert.strictEqual(discovery.body.slop_version, "0.1")
        assert.deepStrictEqual(discovery.body.transport, { type: "ws", url: slopUrl(base) })
      }).pipe(Effect.provide(sockets)),
    60_000
  )
})

const databaseUrl = process.env.HEED_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"
const databaseReachable = await postgresReachable(databaseUrl, "the live tree's second-replica test")

describe("the live tree follows every writer", () => {
  it.live(
    "an MCP write is a patch; another replica's REST write arrives through the database's change feed",
    () =>
      Effect.gen(function* () {
        // an owner of its own on the shared test database, so earlier runs' entries are not in its tree
        const settings = settingsFor({ defaultOwner: `replica-${process.pid}-${process.hrtime.bigint()}` })
        const kind = { _tag: "server", url: Redacted.make(databaseUrl) } as const
        const first = yield* startHttp(settings, kind)
        const second = yield* startHttp(settings, kind)
        const { consumer, settle } = yield* mirrorOf(slopUrl(second.base))
        const request: Pipeline.Request = { depth: 4 }
        const id = yield* consumer.subscribe(request)

        const client = yield* connectHttp(second.url)
        yield* ok(client, "report_alert", {
          source: "nas",
          tags: [],
          alert_id: "mcp",
          level: "warning",
          message: "via MCP"
        })
        yield* settle(id, request, (tree) => alertIn(tree, "nas", "mcp")?.properties?.message === "via MCP")

        const elsewhere = yield* send(first.base, "POST", "/v1/alerts", {
          source: "ci/github",
          tags: [],
          alert_id: "replica",
          level: "critical",
          message: "written on the other replica"
        })
        assert.strictEqual(elsewhere.status, 200)
        const tree = yield* settle(
          id,
          request,
          (tree) => alertIn(tree, "ci/github", "replica")?.properties?.message === "written on the other replica"
        )
        assert.strictEqual(sourceNode(tree, "ci/github")?.meta?.pinned, true)
      }).pipe(Effect.provide(sockets)),
    { timeout: 60_000, skip: !databaseReachable }
  )

  it.live(
    "time-driven: an intention falling due becomes urgent on the next watch tick, with no write",
    () =>
      Effect.gen(function* () {
        const travel = makeTravel()
        const { base } = yield* startHttp(settingsFor({ watchIntervalMs: 50 }), memory, travel)
        const { consumer, settle } = yield* mirrorOf(slopUrl(base))
        const request: Pipeline.Request = { depth: 4 }
        const id = yield* consumer.subscribe(request)
        const at = new Date(travel.now() + 3_600_000).toISOString()
        yield* send(base, "POST", "/v1/intentions", {
          source: "nas",
          tags: [],
          goal: "Rotate the backups",
          deliver_at: at
        })
        const before = yield* settle(id, request, (tree) => under(tree, "intentions").length === 1)
        assert.strictEqual(under(before, "intentions")[0]!.meta?.urgency, "none")
        travel.advance(2 * 3_600_000)
        const after = yield* settle(id, request, (tree) => under(tree, "intentions")[0]?.meta?.urgency === "high")
        assert.strictEqual(under(after, "intentions")[0]!.properties?.due, true)
      }).pipe(Effect.provide(sockets)),
    60_000
  )

  it.live(
    "a consumer connecting after writes made while nobody watched gets the current tree",
    () =>
      Effect.gen(function* () {
        const { base } = yield* startHttp(settingsFor(), memory)
        const request: Pipeline.Request = { depth: 4 }
        yield* Effect.scoped(
          Effect.gen(function* () {
            const first = yield* mirrorOf(slopUrl(base))
            yield* first.settle(yield* first.consumer.subscribe(request), request)
          })
        )
        for (let i = 0; i < 5; i++) {
          yield* send(base, "POST", "/v1/alerts", {
            source: "nas",
            tags: [],
            alert_id: `a${i}`,
            level: "warning",
            message: `unwatched ${i}`
          })
        }
        const later = yield* mirrorOf(slopUrl(base))
        const tree = yield* later.settle(yield* later.consumer.subscribe(request), request)
        assert.deepStrictEqual(
          alertsOf(tree)
            .map((node) => node.properties?.message)
            .sort(),
          ["unwatched 0", "unwatched 1", "unwatched 2", "unwatched 3", "unwatched 4"]
        )
      }).pipe(Effect.provide(sockets)),
    60_000
  )
})
