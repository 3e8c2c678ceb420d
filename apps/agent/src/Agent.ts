/**
 * The agent daemon: connects to IRC, lets attention bands decide when each channel and DM is polled, sends each
 * due target's new messages to the runner in culture's poll-prompt format and posts the reply there. A mention or
 * DM gets an immediate prompt. Each target's context is managed by decay; with an awareness server the briefing is
 * put before a poll prompt when it needs attention. The control socket and the runner's tools steer attention.
 *
 * @since 0.1.0
 */
import { AttentionConfig, type Band, Scheduler, type Tracker } from "@heed/attention-bands"
import { AttentionWiring, type IrcEvent, IrcTransport, MentionRules, MessageBuffer } from "@heed/irc"
import { TokenCounter } from "@heed/schema"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import {
  type AttentionControlShape,
  AttentionInputError,
  type AttentionView,
  type StatusView
} from "./AttentionControl.ts"
import { Awareness } from "./Awareness.ts"
import type { AgentConfig } from "./Config.ts"
import * as Control from "./Control.ts"
import * as Prompt from "./Prompt.ts"
import * as Responder from "./Responder.ts"
import { Runner } from "./Runner.ts"
import * as TargetContext from "./TargetContext.ts"

/**
 * One prompt the agent sent to its runner, and what came of it (see `Responder.Turn`).
 *
 * @category models
 * @since 0.1.0
 */
export type Turn = Responder.Turn

/**
 * A running agent.
 *
 * @category models
 * @since 0.1.0
 */
export interface AgentShape {
  readonly transport: IrcTransport.IrcTransportShape
  readonly scheduler: Scheduler.Scheduler["Service"]
  readonly control: AttentionControlShape
  /** The control socket's path. */
  readonly socket: string
  /** Every completed turn from now on (subscribes when run). */
  readonly turns: Stream.Stream<Turn>
  /** Subscribes now: turns from this moment on. */
  readonly subscribeTurns: Effect.Effect<Stream.Stream<Turn>, never, Scope.Scope>
}

const seconds = Effect.map(Clock.monotonicTimeNanos, (nanos) => Number(nanos) / 1e9)

// Seconds for people and models: a tenth is precise enough, and `0.026251602000002094` reads as noise.
const tenths = (seconds: number): number => Math.round(seconds * 10) / 10

const view = (
  config: AgentConfig["attention"],
  target: string,
  state: Tracker.TargetState,
  now: number
): AttentionView => ({
  target,
  band: state.band,
  manual_ttl_s: Option.match(state.manualUntil, {
    onNone: () => null,
    onSome: (until) => (Number.isFinite(until) ? tenths(Math.max(0, until - now)) : Number.MAX_SAFE_INTEGER)
  }),
  pinned: state.pinned,
  last_poll_ago_s: Option.match(state.lastPollAt, {
    onNone: () => null,
    onSome: (at) => tenths(Math.max(0, now - at))
  }),
  interval_s: AttentionConfig.intervalOf(config, state.band)
})

