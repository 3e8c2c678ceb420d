/**
 * The IRC transport: a connection to one IRC server over `irc-framework`, wrapped in heed's types, with heed's
 * own reconnect (backoff from 1 s doubling to 60 s, never giving up), a paced send queue (so joining hundreds of
 * channels or answering a burst of mentions never gets the agent killed for flooding), and culture's rules for
 * mentions, DMs and ambient traffic.
 *
 * @since 0.1.0
 */
import { readFileSync } from "node:fs"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as PubSub from "effect/PubSub"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { Ambient, IrcEvent, Mention, Outgoing } from "./IrcEvent.ts"
import * as IrcText from "./IrcText.ts"
import { Connection } from "./internal/connection.ts"
import * as Rules from "./MentionRules.ts"

/**
 * Settings of {@link IrcTransport.layer}. Only `host` and `nick` are required.
 *
 * @category models
 * @since 0.1.0
 */
export interface IrcTransportConfig {
  readonly host: string
  /** Default 6667 (6697 with `tls`). */
  readonly port?: number | undefined
  /** Connect over TLS; the server's certificate is checked against the system's trusted roots and the host name. */
  readonly tls?: boolean | undefined
  /** A PEM file of CA certificates to trust as well (a server with a private or self-signed certificate). */
  readonly tls_ca_file?: string | undefined
  /** Do not check the server's certificate at all (default false; for tests, never for a real server). */
  readonly tls_insecure?: boolean | undefined
  readonly nick: string
  /** Server password (`PASS`), if the server needs one. */
  readonly password?: string | undefined
  /** Default: the nick. */
  readonly username?: string | undefined
  /** Default: `heed agent`. */
  readonly realname?: string | undefined
  /** Channels to join on connect (and rejoin after every reconnect). */
  readonly channels?: Iterable<string> | undefined
  /** First reconnect delay in seconds (default 1); each failed attempt doubles it. */
  readonly reconnect_initial_s?: number | undefined
  /** Largest reconnect delay in seconds (default 60). There is no retry ceiling. */
  readonly reconnect_max_s?: number | undefined
  /** Lines written per second once the burst is spent (default 2). */
  readonly send_rate?: number | undefined
  /** Lines that may go out at once before pacing starts (default 5). */
  readonly send_burst?: number | undefined
}

/**
 * A setting or an argument the transport cannot use; `field` names it.
 *
 * @category errors
 * @since 0.1.0
 */
export class IrcConfigError extends Schema.TaggedError<IrcConfigError>()("IrcConfigError", {
  field: Schema.String,
  message: Schema.String
}) {}

/**
 * Options of {@link IrcTransportShape.send}.
 *
 * @category models
 * @since 0.1.0
 */
export interface SendOptions {
  /** Reply inside an AgentIRC thread: every line gets the `[thread:name] ` prefix. */
  readonly thread?: string | undefined
}

/**
 * The transport's connection state: `connecting` (registration under way), `connected`, `disconnected` (a
 * reconnect is scheduled) or `closed` (after `quit`).
 *
 * @category models
 * @since 0.1.0
 */
export type ConnectionStatus = "connecting" | "connected" | "disconnected" | "closed"

/**
 * The transport's interface.
 *
 * @category models
 * @since 0.1.0
 */
export interface IrcTransportShape {
  /** Our current nick (the server may have changed it, e.g. `nick_` when taken). */
  readonly nick: Effect.Effect<string>
  /** The connection state. */
  readonly status: Effect.Effect<ConnectionStatus>
  /** Subscribes now and returns every later event; the subscription ends with the scope. */
  readonly subscribe: Effect.Effect<Stream.Stream<IrcEvent>, never, Scope.Scope>
  /** Mentions and DMs (subscribes when run). */
  readonly mentions: Stream.Stream<Mention>
  /** Channel traffic that does not mention us (subscribes when run). */
  readonly ambient: Stream.Stream<Ambient>
  /** Lines we sent, one event per line written (subscribes when run). */
  readonly outgoing: Stream.Stream<Outgoing>
  /**
   * Queues `text` for `target` (a channel, a nick, or `DM:<peer>`), one PRIVMSG per line of the text, long lines
   * cut to fit IRC's limits. Returns the lines queued (none for a blank text). Lines wait while disconnected and
   * go out after the reconnect, each exactly once.
   */
  readonly send: (
    target: string,
    text: string,
    options?: SendOptions
  ) => Effect.Effect<ReadonlyArray<string>, IrcConfigError>
  /** Joins channels (now and after every reconnect). */
  readonly join: (channels: string | Iterable<string>) => Effect.Effect<void, IrcConfigError>
  /** Leaves a channel and stops rejoining it. Returns whether it was joined or wanted. */
  readonly part: (channel: string, reason?: string) => Effect.Effect<boolean, IrcConfigError>
  /** The channels we want to be in (configured plus joined at runtime, minus parted). */
  readonly channels: Effect.Effect<ReadonlyArray<string>>
  /** The channels the server confirmed we are in right now. */
  readonly joined: Effect.Effect<ReadonlyArray<string>>
  /** Lines waiting in the send queue. */
  readonly pending: Effect.Effect<number>
  /** Waits until the send queue is empty. */
  readonly flush: Effect.Effect<void>
  /**
   * Flushes the send queue (up to `timeoutS` seconds, default 5; the old spelling `timeout_s` is still accepted),
   * sends `QUIT :message`, and waits for the server to close the connection. No reconnect follows. The layer calls
   * it when its scope closes.
   */
  readonly quit: (
    message?: string,
    options?: {
      readonly timeoutS?: number
      /** @deprecated Use `timeoutS`. */
      readonly timeout_s?: number
    }
  ) => Effect.Effect<void>
}

