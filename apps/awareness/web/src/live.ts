/**
 * The page as a SLOP consumer: `@heed/http`'s `SlopClient` over the browser's WebSocket, `@heed/state-tree`'s
 * `Consumer` for subscribing and invoking affordances, and a `Consumer.mirror` fed from the same message stream, so
 * the page learns of every applied snapshot or patch (and its version) the moment it arrives.
 */
import * as SlopClient from "@heed/http/SlopClient"
import * as Consumer from "@heed/state-tree/Consumer"
import type * as Message from "@heed/state-tree/Message"
import type * as SlopNode from "@heed/state-tree/Node"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Socket from "effect/socket/Socket"

/** The page's one subscription: the whole tree, no budget (the budgeted views come from the server). */
const subscription = "dashboard"

export type ConnectionState = "connecting" | "live" | "closed"

export interface Live {
  /** Runs an affordance: resolves with the provider's result, rejects with its error message. */
  readonly invoke: (path: string, action: string, params?: Readonly<Record<string, unknown>>) => Promise<Message.Result>
  /** Closes the connection for good. */
  readonly close: () => Promise<void>
}

export interface Handlers {
  /** A snapshot or patch was applied: the mirrored tree and its version (increasing, across reconnections too). */
  readonly onTree: (tree: SlopNode.Node, version: number) => void
  readonly onState: (state: ConnectionState, detail?: string) => void
}

/** The SLOP endpoint this page announces in `<meta name="slop">` (SLOP's discovery), else `/slop` on this host. */
export const slopUrl = (): string => {
  const announced = document.querySelector<HTMLMetaElement>('meta[name="slop"]')?.content
  const base = `${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}`
  try {
    return new URL(announced !== undefined && announced !== "" ? announced : "/slop", base).toString()
  } catch {
    return `${base}/slop`
  }
}

export const connect = async (token: string | undefined, handlers: Handlers): Promise<Live> => {
  const scope = Scope.makeUnsafe()
  const mirror = Consumer.mirror()
  // the last tree handed on, and the version it was shown as: the provider's version, kept increasing across a
  // reconnection to a fresh provider (whose versions start again)
  let shownTree: SlopNode.Node | undefined
  let shown = 0
  let state: ConnectionState = "connecting"
  const setState = (next: ConnectionState, detail?: string) => {
    if (next === state && detail === undefined) return
    state = next
    handlers.onState(next, detail)
  }
  const seen = (message: Message.Outbound) => {
    if (mirror.apply(message) === "ignored") return
    const version = mirror.version(subscription)
    const tree = mirror.tree(subscription)
    if (version === undefined || tree === undefined || tree === shownTree) return
    shownTree = tree
    shown = version > shown ? version : shown + 1
    setState("live")
    handlers.onTree(tree, shown)
  }
  const program = Effect.gen(function* () {
    const client = yield* SlopClient.make({ url: slopUrl(), token, reconnect: { maxDelay: "5 seconds" } })
    const consumer = yield* Consumer.make({
      send: client.send,
      messages: Stream.tap(client.messages, (message) => Effect.sync(() => seen(message)))
    })
    yield* consumer.subscribe({ id: subscription, depth: -1 })
    return { client, consumer }
  }).pipe(Scope.provide(scope), Effect.provide(Socket.layerWebSocketConstructorGlobal))
  const opened = await Effect.runPromiseExit(program)
  if (Exit.isFailure(opened)) {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    const failure = opened.cause.reasons.find((reason) => reason._tag === "Fail")
    const message = failure !== undefined ? (failure.error as { message?: string }).message : undefined
    setState("closed", message ?? "the live tree could not be opened")
    throw new Error(message ?? "the live tree could not be opened")
  }
  const { client, consumer } = opened.value
  // the client reconnects by itself: mirror its state in the page
  const watch = setInterval(() => {
    const current = Effect.runSync(client.state)
    if (current === "closed") setState("closed", "the connection was closed")
    else if (current === "reconnecting") setState("connecting")
  }, 500)
  return {
    invoke: (path, action, params) =>
      Effect.runPromise(
        consumer.invoke(path, action, params).pipe(Effect.mapError((error) => new Error(error.message)))
      ),
    close: async () => {
      clearInterval(watch)
      await Effect.runPromise(Scope.close(scope, Exit.void))
      setState("closed")
    }
  }
}
