import { assert, describe, it } from "@effect/vitest"
import { IrcTestClient, NgircdServer } from "@heed/irc"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { NICK, skipIrc, startAgent } from "./harness.ts"

// Bounded load: 200 channels, 20 people (10 channels each, plus everyone in #load-0), 250 messages each = 5,000
// messages, one in 50 a mention with a unique id. The runner answers mentions only ("re <id>").
const CHANNELS = 200
const CLIENTS = 20
const PER_CLIENT = 250
const channel = (i: number) => `#load-${i}`
const answerMentions = "sed -n 's/^\\[IRC @mention in [^]]*\\] <[^>]*> @bot \\(m-[0-9a-z-]*\\).*/re \\1/p'"

describe.skipIf(skipIrc)("load (bounded)", () => {
  it.live(
    "200 channels, 5,000 messages from 20 clients: every mention answered exactly once, no flood disconnect",
    () =>
      Effect.gen(function* () {
        const server = yield* NgircdServer.start
        const clients = yield* Effect.forEach(
          Array.from({ length: CLIENTS }, (_, c) => c),
          (c) =>
            IrcTestClient.rawClient(server.port, `person${c}`, [
              ...new Set([channel(0), ...Array.from({ length: CHANNELS / CLIENTS }, (_, k) => channel(c * 10 + k))])
            ]),
          { concurrency: 5 }
        )
        const before = process.memoryUsage()
        const { agent } = yield* startAgent(server, {
          channels: Array.from({ length: CHANNELS }, (_, i) => channel(i)),
          runner: { type: "command", command: answerMentions, context: "prompt" },
          send: { rate: 2, burst: 5 }
        })
        const events = yield* agent.transport.subscribe
        let disconnects = 0
        yield* events.pipe(
          Stream.runForEach((event) =>
            Effect.sync(() => {
              if (event._tag === "Disconnected") disconnects++
            })
          ),
          Effect.forkScoped
        )
        yield* Effect.forEach(clients, (client) =>
          client.waitForPresence((line) => line === `JOIN ${NICK} ${channel(0)}`, "the agent")
        )
        // Everyone sends at once; ngircd paces each sender (about 3 lines a second).
        const mentions: Array<string> = []
        yield* Effect.forEach(clients, (client, c) =>
          Effect.forEach(
            Array.from({ length: PER_CLIENT }, (_, n) => n),
            (n) => {
              const target = channel(c * 10 + (n % 10))
              if (n % 50 !== 49) return client.say(target, `chatter ${c}-${n} about the weather`)
              const id = `m-${c}-${n}`
              mentions.push(id)
              return client.say(target, `@bot ${id} please answer`)
            }
          )
        )
        const replies = () => clients.flatMap((client) => client.received.filter((m) => m.from === NICK))
        const answered = () => new Set(replies().map((m) => m.text.replace(/^re /, "")))
        yield* Effect.forEach(clients, (client, c) =>
          client.waitForMessages(
            (m) => m.from === NICK,
            mentions.filter((id) => id.startsWith(`m-${c}-`)).length,
            `the answers to person${c}`,
            240
          )
        )
        // A last mention everyone sees: when it arrives, every earlier reply (and any duplicate) has arrived too.
        yield* clients[0]!.say(channel(0), "@bot m-final please answer")
        yield* Effect.forEach(clients, (client) =>
          client.waitForMessages((m) => m.from === NICK && m.text === "re m-final", 1, "the final answer")
        )
        const counts = new Map<string, number>()
        for (const client of clients) {
          for (const m of client.received)
            if (m.from === NICK && m.target !== channel(0)) counts.set(m.text, (counts.get(m.text) ?? 0) + 1)
        }
        assert.strictEqual(mentions.length, 100)
        assert.deepStrictEqual([...answered()].filter((id) => id !== "m-final").sort(), [...mentions].sort())
        assert.isTrue(
          [...counts.values()].every((count) => count === 1),
          "no mention was answered twice"
        )
        assert.strictEqual(disconnects, 0)
        assert.strictEqual(yield* agent.transport.status, "connected")
        const after = process.memoryUsage()
        console.log(
          `load: ${CLIENTS * PER_CLIENT} messages in ${CHANNELS} channels, ${mentions.length} mentions answered once; ` +
            `memory after the run: rss ${(after.rss / 2 ** 20).toFixed(0)} MiB, heap ${(after.heapUsed / 2 ** 20).toFixed(0)} MiB ` +
            `(heap +${((after.heapUsed - before.heapUsed) / 2 ** 20).toFixed(1)} MiB over the run)`
        )
      }).pipe(Effect.scoped),
    300_000
  )
})
