/**
 * The SLOP consumer side: a mirror that applies snapshots and patches and detects version gaps, a connection
 * client that resubscribes on gaps, and the mapping of affordances to LLM tools.
 *
 * @since 0.1.0
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { toolSet } from "./internal/tools.ts"
import type * as Message from "./Message.ts"
import type { JsonSchema, Node } from "./Node.ts"
import * as Patch from "./Patch.ts"

// ---------------------------------------------------------------------------------------------------------------
// Mirror

/**
 * What {@link Mirror.apply} did with a message: `applied`; `gap` (a patch's version is not the next one, or it did
 * not fit: resubscribe); `ignored` (not a subscription message, or an unknown subscription).
 *
 * @category models
 * @since 0.1.0
 */
export type ApplyOutcome = "applied" | "gap" | "ignored"

/**
 * A consumer-side copy of subscribed trees.
 *
 * @category models
 * @since 0.1.0
 */
export interface Mirror {
  /** Applies a `snapshot`, `patch` or `batch` (inner messages in order; the worst outcome wins). */
  readonly apply: (message: Message.Outbound) => ApplyOutcome
  /** The mirrored tree of a subscription. */
  readonly tree: (subscription: string) => Node | undefined
  /** The last applied version of a subscription. */
  readonly version: (subscription: string) => number | undefined
  /** Forgets a subscription. */
  readonly drop: (subscription: string) => void
}

/**
 * Creates an empty {@link Mirror}. A snapshot (re)starts a subscription at its version; each patch must carry the
 * next version, otherwise the mirror reports a `gap` and keeps its last good tree.
 *
 * @category constructors
 * @since 0.1.0
 */
