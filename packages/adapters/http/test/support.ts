import { createServer } from "node:http"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import type { Message, Node } from "@heed/state-tree"
import { Provider } from "@heed/state-tree"
import { Context, Data, Deferred, Effect, Layer } from "effect"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServer from "effect/http/HttpServer"
import { WebSocket as WsWebSocket } from "ws"
import { SlopServer } from "../src/index.ts"

/**
 * Serves `app` on 127.0.0.1 (an ephemeral port unless `port` is given) for the rest of the current scope, and
 * returns `host:port`.
 */
export const listen = (
  app: Layer.Layer<never, never, HttpRouter.HttpRouter>,
  options: { readonly limits?: SlopServer.Limits; readonly port?: number } = {}
) =>
  Effect.gen(function* () {
    const server = HttpRouter.serve(app, { disableLogger: true, disableListenLog: true }).pipe(
      Layer.provideMerge(
        NodeHttpServer.layer(() => createServer(), {
          port: options.port ?? 0,
          host: "127.0.0.1",
          websocket: SlopServer.websocketOptions(options.limits),
          // open WebSockets would hold a graceful shutdown for its whole timeout: close them with the server
          disablePreemptiveShutdown: true
        })
      )
    )
    const context = yield* Layer.build(server)
    const address = Context.get(context, HttpServer.HttpServer).address
    if (address._tag === "UnixPathAddress") return yield* Effect.die("expected a TCP address")
    return `127.0.0.1:${address.port}`
  })

/** A provider whose root has a `sync` action that does nothing: its result proves that every earlier patch arrived. */
export const syncedProvider = (options: Provider.Options = {}) =>
  Effect.gen(function* () {
    const provider = yield* Provider.make({ coalesceMs: 0, ...options })
    yield* provider.handle("/", "sync", () => Effect.void)
    return provider
  })

/** Serves `provider` at /slop with the given limits; returns `ws://host:port/slop`. */
export const serveProvider = (provider: Provider.Provider, limits: SlopServer.Limits = {}) =>
  Effect.map(
    listen(
      SlopServer.layer({ path: "/slop", ...limits }).pipe(Layer.provide(Layer.succeed(Provider.Service, provider))),
      {
        limits
      }
    ),
    (host) => `ws://${host}/slop`
  )

/** A small seeded PRNG (mulberry32), so random scenarios replay exactly. */
export const random = (seed: number) => {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (n: number) => Math.floor(next() * n)
  const pick = <A>(items: ReadonlyArray<A>): A => items[int(items.length)]!
  return { next, int, pick }
}

type Random = ReturnType<typeof random>
type Mutable = { -readonly [K in keyof Node.Node]: Node.Node[K] }

// Ids include ones SLOP forbids (holding "/" or "~", even a literal "~1"), as user data may bring them.
const idPool = ["a", "b", "c", "d", "e", "f", "ci/github", "nas~backup", "x~1y", "user.42", "g", "h"]
const keyPool = ["label", "status", "count", "a/b", "c~d", "note"]
const urgencies = ["none", "low", "medium", "high", "critical"] as const

const children = (node: Node.Node): Array<Node.Node> => [...(node.children ?? [])]

const leaf = (rng: Random, id: string): Node.Node => {
  const node: Mutable = { id, type: rng.pick(["item", "status", "group"]) }
  if (rng.next() < 0.6) node.properties = { label: `${id}-${rng.int(100)}` }
  if (rng.next() < 0.5) node.meta = { salience: Math.round(rng.next() * 100) / 100 }
  return node
}

/** One random change somewhere in the tree: an insert, a removal, a reorder, a property or meta change. */
const mutateNode = (rng: Random, node: Node.Node, depth: number): Node.Node => {
  const list = children(node)
  const out: Mutable = { ...node }
  const roll = rng.next()
  if (list.length > 0 && depth < 3 && roll < 0.45) {
    const at = rng.int(list.length)
    list[at] = mutateNode(rng, list[at]!, depth + 1)
    out.children = list
    return out
  }
  if (roll < 0.6) {
    // insert at a random position, an id not yet among the siblings
    const free = idPool.filter((id) => !list.some((child) => child.id === id))
    if (free.length > 0) list.splice(rng.int(list.length + 1), 0, leaf(rng, rng.pick(free)))
  } else if (roll < 0.7 && list.length > 0) list.splice(rng.int(list.length), 1)
  else if (roll < 0.78 && list.length > 1) {
    const [moved] = list.splice(rng.int(list.length), 1)
    list.splice(rng.int(list.length + 1), 0, moved!)
  } else if (roll < 0.9) {
    const properties = { ...node.properties }
    const key = rng.pick(keyPool)
    if (key in properties && rng.next() < 0.4) delete properties[key]
    else properties[key] = rng.int(1000)
    if (Object.keys(properties).length > 0) out.properties = properties
    else delete out.properties
  } else {
    const r = rng.next()
    if (r < 0.3) delete out.meta
    else if (r < 0.6) out.meta = { ...node.meta, salience: Math.round(rng.next() * 100) / 100 }
    else out.meta = { ...node.meta, urgency: rng.pick(urgencies), reason: `r${rng.int(10)}` }
  }
  if (list.length > 0) out.children = list
  else if (node.children !== undefined && rng.next() < 0.5) out.children = []
  else delete out.children
  return out
}

