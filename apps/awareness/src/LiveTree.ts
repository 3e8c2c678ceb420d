/**
 * The live SLOP tree of each owner's awareness store: one `@heed/state-tree` `Provider` per owner while consumers are
 * connected to it (made and filled from the store by the first connection, dropped when the last one closes),
 * rebuilt from the store whenever it changes (a write in this process through MCP, REST or an affordance; another
 * replica's write through the database change feed; and, every `watchIntervalMs`, time-driven changes such as
 * intentions falling due), so every subscriber gets the change as a patch within its budget. Affordances invoke the
 * tools through one provider-wide handler per affordance kind, which reads its target node (so no handler outlives
 * its node): `acknowledge` (acted_on), `suppress` (suppress_alert), `clear` (clear_suppression), `fire` and `cancel`
 * (update_intention).
 *
 * @since 0.1.0
 */
import type { ToolFailure } from "@heed/http/RestApi"
import type { Node } from "@heed/state-tree"
import { Provider } from "@heed/state-tree"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Predicate from "effect/Predicate"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import * as Stream from "effect/Stream"
import { type Snapshot, toTree } from "./AwarenessTree.ts"
import { Backend } from "./Backend.ts"
import { Changes } from "./Changes.ts"
import { callToolAs, peekBriefingAs } from "./ToolCall.ts"

/**
 * The live trees.
 *
 * @category services
 * @since 0.1.0
 */
export class LiveTree extends Context.Service<
  LiveTree,
  {
    /**
     * The provider of one owner's tree. Its first connection makes the owner's provider and fills it from the store;
     * it is kept up to date while connections are open, and dropped (handlers, rebuilds and all) when the last one
     * closes. Other operations act on the provider held now, and see no tree while none is.
     */
    readonly providerFor: (owner: string) => Effect.Effect<Provider.Provider>
    /** The owners whose provider is held now (those with a connection open). */
    readonly owners: Effect.Effect<ReadonlyArray<string>>
    /**
     * An owner's tree as consumers see it now: the held provider's, else one built from the store (the dashboard's
     * budgeted views read it).
     */
    readonly currentTree: (owner: string) => Effect.Effect<Node.Node, ToolFailure>
  }
>()("@heed/awareness/LiveTree") {}

/**
 * Options: `watchIntervalMs` (time-driven rebuilds; 0 turns them off) and `coalesceMs` (the providers' patch
 * coalescing window, default 0: rebuilds already coalesce, as changes arriving during a rebuild make one more).
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly watchIntervalMs?: number | undefined
  readonly coalesceMs?: number | undefined
}

const entriesOf = (page: unknown): ReadonlyArray<unknown> => {
  if (Array.isArray(page)) return page
  const entries = Predicate.isObject(page) ? (page as { entries?: unknown }).entries : undefined
  return Array.isArray(entries) ? entries : []
}

/** Reads the store through the tools, as any client would. */
const snapshotOf = (owner: string): Effect.Effect<Snapshot, ToolFailure, Backend> =>
  Effect.all(
    {
      // A background reader: it peeks, so a due reminder stays for a client's read to deliver (marked new there).
      briefing: peekBriefingAs(owner),
      statuses: Effect.map(callToolAs(owner, "get_knowledge", { entry_type: "status", limit: 1000 }), entriesOf),
      alerts: Effect.map(callToolAs(owner, "get_alerts", { limit: 1000 }), entriesOf),
      intentions: Effect.map(callToolAs(owner, "get_intentions", { limit: 1000 }), entriesOf),
      suppressions: Effect.map(callToolAs(owner, "get_suppressions", {}), entriesOf),
      patterns: Effect.map(callToolAs(owner, "get_knowledge", { entry_type: "pattern", limit: 1000 }), entriesOf)
    },
    { concurrency: 1 }
  )

// -----------------------------------------------------------------------------------------------------------------
// Affordances

const prop = (node: Node.Node, name: string): unknown => node.properties?.[name]

const definedOnly = (record: Readonly<Record<string, unknown>>): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(record)) if (value !== undefined && value !== null) out[key] = value
  return out
}

