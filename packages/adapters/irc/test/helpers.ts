// Test helpers: ngircd availability (skip with a reason, or fail under CI=true), a raw-socket IRC client playing
// the other people in the channel, and event waiting without sleeps.
import type * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { IrcEvent } from "../src/IrcEvent.ts"
import { rawClient } from "../src/IrcTestClient.ts"
import * as IrcTransport from "../src/IrcTransport.ts"
import * as NgircdServer from "../src/NgircdServer.ts"

const reason = NgircdServer.unavailableReason()
const ci = process.env.CI === "true"
if (reason !== undefined) {
  console.warn(ci ? `ngircd missing under CI=true: ${reason}` : `skipping the ngircd tests: ${reason}`)
}

/** Whether tests that need ngircd skip (with the reason printed above); under CI=true they run and fail instead. */
export const skipIrc = reason !== undefined && !ci

const tlsReason = reason === undefined ? NgircdServer.tlsUnavailableReason() : reason
if (reason === undefined && tlsReason !== undefined) {
  console.warn(ci ? `TLS test server missing under CI=true: ${tlsReason}` : `skipping the TLS tests: ${tlsReason}`)
}

/** Whether tests that need ngircd with TLS (and openssl) skip; under CI=true they run and fail instead. */
export const skipTls = tlsReason !== undefined && !ci

/** Waits for the first queued event matching `predicate`, dropping the others; fails after `seconds`. */
export const waitFor = <A extends IrcEvent>(
  queue: Events,
  predicate: (event: IrcEvent) => event is A,
  what: string,
  seconds = 20
): Effect.Effect<A> =>
  Effect.gen(function* () {
    while (true) {
      const event = yield* Queue.take(queue)
      if (predicate(event)) return event
    }
  }).pipe(
    Effect.catchCause(() => Effect.die(new Error(`queue ended while waiting for ${what}`))),
    Effect.timeoutOrElse({
      duration: `${seconds} seconds`,
      orElse: () => Effect.die(new Error(`timed out waiting for ${what}`))
    })
  ) as Effect.Effect<A>

/** The transport's events from now on, as a queue. */
export const eventQueue = (stream: Stream.Stream<IrcEvent>): Effect.Effect<Events, never, Scope.Scope> =>
  Stream.toQueue(stream, { capacity: "unbounded" })

export type Events = Queue.Dequeue<IrcEvent, Cause.Done>

export const is =
  <T extends IrcEvent["_tag"]>(tag: T, test: (event: Extract<IrcEvent, { _tag: T }>) => boolean = () => true) =>
  (event: IrcEvent): event is Extract<IrcEvent, { _tag: T }> =>
    event._tag === tag && test(event as Extract<IrcEvent, { _tag: T }>)

export { type RawClient, rawClient } from "../src/IrcTestClient.ts"

/** Our nick in the tests. */
export const NICK = "thor-claude"

/**
 * One ngircd, alice (a raw socket, so the channel operator) in `channels` first, then our transport (`NICK`) there
 * too with `config`; returns once the transport has joined every channel.
 */
export const transportWithAlice = (
  channels: ReadonlyArray<string>,
  config: Partial<IrcTransport.IrcTransportConfig> = {}
) =>
  Effect.gen(function* () {
    const server = yield* NgircdServer.start
    const alice = yield* rawClient(server.port, "alice", channels)
    const transport = yield* IrcTransport.make({
      host: server.host,
      port: server.port,
      nick: NICK,
      channels,
      ...config
    })
    const events = yield* eventQueue(yield* transport.subscribe)
    for (const channel of channels) {
      yield* waitFor(
        events,
        is("Joined", (e) => e.channel === channel),
        `join ${channel}`
      )
    }
    return { server, alice, transport, events }
  })
