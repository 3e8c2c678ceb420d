import { createConnection } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as IrcTransport from "../src/IrcTransport.ts"
import { onLines } from "../src/internal/lines.ts"
import * as NgircdServer from "../src/NgircdServer.ts"
import { eventQueue, is, skipIrc, waitFor } from "./helpers.ts"

const NICK = "pacer"

/**
 * A listener in `channel` on the real server that stamps each PRIVMSG with the clock at its arrival; `arrivals`
 * resolves once `count` have arrived.
 */
const listener = (port: number, channel: string) =>
  Effect.acquireRelease(
    Effect.callback<{
      readonly socket: ReturnType<typeof createConnection>
      readonly arrivals: (count: number) => Promise<Array<{ readonly text: string; readonly at: number }>>
    }>((resume) => {
      const socket = createConnection(port, "127.0.0.1")
      const arrived: Array<{ readonly text: string; readonly at: number }> = []
      let wanted: { count: number; resolve: (all: typeof arrived) => void } | undefined
      onLines(socket, (line) => {
        if (line.startsWith("PING")) socket.write(`PONG ${line.slice(5)}\r\n`)
        if (/^\S+ 001 /.test(line)) socket.write(`JOIN ${channel}\r\n`)
        if (line.startsWith(":watcher!") && / JOIN /.test(line)) resume(Effect.succeed({ socket, arrivals }))
        const message = /^:pacer!\S* PRIVMSG \S+ :(.*)$/.exec(line)
        if (message !== null) arrived.push({ text: message[1]!, at: performance.now() })
        if (wanted !== undefined && arrived.length >= wanted.count) wanted.resolve(arrived)
      })
      const arrivals = (count: number) =>
        new Promise<typeof arrived>((resolve) => {
          wanted = { count, resolve }
          if (arrived.length >= count) resolve(arrived)
        })
      socket.write("NICK watcher\r\nUSER watcher 0 * :watcher\r\n")
    }),
    ({ socket }) => Effect.sync(() => socket.destroy())
  )

describe.skipIf(skipIrc)("IrcTransport send pacing against ngircd", () => {
  it.live(
    "with send_rate 10 and send_burst 2, twelve lines are spread over at least 0.85 s on arrival",
    () =>
      Effect.gen(function* () {
        const server = yield* NgircdServer.start
        const watcher = yield* listener(server.port, "#pace")
        const transport = yield* IrcTransport.make({
          host: server.host,
          port: server.port,
          nick: NICK,
          channels: ["#pace"],
          send_rate: 10,
          send_burst: 2
        })
        const events = yield* eventQueue(yield* transport.subscribe)
        yield* waitFor(
          events,
          is("Joined", (e) => e.channel === "#pace"),
          "join #pace"
        )
        const lines = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`)
        yield* transport.send("#pace", lines.join("\n"))
        const arrived = yield* Effect.promise(() => watcher.arrivals(12))
        assert.deepStrictEqual(
          arrived.map((m) => m.text),
          lines
        )
        // At most 2 lines go at once, then one per 100 ms: the 12th line leaves at least 1 s after the first. This is
        // a lower bound (a slow machine only spreads them further); a bucket refilled too fast sends them in ~0.5 s.
        const spread = arrived[11]!.at - arrived[0]!.at
        assert.isAtLeast(spread, 850, `12 lines arrived within ${Math.round(spread)} ms`)
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )
})
