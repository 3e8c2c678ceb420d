// The connection under IrcTransport (src/internal/connection.ts) against a real ngircd: nick collisions, our own
// joins and parts told apart from other people's, kicks, part, flush, quit and the reconnect backoff's cap. One
// test plays the server itself over a plain socket, for a line ngircd never sends (a PRIVMSG from the server).
import { createServer, type Socket } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type { IrcEvent } from "../src/IrcEvent.ts"
import * as IrcTransport from "../src/IrcTransport.ts"
import { onLines } from "../src/internal/lines.ts"
import * as NgircdServer from "../src/NgircdServer.ts"
import { type Events, eventQueue, is, NICK, rawClient, skipIrc, transportWithAlice, waitFor } from "./helpers.ts"

// One server, alice (a raw socket, so the channel operator) in `channels` first, then our transport there too.
const setup = transportWithAlice

/** Takes events until one matches `last`, and returns it with the events before it. */
const eventsUntil = <A extends IrcEvent>(events: Events, last: (event: IrcEvent) => event is A, what: string) =>
  Effect.gen(function* () {
    const before: Array<IrcEvent> = []
    const found = yield* waitFor(
      events,
      (e): e is A => {
        if (last(e)) return true
        before.push(e)
        return false
      },
      what
    )
    return { before, found }
  })

