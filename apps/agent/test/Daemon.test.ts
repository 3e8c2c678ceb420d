import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { NgircdServer } from "@heed/irc"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as Control from "../src/Control.ts"
import {
  fastAttention,
  NICK,
  nextTurn,
  person,
  skipIrc,
  skipTls,
  startAgent,
  stateDir,
  waitForAgentIn,
  waitForState
} from "./harness.ts"

const reply = (text: string) => ({ type: "command", command: ["printf", text], context: "prompt" })

describe.skipIf(skipIrc)("heed-agent daemon against ngircd (sub-second bands)", () => {
  it.live("a mention makes the channel HOT and the runner's reply arrives in the channel", () =>
    Effect.gen(function* () {
      const server = yield* NgircdServer.start
      const alice = yield* person(server, "alice", ["#dev"])
      const { agent } = yield* startAgent(server, {
        channels: ["#dev"],
        attention: fastAttention(),
        runner: reply("on it")
      })
      yield* waitForAgentIn(alice, ["#dev"])
      yield* alice.say("#dev", "@bot could you check the build?")
      yield* alice.waitForMessages((m) => m.from === NICK, 1, "the reply")
      assert.deepStrictEqual(
        alice.received.filter((m) => m.from === NICK).map((m) => [m.target, m.text]),
        [["#dev", "on it"]]
      )
      const state = yield* waitForState(agent, "#dev", () => true, "#dev tracked")
      assert.strictEqual(state.band, "HOT")
    }).pipe(Effect.scoped)
  )

  it.live("two channels diverge (the mentioned one HOT, the quiet one IDLE) and a pinned channel keeps its band", () =>
    Effect.gen(function* () {
      const server = yield* NgircdServer.start
      const channels = ["#general", "#quiet", "#ops"]
      const alice = yield* person(server, "alice", channels)
      const { agent } = yield* startAgent(server, {
        channels,
        attention: { ...fastAttention(), pinned: { "#ops": "WARM" } },
        runner: reply("hi")
      })
      yield* waitForAgentIn(alice, channels)
      yield* alice.say("#general", "@spark-bot hello")
      yield* alice.say("#ops", "@spark-bot deploy done?")
      yield* waitForState(agent, "#general", (s) => s.band === "HOT", "#general HOT")
      // #quiet has been polled (it was seeded) and never stimulated.
      const quiet = yield* waitForState(agent, "#quiet", (s) => Option.isSome(s.lastPollAt), "#quiet polled")
      assert.strictEqual(quiet.band, "IDLE")
      assert.strictEqual((yield* waitForState(agent, "#general", () => true, "#general")).band, "HOT")
      // The pin fixes #ops' polling rate; its mention was still answered directly.
      yield* alice.waitForMessages((m) => m.from === NICK && m.target === "#ops", 1, "the #ops reply")
      const ops = yield* waitForState(agent, "#ops", () => true, "#ops")
      assert.deepStrictEqual([ops.band, ops.pinned], ["WARM", true])
    }).pipe(Effect.scoped)
  )

  it.live("after the HOT hold the channel takes exactly one decay step, at exactly the hold", () =>
    Effect.gen(function* () {
      const server = yield* NgircdServer.start
      const alice = yield* person(server, "alice", ["#dev"])
      const hold = 0.5
      const { agent } = yield* startAgent(server, {
        channels: ["#dev"],
        attention: fastAttention({ hot: hold, warm: 600 }),
        runner: reply("ok")
      })
      yield* waitForAgentIn(alice, ["#dev"])
      yield* alice.say("#dev", "@bot ping")
      const hot = yield* waitForState(agent, "#dev", (s) => s.band === "HOT", "HOT")
      const warm = yield* waitForState(agent, "#dev", (s) => s.band !== "HOT", "the first decay")
      assert.strictEqual(warm.band, "WARM")
      // culture's stepping: the new hold starts exactly one HOT hold after the stimulus (not at the tick).
      assert.closeTo(warm.lastPromoteAt - hot.lastPromoteAt, hold, 1e-9)
      assert.strictEqual(warm.lastStimulusAt, hot.lastStimulusAt)
    }).pipe(Effect.scoped)
  )

  it.live(
    "a paused agent still goes HOT on a mention, sends no prompt, and the first poll after resume carries it",
    () =>
      Effect.gen(function* () {
        const server = yield* NgircdServer.start
        const alice = yield* person(server, "alice", ["#dev"])
        const { agent, turns } = yield* startAgent(server, {
          channels: ["#dev"],
          attention: fastAttention(),
          runner: reply("answer")
        })
        yield* waitForAgentIn(alice, ["#dev"])
        const paused = yield* Control.request(agent.socket, { op: "pause" })
        assert.strictEqual((paused as { paused: boolean }).paused, true)
        yield* alice.say("#dev", "@bot while you sleep")
        yield* waitForState(agent, "#dev", (s) => s.band === "HOT", "HOT while paused")
        yield* Control.request(agent.socket, { op: "resume" })
        // No direct prompt went out while paused; the mention waited unread for the next poll.
        const turn = yield* nextTurn(turns, () => true, "the first turn")
        assert.strictEqual(turn.kind, "poll")
        assert.include(turn.prompt, "[IRC Channel Poll: #dev] Recent unread messages:\n  <alice> @bot while you sleep")
        yield* alice.waitForMessages((m) => m.from === NICK, 1, "one reply")
        assert.deepStrictEqual(
          alice.received.filter((m) => m.from === NICK).map((m) => m.text),
          ["answer"]
        )
      }).pipe(Effect.scoped)
  )

  it.live("attention --band COOL --ttl holds the band through the TTL, then decays normally", () =>
    Effect.gen(function* () {
      const server = yield* NgircdServer.start
      const alice = yield* person(server, "alice", ["#dev"])
      const coolHold = 0.3
      const { agent } = yield* startAgent(server, {
        channels: ["#dev"],
        attention: fastAttention({ cool: coolHold }),
        runner: reply("ok")
      })
      yield* waitForAgentIn(alice, ["#dev"])
      const set = (yield* Control.request(agent.socket, {
        op: "set_attention",
        target: "#dev",
        band: "COOL",
        ttl_s: 2
      })) as { band: string; manual_ttl_s: number }
      assert.strictEqual(set.band, "COOL")
      assert.isAbove(set.manual_ttl_s, 0)
      const held = yield* waitForState(agent, "#dev", (s) => Option.isSome(s.manualUntil), "manual hold")
      const until = Option.getOrThrow(held.manualUntil)
      const idle = yield* waitForState(agent, "#dev", (s) => s.band !== "COOL", "decay after the TTL")
      assert.strictEqual(idle.band, "IDLE")
      // The hold restarted at the TTL's end, so COOL lasted the TTL plus one COOL hold.
      assert.closeTo(idle.lastPromoteAt, until + coolHold, 1e-9)
      const shown = (yield* Control.request(agent.socket, { op: "get_attention", target: "#dev" })) as {
        manual_ttl_s: number | null
      }
      assert.isNull(shown.manual_ttl_s)
      const refused = yield* Effect.flip(
        Control.request(agent.socket, { op: "set_attention", target: "#dev", band: "HOT", ttl_s: -1 })
      )
      assert.include(refused.message, "ttl_s")
    }).pipe(Effect.scoped)
  )

  it.live("a failing runner for one channel does not stop the others, and its messages wait for a later poll", () =>
    Effect.gen(function* () {
      const server = yield* NgircdServer.start
      const alice = yield* person(server, "alice", ["#bad", "#good"])
      const { turns } = yield* startAgent(server, {
        channels: ["#bad", "#good"],
        attention: fastAttention(),
        retry: { attempts: 1 },
        runner: {
          type: "command",
          command: 'if [ "$HEED_AGENT_TARGET" = "#bad" ]; then echo "model crashed" >&2; exit 3; fi; echo "fine here"',
          context: "prompt"
        }
      })
      yield* waitForAgentIn(alice, ["#bad", "#good"])
      yield* alice.say("#bad", "anything new?")
      yield* alice.say("#good", "anything new?")
      const failed = yield* nextTurn(turns, (t) => t.target === "#bad", "the #bad poll")
      assert.strictEqual(failed.kind, "poll")
      assert.deepStrictEqual(
        [failed.outcome, failed.attempts],
        [{ _tag: "Failed", error: "sh exited with 3: model crashed" }, 1]
      )
      yield* alice.waitForMessages((m) => m.from === NICK && m.target === "#good", 1, "#good reply")
      // The failed poll lost nothing: the next #bad poll carries the same message again.
      const again = yield* nextTurn(turns, (t) => t.target === "#bad", "the next #bad poll")
      assert.include(again.prompt, "[IRC Channel Poll: #bad] Recent unread messages:\n  <alice> anything new?")
      yield* alice.say("#good", "and again")
      yield* alice.waitForMessages((m) => m.from === NICK && m.target === "#good", 2, "second #good reply")
      assert.isFalse(alice.received.some((m) => m.from === NICK && m.target === "#bad"))
    }).pipe(Effect.scoped)
  )

  it.live("a runner that fails once is retried after the backoff, and its reply settles the messages", () =>
    Effect.gen(function* () {
      const server = yield* NgircdServer.start
      const alice = yield* person(server, "alice", ["#dev"])
      const marker = join(stateDir(), "failed-once")
      const { turns } = yield* startAgent(server, {
        channels: ["#dev"],
        attention: fastAttention(),
        retry: { attempts: 3, backoff_s: 0.05 },
        runner: {
          type: "command",
          command: `if [ -e ${marker} ]; then echo recovered; else touch ${marker}; echo "overloaded" >&2; exit 1; fi`,
          context: "prompt"
        }
      })
      yield* waitForAgentIn(alice, ["#dev"])
      yield* alice.say("#dev", "deploy finished")
      const turn = yield* nextTurn(turns, () => true, "the poll")
      assert.deepStrictEqual([turn.kind, turn.attempts, turn.outcome], ["poll", 2, { _tag: "Replied", lines: 1 }])
      assert.include(turn.prompt, "<alice> deploy finished")
      yield* alice.waitForMessages((m) => m.from === NICK, 1, "the reply")
      // Settled: the next poll carries only what came after.
      yield* alice.say("#dev", "and the tests are green")
      const next = yield* nextTurn(turns, () => true, "the next poll")
      assert.include(next.prompt, "<alice> and the tests are green")
      assert.notInclude(next.prompt, "deploy finished")
    }).pipe(Effect.scoped)
  )

  it.live("a mention whose runner fails every attempt is counted, kept, and answered by the next poll", () =>
    Effect.gen(function* () {
      const server = yield* NgircdServer.start
      const alice = yield* person(server, "alice", ["#dev"])
      const count = join(stateDir(), "calls")
      const failures = () =>
        Effect.map(Metric.snapshot, (snapshot) =>
          snapshot
            .filter((entry) => entry.id === "heed.agent.runner_failures")
            .reduce((sum, entry) => sum + Number((entry.state as { count?: number }).count ?? 0), 0)
        )
      const before = yield* failures()
      const { turns } = yield* startAgent(server, {
        channels: ["#dev"],
        attention: fastAttention(),
        retry: { attempts: 2, backoff_s: 0.05 },
        runner: {
          type: "command",
          // The first two calls fail; from the third on it answers.
          command: `n=$(( $(cat ${count} 2>/dev/null || echo 0) + 1 )); echo $n > ${count}; [ $n -gt 2 ] || { echo "busy $n" >&2; exit 1; }; echo "got it"`,
          context: "prompt"
        }
      })
      yield* waitForAgentIn(alice, ["#dev"])
      yield* alice.say("#dev", "@bot rotate the keys")
      const failed = yield* nextTurn(turns, () => true, "the mention")
      assert.deepStrictEqual(
        [failed.kind, failed.attempts, failed.outcome],
        ["mention", 2, { _tag: "Failed", error: "sh exited with 1: busy 2" }]
      )
      assert.strictEqual((yield* failures()) - before, 1)
      const retried = yield* nextTurn(turns, () => true, "the poll after the failure")
      assert.deepStrictEqual([retried.kind, retried.outcome], ["poll", { _tag: "Replied", lines: 1 }])
      assert.include(retried.prompt, "<alice> @bot rotate the keys")
      yield* alice.waitForMessages((m) => m.from === NICK, 1, "the answer")
      assert.strictEqual(alice.received.find((m) => m.from === NICK)?.text, "got it")
    }).pipe(Effect.scoped)
  )

  it.live("a poll gives each thread of a channel its own prompt, and each reply goes where its messages were", () =>
    Effect.gen(function* () {
      const server = yield* NgircdServer.start
      const alice = yield* person(server, "alice", ["#dev"])
      const { turns } = yield* startAgent(server, {
        channels: ["#dev"],
        attention: fastAttention(),
        runner: reply("seen")
      })
      yield* waitForAgentIn(alice, ["#dev"])
      yield* alice.say("#dev", "[thread:deploy] rollout at 3pm")
      yield* alice.say("#dev", "coffee anyone?")
      const first = yield* nextTurn(turns, () => true, "a poll")
      const second = yield* nextTurn(turns, (t) => t.thread !== first.thread, "the other poll")
      const [thread, main] = first.thread === "deploy" ? [first, second] : [second, first]
      assert.deepStrictEqual(
        [thread.kind, thread.thread, main.kind, main.thread],
        ["poll", "deploy", "poll", undefined]
      )
      assert.strictEqual(
        thread.prompt,
        "[IRC Channel Poll: #dev thread:deploy] Recent unread messages:\n  <alice> rollout at 3pm\n" +
          "Respond naturally if any messages need your attention."
      )
      assert.include(main.prompt, "[IRC Channel Poll: #dev] Recent unread messages:\n  <alice> coffee anyone?\n")
      assert.notInclude(main.prompt, "rollout")
      yield* alice.waitForMessages((m) => m.from === NICK, 2, "both replies")
      assert.deepStrictEqual(
        alice.received
          .filter((m) => m.from === NICK)
          .map((m) => m.text)
          .sort(),
        ["[thread:deploy] seen", "seen"]
      )
    }).pipe(Effect.scoped)
  )
})

describe.skipIf(skipTls)("heed-agent daemon against ngircd over TLS", () => {
  it.live("over TLS (server.tls with the server's CA in tls_ca_file) a mention is answered as over plain text", () =>
    Effect.gen(function* () {
      const server = yield* NgircdServer.startWith({ tls: true })
      const alice = yield* person(server, "alice", ["#dev"])
      const { agent } = yield* startAgent(server, {
        server: { host: server.host, port: server.tls!.port, tls: true, tls_ca_file: server.tls!.caFile, nick: NICK },
        channels: ["#dev"],
        attention: fastAttention(),
        runner: reply("secure hello")
      })
      yield* waitForAgentIn(alice, ["#dev"])
      yield* alice.say("#dev", "@bot are you there?")
      yield* alice.waitForMessages((m) => m.from === NICK, 1, "the reply")
      assert.strictEqual(alice.received.find((m) => m.from === NICK)?.text, "secure hello")
      assert.strictEqual(yield* agent.transport.status, "connected")
    }).pipe(Effect.scoped)
  )
})
