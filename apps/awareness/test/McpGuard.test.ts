import { Agent, get as httpGet, type Server } from "node:http"
import { connect as tcpConnect } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import type * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { forAudience, invalidReason, withoutTags } from "../src/McpGuard.ts"
import type { Settings } from "../src/Settings.ts"
import * as Token from "../src/Token.ts"
import { callTool, connectHttp, makeTravel, ok, settingsFor, startHttp } from "./harness.ts"

const memory = { _tag: "embedded", dataDir: "memory://" } as const

const post = (base: string, body: string, headers: Record<string, string> = {}, path = "/mcp") =>
  Effect.promise(async () => {
    const response = await fetch(`${base}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body
    })
    return { status: response.status, headers: response.headers, text: await response.text() }
  })

const initialize = (base: string, headers: Record<string, string> = {}) =>
  Effect.map(
    post(
      base,
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "curl", version: "1" } }
      }),
      headers
    ),
    (reply) => ({ ...reply, session: reply.headers.get("mcp-session-id") ?? "" })
  )

const inSession = (session: string) => ({ "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" })
const ping = (id: unknown) => JSON.stringify({ jsonrpc: "2.0", id, method: "ping" })

/** A ping whose body is exactly `bytes` long. */
const pingOfSize = (bytes: number) => {
  const empty = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping", params: { pad: "" } })
  return JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping", params: { pad: "x".repeat(bytes - empty.length) } })
}

/** A body streamed in chunks, so the request carries no content-length. */
const postStreamed = (base: string, body: string, headers: Record<string, string>) =>
  Effect.promise(async () => {
    const bytes = new TextEncoder().encode(body)
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 256) controller.enqueue(bytes.subarray(i, i + 256))
        controller.close()
      }
    })
    const response = await fetch(`${base}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body: stream,
      duplex: "half"
    } as RequestInit)
    return { status: response.status, text: await response.text() }
  })

/** A clock whose monotonic time moves only when the test says so (idle times exact to the millisecond). */
const makeFrozen = () => {
  let monotonicMs = 1_000_000n
  const clock: Clock.Clock = {
    currentTimeMillisUnsafe: () => Date.now(),
    currentTimeMillis: Effect.sync(() => Date.now()),
    currentTimeNanosUnsafe: () => BigInt(Date.now()) * 1_000_000n,
    currentTimeNanos: Effect.sync(() => BigInt(Date.now()) * 1_000_000n),
    monotonicTimeNanosUnsafe: () => monotonicMs * 1_000_000n,
    monotonicTimeNanos: Effect.sync(() => monotonicMs * 1_000_000n),
    sleep: (duration) =>
      Effect.callback<void>((resume) => {
        const timer = setTimeout(() => resume(Effect.void), Duration.toMillis(duration))
        return Effect.sync(() => clearTimeout(timer))
      })
  }
  return {
    clock,
    now: () => Date.now(),
    advance: (ms: number) => {
      monotonicMs += BigInt(ms)
    }
  }
}

const secret = "mcp-guard-test-secret-0123456789"
const bearer = (sub: string) => ({
  authorization: `Bearer ${Token.sign({ sub, secret, nowSec: Math.floor(Date.now() / 1000), expiresInSec: 3600 })}`
})
const withAuth = (overrides: Partial<Settings> = {}) =>
  settingsFor({ authRequired: true, secret: Option.some(Redacted.make(secret)), ...overrides })

/** Four 400 kB knowledge entries: about 1.6 MB that a full `get_knowledge` page would return. */
const rememberBlobs = (client: Parameters<typeof ok>[0]) =>
  Effect.forEach(
    [0, 1, 2, 3],
    (i) =>
      ok(client, "remember", { source: "bulk", tags: ["big"], description: `blob ${i}`, content: "y".repeat(400_000) }),
    { discard: true }
  )

