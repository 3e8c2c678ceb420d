import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Config from "../src/Config.ts"

const base = { server: { host: "127.0.0.1", nick: "spark-bot" }, runner: { type: "command", command: "cat" } }

describe("agent.yaml", () => {
  it.effect("without an attention block the legacy poll_interval sets IDLE and clamps the warmer bands", () =>
    Effect.gen(function* () {
      const config = yield* Config.decode({ ...base, poll_interval: 90 }, "/srv/agent")
      assert.strictEqual(config.attention.bands.idle.interval_s, 90)
      assert.strictEqual(config.attention.bands.hot.interval_s, 30)
      assert.strictEqual(config.attention.bands.warm.interval_s, 90)
      assert.strictEqual(config.state_dir, "/srv/agent/.heed-agent")
    })
  )

  it.effect("an attention block with pinned bands is honoured, and one config type serves both runners", () =>
    Effect.gen(function* () {
      const config = yield* Config.decode(
        {
          ...base,
          attention: { tick_s: 3, pinned: { "#ops": "hot" } },
          runner: { type: "openai", url: "http://127.0.0.1:11434/v1", model: "llama3.1" },
          state_dir: "state"
        },
        "/srv/agent"
      )
      assert.strictEqual(config.attention.tick_s, 3)
      assert.deepStrictEqual(config.attention.pinned, { "#ops": "HOT" })
      assert.strictEqual(config.runner.type, "openai")
      assert.strictEqual(config.state_dir, "/srv/agent/state")
    })
  )

  it.effect("server.tls_ca_file is taken relative to the config file, and the retry policy is read", () =>
    Effect.gen(function* () {
      const config = yield* Config.decode(
        {
          ...base,
          server: { ...base.server, tls: true, tls_ca_file: "certs/ca.pem" },
          retry: { attempts: 5, backoff_s: 0.5 }
        },
        "/srv/agent"
      )
      assert.strictEqual(config.server.tls_ca_file, "/srv/agent/certs/ca.pem")
      assert.deepStrictEqual(config.retry, { attempts: 5, backoff_s: 0.5 })
      const zero = yield* Effect.flip(Config.decode({ ...base, retry: { attempts: 0 } }, "/"))
      assert.include(zero.message, "attempts")
    })
  )

  it.effect("the shipped agent.example.yaml loads", () =>
    Effect.gen(function* () {
      const config = yield* Config.load(join(import.meta.dirname, "../agent.example.yaml"))
      assert.deepStrictEqual(
        [config.server.nick, config.runner.type, config.attention.pinned],
        ["spark-claude", "command", { "#ops": "HOT" }]
      )
      assert.strictEqual(config.state_dir, join(import.meta.dirname, "../.heed-agent"))
    })
  )

  it.effect("bad input names the field", () =>
    Effect.gen(function* () {
      const port = yield* Effect.flip(
        Config.decode({ ...base, server: { ...base.server, port: 0 } }, "/", "agent.yaml")
      )
      assert.include(port.message, "agent.yaml")
      assert.include(port.message, "port")
      const runner = yield* Effect.flip(Config.decode({ ...base, runner: { type: "claude" } }, "/"))
      assert.include(runner.message, "runner")
      const bands = yield* Effect.flip(
        Config.decode({ ...base, attention: { bands: { hot: { interval_s: 900, hold_s: 60 } } } }, "/")
      )
      assert.include(bands.message, "monotonic")
      const extra = yield* Effect.flip(Config.decode({ ...base, chanels: ["#typo"] }, "/"))
      assert.include(extra.message, "chanels")
    })
  )
})
