// Test helpers: ngircd availability (skip with a reason, or fail under CI=true), a raw-socket IRC client playing
// the other people in the channel, and event waiting without sleeps.
import { createConnection, type Socket } from "node:net"
import type * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { IrcEvent } from "../src/IrcEvent.ts"
import * as NgircdServer from "../src/NgircdServer.ts"

const reason = NgircdServer.unavailableReason()
const ci = process.env.CI === "true"
if (reason !== undefined) {
  console.warn(ci ? `ngircd missing under CI=true: ${reason}` : `skipping the ngircd tests: ${reason}`)
}

/** Whether tests that need ngircd skip (with the reason printed above); under CI=true they run and fail instead. */
export const skipIrc = reason !== undefined && !ci

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
    Effect.timeoutOrElse({ duration: `${seconds} seconds`, orElse: () => Effect.die(new Error(`timed out waiting for ${what}`)) })
  ) as Effect.Effect<A>

/** The transport's events from now on, as a queue. */
export const eventQueue = (stream: Stream.Stream<IrcEvent>): Effect.Effect<Events, never, Scope.Scope> =>
  Stream.toQueue(stream, { capacity: "unbounded" })

export type Events = Queue.Dequeue<IrcEvent, Cause.Done>

export const is =
  <T extends IrcEvent["_tag"]>(tag: T, test: (event: Extract<IrcEvent, { _tag: T }>) => boolean = () => true) =>
  (event: IrcEvent): event is Extract<IrcEvent, { _tag: T }> =>
    event._tag === tag && test(event as Extract<IrcEvent, { _tag: T }>)

/** A person on the server, over a raw socket: registers, joins, says things, and records what it receives. */
export interface RawClient {
  readonly nick: string
  readonly say: (target: string, text: string) => Effect.Effect<void>
  readonly join: (channel: string) => Effect.Effect<void>
  /** PRIVMSG texts received so far, as `target text` (in order). */
  readonly received: Array<{ readonly from: string; readonly target: string; readonly text: string }>
  /** Waits until `count` PRIVMSGs matching `predicate` were received. */
  readonly waitForMessages: (
    predicate: (message: { readonly from: string; readonly target: string; readonly text: string }) => boolean,
    count: number,
    what: string
  ) => Effect.Effect<void>
  readonly quit: Effect.Effect<void>
}

export const rawClient = (port: number, nick: string, channels: ReadonlyArray<string> = []) =>
  Effect.acquireRelease(
    Effect.callback<{ socket: Socket; client: RawClient }>((resume) => {
      const socket = createConnection(port, "127.0.0.1")
      const received: RawClient["received"] = []
      const waiters = new Set<() => void>()
      let buffer = ""
      let registered = false
      const joined = new Set<string>()
      const notify = () => {
        for (const waiter of [...waiters]) waiter()
      }
      socket.setEncoding("utf8")
      socket.on("data", (chunk: string) => {
        buffer += chunk
        let index = buffer.indexOf("\r\n")
        while (index >= 0) {
          const line = buffer.slice(0, index)
          buffer = buffer.slice(index + 2)
          index = buffer.indexOf("\r\n")
          if (line.startsWith("PING")) socket.write(`PONG ${line.slice(5)}\r\n`)
          const match = /^:([^! ]+)\S* (\S+) (\S+)(?: :?(.*))?$/.exec(line)
          if (match === null) continue
          const [, from, command, target, rest] = match
          if (command === "001" && !registered) {
            registered = true
            for (const channel of channels) socket.write(`JOIN ${channel}\r\n`)
            if (channels.length === 0) resume(Effect.succeed({ socket, client }))
          }
          if (command === "JOIN" && from === nick) {
            joined.add((rest ?? target!).replace(/^:/, "").toLowerCase())
            if (channels.every((channel) => joined.has(channel.toLowerCase()))) resume(Effect.succeed({ socket, client }))
          }
          if (command === "PRIVMSG") received.push({ from: from!, target: target!, text: rest ?? "" })
          notify()
        }
      })
      const client: RawClient = {
        nick,
        received,
        say: (target, text) => Effect.sync(() => socket.write(`PRIVMSG ${target} :${text}\r\n`)),
        join: (channel) =>
          Effect.callback<void>((done) => {
            const check = () => {
              if (joined.has(channel.toLowerCase())) {
                waiters.delete(check)
                done(Effect.void)
              }
            }
            waiters.add(check)
            socket.write(`JOIN ${channel}\r\n`)
          }),
        waitForMessages: (predicate, count, what) =>
          Effect.callback<void>((done) => {
            const check = () => {
              if (received.filter(predicate).length >= count) {
                waiters.delete(check)
                done(Effect.void)
              }
            }
            waiters.add(check)
            check()
          }).pipe(
            Effect.timeoutOrElse({
              duration: "30 seconds",
              orElse: () => Effect.die(new Error(`${nick} timed out waiting for ${what}`))
            })
          ),
        quit: Effect.sync(() => socket.end("QUIT :bye\r\n"))
      }
      socket.write(`NICK ${nick}\r\nUSER ${nick.slice(0, 10)} 0 * :${nick}\r\n`)
    }),
    ({ socket }) => Effect.sync(() => socket.destroy())
  ).pipe(Effect.map(({ client }) => client))