const validTarget = (target: string) => /^[#&+!][^\s,]{1,49}$/.test(target) || /^DM:[^\s,]{1,30}$/.test(target)

// Every message goes to the buffer; a mention (unless paused) gets an immediate turn. Connection changes are logged.
const routeEvents = (
  events: Stream.Stream<IrcEvent.IrcEvent>,
  buffer: MessageBuffer.MessageBuffer["Service"],
  server: string,
  onMention: (mention: IrcEvent.Mention, stored: MessageBuffer.BufferedMessage) => Effect.Effect<void>
) =>
  events.pipe(
    Stream.runForEach((event) => {
      switch (event._tag) {
        case "Mention":
        case "Ambient": {
          const { at, sender, target, text, thread } = event
          const mention = event._tag === "Mention"
          const stored = buffer.append({ target, sender, text, mention, thread, at })
          return mention ? Effect.flatMap(stored, (message) => onMention(event, message)) : Effect.asVoid(stored)
        }
        case "Parted":
          return Effect.asVoid(buffer.forget(event.channel))
        case "Connected":
          return Effect.logInfo(`irc: connected to ${server} as ${event.nick} (reconnects=${event.reconnects})`)
        case "Disconnected":
          return event.retryInMs === undefined
            ? Effect.logInfo(`irc: disconnected from ${server} (${event.reason})`)
            : Effect.logWarning(
                `irc: disconnected from ${server} (${event.reason}); reconnecting in ${event.retryInMs / 1000} s`
              )
        default:
          return Effect.void
      }
    }),
    Effect.forkScoped
  )

// The unread messages of a poll, one conversation each: the channel's own lines, then each thread's.
const byThread = (messages: ReadonlyArray<MessageBuffer.BufferedMessage>) => {
  const groups = new Map<string | undefined, Array<MessageBuffer.BufferedMessage>>()
  for (const message of messages) {
    const group = groups.get(message.thread)
    if (group === undefined) groups.set(message.thread, [message])
    else group.push(message)
  }
  return groups
}

// The control surface (socket and runner tools) over the scheduler.
const makeControl = (
  config: AgentConfig,
  scheduler: Scheduler.Scheduler["Service"],
  transport: IrcTransport.IrcTransportShape,
  context: TargetContext.TargetContext
): AttentionControlShape => {
  const get = (target: string) =>
    Effect.gen(function* () {
      const state = yield* scheduler.get(target)
      if (Option.isNone(state)) {
        return yield* new AttentionInputError({
          message: `target: ${target} is not tracked (join it or wait for a message there)`
        })
      }
      return view(config.attention, target, state.value, yield* seconds)
    })
  const status = Effect.gen(function* () {
    const now = yield* seconds
    const snapshot = yield* scheduler.snapshot
    return {
      agent: yield* transport.nick,
      connection: yield* transport.status,
      paused: yield* scheduler.isPaused,
      runner: config.runner.type,
      turns: context.turn(),
      targets: [...snapshot].map(([target, state]) => view(config.attention, target, state, now))
    } satisfies StatusView
  })
  const set = (target: string, band: Band.Band, ttl_s: number | undefined) =>
    Effect.gen(function* () {
      if (!validTarget(target)) {
        return yield* new AttentionInputError({
          message: `target: ${JSON.stringify(target)} is not a channel or DM:<nick>`
        })
      }
      if (ttl_s !== undefined && !(ttl_s > 0)) {
        return yield* new AttentionInputError({ message: `ttl_s must be a positive number of seconds (got ${ttl_s})` })
      }
      yield* scheduler.set(target, band, { ttlS: ttl_s })
      return yield* get(target)
    })
  return {
    set,
    get,
    status,
    pause: Effect.andThen(scheduler.pause, status),
    resume: Effect.andThen(scheduler.resume, status)
  }
}

/** The transport's options from the agent's configuration. */
const transportOptions = (config: AgentConfig) => ({
  host: config.server.host,
  port: config.server.port,
  tls: config.server.tls,
  tls_ca_file: config.server.tls_ca_file,
  tls_insecure: config.server.tls_insecure,
  nick: config.server.nick,
  password: config.server.password,
  channels: config.channels ?? [],
  send_rate: config.send?.rate,
  send_burst: config.send?.burst
})

/**
 * Answers a mention at once: claims it and gives it its own turn. While paused the mention waits, unread, for the
 * first poll after resume.
 */
const answerMention = (
  agent: {
    readonly scheduler: Scheduler.Scheduler["Service"]
    readonly buffer: MessageBuffer.MessageBuffer["Service"]
    readonly respond: ReturnType<typeof Responder.make>
    readonly topic: (messages: ReadonlyArray<MessageBuffer.BufferedMessage>) => string
  },
  mention: IrcEvent.Mention,
  seq: number
) =>
  Effect.gen(function* () {
    if (yield* agent.scheduler.isPaused) return
    const claimed = yield* agent.buffer.claim(mention.target, [seq])
    if (claimed.messages.length === 0) return
    yield* agent.respond({
      target: mention.target,
      thread: mention.thread,
      kind: "mention",
      prompt: Prompt.direct(mention),
      incoming: Prompt.quote(mention),
      topic: agent.topic(claimed.messages),
      seqs: [seq]
    })
  })

/**
 * Starts the agent in the current scope; closing the scope sends QUIT (after flushing the send queue), saves the
 * context and removes the control socket.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = Effect.fnUntraced(function* (config: AgentConfig) {
  const nick = config.server.nick
  const channels = config.channels ?? []
  const server = `${config.server.host}:${config.server.port ?? (config.server.tls === true ? 6697 : 6667)}`
  const turns = yield* Effect.acquireRelease(PubSub.unbounded<Turn>(), (pubsub) => PubSub.shutdown(pubsub))
  const context = TargetContext.make({
    decayThreshold: config.context?.decay_threshold,
    logExchanges: config.context?.log_exchanges,
    file: `${config.state_dir}/context.json`
  })
  yield* Effect.addFinalizer(() => Effect.sync(() => context.save()))
  const buffer = MessageBuffer.make()
  const transport = yield* IrcTransport.make(transportOptions(config))
  yield* Effect.addFinalizer(() => transport.quit(config.quit_message ?? "heed-agent shutting down"))
  const events = yield* transport.subscribe
  const respond = Responder.make({
    nick,
    scope: yield* Scope.Scope,
    runner: yield* Runner,
    awareness: yield* Awareness,
    counter: yield* TokenCounter.TokenCounter,
    transport,
    buffer,
    context,
    turns,
    retry: { attempts: config.retry?.attempts ?? 3, backoff_s: config.retry?.backoff_s ?? 1 }
  })
  const topicOf = MentionRules.mentionRemover(nick)
  const topic = (messages: ReadonlyArray<MessageBuffer.BufferedMessage>) =>
    messages.map((m) => topicOf(m.text)).join("\n")

  // A poll claims the target's unread messages (mentions included when they could not be answered directly) and
  // hands each conversation its own turn; only a reply settles them.
  const poll = (target: string) =>
    Effect.gen(function* () {
      const { messages } = yield* buffer.claim(target)
      if (messages.length === 0) return "empty" as const
      for (const [thread, group] of byThread(messages)) {
        yield* respond({
          target,
          thread,
          kind: "poll",
          prompt: Prompt.poll(TargetContext.effortId(target, thread), group),
          incoming: group.map(Prompt.quote).join("\n"),
          topic: topic(group),
          seqs: group.map((message) => message.seq)
        })
      }
      return "delivered" as const
    })
  const scheduler = yield* Scheduler.make({ config: config.attention, agent: nick, targets: channels, poll })
  yield* AttentionWiring.make(transport, scheduler)
  yield* routeEvents(events, buffer, server, (mention, stored) =>
    answerMention({ scheduler, buffer, respond, topic }, mention, stored.seq)
  )

  const control = makeControl(config, scheduler, transport, context)
  const socket = Control.socketPath(config.state_dir)
  yield* Control.serve(socket, control)
  yield* Effect.logInfo(
    `heed-agent: agent=${nick} server=${server}${config.server.tls === true ? " (tls)" : ""} channels=${channels.length} ` +
      `runner=${config.runner.type} awareness=${config.awareness === undefined ? "no" : "yes"} socket=${socket}`
  )
  return {
    transport,
    scheduler,
    control,
    socket,
    turns: Stream.fromPubSub(turns),
    subscribeTurns: Effect.map(PubSub.subscribe(turns), Stream.fromSubscription)
  } satisfies AgentShape
})