describe.skipIf(skipIrc)("IrcTransport connection against ngircd", () => {
  it.live("a taken nick gets one more _ until the server takes it, and DMs, mentions and joins follow that nick", () =>
    Effect.gen(function* () {
      const server = yield* NgircdServer.start
      const squatter = yield* rawClient(server.port, NICK, ["#dev"])
      yield* rawClient(server.port, `${NICK}_`)
      const alice = yield* rawClient(server.port, "alice", ["#dev"])
      const transport = yield* IrcTransport.make({
        host: server.host,
        port: server.port,
        nick: NICK,
        channels: ["#dev"]
      })
      const events = yield* eventQueue(yield* transport.subscribe)
      const connected = yield* waitFor(events, is("Connected"), "connect")
      assert.strictEqual(connected.nick, `${NICK}__`)
      assert.strictEqual(yield* transport.nick, `${NICK}__`)
      yield* waitFor(
        events,
        is("Joined", (e) => e.channel === "#dev"),
        "join #dev"
      )
      // The squatter is someone else now: its line is ambient, not our own.
      yield* squatter.say("#dev", "I was here first")
      yield* alice.waitForMessages((m) => m.from === NICK, 1, "the squatter's line")
      yield* alice.say(`${NICK}__`, "which one are you?")
      yield* alice.say("#dev", `@${NICK}__ you, the third one`)
      yield* alice.say("#dev", "marker")
      const { before: seen } = yield* eventsUntil(
        events,
        is("Ambient", (e) => e.text === "marker"),
        "marker"
      )
      assert.deepStrictEqual(
        seen.filter((e) => e._tag === "Ambient" || e._tag === "Mention").map((e) => [e._tag, e.target, e.text]),
        [
          ["Ambient", "#dev", "I was here first"],
          ["Mention", "DM:alice", "which one are you?"],
          ["Mention", "#dev", `@${NICK}__ you, the third one`]
        ]
      )
    }).pipe(Effect.scoped)
  )

  it.live("someone else joining or leaving our channel is not our join or part, and the channel stays joined", () =>
    Effect.gen(function* () {
      const { server, alice, transport, events } = yield* setup(["#dev"])
      const bob = yield* rawClient(server.port, "bob", ["#dev"])
      yield* bob.send("PART #dev :off for lunch")
      yield* alice.waitForPresence((line) => line.startsWith("PART bob"), "bob's part")
      yield* alice.say("#dev", "marker")
      const { before: seen } = yield* eventsUntil(
        events,
        is("Ambient", (e) => e.text === "marker"),
        "marker"
      )
      assert.deepStrictEqual(
        seen.filter((e) => e._tag === "Joined" || e._tag === "Parted"),
        []
      )
      assert.deepStrictEqual(yield* transport.joined, ["#dev"])
    }).pipe(Effect.scoped)
  )

  it.live("a kick is reported as such, and the channel is neither joined nor wanted any more", () =>
    Effect.gen(function* () {
      const { alice, transport, events } = yield* setup(["#dev", "#quiet"])
      yield* alice.send(`KICK #dev ${NICK} :behave`)
      const parted = yield* waitFor(events, is("Parted"), "the kick")
      assert.deepStrictEqual([parted.channel, parted.kicked], ["#dev", true])
      assert.deepStrictEqual(yield* transport.channels, ["#quiet"])
      assert.deepStrictEqual(yield* transport.joined, ["#quiet"])
    }).pipe(Effect.scoped)
  )

  it.live(
    "part leaves with its reason, stops wanting the channel (joined at start or later, in any case), and answers whether it was wanted",
    () =>
      Effect.gen(function* () {
        const { alice, transport, events } = yield* setup(["#dev", "#quiet"])
        assert.isTrue(yield* transport.part("#quiet", "done here"))
        // Nothing comes before the Parted event: writing the PART line is no Outgoing event.
        const { before, found: parted } = yield* eventsUntil(events, is("Parted"), "part #quiet")
        assert.deepStrictEqual(before, [])
        assert.deepStrictEqual([parted.channel, parted.kicked], ["#quiet", false])
        yield* alice.waitForPresence((line) => line.startsWith(`PART ${NICK} #quiet`), "our part")
        assert.include(alice.presence, `PART ${NICK} #quiet done here`)
        assert.isTrue(yield* transport.part("#dev"))
        yield* alice.waitForPresence((line) => line.startsWith(`PART ${NICK} #dev`), "our part without a reason")
        assert.include(alice.presence, `PART ${NICK} #dev`)
        // a channel joined later is wanted under its name in any letter case, and parting it answers so
        yield* transport.join("#Later")
        yield* eventsUntil(
          events,
          is("Joined", (e) => e.channel.toLowerCase() === "#later"),
          "join #Later"
        )
        assert.isTrue(yield* transport.part("#later"))
        assert.isFalse(yield* transport.part("#never-joined"))
        assert.deepStrictEqual(yield* transport.channels, [])
      }).pipe(Effect.scoped)
  )

  it.live(
    "a line sent before the server has registered us goes out after registration and the join, exactly once",
    () =>
      Effect.gen(function* () {
        const server = yield* NgircdServer.start
        const alice = yield* rawClient(server.port, "alice", ["#dev"])
        const transport = yield* IrcTransport.make({
          host: server.host,
          port: server.port,
          nick: NICK,
          channels: ["#dev"]
        })
        // Queued while still connecting: a PRIVMSG before registration would be refused (451) and lost.
        yield* transport.send("#dev", "queued before we were registered")
        yield* transport.send("#dev", "marker")
        yield* alice.waitForMessages((m) => m.from === NICK && m.text === "marker", 1, "the marker")
        assert.deepStrictEqual(
          alice.received.filter((m) => m.from === NICK).map((m) => m.text),
          ["queued before we were registered", "marker"]
        )
      }).pipe(Effect.scoped)
  )

  it.live("flush returns once every queued line is written, and at once when nothing is queued", () =>
    Effect.gen(function* () {
      const { alice, transport } = yield* setup(["#dev"], { send_rate: 20, send_burst: 1 })
      // Nothing queued: nothing to wait for (a flush that waited here would never return).
      yield* transport.flush.pipe(
        Effect.timeoutOrElse({
          duration: "5 seconds",
          orElse: () => Effect.die(new Error("flush waited on an empty queue"))
        })
      )
      yield* transport.send("#dev", ["one", "two", "three", "four"].join("\n"))
      assert.isAbove(yield* transport.pending, 0)
      yield* transport.flush
      assert.strictEqual(yield* transport.pending, 0)
      yield* alice.waitForMessages((m) => m.from === NICK, 4, "the flushed lines")
    }).pipe(Effect.scoped)
  )

  it.live("a flush still waiting when quit gives up on the queue returns", () =>
    Effect.gen(function* () {
      const { transport } = yield* setup(["#dev"], { send_rate: 1, send_burst: 1 })
      yield* transport.send("#dev", Array.from({ length: 20 }, (_, i) => `line ${i}`).join("\n"))
      const flush = yield* Effect.forkChild(transport.flush)
      yield* transport.quit("no time to finish", { timeoutS: 0.2 })
      yield* Fiber.join(flush).pipe(
        Effect.timeoutOrElse({
          duration: "10 seconds",
          orElse: () => Effect.die(new Error("the flush never returned"))
        })
      )
      assert.isAbove(yield* transport.pending, 0)
    }).pipe(Effect.scoped)
  )

  it.live(
    "quit writes the queued lines first, sends QUIT with its message, and reports a disconnect with no retry",
    () =>
      Effect.gen(function* () {
        const { alice, transport, events } = yield* setup(["#dev"], { send_rate: 20, send_burst: 1 })
        yield* transport.send("#dev", ["last", "words"].join("\n"))
        yield* transport.quit("see you", { timeoutS: 60 }).pipe(
          Effect.timeoutOrElse({
            duration: "20 seconds",
            orElse: () => Effect.die(new Error("quit did not return once the server closed the connection"))
          })
        )
        yield* alice.waitForMessages((m) => m.from === NICK, 2, "the queued lines")
        assert.deepStrictEqual(
          alice.received.filter((m) => m.from === NICK).map((m) => m.text),
          ["last", "words"]
        )
        yield* alice.waitForPresence((line) => line.startsWith(`QUIT ${NICK}`), "our quit")
        assert.include(alice.presence.find((line) => line.startsWith(`QUIT ${NICK}`)) ?? "", "see you")
        const disconnected = yield* waitFor(events, is("Disconnected"), "the quit")
        assert.deepStrictEqual([disconnected.reason, disconnected.retryInMs], ["quit", undefined])
        assert.strictEqual(yield* transport.status, "closed")
      }).pipe(Effect.scoped)
  )

  it.live("quit while still connecting closes the socket: a quit disconnect and never a Connected", () =>
    Effect.gen(function* () {
      const server = yield* NgircdServer.start
      const transport = yield* IrcTransport.make({ host: server.host, port: server.port, nick: NICK })
      const events = yield* eventQueue(yield* transport.subscribe)
      assert.strictEqual(yield* transport.status, "connecting")
      yield* transport.quit("never mind")
      const { before } = yield* eventsUntil(events, is("Disconnected"), "the quit disconnect")
      assert.deepStrictEqual(before, [])
      assert.strictEqual(yield* transport.status, "closed")
    }).pipe(Effect.scoped)
  )

  it.live("the reconnect delay stops growing at reconnect_max_s and starts over after a reconnect", () =>
    Effect.gen(function* () {
      const { server, events, transport } = yield* setup(["#dev"], {
        reconnect_initial_s: 0.05,
        reconnect_max_s: 0.1,
        send_rate: 2,
        send_burst: 1
      })
      const delays = (count: number) =>
        Effect.gen(function* () {
          const seen: Array<[string, number | undefined]> = []
          yield* waitFor(
            events,
            (e): e is never => {
              if (e._tag === "Disconnected") seen.push([e.reason, e.retryInMs])
              return seen.length === count
            },
            `${count} disconnects`
          )
          return seen
        })
      // One line goes out, the other two wait for the next token when the server dies.
      yield* transport.send("#dev", ["one", "two", "three"].join("\n"))
      yield* server.kill
      const first = yield* delays(3)
      assert.deepStrictEqual(yield* transport.joined, [])
      assert.deepStrictEqual(
        first.map(([, delay]) => delay),
        [50, 100, 100]
      )
      // The crash closes the socket: without an error (FIN), or with ECONNRESET when the kernel resets it because the
      // dead server left our line unread (which one is up to timing). The retries that find no server carry the
      // socket's error.
      assert.match(first[0]?.[0] ?? "", /^connection closed$|ECONNRESET/)
      assert.include(first[1]?.[0], "ECONNREFUSED")
      yield* server.restart
      yield* waitFor(events, is("Connected"), "reconnect")
      // The lines left in the queue go out after the reconnect.
      yield* transport.flush.pipe(
        Effect.timeoutOrElse({
          duration: "20 seconds",
          orElse: () => Effect.die(new Error("the queue stalled after the reconnect"))
        })
      )
      yield* server.kill
      assert.deepStrictEqual((yield* delays(1))[0]?.[1], 50)
    }).pipe(Effect.scoped)
  )
})

