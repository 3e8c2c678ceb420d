import { createHmac } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Token from "../src/Token.ts"
import { callTool, connectHttp, ok, settingsFor, startHttp } from "./harness.ts"

const secret = "test-secret-that-is-long-enough"
const now = () => Math.floor(Date.now() / 1000)
const tokenFor = (sub: string, expiresInSec = 3600) => Token.sign({ sub, secret, nowSec: now(), expiresInSec })

const initialize = (base: string, headers: Record<string, string> = {}) =>
  Effect.promise(() =>
    fetch(`${base}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "curl", version: "1" } }
      })
    })
  )

describe("bearer auth", () => {
  it.live(
    "401 without a valid token; /health stays open; owners never see each other's entries",
    () =>
      Effect.gen(function* () {
        const settings = settingsFor({ authRequired: true, secret: Option.some(Redacted.make(secret)) })
        const { base, url } = yield* startHttp(settings, { _tag: "embedded", dataDir: "memory://" })

        const anonymous = yield* initialize(base)
        assert.strictEqual(anonymous.status, 401)
        assert.include(anonymous.headers.get("www-authenticate") ?? "", "Bearer")
        const forged = yield* initialize(base, {
          authorization: `Bearer ${Token.sign({ sub: "alice", secret: "wrong", nowSec: now(), expiresInSec: 60 })}`
        })
        assert.strictEqual(forged.status, 401)
        const expired = yield* initialize(base, {
          authorization: `Bearer ${Token.sign({ sub: "alice", secret, nowSec: now() - 7200, expiresInSec: 60 })}`
        })
        assert.strictEqual(expired.status, 401)
        const health = yield* Effect.promise(() => fetch(`${base}/health`))
        assert.strictEqual(health.status, 200)
        assert.strictEqual(((yield* Effect.promise(() => health.json())) as { status: string }).status, "ok")
        const accepted = yield* initialize(base, { authorization: `Bearer ${tokenFor("alice")}` })
        assert.strictEqual(accepted.status, 200)

        const sdkWithout = yield* Effect.exit(connectHttp(url))
        assert.isTrue(sdkWithout._tag === "Failure")

        const alice = yield* connectHttp(url, tokenFor("alice"))
        const bob = yield* connectHttp(url, tokenFor("bob"))
        yield* ok(alice, "report_status", { source: "alice-nas", tags: [], metrics: { disk: 1 } })
        const secretAlert = yield* ok(alice, "report_alert", {
          source: "alice-nas",
          tags: ["private"],
          alert_id: "a1",
          level: "critical",
          message: "Alice's disk failed"
        })
        yield* ok(alice, "remember", { source: "alice", tags: ["private"], description: "Alice's secret" })

        const bobBriefing = yield* ok(bob, "get_briefing")
        assert.deepStrictEqual(bobBriefing.sources, {})
        assert.strictEqual(bobBriefing.attention_needed, false)
        assert.deepStrictEqual((yield* ok(bob, "get_alerts")).entries, [])
        assert.deepStrictEqual((yield* ok(bob, "get_knowledge")).entries, [])
        assert.strictEqual((yield* ok(bob, "get_stats")).total, 0)
        assert.deepStrictEqual(yield* ok(bob, "get_tags"), [])
        assert.deepStrictEqual(yield* ok(bob, "search", { query: "secret" }), [])
        const probe = yield* callTool(bob, "get_status", { source: "alice-nas" })
        assert.deepStrictEqual([probe.isError, probe.body.error.code], [true, "not_found"])
        // Bob cannot touch Alice's entry by id either.
        yield* callTool(bob, "delete_entry", { entry_id: secretAlert.id })
        const aliceBriefing = yield* ok(alice, "get_briefing")
        assert.strictEqual(aliceBriefing.sources["alice-nas"].status, "critical")
        assert.strictEqual(aliceBriefing.sources["alice-nas"].headline, "Alice's disk failed")
      }).pipe(Effect.scoped),
    { timeout: 120_000 }
  )
})

describe("origin check", () => {
  it.live(
    "browser requests from an unlisted Origin get 403; listed origins and Origin-less clients pass",
    () =>
      Effect.gen(function* () {
        const { base } = yield* startHttp(settingsFor({ allowedOrigins: ["http://localhost:6274"] }), {
          _tag: "embedded",
          dataDir: "memory://"
        })
        assert.strictEqual((yield* initialize(base, { origin: "http://evil.example" })).status, 403)
        assert.strictEqual((yield* initialize(base, { origin: "http://localhost:6274" })).status, 200)
        assert.strictEqual((yield* initialize(base)).status, 200)
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )
})

describe("Token", () => {
  it("signs HS256 tokens whose sub is the owner and verifies them", () => {
    const token = Token.sign({ sub: "alice", secret, nowSec: 1000, expiresInSec: 60 })
    const verdict = Token.verify(token, secret, 1030)
    assert.isTrue(verdict.ok)
    if (verdict.ok) assert.deepStrictEqual(verdict.claims, { sub: "alice", iat: 1000, exp: 1060 })
    const header = JSON.parse(Buffer.from(token.split(".")[0]!, "base64url").toString("utf8"))
    assert.deepStrictEqual(header, { alg: "HS256", typ: "JWT" })
  })

  it("refuses expired, tampered, unsigned and subject-less tokens", () => {
    const token = Token.sign({ sub: "alice", secret, nowSec: 1000, expiresInSec: 60 })
    assert.deepStrictEqual(Token.verify(token, secret, 1060, 0), { ok: false, reason: "expired" })
    assert.deepStrictEqual(Token.verify(token, "other", 1001), { ok: false, reason: "bad_signature" })
    const [header, , signature] = token.split(".")
    const forgedPayload = Buffer.from(JSON.stringify({ sub: "root", iat: 1000 })).toString("base64url")
    assert.deepStrictEqual(Token.verify(`${header}.${forgedPayload}.${signature}`, secret, 1001), {
      ok: false,
      reason: "bad_signature"
    })
    const none = Buffer.from(JSON.stringify({ alg: "none", typ: "JWT" })).toString("base64url")
    assert.deepStrictEqual(Token.verify(`${none}.${forgedPayload}.`, secret, 1001), {
      ok: false,
      reason: "unsupported_algorithm"
    })
    assert.deepStrictEqual(Token.verify("garbage", secret, 1), { ok: false, reason: "malformed" })
    const noSub = Token.sign({ sub: "", secret, nowSec: 1000 })
    assert.deepStrictEqual(Token.verify(noSub, secret, 1001), { ok: false, reason: "no_subject" })
  })

  const forge = (claims: Record<string, unknown>) => {
    const header = Buffer.from(JSON.stringify({ alg: "HS256", typ: "JWT" })).toString("base64url")
    const payload = Buffer.from(JSON.stringify(claims)).toString("base64url")
    const mac = createHmac("sha256", secret).update(`${header}.${payload}`).digest("base64url")
    return `${header}.${payload}.${mac}`
  }

  it("refuses signed tokens whose exp or nbf is not a number (a string exp used to never expire)", () => {
    for (const bad of ["1", null, "9999999999", true, {}]) {
      assert.deepStrictEqual(Token.verify(forge({ sub: "alice", iat: 1000, exp: bad }), secret, 1001), {
        ok: false,
        reason: "bad_time_claim"
      })
      assert.deepStrictEqual(Token.verify(forge({ sub: "alice", iat: 1000, nbf: bad }), secret, 1001), {
        ok: false,
        reason: "bad_time_claim"
      })
    }
  })

  it("honours nbf and allows the configured clock skew on exp and nbf", () => {
    const later = forge({ sub: "alice", iat: 1000, nbf: 2000, exp: 3000 })
    assert.deepStrictEqual(Token.verify(later, secret, 1000, 0), { ok: false, reason: "not_yet_valid" })
    assert.deepStrictEqual(Token.verify(later, secret, 1969, 30), { ok: false, reason: "not_yet_valid" })
    assert.isTrue(Token.verify(later, secret, 1970, 30).ok)
    assert.isTrue(Token.verify(later, secret, 2000, 0).ok)
    assert.isTrue(Token.verify(later, secret, 3029, 30).ok)
    assert.deepStrictEqual(Token.verify(later, secret, 3030, 30), { ok: false, reason: "expired" })
    assert.deepStrictEqual(Token.verify(later, secret, 3000, 0), { ok: false, reason: "expired" })
    assert.strictEqual(Token.defaultSkewSec, 30)
  })

  it("parses --expires durations", () => {
    assert.strictEqual(Token.parseDuration("30d"), 30 * 86_400)
    assert.strictEqual(Token.parseDuration("12h"), 43_200)
    assert.strictEqual(Token.parseDuration("45m"), 2700)
    assert.strictEqual(Token.parseDuration("2w"), 1_209_600)
    assert.isUndefined(Token.parseDuration("never"))
    assert.isNull(Token.parseDuration("soon"))
    assert.isNull(Token.parseDuration("0d"))
    assert.strictEqual(Token.fromAuthorization("Bearer abc.def.ghi"), "abc.def.ghi")
    assert.isUndefined(Token.fromAuthorization("Basic xyz"))
  })
})
