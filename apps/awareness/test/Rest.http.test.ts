import SwaggerParser from "@apidevtools/swagger-parser"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Token from "../src/Token.ts"
import { connectHttp, ok, settingsFor, startHttp } from "./harness.ts"
import { send } from "./slop.ts"

const secret = "test-secret-that-is-long-enough"
const tokenFor = (sub: string) => Token.sign({ sub, secret, nowSec: Math.floor(Date.now() / 1000), expiresInSec: 3600 })

const memory = { _tag: "embedded", dataDir: "memory://" } as const

describe("REST edge API", () => {
  it.live(
    "every endpoint answers with the tools' own shapes, and MCP sees what REST wrote",
    () =>
      Effect.gen(function* () {
        const { base, url } = yield* startHttp(settingsFor(), memory)
        const status = yield* send(base, "POST", "/v1/status", {
          source: "nas",
          tags: ["infra"],
          metrics: { disk: 91 },
          headline: "all good"
        })
        assert.strictEqual(status.status, 200)
        assert.strictEqual(status.body.status, "ok")
        assert.strictEqual(status.body.source, "nas")

        const alert = yield* send(base, "POST", "/v1/alerts", {
          source: "nas",
          tags: ["infra"],
          alert_id: "disk",
          level: "critical",
          message: "Disk almost full"
        })
        assert.strictEqual(alert.status, 200)
        assert.strictEqual(alert.body.action, "reported")
        const warning = yield* send(base, "POST", "/v1/alerts", {
          source: "ci",
          tags: ["ci"],
          alert_id: "flaky",
          level: "warning",
          message: "Flaky test"
        })
        assert.strictEqual(warning.status, 200)

        const reminder = yield* send(base, "POST", "/v1/intentions", {
          source: "nas",
          tags: ["chores"],
          goal: "Replace the disk"
        })
        assert.strictEqual(reminder.status, 200)
        assert.strictEqual(reminder.body.state, "pending")

        const suppression = yield* send(base, "POST", "/v1/suppressions", {
          source: "ci",
          duration_minutes: 30,
          reason: "known flaky"
        })
        assert.strictEqual(suppression.status, 200)
        assert.isString(suppression.body.id)

        const briefing = yield* send(base, "GET", "/v1/briefing")
        assert.strictEqual(briefing.status, 200)
        assert.strictEqual(briefing.body.sources.nas.status, "critical")
        assert.isTrue(briefing.body.attention_needed)

        const all = yield* send(base, "GET", "/v1/alerts")
        assert.strictEqual(all.body.entries.length, 2)
        const critical = yield* send(base, "GET", "/v1/alerts?level=critical")
        assert.deepStrictEqual(
          critical.body.entries.map((entry: { data: { alert_id: string } }) => entry.data.alert_id),
          ["disk"]
        )
        const ofCi = yield* send(base, "GET", "/v1/alerts?source=ci")
        assert.deepStrictEqual(
          ofCi.body.entries.map((entry: { source: string }) => entry.source),
          ["ci"]
        )
        const future = yield* send(base, "GET", `/v1/alerts?since=${encodeURIComponent("2999-01-01T00:00:00Z")}`)
        assert.strictEqual(future.body.entries.length, 0)

        const nas = yield* send(base, "GET", "/v1/status/nas")
        assert.strictEqual(nas.status, 200)
        assert.deepStrictEqual(nas.body.data.metrics, { disk: 91 })

        const stats = yield* send(base, "POST", "/v1/tools/get_stats", {})
        assert.strictEqual(stats.status, 200)
        assert.deepStrictEqual([...stats.body.sources].sort(), ["ci", "nas"])

        const cleared = yield* send(base, "DELETE", `/v1/suppressions/${suppression.body.id}`)
        assert.strictEqual(cleared.status, 200)
        const left = yield* send(base, "POST", "/v1/tools/get_suppressions", {})
        assert.deepStrictEqual(left.body, [])

        const client = yield* connectHttp(url)
        const viaMcp = yield* ok(client, "get_status", { source: "nas" })
        assert.strictEqual(viaMcp.data.headline, "all good")
      }),
    30_000
  )

  it.live(
    "errors are problem+json with the tool's code, parameter and did-you-mean; 404 for unknown tools and sources",
    () =>
      Effect.gen(function* () {
        const { base } = yield* startHttp(settingsFor(), memory)
        const badLevel = yield* send(base, "POST", "/v1/alerts", {
          source: "nas",
          tags: [],
          alert_id: "x",
          level: "critcal",
          message: "m"
        })
        assert.strictEqual(badLevel.status, 400)
        assert.include(badLevel.type, "application/problem+json")
        assert.strictEqual(badLevel.body.code, "invalid_parameter")
        assert.strictEqual(badLevel.body.parameter, "level")
        assert.strictEqual(badLevel.body.suggestion, "critical")
        assert.strictEqual(badLevel.body.status, 400)
        assert.strictEqual(badLevel.body.title, "Bad Request")
        assert.include(badLevel.body.detail, "critical")

        const missing = yield* send(base, "POST", "/v1/status", { tags: [], metrics: {} })
        assert.strictEqual(missing.status, 400)
        assert.strictEqual(missing.body.parameter, "source")

        const misspelt = yield* send(base, "POST", "/v1/status", { sourc: "nas", tags: [], metrics: {} })
        assert.strictEqual(misspelt.status, 400)
        assert.strictEqual(misspelt.body.parameter, "sourc")
        assert.strictEqual(misspelt.body.suggestion, "source")

        const notJson = yield* send(base, "POST", "/v1/alerts", "{not json")
        assert.strictEqual(notJson.status, 400)
        assert.include(notJson.type, "application/problem+json")

        const array = yield* send(base, "POST", "/v1/alerts", [1, 2])
        assert.strictEqual(array.status, 400)
        assert.strictEqual(array.body.code, "invalid_parameter")

        const unknownTool = yield* send(base, "POST", "/v1/tools/get_statz", {})
        assert.strictEqual(unknownTool.status, 404)
        assert.strictEqual(unknownTool.body.code, "not_found")
        assert.strictEqual(unknownTool.body.suggestion, "get_stats")

        const unknownSource = yield* send(base, "GET", "/v1/status/nowhere")
        assert.strictEqual(unknownSource.status, 404)
        assert.strictEqual(unknownSource.body.code, "not_found")
        assert.include(unknownSource.type, "application/problem+json")

        const badQuery = yield* send(base, "GET", "/v1/alerts?level=loud")
        assert.strictEqual(badQuery.status, 400)
        assert.strictEqual(badQuery.body.parameter, "level")

        const fine = yield* send(base, "GET", "/v1/briefing")
        assert.strictEqual(fine.status, 200)
      }),
    30_000
  )

  it.live(
    "a body over the limit gets 413, and the server keeps serving",
    () =>
      Effect.gen(function* () {
        const { base } = yield* startHttp(settingsFor(), memory)
        const huge = yield* send(base, "POST", "/v1/status", {
          source: "nas",
          tags: [],
          metrics: { blob: "x".repeat(2 * 1024 * 1024) }
        })
        assert.strictEqual(huge.status, 413)
        assert.include(huge.type, "application/problem+json")
        assert.strictEqual(huge.body.code, "payload_too_large")
        const after = yield* send(base, "POST", "/v1/status", { source: "nas", tags: [], metrics: { a: 1 } })
        assert.strictEqual(after.status, 200)
      }),
    30_000
  )

  it.live(
    "with auth on: 401 problem without a token, each owner sees only their own entries",
    () =>
      Effect.gen(function* () {
        const settings = settingsFor({ authRequired: true, secret: Option.some(Redacted.make(secret)) })
        const { base } = yield* startHttp(settings, memory)
        const anonymous = yield* send(base, "GET", "/v1/briefing")
        assert.strictEqual(anonymous.status, 401)
        assert.include(anonymous.type, "application/problem+json")
        assert.strictEqual(anonymous.body.code, "unauthorized")
        const forged = yield* send(base, "GET", "/v1/briefing", undefined, { authorization: "Bearer nonsense" })
        assert.strictEqual(forged.status, 401)

        const alice = { authorization: `Bearer ${tokenFor("alice")}` }
        const bob = { authorization: `Bearer ${tokenFor("bob")}` }
        const wrote = yield* send(base, "POST", "/v1/status", { source: "alice-nas", tags: [], metrics: {} }, alice)
        assert.strictEqual(wrote.status, 200)
        const mine = yield* send(base, "GET", "/v1/status/alice-nas", undefined, alice)
        assert.strictEqual(mine.status, 200)
        const theirs = yield* send(base, "GET", "/v1/status/alice-nas", undefined, bob)
        assert.strictEqual(theirs.status, 404)

        const openapi = yield* send(base, "GET", "/openapi.json")
        assert.strictEqual(openapi.status, 200)
      }),
    30_000
  )

  it.live(
    "the OpenAPI 3.1 document validates and carries each tool's parameters; /docs serves the reference page",
    () =>
      Effect.gen(function* () {
        const { base } = yield* startHttp(settingsFor(), memory)
        const document = yield* send(base, "GET", "/openapi.json")
        assert.strictEqual(document.status, 200)
        assert.match(document.body.openapi, /^3\.1\./)
        yield* Effect.promise(() => SwaggerParser.validate(structuredClone(document.body)))
        const alertBody = document.body.paths["/v1/alerts"].post.requestBody.content["application/json"].schema
        assert.deepStrictEqual([...alertBody.required].sort(), ["alert_id", "level", "message", "source", "tags"])
        assert.deepStrictEqual(alertBody.properties.level.enum, ["warning", "critical"])
        const call = document.body.paths["/v1/tools/{name}"].post
        const name = call.parameters.find((parameter: { name: string }) => parameter.name === "name")
        assert.include(name.schema.enum, "learn_pattern")
        for (const path of [
          "/v1/status",
          "/v1/intentions",
          "/v1/suppressions",
          "/v1/briefing",
          "/v1/status/{source}"
        ]) {
          assert.isDefined(document.body.paths[path], path)
        }
        const docs = yield* send(base, "GET", "/docs")
        assert.strictEqual(docs.status, 200)
        assert.include(docs.type, "text/html")
        assert.notMatch(String(docs.body), /<script[^>]*\bsrc="https?:/)
        // Scalar's default fonts come from fonts.scalar.com; the page turns them off
        assert.include(String(docs.body), '"withDefaultFonts":false')
        // the page is built on the first request and served from then on
        const again = yield* send(base, "GET", "/docs")
        assert.strictEqual(again.status, 200)
        assert.strictEqual(again.body, docs.body)
      }),
    30_000
  )
})
