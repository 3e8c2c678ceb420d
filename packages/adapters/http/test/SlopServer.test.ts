import { assert, describe, it } from "@effect/vitest"
import type { Message } from "@heed/state-tree"
import { Consumer, Pipeline, Provider } from "@heed/state-tree"
import { Effect, Layer } from "effect"
import * as Socket from "effect/socket/Socket"
import { SlopClient, SlopServer } from "../src/index.ts"
import { listen, random, serveProvider, startTree, syncedProvider, wsClient } from "./support.ts"

describe("SlopServer: the endpoint", () => {
  it.live("hello is the first frame; a plain GET gets 426 with a JSON error", () =>
    Effect.gen(function* () {
      const provider = yield* syncedProvider({ id: "app", name: "App" })
      yield* provider.setTree(startTree)
      const url = yield* serveProvider(provider)
      const client = yield* wsClient(url)
      yield* client.until(() => client.messages.length > 0)
      assert.deepStrictEqual(client.messages[0], {
        type: "hello",
        provider: { id: "app", name: "App", slop_version: "0.1", capabilities: Provider.capabilities }
      })
      const response = yield* Effect.promise(() => fetch(url.replace("ws://", "http://")))
      assert.strictEqual(response.status, 426)
      assert.include(((yield* Effect.promise(() => response.json())) as { error: string }).error, "WebSocket")
    })
  )

  it.live("resolve: each owner is served its own tree; a missing or unknown token gets 401", () =>
    Effect.gen(function* () {
      const trees = yield* Effect.forEach(["alice", "bob"], (owner) =>
        Effect.gen(function* () {
          const provider = yield* syncedProvider()
          yield* provider.setTree({ id: "root", type: "root", properties: { owner } })
          return [owner, provider] as const
        })
      )
      const providers = new Map(trees)
      const resolve: SlopServer.Resolve<never> = (request) => {
        const owner = SlopServer.bearerToken(request)
        const provider = owner === undefined ? undefined : providers.get(owner)
        return provider === undefined
          ? Effect.fail(new SlopServer.Unauthorized({ message: "missing or invalid bearer token" }))
          : Effect.succeed({ provider, owner })
      }
      const host = yield* listen(SlopServer.layer({ resolve }))
      const url = `ws://${host}/slop`
      // a header (Node consumers) and the bearer subprotocol (SlopClient, as browsers send it)
      const alice = yield* wsClient(url, { authorization: "Bearer alice" })
      yield* alice.send({ type: "subscribe", id: "s" })
      const { consumer: bob } = yield* SlopClient.consumer({ url, token: "bob" }).pipe(
        Effect.provide(Socket.layerWebSocketConstructorGlobal)
      )
      const id = yield* bob.subscribe()
      yield* alice.sync
      const snapshot = alice.messages.find((m) => m.type === "snapshot") as Message.Snapshot
      assert.deepStrictEqual(snapshot.tree.properties, { owner: "alice" })
      assert.deepStrictEqual((yield* bob.tree(id))?.properties, { owner: "bob" })
      for (const headers of [{}, { authorization: "Bearer mallory" }]) {
        const refused = yield* Effect.flip(wsClient(url, headers))
        assert.strictEqual(refused.status, 401)
        assert.include(refused.body, "missing or invalid bearer token")
      }
    })
  )

  it.live("a browser's token travels as a subprotocol: the server selects 'slop' and never echoes the token", () =>
    Effect.gen(function* () {
      const seen: Array<string | undefined> = []
      const provider = yield* syncedProvider()
      yield* provider.setTree(startTree)
      const resolve: SlopServer.Resolve<never> = (request) => {
        const owner = SlopServer.bearerToken(request)
        seen.push(request.url)
        return owner === "alice"
          ? Effect.succeed({ provider, owner })
          : Effect.fail(new SlopServer.Unauthorized({ message: "missing or invalid bearer token" }))
      }
      const host = yield* listen(SlopServer.layer({ resolve }))
      const url = `ws://${host}/slop`
      // what `new WebSocket(url, ["slop", SlopServer.bearerProtocol(token)])` sends from a page
      const alice = yield* wsClient(url, {}, [SlopServer.protocol, SlopServer.bearerProtocol("alice")])
      assert.strictEqual(alice.ws.protocol, "slop")
      yield* alice.send({ type: "subscribe", id: "s" })
      yield* alice.sync
      assert.isTrue(alice.messages.some((m) => m.type === "snapshot"))
      // a wrong token in the subprotocol is refused like a wrong header
      const wrong = yield* Effect.flip(wsClient(url, {}, [SlopServer.protocol, SlopServer.bearerProtocol("mallory")]))
      assert.strictEqual(wrong.status, 401)
      // SlopClient sends its token the same way: the URL never carries it
      const { consumer } = yield* SlopClient.consumer({ url, token: "alice" }).pipe(
        Effect.provide(Socket.layerWebSocketConstructorGlobal)
      )
      yield* consumer.subscribe()
      assert.deepStrictEqual(seen, ["/slop", "/slop", "/slop"])
    })
  )

  it("bearer subprotocols: any token round-trips; malformed entries carry none; the token is never selected", () => {
    for (const token of ["eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln", "with space/and+plus=", "ünïcödé"]) {
      const offered = SlopServer.bearerProtocol(token)
      assert.match(offered, /^heed\.bearer\.[A-Za-z0-9_-]+$/)
      assert.strictEqual(SlopServer.tokenFromProtocols(`slop, ${offered}`), token)
    }
    assert.strictEqual(SlopServer.tokenFromProtocols("slop"), undefined)
    assert.strictEqual(SlopServer.tokenFromProtocols("heed.bearer."), undefined)
    assert.strictEqual(SlopServer.tokenFromProtocols("heed.bearer.not*base64"), undefined)
    assert.strictEqual(SlopServer.tokenFromProtocols(undefined), undefined)
    assert.strictEqual(SlopServer.selectProtocol([SlopServer.bearerProtocol("t"), "slop"]), "slop")
    assert.strictEqual(SlopServer.selectProtocol([SlopServer.bearerProtocol("t"), "other"]), "other")
    assert.strictEqual(SlopServer.selectProtocol([SlopServer.bearerProtocol("t")]), false)
  })

  it.live("connection limits: a fair share at maxConnections (else 503), beyond maxConnectionsPerOwner 429", () =>
    Effect.gen(function* () {
      const provider = yield* syncedProvider()
      yield* provider.setTree(startTree)
      const resolve: SlopServer.Resolve<never> = (request) =>
        Effect.succeed({ provider, owner: SlopServer.bearerToken(request) })
      const host = yield* listen(SlopServer.layer({ resolve, maxConnections: 3, maxConnectionsPerOwner: 2 }))
      const url = `ws://${host}/slop`
      const first = yield* wsClient(url, { authorization: "Bearer a" })
      yield* wsClient(url, { authorization: "Bearer a" })
      const perOwner = yield* Effect.flip(wsClient(url, { authorization: "Bearer a" }))
      assert.strictEqual(perOwner.status, 429)
      yield* wsClient(url, { authorization: "Bearer b" })
      // the endpoint is full (a 2, b 1): c, holding none, takes the place of a's oldest connection (a fair share)
      const c = yield* wsClient(url, { authorization: "Bearer c" })
      yield* first.closed
      // a 1, b 1, c 1: no owner holds more than a newcomer's share, so d is refused
      const total = yield* Effect.flip(wsClient(url, { authorization: "Bearer d" }))
      assert.strictEqual(total.status, 503)
      // a closed connection frees its place
      c.ws.close()
      yield* c.closed
      const again = yield* Effect.eventually(
        wsClient(url, { authorization: "Bearer d" }).pipe(
          Effect.catchTag("Refused", (refused) => (refused.status === 503 ? Effect.fail(refused) : Effect.die(refused)))
        )
      )
      assert.strictEqual(again.ws.readyState, again.ws.OPEN)
    })
  )

  it.live("maxSubscriptions: a subscription beyond the limit is answered with limit_exceeded", () =>
    Effect.gen(function* () {
      const provider = yield* syncedProvider()
      yield* provider.setTree(startTree)
      const url = yield* serveProvider(provider, { maxSubscriptions: 2 })
      const client = yield* wsClient(url)
      for (const id of ["a", "b", "c"]) yield* client.send({ type: "subscribe", id })
      yield* client.sync
      const errors = client.messages.filter((m): m is Message.ErrorMessage => m.type === "error")
      assert.deepStrictEqual(
        errors.map((e) => [e.id, e.error.code]),
        [["c", "limit_exceeded"]]
      )
    })
  )
})

