/**
 * The OAuth 2.1 resource-server mode against a real issuer on loopback: a node:http server publishing RFC 8414
 * metadata and a JSON Web Key Set whose keys the tests generate with jose and rotate. Every edge is exercised over
 * real HTTP: REST, MCP through the official SDK client with a bearer header, the SLOP WebSocket, a dashboard read,
 * and the Protected Resource Metadata the SDK's own discovery reads.
 */
import { createHmac } from "node:crypto"
import { createServer, type IncomingHttpHeaders, request } from "node:http"
import type { AddressInfo } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { discoverOAuthServerInfo, extractWWWAuthenticateParams } from "@modelcontextprotocol/sdk/client/auth.js"
import { checkResourceAllowed } from "@modelcontextprotocol/sdk/shared/auth-utils.js"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Socket from "effect/socket/Socket"
import * as Jose from "jose"
import * as Auth from "../src/Auth.ts"
import * as Settings from "../src/Settings.ts"
import * as Token from "../src/Token.ts"
import { connectHttp, ok, settingsFor, startHttp } from "./harness.ts"
import { mirrorOf, send, under } from "./slop.ts"

const memory = { _tag: "embedded", dataDir: "memory://" } as const
const sockets = Socket.layerWebSocketConstructorGlobal
const nowSec = () => Math.floor(Date.now() / 1000)

// -----------------------------------------------------------------------------------------------------------------
// A signing key and a local issuer

interface Key {
  readonly kid: string
  readonly alg: "RS256" | "ES256" | "EdDSA"
  readonly privateKey: Jose.CryptoKey
  readonly jwk: Jose.JWK
  readonly spki: string
}

const makeKey = (kid: string, alg: Key["alg"]) =>
  Effect.promise(async (): Promise<Key> => {
    const pair = await Jose.generateKeyPair(alg, { extractable: true })
    const jwk = { ...(await Jose.exportJWK(pair.publicKey)), kid, alg, use: "sig" }
    return { kid, alg, privateKey: pair.privateKey, jwk, spki: await Jose.exportSPKI(pair.publicKey) }
  })

/**
 * An authorization server on 127.0.0.1: its metadata (at RFC 8414's path for an issuer without a path; at OpenID
 * Connect's appended path for one with a path, so discovery has to fall back), and its key set, which the test
 * changes (`keys`) or takes down (`down`: 503). Counts the key-set fetches.
 */
const startIssuer = (options: { readonly path?: string } = {}) =>
  Effect.acquireRelease(
    Effect.promise(
      () =>
        new Promise<{
          readonly issuer: string
          readonly state: { keys: Array<Key>; jwksDown: boolean; metadataDown: boolean; jwksFetches: number }
          readonly close: () => Promise<void>
        }>((resolve) => {
          const state = { keys: [] as Array<Key>, jwksDown: false, metadataDown: false, jwksFetches: 0 }
          const path = options.path ?? ""
          let origin = ""
          const server = createServer((req, res) => {
            const reply = (status: number, body: unknown) => {
              res.writeHead(status, { "content-type": "application/json" })
              res.end(JSON.stringify(body))
            }
            const metadataAt =
              path === "" ? "/.well-known/oauth-authorization-server" : `${path}/.well-known/openid-configuration`
            if (req.url === metadataAt) {
              if (state.metadataDown) return reply(500, { error: "down" })
              return reply(200, {
                issuer: `${origin}${path}`,
                jwks_uri: `${origin}${path}/jwks`,
                authorization_endpoint: `${origin}${path}/authorize`,
                token_endpoint: `${origin}${path}/token`,
                response_types_supported: ["code"],
                code_challenge_methods_supported: ["S256"]
              })
            }
            if (req.url === `${path}/jwks`) {
              state.jwksFetches += 1
              if (state.jwksDown) return reply(503, { error: "down" })
              return reply(200, { keys: state.keys.map((key) => key.jwk) })
            }
            return reply(404, { error: "not_found" })
          })
          server.listen(0, "127.0.0.1", () => {
            origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
            resolve({
              issuer: `${origin}${path}`,
              state,
              close: () =>
                new Promise<void>((done) => {
                  server.closeAllConnections()
                  server.close(() => done())
                })
            })
          })
        })
    ),
    (issuer) => Effect.promise(() => issuer.close())
  )

