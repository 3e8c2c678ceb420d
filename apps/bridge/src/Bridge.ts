/**
 * The bridge: the SLOP apps on the machine (discovered from descriptor folders, or given as URLs), their
 * connections and mirrored trees, their attention bands and reference history, and the budgeted view an agent gets.
 *
 * @since 0.1.0
 */
import * as fs from "node:fs"
import type { Band } from "@heed/attention-bands"
import type { Discovery } from "@heed/http"
import { SlopClient } from "@heed/http"
import { ProviderWatch, SlopStream } from "@heed/slop"
import type { Message } from "@heed/state-tree"
import { Consumer, Node, Pipeline, Render } from "@heed/state-tree"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Socket from "effect/socket/Socket"
import * as Budget from "./Budget.ts"
import * as Turns from "./Turns.ts"

/**
 * A failure the agent should read: an unknown app, a bad path or action, a provider error. `code` follows SLOP's
 * error codes (`not_found`, `invalid_params`, `unavailable`, …).
 *
 * @category errors
 * @since 0.1.0
 */
export class BridgeError extends Schema.TaggedError<BridgeError>()("BridgeError", {
  code: Schema.String,
  message: Schema.String
}) {}

/**
 * Bridge options:
 *
 * - `budget`: tokens for the whole injected view (default 1,500, o200k);
 * - `decayTurns`: turns without a reference before an app collapses to a stub (default 3);
 * - `notifyMinSalience`: a change to a node at least this salient (or `high`/`critical`) is salient: the app turns
 *   HOT and `onSalient` runs (default 0.8);
 * - `folders`: descriptor folders (default: `ProviderWatch.directories()`); `rescanInterval` (default 15 s);
 * - `providers`: URLs added explicitly (`ws://…`, a `/.well-known/slop` document, or a page with
 *   `<meta name="slop">`);
 * - `connect`: `auto` connects every provider found (default), `lazy` waits for `connect_app`;
 * - `reconnect`: backoff of the transports (default 3 s doubling to 30 s);
 * - `onSalient(id)`, `onTreeChanged(id)`: hooks for MCP notifications.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly budget?: number | undefined
  readonly decayTurns?: number | undefined
  readonly notifyMinSalience?: number | undefined
  readonly folders?: ReadonlyArray<string> | undefined
  readonly rescanInterval?: Duration.Input | undefined
  readonly providers?: ReadonlyArray<string> | undefined
  readonly connect?: "auto" | "lazy" | undefined
  readonly reconnect?: SlopStream.Reconnect | undefined
  readonly onSalient?: ((id: string) => Effect.Effect<void>) | undefined
  readonly onTreeChanged?: ((id: string) => Effect.Effect<void>) | undefined
}

/**
 * An app as `list_apps` shows it.
 *
 * @category models
 * @since 0.1.0
 */
export interface AppInfo {
  readonly id: string
  readonly name: string
  readonly transport: string
  readonly status: "available" | "connecting" | "connected" | "reconnecting" | "failed"
  readonly band: Band.Band
  readonly nodes: number
  readonly problem?: string | undefined
}

/**
 * The `get_state` request: a subtree `path`, `depth`, `max_tokens` and `window` (SLOP's names).
 *
 * @category models
 * @since 0.1.0
 */
export interface StateRequest {
  readonly path?: string | undefined
  readonly depth?: number | undefined
  readonly max_tokens?: number | undefined
  readonly window?: readonly [number, number] | undefined
}

/**
 * A running bridge.
 *
 * @category models
 * @since 0.1.0
 */
export interface Bridge {
  readonly budget: number
  readonly list: Effect.Effect<ReadonlyArray<AppInfo>>
  /** Connects an app (if needed) and waits for its first tree. A reference: the app turns HOT. */
  readonly connect: (id: string) => Effect.Effect<AppInfo, BridgeError>
  readonly disconnect: (id: string) => Effect.Effect<void, BridgeError>
  /** The mirrored tree of a connected app. */
  readonly tree: (id: string) => Effect.Effect<Node.Node, BridgeError>
  /** Invokes an affordance, checking first that the node exists and offers the action. A reference. */
  readonly invoke: (
    id: string,
    path: string,
    action: string,
    params?: Readonly<Record<string, unknown>>
  ) => Effect.Effect<Message.Result, BridgeError>
  /** A subtree in SLOP's text format (default `max_tokens`: the budget). A reference. */
  readonly state: (id: string, request: StateRequest) => Effect.Effect<string, BridgeError>
  /** One turn: reads references in the prompt, plans the view, and remembers what the agent has now seen. */
  readonly inject: (prompt: string) => Effect.Effect<Budget.Plan>
  /** The view as the next injection would plan it, without taking a turn. */
  readonly peek: Effect.Effect<Budget.Plan>
  /** Marks an app as referenced now (tool calls do it). */
  readonly reference: (id: string) => Effect.Effect<void>
  /** The current turn (injections so far). */
  readonly turn: Effect.Effect<number>
  /** Connected apps' ids. */
  readonly connected: Effect.Effect<ReadonlyArray<string>>
}