describe("JSON-RPC message checks", () => {
  it("names what is wrong with a message, and nothing for a well-formed one", () => {
    assert.strictEqual(invalidReason("text"), "a JSON-RPC message must be a JSON object")
    assert.strictEqual(invalidReason(null), "a JSON-RPC message must be a JSON object")
    assert.strictEqual(invalidReason([]), "a JSON-RPC message must be a JSON object")
    assert.strictEqual(invalidReason({ jsonrpc: "1.0", method: "ping" }), 'field "jsonrpc" must be "2.0"')
    assert.strictEqual(
      invalidReason({ jsonrpc: "2.0", id: 1.5, method: "ping" }),
      'field "id" must be a string or a safe integer (not null, not a fraction)'
    )
    assert.strictEqual(invalidReason({ jsonrpc: "2.0", id: 1 }), 'field "method" is required (a string)')
    assert.strictEqual(invalidReason({ jsonrpc: "2.0", result: {} }), 'field "method" is required (a string)')
    assert.strictEqual(invalidReason({ jsonrpc: "2.0", method: 7 }), 'field "method" must be a string')
    assert.strictEqual(invalidReason({ jsonrpc: "2.0", method: "m", params: 1 }), 'field "params" must be an object')
    assert.strictEqual(invalidReason({ jsonrpc: "2.0", method: "m", params: null }), 'field "params" must be an object')
    assert.isUndefined(invalidReason({ jsonrpc: "2.0", method: "m", params: {} }))
    assert.isUndefined(invalidReason({ jsonrpc: "2.0", method: "m", params: [] }))
    assert.isUndefined(invalidReason({ jsonrpc: "2.0", method: "m" }))
    assert.isUndefined(invalidReason({ jsonrpc: "2.0", id: "a", method: "m" }))
    assert.isUndefined(invalidReason({ jsonrpc: "2.0", id: 3, result: {} }))
    assert.isUndefined(invalidReason({ jsonrpc: "2.0", id: 3, error: { code: 1, message: "m" } }))
  })

  it("error objects lose their _tag in JSON and in SSE data lines; other lines stay as they are", () => {
    const tagged = '{"jsonrpc":"2.0","id":1,"error":{"_tag":"X","code":-1,"message":"m"}}'
    const clean = '{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"m"}}'
    assert.strictEqual(withoutTags(tagged), clean)
    assert.strictEqual(withoutTags(`[${tagged}]`), `[${clean}]`)
    assert.strictEqual(withoutTags(`event: message\ndata: ${tagged}\n\n`), `event: message\ndata: ${clean}\n\n`)
    assert.strictEqual(withoutTags('note "_tag" {\ndata: {"_tag": broken'), 'note "_tag" {\ndata: {"_tag": broken')
    // the fast path: a body without "_tag" is returned as it is, even when it is not canonical JSON
    assert.strictEqual(withoutTags('{ "a" : 1 }'), '{ "a" : 1 }')
  })

  it("a briefing notification reaches its audience without the tag, and no one else", () => {
    const key = "heed.dev/audience"
    const note = (audience: unknown, meta: Record<string, unknown> = {}) =>
      JSON.stringify({
        jsonrpc: "2.0",
        method: "notifications/resources/updated",
        params: { uri: "awareness://briefing", _meta: { ...meta, [key]: audience } }
      })
    const bare = { jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: "awareness://briefing" } }
    assert.strictEqual(forAudience(note("alice"), "alice"), JSON.stringify(bare))
    assert.strictEqual(forAudience(note("alice"), "bob"), "")
    assert.strictEqual(forAudience(note("alice"), undefined), "")
    assert.strictEqual(
      forAudience(note("alice", { other: 1 }), "alice"),
      JSON.stringify({ ...bare, params: { ...bare.params, _meta: { other: 1 } } })
    )
    assert.strictEqual(
      forAudience(`event: message\ndata: ${note("alice")}\n\nevent: message\ndata: ${note("bob")}\n\n`, "bob"),
      `event: message\n\nevent: message\ndata: ${JSON.stringify(bare)}\n\n`
    )
    // untagged, unparseable, or a mention outside _meta: the line passes unchanged
    const plain = '{"jsonrpc":"2.0","method":"notifications/message","params":{"text":"heed.dev/audience"}}'
    assert.strictEqual(forAudience(plain, "bob"), plain)
    const noParams = '{"jsonrpc":"2.0","method":"m","x":"heed.dev/audience"}'
    assert.strictEqual(forAudience(noParams, "bob"), noParams)
    const metaString = '{"jsonrpc":"2.0","method":"m","params":{"_meta":"heed.dev/audience"}}'
    assert.strictEqual(forAudience(metaString, "bob"), metaString)
    const broken = 'data: {"heed.dev/audience": '
    assert.strictEqual(forAudience(`${broken}\n${note("a")}`, "b"), broken)
    assert.strictEqual(forAudience(`x\n${note("a")}`, "a"), `x\n${JSON.stringify(bare)}`)
    // the fast path: a text that never names the key is returned as it is
    assert.strictEqual(forAudience('{ "a" : 1 }', "bob"), '{ "a" : 1 }')
  })
})

