/**
 * One turn of the agent: a prompt for one conversation (a channel, DM or thread) goes to the runner with the
 * conversation's decay-managed context, and the reply is posted there. Turns run forked, one at a time per
 * conversation, so a slow or failing runner never holds up the others or the poll loop.
 *
 * A turn loses nothing: the buffered messages it carries are claimed, not read. A failing runner is retried with
 * doubling backoff (`retry.attempts`, `retry.backoff_s`); only a reply settles the messages. When every attempt
 * failed the messages are released, so the target's next poll carries them again, and the failure is logged and
 * counted (`heed.agent.runner_failures`).
 *
 * @since 0.1.0
 */
import type { IrcTransport, MessageBuffer } from "@heed/irc"
import type { TokenCounter } from "@heed/schema"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import type * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import type { Awareness } from "./Awareness.ts"
import * as Prompt from "./Prompt.ts"
import type { Runner, RunnerError, RunnerRequest } from "./Runner.ts"
import * as TargetContext from "./TargetContext.ts"

/**
 * One prompt the agent sent to its runner, and what came of it (for observers and tests).
 *
 * @category models
 * @since 0.1.0
 */
export interface Turn {
  readonly target: string
  /** The thread of `target` the turn was about, if any. */
  readonly thread: string | undefined
  readonly kind: "poll" | "mention"
  readonly prompt: string
  /** Tokens of every message the runner received (system prompt and context included). */
  readonly prompt_tokens: number
  /** Runner calls this turn made (more than one when the runner failed and was retried). */
  readonly attempts: number
  readonly outcome:
    | { readonly _tag: "Replied"; readonly lines: number }
    | { readonly _tag: "Failed"; readonly error: string }
  /** Conversations (efforts) whose context logs collapsed after this turn. */
  readonly collapsed: ReadonlyArray<string>
}

/**
 * What a turn is about: the conversation, the prompt, the lines quoted into its log, its topic (the messages'
 * text without senders and mentions) and the buffered messages it carries (settled only by a reply).
 *
 * @category models
 * @since 0.1.0
 */
export interface Delivery {
  readonly target: string
  readonly thread: string | undefined
  readonly kind: Turn["kind"]
  readonly prompt: string
  readonly incoming: string
  readonly topic: string
  readonly seqs: ReadonlyArray<number>
}

/**
 * What the responder works with.
 *
 * @category models
 * @since 0.1.0
 */
export interface ResponderParts {
  readonly nick: string
  readonly scope: Scope.Scope
  readonly runner: Runner["Service"]
  readonly awareness: Awareness["Service"]
  readonly counter: TokenCounter.TokenCounter["Service"]
  readonly transport: IrcTransport.IrcTransportShape
  readonly buffer: MessageBuffer.MessageBuffer["Service"]
  readonly context: TargetContext.TargetContext
  readonly turns: PubSub.PubSub<Turn>
  /** Runner calls per turn (at least 1) and the first wait between them, doubling after each failure. */
  readonly retry: { readonly attempts: number; readonly backoff_s: number }
}

const promptsCounter = Metric.counter("heed.agent.prompts", {
  description: "Prompts sent to the runner",
  incremental: true
})
const failuresCounter = Metric.counter("heed.agent.runner_failures", {
  description: "Turns whose every runner attempt failed (their messages are kept for the next poll)",
  incremental: true
})
const promptTokens = Metric.gauge("heed.agent.prompt_tokens", { description: "Tokens of the last prompt per target" })

const where = (delivery: Delivery) =>
  delivery.thread === undefined ? delivery.target : `${delivery.target} thread=${delivery.thread}`

