/**
 * The live SLOP tree of each owner's awareness store: one `@heed/state-tree` `Provider` per owner (made on its first
 * SLOP connection), rebuilt from the store whenever it changes (a write in this process through MCP, REST or an
 * affordance; another replica's write through the database change feed; and, every `watchIntervalMs`, time-driven
 * changes such as intentions falling due), so every subscriber gets the change as a patch within its budget. While
 * nobody is connected to an owner's tree, changes only mark it stale; the next consumer to connect rebuilds it first.
 * Affordances invoke the tools: `acknowledge` (acted_on), `suppress` (suppress_alert), `clear` (clear_suppression),
 * `fire` and `cancel` (update_intention).
 *
 * @since 0.1.0
 */
import type { ToolFailure } from "@heed/http/RestApi"
import type { Node } from "@heed/state-tree"
import { Provider } from "@heed/state-tree"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
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
    /** The provider of one owner's tree (made, filled and kept up to date from the first call on). */
    readonly providerFor: (owner: string) => Effect.Effect<Provider.Provider>
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
      suppressions: Effect.map(callToolAs(owner, "get_suppressions", {}), entriesOf)
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

/** Registers the handler of every affordance in the tree (handlers are keyed by path; re-registering is cheap). */
const registerHandlers = (provider: Provider.Provider, tree: Node.Node, handler: Provider.Handler) => {
  const work: Array<Effect.Effect<void>> = []
  const walk = (node: Node.Node, path: string) => {
    for (const affordance of node.affordances ?? []) work.push(provider.handle(path, affordance.action, handler))
    for (const child of node.children ?? []) walk(child, `${path}/${child.id}`)
  }
  for (const child of tree.children ?? []) walk(child, `/${child.id}`)
  return Effect.all(work, { discard: true })
}

// -----------------------------------------------------------------------------------------------------------------
// Providers

interface Entry {
  readonly provider: Provider.Provider
  readonly wake: Queue.Queue<void>
}

/**
 * The provider as SlopServer sees it: its connections are counted, so that an owner nobody watches is not rebuilt on
 * every change (the tree is marked stale instead and rebuilt when the next consumer connects).
 */
const watched = (
  provider: Provider.Provider,
  rebuild: Effect.Effect<void>,
  state: { connections: number; stale: boolean }
): Provider.Provider => ({
  ...provider,
  connect: (options) =>
    Effect.gen(function* () {
      state.connections++
      if (state.stale) {
        state.stale = false
        yield* rebuild
      }
      const connection = yield* provider.connect(options)
      let open = true
      const release = Effect.sync(() => {
        if (open) state.connections--
        open = false
      })
      return { ...connection, close: Effect.ensuring(connection.close, release) }
    })
})

const makeEntry = (owner: string, options: Options, scope: Scope.Scope) =>
  Effect.gen(function* () {
    const context = yield* Effect.context<Backend>()
    const provider = yield* Provider.make({
      id: "heed-awareness",
      name: "heed awareness",
      coalesceMs: options.coalesceMs ?? 0
    }).pipe(Scope.provide(scope))
    const handler = handlerFor(owner, context)
    // one rebuild at a time, so a slower one never sets an older tree after a newer one
    const lock = yield* Semaphore.make(1)
    const rebuild = Effect.gen(function* () {
      const snapshot = yield* snapshotOf(owner)
      const tree = toTree(snapshot, yield* Clock.currentTimeMillis)
      yield* registerHandlers(provider, tree, handler)
      yield* provider.setTree(tree)
    }).pipe(
      Effect.catchCause((cause) => Effect.logWarning(`heed: the live tree of '${owner}' was not rebuilt`, cause)),
      lock.withPermits(1),
      Effect.provideContext(context)
    )
    yield* rebuild
    const state = { connections: 0, stale: false }
    // a burst of changes is one rebuild: the queue holds at most one pending wake-up
    const wake = yield* Queue.sliding<void>(1)
    const onWake = Effect.suspend(() => {
      if (state.connections > 0) return rebuild
      state.stale = true
      return Effect.void
    })
    yield* Queue.take(wake).pipe(Effect.andThen(onWake), Effect.forever, Effect.forkIn(scope))
    return { provider: watched(provider, rebuild, state), wake } satisfies Entry
  })

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
      // the owners' trees as they are at each wake-up (a tree made later is woken by later changes)
      const wakeAll = Effect.suspend(() =>
        Effect.forEach([...entries.values()], (entry) => Queue.offer(entry.wake, undefined), { discard: true })
      )
      yield* changes.local.pipe(
        Stream.runForEach((owner) => {
          const entry = entries.get(owner)
          return entry === undefined ? Effect.void : Queue.offer(entry.wake, undefined)
        }),
        Effect.forkIn(scope)
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
      const providerFor = (owner: string): Effect.Effect<Provider.Provider> =>
        Effect.suspend(() => {
          const hit = entries.get(owner)
          if (hit !== undefined) return Effect.succeed(hit.provider)
          return lock.withPermits(1)(
            Effect.suspend(() => {
              const again = entries.get(owner)
              if (again !== undefined) return Effect.succeed(again.provider)
              return makeEntry(owner, options, scope).pipe(
                Effect.tap((entry) => Effect.sync(() => entries.set(owner, entry))),
                Effect.map((entry) => entry.provider),
                Effect.provideContext(context)
              )
            })
          )
        })
      return LiveTree.of({ providerFor })
    })
  )
