/**
 * The SLOP provider: holds the state tree, serves subscriptions, queries and invokes over transport-agnostic
 * connections, and broadcasts coalesced, per-subscription patches.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Digest from "./Digest.ts"
import { stamp } from "./internal/stamp.ts"
import { validate } from "./internal/validate.ts"
import type * as Message from "./Message.ts"
import { decodeInbound, slopVersion } from "./Message.ts"
import type { Node } from "./Node.ts"
import { find, parsePath, pathOf } from "./Node.ts"
import * as Patch from "./Patch.ts"
import * as Pipeline from "./Pipeline.ts"

/**
 * Provider options:
 *
 * - `id`, `name`: announced in `hello` (default `"heed"`);
 * - `maxNodes`, `maxDepth`: ceilings applied to every request;
 * - `coalesce_ms`: how long changes are gathered before a broadcast (default `50`; `0` broadcasts at once);
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
  /** Registers the handler of `action` on the node at `path`. */
  readonly handle: (path: string, action: string, handler: Handler) => Effect.Effect<void>
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

interface Subscription {
  readonly id: string
  readonly request: Message.Subscribe
  last: Node
  version: number
}

interface Conn {
  readonly queue: Queue.Queue<Message.Outbound, Cause.Done>
  readonly subs: Map<string, Subscription>
  readonly maxSubscriptions: number
  open: boolean
}

interface Task {
  readonly id: string
  readonly action: string
  status: "running" | "done" | "failed" | "cancelled"
  progress: number
  message: string
  result?: unknown
  fiber?: Fiber.Fiber<unknown, unknown> | undefined
}

const handlerKey = (path: string, action: string) => `${pathOf(parsePath(path))}\u0000${action}`

const errorBody = (error: unknown): Message.ErrorBody => {
  if (typeof error === "object" && error !== null) {
    const { code, message } = error as { code?: unknown; message?: unknown }
    if (typeof code === "string" && typeof message === "string") return { code, message }
    if (typeof message === "string") return { code: "internal", message }
  }
  return { code: "internal", message: typeof error === "string" ? error : "the action failed" }
}