// The runner, retried with doubling backoff; each failed attempt but the last is logged as it happens.
const replyWithRetries = (parts: ResponderParts, delivery: Delivery, request: RunnerRequest) => {
  const { attempts, backoff_s } = parts.retry
  const attempt = (n: number): Effect.Effect<readonly [string, number], readonly [RunnerError, number]> =>
    parts.runner.reply(request).pipe(
      Effect.map((reply) => [reply, n] as const),
      Effect.catch((error) => {
        if (n >= attempts) return Effect.fail([error, n] as const)
        const wait = backoff_s * 2 ** (n - 1)
        return Effect.logWarning(
          `runner: agent=${parts.nick} target=${where(delivery)} attempt ${n}/${attempts} failed: ${error.message}; ` +
            `retrying in ${wait} s`
        ).pipe(Effect.andThen(Effect.sleep(Duration.seconds(wait))), Effect.andThen(attempt(n + 1)))
      })
    )
  return attempt(1)
}

/**
 * Builds the responder: `respond(delivery)` forks the turn (queued behind any turn of the same conversation) and
 * returns at once.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (parts: ResponderParts): ((delivery: Delivery) => Effect.Effect<void>) => {
  const { buffer, context, counter, nick, transport } = parts
  const locks = new Map<string, Semaphore.Semaphore>()
  const lockOf = (effort: string) => {
    let lock = locks.get(effort)
    if (lock === undefined) {
      lock = Semaphore.makeUnsafe(1)
      locks.set(effort, lock)
    }
    return lock
  }

  const turn = (delivery: Delivery, effort: string) =>
    Effect.gen(function* () {
      const { kind, seqs, target, thread } = delivery
      const briefing = kind === "poll" ? yield* parts.awareness.briefing : Option.none()
      const prompt = Option.match(briefing, {
        onNone: () => delivery.prompt,
        onSome: (attention) => `${Prompt.briefing(attention.summary, attention.suggested)}\n\n${delivery.prompt}`
      })
      const messages = context.messages(effort, Prompt.system(nick), prompt)
      const prompt_tokens = TargetContext.tokens(counter, messages)
      yield* Metric.update(Metric.withAttributes(promptsCounter, { agent: nick, target, kind }), 1)
      yield* Metric.update(Metric.withAttributes(promptTokens, { agent: nick, target }), prompt_tokens)
      const publish = (attempts: number, outcome: Turn["outcome"], collapsed: ReadonlyArray<string> = []) =>
        PubSub.publishUnsafe(parts.turns, { target, thread, kind, prompt, prompt_tokens, attempts, outcome, collapsed })

      const result = yield* Effect.result(replyWithRetries(parts, delivery, { target, thread, messages }))
      if (result._tag === "Failure") {
        const [error, attempts] = result.failure
        yield* buffer.release(target, seqs)
        yield* Effect.logWarning(
          `runner: agent=${nick} target=${where(delivery)} failed after ${attempts} attempt(s): ${error.message}; ` +
            `${seqs.length} message(s) kept for the next poll`
        )
        yield* Metric.update(Metric.withAttributes(failuresCounter, { agent: nick, target }), 1)
        return publish(attempts, { _tag: "Failed", error: error.message })
      }
      const [reply, attempts] = result.success
      const sent = yield* transport
        .send(target, reply, { thread })
        .pipe(
          Effect.catchTag("IrcConfigError", (error) =>
            Effect.as(
              Effect.logWarning(`reply: agent=${nick} target=${where(delivery)} not sent: ${error.message}`),
              []
            )
          )
        )
      // Answered (or unanswerable): the messages are settled either way.
      yield* buffer.ack(target, seqs)
      const collapsed = context.record(effort, { incoming: delivery.incoming, reply, topic: delivery.topic })
      for (const id of collapsed) yield* Effect.logInfo(`context: agent=${nick} collapsed=${id} turn=${context.turn()}`)
      publish(attempts, { _tag: "Replied", lines: sent.length }, collapsed)
    })

  return (delivery) => {
    const effort = TargetContext.effortId(delivery.target, delivery.thread)
    return turn(delivery, effort).pipe(lockOf(effort).withPermit, Effect.forkIn(parts.scope), Effect.asVoid)
  }
}
