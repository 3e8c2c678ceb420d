import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { Provider } from "@heed/state-tree"
import { ConfigProvider, Effect, Exit, Layer, Scope } from "effect"
import * as Socket from "effect/socket/Socket"
import { Discovery, SlopClient, SlopServer } from "../src/index.ts"
import { listen, startTree, syncedProvider } from "./support.ts"

/** A temporary HOME for the test, removed with its scope. */
const temporaryHome = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "heed-slop-home-"))),
  (home) => Effect.sync(() => rmSync(home, { recursive: true, force: true }))
)

const withHome = (home: string) =>
  Layer.merge(NodeServices.layer, ConfigProvider.layer(ConfigProvider.fromEnvRecord({ HOME: home })))

describe("Discovery: descriptor files", () => {
  it.live("register writes ~/.slop/providers/<id>.json and removes it when the scope closes", () =>
    Effect.gen(function* () {
      const home = yield* temporaryHome
      const descriptor = Discovery.descriptor({
        id: "heed-awareness",
        name: "heed awareness",
        url: "ws://127.0.0.1:3737/slop",
        pid: 4242,
        description: "the awareness store as a live tree"
      })
      const providers = join(home, ".slop", "providers")
      const scope = yield* Scope.make()
      const file = yield* Discovery.register(descriptor).pipe(Scope.provide(scope), Effect.provide(withHome(home)))
      assert.strictEqual(file, join(providers, "heed-awareness.json"))
      assert.deepStrictEqual(JSON.parse(readFileSync(file, "utf8")), {
        id: "heed-awareness",
        name: "heed awareness",
        slop_version: "0.1",
        transport: { type: "ws", url: "ws://127.0.0.1:3737/slop" },
        capabilities: [...Provider.capabilities],
        pid: 4242,
        description: "the awareness store as a live tree"
      })
      // a local consumer lists it; a file that is no descriptor is skipped
      writeFileSync(join(providers, "broken.json"), '{"id": "broken"}')
      const listed = yield* Discovery.list().pipe(Effect.provide(withHome(home)))
      assert.deepStrictEqual(listed, [descriptor])
      yield* Scope.close(scope, Exit.void)
      assert.deepStrictEqual(readdirSync(providers), ["broken.json"])
    })
  )

  it.live("an id that cannot name a file, or no HOME, is a DiscoveryError saying so", () =>
    Effect.gen(function* () {
      const home = yield* temporaryHome
      const bad = Discovery.descriptor({ id: "../escape", name: "x", url: "ws://127.0.0.1/slop" })
      const error = yield* Effect.flip(Discovery.write(bad).pipe(Effect.provide(withHome(home))))
      assert.include(error.message, 'provider id "../escape" cannot name a descriptor file')
      const noHome = yield* Effect.flip(
        Discovery.remove("fine").pipe(
          Effect.provide(Layer.merge(NodeServices.layer, ConfigProvider.layer(ConfigProvider.fromEnvRecord({}))))
        )
      )
      assert.include(noHome.message, "HOME is not set")
      // removing a descriptor that is not there is fine, and an explicit directory needs no HOME
      const directory = join(home, "elsewhere")
      yield* Discovery.remove("never-written", { directory }).pipe(Effect.provide(NodeServices.layer))
      const good = Discovery.descriptor({ id: "fine", name: "x", url: "ws://127.0.0.1/slop" })
      const file = yield* Discovery.write(good, { directory }).pipe(Effect.provide(NodeServices.layer))
      assert.strictEqual(JSON.parse(readFileSync(file, "utf8")).id, "fine")
    })
  )
})

describe("Discovery: /.well-known/slop", () => {
  it.live("serves the descriptor with the WebSocket URL of the request; a consumer connects with it", () =>
    Effect.gen(function* () {
      const provider = yield* syncedProvider({ id: "app", name: "App" })
      yield* provider.setTree(startTree)
      const app = Layer.mergeAll(
        SlopServer.layer({ path: "/slop" }),
        Discovery.layer({ id: "app", name: "App", path: "/slop", version: "1.2.3" })
      ).pipe(Layer.provide(Layer.succeed(Provider.Service, provider)))
      const host = yield* listen(app)
      const response = yield* Effect.promise(() => fetch(`http://${host}${Discovery.wellKnownPath}`))
      assert.strictEqual(response.headers.get("access-control-allow-origin"), "*")
      const document = (yield* Effect.promise(() => response.json())) as Discovery.Descriptor
      assert.deepStrictEqual(document, {
        id: "app",
        name: "App",
        version: "1.2.3",
        slop_version: "0.1",
        transport: { type: "ws", url: `ws://${host}/slop` },
        capabilities: [...Provider.capabilities]
      })
      const transport = document.transport as { readonly url: string }
      const { consumer } = yield* SlopClient.consumer({ url: transport.url }).pipe(
        Effect.provide(Socket.layerWebSocketConstructorGlobal)
      )
      assert.strictEqual((yield* consumer.hello).provider.id, "app")
    })
  )

  it("urlFor honours X-Forwarded-* only with trustProxy; metaTag escapes the URL", () => {
    const headers = { host: "inside:8080", "x-forwarded-proto": "https", "x-forwarded-host": "example.com" }
    const request = { headers } as never
    assert.strictEqual(Discovery.urlFor(request, "/slop"), "ws://inside:8080/slop")
    assert.strictEqual(Discovery.urlFor(request, "/slop", true), "wss://example.com/slop")
    assert.strictEqual(
      Discovery.metaTag('ws://a/slop?x="y"&z'),
      '<meta name="slop" content="ws://a/slop?x=&quot;y&quot;&amp;z">'
    )
  })
})
