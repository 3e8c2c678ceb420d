import { assert, describe, it } from "@effect/vitest"
import type { Node, Provider } from "@heed/state-tree"
import { Pipeline } from "@heed/state-tree"
import { Deferred, Effect } from "effect"
import { randomTrees, serveProvider, startTree, syncedProvider } from "./support.ts"

// A consumer that applies patches the way SLOP's own consumer SDK does, written from its described behaviour:
// it knows only add, remove and replace; it reads every path segment as a node id, except the four field names,
// and never unescapes `~1`/`~0`; a child add is appended at the end (no `index`, no `move`); and it takes a
// whole-field add or remove of a field of a node below the root (`/x/meta`) for a child op, as it only treats the
// last segment as a field when it is the only one or a field precedes it.
const fields = new Set(["properties", "meta", "affordances", "content_ref"])

type Json = Record<string, unknown>

class SlopLikeMirror {
  tree: Json
  constructor(tree: unknown) {
    this.tree = structuredClone(tree) as Json
  }

  apply(op: { readonly op: string; readonly path: string; readonly value?: unknown }): void {
    const segments = op.path.split("/").filter((segment) => segment !== "")
    if (segments.length === 0) return
    const last = segments[segments.length - 1]!
    const fieldOp = segments.length === 1 ? fields.has(last) : segments.slice(0, -1).some((s) => fields.has(s))
    if (op.op === "add" || op.op === "remove") {
      if (!fieldOp) {
        const parent = this.node(segments.slice(0, -1))
        if (parent === undefined) return
        const list = (parent.children as Array<Json> | undefined) ?? []
        parent.children =
          op.op === "add" ? [...list, structuredClone(op.value) as Json] : list.filter((child) => child.id !== last)
        return
      }
      const target = this.parent(segments)
      if (target === undefined) return
      if (op.op === "add") target[last] = structuredClone(op.value)
      else delete target[last]
    } else if (op.op === "replace") {
      const target = this.parent(segments)
      if (target !== undefined) target[last] = structuredClone(op.value)
    }
  }

  // the node at a path of ids (field names skipped)
  private node(segments: ReadonlyArray<string>): Json | undefined {
    let current: Json | undefined = this.tree
    for (const segment of segments) {
      if (fields.has(segment)) continue
      current = (current?.children as Array<Json> | undefined)?.find((child) => child.id === segment)
      if (current === undefined) return undefined
    }
    return current
  }

  // the object holding the last segment: ids walk children, field names step into the field
  private parent(segments: ReadonlyArray<string>): Json | undefined {
    let current: Json | undefined = this.tree
    for (const segment of segments.slice(0, -1)) {
      current = fields.has(segment)
        ? (current?.[segment] as Json | undefined)
        : (current?.children as Array<Json> | undefined)?.find((child) => child.id === segment)
      if (current === undefined) return undefined
    }
    return current
  }
}

/** A bare WebSocket consumer with the SLOP-like mirror for subscription "s". */
const slopLikeConsumer = (url: string, subscribe: Record<string, unknown>) =>
  Effect.gen(function* () {
    const socket = yield* Effect.acquireRelease(
      Effect.callback<WebSocket>((resume) => {
        const ws = new WebSocket(url)
        ws.onopen = () => resume(Effect.succeed(ws))
        ws.onerror = () => resume(Effect.die(new Error(`cannot connect to ${url}`)))
      }),
      (ws) => Effect.sync(() => ws.close())
    )
    let mirror: SlopLikeMirror | undefined
    const waiting = new Map<string, Deferred.Deferred<void>>()
    socket.onmessage = (event) => {
      const message = JSON.parse(String(event.data))
      if (message.type === "snapshot" && message.id === "s") mirror = new SlopLikeMirror(message.tree)
      else if (message.type === "patch" && message.subscription === "s") for (const op of message.ops) mirror!.apply(op)
      else if (message.type === "result") Deferred.doneUnsafe(waiting.get(message.id)!, Effect.void)
    }
    let counter = 0
    // every message before the result of a no-op invoke has been applied when the result arrives
    const sync = Effect.gen(function* () {
      const id = `sync-${++counter}`
      const done = yield* Deferred.make<void>()
      waiting.set(id, done)
      socket.send(JSON.stringify({ type: "invoke", id, path: "/", action: "sync" }))
      yield* Deferred.await(done)
    })
    socket.send(JSON.stringify({ type: "subscribe", id: "s", ...subscribe }))
    yield* sync
    return { tree: () => mirror?.tree, sync }
  })

const viewOf = (provider: Provider.Provider) => Effect.map(provider.tree, (tree) => Pipeline.optimize(tree!, {}))

describe("a consumer that applies patches the way SLOP's own SDK does", () => {
  it.live("mirrors exactly after 200 random changes: inserts, reorders, meta changes, ids holding / and ~", () =>
    Effect.gen(function* () {
      const provider = yield* syncedProvider()
      yield* provider.setTree(startTree)
      const url = yield* serveProvider(provider)
      const slop = yield* slopLikeConsumer(url, { path: "/", depth: -1 })
      const trees = randomTrees(2026, 200, startTree)
      let oddIds = 0
      for (const tree of trees) {
        yield* provider.setTree(tree)
        yield* slop.sync
        assert.deepStrictEqual(slop.tree(), (yield* viewOf(provider)) as unknown)
        oddIds += Number(/"id":"[^"]*[~/]/.test(JSON.stringify(tree)))
      }
      // the scenario did hold ids SLOP forbids
      assert.isAbove(oddIds, 100)
    })
  )

  it.live("misapplies heed's compact patches (which is why they are opt-in): order, and a bogus meta child", () =>
    Effect.gen(function* () {
      const provider = yield* syncedProvider()
      const tree = (ids: ReadonlyArray<string>): Node.Node => ({
        id: "root",
        type: "root",
        children: [{ id: "list", type: "collection", children: ids.map((id) => ({ id, type: "item" })) }]
      })
      yield* provider.setTree(tree(["a", "c"]))
      const url = yield* serveProvider(provider)
      const compact = yield* slopLikeConsumer(url, { patch_format: "compact" })
      const plain = yield* slopLikeConsumer(url, {})
      yield* provider.setTree(tree(["a", "b", "c"]))
      yield* compact.sync
      yield* plain.sync
      const list = (mirror: unknown) => (mirror as Node.Node).children![0]!.children ?? []
      const order = (mirror: unknown) => list(mirror).map((child) => child.id)
      // an insert in the middle lands at the end; the `changed` stamp on /list (a whole-field add of its meta,
      // below the root) becomes a child
      assert.deepStrictEqual(order(compact.tree()), ["a", "c", undefined, "b"])
      assert.deepStrictEqual(list(compact.tree())[2], { changed: true } as unknown)
      assert.deepStrictEqual(order(plain.tree()), ["a", "b", "c"])
      assert.deepStrictEqual(plain.tree(), (yield* viewOf(provider)) as unknown)
    })
  )
})
