/**
 * The second hardening round (issue 27): what an adversarial probe found on the REST, MCP and SLOP edges, each case
 * through the real edge (HTTP with fetch, the official MCP SDK client, a real WebSocket), on the embedded store
 * (PGlite) and, where the store's own limits matter, on PostgreSQL too.
 */

import { get as httpGet } from "node:http"
import { assert, describe, it } from "@effect/vitest"
import { Limits } from "@heed/collator"
import { SlopClient } from "@heed/http"
import type { Message } from "@heed/state-tree"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import * as Socket from "effect/socket/Socket"
import type * as Backend from "../src/Backend.ts"
import type { Settings } from "../src/Settings.ts"
import * as Token from "../src/Token.ts"
import { callTool, connectHttp, ok, postgresReachable, settingsFor, startHttp } from "./harness.ts"
import { mirrorOf, send } from "./slop.ts"

const sockets = Socket.layerWebSocketConstructorGlobal
const databaseUrl = process.env.HEED_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"
const databaseReachable = await postgresReachable(databaseUrl, "the hardening tests on PostgreSQL")
const run = `${process.pid}-${Date.now().toString(36)}`

const slopUrl = (base: string) => `${base.replace("http://", "ws://")}/slop`

const stores: ReadonlyArray<readonly [string, Backend.StoreKind, boolean]> = [
  ["PGlite", { _tag: "embedded", dataDir: "memory://" }, true],
  ["PostgreSQL", { _tag: "server", url: Redacted.make(databaseUrl) }, databaseReachable]
]

/** A problem's essentials: status, whether it is problem+json, its code and parameter. */
const shape = (reply: { status: number; type: string; body: { code?: string; parameter?: string } }) => [
  reply.status,
  reply.type.startsWith("application/problem+json"),
  reply.body.code,
  reply.body.parameter
]