interface Claims {
  readonly sub?: string | undefined
  readonly iss?: string | undefined
  readonly aud?: string | undefined
  readonly exp?: number | undefined
  readonly nbf?: number | undefined
  readonly [claim: string]: unknown
}

/** An access token signed with `key` (claims default to a valid token for `aud`, one hour long). */
const sign = (key: Key, claims: Claims, header: Record<string, unknown> = {}) =>
  Effect.promise(() => {
    const { aud, exp, iss, nbf, sub, ...rest } = claims
    const jwt = new Jose.SignJWT(sub === undefined ? rest : { ...rest, sub }).setProtectedHeader({
      alg: key.alg,
      kid: key.kid,
      typ: "at+jwt",
      ...header
    })
    if (iss !== undefined) jwt.setIssuer(iss)
    if (aud !== undefined) jwt.setAudience(aud)
    jwt.setIssuedAt(nowSec())
    if (exp !== undefined) jwt.setExpirationTime(exp)
    if (nbf !== undefined) jwt.setNotBefore(nbf)
    return jwt.sign(key.privateKey)
  })

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")

/** A token whose header and payload are written by hand, signed by `signature` over them. */
const forge = (header: object, payload: object, signature: (input: string) => string) => {
  const input = `${b64(header)}.${b64(payload)}`
  return `${input}.${signature(input)}`
}

const freePort = Effect.promise(
  () =>
    new Promise<number>((resolve) => {
      const probe = createServer()
      probe.listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as AddressInfo
        probe.close(() => resolve(port))
      })
    })
)

const oauthSettings = (issuer: string, port: number, overrides: Partial<Settings.OAuth> = {}) =>
  settingsFor({
    port,
    authRequired: true,
    oauth: {
      issuer,
      resource: `http://127.0.0.1:${port}`,
      audience: [`http://127.0.0.1:${port}`],
      ownerClaim: "sub",
      jwksCacheMs: 600_000,
      // every unknown kid fetches the key set again, so rotation is seen without waiting
      jwksCooldownMs: 0,
      fetchTimeoutMs: 2000,
      ...overrides
    }
  })

/** A WebSocket upgrade request to `/slop`: the status and headers of the reply (101 when accepted). */
const upgrade = (base: string, headers: Record<string, string> = {}) =>
  Effect.promise(
    () =>
      new Promise<{ readonly status: number; readonly headers: IncomingHttpHeaders; readonly body: string }>(
        (resolve, reject) => {
          const req = request(`${base}/slop`, {
            headers: {
              connection: "Upgrade",
              upgrade: "websocket",
              "sec-websocket-version": "13",
              "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
              "sec-websocket-protocol": "slop",
              ...headers
            }
          })
          req.on("response", (res) => {
            let body = ""
            res.on("data", (chunk: Buffer) => {
              body += chunk.toString()
            })
            res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
          })
          req.on("upgrade", (res, socket) => {
            socket.destroy()
            resolve({ status: res.statusCode ?? 101, headers: res.headers, body: "" })
          })
          req.on("error", reject)
          req.end()
        }
      )
  )

const get = (url: string, token?: string) =>
  Effect.promise(() => fetch(url, token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } }))

const initialize = (base: string, token?: string) =>
  Effect.promise(() =>
    fetch(`${base}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` })
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "curl", version: "1" } }
      })
    })
  )

/** The REST refusal of a token: status, the challenge's error, and the problem's detail. */
const refusalOf = (base: string, token: string) =>
  Effect.gen(function* () {
    const response = yield* get(`${base}/v1/briefing`, token)
    const body = (yield* Effect.promise(() => response.json())) as { code: string; detail: string }
    return {
      status: response.status,
      type: response.headers.get("content-type") ?? "",
      challenge: response.headers.get("www-authenticate") ?? "",
      error: extractWWWAuthenticateParams(response).error,
      code: body.code,
      detail: body.detail
    }
  })

