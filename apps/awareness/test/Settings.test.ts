import { assert, describe, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Cli from "../src/Cli.ts"
import * as Settings from "../src/Settings.ts"

const withEnv = (env: Record<string, string>) =>
  Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnv({ env }))

describe("Settings", () => {
  it.effect("defaults: port 8420, 127.0.0.1, ~/.local/share/heed/awareness, PGlite, auth off, Info", () =>
    Effect.gen(function* () {
      const settings = yield* Settings.load().pipe(withEnv({ HOME: "/home/ada" }))
      assert.deepStrictEqual(
        [settings.port, settings.host, settings.dataDir, settings.authRequired, settings.logLevel],
        [8420, "127.0.0.1", "/home/ada/.local/share/heed/awareness", false, "Info"]
      )
      assert.isTrue(Option.isNone(settings.databaseUrl))
      assert.deepStrictEqual(Cli.storeKind(settings, false), {
        _tag: "embedded",
        dataDir: "/home/ada/.local/share/heed/awareness"
      })
      const xdg = yield* Settings.load().pipe(withEnv({ HOME: "/home/ada", XDG_DATA_HOME: "/data/xdg" }))
      assert.strictEqual(xdg.dataDir, "/data/xdg/heed/awareness")
    })
  )

  it.effect("reads the environment, and flags win over it", () =>
    Effect.gen(function* () {
      const env = {
        HEED_PORT: "9000",
        HEED_DATA_DIR: "/var/lib/heed",
        DATABASE_URL: "postgres://heed@db/heed",
        HEED_LOG_LEVEL: "Debug",
        HEED_DEFAULT_OWNER: "ops"
      }
      const fromEnv = yield* Settings.load().pipe(withEnv(env))
      assert.deepStrictEqual(
        [fromEnv.port, fromEnv.dataDir, fromEnv.logLevel, fromEnv.defaultOwner],
        [9000, "/var/lib/heed", "Debug", "ops"]
      )
      assert.strictEqual(Cli.storeKind(fromEnv, false)._tag, "server")
      assert.strictEqual(Cli.storeKind(fromEnv, true)._tag, "memory")
      const flagged = yield* Settings.load({ port: Option.some(1234), dataDir: Option.some("/tmp/x") }).pipe(
        withEnv(env)
      )
      assert.deepStrictEqual([flagged.port, flagged.dataDir], [1234, "/tmp/x"])
      const url = yield* Settings.load({ databaseUrl: Option.some("postgres://other") }).pipe(withEnv({}))
      assert.strictEqual(Option.map(url.databaseUrl, Redacted.value).pipe(Option.getOrUndefined), "postgres://other")
    })
  )

  it.effect("the tool profile: full by default, HEED_TOOLS=compact, --tools wins; anything else is refused", () =>
    Effect.gen(function* () {
      assert.strictEqual((yield* Settings.load().pipe(withEnv({}))).tools, "full")
      assert.strictEqual((yield* Settings.load().pipe(withEnv({ HEED_TOOLS: "Compact" }))).tools, "compact")
      const flag = yield* Settings.load({ tools: Option.some("full") }).pipe(withEnv({ HEED_TOOLS: "compact" }))
      assert.strictEqual(flag.tools, "full")
      const wrong = yield* Effect.flip(Settings.load().pipe(withEnv({ HEED_TOOLS: "tiny" })))
      assert.include(wrong.message, "HEED_TOOLS (or --tools) must be full or compact")
    })
  )

  it.effect("auth needs a signing secret of at least 16 characters", () =>
    Effect.gen(function* () {
      const missing = yield* Effect.flip(Settings.load().pipe(withEnv({ HEED_AUTH_REQUIRED: "true" })))
      assert.include(missing.message, "HEED_JWT_SECRET")
      const short = yield* Effect.flip(Settings.load().pipe(withEnv({ HEED_JWT_SECRET: "short" })))
      assert.include(short.message, "16")
      const good = yield* Settings.load().pipe(
        withEnv({ HEED_AUTH_REQUIRED: "true", HEED_JWT_SECRET: "a-long-enough-secret" })
      )
      assert.isTrue(good.authRequired)
    })
  )

  it("the client snippet is valid JSON naming the server and the URL", () => {
    const snippet = JSON.parse(Cli.clientSnippet("http://127.0.0.1:8420/mcp", true))
    assert.strictEqual(snippet.mcpServers["heed-awareness"].url, "http://127.0.0.1:8420/mcp")
    assert.include(snippet.mcpServers["heed-awareness"].headers.Authorization, "Bearer")
  })
})