/**
 * A one-client IRC server on a free port that welcomes the client as soon as it registers, then writes `lines`
 * (each without the CRLF); `received` holds the client's lines, and `waitForLine` waits for one.
 */
const scriptedServer = (lines: ReadonlyArray<string>) =>
  Effect.acquireRelease(
    Effect.callback<{
      readonly port: number
      readonly received: Array<string>
      readonly waitForLine: (predicate: (line: string) => boolean) => Promise<void>
      readonly close: () => void
    }>((resume) => {
      const sockets = new Set<Socket>()
      const received: Array<string> = []
      const waiters = new Set<() => void>()
      const server = createServer((socket) => {
        sockets.add(socket)
        onLines(socket, (line) => {
          received.push(line)
          if (line.startsWith("USER ")) {
            const nick = received.find((l) => l.startsWith("NICK "))?.slice(5) ?? NICK
            socket.write([`:fake.server 001 ${nick} :Welcome`, ...lines].map((l) => `${l}\r\n`).join(""))
          }
          for (const waiter of [...waiters]) waiter()
        })
      })
      const waitForLine = (predicate: (line: string) => boolean) =>
        new Promise<void>((resolve) => {
          const check = () => {
            if (received.some(predicate)) {
              waiters.delete(check)
              resolve()
            }
          }
          waiters.add(check)
          check()
        })
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        const port = typeof address === "object" && address !== null ? address.port : 0
        resume(
          Effect.succeed({
            port,
            received,
            waitForLine,
            close: () => {
              for (const socket of sockets) socket.destroy()
              server.close()
            }
          })
        )
      })
    }),
    ({ close }) => Effect.sync(close)
  )

