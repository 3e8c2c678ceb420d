import { assert, describe, it } from "@effect/vitest"
import { AttentionConfig, Scheduler } from "@heed/attention-bands"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as AttentionWiring from "../src/AttentionWiring.ts"
import * as IrcTransport from "../src/IrcTransport.ts"
import * as NgircdServer from "../src/NgircdServer.ts"
import { eventQueue, is, NICK, rawClient, skipIrc, skipTls, transportWithAlice, waitFor } from "./helpers.ts"

// One server, our transport in #dev and #quiet, and alice (a raw socket) in both; the send queue barely paced.
const setup = (channels = ["#dev", "#quiet"], pacing = { send_rate: 50, send_burst: 50 }) =>
  transportWithAlice(channels, pacing)

describe.skipIf(skipIrc)("IrcTransport against ngircd", () => {
  it.live("a channel message that does not name us is ambient", () =>
    Effect.gen(function* () {
      const { alice, events } = yield* setup()
      yield* alice.say("#dev", "anyone seen the build logs?")
      const event = yield* waitFor(events, is("Ambient"), "ambient")
      assert.deepStrictEqual([event.target, event.sender, event.text], ["#dev", "alice", "anyone seen the build logs?"])
    }).pipe(Effect.scoped)
  )

  it.live("@fullnick and @short are mentions only, never ambient as well, and in a channel never a DM", () =>
    Effect.gen(function* () {
      const { alice, events } = yield* setup()
      yield* alice.say("#dev", "@thor-claude can you look?")
      yield* alice.say("#dev", "ping @claude, please")
      yield* alice.say("#dev", "marker")
      const seen: Array<string> = []
      yield* waitFor(
        events,
        (e): e is never => {
          if (e._tag === "Mention") seen.push(`Mention${e.dm ? " (DM)" : ""}:${e.text}`)
          if (e._tag === "Ambient") seen.push(`Ambient:${e.text}`)
          return e._tag === "Ambient" && e.text === "marker"
        },
        "marker"
      )
      assert.deepStrictEqual(seen, [
        "Mention:@thor-claude can you look?",
        "Mention:ping @claude, please",
        "Ambient:marker"
      ])
    }).pipe(Effect.scoped)
  )

  it.live("a DM is a mention keyed DM:<peer> and never ambient", () =>
    Effect.gen(function* () {
      const { alice, events } = yield* setup()
      yield* alice.say(NICK, "private question")
      yield* alice.say("#dev", "marker")
      const first = yield* waitFor(
        events,
        (e): e is IrcEventOf<"Mention" | "Ambient"> => e._tag === "Mention" || e._tag === "Ambient",
        "dm"
      )
      assert.strictEqual(first._tag, "Mention")
      assert.strictEqual(first.target, "DM:alice")
      assert.isTrue(first._tag === "Mention" && first.dm)
      const second = yield* waitFor(events, is("Ambient"), "marker")
      assert.strictEqual(second.text, "marker")
    }).pipe(Effect.scoped)
  )

  it.live("messages from system-* users are dropped", () =>
    Effect.gen(function* () {
      const { server, events } = yield* setup(["#dev"])
      const system = yield* rawClient(server.port, "system-thor", ["#dev"])
      yield* system.say("#dev", "@thor-claude server restarting")
      yield* system.say("#dev", "user joined")
      const alice2 = yield* rawClient(server.port, "bob", ["#dev"])
      yield* alice2.say("#dev", "marker")
      const first = yield* waitFor(
        events,
        (e): e is IrcEventOf<"Mention" | "Ambient"> => e._tag === "Mention" || e._tag === "Ambient",
        "marker"
      )
      assert.deepStrictEqual([first._tag, first.sender, first.text], ["Ambient", "bob", "marker"])
    }).pipe(Effect.scoped)
  )

  it.live("send fires one outgoing event per line written, and the channel receives every line", () =>
    Effect.gen(function* () {
      const { alice, events, transport } = yield* setup()
      const lines = yield* transport.send("#dev", "first line\nsecond line\n\nthird line")
      assert.deepStrictEqual(lines, ["first line", "second line", "third line"])
      const outgoing: Array<string> = []
      for (let i = 0; i < 3; i++) outgoing.push((yield* waitFor(events, is("Outgoing"), `outgoing ${i}`)).line)
      assert.deepStrictEqual(outgoing, ["first line", "second line", "third line"])
      yield* alice.waitForMessages((m) => m.from === NICK, 3, "three lines")
      assert.deepStrictEqual(
        alice.received.filter((m) => m.from === NICK).map((m) => m.text),
        ["first line", "second line", "third line"]
      )
    }).pipe(Effect.scoped)
  )

  it.live("a long text is cut into lines that each fit IRC's limit and arrive whole", () =>
    Effect.gen(function* () {
      const { alice, transport } = yield* setup(["#dev"])
      const text = Array.from({ length: 300 }, (_, i) => `word${i}`).join(" ")
      const lines = yield* transport.send("#dev", text)
      assert.isAbove(lines.length, 1)
      assert.strictEqual(lines.join(" "), text)
      yield* alice.waitForMessages((m) => m.from === NICK, lines.length, "all pieces")
      assert.strictEqual(
        alice.received
          .filter((m) => m.from === NICK)
          .map((m) => m.text)
          .join(" "),
        text
      )
    }).pipe(Effect.scoped)
  )

  it.live("thread replies carry the prefix, fire outgoing with the thread, and open the thread window", () =>
    Effect.gen(function* () {
      const { alice, events, transport } = yield* setup()
      const scheduler = yield* Scheduler.make({
        config: AttentionConfig.defaults,
        agent: NICK,
        targets: ["#dev", "#quiet"],
        poll: () => Effect.succeed("empty" as const)
      })
      yield* AttentionWiring.make(transport, scheduler)
      // Without engagement, ambient traffic does not warm a channel.
      yield* alice.say("#quiet", "idle chatter")
      yield* alice.say("#dev", "before we spoke")
      yield* waitFor(
        events,
        is("Ambient", (e) => e.text === "before we spoke"),
        "ambient before"
      )
      yield* transport.send("#dev", "on it", { thread: "build-fix" })
      const outgoing = yield* waitFor(events, is("Outgoing"), "thread outgoing")
      assert.deepStrictEqual([outgoing.target, outgoing.thread, outgoing.line], ["#dev", "build-fix", "on it"])
      yield* alice.waitForMessages((m) => m.from === NICK, 1, "thread reply")
      assert.strictEqual(alice.received.find((m) => m.from === NICK)?.text, "[thread:build-fix] on it")
      yield* alice.say("#dev", "[thread:build-fix] thanks")
      const ambient = yield* waitFor(
        events,
        is("Ambient", (e) => e.text === "thanks"),
        "thread ambient"
      )
      assert.strictEqual(ambient.thread, "build-fix")
      const bandOf = (target: string) =>
        Effect.map(scheduler.get(target), (state) => Option.getOrUndefined(state)?.band)
      // The wiring handles events in its own fiber: wait until it has seen the ambient line.
      yield* Effect.repeat(bandOf("#dev"), { until: (band) => band === "COOL" }).pipe(Effect.timeout("10 seconds"))
      assert.strictEqual(yield* bandOf("#dev"), "COOL")
      assert.strictEqual(yield* bandOf("#quiet"), "IDLE")
    }).pipe(Effect.scoped)
  )

  it.live("targets take turns in the send queue: a long reply to one channel does not hold up a line to another", () =>
    Effect.gen(function* () {
      // One line at once, then 20 a second: the queue is what decides the order.
      const { alice, transport } = yield* setup(["#dev", "#quiet"], { send_rate: 20, send_burst: 1 })
      const long = Array.from({ length: 10 }, (_, i) => `part ${i + 1} of the long answer`)
      yield* transport.send("#dev", long.join("\n"))
      yield* transport.send("#quiet", "short answer")
      yield* alice.waitForMessages((m) => m.from === NICK, 11, "every line")
      const sent = alice.received.filter((m) => m.from === NICK)
      // At most the line on the wire and the one whose turn came first go before it, never the whole answer.
      assert.isAtMost(
        sent.findIndex((m) => m.target === "#quiet"),
        2
      )
      assert.deepStrictEqual(
        sent.filter((m) => m.target === "#dev").map((m) => m.text),
        long
      )
    }).pipe(Effect.scoped)
  )

  it.live(
    "reconnects with doubling backoff after a crash, rejoins, and sends lines queued while down exactly once",
    () =>
      Effect.gen(function* () {
        const { server, events, transport } = yield* setup(["#dev"])
        yield* server.kill
        // The first retry comes after 1 s, then 2 s, then 4 s while the server stays down.
        const delays: Array<number | undefined> = []
        yield* waitFor(
          events,
          (e): e is never => {
            if (e._tag === "Disconnected") delays.push(e.retryInMs)
            return delays.length === 3
          },
          "three failed connection attempts",
          30
        )
        assert.deepStrictEqual(delays, [1000, 2000, 4000])
        assert.strictEqual(yield* transport.status, "disconnected")
        yield* transport.send("#dev", "queued while down 1\nqueued while down 2")
        assert.strictEqual(yield* transport.pending, 2)
        // The server comes back and dave is in #dev before our 4 s retry.
        yield* server.restart
        const dave = yield* rawClient(server.port, "dave", ["#dev"])
        const connected = yield* waitFor(events, is("Connected"), "reconnect", 30)
        assert.strictEqual(connected.reconnects, 3)
        yield* waitFor(
          events,
          is("Joined", (e) => e.channel === "#dev"),
          "rejoin"
        )
        yield* dave.waitForMessages((m) => m.from === NICK, 2, "the queued lines")
        yield* transport.send("#dev", "after the reconnect")
        yield* dave.say("#dev", "@thor-claude still there?")
        const mention = yield* waitFor(events, is("Mention"), "mention after reconnect")
        assert.strictEqual(mention.sender, "dave")
        yield* dave.waitForMessages((m) => m.from === NICK, 3, "the line after the reconnect")
        assert.strictEqual(yield* transport.pending, 0)
        assert.deepStrictEqual(
          dave.received.filter((m) => m.from === NICK).map((m) => m.text),
          ["queued while down 1", "queued while down 2", "after the reconnect"]
        )
      }).pipe(Effect.scoped)
  )

  it.live("joining 200 channels goes through the paced queue without a flood disconnect", () =>
    Effect.gen(function* () {
      const server = yield* NgircdServer.start
      const transport = yield* IrcTransport.make({ host: server.host, port: server.port, nick: NICK })
      const events = yield* eventQueue(yield* transport.subscribe)
      yield* waitFor(events, is("Connected"), "connect")
      const channels = Array.from({ length: 200 }, (_, i) => `#load-${i}`)
      yield* transport.join(channels)
      const joined = new Set<string>()
      let disconnects = 0
      yield* waitFor(
        events,
        (e): e is never => {
          if (e._tag === "Joined") joined.add(e.channel)
          if (e._tag === "Disconnected") disconnects++
          return joined.size === 200
        },
        "200 joins",
        60
      )
      assert.strictEqual(disconnects, 0)
      assert.strictEqual((yield* transport.joined).length, 200)
      assert.strictEqual(yield* transport.status, "connected")
      // Still usable: a message to the last channel goes out.
      const bob = yield* rawClient(server.port, "bob", ["#load-199"])
      yield* transport.send("#load-199", "hello from the far end")
      yield* bob.waitForMessages((m) => m.from === NICK, 1, "message after 200 joins")
    }).pipe(Effect.scoped)
  )
})

