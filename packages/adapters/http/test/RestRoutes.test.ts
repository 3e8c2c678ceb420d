import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as HttpServer from "effect/http/HttpServer"
import { RestApi, RestServer } from "../src/index.ts"
import { fakeToolInfos, listen, readToolNames, writeToolNames } from "./support.ts"

const names = writeToolNames
const readTools = readToolNames

// A port that records each call and answers with it; get_alerts answers a page of three alerts of mixed levels.
const recording = () => {
  const calls: Array<readonly [string, unknown]> = []
  const layer = Layer.succeed(RestApi.Tools, {
    owner: Effect.succeed("anyone"),
    tools: fakeToolInfos(),
    call: (name, params) =>
      Effect.suspend((): Effect.Effect<unknown> => {
        calls.push([name, params])
        if (name === "get_alerts") {
          return Effect.succeed({
            entries: [
              { id: "a", data: { level: "warning" } },
              { id: "b", data: { level: "critical" } },
              { id: "c", data: {} },
              "not an entry"
            ],
            total: 4
          })
        }
        return Effect.succeed({ called: name })
      })
  })
  return { calls, layer }
}

const request = (host: string, method: string, path: string, body?: unknown) =>
  Effect.promise(async () => {
    const response = await fetch(`http://${host}${path}`, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    // biome-ignore lint/suspicious/noExplicitAny: parsed JSON
    return { status: response.status, body: (await response.json().catch(() => null)) as any }
  })

describe("RestServer routes", () => {
  it.live("each route calls its tool with the body, path or query as parameters", () =>
    Effect.gen(function* () {
      const port = recording()
      const host = yield* listen(RestServer.layer().pipe(Layer.provide([port.layer, HttpServer.layerServices])))
      const cases: ReadonlyArray<readonly [string, string, unknown, string, unknown]> = [
        ["POST", "/v1/status", { source: "nas" }, "report_status", { source: "nas" }],
        ["POST", "/v1/alerts", { level: "warning" }, "report_alert", { level: "warning" }],
        ["POST", "/v1/intentions", { goal: "call" }, "remind", { goal: "call" }],
        ["POST", "/v1/suppressions", { source: "nas" }, "suppress_alert", { source: "nas" }],
        ["DELETE", "/v1/suppressions/s-1", undefined, "clear_suppression", { entry_id: "s-1" }],
        ["GET", "/v1/briefing", undefined, "get_briefing", { explain: true }],
        ["GET", "/v1/status/nas", undefined, "get_status", { source: "nas" }],
        ["POST", "/v1/tools/remind", { goal: "x" }, "remind", { goal: "x" }]
      ]
      for (const [method, path, body, tool, params] of cases) {
        port.calls.length = 0
        const reply = yield* request(host, method, path, body)
        assert.strictEqual(reply.status, 200, `${method} ${path}`)
        assert.deepStrictEqual(reply.body, { called: tool }, `${method} ${path}`)
        assert.deepStrictEqual(port.calls, [[tool, params]], `${method} ${path}`)
      }
    })
  )

  it.live("GET /v1/alerts passes the set query parameters on and keeps only the asked level from the page", () =>
    Effect.gen(function* () {
      const port = recording()
      const host = yield* listen(RestServer.layer().pipe(Layer.provide([port.layer, HttpServer.layerServices])))
      const all = yield* request(host, "GET", "/v1/alerts")
      assert.deepStrictEqual(port.calls, [["get_alerts", {}]])
      assert.strictEqual(all.body.entries.length, 4)
      port.calls.length = 0
      const critical = yield* request(host, "GET", "/v1/alerts?level=critical&source=nas&limit=5&mode=list")
      assert.deepStrictEqual(port.calls, [["get_alerts", { source: "nas", limit: "5", mode: "list" }]])
      assert.deepStrictEqual(critical.body, { entries: [{ id: "b", data: { level: "critical" } }], total: 4 })
      const bad = yield* request(host, "GET", "/v1/alerts?level=loud")
      assert.strictEqual(bad.status, 400)
      assert.deepStrictEqual([bad.body.code, bad.body.parameter], ["invalid_parameter", "level"])
      assert.strictEqual(bad.body.detail, `'level' query: Expected "warning" | "critical"`)
    })
  )

  it.live("a body that is not JSON is a 400 invalid_parameter naming the body, not a 413", () =>
    Effect.gen(function* () {
      const port = recording()
      const host = yield* listen(RestServer.layer().pipe(Layer.provide([port.layer, HttpServer.layerServices])))
      const reply = yield* Effect.promise(async () => {
        const response = await fetch(`http://${host}/v1/alerts`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: "{not json"
        })
        // biome-ignore lint/suspicious/noExplicitAny: parsed JSON
        return { status: response.status, body: (await response.json()) as any }
      })
      assert.strictEqual(reply.status, 400)
      assert.deepStrictEqual(
        [reply.body.code, reply.body.parameter, reply.body.detail],
        ["invalid_parameter", "body", "payload: Expected a valid JSON body"]
      )
      assert.deepStrictEqual(port.calls, [])
    })
  )

  it.live("an unknown query parameter is a 400 naming it, with a did-you-mean, the parameters taken, or none", () =>
    Effect.gen(function* () {
      const port = recording()
      const host = yield* listen(RestServer.layer().pipe(Layer.provide([port.layer, HttpServer.layerServices])))
      const taken = ["source", "level", "since", "mode", "limit", "offset"]
      const close = yield* request(host, "GET", "/v1/alerts?source=nas&levl=critical")
      assert.deepStrictEqual(close, {
        status: 400,
        body: {
          type: "about:blank",
          title: "Bad Request",
          status: 400,
          code: "invalid_parameter",
          detail: "This endpoint has no query parameter 'levl'. Did you mean 'level'?",
          parameter: "levl",
          suggestion: "level",
          valid: taken
        }
      })
      const far = yield* request(host, "GET", "/v1/alerts?zzzzzzzz=1")
      assert.deepStrictEqual(
        [far.status, far.body.detail, far.body.parameter, far.body.suggestion, far.body.valid],
        [
          400,
          `This endpoint has no query parameter 'zzzzzzzz'. It takes: ${taken.join(", ")}.`,
          "zzzzzzzz",
          undefined,
          taken
        ]
      )
      const none = yield* request(host, "POST", "/v1/alerts?zzzzzzzz=1", { level: "warning" })
      assert.deepStrictEqual(
        [none.status, none.body.detail, none.body.valid],
        [400, "This endpoint has no query parameter 'zzzzzzzz'. It takes none.", []]
      )
      const long = yield* request(host, "GET", `/v1/alerts?${"q".repeat(300)}=1`)
      assert.deepStrictEqual(
        [long.status, long.body.parameter, long.body.detail],
        [
          400,
          "q".repeat(200),
          `This endpoint has no query parameter '${"q".repeat(200)}'. It takes: ${taken.join(", ")}.`
        ]
      )
      assert.deepStrictEqual(port.calls, [])
    })
  )

  it.live("a rate-limited owner is told how long to wait, in whole seconds, within the window", () =>
    Effect.gen(function* () {
      const port = recording()
      const host = yield* listen(
        RestServer.layer({ rateLimit: { requests: 1, windowMs: 10_000 } }).pipe(
          Layer.provide([port.layer, HttpServer.layerServices])
        )
      )
      assert.strictEqual((yield* request(host, "GET", "/v1/briefing")).status, 200)
      const limited = yield* request(host, "GET", "/v1/briefing")
      assert.strictEqual(limited.status, 429)
      assert.deepStrictEqual(
        [limited.body.retryable, limited.body.retry_after_sec >= 1, limited.body.retry_after_sec <= 10],
        [true, true, true]
      )
      assert.include(limited.body.detail, "More than 1 requests in 10 s")
      assert.strictEqual(port.calls.length, 1)
    })
  )

  it.live("an unknown tool is a 404 naming the valid tools, with a suggestion only for a close name", () =>
    Effect.gen(function* () {
      const port = recording()
      const host = yield* listen(RestServer.layer().pipe(Layer.provide([port.layer, HttpServer.layerServices])))
      const close = yield* request(host, "POST", "/v1/tools/remnd", {})
      assert.strictEqual(close.status, 404)
      assert.deepStrictEqual(
        [close.body.code, close.body.parameter, close.body.suggestion, close.body.detail],
        ["not_found", "name", "remind", "There is no tool 'remnd'. Did you mean 'remind'?"]
      )
      assert.deepStrictEqual(close.body.valid, [...names, ...readTools])
      const far = yield* request(host, "POST", "/v1/tools/zzzzzzzzzzzz", {})
      assert.deepStrictEqual(
        [far.status, far.body.suggestion, far.body.detail],
        [404, undefined, "There is no tool 'zzzzzzzzzzzz'."]
      )
      assert.deepStrictEqual(port.calls, [])
    })
  )

  it.live("the OpenAPI document and the docs page are served at their default and configured paths", () =>
    Effect.gen(function* () {
      const port = recording()
      const host = yield* listen(RestServer.layer().pipe(Layer.provide([port.layer, HttpServer.layerServices])))
      const spec = yield* request(host, "GET", "/openapi.json")
      assert.strictEqual(spec.status, 200)
      assert.include(spec.body.paths["/v1/status"].post.description, "The report_status tool.")
      assert.include(
        spec.body.paths["/v1/tools/{name}"].post.description,
        "- `get_briefing` (read-only): The get_briefing tool."
      )
      assert.include(spec.body.paths["/v1/tools/{name}"].post.description, "- `remind`: The remind tool.")
      const docs = yield* Effect.promise(async () => {
        const response = await fetch(`http://${host}/docs`)
        return { status: response.status, type: response.headers.get("content-type") ?? "" }
      })
      assert.deepStrictEqual([docs.status, docs.type.startsWith("text/html")], [200, true])
      const moved = yield* listen(
        RestServer.layer({ openapiPath: "/api/spec.json", docsPath: "/api/docs" }).pipe(
          Layer.provide([port.layer, HttpServer.layerServices])
        )
      )
      assert.strictEqual((yield* request(moved, "GET", "/api/spec.json")).status, 200)
      const movedDocs = yield* Effect.promise(async () => (await fetch(`http://${moved}/api/docs`)).status)
      assert.strictEqual(movedDocs, 200)
      assert.strictEqual((yield* request(moved, "GET", "/openapi.json")).status, 404)
    })
  )
})
