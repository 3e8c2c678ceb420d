import { assert, describe, it } from "@effect/vitest"
import { NgircdServer } from "@heed/irc"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Control from "../src/Control.ts"
import { fastAttention, NICK, nextTurn, person, skipIrc, startAgent, waitForAgentIn, waitForState } from "./harness.ts"

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

  it.live("a paused agent still goes HOT on a mention but sends no prompt until resumed", () =>
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
      yield* alice.say("#dev", "@bot now awake?")
      const turn = yield* nextTurn(turns, () => true, "the first turn")
      assert.include(turn.prompt, "now awake?")
      yield* alice.waitForMessages((m) => m.from === NICK, 1, "one reply")
      assert.strictEqual(alice.received.filter((m) => m.from === NICK).length, 1)
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

  it.live("a failing runner for one channel does not stop the polls and replies of the others", () =>
    Effect.gen(function* () {
      const server = yield* NgircdServer.start
      const alice = yield* person(server, "alice", ["#bad", "#good"])
      const { turns } = yield* startAgent(server, {
        channels: ["#bad", "#good"],
        attention: fastAttention(),
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
      assert.deepStrictEqual(failed.outcome, { _tag: "Failed", error: "sh exited with 3: model crashed" })
      yield* alice.waitForMessages((m) => m.from === NICK && m.target === "#good", 1, "#good reply")
      yield* alice.say("#bad", "still broken?")
      yield* alice.say("#good", "and again")
      yield* nextTurn(turns, (t) => t.target === "#bad", "the second #bad poll")
      yield* alice.waitForMessages((m) => m.from === NICK && m.target === "#good", 2, "second #good reply")
      assert.isFalse(alice.received.some((m) => m.from === NICK && m.target === "#bad"))
    }).pipe(Effect.scoped)
  )
})
