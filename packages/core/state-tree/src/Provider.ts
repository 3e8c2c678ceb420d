/**
 * The SLOP provider: holds the state tree, serves subscriptions, queries and invokes over transport-agnostic
 * connections, and broadcasts coalesced, per-subscription patches.
 *
 * @since 0.1.0
 */
import type * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { handlerKey } from "./internal/invoke.ts"
import type { Conn } from "./internal/outbox.ts"
import { offer } from "./internal/outbox.ts"
import * as State from "./internal/providerState.ts"
import { receive } from "./internal/requests.ts"
import type * as Message from "./Message.ts"
import { slopVersion } from "./Message.ts"
import type { Node } from "./Node.ts"

/**
 * Provider options (in-process, so camelCase; requests on the wire keep SLOP's snake_case names):
 *
 * - `id`, `name`: announced in `hello` (default `"heed"`);
 * - `maxNodes`, `maxDepth`: ceilings applied to every request;
 * - `coalesceMs`: how long changes are gathered before a broadcast (default `50`; `0` broadcasts at once);
 * - `outboxLimit`: pending messages per connection before a subscription's queued patches are replaced by one
 *   fresh snapshot (default `256`);
 * - `countTokens`: the counter for `max_tokens` (o200k by default).
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly id?: string | undefined
  readonly name?: string | undefined
  readonly maxNodes?: number | undefined
  readonly maxDepth?: number | undefined
  readonly coalesceMs?: number | undefined
  /**
   * The old name of `coalesceMs`, still accepted (`coalesceMs` wins when both are set).
   *
   * @deprecated Use `coalesceMs`.
   */
  readonly coalesce_ms?: number | undefined
  readonly outboxLimit?: number | undefined
  readonly countTokens?: ((text: string) => number) | undefined
}

/**
 * What a handler learns about the invocation.
 *
 * @category models
 * @since 0.1.0
 */
export interface InvokeContext {
  /** The node's path, without a provider-id prefix. */
  readonly path: string
  readonly action: string
  readonly node: Node
}

/**
 * An action handler. It may fail with an {@link ActionError} (or any error carrying `code` and `message`), or throw
 * or die with an error carrying a string `code`, to choose the result's error code; other failures and defects
 * become `internal`. Returning `{ __async: true, taskId }` (see {@link Provider.startTask}) answers `accepted`.
 *
 * @category models
 * @since 0.1.0
 */
export type Handler = (
  params: Readonly<Record<string, unknown>>,
  context: InvokeContext
) => Effect.Effect<unknown, unknown>

/**
 * A failure a handler reports with a SLOP error code (`invalid_params`, `conflict`, `unauthorized`, …).
 *
 * @category errors
 * @since 0.1.0
 */
export class ActionError extends Schema.TaggedError<ActionError>()("ActionError", {
  code: Schema.String,
  message: Schema.String
}) {}

/**
 * One consumer's connection: inbound messages are `unknown` (decoded and validated by the provider); outbound
 * messages are a Stream that starts with `hello`. Bind it to any transport.
 *
 * @category models
 * @since 0.1.0
 */
export interface Connection {
  /** Handles one inbound message; bad input is answered with an `error` or `result`, never a failure. */
  readonly send: (message: unknown) => Effect.Effect<void>
  /**
   * Outbound messages, in order; ends when the connection or the provider closes. Messages are taken from the
   * connection's queue one at a time, so it can be read a little at a time (`Stream.take(messages, 1)`, then again):
   * a reader that stops early loses nothing. Use one reader at a time: concurrent readers share the messages.
   */
  readonly messages: Stream.Stream<Message.Outbound>
  /** Drops the connection's subscriptions and ends `messages`. */
  readonly close: Effect.Effect<void>
}

/**
 * Options of {@link Provider.connect}.
 *
 * @category models
 * @since 0.1.0
 */
export interface ConnectOptions {
  readonly maxSubscriptions?: number | undefined
}

/**
 * Progress reporting for a task started with {@link Provider.startTask}.
 *
 * @category models
 * @since 0.1.0
 */
export interface TaskControl {
  readonly taskId: string
  readonly progress: (progress: number, message?: string) => Effect.Effect<void>
}

/**
 * A provider.
 *
 * @category models
 * @since 0.1.0
 */
export interface Provider {
  /** Registers or replaces the state tree; subscribers get patches after the coalescing delay. */
  readonly setTree: (tree: Node) => Effect.Effect<void>
  /** Replaces the state tree with a function of the current one. */
  readonly update: (f: (tree: Node | undefined) => Node) => Effect.Effect<void>
  /**
   * Registers the handler of `action` on the node at `path`. It stays registered (replaced by a later `handle` of the
   * same path and action) whether or not the node still exists: for nodes that come and go, use `handleAction`.
   */
  readonly handle: (path: string, action: string, handler: Handler) => Effect.Effect<void>
  /**
   * Registers (or replaces) the handler of `action` on every node whose affordances offer it and that has no handler
   * of its own from `handle`. The handler learns its target from the context (`path`, `node`), so one handler serves
   * every node, and nothing is kept per node: a tree whose nodes come and go (alerts, messages, jobs) holds a bounded
   * set of handlers however long it runs. A node that does not list the action in its affordances answers `not_found`.
   *
   * @since 0.1.0
   */
  readonly handleAction: (action: string, handler: Handler) => Effect.Effect<void>
  /**
   * How many handlers are registered: per node (`handle`), per action (`handleAction`) and the `cancel` handlers of
   * running tasks. A gauge for a long-running provider's memory.
   *
   * @since 0.1.0
   */
  readonly handlerCount: Effect.Effect<number>
  /**
   * Opens a connection; it lives until `close` or until the provider's scope closes. `maxSubscriptions` caps the
   * subscriptions it may hold at once (unlimited by default): a `subscribe` beyond it is answered with an `error`
   * of code `limit_exceeded`.
   */
  readonly connect: (options?: ConnectOptions) => Effect.Effect<Connection>
  /** Sends an `event` to every connection. */
  readonly emitEvent: (name: string, data?: unknown) => Effect.Effect<void>
  /** Rebuilds and broadcasts pending changes now. */
  readonly flush: Effect.Effect<void>
  /** The tree as last rebuilt (pending changes not included), with `changed` stamps and task nodes. */
  readonly tree: Effect.Effect<Node | undefined>
  /** The provider-wide version: the number of rebuilds that changed something. */
  readonly version: Effect.Effect<number>
  /**
   * Starts an async action: a task node appears at `/tasks/{taskId}` (type `status`, props `progress`, `message`,
   * `status`, `action`, `result`, and a dangerous `cancel` affordance). Done tasks disappear after 30 s, cancelled
   * ones after 10 s; failed ones stay with `urgency: "high"`.
   */
  readonly startTask: (
    action: string,
    run: (task: TaskControl) => Effect.Effect<unknown, unknown>
  ) => Effect.Effect<string>
}

