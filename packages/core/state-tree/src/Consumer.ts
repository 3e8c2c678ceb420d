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
import type * as Message from "./Message.ts"
import type { Affordance, JsonSchema, Node } from "./Node.ts"
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
  /** Events received so far (most recent last). */
  readonly events: Effect.Effect<ReadonlyArray<Message.Event>>
}

/**
 * Starts a consumer on a connection, reading its messages in a fiber of the current scope. On a version gap it
 * resubscribes with the same request and id, once: patches of that subscription are ignored until the fresh
 * snapshot arrives, and the mirror restarts from it.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (transport: Transport): Effect.Effect<Consumer, never, Scope.Scope> =>
  Effect.gen(function* () {
    const view = mirror()
    const hello = yield* Deferred.make<Message.Hello>()
    const waiting = new Map<string, Deferred.Deferred<Message.Outbound, ConsumerError>>()
    const requests = new Map<string, Message.Subscribe>()
    // subscriptions resubscribed after a gap and still waiting for their fresh snapshot
    const resyncing = new Set<string>()
    const events: Array<Message.Event> = []
    let counter = 0
    let resubscriptions = 0
    const nextId = (prefix: string) => `${prefix}-${++counter}`

    const settle = (id: string | undefined, message: Message.Outbound) => {
      if (id === undefined) return Effect.void
      const deferred = waiting.get(id)
      if (deferred === undefined) return Effect.void
      waiting.delete(id)
      if (message.type === "error") {
        return Deferred.fail(deferred, new ConsumerError(message.error))
      }
      if (message.type === "result" && message.status === "error") {
        return Deferred.fail(
          deferred,
          new ConsumerError(message.error ?? { code: "internal", message: "the action failed" })
        )
      }
      return Deferred.succeed(deferred, message)
    }

    const handle = (message: Message.Outbound): Effect.Effect<void> =>
      Effect.suspend(() => {
        switch (message.type) {
          case "hello":
            return Deferred.succeed(hello, message)
          case "event":
            events.push(message)
            return Effect.void
          case "batch":
            return Effect.forEach(message.messages, handle, { discard: true })
          case "result":
            return settle(message.id, message)
          case "error":
            if (message.id !== undefined && requests.has(message.id)) {
              requests.delete(message.id)
              resyncing.delete(message.id)
              view.drop(message.id)
            }
            return settle(message.id, message)
          case "snapshot":
            if (requests.has(message.id)) {
              resyncing.delete(message.id)
              view.apply(message)
            }
            return settle(message.id, message)
          case "patch": {
            const id = message.subscription
            if (!requests.has(id)) return Effect.void
            // patches that arrive between the resubscribe and its snapshot are stale: one resubscribe is enough
            if (resyncing.has(id)) return Effect.void
            if (view.apply(message) !== "gap") return Effect.void
            resyncing.add(id)
            resubscriptions++
            return transport.send(requests.get(id)!)
          }
        }
      })

    yield* Effect.forkScoped(
      Stream.runForEach(transport.messages, handle).pipe(
        Effect.ensuring(
          Effect.suspend(() =>
            Effect.forEach(
              [...waiting.values()],
              (deferred) =>
                Deferred.fail(deferred, new ConsumerError({ code: "closed", message: "connection closed" })),
              { discard: true }
            )
          )
        )
      )
    )

    const request = <A>(id: string, message: unknown, onReply: (reply: Message.Outbound) => A) =>
      Effect.gen(function* () {
        const deferred = yield* Deferred.make<Message.Outbound, ConsumerError>()
        waiting.set(id, deferred)
        yield* transport.send(message)
        return onReply(yield* Deferred.await(deferred))
      })

    const consumer: Consumer = {
      subscribe: (input = {}) => {
        const id = input.id ?? nextId("sub")
        const message: Message.Subscribe = { patch_format: "compact", ...input, type: "subscribe", id }
        requests.set(id, message)
        return request(id, message, () => id)
      },
      unsubscribe: (id) =>
        Effect.suspend(() => {
          requests.delete(id)
          resyncing.delete(id)
          view.drop(id)
          return transport.send({ type: "unsubscribe", id })
        }),
      tree: (id) => Effect.sync(() => view.tree(id)),
      query: (input = {}) => {
        const id = input.id ?? nextId("query")
        return request(id, { ...input, type: "query", id }, (reply) => (reply as Message.Snapshot).tree)
      },
      invoke: (path, action, params) => {
        const id = nextId("invoke")
        return request(
          id,
          params === undefined ? { type: "invoke", id, path, action } : { type: "invoke", id, path, action, params },
          (reply) => reply as Message.Result
        )
      },
      hello: Deferred.await(hello),
      resubscriptions: Effect.sync(() => resubscriptions),
      events: Effect.sync(() => [...events])
    }
    return consumer
  })

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

const sanitize = (name: string) => name.replace(/[^a-zA-Z0-9]/g, "_")

const canonical = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`
  if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>
    return `{${Object.keys(record)
      .sort()
      .filter((key) => record[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonical(record[key])}`)
      .join(",")}}`
  }
  return JSON.stringify(value) ?? "null"
}

const hash7 = (text: string): string => {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return (h >>> 0).toString(16).padStart(8, "0").slice(0, 7)
}

const shorten = (name: string, limit: number) =>
  name.length <= limit ? name : `${name.slice(0, limit - 8)}_${hash7(name)}`

const dangerSuffix = " [DANGEROUS - confirm first]"

interface Entry {
  readonly path: string
  readonly ids: ReadonlyArray<string>
  readonly node: Node
  readonly affordance: Affordance
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
 * @category tools
 * @since 0.1.0
 */