/** A tree after `steps` random changes from `start` (1–3 changes per step), for each step. */
export const randomTrees = (seed: number, steps: number, start: Node.Node): Array<Node.Node> => {
  const rng = random(seed)
  const out: Array<Node.Node> = []
  let tree = start
  for (let i = 0; i < steps; i++) {
    const changes = 1 + rng.int(3)
    for (let c = 0; c < changes; c++) tree = mutateNode(rng, tree, 0)
    out.push(tree)
  }
  return out
}

export const startTree: Node.Node = {
  id: "root",
  type: "root",
  children: [
    { id: "sources", type: "collection", children: [{ id: "ci/github", type: "status", meta: { salience: 0.9 } }] },
    { id: "alerts", type: "collection", children: [{ id: "a", type: "item" }] },
    { id: "b", type: "item", properties: { label: "b" } }
  ]
}

/** Messages received, and a way to wait until a condition on them holds (checked on each arrival). */
export const inbox = () => {
  const messages: Array<Message.Outbound> = []
  const counts = new Map<string, number>()
  const waiters = new Set<{ readonly holds: () => boolean; readonly done: Deferred.Deferred<void> }>()
  const push = (message: Message.Outbound) => {
    messages.push(message)
    counts.set(message.type, (counts.get(message.type) ?? 0) + 1)
    for (const waiter of waiters) {
      if (!waiter.holds()) continue
      waiters.delete(waiter)
      Deferred.doneUnsafe(waiter.done, Effect.void)
    }
  }
  const until = (holds: () => boolean) =>
    Effect.suspend(() => {
      if (holds()) return Effect.void
      const done = Deferred.makeUnsafe<void>()
      waiters.add({ holds, done })
      return Deferred.await(done)
    })
  /** How many messages of a type arrived. */
  const count = (type: Message.Outbound["type"]) => counts.get(type) ?? 0
  return { messages, push, until, count }
}

/** What a refused upgrade answered. */
export class Refused extends Data.TaggedError("Refused")<{ readonly status: number; readonly body: string }> {}

/**
 * A connection with the `ws` package's client, which can send headers, pause reading and report the status of a
 * refused upgrade; closed with the scope.
 */
export const wsClient = (url: string, headers: Record<string, string> = {}, protocols?: ReadonlyArray<string>) =>
  Effect.acquireRelease(
    Effect.callback<WsWebSocket, Refused>((resume) => {
      const ws =
        protocols === undefined ? new WsWebSocket(url, { headers }) : new WsWebSocket(url, [...protocols], { headers })
      ws.once("open", () => resume(Effect.succeed(ws)))
      ws.once("unexpected-response", (_request, response) => {
        let body = ""
        response.on("data", (chunk: Buffer) => {
          body += chunk.toString()
        })
        response.on("end", () => resume(Effect.fail(new Refused({ status: response.statusCode ?? 0, body }))))
      })
      ws.once("error", (error) => resume(Effect.die(error)))
    }),
    (ws) => Effect.sync(() => ws.terminate())
  ).pipe(
    Effect.map((ws) => {
      const received = inbox()
      const closed = Deferred.makeUnsafe<number>()
      ws.on("message", (data, binary) => {
        if (!binary) received.push(JSON.parse(String(data)))
      })
      ws.on("close", (code) => Deferred.doneUnsafe(closed, Effect.succeed(code)))
      let counter = 0
      const send = (message: unknown) => Effect.sync(() => ws.send(JSON.stringify(message)))
      // every message sent before the result of a no-op invoke has arrived when the result does
      const sync = Effect.suspend(() => {
        const id = `sync-${++counter}`
        ws.send(JSON.stringify({ type: "invoke", id, path: "/", action: "sync" }))
        return received.until(() => received.messages.some((m) => m.type === "result" && m.id === id))
      })
      return { ws, ...received, send, sync, closed: Deferred.await(closed) }
    })
  )

/** The awareness tools a fake `RestApi.Tools` port offers: the write tools, then the read-only ones. */
export const writeToolNames = ["report_status", "report_alert", "remind", "suppress_alert", "clear_suppression"]
export const readToolNames = ["get_briefing", "get_alerts", "get_status"]

/** The port's tool list for those names: each described as "The <name> tool.", with an open object schema. */
export const fakeToolInfos = () =>
  [...writeToolNames, ...readToolNames].map((name) => ({
    name,
    description: `The ${name} tool.`,
    readOnly: readToolNames.includes(name),
    inputSchema: { type: "object" }
  }))