// -----------------------------------------------------------------------------------------------------------------

describe("OAuth resource server", () => {
  it.live(
    "tokens from the issuer are verified on REST, MCP, SLOP and the dashboard; every refusal is a 401 naming the metadata",
    () =>
      Effect.gen(function* () {
        const idp = yield* startIssuer()
        const rsa = yield* makeKey("rsa-1", "RS256")
        const ec = yield* makeKey("ec-1", "ES256")
        const ed = yield* makeKey("ed-1", "EdDSA")
        idp.state.keys = [rsa, ec, ed]
        const port = yield* freePort
        const { base, url } = yield* startHttp(oauthSettings(idp.issuer, port), memory)
        const resource = `http://127.0.0.1:${port}`
        const metadataUrl = `${resource}/.well-known/oauth-protected-resource`
        const valid = { iss: idp.issuer, aud: resource, exp: nowSec() + 3600 }

        // Protected Resource Metadata, as the MCP SDK's own discovery finds and reads it
        const metadata = yield* send(base, "GET", "/.well-known/oauth-protected-resource")
        assert.strictEqual(metadata.status, 200)
        assert.deepStrictEqual(metadata.body.authorization_servers, [idp.issuer])
        assert.strictEqual(metadata.body.resource, resource)
        assert.deepStrictEqual(metadata.body.bearer_methods_supported, ["header"])
        const discovered = yield* Effect.promise(() => discoverOAuthServerInfo(url))
        assert.strictEqual(discovered.authorizationServerUrl, idp.issuer)
        assert.strictEqual(discovered.authorizationServerMetadata?.issuer, idp.issuer)
        assert.isTrue(checkResourceAllowed({ requestedResource: url, configuredResource: resource }))

        // no token: 401 on every surface, each naming the metadata (no error code: no credentials were sent)
        const challenge = `Bearer resource_metadata="${metadataUrl}"`
        for (const path of ["/mcp", "/v1/briefing", "/dashboard/briefing", "/nope"]) {
          const response = yield* get(`${base}${path}`)
          assert.strictEqual(response.status, 401, path)
          assert.strictEqual(response.headers.get("www-authenticate"), challenge, path)
          assert.strictEqual(extractWWWAuthenticateParams(response).resourceMetadataUrl?.href, metadataUrl, path)
        }
        const anonymousInit = yield* initialize(base)
        assert.strictEqual(anonymousInit.status, 401)
        assert.strictEqual(anonymousInit.headers.get("www-authenticate"), challenge)
        const anonymousRest = yield* send(base, "GET", "/v1/briefing")
        assert.strictEqual(anonymousRest.type, "application/problem+json")
        assert.strictEqual(anonymousRest.body.code, "unauthorized")
        const anonymousSlop = yield* upgrade(base)
        assert.strictEqual(anonymousSlop.status, 401)
        assert.strictEqual(anonymousSlop.headers["www-authenticate"], challenge)
        assert.strictEqual((yield* get(`${base}/health`)).status, 200)

        // valid tokens of three algorithms, three owners
        const alice = yield* sign(rsa, { ...valid, sub: "alice" })
        const bob = yield* sign(ec, { ...valid, sub: "bob" })
        const carol = yield* sign(ed, { ...valid, sub: "carol" })
        const reported = yield* send(
          base,
          "POST",
          "/v1/status",
          { source: "alice-nas", tags: [], metrics: { disk: 1 } },
          { authorization: `Bearer ${alice}` }
        )
        assert.strictEqual(reported.status, 200, JSON.stringify(reported.body))
        const aliceMcp = yield* connectHttp(url, alice)
        assert.deepStrictEqual(Object.keys((yield* ok(aliceMcp, "get_briefing", { explain: true })).sources), [
          "alice-nas"
        ])
        const bobMcp = yield* connectHttp(url, bob)
        assert.deepStrictEqual((yield* ok(bobMcp, "get_briefing", { explain: true })).sources, {})
        const carolView = yield* send(base, "GET", "/dashboard/briefing", undefined, {
          authorization: `Bearer ${carol}`
        })
        assert.strictEqual(carolView.status, 200)
        assert.strictEqual(carolView.body.owner, "carol")
        const aliceView = yield* send(base, "GET", "/dashboard/briefing", undefined, {
          authorization: `Bearer ${alice}`
        })
        assert.strictEqual(aliceView.body.owner, "alice")
        // the SLOP WebSocket, its token sent as a subprotocol
        const mirror = yield* mirrorOf(`${base.replace("http://", "ws://")}/slop`, alice)
        const tree = yield* mirror.settle(
          yield* mirror.consumer.subscribe({ depth: 3 }),
          { depth: 3 },
          (node) => under(node, "sources").length === 1
        )
        assert.strictEqual(under(tree, "sources").length, 1)
        assert.strictEqual((yield* upgrade(base, { authorization: `Bearer ${bob}` })).status, 101)

        // refusals: each a 401 with error="invalid_token" and a description of what is wrong
        const expectRefused = (token: string, detail: string) =>
          Effect.gen(function* () {
            const refused = yield* refusalOf(base, token)
            assert.strictEqual(refused.status, 401, detail)
            assert.strictEqual(refused.type, "application/problem+json")
            assert.strictEqual(refused.code, "unauthorized")
            assert.strictEqual(refused.error, "invalid_token", refused.challenge)
            assert.include(refused.challenge, `resource_metadata="${metadataUrl}"`)
            assert.include(refused.detail, detail)
            assert.include(refused.challenge, detail)
          })
        const skew = 30
        yield* expectRefused(yield* sign(rsa, { ...valid, sub: "alice", exp: nowSec() - skew - 5 }), "expired")
        yield* expectRefused(yield* sign(rsa, { ...valid, sub: "alice", nbf: nowSec() + skew + 60 }), "not valid yet")
        yield* expectRefused(
          yield* sign(rsa, { ...valid, sub: "alice", aud: "https://other.example" }),
          "audience (aud) does not name this server"
        )
        yield* expectRefused(yield* sign(rsa, { ...valid, sub: "alice", aud: undefined }), "audience (aud)")
        yield* expectRefused(yield* sign(rsa, { ...valid, sub: "alice", iss: "http://127.0.0.1:1" }), "issuer (iss)")
        yield* expectRefused(yield* sign(rsa, { ...valid, sub: "alice", exp: undefined }), "exp claim is invalid")
        yield* expectRefused(yield* sign(rsa, { ...valid, sub: undefined }), "no sub claim")
        const stranger = yield* makeKey("stranger", "RS256")
        yield* expectRefused(yield* sign(stranger, { ...valid, sub: "alice" }), "unknown kid")
        // a stranger's key under a known kid: the signature does not verify
        yield* expectRefused(yield* sign(stranger, { ...valid, sub: "alice" }, { kid: "rsa-1" }), "signature")
        // alg none: an unsigned token
        yield* expectRefused(
          forge({ alg: "none", typ: "JWT" }, { ...valid, sub: "alice" }, () => ""),
          "algorithm is not accepted"
        )
        // algorithm confusion: HS256 keyed with the issuer's public RSA key (which anyone can fetch)
        const confused = forge({ alg: "HS256", typ: "JWT", kid: "rsa-1" }, { ...valid, sub: "alice" }, (input) =>
          createHmac("sha256", rsa.spki).update(input).digest("base64url")
        )
        yield* expectRefused(confused, "algorithm is not accepted")
        // a self-signed HS256 token of the other mode
        yield* expectRefused(
          Token.sign({ sub: "alice", secret: "a-long-enough-secret", nowSec: nowSec(), expiresInSec: 60 }),
          "algorithm is not accepted"
        )
        yield* expectRefused("not-a-token", "not valid")
        // the same refusals on the other edges
        const expired = yield* sign(rsa, { ...valid, sub: "alice", exp: nowSec() - 3600 })
        const expiredInit = yield* initialize(base, expired)
        assert.strictEqual(expiredInit.status, 401)
        assert.strictEqual(extractWWWAuthenticateParams(expiredInit).error, "invalid_token")
        assert.isTrue(Exit.isFailure(yield* Effect.exit(connectHttp(url, expired))))
        const expiredSlop = yield* upgrade(base, { authorization: `Bearer ${expired}` })
        assert.strictEqual(expiredSlop.status, 401)
        assert.include(String(expiredSlop.headers["www-authenticate"]), 'error="invalid_token"')
        assert.include(JSON.parse(expiredSlop.body).error, "expired")
        const expiredDashboard = yield* get(`${base}/dashboard/view?unit=tokens&budget=100`, expired)
        assert.strictEqual(expiredDashboard.status, 401)
        assert.strictEqual(extractWWWAuthenticateParams(expiredDashboard).error, "invalid_token")

        // rotation: a key the issuer starts publishing is fetched when a token names it; a retired one stops working
        const rotated = yield* makeKey("rsa-2", "RS256")
        const early = yield* sign(rotated, { ...valid, sub: "alice" })
        yield* expectRefused(early, "unknown kid")
        const fetches = idp.state.jwksFetches
        idp.state.keys = [rotated, ec, ed]
        assert.strictEqual((yield* get(`${base}/v1/briefing`, early)).status, 200)
        assert.strictEqual(idp.state.jwksFetches, fetches + 1)
        yield* expectRefused(yield* sign(rsa, { ...valid, sub: "alice" }), "unknown kid")

        // the key set goes down: tokens under cached keys still pass; one that needs a fetch gets a clear 503
        idp.state.jwksDown = true
        assert.strictEqual((yield* get(`${base}/v1/briefing`, bob)).status, 200)
        const unseen = yield* sign(yield* makeKey("rsa-3", "RS256"), { ...valid, sub: "alice" })
        const down = yield* get(`${base}/v1/briefing`, unseen)
        assert.strictEqual(down.status, 503)
        assert.strictEqual(down.headers.get("retry-after"), "5")
        const downBody = (yield* Effect.promise(() => down.json())) as { code: string; detail: string }
        assert.strictEqual(downBody.code, "unavailable")
        assert.include(downBody.detail, "keys could not be fetched")
        assert.strictEqual((yield* initialize(base, unseen)).status, 503)
        assert.strictEqual((yield* upgrade(base, { authorization: `Bearer ${unseen}` })).status, 503)
        assert.strictEqual((yield* get(`${base}/dashboard/briefing`, unseen)).status, 503)
        // the server keeps serving: health, and the other owners' requests
        assert.strictEqual((yield* get(`${base}/health`)).status, 200)
        assert.deepStrictEqual((yield* ok(bobMcp, "get_briefing", { explain: true })).sources, {})
        idp.state.jwksDown = false
        yield* expectRefused(unseen, "unknown kid")
      }).pipe(Effect.scoped, Effect.provide(sockets)),
    { timeout: 180_000 }
  )

  it.live(
    "an issuer whose metadata is down at first: 503 while it is, then discovery is tried again (OpenID Connect's path for an issuer with a path)",
    () =>
      Effect.gen(function* () {
        const idp = yield* startIssuer({ path: "/tenant" })
        const key = yield* makeKey("ec-1", "ES256")
        idp.state.keys = [key]
        idp.state.metadataDown = true
        const port = yield* freePort
        const { base } = yield* startHttp(oauthSettings(idp.issuer, port, { ownerClaim: "email" }), memory)
        const token = yield* sign(key, {
          iss: idp.issuer,
          aud: `http://127.0.0.1:${port}`,
          exp: nowSec() + 600,
          sub: "00u1",
          email: "dana@example.com"
        })
        const down = yield* refusalOf(base, token)
        assert.strictEqual(down.status, 503)
        assert.strictEqual(down.code, "unavailable")
        assert.include(down.detail, "answered 500")
        assert.strictEqual((yield* get(`${base}/health`)).status, 200)
        idp.state.metadataDown = false
        const view = yield* send(base, "GET", "/dashboard/briefing", undefined, { authorization: `Bearer ${token}` })
        assert.strictEqual(view.status, 200, JSON.stringify(view.body))
        assert.strictEqual(view.body.owner, "dana@example.com")
        const noEmail = yield* sign(key, { iss: idp.issuer, aud: `http://127.0.0.1:${port}`, exp: nowSec() + 600 })
        const refused = yield* refusalOf(base, noEmail)
        assert.strictEqual(refused.status, 401)
        assert.include(refused.detail, "no email claim")
      }).pipe(Effect.scoped),
    { timeout: 120_000 }
  )

  it.effect("a key set that cannot be reached (connection refused) is a 503, not a crash", () =>
    Effect.gen(function* () {
      const port = yield* freePort // nothing listens there
      const key = yield* makeKey("rsa-1", "RS256")
      const auth = Auth.make(
        oauthSettings("http://127.0.0.1:9/", 8420, { jwksUri: `http://127.0.0.1:${port}/jwks`, fetchTimeoutMs: 1000 })
      )
      const token = yield* sign(key, { iss: "http://127.0.0.1:9/", aud: "http://127.0.0.1:8420", exp: nowSec() + 60 })
      const refused = yield* Effect.flip(auth.ownerOf(`Bearer ${token}`))
      assert.strictEqual(refused.status, 503)
      assert.strictEqual(refused.reason, "unavailable")
      assert.include(refused.message, "could not be fetched")
      const missing = yield* Effect.flip(auth.ownerOf(undefined))
      assert.deepStrictEqual([missing.status, missing.reason], [401, "missing_token"])
      assert.strictEqual(
        auth.challenge(missing),
        'Bearer resource_metadata="http://127.0.0.1:8420/.well-known/oauth-protected-resource"'
      )
    })
  )
})