describe("SlopServer: slow consumers", () => {
  it.live("a consumer that stops reading gets one fresh snapshot instead of its backlog, then patches again", () =>
    Effect.gen(function* () {
      const provider = yield* syncedProvider({ outboxLimit: 4 })
      const rng = random(5)
      const big = () => `${rng.int(1e9)}`.padEnd(256 * 1024, "x")
      const tree = (i: number) => ({
        id: "root",
        type: "root",
        children: [{ id: "log", type: "document", properties: { step: i, text: big() } }]
      })
      yield* provider.setTree(tree(0))
      const url = yield* serveProvider(provider, { maxBufferedBytes: 64 * 1024 })
      const client = yield* wsClient(url)
      yield* client.send({ type: "subscribe", id: "s" })
      yield* client.sync
      // 100 changes of 256 kB each: far more than the socket buffers of a consumer that does not read
      client.ws.pause()
      for (let i = 1; i <= 100; i++) {
        yield* provider.setTree(tree(i))
        // let the server take each patch to the socket as it comes (as it would with changes spread over time)
        for (let y = 0; y < 3; y++) yield* Effect.yieldNow
      }
      client.ws.resume()
      yield* client.sync
      const ofS = client.messages.filter(
        (m) => (m.type === "snapshot" && m.id === "s") || (m.type === "patch" && m.subscription === "s")
      )
      const snapshots = ofS.filter((m) => m.type === "snapshot")
      assert.isAtLeast(snapshots.length, 2)
      assert.isBelow(ofS.length, 100)
      // applied in order, the messages give the current view with no version gap
      const mirror = Consumer.mirror()
      for (const message of ofS) assert.strictEqual(mirror.apply(message), "applied")
      assert.deepStrictEqual(mirror.tree("s"), Pipeline.optimize((yield* provider.tree)!, {}))
      // and the subscription goes on with patches
      yield* provider.setTree(tree(101))
      yield* client.sync
      const last = client.messages.filter((m) => m.type === "patch").at(-1)!
      assert.strictEqual(mirror.apply(last), "applied")
      assert.deepStrictEqual(mirror.tree("s"), Pipeline.optimize((yield* provider.tree)!, {}))
    })
  )
})