/** The tool call each affordance stands for, from the node it is on and the consumer's params. */
const toolCallOf = (
  action: string,
  node: Node.Node,
  params: Readonly<Record<string, unknown>>
): { readonly tool: string; readonly params: Record<string, unknown> } | undefined => {
  switch (action) {
    case "acknowledge":
      return { tool: "acted_on", params: { action: "acknowledged", ...params, entry_id: prop(node, "entry_id") } }
    case "suppress":
      return node.type === "alert"
        ? {
            tool: "suppress_alert",
            params: definedOnly({
              ...params,
              source: prop(node, "source"),
              metric: prop(node, "metric"),
              level: prop(node, "level")
            })
          }
        : { tool: "suppress_alert", params: definedOnly({ ...params, source: prop(node, "name") }) }
    case "clear":
      return { tool: "clear_suppression", params: { entry_id: prop(node, "entry_id") } }
    case "fire":
      return { tool: "update_intention", params: { entry_id: prop(node, "entry_id"), state: "fired" } }
    case "done":
      return { tool: "acted_on", params: { action: "done", ...params, entry_id: prop(node, "entry_id") } }
    case "cancel":
      return { tool: "update_intention", params: { ...params, entry_id: prop(node, "entry_id"), state: "cancelled" } }
    default:
      return undefined
  }
}

const handlerFor =
  (owner: string, context: Context.Context<Backend>): Provider.Handler =>
  (params, { action, node }) => {
    const call = toolCallOf(action, node, params)
    if (call === undefined) return Effect.fail(new Provider.ActionError({ code: "not_found", message: action }))
    return callToolAs(owner, call.tool, call.params).pipe(
      Effect.mapError((failure) => new Provider.ActionError({ code: failure.code, message: failure.message })),
      Effect.provideContext(context)
    )
  }

/** The affordances of the awareness tree: each is one provider-wide handler that reads its target node. */
const actions: ReadonlyArray<string> = ["acknowledge", "suppress", "clear", "fire", "done", "cancel"]

// -----------------------------------------------------------------------------------------------------------------
// Providers

/** An owner's provider while consumers are connected to it: closing `scope` ends the provider and its rebuilds. */
interface Entry {
  readonly provider: Provider.Provider
  readonly scope: Scope.Closeable
  readonly wake: Queue.Queue<void>
  connections: number
}

const makeEntry = (owner: string, options: Options, parent: Scope.Scope) =>
  Effect.gen(function* () {
    const scope = yield* Scope.fork(parent)
    const context = yield* Effect.context<Backend>()
    const provider = yield* Provider.make({
      id: "heed-awareness",
      name: "heed awareness",
      coalesceMs: options.coalesceMs ?? 0
    }).pipe(Scope.provide(scope))
    const handler = handlerFor(owner, context)
    yield* Effect.forEach(actions, (action) => provider.handleAction(action, handler), { discard: true })
    // one rebuild at a time, so a slower one never sets an older tree after a newer one
    const lock = yield* Semaphore.make(1)
    const rebuild = Effect.gen(function* () {
      const snapshot = yield* snapshotOf(owner)
      // built on the tree it replaces, so children keep their order and a change is a small patch
      yield* provider.setTree(toTree(snapshot, yield* Clock.currentTimeMillis, yield* provider.tree))
    }).pipe(
      Effect.catchCause((cause) => Effect.logWarning(`heed: the live tree of '${owner}' was not rebuilt`, cause)),
      lock.withPermits(1),
      Effect.provideContext(context)
    )
    yield* rebuild
    // a burst of changes is one rebuild: the queue holds at most one pending wake-up
    const wake = yield* Queue.sliding<void>(1)
    yield* Queue.take(wake).pipe(Effect.andThen(rebuild), Effect.forever, Effect.forkIn(scope))
    return { provider, scope, wake, connections: 0 } satisfies Entry
  })

/** What an owner's providers share: the entries held now, and the lock that makes, holds and drops them. */
interface Registry {
  readonly entries: Map<string, Entry>
  readonly lock: Semaphore.Semaphore
  readonly acquire: (owner: string) => Effect.Effect<Entry>
}

/**
 * A connection to the owner's current provider: the provider is made (and filled from the store) by the first
 * connection, and dropped with its rebuilds when its last connection closes.
 */