describe.skipIf(skipTls)("IrcTransport over TLS against ngircd", () => {
  it.live("connects over TLS trusting the server's CA file, and talks with a plain-text user in the channel", () =>
    Effect.gen(function* () {
      const server = yield* NgircdServer.startWith({ tls: true })
      const tls = server.tls!
      const alice = yield* rawClient(server.port, "alice", ["#dev"])
      const transport = yield* IrcTransport.make({
        host: server.host,
        port: tls.port,
        tls: true,
        tls_ca_file: tls.caFile,
        nick: NICK,
        channels: ["#dev"]
      })
      const events = yield* eventQueue(yield* transport.subscribe)
      yield* waitFor(events, is("Joined"), "join over TLS")
      yield* alice.say("#dev", "@thor-claude is this encrypted?")
      const mention = yield* waitFor(events, is("Mention"), "mention over TLS")
      assert.strictEqual(mention.text, "@thor-claude is this encrypted?")
      yield* transport.send("#dev", "end to server, yes")
      yield* alice.waitForMessages((m) => m.from === NICK, 1, "the reply over TLS")
      assert.strictEqual(alice.received.find((m) => m.from === NICK)?.text, "end to server, yes")
    }).pipe(Effect.scoped)
  )

  it.live("refuses a certificate it cannot verify and keeps retrying; tls_insecure skips the check", () =>
    Effect.gen(function* () {
      const server = yield* NgircdServer.startWith({ tls: true })
      const tls = { host: server.host, port: server.tls!.port, tls: true }
      const strict = yield* IrcTransport.make({ ...tls, nick: "strict-bot", reconnect_initial_s: 30 })
      const strictEvents = yield* eventQueue(yield* strict.subscribe)
      const refused = yield* waitFor(strictEvents, is("Disconnected"), "the refused handshake")
      assert.include(refused.reason, "self-signed certificate")
      assert.strictEqual(refused.retryInMs, 30_000)
      assert.strictEqual(yield* strict.status, "disconnected")
      const insecure = yield* IrcTransport.make({ ...tls, nick: "lax-bot", tls_insecure: true })
      const insecureEvents = yield* eventQueue(yield* insecure.subscribe)
      const connected = yield* waitFor(insecureEvents, is("Connected"), "the unchecked connection")
      assert.strictEqual(connected.nick, "lax-bot")
    }).pipe(Effect.scoped)
  )
})

