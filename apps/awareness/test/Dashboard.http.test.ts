import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { gunzipSync } from "node:zlib"
import { assert, describe, it } from "@effect/vitest"
import { SlopServer } from "@heed/http"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Socket from "effect/socket/Socket"
import type { BriefingReply, ViewReply } from "../src/DashboardReply.ts"
import * as Token from "../src/Token.ts"
import { settingsFor, startHttp } from "./harness.ts"
import { alertsOf, mirrorOf } from "./slop.ts"

const memory = { _tag: "embedded", dataDir: "memory://" } as const
const secret = "test-secret-that-is-long-enough"
const tokenFor = (sub: string, secretUsed = secret) =>
  Token.sign({ sub, secret: secretUsed, nowSec: Math.floor(Date.now() / 1000), expiresInSec: 3600 })

// A built page as Vite lays it out: index.html, and hashed assets (the script is large enough to be gzipped).
const script = `console.log(${JSON.stringify("heed ".repeat(400))})\n`
const fixture = () => {
  const dir = mkdtempSync(join(tmpdir(), "heed-dashboard-"))
  mkdirSync(join(dir, "assets"))
  writeFileSync(
    join(dir, "index.html"),
    '<!doctype html><html><head><meta name="slop" content="/slop"><script type="module" src="/assets/index-AbCd1234.js"></script></head><body></body></html>'
  )
  writeFileSync(join(dir, "assets", "index-AbCd1234.js"), script)
  writeFileSync(join(dir, "assets", "index-EfGh5678.css"), "body { color: red }\n")
  writeFileSync(join(dir, "assets", "notes.txt"), "not hashed\n")
  return dir
}

const get = (url: string, headers: Record<string, string> = {}) =>
  Effect.promise(async () => {
    const response = await fetch(url, { headers })
    const body = new Uint8Array(await response.arrayBuffer())
    return { status: response.status, headers: response.headers, body, text: new TextDecoder().decode(body) }
  })

const post = (url: string, body: unknown, token?: string) =>
  Effect.promise(async () => {
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` })
      },
      body: JSON.stringify(body)
    })
    return { status: response.status, body: (await response.json()) as { id?: string } }
  })

/** Opens a WebSocket the way the page does (the global one, offering subprotocols); resolves how it ended. */
const browserSocket = (url: string, protocols: ReadonlyArray<string>) =>
  Effect.promise(
    () =>
      new Promise<{ readonly opened: boolean; readonly protocol: string; readonly first: unknown }>((resolve) => {
        const socket = new WebSocket(url, [...protocols])
        socket.addEventListener("message", (event) => {
          resolve({ opened: true, protocol: socket.protocol, first: JSON.parse(String(event.data)) })
          socket.close()
        })
        socket.addEventListener("error", () => resolve({ opened: false, protocol: "", first: undefined }))
      })
  )

describe("dashboard: the page and its assets", () => {
  it.live(
    "/ is the page with this server's SLOP endpoint; hashed assets are immutable; content types; 404s",
    () =>
      Effect.gen(function* () {
        const { base } = yield* startHttp(settingsFor({ dashboardDir: fixture() }), memory)
        const host = base.replace("http://", "")

        const page = yield* get(`${base}/`)
        assert.strictEqual(page.status, 200)
        assert.strictEqual(page.headers.get("content-type"), "text/html; charset=utf-8")
        assert.strictEqual(page.headers.get("cache-control"), "no-cache")
        assert.include(page.text, `<meta name="slop" content="ws://${host}/slop">`)
        assert.notInclude(page.text, 'content="/slop"')
        const policy = page.headers.get("content-security-policy") ?? ""
        assert.include(policy, "script-src 'self'")
        assert.include(policy, `connect-src 'self' ws://${host}`)
        assert.strictEqual(page.headers.get("x-content-type-options"), "nosniff")

        const js = yield* get(`${base}/assets/index-AbCd1234.js`)
        assert.strictEqual(js.status, 200)
        assert.strictEqual(js.headers.get("content-type"), "text/javascript; charset=utf-8")
        assert.strictEqual(js.headers.get("cache-control"), "public, max-age=31536000, immutable")
        assert.strictEqual(js.text, script)
        const css = yield* get(`${base}/assets/index-EfGh5678.css`)
        assert.strictEqual(css.headers.get("content-type"), "text/css; charset=utf-8")
        const plain = yield* get(`${base}/assets/notes.txt`)
        assert.strictEqual(plain.headers.get("cache-control"), "no-cache")

        // gzip on request (fetch decompresses by itself, so ask the raw bytes through node:http semantics)
        const zipped = yield* Effect.promise(
          () =>
            new Promise<{ encoding: string | undefined; body: Buffer }>((resolve, reject) => {
              import("node:http").then(({ get: httpGet }) =>
                httpGet(`${base}/assets/index-AbCd1234.js`, { headers: { "accept-encoding": "gzip" } }, (response) => {
                  const chunks: Array<Buffer> = []
                  response.on("data", (chunk: Buffer) => chunks.push(chunk))
                  response.on("end", () =>
                    resolve({ encoding: response.headers["content-encoding"], body: Buffer.concat(chunks) })
                  )
                }).on("error", reject)
              )
            })
        )
        assert.strictEqual(zipped.encoding, "gzip")
        assert.isBelow(zipped.body.length, script.length)
        assert.strictEqual(gunzipSync(zipped.body).toString(), script)

        for (const path of [
          "/assets/index-Zz999999.js",
          "/assets/",
          `/assets/${encodeURIComponent("../index.html")}`,
          `/assets/${encodeURIComponent("../../package.json")}`,
          "/assets/.hidden"
        ]) {
          const missing = yield* get(`${base}${path}`)
          assert.strictEqual(missing.status, 404, path)
        }
      }),
    { timeout: 60_000 }
  )

  it.live(
    "without a built page, / says how to build it (503) until one is built",
    () =>
      Effect.gen(function* () {
        const empty = mkdtempSync(join(tmpdir(), "heed-dashboard-empty-"))
        const { base } = yield* startHttp(settingsFor({ dashboardDir: empty }), memory)
        const page = yield* get(`${base}/`)
        assert.strictEqual(page.status, 503)
        assert.include(page.text, "./heed build")
        // a page built while the server runs is served from then on
        writeFileSync(join(empty, "index.html"), '<!doctype html><meta name="slop" content="/slop"><p>built later</p>')
        const later = yield* get(`${base}/`)
        assert.strictEqual(later.status, 200)
        assert.include(later.text, "built later")
      }),
    { timeout: 60_000 }
  )
})

