import { readFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { NgircdServer } from "@heed/irc"
import * as Effect from "effect/Effect"
import { fastAttention, nextTurn, person, skipIrc, startAgent, stateDir, waitForAgentIn } from "./harness.ts"

describe.skipIf(skipIrc)("agent retries", () => {
  it.live("without retry.attempts a failing runner is tried 3 times before the turn fails", () =>
    Effect.gen(function* () {
      const server = yield* NgircdServer.start
      const alice = yield* person(server, "alice", ["#dev"])
      const calls = join(stateDir(), "calls")
      const { turns } = yield* startAgent(server, {
        channels: ["#dev"],
        attention: fastAttention(),
        // only the backoff is set (short, so the test is quick): the number of attempts is the default
        retry: { backoff_s: 0.05 },
        runner: { type: "command", command: `echo call >> ${calls}; echo "overloaded" >&2; exit 1`, context: "prompt" }
      })
      yield* waitForAgentIn(alice, ["#dev"])
      yield* alice.say("#dev", "deploy finished")
      const failed = yield* nextTurn(turns, () => true, "the failed poll")
      assert.deepStrictEqual(
        [failed.kind, failed.attempts, failed.outcome],
        ["poll", 3, { _tag: "Failed", error: "sh exited with 1: overloaded" }]
      )
      assert.strictEqual(readFileSync(calls, "utf8"), "call\ncall\ncall\n")
    }).pipe(Effect.scoped)
  )
})
