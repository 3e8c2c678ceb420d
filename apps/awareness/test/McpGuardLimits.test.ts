import { connect as tcpConnect } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type { Settings } from "../src/Settings.ts"
import * as Token from "../src/Token.ts"
import { makeTravel, settingsFor, startHttp } from "./harness.ts"
import { initialize, inSession, memory, ping, post } from "./mcpRaw.ts"

/**
 * The MCP guard's limits through the real HTTP server: request and reply sizes at their boundaries, session expiry,
 * the server's and each owner's session caps, and the guard's own JSON-RPC errors.
 */

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

const secret = "mcp-guard-test-secret-0123456789"
const bearer = (sub: string) => ({
  authorization: `Bearer ${Token.sign({ sub, secret, nowSec: Math.floor(Date.now() / 1000), expiresInSec: 3600 })}`
})
const withAuth = (overrides: Partial<Settings> = {}) =>
  settingsFor({ authRequired: true, secret: Option.some(Redacted.make(secret)), ...overrides })

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
        const frozen = makeTravel(undefined, { frozenMonotonic: true })
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

        const never = makeTravel(undefined, { frozenMonotonic: true })
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
        const frozen = makeTravel(undefined, { frozenMonotonic: true })
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
    "at the server's cap the owner holding two more than the newcomer gives up its least recently used session; one more is not enough",
    () =>
      Effect.gen(function* () {
        const frozen = makeTravel(undefined, { frozenMonotonic: true })
        const { base } = yield* startHttp(withAuth({ maxSessions: 4 }), memory, frozen)
        const as = (who: string, session: string) => ({ ...bearer(who), ...inSession(session) })
        const bob = yield* initialize(base, bearer("bob"))
        const alice: Array<string> = []
        for (let i = 0; i < 3; i++) {
          frozen.advance(1)
          alice.push((yield* initialize(base, bearer("alice"))).session)
        }
        frozen.advance(1)
        // alice's first session is used again: her second is now her least recently used (bob's is the oldest)
        assert.strictEqual((yield* post(base, ping(1), as("alice", alice[0]!))).status, 200)
        frozen.advance(1)
        // carol (0) against alice (3): alice's second session ends
        assert.strictEqual((yield* initialize(base, bearer("carol"))).status, 200)
        assert.strictEqual((yield* post(base, ping(2), as("alice", alice[1]!))).status, 404)
        frozen.advance(1)
        // dave (0) against alice (2, exactly two more): alice's third session, now her least recently used, ends
        assert.strictEqual((yield* initialize(base, bearer("dave"))).status, 200)
        assert.strictEqual((yield* post(base, ping(3), as("alice", alice[2]!))).status, 404)
        assert.strictEqual((yield* post(base, ping(4), as("alice", alice[0]!))).status, 200)
        assert.strictEqual((yield* post(base, ping(5), as("bob", bob.session))).status, 200)
        // one each now: erin (0) against one is refused with 503
        const erin = yield* initialize(base, bearer("erin"))
        assert.strictEqual(erin.status, 503)
        assert.strictEqual(erin.headers.get("retry-after"), "60")
        assert.deepStrictEqual(JSON.parse(erin.text).error, {
          code: -32000,
          message:
            "Too many open sessions (the limit is 4, HEED_MAX_SESSIONS): end unused ones with DELETE /mcp or retry after idle ones expire."
        })
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )
  it.live(
    "at the server's cap ties go to the earliest opened: of two owners holding the most, the one that opened first gives up its first session",
    () =>
      Effect.gen(function* () {
        // The clock never moves: every session was last used at the same instant.
        const frozen = makeTravel(undefined, { frozenMonotonic: true })
        const { base } = yield* startHttp(withAuth({ maxSessions: 4 }), memory, frozen)
        const as = (who: string, session: string) => ({ ...bearer(who), ...inSession(session) })
        const opened: Array<readonly [string, string]> = []
        for (const who of ["alice", "alice", "bob", "bob"]) {
          opened.push([who, (yield* initialize(base, bearer(who))).session])
        }
        // carol (0) against alice (2) and bob (2): alice opened first, and her first session ends
        assert.strictEqual((yield* initialize(base, bearer("carol"))).status, 200)
        const alive: Array<number> = []
        for (const [i, [who, session]] of opened.entries())
          alive.push((yield* post(base, ping(i), as(who, session))).status)
        assert.deepStrictEqual(alive, [404, 200, 200, 200])
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live(
    "an initialize the transport refuses opens no session; a DELETE the transport refuses ends none",
    () =>
      Effect.gen(function* () {
        const { base } = yield* startHttp(settingsFor({ maxSessions: 1 }), memory)
        const refused = yield* post(base, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }))
        assert.deepStrictEqual([refused.status, refused.headers.get("mcp-session-id")], [200, null])
        assert.strictEqual(JSON.parse(refused.text).error.code, -32602)
        // the cap of one is still free
        const open = yield* initialize(base)
        assert.strictEqual(open.status, 200)
        const badVersion = yield* Effect.promise(() =>
          fetch(`${base}/mcp`, {
            method: "DELETE",
            headers: { "mcp-session-id": open.session, "mcp-protocol-version": "1999-01-01" }
          }).then((r) => r.status)
        )
        assert.strictEqual(badVersion, 400)
        // the session is still open, so it still fills the cap
        assert.strictEqual((yield* initialize(base)).status, 503)
        assert.strictEqual((yield* post(base, ping(1), inSession(open.session))).status, 200)
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live(
    "a GET on the MCP path is the transport's to answer, not a JSON-RPC parse error",
    () =>
      Effect.gen(function* () {
        const { base } = yield* startHttp(settingsFor(), memory)
        const get = yield* Effect.promise(async () => {
          const response = await fetch(`${base}/mcp`, { method: "GET", headers: { accept: "text/event-stream" } })
          return [response.status, await response.text()]
        })
        assert.deepStrictEqual(get, [405, ""])
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )
})

describe("MCP request framing", () => {
  it.live(
    "an invalid request echoes a usable id and says what is wrong; a parse error passes on the parser's complaint; a batch is left to the transport",
    () =>
      Effect.gen(function* () {
        const { base } = yield* startHttp(settingsFor(), memory)
        const { session } = yield* initialize(base)
        const noMethod = yield* post(base, '{"jsonrpc":"2.0","id":4}', inSession(session))
        assert.deepStrictEqual(JSON.parse(noMethod.text), {
          jsonrpc: "2.0",
          id: 4,
          error: { code: -32600, message: 'Invalid Request: field "method" is required (a string)' }
        })
        const nullId = yield* post(base, '{"jsonrpc":"2.0","id":null,"method":"ping"}', inSession(session))
        assert.isNull(JSON.parse(nullId.text).id)
        const parse = yield* post(base, '{"jsonrpc":', inSession(session))
        assert.match(JSON.parse(parse.text).error.message, /^Parse error: the body is not JSON \(.+\)$/)
        const batch = yield* post(base, `[${ping(1)},${ping(2)}]`, inSession(session))
        // batches are the transport's to answer (it refuses them under 2025-06-18), not the guard's "must be an object"
        assert.deepStrictEqual([batch.status, batch.text], [400, ""])
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )
})