describe("self-signed (HS256) mode", () => {
  it.live(
    "keeps working; its 401s carry a Bearer challenge on every surface; no resource metadata is published",
    () =>
      Effect.gen(function* () {
        const secret = "test-secret-that-is-long-enough"
        const { base, url } = yield* startHttp(
          settingsFor({ authRequired: true, secret: Option.some(Redacted.make(secret)) }),
          memory
        )
        const token = Token.sign({ sub: "alice", secret, nowSec: nowSec(), expiresInSec: 600 })
        const client = yield* connectHttp(url, token)
        assert.deepStrictEqual((yield* ok(client, "get_briefing", { explain: true })).sources, {})
        assert.strictEqual((yield* get(`${base}/v1/briefing`, token)).status, 200)
        assert.strictEqual((yield* upgrade(base, { authorization: `Bearer ${token}` })).status, 101)
        for (const path of ["/mcp", "/v1/briefing", "/dashboard/briefing"]) {
          const response = yield* get(`${base}${path}`)
          assert.strictEqual(response.status, 401, path)
          assert.strictEqual(response.headers.get("www-authenticate"), 'Bearer realm="heed-awareness"', path)
        }
        const forged = Token.sign({ sub: "alice", secret: "another-secret-long-enough", nowSec: nowSec() })
        const refused = yield* get(`${base}/v1/briefing`, forged)
        assert.strictEqual(refused.status, 401)
        assert.include(refused.headers.get("www-authenticate") ?? "", 'error="invalid_token"')
        assert.strictEqual((yield* upgrade(base)).status, 401)
        assert.strictEqual((yield* get(`${base}/.well-known/oauth-protected-resource`)).status, 404)
      }).pipe(Effect.scoped),
    { timeout: 120_000 }
  )
})