const DEFAULT_QUIT = "heed agent shutting down"

const positive = (field: string, value: number | undefined, fallback: number) =>
  value === undefined
    ? Effect.succeed(fallback)
    : Number.isFinite(value) && value > 0
      ? Effect.succeed(value)
      : Effect.fail(new IrcConfigError({ field, message: `${field} must be a positive number (got ${value})` }))

const checkChannel = (channel: string) =>
  Rules.isChannel(channel) && !/[\s,]/.test(channel) && !channel.includes("\u0007") && channel.length <= 50
    ? Effect.succeed(channel)
    : Effect.fail(
        new IrcConfigError({
          field: "channel",
          message: `invalid channel ${JSON.stringify(channel)}: it must start with # (or &, +, !), without spaces or commas, at most 50 characters`
        })
      )

const checkNick = (field: string, nick: string) =>
  /^[A-Za-z[\]\\^_`{|}][A-Za-z0-9[\]\\^_`{|}-]{0,29}$/.test(nick)
    ? Effect.succeed(nick)
    : Effect.fail(new IrcConfigError({ field, message: `invalid nick ${JSON.stringify(nick)}` }))

// The IRC target of a heed target: `DM:<peer>` goes to the peer's nick.
const resolveTarget = (target: string) =>
  target.startsWith("DM:")
    ? checkNick("target", target.slice(3))
    : Rules.isChannel(target)
      ? checkChannel(target)
      : checkNick("target", target)

// The CA file's certificates, read once at start.
const readCa = (path: string) =>
  Effect.try({
    try: () => readFileSync(path, "utf8"),
    catch: (error) =>
      new IrcConfigError({ field: "tls_ca_file", message: `cannot read ${path}: ${(error as Error).message}` })
  }).pipe(
    Effect.filterOrFail(
      (pem) => pem.includes("-----BEGIN CERTIFICATE-----"),
      () => new IrcConfigError({ field: "tls_ca_file", message: `${path} holds no PEM certificate` })
    )
  )

const tlsOnly = (field: string) =>
  new IrcConfigError({ field, message: `${field} applies to TLS connections only: set tls: true as well` })

const options = Effect.fnUntraced(function* (config: IrcTransportConfig) {
  const nick = yield* checkNick("nick", config.nick)
  const channels = yield* Effect.forEach([...(config.channels ?? [])], checkChannel)
  const tls = config.tls === true
  if (!tls && config.tls_ca_file !== undefined) return yield* tlsOnly("tls_ca_file")
  if (!tls && config.tls_insecure === true) return yield* tlsOnly("tls_insecure")
  const port = yield* positive("port", config.port, tls ? 6697 : 6667)
  return {
    host: config.host,
    port,
    tls,
    tlsCa: config.tls_ca_file === undefined ? undefined : yield* readCa(config.tls_ca_file),
    tlsInsecure: config.tls_insecure === true,
    nick,
    password: config.password,
    username: config.username ?? nick.slice(0, 10),
    realname: config.realname ?? "heed agent",
    channels,
    reconnectInitialMs: (yield* positive("reconnect_initial_s", config.reconnect_initial_s, 1)) * 1000,
    reconnectMaxMs: (yield* positive("reconnect_max_s", config.reconnect_max_s, 60)) * 1000,
    linesPerSecond: yield* positive("send_rate", config.send_rate, 2),
    burst: Math.max(1, Math.floor(yield* positive("send_burst", config.send_burst, 5)))
  }
})