describe("IrcTransport settings", () => {
  it.effect(
    "TLS settings without tls: true, and a CA file that is missing or holds no certificate, name the field",
    () =>
      Effect.gen(function* () {
        const base = { host: "127.0.0.1", nick: NICK }
        const make = (config: Parameters<typeof IrcTransport.make>[0]) =>
          Effect.flip(Effect.scoped(IrcTransport.make(config)))
        const notTls = yield* make({ ...base, tls_ca_file: "ca.pem" })
        assert.deepStrictEqual(
          [notTls.field, notTls.message],
          ["tls_ca_file", "tls_ca_file applies to TLS connections only: set tls: true as well"]
        )
        assert.strictEqual((yield* make({ ...base, tls_insecure: true })).field, "tls_insecure")
        const missing = yield* make({ ...base, tls: true, tls_ca_file: "/no/such/ca.pem" })
        assert.strictEqual(missing.field, "tls_ca_file")
        assert.include(missing.message, "cannot read /no/such/ca.pem")
        const notPem = yield* make({ ...base, tls: true, tls_ca_file: import.meta.filename })
        assert.strictEqual(notPem.message, `${import.meta.filename} holds no PEM certificate`)
      })
  )
})

type IrcEventOf<T extends import("../src/IrcEvent.ts").IrcEvent["_tag"]> = Extract<
  import("../src/IrcEvent.ts").IrcEvent,
  { _tag: T }
>