describe("dashboard: auth", () => {
  const authSettings = () =>
    settingsFor({ authRequired: true, secret: Option.some(Redacted.make(secret)), dashboardDir: fixture() })

  it.live(
    "the page is public; its JSON reads and /mcp want a valid bearer token",
    () =>
      Effect.gen(function* () {
        const { base } = yield* startHttp(authSettings(), memory)
        assert.strictEqual((yield* get(`${base}/`)).status, 200)
        assert.strictEqual((yield* get(`${base}/assets/index-AbCd1234.js`)).status, 200)
        for (const path of ["/dashboard/briefing", "/dashboard/view?unit=tokens&budget=100"]) {
          const anonymous = yield* get(`${base}${path}`)
          assert.strictEqual(anonymous.status, 401, path)
          assert.include(anonymous.headers.get("www-authenticate") ?? "", "Bearer")
          const forged = yield* get(`${base}${path}`, {
            authorization: `Bearer ${tokenFor("alice", "another-secret-16+")}`
          })
          assert.strictEqual(forged.status, 401, path)
        }
        // the global check still guards everything else
        assert.strictEqual((yield* get(`${base}/mcp`)).status, 401)
        const alice = tokenFor("alice")
        yield* post(
          `${base}/v1/alerts`,
          { source: "nas", tags: [], alert_id: "disk", level: "critical", message: "Disk full" },
          alice
        )
        const read = yield* get(`${base}/dashboard/briefing`, { authorization: `Bearer ${alice}` })
        assert.strictEqual(read.status, 200)
        const reply = JSON.parse(read.text) as BriefingReply
        assert.strictEqual(reply.owner, "alice")
        assert.isTrue(reply.briefing.attention_needed)
        assert.include(reply.lines[0] ?? "", "CRITICAL nas")
        // bob's token sees bob's (empty) briefing, not alice's
        const bob = JSON.parse(
          (yield* get(`${base}/dashboard/briefing`, { authorization: `Bearer ${tokenFor("bob")}` })).text
        )
        assert.strictEqual((bob as BriefingReply).owner, "bob")
        assert.isFalse((bob as BriefingReply).briefing.attention_needed)
      }),
    { timeout: 60_000 }
  )

  it.live(
    "/slop takes the browser's token as a subprotocol: 'slop' is selected, the token never echoed; a wrong or missing one is refused",
    () =>
      Effect.gen(function* () {
        const { base } = yield* startHttp(authSettings(), memory)
        const url = `${base.replace("http://", "ws://")}/slop`
        yield* post(
          `${base}/v1/alerts`,
          { source: "nas", tags: [], alert_id: "disk", level: "warning", message: "m" },
          tokenFor("alice")
        )
        const good = yield* browserSocket(url, [SlopServer.protocol, SlopServer.bearerProtocol(tokenFor("alice"))])
        assert.isTrue(good.opened)
        assert.strictEqual(good.protocol, "slop")
        assert.strictEqual((good.first as { type: string }).type, "hello")
        const wrong = yield* browserSocket(url, [
          SlopServer.protocol,
          SlopServer.bearerProtocol(tokenFor("alice", "another-secret-16+"))
        ])
        assert.isFalse(wrong.opened)
        const none = yield* browserSocket(url, [SlopServer.protocol])
        assert.isFalse(none.opened)
        // SlopClient (the page's client) sends the token the same way and is served the owner's tree
        const { consumer } = yield* mirrorOf(url, tokenFor("alice")).pipe(
          Effect.provide(Socket.layerWebSocketConstructorGlobal)
        )
        const id = yield* consumer.subscribe({})
        const tree = yield* consumer.tree(id)
        assert.deepStrictEqual(
          alertsOf(tree).map((node) => node.properties?.alert_id),
          ["disk"]
        )
      }),
    { timeout: 60_000 }
  )
})