const connectTo = (registry: Registry, owner: string, options: Provider.ConnectOptions | undefined) =>
  Effect.gen(function* () {
    const entry = yield* registry.acquire(owner)
    const connection = yield* entry.provider.connect(options)
    let open = true
    const release = registry.lock.withPermits(1)(
      Effect.suspend(() => {
        if (!open) return Effect.void
        open = false
        entry.connections--
        if (entry.connections > 0 || registry.entries.get(owner) !== entry) return Effect.void
        registry.entries.delete(owner)
        return Scope.close(entry.scope, Exit.void)
      })
    )
    return { ...connection, close: Effect.ensuring(connection.close, release) } satisfies Provider.Connection
  })

/**
 * The provider SlopServer serves for an owner. Its connections go to the owner's current provider (see
 * {@link connectTo}); its other operations act on that provider while one is held, and otherwise see no tree.
 */
const providerOf = (registry: Registry, owner: string): Provider.Provider => {
  const held = <A>(f: (provider: Provider.Provider) => Effect.Effect<A>, otherwise: A) =>
    Effect.suspend(() => {
      const entry = registry.entries.get(owner)
      return entry === undefined ? Effect.succeed(otherwise) : f(entry.provider)
    })
  return {
    connect: (options) => connectTo(registry, owner, options),
    setTree: (tree) => held((provider) => provider.setTree(tree), undefined),
    update: (f) => held((provider) => provider.update(f), undefined),
    handle: (path, action, handler) => held((provider) => provider.handle(path, action, handler), undefined),
    handleAction: (action, handler) => held((provider) => provider.handleAction(action, handler), undefined),
    emitEvent: (name, data) => held((provider) => provider.emitEvent(name, data), undefined),
    flush: held((provider) => provider.flush, undefined),
    tree: held((provider) => provider.tree, undefined),
    version: held((provider) => provider.version, 0),
    handlerCount: held((provider) => provider.handlerCount, 0),
    startTask: (action, run) => held((provider) => provider.startTask(action, run), "")
  }
}

/**
 * The live trees over the `Backend`, rebuilt on {@link Changes}, on the backend's change feed and on a timer.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options: Options = {}): Layer.Layer<LiveTree, never, Backend | Changes> =>
  Layer.effect(
    LiveTree,
    Effect.gen(function* () {
      const scope = yield* Effect.scope
      const backend = yield* Backend
      const changes = yield* Changes
      const entries = new Map<string, Entry>()
      const lock = yield* Semaphore.make(1)
      // the owners' trees as they are at each wake-up (a tree made later is filled when it is made)
      const wakeAll = Effect.suspend(() =>
        Effect.forEach([...entries.values()], (entry) => Queue.offer(entry.wake, undefined), { discard: true })
      )
      // subscribed before the layer is built, so no write made right after is missed
      yield* changes.local.pipe(
        Stream.runForEach((owner) => {
          const entry = entries.get(owner)
          return entry === undefined ? Effect.void : Queue.offer(entry.wake, undefined)
        }),
        Effect.forkIn(scope, { startImmediately: true })
      )
      if (backend.changes !== undefined) {
        yield* backend.changes.pipe(
          Stream.runForEach(() => wakeAll),
          Effect.forkIn(scope)
        )
      }
      if ((options.watchIntervalMs ?? 0) > 0) {
        yield* wakeAll.pipe(Effect.repeat(Schedule.spaced(options.watchIntervalMs!)), Effect.forkIn(scope))
      }
      const context = yield* Effect.context<Backend>()
      // counted under the lock, so a closing connection never drops an entry another connection just took
      const acquire = (owner: string): Effect.Effect<Entry> =>
        lock.withPermits(1)(
          Effect.gen(function* () {
            let entry = entries.get(owner)
            if (entry === undefined) {
              entry = yield* makeEntry(owner, options, scope).pipe(Effect.provideContext(context))
              entries.set(owner, entry)
            }
            entry.connections++
            return entry
          })
        )
      const registry: Registry = { entries, lock, acquire }
      const currentTree = (owner: string): Effect.Effect<Node.Node, ToolFailure> =>
        Effect.gen(function* () {
          const held = entries.get(owner)
          const tree = held === undefined ? undefined : yield* held.provider.tree
          if (tree !== undefined) return tree
          const snapshot = yield* snapshotOf(owner)
          return toTree(snapshot, yield* Clock.currentTimeMillis)
        }).pipe(Effect.provideContext(context))
      return LiveTree.of({
        providerFor: (owner) => Effect.succeed(providerOf(registry, owner)),
        owners: Effect.sync(() => [...entries.keys()]),
        currentTree
      })
    })
  )