describe("IrcTransport connection against a scripted server", () => {
  it.live("a PRIVMSG from the server itself is neither a mention nor ambient", () =>
    Effect.gen(function* () {
      const server = yield* scriptedServer([
        `:fake.server PRIVMSG #dev :@${NICK} the server speaking`,
        `:alice!alice@host PRIVMSG #dev :@${NICK} alice speaking`
      ])
      const transport = yield* IrcTransport.make({ host: "127.0.0.1", port: server.port, nick: NICK })
      const events = yield* eventQueue(yield* transport.subscribe)
      const first = yield* waitFor(
        events,
        (e): e is Extract<IrcEvent, { _tag: "Mention" | "Ambient" }> => e._tag === "Mention" || e._tag === "Ambient",
        "the first message"
      )
      assert.deepStrictEqual([first._tag, first.sender, first.text], ["Mention", "alice", `@${NICK} alice speaking`])
    }).pipe(Effect.scoped)
  )

  it.live("channels are joined in as few JOIN lines as hold 400 bytes of names, and no channels means no JOIN", () =>
    Effect.gen(function* () {
      const server = yield* scriptedServer([])
      const transport = yield* IrcTransport.make({ host: "127.0.0.1", port: server.port, nick: NICK, send_burst: 10 })
      const events = yield* eventQueue(yield* transport.subscribe)
      yield* waitFor(events, is("Connected"), "connect")
      // 17 names of 49 characters: with their commas, exactly 8 fill 400 bytes.
      const channels = Array.from({ length: 17 }, (_, i) => `#${String(i).padStart(2, "0")}${"x".repeat(46)}`)
      yield* transport.join(channels)
      yield* transport.send("#marker", "after the joins")
      yield* Effect.promise(() => server.waitForLine((line) => line.startsWith("PRIVMSG #marker")))
      assert.deepStrictEqual(
        server.received.filter((line) => line.startsWith("JOIN")),
        [`JOIN ${channels.slice(0, 8).join(",")}`, `JOIN ${channels.slice(8, 16).join(",")}`, `JOIN ${channels[16]}`]
      )
    }).pipe(Effect.scoped)
  )
})
