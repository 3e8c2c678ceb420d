/**
 * A scripted IRC user for tests and benchmarks: registers over a raw socket, joins channels, says things, and
 * records the messages, joins, parts and quits it sees, with waits on those events (never on time).
 *
 * @since 0.1.0
 */
import { createConnection, type Socket } from "node:net"
import * as Effect from "effect/Effect"
import { onLines } from "./internal/lines.ts"

/**
 * A person on the server, over a raw socket: registers, joins, says things, and records what it receives.
 *
 * @category models
 * @since 0.1.0
 */
export interface RawClient {
  readonly nick: string
  readonly say: (target: string, text: string) => Effect.Effect<void>
  readonly join: (channel: string) => Effect.Effect<void>
  /** Writes one raw IRC line (without the CRLF), e.g. `KICK #chan nick :reason`. */
  readonly send: (line: string) => Effect.Effect<void>
  /**
   * JOIN, PART and QUIT lines of others seen so far, as `JOIN nick #chan` / `PART nick #chan reason` /
   * `QUIT nick reason`.
   */
  readonly presence: Array<string>
  /** Waits until a presence line matching `predicate` was seen. */
  readonly waitForPresence: (predicate: (line: string) => boolean, what: string) => Effect.Effect<void>
  /** PRIVMSG texts received so far, as `target text` (in order). */
  readonly received: Array<{ readonly from: string; readonly target: string; readonly text: string }>
  /** Waits until `count` PRIVMSGs matching `predicate` were received (failing after `timeoutS`, default 60). */
  readonly waitForMessages: (
    predicate: (message: { readonly from: string; readonly target: string; readonly text: string }) => boolean,
    count: number,
    what: string,
    timeoutS?: number
  ) => Effect.Effect<void>
  readonly quit: Effect.Effect<void>
}

/**
 * Connects `nick` to the server on 127.0.0.1:`port` and joins `channels`; resolves once every channel is joined.
 * The socket closes with the scope.
 *
 * @category constructors
 * @since 0.1.0
 */
export const rawClient = (port: number, nick: string, channels: ReadonlyArray<string> = []) =>
  Effect.acquireRelease(
    Effect.callback<{ socket: Socket; client: RawClient }>((resume) => {
      const socket = createConnection(port, "127.0.0.1")
      const received: RawClient["received"] = []
      const presence: Array<string> = []
      const waiters = new Set<() => void>()
      let registered = false
      const joined = new Set<string>()
      const notify = () => {
        for (const waiter of [...waiters]) waiter()
      }
      onLines(socket, (line) => {
        if (line.startsWith("PING")) socket.write(`PONG ${line.slice(5)}\r\n`)
        const match = /^:([^! ]+)\S* (\S+) (\S+)(?: :?(.*))?$/.exec(line)
        if (match === null) return
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
        if (command === "JOIN" && from !== nick) presence.push(`JOIN ${from} ${(rest ?? target!).replace(/^:/, "")}`)
        if (command === "PART" && from !== nick)
          presence.push(`PART ${from} ${target!.replace(/^:/, "")} ${rest ?? ""}`.trimEnd())
        if (command === "QUIT")
          presence.push(`QUIT ${from} ${[target, rest].filter(Boolean).join(" ").replace(/^:/, "")}`)
        if (command === "PRIVMSG") received.push({ from: from!, target: target!, text: rest ?? "" })
        notify()
      })
      const waitUntil = (done: () => boolean, what: string, timeoutS = 60) =>
        Effect.callback<void>((resume) => {
          const check = () => {
            if (done()) {
              waiters.delete(check)
              resume(Effect.void)
            }
          }
          waiters.add(check)
          check()
          return Effect.sync(() => waiters.delete(check))
        }).pipe(
          Effect.timeoutOrElse({
            duration: `${timeoutS} seconds`,
            orElse: () => Effect.die(new Error(`${nick} timed out waiting for ${what}`))
          })
        )
      const client: RawClient = {
        nick,
        received,
        presence,
        waitForPresence: (predicate, what) => waitUntil(() => presence.some(predicate), what),
        say: (target, text) => Effect.sync(() => socket.write(`PRIVMSG ${target} :${text}\r\n`)),
        join: (channel) =>
          Effect.andThen(
            Effect.sync(() => socket.write(`JOIN ${channel}\r\n`)),
            waitUntil(() => joined.has(channel.toLowerCase()), `${nick} in ${channel}`)
          ),
        send: (line) => Effect.sync(() => socket.write(`${line}\r\n`)),
        waitForMessages: (predicate, count, what, timeoutS) =>
          waitUntil(() => received.filter(predicate).length >= count, what, timeoutS),
        quit: Effect.sync(() => socket.end("QUIT :bye\r\n"))
      }
      socket.write(`NICK ${nick}\r\nUSER ${nick.slice(0, 10)} 0 * :${nick}\r\n`)
    }),
    ({ socket }) => Effect.sync(() => socket.destroy())
  ).pipe(Effect.map(({ client }) => client))