describe.each(stores)("hardening on %s", (_name, store, reachable) => {
  // every owner is new to the database, so runs and stores never see each other's entries
  const settings = () => settingsFor({ defaultOwner: `harden-${_name}-${run}` })

  it.live.skipIf(!reachable)(
    "huge durations and long identifiers are invalid_parameter naming the field, never a store failure",
    () =>
      Effect.gen(function* () {
        const { base, url } = yield* startHttp(settings(), store)
        for (const minutes of [1e12, 1e10, 1e9]) {
          const reply = yield* send(base, "POST", "/v1/suppressions", { source: "nas", duration_minutes: minutes })
          assert.deepStrictEqual(shape(reply), [400, true, "invalid_parameter", "duration_minutes"], `${minutes}`)
          assert.include(reply.body.detail, `at most ${Limits.maxDurationMinutes}`)
        }
        const longest = yield* send(base, "POST", "/v1/suppressions", {
          source: "nas",
          duration_minutes: Limits.maxDurationMinutes
        })
        assert.strictEqual(longest.status, 200)

        const source = "s".repeat(2700)
        const writes: ReadonlyArray<readonly [string, unknown]> = [
          ["/v1/status", { source, tags: [], metrics: {} }],
          ["/v1/alerts", { source, tags: [], alert_id: "a", level: "warning", message: "m" }],
          ["/v1/suppressions", { source }]
        ]
        for (const [path, body] of writes) {
          const reply = yield* send(base, "POST", path, body)
          assert.deepStrictEqual(shape(reply), [400, true, "invalid_parameter", "source"], path)
        }
        const tag = yield* send(base, "POST", "/v1/status", { source: "nas", tags: ["t".repeat(2700)], metrics: {} })
        assert.deepStrictEqual(shape(tag), [400, true, "invalid_parameter", "tags"])
        const alertId = yield* send(base, "POST", "/v1/alerts", {
          source: "nas",
          tags: [],
          alert_id: "a".repeat(2700),
          level: "warning",
          message: "m"
        })
        assert.deepStrictEqual(shape(alertId), [400, true, "invalid_parameter", "alert_id"])
        const key = yield* send(base, "POST", "/v1/tools/set_preference", { key: "k".repeat(2700), value: "v" })
        assert.deepStrictEqual(shape(key), [400, true, "invalid_parameter", "key"])
        // in the path: just over the identifier limit the tool answers; far over it the router does
        for (const length of [Limits.maxIdentifierLength + 1, 2700]) {
          const read = yield* send(base, "GET", `/v1/status/${"s".repeat(length)}`)
          assert.deepStrictEqual(shape(read), [400, true, "invalid_parameter", "source"], `${length}`)
        }

        const client = yield* connectHttp(url)
        const mcp = yield* callTool(client, "suppress_alert", { source: "nas", duration_minutes: 1e12 })
        assert.isTrue(mcp.isError)
        assert.deepStrictEqual([mcp.body.error.code, mcp.body.error.param], ["invalid_parameter", "duration_minutes"])
        const mcpSource = yield* callTool(client, "report_status", { source, tags: [], metrics: {} })
        assert.deepStrictEqual([mcpSource.body.error.code, mcpSource.body.error.param], ["invalid_parameter", "source"])
        // the server is still healthy and the store unharmed
        assert.strictEqual(
          (yield* send(base, "POST", "/v1/status", { source: "nas", tags: [], metrics: {} })).status,
          200
        )
      }),
    120_000
  )

  it.live.skipIf(!reachable)(
    "a field over its limit is 400 and an entry that grows past the store's limit is 413, naming the field",
    () =>
      Effect.gen(function* () {
        const { base } = yield* startHttp(settings(), store)
        const message = yield* send(base, "POST", "/v1/alerts", {
          source: "nas",
          tags: [],
          alert_id: "big",
          level: "warning",
          message: "m".repeat(1_048_300)
        })
        assert.deepStrictEqual(shape(message), [400, true, "invalid_parameter", "message"])
        assert.include(message.body.detail, `at most ${Limits.maxTextLength} characters`)

        const alert = { source: "nas", tags: [], alert_id: "grows", level: "warning", message: "m" }
        const first = yield* send(base, "POST", "/v1/alerts", { ...alert, details: { blob: "d".repeat(600_000) } })
        assert.strictEqual(first.status, 200)
        const grown = yield* send(base, "POST", "/v1/alerts", { ...alert, diagnostics: { more: "e".repeat(650_000) } })
        assert.deepStrictEqual(shape(grown), [413, true, "payload_too_large", "diagnostics"])
        assert.include(grown.body.detail, `over the limit of ${Limits.maxEntryBytes} bytes`)
        const alerts = yield* send(base, "GET", "/v1/alerts")
        assert.strictEqual(alerts.status, 200)
        assert.notProperty(alerts.body.entries[0].data, "diagnostics")
      }),
    120_000
  )
})