export const mirror = (): Mirror => {
  const trees = new Map<string, { tree: Node; version: number }>()
  const apply = (message: Message.Outbound): ApplyOutcome => {
    switch (message.type) {
      case "snapshot":
        trees.set(message.id, { tree: message.tree, version: message.version })
        return "applied"
      case "patch": {
        const entry = trees.get(message.subscription)
        if (entry === undefined) return "ignored"
        if (message.version !== entry.version + 1) return "gap"
        try {
          entry.tree = Patch.apply(entry.tree, message.ops)
        } catch {
          return "gap"
        }
        entry.version = message.version
        return "applied"
      }
      case "batch": {
        let outcome: ApplyOutcome = "ignored"
        for (const inner of message.messages) {
          const result = apply(inner)
          if (result === "gap" || (result === "applied" && outcome === "ignored")) outcome = result
        }
        return outcome
      }
      default:
        return "ignored"
    }
  }
  return {
    apply,
    tree: (subscription) => trees.get(subscription)?.tree,
    version: (subscription) => trees.get(subscription)?.version,
    drop: (subscription) => void trees.delete(subscription)
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Client over a connection

/**
 * A failure reported by the provider (`error` message or `result` with status `error`), or a closed connection.
 *
 * @category errors
 * @since 0.1.0
 */
export class ConsumerError extends Schema.TaggedError<ConsumerError>()("ConsumerError", {
  code: Schema.String,
  message: Schema.String
}) {}

/**
 * A request without `type` and `id` (the consumer assigns ids unless one is given).
 *
 * @category models
 * @since 0.1.0
 */
export type RequestOf<M extends Message.Subscribe | Message.Query> = Omit<M, "type" | "id"> & {
  readonly id?: string | undefined
}

/**
 * The two ends of a connection the consumer needs (a `Provider.Connection` fits).
 *
 * @category models
 * @since 0.1.0
 */
export interface Transport {
  readonly send: (message: unknown) => Effect.Effect<void>
  readonly messages: Stream.Stream<Message.Outbound>
}

/**
 * A consumer bound to one connection.
 *
 * @category models
 * @since 0.1.0
 */
export interface Consumer {
  /**
   * Subscribes and waits for the first snapshot; the mirror then follows the patches. Returns the id. Asks for
   * heed's compact patches (`patch_format: "compact"`) unless the request says otherwise; providers that do not know
   * the field ignore it.
   */
  readonly subscribe: (request?: RequestOf<Message.Subscribe>) => Effect.Effect<string, ConsumerError>
  readonly unsubscribe: (id: string) => Effect.Effect<void>
  /** The mirrored tree of a subscription. */
  readonly tree: (id: string) => Effect.Effect<Node | undefined>
  /** A one-shot query. */
  readonly query: (request?: RequestOf<Message.Query>) => Effect.Effect<Node, ConsumerError>
  /** Invokes an action and waits for its `result` (`ok` or `accepted`); an `error` result fails. */
  readonly invoke: (
    path: string,
    action: string,
    params?: Readonly<Record<string, unknown>>
  ) => Effect.Effect<Message.Result, ConsumerError>
  /** The provider's `hello`. */
  readonly hello: Effect.Effect<Message.Hello>
  /** How many times a version gap made the consumer resubscribe. */
  readonly resubscriptions: Effect.Effect<number>
  /** The most recent events received, at most {@link Options.maxEvents} of them (most recent last). */
  readonly events: Effect.Effect<ReadonlyArray<Message.Event>>
}

/**
 * Options of {@link make}: `maxEvents`, how many of the most recent events the consumer keeps (default 1,000, also for
 * `NaN`; `Infinity` keeps every one). Older ones are dropped, so a long-lived consumer of a chatty provider does not
 * grow without bound.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly maxEvents?: number | undefined
}

const defaultMaxEvents = 1000

/** `maxEvents` as a whole number of events: the default when missing or `NaN`, `Infinity` to keep them all. */
const eventLimit = (maxEvents: number | undefined): number =>
  maxEvents === undefined || Number.isNaN(maxEvents) ? defaultMaxEvents : Math.max(0, Math.floor(maxEvents))

/**
 * Starts a consumer on a connection, reading its messages in a fiber of the current scope. On a version gap it
 * resubscribes with the same request and id, once: patches of that subscription are ignored until the fresh
 * snapshot arrives, and the mirror restarts from it.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (transport: Transport, options: Options = {}): Effect.Effect<Consumer, never, Scope.Scope> =>
  Effect.gen(function* () {
    const client: Client = {
      maxEvents: eventLimit(options.maxEvents),
      transport,
      view: mirror(),
      hello: yield* Deferred.make<Message.Hello>(),
      waiting: new Map(),
      requests: new Map(),
      resyncing: new Set(),
      events: [],
      counter: 0,
      resubscriptions: 0
    }
    const reader = Stream.runForEach(transport.messages, (message) => receive(client, message))
    yield* Effect.forkScoped(reader.pipe(Effect.ensuring(failWaiting(client))))
    const nextId = (prefix: string) => `${prefix}-${++client.counter}`
    const consumer: Consumer = {
      subscribe: (input = {}) => {
        const id = input.id ?? nextId("sub")
        const message: Message.Subscribe = { patch_format: "compact", ...input, type: "subscribe", id }
        client.requests.set(id, message)
        return request(client, id, message, () => id)
      },
      unsubscribe: (id) =>
        Effect.suspend(() => {
          forget(client, id)
          return transport.send({ type: "unsubscribe", id })
        }),
      tree: (id) => Effect.sync(() => client.view.tree(id)),
      query: (input = {}) => {
        const id = input.id ?? nextId("query")
        return request(client, id, { ...input, type: "query", id }, (reply) => (reply as Message.Snapshot).tree)
      },
      invoke: (path, action, params) => {
        const id = nextId("invoke")
        const message =
          params === undefined ? { type: "invoke", id, path, action } : { type: "invoke", id, path, action, params }
        return request(client, id, message, (reply) => reply as Message.Result)
      },
      hello: Deferred.await(client.hello),
      resubscriptions: Effect.sync(() => client.resubscriptions),
      events: Effect.sync(() => client.events.slice(Math.max(0, client.events.length - client.maxEvents)))
    }
    return consumer
  })

// The state of a consumer.
interface Client {
  readonly transport: Transport
  readonly view: Mirror
  readonly hello: Deferred.Deferred<Message.Hello>
  /** requests waiting for their reply, by id */
  readonly waiting: Map<string, Deferred.Deferred<Message.Outbound, ConsumerError>>
  /** the subscriptions, by id, as last requested */
  readonly requests: Map<string, Message.Subscribe>
  /** subscriptions resubscribed after a gap and still waiting for their fresh snapshot */
  readonly resyncing: Set<string>
  readonly events: Array<Message.Event>
  readonly maxEvents: number
  counter: number
  resubscriptions: number
}

const request = <A>(client: Client, id: string, message: unknown, onReply: (reply: Message.Outbound) => A) =>
  Effect.gen(function* () {
    const deferred = yield* Deferred.make<Message.Outbound, ConsumerError>()
    client.waiting.set(id, deferred)
    yield* client.transport.send(message)
    return onReply(yield* Deferred.await(deferred))
  })

const forget = (client: Client, id: string) => {
  client.requests.delete(id)
  client.resyncing.delete(id)
  client.view.drop(id)
}

// Answers the request waiting for `message`: an `error`, or a `result` with status `error`, fails it.
const settle = (client: Client, id: string | undefined, message: Message.Outbound): Effect.Effect<void> => {
  const deferred = id === undefined ? undefined : client.waiting.get(id)
  if (deferred === undefined) return Effect.void
  client.waiting.delete(id!)
  if (message.type === "error") return Deferred.fail(deferred, new ConsumerError(message.error))
  if (message.type === "result" && message.status === "error") {
    const error = message.error ?? { code: "internal", message: "the action failed" }
    return Deferred.fail(deferred, new ConsumerError(error))
  }
  return Effect.asVoid(Deferred.succeed(deferred, message))
}

const failWaiting = (client: Client): Effect.Effect<void> =>
  Effect.suspend(() =>
    Effect.forEach(
      [...client.waiting.values()],
      (deferred) => Deferred.fail(deferred, new ConsumerError({ code: "closed", message: "connection closed" })),
      { discard: true }
    )
  )

const receive = (client: Client, message: Message.Outbound): Effect.Effect<void> =>
  Effect.suspend(() => {
    switch (message.type) {
      case "hello":
        return Effect.asVoid(Deferred.succeed(client.hello, message))
      case "event":
        client.events.push(message)
        // Dropped in halves, so keeping the last `maxEvents` costs O(1) per event on average.
        if (client.events.length > 2 * client.maxEvents)
          client.events.splice(0, client.events.length - client.maxEvents)
        return Effect.void
      case "batch":
        return Effect.forEach(message.messages, (inner) => receive(client, inner), { discard: true })
      case "result":
        return settle(client, message.id, message)
      case "error":
        if (message.id !== undefined && client.requests.has(message.id)) forget(client, message.id)
        return settle(client, message.id, message)
      case "snapshot":
        if (client.requests.has(message.id)) {
          client.resyncing.delete(message.id)
          client.view.apply(message)
        }
        return settle(client, message.id, message)
      case "patch":
        return onPatch(client, message)
    }
  })

// A gap resubscribes once: patches that arrive between the resubscribe and its snapshot are stale.
const onPatch = (client: Client, message: Message.Patch): Effect.Effect<void> => {
  const id = message.subscription
  if (!client.requests.has(id) || client.resyncing.has(id)) return Effect.void
  if (client.view.apply(message) !== "gap") return Effect.void
  client.resyncing.add(id)
  client.resubscriptions++
  return client.transport.send(client.requests.get(id)!)
}

// ---------------------------------------------------------------------------------------------------------------
// Affordances → tools

/**
 * An LLM tool derived from affordances.
 *
 * @category models
 * @since 0.1.0
 */
export interface Tool {
  readonly name: string
  readonly description: string
  readonly inputSchema: JsonSchema
  readonly dangerous: boolean
}

/**
 * Where a tool call goes: one node (`path`), or for a grouped tool the `targets` it accepts (the call's `target`
 * argument picks one).
 *
 * @category models
 * @since 0.1.0
 */
export type Resolved =
  | { readonly path: string; readonly action: string }
  | { readonly path: null; readonly action: string; readonly targets: ReadonlyArray<string> }

/**
 * Tools plus the reverse mapping from tool name to target.
 *
 * @category models
 * @since 0.1.0
 */
export interface ToolSet {
  readonly tools: ReadonlyArray<Tool>
  readonly resolve: (name: string) => Resolved | undefined
}

/**
 * Options for {@link tools}: `provider` prefixes every name with `{provider}__` (several providers);
 * `maxLength` caps names (default 64).
 *
 * @category models
 * @since 0.1.0
 */
export interface ToolOptions {
  readonly provider?: string | undefined
  readonly maxLength?: number | undefined
}

/**
 * Turns every affordance in a tree into LLM tools, with SLOP's naming rules:
 *
 * - an affordance alone in its group becomes `{nodeId}__{action}`, characters outside `[a-zA-Z0-9]` replaced by
 *   `_`; on a name collision, ancestor ids are prepended until names are unique;
 * - affordances sharing the action name and the same (key-sorted) params schema on several nodes become one tool
 *   named `{action}` with a required `target` parameter (the node path); a later group with the same action but a
 *   different schema is named `{action}__{firstNodeId}`;
 * - a tool is dangerous when any member is; its description then ends with " [DANGEROUS - confirm first]";
 * - names longer than the limit are cut to `limit − 8` characters plus `_` and a 7-character hash.
 *
 * @category models
 * @since 0.1.0
 */
export const tools = (tree: Node, options: ToolOptions = {}): ToolSet => toolSet(tree, options)
