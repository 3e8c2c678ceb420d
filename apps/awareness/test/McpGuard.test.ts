import { Agent, get as httpGet, type Server } from "node:http"
import { connect as tcpConnect } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { callTool, connectHttp, makeTravel, ok, settingsFor, startHttp } from "./harness.ts"
import { initialize, inSession, memory, ping, post } from "./mcpRaw.ts"

/** Four 400 kB knowledge entries: about 1.6 MB that a full `get_knowledge` page would return. */
const rememberBlobs = (client: Parameters<typeof ok>[0]) =>
  Effect.forEach(
    [0, 1, 2, 3],
    (i) =>
      ok(client, "remember", { source: "bulk", tags: ["big"], description: `blob ${i}`, content: "y".repeat(400_000) }),
    { discard: true }
  )

describe("MCP endpoint limits (issue 12 #4)", () => {
  it.live(
    "a body over the limit answers 413, with or without content-length; the server keeps serving",
    () =>
      Effect.gen(function* () {
        const { base } = yield* startHttp(settingsFor({ maxBodyBytes: 64 * 1024 }), memory)
        const { session } = yield* initialize(base)
        const huge = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping", params: { pad: "x".repeat(100 * 1024) } })
        const declared = yield* post(base, huge, inSession(session))
        assert.strictEqual(declared.status, 413)
        assert.include(JSON.parse(declared.text).error.message, "65536 bytes")
        const chunked = yield* Effect.promise(async () => {
          const bytes = new TextEncoder().encode(huge)
          const stream = new ReadableStream<Uint8Array>({
            start(controller) {
              for (let i = 0; i < bytes.length; i += 8192) controller.enqueue(bytes.subarray(i, i + 8192))
              controller.close()
            }
          })
          const response = await fetch(`${base}/mcp`, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              accept: "application/json, text/event-stream",
              ...inSession(session)
            },
            body: stream,
            duplex: "half"
          } as RequestInit)
          return response.status
        })
        assert.strictEqual(chunked, 413)
        assert.strictEqual((yield* post(base, ping(3), inSession(session))).status, 200)
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live(
    "a connection that stops reading its responses is closed after the socket timeout",
    () =>
      Effect.gen(function* () {
        let server: Server | undefined
        const { base, url } = yield* startHttp(settingsFor({ socketTimeoutMs: 500 }), memory, undefined, (created) => {
          server = created
        })
        const client = yield* connectHttp(url)
        yield* rememberBlobs(client)
        const { session } = yield* initialize(base)
        const port = new URL(base).port
        const socket = tcpConnect(Number(port), "127.0.0.1")
        yield* Effect.addFinalizer(() => Effect.sync(() => socket.destroy()))
        yield* Effect.promise(() => new Promise<void>((resolve) => socket.once("connect", () => resolve())))
        socket.pause() // never read: the responses pile up in the server unless it gives up on this connection
        socket.on("error", () => undefined)
        const body = JSON.stringify({
          jsonrpc: "2.0",
          id: 9,
          method: "tools/call",
          params: { name: "get_knowledge", arguments: { tags: ["big"] } }
        })
        const request = [
          "POST /mcp HTTP/1.1",
          "host: 127.0.0.1",
          "content-type: application/json",
          "accept: application/json, text/event-stream",
          `mcp-session-id: ${session}`,
          "mcp-protocol-version: 2025-06-18",
          `content-length: ${Buffer.byteLength(body)}`,
          "",
          body
        ].join("\r\n")
        for (let i = 0; i < 20; i++) socket.write(request)
        // The signal: the server's own count of open connections drops to zero (fetch's pool is idle by then).
        const closed = yield* Effect.promise(async () => {
          const deadline = Date.now() + 20_000
          while (Date.now() < deadline) {
            const open = await new Promise<number>((resolve) => server!.getConnections((_, count) => resolve(count)))
            if (open === 0) return "closed by the server"
            await new Promise((resolve) => setTimeout(resolve, 100))
          }
          return "still open after 20 s"
        })
        assert.strictEqual(closed, "closed by the server")
        assert.strictEqual((yield* post(base, ping(1), inSession(session))).status, 200)
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )
})

describe("HTTP keep-alive", () => {
  it.live(
    "an idle keep-alive connection is kept for the socket timeout, and the server says so",
    () =>
      Effect.gen(function* () {
        const { base } = yield* startHttp(settingsFor({ socketTimeoutMs: 45_000 }), memory)
        const agent = new Agent({ keepAlive: true })
        yield* Effect.addFinalizer(() => Effect.sync(() => agent.destroy()))
        const keepAlive = yield* Effect.promise(
          () =>
            new Promise<string | undefined>((resolve, reject) => {
              const request = httpGet(`${base}/health`, { agent }, (response) => {
                response.resume()
                response.on("end", () => resolve(String(response.headers["keep-alive"])))
              })
              request.on("error", reject)
            })
        )
        // node's default would be "timeout=5": a client polling every few seconds would reconnect each time
        assert.strictEqual(keepAlive, "timeout=45")
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )
})

describe("MCP reply size (issue 12 #4)", () => {
  it.live(
    "a tool reply over the limit is a response_too_large tool error asking for a smaller page; a page under it works",
    () =>
      Effect.gen(function* () {
        const { url } = yield* startHttp(settingsFor({ maxResponseBytes: 1_048_576 }), memory)
        const client = yield* connectHttp(url)
        yield* rememberBlobs(client)
        const all = yield* callTool(client, "get_knowledge", { tags: ["big"] })
        assert.isTrue(all.isError)
        assert.strictEqual(all.body.error.code, "response_too_large")
        assert.include(all.body.error.message, "1048576 bytes")
        // One 400 kB entry: the reply carries it twice (the text and `structuredContent`), still under 1 MiB.
        const page = yield* callTool(client, "get_knowledge", { tags: ["big"], limit: 1 })
        assert.isFalse(page.isError)
        assert.lengthOf(page.body.entries, 1)
        assert.isTrue(page.body.has_more)
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )
})

describe("MCP sessions (issue 12 #5)", () => {
  it.live(
    "DELETE /mcp ends a session (204); its id then gets 404",
    () =>
      Effect.gen(function* () {
        const { base } = yield* startHttp(settingsFor(), memory)
        const { session } = yield* initialize(base)
        assert.strictEqual((yield* post(base, ping(1), inSession(session))).status, 200)
        const deleted = yield* Effect.promise(() =>
          fetch(`${base}/mcp`, { method: "DELETE", headers: inSession(session) }).then((r) => r.status)
        )
        assert.strictEqual(deleted, 204)
        assert.strictEqual((yield* post(base, ping(2), inSession(session))).status, 404)
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live(
    "an idle session expires; the cap answers 503 with a clear error until a session ends",
    () =>
      Effect.gen(function* () {
        const travel = makeTravel(undefined, { monotonic: true })
        const { base } = yield* startHttp(settingsFor({ sessionIdleMs: 60_000, maxSessions: 2 }), memory, travel)
        const first = yield* initialize(base)
        const second = yield* initialize(base)
        assert.strictEqual(second.status, 200)
        const third = yield* initialize(base)
        assert.strictEqual(third.status, 503)
        assert.include(JSON.parse(third.text).error.message, "Too many open sessions (the limit is 2")

        travel.advance(30_000)
        assert.strictEqual((yield* post(base, ping(1), inSession(first.session))).status, 200) // first is active
        travel.advance(45_000) // second idle for 75 s, first for 45 s
        const expired = yield* post(base, ping(2), inSession(second.session))
        assert.strictEqual(expired.status, 404)
        assert.include(JSON.parse(expired.text).error.message, "Session expired")
        assert.strictEqual((yield* post(base, ping(3), inSession(first.session))).status, 200)
        const fourth = yield* initialize(base)
        assert.strictEqual(fourth.status, 200)
        // The expired session was ended in the transport too, not only hidden by the guard.
        assert.strictEqual((yield* post(base, ping(4), inSession(second.session))).status, 404)
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )
})

describe("JSON-RPC framing (issue 12 #7)", () => {
  it.live(
    "a notification answers 202 with an empty body",
    () =>
      Effect.gen(function* () {
        const { base } = yield* startHttp(settingsFor(), memory)
        const { session } = yield* initialize(base)
        for (const method of ["notifications/initialized", "ping", "notifications/unknown"]) {
          const reply = yield* post(base, JSON.stringify({ jsonrpc: "2.0", method }), inSession(session))
          assert.strictEqual(reply.status, 202, method)
          assert.strictEqual(reply.text, "", method)
        }
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live(
    "parse errors and invalid requests answer 400 with a JSON-RPC error without _tag",
    () =>
      Effect.gen(function* () {
        const { base } = yield* startHttp(settingsFor(), memory)
        const { session } = yield* initialize(base)
        const cases: ReadonlyArray<[string, number]> = [
          ['{"jsonrpc":', -32700],
          ['{"foo":1}', -32600],
          ['"text"', -32600],
          ['{"jsonrpc":"1.0","id":3,"method":"ping"}', -32600],
          ['{"jsonrpc":"2.0","id":null,"method":"ping"}', -32600],
          ['{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', -32600],
          ['{"jsonrpc":"2.0","id":12345678901234567890,"method":"ping"}', -32600],
          ['{"jsonrpc":"2.0","id":4}', -32600]
        ]
        for (const [body, code] of cases) {
          const reply = yield* post(base, body, inSession(session))
          assert.strictEqual(reply.status, 400, body)
          assert.notInclude(reply.text, "_tag", body)
          assert.strictEqual(JSON.parse(reply.text).error.code, code, body)
        }
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live(
    "string and safe-integer ids round-trip exactly",
    () =>
      Effect.gen(function* () {
        const { base } = yield* startHttp(settingsFor(), memory)
        const { session } = yield* initialize(base)
        for (const id of ["7", "00012", "", "ünï", 0, -3, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER]) {
          const reply = yield* post(base, ping(id), inSession(session))
          assert.strictEqual(reply.status, 200)
          assert.strictEqual(JSON.parse(reply.text).id, id)
          assert.include(reply.text, `"id":${JSON.stringify(id)}`)
        }
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live(
    "the SDK client still works end to end through the guard",
    () =>
      Effect.gen(function* () {
        const { url } = yield* startHttp(settingsFor(), memory)
        const client = yield* connectHttp(url)
        const reply = yield* callTool(client, "get_briefing", {})
        assert.isFalse(reply.isError)
        assert.strictEqual(reply.body.attention_needed, false)
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )
})