describe("hardening: bodies, parameters and replies", () => {
  const memory = { _tag: "embedded", dataDir: "memory://" } as const

  it.live(
    "a null or empty body never silences every warning; every source needs source '*'",
    () =>
      Effect.gen(function* () {
        const { base, url } = yield* startHttp(settingsFor(), memory)
        yield* send(base, "POST", "/v1/alerts", {
          source: "nas",
          tags: [],
          alert_id: "disk",
          level: "warning",
          message: "Disk filling up"
        })
        const nullBody = yield* send(base, "POST", "/v1/suppressions", "null")
        assert.deepStrictEqual(shape(nullBody), [400, true, "invalid_parameter", "body"])
        const emptyBody = yield* send(base, "POST", "/v1/suppressions", "")
        assert.deepStrictEqual(shape(emptyBody), [400, true, "invalid_parameter", "body"])
        const arrayBody = yield* send(base, "POST", "/v1/status", [])
        assert.deepStrictEqual(shape(arrayBody), [400, true, "invalid_parameter", "body"])
        const empty = yield* send(base, "POST", "/v1/suppressions", {})
        assert.deepStrictEqual(shape(empty), [400, true, "invalid_parameter", "source"])
        assert.include(empty.body.detail, 'source: "*"')
        const viaTool = yield* send(base, "POST", "/v1/tools/suppress_alert", "null")
        assert.deepStrictEqual(shape(viaTool), [400, true, "invalid_parameter", "source"])
        const client = yield* connectHttp(url)
        const mcp = yield* callTool(client, "suppress_alert", {})
        assert.deepStrictEqual([mcp.isError, mcp.body.error.param], [true, "source"])
        const status = yield* send(base, "POST", "/v1/status", null)
        assert.deepStrictEqual(shape(status), [400, true, "invalid_parameter", "body"])

        const briefing = yield* send(base, "GET", "/v1/briefing")
        assert.strictEqual(briefing.body.active_suppressions, 0)
        assert.isTrue(briefing.body.attention_needed)
        const everything = yield* send(base, "POST", "/v1/suppressions", { source: "*", reason: "maintenance" })
        assert.strictEqual(everything.status, 200)
        assert.isFalse((yield* send(base, "GET", "/v1/briefing")).body.attention_needed)
      }),
    120_000
  )

  it.live(
    "unknown parameters are refused with a did-you-mean on every tool and every REST route",
    () =>
      Effect.gen(function* () {
        const { base, url } = yield* startHttp(settingsFor(), memory)
        const client = yield* connectHttp(url)
        const at = yield* callTool(client, "remind", {
          goal: "Renew the certificate",
          source: "ops",
          tags: [],
          at: "2027-01-01T09:00:00Z"
        })
        assert.isTrue(at.isError)
        assert.deepStrictEqual([at.body.error.param, at.body.error.suggestion], ["at", "deliver_at"])
        assert.include(at.body.error.message, "Did you mean 'deliver_at'?")
        const severity = yield* callTool(client, "report_alert", {
          source: "nas",
          tags: [],
          alert_id: "disk",
          level: "warning",
          message: "m",
          severity: "high"
        })
        assert.deepStrictEqual([severity.isError, severity.body.error.param], [true, "severity"])
        const intentions = yield* ok(client, "get_intentions", {})
        assert.strictEqual(intentions.entries.length, 0)

        const remind = yield* send(base, "POST", "/v1/intentions", {
          goal: "g",
          source: "ops",
          tags: [],
          at: "2027-01-01T09:00:00Z"
        })
        assert.deepStrictEqual(shape(remind), [400, true, "invalid_parameter", "at"])
        assert.strictEqual(remind.body.suggestion, "deliver_at")
        const query = yield* send(base, "GET", "/v1/alerts?sorce=nas")
        assert.deepStrictEqual(shape(query), [400, true, "invalid_parameter", "sorce"])
        assert.strictEqual(query.body.suggestion, "source")
        const briefing = yield* send(base, "GET", "/v1/briefing?fromat=text")
        assert.deepStrictEqual([briefing.status, briefing.body.suggestion], [400, "format"])
        const stranger = yield* send(base, "POST", "/v1/status?verbose=1", { source: "s", tags: [], metrics: {} })
        assert.deepStrictEqual(shape(stranger), [400, true, "invalid_parameter", "verbose"])
      }),
    120_000
  )

  it.live(
    "every non-2xx /v1 reply is problem+json: 415, 405 with Allow, undecodable paths, unknown routes; format=text",
    () =>
      Effect.gen(function* () {
        const { base } = yield* startHttp(settingsFor(), memory)
        const unsupported = yield* send(base, "POST", "/v1/status", "source=nas", { "content-type": "text/plain" })
        assert.deepStrictEqual(shape(unsupported), [415, true, "unsupported_media_type", undefined])
        const wrong = yield* Effect.promise(() => fetch(`${base}/v1/status`, { method: "PUT" }))
        assert.strictEqual(wrong.status, 405)
        assert.strictEqual(wrong.headers.get("allow"), "POST")
        assert.include(wrong.headers.get("content-type") ?? "", "application/problem+json")
        assert.strictEqual(((yield* Effect.promise(() => wrong.json())) as { code: string }).code, "method_not_allowed")
        const undecodable = yield* send(base, "GET", "/v1/status/%ff")
        assert.deepStrictEqual(shape(undecodable), [400, true, "invalid_parameter", "source"])
        const nope = yield* send(base, "GET", "/v1/nope")
        assert.deepStrictEqual(shape(nope), [404, true, "not_found", undefined])
        const root = yield* send(base, "GET", "/v1")
        assert.deepStrictEqual(shape(root), [404, true, "not_found", undefined])

        yield* send(base, "POST", "/v1/alerts", {
          source: "nas",
          tags: [],
          alert_id: "disk",
          level: "critical",
          message: "Disk almost full"
        })
        const text = yield* send(base, "GET", "/v1/briefing?format=text")
        assert.strictEqual(text.status, 200)
        assert.include(text.type, "text/plain")
        assert.isString(text.body)
        assert.include(text.body, "Disk almost full")
        const json = yield* send(base, "GET", "/v1/briefing?format=json&explain=false")
        assert.include(json.type, "application/json")
        assert.notProperty(json.body, "evaluation")
        const bad = yield* send(base, "GET", "/v1/briefing?format=txt")
        assert.deepStrictEqual([bad.status, bad.body.parameter, bad.body.suggestion], [400, "format", "text"])
      }),
    120_000
  )

  it.live(
    "SLOP: a suppress invoke with a huge duration is refused; unsubscribe of an unknown id gets SLOP's error",
    () =>
      Effect.gen(function* () {
        const { base } = yield* startHttp(settingsFor(), memory)
        yield* send(base, "POST", "/v1/alerts", {
          source: "nas",
          tags: [],
          alert_id: "disk",
          level: "warning",
          message: "Disk filling up"
        })
        const { consumer } = yield* mirrorOf(slopUrl(base))
        const refused = yield* Effect.exit(consumer.invoke("/sources/nas", "suppress", { duration_minutes: 1e12 }))
        assert.isTrue(Exit.isFailure(refused))
        assert.include(JSON.stringify(refused), "duration_minutes")
        assert.include(JSON.stringify(refused), `at most ${Limits.maxDurationMinutes}`)
        const stray = yield* Effect.exit(consumer.invoke("/sources/nas", "suppress", { duration: 5 }))
        assert.include(JSON.stringify(stray), "duration_minutes")

        const client = yield* SlopClient.make({ url: slopUrl(base) })
        yield* client.send({ type: "unsubscribe", id: "never-subscribed" })
        const answer = yield* client.messages.pipe(
          Stream.filter((message: Message.Outbound) => message.type === "error"),
          Stream.take(1),
          Stream.runHead,
          Effect.timeout("10 seconds")
        )
        assert.strictEqual(answer._tag, "Some")
        const error = answer._tag === "Some" ? (answer.value as Message.ErrorMessage) : undefined
        assert.deepStrictEqual([error?.id, error?.error.code], ["never-subscribed", "not_found"])
      }).pipe(Effect.provide(sockets)),
    120_000
  )
})