describe("OAuth settings", () => {
  const load = (env: Record<string, string>) =>
    Settings.load().pipe(Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnv({ env })))

  it.effect("HEED_OAUTH_ISSUER turns the mode on, with the resource, audience and owner claim defaults", () =>
    Effect.gen(function* () {
      const settings = yield* load({ HEED_OAUTH_ISSUER: "https://auth.example.com/" })
      assert.isTrue(settings.authRequired)
      assert.deepStrictEqual(settings.oauth, {
        issuer: "https://auth.example.com/",
        resource: "http://127.0.0.1:8420",
        audience: ["http://127.0.0.1:8420"],
        ownerClaim: "sub",
        jwksUri: undefined,
        jwksCacheMs: 600_000,
        jwksCooldownMs: 30_000,
        fetchTimeoutMs: 5000
      })
      const custom = yield* load({
        HEED_OAUTH_ISSUER: "https://auth.example.com",
        HEED_HOST: "0.0.0.0",
        HEED_OAUTH_RESOURCE: "https://heed.example.com/",
        HEED_OAUTH_AUDIENCE: "heed-api, https://heed.example.com",
        HEED_OAUTH_OWNER_CLAIM: "email",
        HEED_OAUTH_JWKS_URI: "https://auth.example.com/keys"
      })
      assert.deepStrictEqual(
        [custom.oauth?.resource, custom.oauth?.audience, custom.oauth?.ownerClaim, custom.oauth?.jwksUri],
        [
          "https://heed.example.com/",
          ["heed-api", "https://heed.example.com"],
          "email",
          "https://auth.example.com/keys"
        ]
      )
      assert.deepStrictEqual(Auth.metadataPaths("https://heed.example.com/awareness"), [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/awareness"
      ])
      assert.strictEqual(
        Auth.metadataUrl("https://heed.example.com/awareness"),
        "https://heed.example.com/.well-known/oauth-protected-resource/awareness"
      )
      assert.deepStrictEqual(Auth.discoveryUrls("https://auth.example.com/tenant/"), [
        "https://auth.example.com/.well-known/oauth-authorization-server/tenant",
        "https://auth.example.com/.well-known/openid-configuration/tenant",
        "https://auth.example.com/tenant/.well-known/openid-configuration"
      ])
    })
  )

  it.effect("refuses contradictory or unsafe settings at startup, naming the variable", () =>
    Effect.gen(function* () {
      const cases: ReadonlyArray<readonly [Record<string, string>, string]> = [
        [{ HEED_OAUTH_ISSUER: "https://a.example", HEED_JWT_SECRET: "a-long-enough-secret" }, "set one of them"],
        [{ HEED_OAUTH_ISSUER: "https://a.example", HEED_AUTH_REQUIRED: "false" }, "HEED_AUTH_REQUIRED=false"],
        [{ HEED_OAUTH_ISSUER: "auth.example.com" }, "HEED_OAUTH_ISSUER must be an absolute URL"],
        [{ HEED_OAUTH_ISSUER: "http://auth.example.com" }, "HEED_OAUTH_ISSUER must use https"],
        [{ HEED_OAUTH_ISSUER: "ftp://auth.example.com" }, "HEED_OAUTH_ISSUER must be an http(s) URL"],
        [{ HEED_OAUTH_ISSUER: "https://a.example/?tenant=1" }, "HEED_OAUTH_ISSUER must not have a query"],
        [{ HEED_OAUTH_ISSUER: "https://a.example", HEED_HOST: "0.0.0.0" }, "HEED_OAUTH_RESOURCE is required"],
        [{ HEED_OAUTH_ISSUER: "https://a.example", HEED_OAUTH_RESOURCE: "https://h.example/#x" }, "fragment"],
        [{ HEED_OAUTH_ISSUER: "https://a.example", HEED_OAUTH_JWKS_URI: "http://a.example/k" }, "HEED_OAUTH_JWKS_URI"],
        [{ HEED_OAUTH_ISSUER: "https://a.example", HEED_OAUTH_OWNER_CLAIM: " " }, "HEED_OAUTH_OWNER_CLAIM"],
        [{ HEED_OAUTH_ISSUER: "https://a.example", HEED_OAUTH_JWKS_CACHE_SEC: "0" }, "HEED_OAUTH_JWKS_CACHE_SEC"]
      ]
      for (const [env, message] of cases) {
        const error = yield* Effect.flip(load(env))
        assert.strictEqual(error._tag, "SettingsError", JSON.stringify(env))
        assert.include(error.message, message, JSON.stringify(env))
      }
      // plain http is fine for an issuer on loopback (a local identity provider, or these tests)
      assert.strictEqual(
        (yield* load({ HEED_OAUTH_ISSUER: "http://127.0.0.1:9000" })).oauth?.issuer,
        "http://127.0.0.1:9000"
      )
    })
  )
})
