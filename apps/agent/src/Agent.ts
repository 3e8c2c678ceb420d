/**
 * The agent daemon: connects to IRC, lets attention bands decide when each channel and DM is polled, sends each
 * due target's new messages to the runner in culture's poll-prompt format and posts the reply there. A mention or
 * DM gets an immediate prompt. Each target's context is managed by decay; with an awareness server the briefing is
 * put before a poll prompt when it needs attention. The control socket and the runner's tools steer attention.
 *
 * @since 0.1.0
 */
import { AttentionConfig, type Band, Scheduler, type Tracker } from "@heed/attention-bands"
import {
  AttentionWiring,
  type IrcEvent,
  IrcTransport,
  type IrcTransportShape,
  type Mention,
  MentionRules,
  MessageBuffer
} from "@heed/irc"
import { TokenCounter } from "@heed/schema"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
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
import { Runner } from "./Runner.ts"
import * as TargetContext from "./TargetContext.ts"

/**
 * One prompt the agent sent to its runner, and what came of it (for observers and tests).
 *
 * @category models
 * @since 0.1.0
 */
export interface Turn {
  readonly target: string
  readonly kind: "poll" | "mention"
  readonly prompt: string
  /** Tokens of every message the runner received (system prompt and context included). */
  readonly prompt_tokens: number
  readonly outcome:
    | { readonly _tag: "Replied"; readonly lines: number }
    | { readonly _tag: "Failed"; readonly error: string }
  /** Targets whose context logs collapsed after this turn. */
  readonly collapsed: ReadonlyArray<string>
}

/**
 * A running agent.
 *
 * @category models
 * @since 0.1.0
 */
export interface AgentShape {
  readonly transport: IrcTransportShape
  readonly scheduler: Scheduler["Service"]
  readonly control: AttentionControlShape
  /** The control socket's path. */
  readonly socket: string
  /** Every completed turn from now on (subscribes when run). */
  readonly turns: Stream.Stream<Turn>
  /** Subscribes now: turns from this moment on. */
  readonly subscribeTurns: Effect.Effect<Stream.Stream<Turn>, never, Scope.Scope>
}

const promptsCounter = Metric.counter("heed.agent.prompts", {
  description: "Prompts sent to the runner",
  incremental: true
})
const failuresCounter = Metric.counter("heed.agent.runner_failures", {
  description: "Runner failures (isolated to their target)",
  incremental: true
})
const promptTokens = Metric.gauge("heed.agent.prompt_tokens", { description: "Tokens of the last prompt per target" })

const seconds = Effect.map(Clock.monotonicTimeNanos, (nanos) => Number(nanos) / 1e9)

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
    onSome: (until) => (Number.isFinite(until) ? Math.max(0, until - now) : Number.MAX_SAFE_INTEGER)
  }),
  pinned: state.pinned,
  last_poll_ago_s: Option.match(state.lastPollAt, { onNone: () => null, onSome: (at) => Math.max(0, now - at) }),
  interval_s: AttentionConfig.intervalOf(config, state.band)
})