const build = Effect.fnUntraced(function* (config: IrcTransportConfig) {
  const settings = yield* options(config)
  const events = yield* PubSub.unbounded<IrcEvent>()
  const connection = yield* Effect.acquireRelease(
    Effect.sync(() => {
      const connection = new Connection(settings, (event) => PubSub.publishUnsafe(events, event))
      connection.start()
      return connection
    }),
    (connection) => quitWith(connection, DEFAULT_QUIT, 5)
  )
  const only = <T extends IrcEvent["_tag"]>(tag: T) =>
    Stream.fromPubSub(events).pipe(
      Stream.filter((event): event is Extract<IrcEvent, { _tag: T }> => event._tag === tag)
    )

  const send = (target: string, text: string, sendOptions?: SendOptions) =>
    Effect.gen(function* () {
      const to = yield* resolveTarget(target)
      const thread = sendOptions?.thread
      if (thread !== undefined && !Rules.isThreadName(thread)) {
        return yield* new IrcConfigError({ field: "thread", message: `invalid thread name ${JSON.stringify(thread)}` })
      }
      const prefix = thread === undefined ? "" : Rules.threadPrefix(thread)
      const lines = IrcText.splitMessage(text, IrcText.maxPayloadBytes(to) - prefix.length)
      connection.enqueue(
        lines.map((line) => ({
          raw: `PRIVMSG ${to} :${prefix}${line}`,
          outgoing: { _tag: "Outgoing", target, to, line, thread }
        }))
      )
      return lines
    })

  return IrcTransport.of({
    nick: Effect.sync(() => connection.nick),
    status: Effect.sync(() => connection.status),
    subscribe: Effect.map(PubSub.subscribe(events), Stream.fromSubscription),
    mentions: only("Mention"),
    ambient: only("Ambient"),
    outgoing: only("Outgoing"),
    send,
    join: (channels) =>
      Effect.flatMap(Effect.forEach(typeof channels === "string" ? [channels] : [...channels], checkChannel), (valid) =>
        Effect.sync(() => connection.join(valid))
      ),
    part: (channel, reason) =>
      Effect.flatMap(checkChannel(channel), () => Effect.sync(() => connection.part(channel, reason))),
    channels: Effect.sync(() => [...connection.desired.values()]),
    joined: Effect.sync(() => [...connection.desired.values()].filter((c) => connection.joined.has(c.toLowerCase()))),
    pending: Effect.sync(() => connection.pending),
    flush: Effect.promise(() => connection.drained()),
    quit: (message = DEFAULT_QUIT, quitOptions) =>
      quitWith(connection, message, quitOptions?.timeoutS ?? quitOptions?.timeout_s ?? 5)
  })
})

// Flush (bounded), QUIT, then wait (bounded) for the server to close the socket.
const quitWith = (connection: Connection, message: string, timeoutS: number) =>
  Effect.gen(function* () {
    if (connection.status === "closed") return
    yield* Effect.promise(() => connection.drained()).pipe(Effect.timeoutOption(`${timeoutS} seconds`))
    yield* Effect.promise(() => connection.quit(message)).pipe(Effect.timeoutOption(`${timeoutS} seconds`))
  })

/**
 * The IRC transport service.
 *
 * **Events** (culture's rules, with heed's fixes): a PRIVMSG to our nick is a `Mention` with `dm: true` keyed
 * `DM:<peer>`; a channel PRIVMSG containing `@fullnick` or `@short` (the part of the nick after the first `-`) on
 * word boundaries is a `Mention`; any other channel PRIVMSG is `Ambient` (never both). Messages from ourselves and
 * from `system-*` users are dropped. `Outgoing` fires once per line written, thread replies included.
 *
 * **Example** (Answering mentions)
 *
 * ```ts
 * import { IrcTransport } from "@heed/irc"
 * import { Effect, Stream } from "effect"
 *
 * const program = Effect.gen(function*() {
 *   const irc = yield* IrcTransport.IrcTransport
 *   yield* irc.mentions.pipe(
 *     Stream.runForEach((mention) => irc.send(mention.target, `${mention.sender}: hello!`))
 *   )
 * })
 *
 * program.pipe(
 *   Effect.provide(IrcTransport.layer({ host: "127.0.0.1", port: 6667, nick: "spark-bot", channels: ["#dev"] }))
 * )
 * ```
 *
 * @category services
 * @since 0.1.0
 */
export class IrcTransport extends Context.Service<IrcTransport, IrcTransportShape>()("@heed/irc/IrcTransport") {}

/**
 * Connects in the current scope; the scope's end flushes the queue and quits.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make: (config: IrcTransportConfig) => Effect.Effect<IrcTransportShape, IrcConfigError, Scope.Scope> = build

/**
 * A layer holding one connection for its lifetime.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (config: IrcTransportConfig): Layer.Layer<IrcTransport, IrcConfigError> =>
  Layer.effect(IrcTransport, make(config))