/** Malformed frames of every kind, seeded; each one must be answered with an error. */
const malformed = (seed: number, count: number, maxFrameBytes: number): Array<string | Uint8Array> => {
  const rng = random(seed)
  const kinds: Array<() => string | Uint8Array> = [
    () => `{"type":"subscribe","id":"x"${"]}".repeat(rng.int(3))}`,
    () => "not json at all",
    () => "",
    () => new Uint8Array(Array.from({ length: 1 + rng.int(64) }, () => rng.int(256))),
    () => `{"type":"subscribe","id":"huge","pad":"${"x".repeat(maxFrameBytes + rng.int(maxFrameBytes))}"}`,
    () => JSON.stringify({ type: `bogus-${rng.int(100)}`, id: `u${rng.int(100)}` }),
    () => JSON.stringify([1, 2, 3]),
    () => JSON.stringify(rng.int(1000)),
    () => JSON.stringify({ id: "no-type" }),
    () => JSON.stringify({ type: "subscribe", id: 42 }),
    () => JSON.stringify({ type: "subscribe", id: "s", depth: "deep" }),
    () => JSON.stringify({ type: "query", id: "q", window: [1] }),
    () => JSON.stringify({ type: "invoke", id: "i", path: "/", action: 7 }),
    () => JSON.stringify({ type: "subscribe", id: "p", patch_format: "tiny" }),
    () => JSON.stringify({ type: "subscribe", id: "nf", path: "/no/such/node" })
  ]
  return Array.from({ length: count }, () => rng.pick(kinds)())
}

