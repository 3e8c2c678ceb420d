import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as Cli from "../src/Cli.ts"
import * as InjectSocket from "../src/InjectSocket.ts"

const flags = {
  http: Option.none<number>(),
  host: "127.0.0.1",
  budget: 1500,
  tools: "fixed" as const,
  provider: [] as ReadonlyArray<string>,
  socket: Option.none<string>(),
  decayTurns: 3,
  notifySalience: 0.8,
  connect: "auto" as const,
  reconnectDelay: 3000,
  rescan: 15
}

describe("the command line", () => {
  it.effect("out-of-range flags are a CliError naming the flag", () =>
    Effect.gen(function* () {
      const cases: ReadonlyArray<[Partial<typeof flags>, string]> = [
        [{ budget: 50 }, "budget"],
        [{ decayTurns: 0 }, "decay-turns"],
        [{ notifySalience: 1.5 }, "notify-salience"],
        [{ reconnectDelay: 0 }, "reconnect-delay"],
        [{ rescan: 0 }, "rescan"],
        [{ http: Option.some(70000) }, "http"]
      ]
      for (const [override, field] of cases) {
        const error = yield* Effect.flip(Cli.check({ ...flags, ...override }))
        assert.strictEqual(error._tag, "CliError")
        assert.strictEqual(error.field, field)
        assert.include(error.message, `--${field}:`)
      }
      assert.deepStrictEqual(yield* Cli.check(flags), flags)
    })
  )

  it("the prompt of a hook's JSON: Claude Code's and Codex's prompt, other spellings, plain text", () => {
    assert.strictEqual(InjectSocket.promptOf('{"hook_event_name":"UserPromptSubmit","prompt":"hi there"}'), "hi there")
    assert.strictEqual(InjectSocket.promptOf('{"user_prompt":"from another host"}'), "from another host")
    assert.strictEqual(InjectSocket.promptOf('{"session_id":"x"}'), "")
    assert.strictEqual(InjectSocket.promptOf("  just text \n"), "just text")
  })

  it("the socket path: HEED_BRIDGE_SOCKET, then XDG_RUNTIME_DIR, then the temp folder per user", () => {
    assert.strictEqual(InjectSocket.defaultPath({ HEED_BRIDGE_SOCKET: "/x/b.sock" }), "/x/b.sock")
    assert.strictEqual(InjectSocket.defaultPath({ XDG_RUNTIME_DIR: "/run/user/7" }), "/run/user/7/heed-bridge.sock")
    assert.match(InjectSocket.defaultPath({}), /heed-bridge-.+\.sock$/)
  })
})