describe("hardening: each owner gets a fair share of sessions and connections", () => {
  const memory = { _tag: "embedded", dataDir: "memory://" } as const
  const secret = "fair-share-secret-0123456789"
  const tokenFor = (sub: string) =>
    Token.sign({ sub, secret, nowSec: Math.floor(Date.now() / 1000), expiresInSec: 3600 })
  const withAuth = (overrides: Partial<Settings> = {}) =>
    settingsFor({ authRequired: true, secret: Option.some(Redacted.make(secret)), ...overrides })

  const mcp = (base: string, token: string, body: unknown, session?: string) =>
    Effect.promise(async () => {
      const response = await fetch(`${base}/mcp`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${token}`,
          ...(session === undefined ? {} : { "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" })
        },
        body: JSON.stringify(body)
      })
      return {
        status: response.status,
        session: response.headers.get("mcp-session-id") ?? "",
        text: await response.text()
      }
    })
  const initialize = (base: string, token: string) =>
    mcp(base, token, {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "probe", version: "1" } }
    })
  const ping = (base: string, token: string, session: string) =>
    Effect.map(mcp(base, token, { jsonrpc: "2.0", id: 2, method: "ping" }, session), (reply) => reply.status)

  it.live(
    "MCP: one owner holding every session never blocks another; a per-owner cap answers 429",
    () =>
      Effect.gen(function* () {
        const { base, url } = yield* startHttp(withAuth({ maxSessions: 4 }), memory)
        const alice = tokenFor("alice")
        const hers: Array<string> = []
        for (let i = 0; i < 4; i++) {
          const reply = yield* initialize(base, alice)
          assert.strictEqual(reply.status, 200)
          hers.push(reply.session)
        }
        // the server is full of alice's sessions: bob still gets in (the official SDK client), with his own data
        const bob = yield* connectHttp(url, tokenFor("bob"))
        const status = yield* ok(bob, "get_stats", {})
        assert.strictEqual(status.total, 0)
        // alice's least recently used session made room; her others still work
        assert.strictEqual(yield* ping(base, alice, hers[0]!), 404)
        for (const session of hers.slice(1)) assert.strictEqual(yield* ping(base, alice, session), 200)
        // alice (3) holding more than bob (1) cannot take his place, and gets a clear 503
        const refused = yield* initialize(base, alice)
        assert.strictEqual(refused.status, 503)
        assert.include(refused.text, "HEED_MAX_SESSIONS")

        const capped = yield* startHttp(withAuth({ maxSessions: 10, maxSessionsPerOwner: 2 }), memory)
        for (let i = 0; i < 2; i++) assert.strictEqual((yield* initialize(capped.base, alice)).status, 200)
        const third = yield* initialize(capped.base, alice)
        assert.strictEqual(third.status, 429)
        assert.include(third.text, "HEED_MAX_SESSIONS_PER_OWNER")
        assert.strictEqual((yield* initialize(capped.base, tokenFor("bob"))).status, 200)
      }),
    120_000
  )

  it.live(
    "SLOP: one owner holding every connection never blocks another; a per-owner cap answers 429",
    () =>
      Effect.gen(function* () {
        const { base } = yield* startHttp(withAuth({ maxSlopConnections: 3 }), memory)
        const alice = tokenFor("alice")
        for (let i = 0; i < 3; i++) yield* SlopClient.make({ url: slopUrl(base), token: alice })
        // bob connects and is served his own tree while alice holds every connection
        const bob = yield* mirrorOf(slopUrl(base), tokenFor("bob"))
        const tree = yield* bob.consumer.query({ depth: 1 })
        assert.isDefined(tree)
        // alice (2) holding more than bob (1) cannot take his place
        const refused = yield* Effect.exit(SlopClient.make({ url: slopUrl(base), token: alice }))
        assert.isTrue(Exit.isFailure(refused))

        const capped = yield* startHttp(withAuth({ maxSlopConnectionsPerOwner: 2 }), memory)
        // a refused upgrade's status, read with node's own client (fetch will not send an upgrade)
        const upgrade = (token: string) =>
          Effect.promise(
            () =>
              new Promise<number>((resolve, reject) => {
                const request = httpGet(`${capped.base}/slop`, {
                  headers: {
                    connection: "Upgrade",
                    upgrade: "websocket",
                    "sec-websocket-version": "13",
                    "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
                    authorization: `Bearer ${token}`
                  }
                })
                request.on("response", (response) => {
                  response.resume()
                  resolve(response.statusCode ?? 0)
                })
                request.on("upgrade", (_response, socket) => {
                  socket.destroy()
                  resolve(101)
                })
                request.on("error", reject)
              })
          )
        for (let i = 0; i < 2; i++) yield* SlopClient.make({ url: slopUrl(capped.base), token: alice })
        assert.strictEqual(yield* upgrade(alice), 429)
        yield* SlopClient.make({ url: slopUrl(capped.base), token: tokenFor("bob") })
      }).pipe(Effect.provide(sockets)),
    120_000
  )
})