const validTarget = (target: string) => /^[#&+!][^\s,]{1,49}$/.test(target) || /^DM:[^\s,]{1,30}$/.test(target)

interface Parts {
  readonly config: AgentConfig
  readonly nick: string
  readonly scope: Scope.Scope
  readonly runner: Runner["Service"]
  readonly awareness: Awareness["Service"]
  readonly counter: TokenCounter["Service"]
  readonly transport: IrcTransportShape
  readonly context: TargetContext.TargetContext
  readonly turns: PubSub.PubSub<Turn>
}

/** What a turn needs besides its target: the prompt, the quoted lines for the log, the topic, the thread. */
interface TurnInput {
  readonly kind: Turn["kind"]
  readonly prompt: string
  readonly incoming: string
  readonly topic: string
  readonly thread?: string | undefined
}

// One turn: context, runner, reply, decay. Runs forked, one at a time per target, so a slow or failing runner
// never holds up other targets or the poll loop.
const makeResponder = (parts: Parts) => {
  const { context, counter, nick, runner, transport, turns } = parts
  const locks = new Map<string, Semaphore.Semaphore>()
  const lockOf = (target: string) => {
    let lock = locks.get(target)
    if (lock === undefined) {
      lock = Semaphore.makeUnsafe(1)
      locks.set(target, lock)
    }
    return lock
  }
  const finish = (
    target: string,
    input: TurnInput,
    prompt: string,
    tokens: number,
    outcome: Turn["outcome"],
    collapsed: ReadonlyArray<string> = []
  ) => PubSub.publishUnsafe(turns, { target, kind: input.kind, prompt, prompt_tokens: tokens, outcome, collapsed })

  const turn = (target: string, input: TurnInput) =>
    Effect.gen(function* () {
      const briefing = input.kind === "poll" ? yield* parts.awareness.briefing : Option.none()
      const prompt = Option.match(briefing, {
        onNone: () => input.prompt,
        onSome: (attention) => `${Prompt.briefing(attention.summary, attention.suggested)}\n\n${input.prompt}`
      })
      const messages = context.messages(target, Prompt.system(nick), prompt)
      const tokens = TargetContext.tokens(counter, messages)
      yield* Metric.update(Metric.withAttributes(promptsCounter, { agent: nick, target, kind: input.kind }), 1)
      yield* Metric.update(Metric.withAttributes(promptTokens, { agent: nick, target }), tokens)
      const reply = yield* Effect.result(runner.reply({ target, messages }))
      if (reply._tag === "Failure") {
        yield* Effect.logWarning(`runner: agent=${nick} target=${target} failed: ${reply.failure.message}`)
        yield* Metric.update(Metric.withAttributes(failuresCounter, { agent: nick, target }), 1)
        return finish(target, input, prompt, tokens, { _tag: "Failed", error: reply.failure.message })
      }
      const sent = reply.success === "" ? [] : yield* transport.send(target, reply.success, { thread: input.thread })
      const collapsed = context.record(target, { incoming: input.incoming, reply: reply.success, topic: input.topic })
      for (const id of collapsed) yield* Effect.logInfo(`context: agent=${nick} collapsed=${id} turn=${context.turn()}`)
      finish(target, input, prompt, tokens, { _tag: "Replied", lines: sent.length }, collapsed)
    }).pipe(
      Effect.catchTag("IrcConfigError", (error) =>
        Effect.logWarning(`reply: agent=${nick} target=${target} not sent: ${error.message}`)
      )
    )

  return (target: string, input: TurnInput): Effect.Effect<void> =>
    turn(target, input).pipe(lockOf(target).withPermit, Effect.forkIn(parts.scope), Effect.asVoid)
}

// Every message goes to the buffer; a mention (unless paused) gets an immediate turn.
const routeEvents = (
  events: Stream.Stream<IrcEvent>,
  buffer: MessageBuffer["Service"],
  onMention: (mention: Mention) => Effect.Effect<void>
) =>
  events.pipe(
    Stream.runForEach((event) => {
      switch (event._tag) {
        case "Mention":
        case "Ambient": {
          const { at, sender, target, text, thread } = event
          const mention = event._tag === "Mention"
          const stored = buffer.append({ target, sender, text, mention, thread, at })
          return mention ? Effect.andThen(stored, onMention(event)) : Effect.asVoid(stored)
        }
        case "Parted":
          return Effect.asVoid(buffer.forget(event.channel))
        default:
          return Effect.void
      }
    }),
    Effect.forkScoped
  )

// The control surface (socket and runner tools) over the scheduler.
const makeControl = (
  config: AgentConfig,
  scheduler: Scheduler["Service"],
  transport: IrcTransportShape,
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
  const set = (target: string, band: Band, ttl_s: number | undefined) =>
    Effect.gen(function* () {
      if (!validTarget(target)) {
        return yield* new AttentionInputError({
          message: `target: ${JSON.stringify(target)} is not a channel or DM:<nick>`
        })
      }
      if (ttl_s !== undefined && !(ttl_s > 0)) {
        return yield* new AttentionInputError({ message: `ttl_s must be a positive number of seconds (got ${ttl_s})` })
      }
      yield* scheduler.set(target, band, { ttl_s })
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
  const turns = yield* Effect.acquireRelease(PubSub.unbounded<Turn>(), (pubsub) => PubSub.shutdown(pubsub))
  const context = TargetContext.make({
    decay_threshold: config.context?.decay_threshold,
    log_exchanges: config.context?.log_exchanges,
    file: `${config.state_dir}/context.json`
  })
  yield* Effect.addFinalizer(() => Effect.sync(() => context.save()))
  const buffer = MessageBuffer.make()
  const transport = yield* IrcTransport.make({
    host: config.server.host,
    port: config.server.port,
    tls: config.server.tls,
    nick,
    password: config.server.password,
    channels,
    send_rate: config.send?.rate,
    send_burst: config.send?.burst
  })
  yield* Effect.addFinalizer(() => transport.quit(config.quit_message ?? "heed-agent shutting down"))
  const events = yield* transport.subscribe
  const respond = makeResponder({
    config,
    nick,
    scope: yield* Scope.Scope,
    runner: yield* Runner,
    awareness: yield* Awareness,
    counter: yield* TokenCounter,
    transport,
    context,
    turns
  })
  const topicOf = MentionRules.mentionRemover(nick)

  const poll = (target: string) =>
    Effect.gen(function* () {
      const fresh = (yield* buffer.read(target)).messages.filter((message) => !message.mention)
      if (fresh.length === 0) return "empty" as const
      yield* respond(target, {
        kind: "poll",
        prompt: Prompt.poll(target, fresh),
        incoming: fresh.map(Prompt.quote).join("\n"),
        topic: fresh.map((message) => topicOf(message.text)).join("\n")
      })
      return "delivered" as const
    })
  const scheduler = yield* Scheduler.make({ config: config.attention, agent: nick, targets: channels, poll })
  yield* AttentionWiring.make(transport, scheduler)
  yield* routeEvents(events, buffer, (mention) =>
    Effect.flatMap(scheduler.isPaused, (paused) =>
      paused
        ? Effect.void
        : respond(mention.target, {
            kind: "mention",
            prompt: Prompt.direct(mention),
            incoming: Prompt.quote(mention),
            topic: topicOf(mention.text),
            thread: mention.thread
          })
    )
  )

  const control = makeControl(config, scheduler, transport, context)
  const socket = Control.socketPath(config.state_dir)
  yield* Control.serve(socket, control)
  yield* Effect.logInfo(
    `heed-agent: agent=${nick} server=${config.server.host}:${config.server.port ?? 6667} channels=${channels.length} ` +
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