describe("SlopServer: malformed input", () => {
  it.live("10,000 malformed frames are each answered with an error while another consumer is served", () =>
    Effect.gen(function* () {
      const maxFrameBytes = 4096
      const provider = yield* syncedProvider()
      yield* provider.setTree(startTree)
      const url = yield* serveProvider(provider, { maxFrameBytes })
      const { consumer } = yield* SlopClient.consumer({ url }).pipe(
        Effect.provide(Socket.layerWebSocketConstructorGlobal)
      )
      const id = yield* consumer.subscribe()
      const fuzzer = yield* wsClient(url)
      const frames = malformed(99, 10_000, maxFrameBytes)
      for (let i = 0; i < frames.length; i++) {
        fuzzer.ws.send(frames[i]!)
        // the other consumer is served in between
        if (i % 2000 === 0) {
          const next = { ...startTree, properties: { fuzzed: i } }
          yield* provider.setTree(next)
          yield* consumer.invoke("/", "sync")
          assert.deepStrictEqual((yield* consumer.tree(id))?.properties, { fuzzed: i })
        }
      }
      yield* fuzzer.until(() => fuzzer.count("error") >= frames.length)
      yield* fuzzer.sync
      assert.strictEqual(fuzzer.count("error"), frames.length)
      const codes = new Set(
        fuzzer.messages.filter((m): m is Message.ErrorMessage => m.type === "error").map((m) => m.error.code)
      )
      assert.deepStrictEqual([...codes].sort(), ["bad_request", "not_found"])
      const text = JSON.stringify(fuzzer.messages)
      for (const expected of ["binary frames are not supported", "over the limit of 4096 bytes", "invalid JSON"]) {
        assert.include(text, expected)
      }
      assert.include(text, 'unknown message type \\"bogus-')
    })
  )

  it.live("a frame beyond the WebSocket server's maxPayload closes that connection only (1009)", () =>
    Effect.gen(function* () {
      const maxFrameBytes = 1024
      const provider = yield* syncedProvider()
      yield* provider.setTree(startTree)
      const url = yield* serveProvider(provider, { maxFrameBytes })
      const other = yield* wsClient(url)
      const rude = yield* wsClient(url)
      rude.ws.send("x".repeat(SlopServer.websocketOptions({ maxFrameBytes }).maxPayload + 1))
      assert.strictEqual(yield* rude.closed, 1009)
      yield* other.send({ type: "subscribe", id: "s" })
      yield* other.sync
      assert.isTrue(other.messages.some((m) => m.type === "snapshot"))
    })
  )
})

describe("SlopServer: layers", () => {
  it.live("without resolve, the layer serves the Provider.Service of its context", () =>
    Effect.gen(function* () {
      const host = yield* listen(SlopServer.layer().pipe(Layer.provide(Provider.layer({ id: "from-layer" }))))
      const client = yield* wsClient(`ws://${host}/slop`)
      yield* client.until(() => client.messages.length > 0)
      assert.strictEqual((client.messages[0] as Message.Hello).provider.id, "from-layer")
    })
  )
})