describe("MCP body limit (issue 12 #4)", () => {
  it.live(
    "a body exactly at the limit is accepted and one byte over is refused, with or without content-length",
    () =>
      Effect.gen(function* () {
        const { base } = yield* startHttp(settingsFor({ maxBodyBytes: 4096 }), memory)
        const { session } = yield* initialize(base)
        const atLimit = pingOfSize(4096)
        const over = pingOfSize(4097)
        assert.strictEqual(Buffer.byteLength(atLimit), 4096)
        assert.strictEqual(Buffer.byteLength(over), 4097)
        assert.strictEqual((yield* post(base, atLimit, inSession(session))).status, 200)
        const refused = yield* post(base, over, inSession(session))
        assert.strictEqual(refused.status, 413)
        assert.strictEqual(refused.headers.get("connection"), "close")
        assert.deepStrictEqual(JSON.parse(refused.text), {
          jsonrpc: "2.0",
          id: null,
          error: { code: -32600, message: "Request body too large: the limit is 4096 bytes (HEED_MAX_BODY_BYTES)." }
        })
        assert.strictEqual((yield* postStreamed(base, atLimit, inSession(session))).status, 200)
        const streamed = yield* postStreamed(base, over, inSession(session))
        assert.strictEqual(streamed.status, 413)
        assert.strictEqual(JSON.parse(streamed.text).error.code, -32600)
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live(
    "a declared huge content-length is refused at once, before the short body that follows it ends",
    () =>
      Effect.gen(function* () {
        const { base } = yield* startHttp(settingsFor({ maxBodyBytes: 4096 }), memory)
        const { session } = yield* initialize(base)
        const socket = tcpConnect(Number(new URL(base).port), "127.0.0.1")
        yield* Effect.addFinalizer(() => Effect.sync(() => socket.destroy()))
        socket.on("error", () => undefined)
        // the request claims a gigabyte and sends a few bytes: the answer comes while the body is still unfinished
        const answer = yield* Effect.promise(
          () =>
            new Promise<string>((resolve) => {
              let text = ""
              socket.on("data", (chunk) => {
                text += chunk.toString()
                if (text.includes("\r\n\r\n")) resolve(text)
              })
              socket.write(
                [
                  "POST /mcp HTTP/1.1",
                  "host: 127.0.0.1",
                  "content-type: application/json",
                  "accept: application/json, text/event-stream",
                  `mcp-session-id: ${session}`,
                  "mcp-protocol-version: 2025-06-18",
                  "content-length: 1000000000",
                  "",
                  '{"jsonrpc":"2.0",'
                ].join("\r\n")
              )
            })
        )
        assert.match(answer, /^HTTP\/1\.1 413 /)
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live(
    "the guard covers the MCP path with a query string, and leaves other paths to their own routes",
    () =>
      Effect.gen(function* () {
        const { base } = yield* startHttp(settingsFor({ maxBodyBytes: 4096 }), memory)
        const { session } = yield* initialize(base)
        const withQuery = yield* post(base, pingOfSize(4097), inSession(session), "/mcp?x=1")
        assert.strictEqual(withQuery.status, 413)
        const rest = yield* post(base, JSON.stringify({ jsonrpc: "2.0" }), {}, "/v1/status")
        assert.strictEqual(rest.status, 400)
        assert.include(rest.headers.get("content-type") ?? "", "application/problem+json")
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )
})

describe("MCP reply limit", () => {
  it.live(
    "a reply over the limit becomes a JSON-RPC error naming both sizes; a reply exactly at the limit is sent",
    () =>
      Effect.gen(function* () {
        const tiny = yield* startHttp(settingsFor({ maxResponseBytes: 1 }), memory)
        const first = yield* initialize(tiny.base)
        const refused = yield* post(tiny.base, ping(5), inSession(first.session))
        assert.strictEqual(refused.status, 200)
        const error = JSON.parse(refused.text)
        assert.deepStrictEqual([error.id, error.error.code], [5, -32000])
        const size = Number(
          /^The reply is (\d+) bytes, over this server's limit of 1 bytes/.exec(error.error.message)?.[1]
        )
        assert.isAbove(size, 1)
        const exact = yield* startHttp(settingsFor({ maxResponseBytes: size }), memory)
        const second = yield* initialize(exact.base)
        const sent = yield* post(exact.base, ping(5), inSession(second.session))
        assert.deepStrictEqual(JSON.parse(sent.text), { jsonrpc: "2.0", id: 5, result: {} })
        assert.strictEqual(Buffer.byteLength(sent.text), size)
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )
})

describe("MCP sessions", () => {
  it.live(
    "a session idle for exactly the idle time expires; a millisecond less keeps it; 0 disables expiry",
    () =>
      Effect.gen(function* () {
        const frozen = makeFrozen()
        const { base } = yield* startHttp(settingsFor({ sessionIdleMs: 60_000 }), memory, frozen)
        const { session } = yield* initialize(base)
        frozen.advance(59_999)
        assert.strictEqual((yield* post(base, ping(1), inSession(session))).status, 200)
        frozen.advance(60_000)
        const expired = yield* post(base, ping(2), inSession(session))
        assert.strictEqual(expired.status, 404)
        assert.deepStrictEqual(JSON.parse(expired.text), {
          jsonrpc: "2.0",
          id: null,
          error: {
            code: -32001,
            message: "Session expired after 60 s without requests (HEED_SESSION_IDLE_SEC): send a new initialize."
          }
        })

        const never = makeFrozen()
        const forever = yield* startHttp(settingsFor({ sessionIdleMs: 0 }), memory, never)
        const kept = yield* initialize(forever.base)
        never.advance(10 * 365 * 86_400_000)
        assert.strictEqual((yield* post(forever.base, ping(3), inSession(kept.session))).status, 200)
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live(
    "an initialize at the cap first ends idle sessions, in the transport too",
    () =>
      Effect.gen(function* () {
        const frozen = makeFrozen()
        const { base } = yield* startHttp(settingsFor({ sessionIdleMs: 60_000, maxSessions: 1 }), memory, frozen)
        const idle = yield* initialize(base)
        frozen.advance(60_000)
        const fresh = yield* initialize(base)
        assert.strictEqual(fresh.status, 200)
        assert.strictEqual((yield* post(base, ping(1), inSession(idle.session))).status, 404)
        assert.strictEqual((yield* post(base, ping(2), inSession(fresh.session))).status, 200)
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live(
    "a session ended with DELETE no longer counts against the caps",
    () =>
      Effect.gen(function* () {
        const { base } = yield* startHttp(settingsFor({ maxSessions: 1 }), memory)
        const first = yield* initialize(base)
        assert.strictEqual((yield* initialize(base)).status, 503)
        const deleted = yield* Effect.promise(() =>
          fetch(`${base}/mcp`, { method: "DELETE", headers: inSession(first.session) }).then((r) => r.status)
        )
        assert.strictEqual(deleted, 204)
        assert.strictEqual((yield* initialize(base)).status, 200)
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live(
    "an owner at its own cap gets 429 with retry-after; other owners still get in",
    () =>
      Effect.gen(function* () {
        const { base } = yield* startHttp(withAuth({ maxSessions: 10, maxSessionsPerOwner: 2 }), memory)
        assert.strictEqual((yield* initialize(base, bearer("alice"))).status, 200)
        assert.strictEqual((yield* initialize(base, bearer("alice"))).status, 200)
        const third = yield* initialize(base, bearer("alice"))
        assert.strictEqual(third.status, 429)
        assert.strictEqual(third.headers.get("retry-after"), "60")
        assert.deepStrictEqual(JSON.parse(third.text), {
          jsonrpc: "2.0",
          id: 1,
          error: {
            code: -32000,
            message:
              "Too many open sessions for this owner (the limit is 2 per owner, HEED_MAX_SESSIONS_PER_OWNER): end unused ones with DELETE /mcp or retry after idle ones expire."
          }
        })
        assert.strictEqual((yield* initialize(base, bearer("bob"))).status, 200)
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live(
    "at the server's cap the owner holding two more gives up its least recently used session; one more is not enough",
    () =>
      Effect.gen(function* () {
        const frozen = makeFrozen()
        const { base } = yield* startHttp(withAuth({ maxSessions: 3 }), memory, frozen)
        const alice1 = yield* initialize(base, bearer("alice"))
        frozen.advance(1)
        const alice2 = yield* initialize(base, bearer("alice"))
        frozen.advance(1)
        const bob = yield* initialize(base, bearer("bob"))
        frozen.advance(1)
        // alice's first session is used again: her second is now the least recently used
        assert.strictEqual(
          (yield* post(base, ping(1), { ...bearer("alice"), ...inSession(alice1.session) })).status,
          200
        )
        frozen.advance(1)
        // carol (0) against alice (2): alice gives up her least recently used session
        const carol = yield* initialize(base, bearer("carol"))
        assert.strictEqual(carol.status, 200)
        assert.strictEqual(
          (yield* post(base, ping(2), { ...bearer("alice"), ...inSession(alice2.session) })).status,
          404
        )
        assert.strictEqual(
          (yield* post(base, ping(3), { ...bearer("alice"), ...inSession(alice1.session) })).status,
          200
        )
        assert.strictEqual((yield* post(base, ping(4), { ...bearer("bob"), ...inSession(bob.session) })).status, 200)
        // one each now: dave (0) against one is refused with 503
        const dave = yield* initialize(base, bearer("dave"))
        assert.strictEqual(dave.status, 503)
        assert.strictEqual(dave.headers.get("retry-after"), "60")
        assert.deepStrictEqual(JSON.parse(dave.text).error, {
          code: -32000,
          message:
            "Too many open sessions (the limit is 3, HEED_MAX_SESSIONS): end unused ones with DELETE /mcp or retry after idle ones expire."
        })
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )
})

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