/**
 * What a handler returns to answer `accepted` for a task.
 *
 * @category constructors
 * @since 0.1.0
 */
export const accepted = (taskId: string): { readonly __async: true; readonly taskId: string } => ({
  __async: true,
  taskId
})

/**
 * The capabilities heed advertises in `hello`.
 *
 * @category constants
 * @since 0.1.0
 */
export const capabilities: ReadonlyArray<string> = [
  "state",
  "patches",
  "affordances",
  "attention",
  "windowing",
  "async",
  "content_refs"
]

const settingsOf = (options: Options): State.Settings => {
  const providerId = options.id ?? "heed"
  return {
    providerId,
    coalesceMs: options.coalesceMs ?? options.coalesce_ms ?? 50,
    outboxLimit: Math.max(1, options.outboxLimit ?? 256),
    ceilings: { maxNodes: options.maxNodes, maxDepth: options.maxDepth, countTokens: options.countTokens },
    hello: {
      type: "hello",
      provider: { id: providerId, name: options.name ?? providerId, slop_version: slopVersion, capabilities }
    }
  }
}

/**
 * Builds a provider in the current scope. Closing the scope ends every connection and stops background work.
 *
 * **Example** (Serving a tree)
 *
 * ```ts
 * import { Provider } from "@heed/state-tree"
 * import { Effect, Stream } from "effect"
 *
 * const program = Effect.gen(function*() {
 *   const provider = yield* Provider.make({ coalesceMs: 50 })
 *   yield* provider.setTree({ id: "root", type: "root", children: [] })
 *   const connection = yield* provider.connect()
 *   yield* connection.send({ type: "subscribe", id: "sub-1", path: "/", depth: 2 })
 *   const [_hello, snapshot] = yield* Stream.runCollect(Stream.take(connection.messages, 2))
 * }).pipe(Effect.scoped)
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (options: Options = {}): Effect.Effect<Provider, never, Scope.Scope> =>
  Effect.gen(function* () {
    const state = State.make(settingsOf(options), yield* Effect.scope)
    yield* Effect.addFinalizer(() => Effect.forEach([...state.conns], (conn) => close(state, conn), { discard: true }))
    const setApp = (app: Node) => {
      state.app = app
      return State.markDirty(state)
    }
    const provider: Provider = {
      setTree: (tree) => Effect.suspend(() => setApp(tree)),
      update: (f) => Effect.suspend(() => setApp(f(state.app))),
      handle: (path, action, handler) => Effect.sync(() => void state.handlers.set(handlerKey(path, action), handler)),
      handleAction: (action, handler) => Effect.sync(() => void state.actionHandlers.set(action, handler)),
      handlerCount: Effect.sync(() => state.handlers.size + state.actionHandlers.size),
      connect: (connectOptions = {}) => connect(state, connectOptions),
      emitEvent: (name, data) =>
        Effect.sync(() => {
          for (const conn of state.conns)
            offer(conn, data === undefined ? { type: "event", name } : { type: "event", name, data })
        }),
      flush: Effect.sync(() => State.flush(state)),
      tree: Effect.sync(() => state.current),
      version: Effect.sync(() => state.version),
      startTask: state.tasks.start
    }
    return provider
  })

const connect = (state: State.State, options: ConnectOptions): Effect.Effect<Connection> =>
  Effect.map(Queue.unbounded<Message.Outbound, Cause.Done>(), (queue) => {
    const conn: Conn = { queue, subs: new Map(), maxSubscriptions: options.maxSubscriptions ?? Infinity, open: true }
    state.conns.add(conn)
    offer(conn, state.settings.hello)
    return {
      send: (message) => receive(state, conn, message),
      // One message per pull, so a reader that stops early (`Stream.take`) leaves the rest queued for the next.
      messages: Stream.fromEffectRepeat(Queue.take(queue)),
      close: close(state, conn)
    }
  })

const close = (state: State.State, conn: Conn): Effect.Effect<void> =>
  Effect.sync(() => {
    if (!conn.open) return
    conn.open = false
    conn.subs.clear()
    state.conns.delete(conn)
    Queue.endUnsafe(conn.queue)
  })

/**
 * The provider as a service, for applications that build it once in a layer.
 *
 * @category services
 * @since 0.1.0
 */
export class Service extends Context.Service<Service, Provider>()("@heed/state-tree/Provider") {}

/**
 * A layer building the {@link Service} with {@link make}.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options: Options = {}): Layer.Layer<Service> => Layer.effect(Service, make(options))