// A typed failure gives its code and message; a thrown error or defect gives its `code` when it has a string one
// (SLOP: "a thrown err.code passes through"); anything else is `internal`, without the defect's message.
const failureBody = (cause: Cause.Cause<unknown>, action: string): Message.ErrorBody => {
  const failure = cause.reasons.find(Cause.isFailReason)
  if (failure !== undefined) return errorBody(failure.error)
  const defect = cause.reasons.find(Cause.isDieReason)?.defect
  if (typeof defect === "object" && defect !== null) {
    const { code, message } = defect as { code?: unknown; message?: unknown }
    if (typeof code === "string" && code !== "") {
      return { code, message: typeof message === "string" ? message : `the action "${action}" failed (${code})` }
    }
  }
  return { code: "internal", message: `the action "${action}" failed unexpectedly` }
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
 *   const provider = yield* Provider.make({ coalesce_ms: 50 })
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
    const scope = yield* Effect.scope
    const providerId = options.id ?? "heed"
    const coalesce = options.coalesce_ms ?? 50
    const outboxLimit = Math.max(1, options.outboxLimit ?? 256)
    const ceilings: Pipeline.Options = {
      maxNodes: options.maxNodes,
      maxDepth: options.maxDepth,
      countTokens: options.countTokens
    }
    const hello: Message.Hello = {
      type: "hello",
      provider: { id: providerId, name: options.name ?? providerId, slop_version: slopVersion, capabilities }
    }

    let appTree: Node | undefined
    let composedPrev: Node | undefined
    let current: Node | undefined
    let version = 0
    let dirty = false
    let scheduled = false
    const stamped = new WeakSet<Node>()
    const handlers = new Map<string, Handler>()
    const conns = new Set<Conn>()
    const tasks = new Map<string, Task>()
    let taskCounter = 0
    let tasksNode: Node | undefined
    let tasksDirty = false

    // -- outbox -------------------------------------------------------------------------------------------------
    const offer = (conn: Conn, message: Message.Outbound) => {
      if (conn.open) Queue.offerUnsafe(conn.queue, message)
    }
    const offerPatch = (conn: Conn, sub: Subscription, ops: ReadonlyArray<Patch.Op>) => {
      if (!conn.open) return
      if (Queue.sizeUnsafe(conn.queue) < outboxLimit) {
        sub.version++
        offer(conn, { type: "patch", subscription: sub.id, version: sub.version, ops })
        return
      }
      // Slow consumer: replace this subscription's backlog with one fresh snapshot.
      const kept: Array<Message.Outbound> = []
      for (let exit = Queue.takeUnsafe(conn.queue); exit !== undefined; exit = Queue.takeUnsafe(conn.queue)) {
        if (!Exit.isSuccess(exit)) break
        const message = exit.value
        if (message.type === "patch" && message.subscription === sub.id) continue
        if (message.type === "snapshot" && message.id === sub.id) continue
        kept.push(message)
      }
      Queue.offerAllUnsafe(conn.queue, kept)
      sub.version++
      offer(conn, { type: "snapshot", id: sub.id, version: sub.version, tree: sub.last })
    }

    // -- tree building ------------------------------------------------------------------------------------------
    const taskNode = (task: Task): Node => ({
      id: task.id,
      type: "status",
      properties: {
        progress: task.progress,
        message: task.message,
        status: task.status,
        action: task.action,
        ...(task.result !== undefined ? { result: task.result } : {})
      },
      ...(task.status === "running" ? { affordances: [{ action: "cancel", label: "Cancel", dangerous: true }] } : {}),
      meta:
        task.status === "failed"
          ? { salience: 1, urgency: "high" }
          : { salience: task.status === "running" ? 0.8 : task.status === "done" ? 0.5 : 0.3 }
    })
    const compose = (): Node | undefined => {
      if (appTree === undefined) return undefined
      if (tasks.size === 0) return appTree
      if (tasksDirty || tasksNode === undefined) {
        tasksNode = {
          id: "tasks",
          type: "collection",
          properties: { label: "Tasks" },
          children: [...tasks.values()].map(taskNode)
        }
        tasksDirty = false
      }
      const children = (appTree.children ?? []).filter((child) => child.id !== "tasks")
      return { ...appTree, children: [...children, tasksNode] }
    }

    const output = (request: Message.Subscribe | Message.Query, tree: Node): Node | undefined => {
      const path = request.path ?? "/"
      const root = find(tree, path)
      if (root === undefined) return undefined
      if (request.digest === true) {
        return Digest.make(root, {
          min_salience: request.filter?.min_salience,
          max_nodes: Pipeline.nodeBudget(request, ceilings),
          max_tokens: request.max_tokens,
          countTokens: options.countTokens,
          path
        })
      }
      return Pipeline.optimize(tree, request, ceilings)
    }

    const requestKey = (r: Message.Subscribe) =>
      JSON.stringify([r.path, r.depth, r.max_nodes, r.max_tokens, r.filter, r.digest])

    // Subscriptions with the same request share one output per rebuild, and those that also share their last view
    // (every one of them after the first shared rebuild) and patch format share the ops.
    const broadcast = (tree: Node) => {
      const outputs = new Map<string, Node | undefined>()
      const patches = new Map<string, { readonly last: Node; readonly ops: ReadonlyArray<Patch.Op> }>()
      for (const conn of conns) {
        for (const sub of conn.subs.values()) {
          const key = requestKey(sub.request)
          let out = outputs.get(key)
          if (out === undefined && !outputs.has(key)) {
            out = output(sub.request, tree)
            outputs.set(key, out)
          }
          if (out === undefined) {
            conn.subs.delete(sub.id)
            offer(conn, {
              type: "error",
              id: sub.id,
              error: {
                code: "not_found",
                message: `path "${sub.request.path ?? "/"}" no longer exists; subscription ended`
              }
            })
            continue
          }
          const format = sub.request.patch_format ?? "slop"
          const patchKey = `${format}${key}`
          const shared = patches.get(patchKey)
          let ops: ReadonlyArray<Patch.Op>
          if (shared !== undefined && shared.last === sub.last) ops = shared.ops
          else {
            ops = Patch.diff(sub.last, out, format)
            patches.set(patchKey, { last: sub.last, ops })
          }
          if (ops.length === 0) continue
          sub.last = out
          if (ops[0]!.path === "") {
            sub.version++
            offer(conn, { type: "snapshot", id: sub.id, version: sub.version, tree: out })
          } else offerPatch(conn, sub, ops)
        }
      }
    }

    const flushSync = () => {
      if (!dirty) return
      dirty = false
      const composed = compose()
      if (composed === undefined) return
      if (composedPrev === undefined || current === undefined) {
        composedPrev = composed
        current = composed
        version++
        broadcast(current)
        return
      }
      const { changes, tree } = stamp(composedPrev, composed, current, stamped)
      composedPrev = composed
      if (changes === 0) return
      current = tree
      version++
      broadcast(current)
    }

    const markDirty = Effect.suspend(() => {
      dirty = true
      if (coalesce <= 0) return Effect.sync(flushSync)
      if (scheduled) return Effect.void
      scheduled = true
      return Effect.forkIn(
        Effect.sleep(coalesce).pipe(
          Effect.andThen(
            Effect.sync(() => {
              scheduled = false
              flushSync()
            })
          )
        ),
        scope
      ).pipe(Effect.asVoid)
    })

    // -- messages -----------------------------------------------------------------------------------------------
    // The view a subscribe or query asks for, or `undefined` after answering with a not_found error.
    const viewFor = (conn: Conn, message: Message.Subscribe | Message.Query) => {
      flushSync()
      const tree = current
      const out = tree === undefined ? undefined : output(message, tree)
      if (out === undefined) {
        offer(conn, {
          type: "error",
          id: message.id,
          error: {
            code: "not_found",
            message: tree === undefined ? "no state registered yet" : `no node at path "${message.path ?? "/"}"`
          }
        })
      }
      return out
    }

    const subscribe = (conn: Conn, message: Message.Subscribe) => {
      if (conn.subs.size >= conn.maxSubscriptions && !conn.subs.has(message.id)) {
        const error = {
          code: "limit_exceeded",
          message: `this connection holds ${conn.subs.size} subscriptions, the most it may; unsubscribe one first`
        }
        return offer(conn, { type: "error", id: message.id, error })
      }
      const out = viewFor(conn, message)
      if (out === undefined) return
      const sub: Subscription = { id: message.id, request: message, last: out, version: 1 }
      conn.subs.set(message.id, sub)
      offer(conn, { type: "snapshot", id: message.id, version: 1, tree: out })
    }

    const query = (conn: Conn, message: Message.Query) => {
      const out = viewFor(conn, message)
      if (out === undefined) return
      offer(conn, { type: "snapshot", id: message.id, version, tree: out })
    }

    const invoke = (conn: Conn, message: Message.Invoke): Effect.Effect<void> =>
      Effect.gen(function* () {
        flushSync()
        const reply = (result: Omit<Message.Result, "type" | "id">) => {
          flushSync()
          offer(conn, { type: "result", id: message.id, ...result })
        }
        const tree = current
        let segments = parsePath(message.path)
        if (tree !== undefined && segments[0] === providerId && find(tree, segments) === undefined) {
          segments = segments.slice(1)
        }
        const path = pathOf(segments)
        const node = tree === undefined ? undefined : find(tree, segments)
        if (node === undefined) {
          return reply({ status: "error", error: { code: "not_found", message: `no node at path "${message.path}"` } })
        }
        const handler = handlers.get(handlerKey(path, message.action))
        if (handler === undefined) {
          return reply({
            status: "error",
            error: { code: "not_found", message: `no action "${message.action}" on "${path}"` }
          })
        }
        const params = message.params ?? {}
        const affordance = node.affordances?.find((a) => a.action === message.action)
        const problem = validate(affordance?.params ?? { type: "object" }, params, "params")
        if (problem !== undefined) {
          return reply({ status: "error", error: { code: "invalid_params", message: problem } })
        }
        const exit = yield* Effect.exit(Effect.suspend(() => handler(params, { path, action: message.action, node })))
        if (Exit.isSuccess(exit)) {
          const value = exit.value
          if (typeof value === "object" && value !== null && (value as { __async?: unknown }).__async === true) {
            const { __async: _, ...data } = value as Record<string, unknown>
            return reply({ status: "accepted", data })
          }
          const hasData = typeof value === "object" && value !== null && Object.keys(value).length > 0
          return reply(hasData ? { status: "ok", data: value } : { status: "ok" })
        }
        return reply({ status: "error", error: failureBody(exit.cause, message.action) })
      })

    const send =
      (conn: Conn) =>
      (raw: unknown): Effect.Effect<void> =>
        Effect.suspend(() => {
          if (!conn.open) return Effect.void
          const decoded = decodeInbound(raw)
          if (Result.isFailure(decoded)) {
            const { id, message } = decoded.failure
            const error = { code: "bad_request", message }
            offer(conn, id === undefined ? { type: "error", error } : { type: "error", id, error })
            return Effect.void
          }
          const message = decoded.success
          switch (message.type) {
            case "subscribe":
              return Effect.sync(() => subscribe(conn, message))
            case "unsubscribe":
              return Effect.sync(() => void conn.subs.delete(message.id))
            case "query":
              return Effect.sync(() => query(conn, message))
            case "invoke":
              return invoke(conn, message)
          }
        })

    const closeConn = (conn: Conn) =>
      Effect.sync(() => {
        if (!conn.open) return
        conn.open = false
        conn.subs.clear()
        conns.delete(conn)
        Queue.endUnsafe(conn.queue)
      })

    yield* Effect.addFinalizer(() => Effect.forEach([...conns], closeConn, { discard: true }))

    // -- tasks --------------------------------------------------------------------------------------------------
    const taskChanged = Effect.suspend(() => {
      tasksDirty = true
      return markDirty
    })
    const removeLater = (task: Task, ms: number) =>
      Effect.forkIn(
        Effect.sleep(ms).pipe(
          Effect.andThen(
            Effect.suspend(() => {
              tasks.delete(task.id)
              return taskChanged
            })
          )
        ),
        scope
      )
    const startTask = (action: string, run: (task: TaskControl) => Effect.Effect<unknown, unknown>) =>
      Effect.gen(function* () {
        const task: Task = { id: `task-${++taskCounter}`, action, status: "running", progress: 0, message: "" }
        tasks.set(task.id, task)
        const control: TaskControl = {
          taskId: task.id,
          progress: (progress, message) =>
            Effect.suspend(() => {
              if (task.status !== "running") return Effect.void
              task.progress = Math.min(1, Math.max(0, progress))
              if (message !== undefined) task.message = message
              return taskChanged
            })
        }
        const body = Effect.suspend(() => run(control)).pipe(
          Effect.onExit((exit) =>
            Effect.suspend(() => {
              if (Exit.isSuccess(exit)) {
                task.status = "done"
                task.progress = 1
                if (exit.value !== undefined) task.result = exit.value
                return taskChanged.pipe(Effect.andThen(removeLater(task, 30_000)))
              }
              if (Cause.hasInterruptsOnly(exit.cause)) {
                task.status = "cancelled"
                return taskChanged.pipe(Effect.andThen(removeLater(task, 10_000)))
              }
              task.status = "failed"
              task.message = errorBody(exit.cause.reasons.find(Cause.isFailReason)?.error).message
              return taskChanged
            })
          ),
          Effect.ignore
        )
        const handle = (_params: unknown) =>
          Effect.suspend(() => {
            if (task.status !== "running" || task.fiber === undefined) {
              return Effect.fail(new ActionError({ code: "conflict", message: `task ${task.id} is not running` }))
            }
            return Fiber.interrupt(task.fiber)
          })
        handlers.set(handlerKey(`/tasks/${task.id}`, "cancel"), handle)
        yield* taskChanged
        task.fiber = yield* Effect.forkIn(
          body.pipe(Effect.ensuring(Effect.sync(() => handlers.delete(handlerKey(`/tasks/${task.id}`, "cancel"))))),
          scope
        )
        return task.id
      })

    const provider: Provider = {
      setTree: (tree) =>
        Effect.suspend(() => {
          appTree = tree
          return markDirty
        }),
      update: (f) =>
        Effect.suspend(() => {
          appTree = f(appTree)
          return markDirty
        }),
      handle: (path, action, handler) => Effect.sync(() => void handlers.set(handlerKey(path, action), handler)),
      connect: (connectOptions = {}) =>
        Effect.gen(function* () {
          const queue = yield* Queue.unbounded<Message.Outbound, Cause.Done>()
          const maxSubscriptions = connectOptions.maxSubscriptions ?? Infinity
          const conn: Conn = { queue, subs: new Map(), maxSubscriptions, open: true }
          conns.add(conn)
          offer(conn, hello)
          // One message per pull, so a reader that stops early (`Stream.take`) leaves the rest queued for the next.
          const messages = Stream.fromEffectRepeat(Queue.take(queue))
          return { send: send(conn), messages, close: closeConn(conn) }
        }),
      emitEvent: (name, data) =>
        Effect.sync(() => {
          for (const conn of conns)
            offer(conn, data === undefined ? { type: "event", name } : { type: "event", name, data })
        }),
      flush: Effect.sync(flushSync),
      tree: Effect.sync(() => current),
      version: Effect.sync(() => version),
      startTask
    }
    return provider
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