describe("dashboard: what the agent sees", () => {
  it.live(
    "the budgeted view stays within a token budget, cuts show as counts, and dimmed alerts say why",
    () =>
      Effect.gen(function* () {
        const { base } = yield* startHttp(settingsFor({ dashboardDir: fixture() }), memory)
        for (let i = 0; i < 12; i++) {
          yield* post(`${base}/v1/status`, { source: `host-${i}`, tags: [], metrics: { load: i }, ttl_sec: 3600 })
          yield* post(`${base}/v1/alerts`, {
            source: `host-${i}`,
            tags: [],
            alert_id: "load",
            level: i % 3 === 0 ? "critical" : "warning",
            message: `Load is high on host ${i}`
          })
        }
        const suppression = yield* post(`${base}/v1/suppressions`, {
          source: "host-1",
          level: "critical",
          duration_minutes: 10,
          reason: "planned maintenance"
        })
        assert.strictEqual(suppression.status, 200)

        const read = (unit: string, budget: number) =>
          Effect.map(get(`${base}/dashboard/view?unit=${unit}&budget=${budget}`), (r) => ({
            status: r.status,
            reply: JSON.parse(r.text) as ViewReply
          }))
        const full = (yield* read("tokens", 1_000_000)).reply
        assert.strictEqual(full.view.nodes, full.total.nodes)
        assert.isTrue(full.view.rows.every((row) => row.cut === 0))
        const dimmed = full.view.rows.find((row) => row.line.includes("planned maintenance"))
        assert.isDefined(dimmed, "the suppressed alert carries its reason")
        assert.include(dimmed!.line, "suppressed: planned maintenance")

        const budget = Math.max(full.floor.tokens, Math.floor(full.total.tokens / 3))
        const small = (yield* read("tokens", budget)).reply
        assert.isAtMost(small.view.tokens, budget)
        assert.isBelow(small.view.nodes, full.view.nodes)
        const cut = small.view.rows.reduce((sum, row) => sum + row.cut, 0)
        assert.strictEqual(cut, full.total.nodes - small.view.nodes, "every cut node is counted once, under its stub")
        assert.isAtMost(small.briefing.tokens, budget)
        assert.isAtMost(small.digest.tokens, budget)

        // The briefing at a token budget is the collator's own fit: richer than the default briefing (500 tokens)
        // when the budget is larger, every source on its own line; folded into groups and counts when it is smaller.
        const standard = JSON.parse((yield* get(`${base}/dashboard/briefing`)).text) as { tokens: number }
        assert.isAbove(small.briefing.tokens, standard.tokens)
        assert.include(small.briefing.lines, "CRITICAL host-6: Load is high on host 6")
        const tight = (yield* read("tokens", 200)).reply
        assert.isAtMost(tight.briefing.tokens, 200)
        assert.isBelow(tight.briefing.tokens, standard.tokens)
        assert.match(tight.briefing.lines[0] ?? "", /^4 critical/)

        const nodes = (yield* read("nodes", 10)).reply
        assert.isAtMost(nodes.view.nodes, Math.max(10, nodes.floor.nodes))
        assert.isAtMost(nodes.briefing.lines.length, 10)

        assert.strictEqual((yield* read("bytes", 10)).status, 400)
        assert.strictEqual((yield* read("tokens", -1)).status, 400)
        assert.strictEqual((yield* get(`${base}/dashboard/view?unit=tokens&budget=1.5`)).status, 400)
      }),
    { timeout: 60_000 }
  )
})