interface App {
  readonly id: string
  name: string
  descriptor: Discovery.Descriptor
  /** whether a `stdio` descriptor may be run: it came from a file this user owns that others cannot write */
  trusted: boolean
  status: AppInfo["status"]
  scope: Scope.Closeable | undefined
  consumer: Consumer.Consumer | undefined
  subscription: string | undefined
  transportState: Effect.Effect<"open" | "reconnecting" | "closed"> | undefined
  lastChecked: Node.Node | undefined
  problem: string | undefined
}

const transportLabel = (descriptor: Discovery.Descriptor): string => {
  const t = descriptor.transport
  switch (t.type) {
    case "ws":
      return `ws ${t.url}`
    case "unix":
      return `unix ${t.path}`
    case "stdio":
      return `stdio ${t.command.join(" ")}`
    default:
      return t.type
  }
}

const slug = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 48) || "app"

/**
 * Reads an explicit provider URL into a descriptor: a `ws://` or `wss://` URL as it is; an `http(s)://` URL is
 * fetched, as a `/.well-known/slop` descriptor (JSON) or as a page carrying `<meta name="slop" content="ws://…">`.
 *
 * @category constructors
 * @since 0.1.0
 */
export const resolveProvider = (url: string): Effect.Effect<Discovery.Descriptor, BridgeError> =>
  Effect.gen(function* () {
    const wsDescriptor = (ws: string, id?: string, name?: string): Discovery.Descriptor => {
      const parsed = new URL(ws)
      return {
        id: id ?? slug(`${parsed.hostname}-${parsed.port}${parsed.pathname}`),
        name: name ?? ws,
        slop_version: "0.1",
        transport: { type: "ws", url: ws },
        capabilities: []
      }
    }
    if (/^wss?:\/\//.test(url)) return wsDescriptor(url)
    if (!/^https?:\/\//.test(url)) {
      return yield* new BridgeError({
        code: "invalid_params",
        message: `--provider ${url}: give a ws:// URL, a /.well-known/slop URL or a page URL with <meta name="slop">`
      })
    }
    const response = yield* Effect.tryPromise({
      try: () =>
        fetch(url, { signal: AbortSignal.timeout(10_000) }).then(async (r) => ({
          ok: r.ok,
          status: r.status,
          body: await r.text()
        })),
      catch: (error) => new BridgeError({ code: "unavailable", message: `--provider ${url}: ${String(error)}` })
    })
    if (!response.ok) {
      return yield* new BridgeError({ code: "unavailable", message: `--provider ${url}: HTTP ${response.status}` })
    }
    try {
      const document = JSON.parse(response.body) as Partial<Discovery.Descriptor>
      if (document.transport?.type === "ws") {
        return wsDescriptor(document.transport.url, document.id, document.name)
      }
    } catch {
      // not JSON: look for the meta tag
    }
    const meta = /<meta\s+name=["']slop["']\s+content=["']([^"']+)["']/i.exec(response.body)
    if (meta !== null) {
      const ws = meta[1]!.replace(/&amp;/g, "&")
      return wsDescriptor(new URL(ws, url.replace(/^http/, "ws")).toString())
    }
    return yield* new BridgeError({
      code: "not_found",
      message: `--provider ${url}: neither a SLOP descriptor with a ws transport nor a page with <meta name="slop">`
    })
  })

/** Whether a file belongs to this user and no one else may write it (a stdio descriptor names a command to run). */
const ownedBySelf = (file: string): boolean => {
  try {
    const stat = fs.statSync(file)
    return stat.uid === process.getuid?.() && (stat.mode & 0o022) === 0
  } catch {
    return false
  }
}

const isSalient = (node: Node.Node, min: number): boolean =>
  node.meta?.urgency === "high" || node.meta?.urgency === "critical" || (node.meta?.salience ?? 0) >= min

/**
 * Starts a bridge in the current scope: watches the descriptor folders, resolves the explicit providers, and (in
 * `auto` mode) connects to every provider found. Providers that cannot be reached are listed with their problem;
 * none of them can stop the bridge.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (options: Options = {}): Effect.Effect<Bridge, never, Scope.Scope> =>
  Effect.gen(function* () {
    const budget = options.budget ?? Budget.defaultBudget
    const decayTurns = options.decayTurns ?? 3
    const notifyMin = options.notifyMinSalience ?? 0.8
    const autoConnect = (options.connect ?? "auto") === "auto"
    const turns = Turns.make({ budget, decayTurns })
    const apps = new Map<string, App>()
    const bridgeScope = yield* Effect.scope
    const nowSeconds = Effect.map(Clock.currentTimeMillis, (ms) => ms / 1000)
    const signals = yield* Queue.unbounded<string>()

    const unknown = (id: string) =>
      new BridgeError({
        code: "not_found",
        message: `no app "${id}"; known apps: ${[...apps.keys()].join(", ") || "none (is a provider running?)"}`
      })

    const get = (id: string) =>
      Effect.suspend(() => {
        const app = apps.get(id)
        return app === undefined ? Effect.fail(unknown(id)) : Effect.succeed(app)
      })

    const reference = (id: string) =>
      Effect.gen(function* () {
        if (apps.has(id)) Turns.reference(turns, id, yield* nowSeconds)
      })

    const closeApp = (app: App) =>
      Effect.gen(function* () {
        const scope = app.scope
        app.scope = undefined
        app.consumer = undefined
        app.subscription = undefined
        app.transportState = undefined
        if (scope !== undefined) yield* Scope.close(scope, Exit.void)
      })

    const openTransport = (app: App) => {
      const descriptor = app.descriptor
      const t = descriptor.transport
      const reconnect = options.reconnect
      switch (t.type) {
        case "unix":
          return SlopStream.unix({ path: t.path, name: app.id, reconnect }).pipe(
            Effect.map((client) => ({ transport: client as Consumer.Transport, state: client.state })),
            Effect.mapError((error) => error.message)
          )
        case "stdio":
          if (!app.trusted) {
            return Effect.fail(
              "a stdio descriptor is only run from a file you own that others cannot write (not from a shared folder such as /tmp)"
            )
          }
          return SlopStream.stdio({ command: t.command, name: app.id, reconnect }).pipe(
            Effect.map((client) => ({ transport: client as Consumer.Transport, state: client.state })),
            Effect.mapError((error) => error.message)
          )
        case "ws":
          return SlopClient.make({
            url: t.url,
            reconnect: {
              initialDelay: reconnect?.initialDelay ?? 3000,
              maxDelay: reconnect?.maxDelay ?? 30_000,
              maxAttempts: reconnect?.maxAttempts
            }
          }).pipe(
            Effect.map((client) => ({ transport: client as Consumer.Transport, state: client.state })),
            Effect.mapError((error) => error.message),
            Effect.provide(Socket.layerWebSocketConstructorGlobal)
          )
        default:
          return Effect.fail(`transport ${t.type} is not supported by heed-bridge`)
      }
    }

    const connectApp = (app: App): Effect.Effect<void, BridgeError> =>
      Effect.gen(function* () {
        if (app.consumer !== undefined) return
        app.status = "connecting"
        const scope = yield* Scope.make()
        const opened = yield* Effect.result(
          Effect.gen(function* () {
            const { transport, state } = yield* openTransport(app)
            // each message from the provider wakes the change check (after the consumer applied it)
            const watched: Consumer.Transport = {
              send: transport.send,
              messages: Stream.tap(transport.messages, () => Queue.offer(signals, app.id))
            }
            const consumer = yield* Consumer.make(watched)
            const hello = yield* consumer.hello.pipe(
              Effect.timeoutOrElse({
                duration: Duration.seconds(10),
                orElse: () => Effect.fail("no hello within 10 s")
              })
            )
            if (app.name === app.id || app.name === (app.descriptor.transport as { url?: string }).url) {
              app.name = hello.provider.name || app.name
            }
            const subscription = yield* consumer
              .subscribe({ depth: -1 })
              .pipe(Effect.mapError((error) => error.message))
            return { consumer, subscription, state }
          }).pipe(Scope.provide(scope))
        )
        if (opened._tag === "Failure") {
          yield* Scope.close(scope, Exit.void)
          app.status = "failed"
          app.problem = opened.failure
          yield* Effect.logWarning(`heed-bridge: cannot connect to ${app.id}: ${opened.failure}`)
          return yield* new BridgeError({
            code: "unavailable",
            message: `cannot connect to ${app.id}: ${opened.failure}`
          })
        }
        app.scope = scope
        app.consumer = opened.success.consumer
        app.subscription = opened.success.subscription
        app.transportState = opened.success.state
        app.status = "connected"
        app.problem = undefined
        Turns.track(turns, app.id)
        yield* Queue.offer(signals, app.id)
      })

    const currentTree = (app: App): Effect.Effect<Node.Node | undefined> =>
      app.consumer === undefined || app.subscription === undefined
        ? Effect.succeed(undefined)
        : app.consumer.tree(app.subscription)

    // The change check: a salient change makes the app HOT and notifies; any change may change the tools.
    const check = (id: string) =>
      Effect.gen(function* () {
        const app = apps.get(id)
        if (app === undefined) return
        const tree = yield* currentTree(app)
        if (tree === undefined || tree === app.lastChecked) return
        const previous = app.lastChecked
        app.lastChecked = tree
        if (options.onTreeChanged !== undefined) yield* options.onTreeChanged(id)
        if (previous === undefined) return
        const changes = Budget.changesBetween(previous, tree)
        if (changes.changed.some((entry) => isSalient(entry.node, notifyMin))) {
          Turns.salient(turns, id, yield* nowSeconds)
          if (options.onSalient !== undefined) yield* options.onSalient(id)
        }
      })
    yield* Effect.forkScoped(
      Effect.forever(
        Effect.gen(function* () {
          const first = yield* Queue.take(signals)
          // let the consumer apply the message that woke us (and any that follow at once)
          yield* Effect.sleep(Duration.millis(20))
          const ids = new Set([first, ...(yield* Queue.clear(signals))])
          for (const id of ids) yield* check(id).pipe(Effect.catchCause(() => Effect.void))
        })
      )
    )

    const add = (descriptor: Discovery.Descriptor, trusted: boolean) =>
      Effect.gen(function* () {
        const existing = apps.get(descriptor.id)
        if (existing !== undefined) {
          existing.trusted = trusted
          const moved = JSON.stringify(existing.descriptor.transport) !== JSON.stringify(descriptor.transport)
          existing.descriptor = descriptor
          existing.name = descriptor.name
          if (moved && existing.consumer !== undefined) {
            yield* closeApp(existing)
            yield* Effect.ignore(connectApp(existing))
          }
          return
        }
        const app: App = {
          id: descriptor.id,
          name: descriptor.name,
          descriptor,
          trusted,
          status: "available",
          scope: undefined,
          consumer: undefined,
          subscription: undefined,
          transportState: undefined,
          lastChecked: undefined,
          problem: undefined
        }
        apps.set(app.id, app)
        yield* Effect.logInfo(`heed-bridge: found ${app.id} (${transportLabel(descriptor)})`)
        if (autoConnect) yield* Effect.ignore(connectApp(app))
      })

    const remove = (id: string, reason: string) =>
      Effect.gen(function* () {
        const app = apps.get(id)
        if (app === undefined) return
        apps.delete(id)
        Turns.forget(turns, id)
        yield* closeApp(app)
        yield* Effect.logInfo(`heed-bridge: ${id} removed: ${reason}`)
        if (options.onTreeChanged !== undefined) yield* options.onTreeChanged(id)
      })

    yield* Effect.addFinalizer(() => Effect.forEach([...apps.values()], closeApp, { discard: true }))

    for (const url of options.providers ?? []) {
      const resolved = yield* Effect.result(resolveProvider(url))
      if (resolved._tag === "Success") yield* add(resolved.success, false)
      else yield* Effect.logWarning(`heed-bridge: ${resolved.failure.message}`)
    }

    yield* ProviderWatch.watch({
      folders: options.folders,
      rescanInterval: options.rescanInterval,
      onChange: (change) =>
        change._tag === "removed"
          ? remove(change.id, change.reason)
          : add(change.entry.descriptor, ownedBySelf(change.entry.file))
    }).pipe(Scope.provide(bridgeScope))

    // a provider that could not be reached is tried again at every rescan interval
    if (autoConnect) {
      yield* Effect.forkScoped(
        Effect.forever(
          Effect.sleep(Duration.fromInputUnsafe(options.rescanInterval ?? 15_000)).pipe(
            Effect.andThen(
              Effect.suspend(() =>
                Effect.forEach(
                  [...apps.values()].filter((app) => app.status === "failed" && app.consumer === undefined),
                  (app) => Effect.ignore(connectApp(app)),
                  { discard: true }
                )
              )
            )
          )
        )
      )
    }

    const statusOf = (app: App): Effect.Effect<AppInfo["status"]> =>
      app.transportState === undefined
        ? Effect.succeed(app.status)
        : Effect.map(app.transportState, (state) =>
            state === "open" ? "connected" : state === "reconnecting" ? "reconnecting" : "failed"
          )

    const info = (app: App) =>
      Effect.gen(function* () {
        const tree = yield* currentTree(app)
        const out: AppInfo = {
          id: app.id,
          name: app.name,
          transport: transportLabel(app.descriptor),
          status: yield* statusOf(app),
          band: Turns.bandOf(turns, app.id),
          nodes: tree === undefined ? 0 : Node.count(tree),
          ...(app.problem !== undefined ? { problem: app.problem } : {})
        }
        return out
      })

    const connectedTree = (id: string) =>
      Effect.gen(function* () {
        const app = yield* get(id)
        if (app.consumer === undefined) {
          return yield* new BridgeError({
            code: "unavailable",
            message: `app "${id}" is not connected: call connect_app first`
          })
        }
        const tree = yield* currentTree(app)
        if (tree === undefined) {
          return yield* new BridgeError({ code: "unavailable", message: `app "${id}" has sent no state yet` })
        }
        return tree
      })

    const live = Effect.suspend(() =>
      Effect.forEach(
        [...apps.values()].filter((app) => app.consumer !== undefined),
        (app) => Effect.map(currentTree(app), (tree): Turns.Live => ({ id: app.id, name: app.name, tree }))
      )
    )

    const bridge: Bridge = {
      budget,
      list: Effect.suspend(() => Effect.forEach([...apps.values()], info)),
      connect: (id) =>
        Effect.gen(function* () {
          const app = yield* get(id)
          yield* connectApp(app)
          yield* reference(id)
          return yield* info(app)
        }),
      disconnect: (id) =>
        Effect.gen(function* () {
          const app = yield* get(id)
          yield* closeApp(app)
          app.status = "available"
        }),
      tree: connectedTree,
      invoke: (id, path, action, params) =>
        Effect.gen(function* () {
          const tree = yield* connectedTree(id)
          const node = Node.find(tree, path)
          if (node === undefined) {
            const children = (tree.children ?? []).map((child) => `/${child.id}`).join(", ")
            return yield* new BridgeError({
              code: "not_found",
              message: `app "${id}" has no node at path "${path}" (top-level paths: ${children || "none"}); get_state shows the tree`
            })
          }
          const offered = (node.affordances ?? []).map((affordance) => affordance.action)
          if (!offered.includes(action)) {
            return yield* new BridgeError({
              code: "not_found",
              message: `node "${path}" of app "${id}" has no action "${action}" (its actions: ${offered.join(", ") || "none"})`
            })
          }
          yield* reference(id)
          const app = apps.get(id)!
          return yield* app
            .consumer!.invoke(path, action, params)
            .pipe(Effect.mapError((error) => new BridgeError({ code: error.code, message: error.message })))
        }),
      state: (id, request) =>
        Effect.gen(function* () {
          const tree = yield* connectedTree(id)
          yield* reference(id)
          const view = yield* Effect.try({
            try: () =>
              Pipeline.optimize(tree, {
                path: request.path,
                depth: request.depth,
                max_tokens: request.max_tokens ?? budget,
                window: request.window
              }),
            catch: (error) =>
              new BridgeError({
                code: "not_found",
                message: error instanceof Pipeline.PathNotFound ? `app "${id}": ${error.message}` : String(error)
              })
          })
          return Render.text(view)
        }),
      inject: (prompt) =>
        Effect.gen(function* () {
          const now = yield* nowSeconds
          return Turns.inject(turns, yield* live, prompt, now)
        }),
      peek: Effect.gen(function* () {
        const now = yield* nowSeconds
        return Turns.peek(turns, yield* live, now)
      }),
      reference,
      turn: Effect.sync(() => turns.turn),
      connected: Effect.sync(() => [...apps.values()].filter((app) => app.consumer !== undefined).map((app) => app.id))
    }
    return bridge
  })

/**
 * One app's section of a plan's text (its heading and lines up to the next app), or `undefined`.
 *
 * @category getters
 * @since 0.1.0
 */
export const sectionOf = (plan: Budget.Plan, id: string): string | undefined => {
  const lines = plan.text.split("\n")
  const start = lines.findIndex((line) => line.startsWith("### ") && line.includes(`[${id}]`))
  if (start === -1) return undefined
  let end = start + 1
  while (end < lines.length && !lines[end]!.startsWith("### ")) end++
  return lines.slice(start, end).join("\n").trimEnd()
}