export const tools = (tree: Node, options: ToolOptions = {}): ToolSet => {
  const limit = options.maxLength ?? 64
  const prefix = options.provider !== undefined ? `${sanitize(options.provider)}__` : ""
  const entries: Array<Entry> = []
  const walk = (node: Node, path: string, ids: ReadonlyArray<string>) => {
    for (const affordance of node.affordances ?? [])
      entries.push({ path: path === "" ? "/" : path, ids, node, affordance })
    for (const child of node.children ?? []) walk(child, `${path}/${Patch.escapeKey(child.id)}`, [...ids, child.id])
  }
  walk(tree, "", [tree.id])
  // group by action, then by canonical params schema, in order of first appearance
  const byAction = new Map<string, Map<string, Array<Entry>>>()
  for (const entry of entries) {
    let groups = byAction.get(entry.affordance.action)
    if (groups === undefined) {
      groups = new Map()
      byAction.set(entry.affordance.action, groups)
    }
    const key = canonical(entry.affordance.params ?? null)
    const group = groups.get(key)
    if (group === undefined) groups.set(key, [entry])
    else group.push(entry)
  }
  const out: Array<{ tool: Omit<Tool, "name">; base: string; resolved: Resolved; entry?: Entry }> = []
  for (const [action, groups] of byAction) {
    let groupedNamed = false
    for (const group of groups.values()) {
      const first = group[0]!
      const dangerous = group.some((entry) => entry.affordance.dangerous === true)
      const label = first.affordance.label ?? action
      if (group.length === 1) {
        const description = `${label}${first.affordance.description ? `: ${first.affordance.description}` : ""} (on ${
          first.path
        })${dangerous ? dangerSuffix : ""}`
        out.push({
          base: `${sanitize(first.node.id)}__${sanitize(action)}`,
          tool: { description, inputSchema: first.affordance.params ?? { type: "object", properties: {} }, dangerous },
          resolved: { path: first.path, action },
          entry: first
        })
        continue
      }
      const params = first.affordance.params
      const targets = group.map((entry) => entry.path)
      const inputSchema: JsonSchema = {
        type: "object",
        properties: {
          target: { type: "string", description: "Path of the node to act on", enum: targets },
          ...(params?.properties ?? {})
        },
        required: ["target", ...(params?.required ?? [])]
      }
      const description = `${label}${first.affordance.description ? `: ${first.affordance.description}` : ""} (targets: ${targets.join(
        ", "
      )})${dangerous ? dangerSuffix : ""}`
      out.push({
        base: groupedNamed ? `${sanitize(action)}__${sanitize(first.node.id)}` : sanitize(action),
        tool: { description, inputSchema, dangerous },
        resolved: { path: null, action, targets }
      })
      groupedNamed = true
    }
  }
  // resolve collisions of singleton names by prepending ancestor ids
  const names = out.map((item) => item.base)
  for (let round = 1; round < 64; round++) {
    const seen = new Map<string, Array<number>>()
    names.forEach((name, i) => {
      seen.set(name, [...(seen.get(name) ?? []), i])
    })
    let clash = false
    for (const indices of seen.values()) {
      if (indices.length < 2) continue
      for (const i of indices) {
        const entry = out[i]!.entry
        if (entry === undefined) continue
        const ancestors = entry.ids.slice(Math.max(0, entry.ids.length - 1 - round), entry.ids.length - 1)
        const next = `${ancestors.map(sanitize).join("__")}${ancestors.length > 0 ? "__" : ""}${out[i]!.base}`
        if (next !== names[i]) {
          names[i] = next
          clash = true
        }
      }
    }
    if (!clash) break
  }
  const table = new Map<string, Resolved>()
  const result: Array<Tool> = out.map((item, i) => {
    const name = shorten(`${prefix}${names[i]!}`, limit)
    table.set(name, item.resolved)
    return { name, ...item.tool }
  })
  return { tools: result, resolve: (name) => table.get(name) }
}
