import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect, Layer } from "effect"
import * as HttpServer from "effect/http/HttpServer"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import { RestApi, RestServer } from "../src/index.ts"
import { fakeToolInfos, listen, writeToolNames } from "./support.ts"

const names = writeToolNames

/**
 * A port that records each call; `replies` holds what a tool answers (a value, or an effect to run) and otherwise a
 * tool answers `{ called: name }`. The owner is the `x-owner` header.
 */
const port = () => {
  const calls: Array<readonly [string, unknown]> = []
  const replies = new Map<string, unknown>()
  const layer = Layer.succeed(RestApi.Tools, {
    owner: Effect.map(HttpServerRequest.HttpServerRequest, (request) => request.headers["x-owner"] ?? "anyone"),
    tools: fakeToolInfos(),
    call: (name, params) =>
      Effect.suspend((): Effect.Effect<unknown, RestApi.ToolFailure> => {
        calls.push([name, params])
        const reply = replies.get(name)
        if (reply === undefined) return Effect.succeed({ called: name })
        return Effect.isEffect(reply) ? (reply as Effect.Effect<unknown, RestApi.ToolFailure>) : Effect.succeed(reply)
      })
  })
  return { calls, replies, layer }
}

/** A clock whose time the test sets; everything else is the default clock. */
const manualClock = (start: number) => {
  let now = start
  const base = Effect.runSync(Clock.clockWith(Effect.succeed))
  const clock: Clock.Clock = Object.assign(Object.create(base) as Clock.Clock, {
    currentTimeMillisUnsafe: () => now,
    currentTimeMillis: Effect.sync(() => now)
  })
  return {
    layer: Layer.succeed(Clock.Clock, clock),
    set: (millis: number) => {
      now = millis
    }
  }
}

const serve = (tools: ReturnType<typeof port>, options: RestServer.Options = {}, extra = Layer.empty) =>
  listen(RestServer.layer(options).pipe(Layer.provide([tools.layer, HttpServer.layerServices, extra])))

interface Reply {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  // biome-ignore lint/suspicious/noExplicitAny: parsed JSON
  readonly body: any
}

const send = (
  host: string,
  method: string,
  path: string,
  init: { body?: string; headers?: Record<string, string> } = {}
) =>
  Effect.promise(async (): Promise<Reply> => {
    const response = await fetch(`http://${host}${path}`, {
      method,
      redirect: "manual",
      headers: init.headers ?? (init.body === undefined ? {} : { "content-type": "application/json" }),
      ...(init.body === undefined ? {} : { body: init.body })
    })
    const text = await response.text()
    let body: unknown = null
    try {
      body = JSON.parse(text)
    } catch {
      body = null
    }
    return { status: response.status, headers: response.headers, text, body }
  })

const problemType = "application/problem+json"

// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document as JSON
type OpenApiJson = any

describe("RestServer edge", () => {
  it.live("a path under /v1 with no endpoint is a 404 not_found problem naming the path, cut at 200 characters", () =>
    Effect.gen(function* () {
      const tools = port()
      const host = yield* serve(tools)
      const nope = yield* send(host, "GET", "/v1/nope")
      assert.strictEqual(nope.status, 404)
      assert.include(nope.headers.get("content-type") ?? "", problemType)
      assert.deepStrictEqual(nope.body, {
        type: "about:blank",
        title: "Not Found",
        status: 404,
        code: "not_found",
        detail: "There is no endpoint at /v1/nope."
      })
      const root = yield* send(host, "GET", "/v1")
      assert.deepStrictEqual([root.status, root.body?.detail], [404, "There is no endpoint at /v1."])
      const long = `/v1/${"x".repeat(300)}`
      const cut = yield* send(host, "GET", long)
      assert.deepStrictEqual([cut.status, cut.body.detail], [404, `There is no endpoint at ${long.slice(0, 200)}.`])
      // a path the router itself finds no route for (the parameter ends at ";"), the detail cut the same way
      const routerless = `/v1/status/;${"z".repeat(300)}`
      const router = yield* send(host, "GET", routerless)
      assert.include(router.headers.get("content-type") ?? "", problemType)
      assert.deepStrictEqual(router.body, {
        type: "about:blank",
        title: "Not Found",
        status: 404,
        code: "not_found",
        detail: `There is no endpoint at ${routerless.slice(0, 200)}.`
      })
      // outside /v1 the router's own answer stands
      const elsewhere = yield* send(host, "GET", "/elsewhere")
      assert.deepStrictEqual([elsewhere.status, elsewhere.text], [404, ""])
      assert.deepStrictEqual(tools.calls, [])
    })
  )

  it.live("a wrong method is a 405 problem listing the methods the path takes, also in Allow", () =>
    Effect.gen(function* () {
      const tools = port()
      const host = yield* serve(tools)
      const put = yield* send(host, "PUT", "/v1/status")
      assert.strictEqual(put.status, 405)
      assert.strictEqual(put.headers.get("allow"), "POST")
      assert.include(put.headers.get("content-type") ?? "", problemType)
      assert.deepStrictEqual(put.body, {
        type: "about:blank",
        title: "Method Not Allowed",
        status: 405,
        code: "method_not_allowed",
        detail: "/v1/status takes POST, not PUT.",
        valid: ["POST"]
      })
      const both = yield* send(host, "DELETE", "/v1/alerts")
      assert.deepStrictEqual(
        [both.status, both.headers.get("allow"), both.body.detail, both.body.valid],
        [405, "POST, GET", "/v1/alerts takes POST, GET, not DELETE.", ["POST", "GET"]]
      )
      const param = yield* send(host, "DELETE", "/v1/status/nas")
      assert.deepStrictEqual(
        [param.status, param.headers.get("allow"), param.body.detail],
        [405, "GET", "/v1/status/nas takes GET, not DELETE."]
      )
      const headPost = yield* send(host, "HEAD", "/v1/status")
      assert.deepStrictEqual([headPost.status, headPost.headers.get("allow")], [405, "POST"])
      assert.deepStrictEqual(tools.calls, [])
    })
  )

  it.live("HEAD on a GET endpoint is answered by the endpoint, not refused", () =>
    Effect.gen(function* () {
      const tools = port()
      const host = yield* serve(tools)
      const head = yield* send(host, "HEAD", "/v1/briefing")
      assert.strictEqual(head.status, 200)
      assert.isNull(head.headers.get("allow"))
      assert.deepStrictEqual(tools.calls, [["get_briefing", { explain: true }]])
    })
  )

  it.live("a path parameter that is not valid percent-encoded UTF-8 is a 400 naming the parameter", () =>
    Effect.gen(function* () {
      const tools = port()
      const host = yield* serve(tools)
      const cases: ReadonlyArray<readonly [string, string, string]> = [
        ["GET", "/v1/status/%ff", "source"],
        ["GET", "/v1/status/%E0%A4%A", "source"],
        ["DELETE", "/v1/suppressions/%ff", "id"],
        ["POST", "/v1/tools/%ff", "name"]
      ]
      for (const [method, path, parameter] of cases) {
        const reply = yield* send(host, method, path, method === "POST" ? { body: "{}" } : {})
        assert.strictEqual(reply.status, 400, path)
        assert.include(reply.headers.get("content-type") ?? "", problemType)
        assert.deepStrictEqual(
          reply.body,
          {
            type: "about:blank",
            title: "Bad Request",
            status: 400,
            code: "invalid_parameter",
            detail: `The path parameter '${parameter}' is not valid percent-encoded UTF-8.`,
            parameter
          },
          path
        )
      }
      // a valid escape decodes
      const escaped = yield* send(host, "GET", "/v1/status/n%C3%A4s")
      assert.strictEqual(escaped.status, 200)
      assert.deepStrictEqual(tools.calls, [["get_status", { source: "näs" }]])
    })
  )

  it.live("an empty segment does not fill a path parameter: the path has no endpoint", () =>
    Effect.gen(function* () {
      const tools = port()
      const host = yield* serve(tools)
      for (const method of ["GET", "POST"]) {
        const reply = yield* send(host, method, "/v1/status/", method === "POST" ? { body: "{}" } : {})
        assert.deepStrictEqual(
          [reply.status, reply.body?.code, reply.body?.detail],
          [404, "not_found", "There is no endpoint at /v1/status/."],
          method
        )
      }
      const extra = yield* send(host, "GET", "/v1/status/nas/more")
      assert.deepStrictEqual([extra.status, extra.body?.detail], [404, "There is no endpoint at /v1/status/nas/more."])
      assert.deepStrictEqual(tools.calls, [])
    })
  )

  it.live("a path parameter over the router's length limit is a 400 invalid_parameter naming the parameter", () =>
    Effect.gen(function* () {
      const tools = port()
      const host = yield* serve(tools)
      const reply = yield* send(host, "GET", `/v1/status/${"s".repeat(150)}`)
      assert.strictEqual(reply.status, 400)
      assert.include(reply.headers.get("content-type") ?? "", problemType)
      assert.deepStrictEqual(reply.body, {
        type: "about:blank",
        title: "Bad Request",
        status: 400,
        code: "invalid_parameter",
        detail: "The request path is invalid: path parameter is longer than maxParamLength (100).",
        parameter: "source"
      })
      const tool = yield* send(host, "POST", `/v1/tools/${"t".repeat(150)}`, { body: "{}" })
      assert.deepStrictEqual([tool.status, tool.body.parameter], [400, "name"])
      assert.deepStrictEqual(tools.calls, [])
    })
  )

  it.live("a write endpoint's body must be a JSON object: an array, null, a number or a string is a 400 on body", () =>
    Effect.gen(function* () {
      const tools = port()
      const host = yield* serve(tools)
      const cases: ReadonlyArray<readonly [string, string, string]> = [
        ["/v1/status", "[1]", "an array"],
        ["/v1/alerts", "null", "no object"],
        ["/v1/intentions", "5", "number"],
        ["/v1/suppressions", '"x"', "string"],
        ["/v1/tools/remind", "[]", "an array"],
        ["/v1/tools/remind", "true", "boolean"]
      ]
      for (const [path, body, got] of cases) {
        const reply = yield* send(host, "POST", path, { body })
        assert.strictEqual(reply.status, 400, `${path} ${body}`)
        assert.deepStrictEqual(
          [reply.body.code, reply.body.parameter, reply.body.detail],
          [
            "invalid_parameter",
            "body",
            `The request body must be a JSON object holding the tool's parameters (got ${got}).`
          ],
          `${path} ${body}`
        )
      }
      assert.deepStrictEqual(tools.calls, [])
    })
  )

  it.live(
    "POST /v1/tools/{name} with an empty or null body calls the tool without parameters; an object is passed on",
    () =>
      Effect.gen(function* () {
        const tools = port()
        const host = yield* serve(tools)
        const empty = yield* send(host, "POST", "/v1/tools/get_status")
        assert.deepStrictEqual([empty.status, empty.body], [200, { called: "get_status" }])
        const none = yield* send(host, "POST", "/v1/tools/get_briefing", { body: "null" })
        assert.deepStrictEqual([none.status, none.body], [200, { called: "get_briefing" }])
        const some = yield* send(host, "POST", "/v1/tools/remind", { body: '{"goal":"x"}' })
        assert.deepStrictEqual([some.status, some.body], [200, { called: "remind" }])
        // a write endpoint's body is never empty
        const write = yield* send(host, "POST", "/v1/alerts", {
          body: "",
          headers: { "content-type": "application/json" }
        })
        assert.deepStrictEqual([write.status, write.body.parameter], [400, "body"])
        assert.deepStrictEqual(tools.calls, [
          ["get_status", {}],
          ["get_briefing", {}],
          ["remind", { goal: "x" }]
        ])
      })
  )

  it.live("GET /v1/briefing passes explain (default true) and format on; a text briefing is text/plain", () =>
    Effect.gen(function* () {
      const tools = port()
      tools.replies.set("get_briefing", "All clear.")
      const host = yield* serve(tools)
      const text = yield* send(host, "GET", "/v1/briefing?format=text&explain=false")
      assert.deepStrictEqual([text.status, text.text], [200, "All clear."])
      assert.include(text.headers.get("content-type") ?? "", "text/plain")
      const plain = yield* send(host, "GET", "/v1/briefing?format=text")
      assert.strictEqual(plain.status, 200)
      assert.deepStrictEqual(tools.calls, [
        ["get_briefing", { explain: "false", format: "text" }],
        ["get_briefing", { explain: true, format: "text" }]
      ])
    })
  )

  it.live("GET /v1/alerts?level keeps entries of that level, skipping odd entries; other pages pass through", () =>
    Effect.gen(function* () {
      const tools = port()
      tools.replies.set("get_alerts", {
        entries: [
          null,
          "text",
          { id: "n", data: null },
          { id: "s", data: "x" },
          { id: "w", data: { level: "warning" } }
        ],
        next: 5
      })
      const host = yield* serve(tools)
      const warning = yield* send(host, "GET", "/v1/alerts?level=warning")
      assert.deepStrictEqual(
        [warning.status, warning.body],
        [200, { entries: [{ id: "w", data: { level: "warning" } }], next: 5 }]
      )
      tools.replies.set("get_alerts", "no alerts")
      const text = yield* send(host, "GET", "/v1/alerts?level=warning")
      assert.deepStrictEqual([text.status, text.body], [200, "no alerts"])
      tools.replies.set("get_alerts", { entries: "none" })
      const odd = yield* send(host, "GET", "/v1/alerts?level=critical")
      assert.deepStrictEqual([odd.status, odd.body], [200, { entries: "none" }])
      assert.deepStrictEqual(
        tools.calls.map(([, params]) => params),
        [{}, {}, {}]
      )
    })
  )

  it.live("a plain reply that is not 2xx becomes a problem with the status's title and code, the text as detail", () =>
    Effect.gen(function* () {
      const tools = port()
      const host = yield* serve(tools)
      const expected: ReadonlyArray<readonly [number, string, string]> = [
        [400, "Bad Request", "bad_request"],
        [401, "Unauthorized", "bad_request"],
        [403, "Forbidden", "bad_request"],
        [404, "Not Found", "not_found"],
        [405, "Method Not Allowed", "method_not_allowed"],
        [406, "Not Acceptable", "bad_request"],
        [409, "Conflict", "bad_request"],
        [413, "Content Too Large", "payload_too_large"],
        [415, "Unsupported Media Type", "unsupported_media_type"],
        [418, "Error", "bad_request"],
        [426, "Upgrade Required", "bad_request"],
        [429, "Too Many Requests", "rate_limited"],
        [499, "Error", "bad_request"],
        [500, "Internal Server Error", "internal_error"],
        [502, "Error", "internal_error"],
        [503, "Service Unavailable", "internal_error"]
      ]
      for (const [status, title, code] of expected) {
        tools.replies.set("get_status", HttpServerResponse.text(`  went wrong ${status}\n`, { status }))
        const reply = yield* send(host, "GET", "/v1/status/nas")
        assert.strictEqual(reply.status, status)
        assert.include(reply.headers.get("content-type") ?? "", problemType, String(status))
        assert.deepStrictEqual(reply.body, { type: "about:blank", title, status, code, detail: `went wrong ${status}` })
        // an empty or blank reply says its title
        tools.replies.set("get_status", HttpServerResponse.empty({ status }))
        const empty = yield* send(host, "GET", "/v1/status/nas")
        assert.deepStrictEqual([empty.status, empty.body.detail, empty.body.code], [status, title, code])
        tools.replies.set("get_status", HttpServerResponse.text(" \n ", { status }))
        const blank = yield* send(host, "GET", "/v1/status/nas")
        assert.strictEqual(blank.body.detail, title)
      }
    })
  )

  it.live("a plain error reply keeps its other headers, and its text is cut at 500 characters", () =>
    Effect.gen(function* () {
      const tools = port()
      const host = yield* serve(tools)
      const long = "y".repeat(700)
      tools.replies.set("get_status", HttpServerResponse.text(long, { status: 409, headers: { "x-trace": "t-1" } }))
      const reply = yield* send(host, "GET", "/v1/status/nas")
      assert.deepStrictEqual(
        [reply.status, reply.headers.get("x-trace"), reply.body.detail],
        [409, "t-1", long.slice(0, 500)]
      )
      assert.include(reply.headers.get("content-type") ?? "", problemType)
    })
  )

  it.live("a body of the wrong media type is a 415 unsupported_media_type problem", () =>
    Effect.gen(function* () {
      const tools = port()
      const host = yield* serve(tools)
      const reply = yield* send(host, "POST", "/v1/status", {
        body: "hello",
        headers: { "content-type": "text/plain" }
      })
      assert.strictEqual(reply.status, 415)
      assert.include(reply.headers.get("content-type") ?? "", problemType)
      assert.deepStrictEqual(
        [reply.body.type, reply.body.title, reply.body.status, reply.body.code],
        ["about:blank", "Unsupported Media Type", 415, "unsupported_media_type"]
      )
      assert.isString(reply.body.detail)
      assert.deepStrictEqual(tools.calls, [])
    })
  )

  it.live("2xx and 3xx replies and problems pass through untouched", () =>
    Effect.gen(function* () {
      const tools = port()
      const host = yield* serve(tools)
      tools.replies.set("get_status", HttpServerResponse.text("moved", { status: 302, headers: { location: "/x" } }))
      const moved = yield* send(host, "GET", "/v1/status/nas")
      assert.deepStrictEqual([moved.status, moved.headers.get("location"), moved.text], [302, "/x", "moved"])
      tools.replies.set("get_status", HttpServerResponse.text("made", { status: 201 }))
      const made = yield* send(host, "GET", "/v1/status/nas")
      assert.deepStrictEqual([made.status, made.text], [201, "made"])
      const problem = JSON.stringify({ type: "about:blank", title: "Gone", status: 410, code: "gone", detail: "gone" })
      tools.replies.set(
        "get_status",
        HttpServerResponse.text(problem, { status: 410, contentType: "application/problem+json; charset=utf-8" })
      )
      const gone = yield* send(host, "GET", "/v1/status/nas")
      assert.deepStrictEqual([gone.status, gone.text, gone.headers.get("retry-after")], [410, problem, null])
      // a tool's own failure is its problem (not_found), without Retry-After
      tools.replies.set("get_status", Effect.fail({ code: "not_found", message: "No source 'nas'." }))
      const missing = yield* send(host, "GET", "/v1/status/nas")
      assert.deepStrictEqual(
        [missing.status, missing.body.code, missing.body.detail, missing.headers.get("retry-after")],
        [404, "not_found", "No source 'nas'.", null]
      )
    })
  )

  it.live(
    "a 429 problem gets Retry-After from its retry_after_sec, 60 when absent or not a number, or keeps its own",
    () =>
      Effect.gen(function* () {
        const tools = port()
        const host = yield* serve(tools)
        const retryAfter = (reply: unknown) =>
          Effect.gen(function* () {
            tools.replies.set("get_status", reply)
            const answer = yield* send(host, "GET", "/v1/status/nas")
            assert.strictEqual(answer.status, 429)
            return answer.headers.get("retry-after")
          })
        assert.strictEqual(
          yield* retryAfter(Effect.fail({ code: "rate_limited", message: "slow down", retry_after_sec: 7 })),
          "7"
        )
        assert.strictEqual(yield* retryAfter(Effect.fail({ code: "rate_limited", message: "slow down" })), "60")
        const problem = (body: string, headers: Record<string, string> = {}) =>
          HttpServerResponse.text(body, { status: 429, headers, contentType: "application/problem+json" })
        assert.strictEqual(yield* retryAfter(problem(JSON.stringify({ retry_after_sec: "5" }))), "60")
        assert.strictEqual(yield* retryAfter(problem("not json")), "60")
        assert.strictEqual(yield* retryAfter(problem(JSON.stringify({ retry_after_sec: 3 }))), "3")
        assert.strictEqual(
          yield* retryAfter(problem(JSON.stringify({ retry_after_sec: 3 }), { "retry-after": "9" })),
          "9"
        )
      })
  )

  it.live("the rate limit counts per window: the window's last request is limited, a passed window starts fresh", () =>
    Effect.gen(function* () {
      const tools = port()
      const clock = manualClock(1_000_000)
      const host = yield* serve(tools, { rateLimit: { requests: 2, windowMs: 10_000 } }, clock.layer)
      const alice = { headers: { "x-owner": "alice" } }
      const status = () => send(host, "GET", "/v1/briefing", alice)
      assert.strictEqual((yield* status()).status, 200)
      clock.set(1_000_100)
      assert.strictEqual((yield* status()).status, 200)
      clock.set(1_002_500)
      const limited = yield* status()
      assert.strictEqual(limited.status, 429)
      // 7.5 s of the window remain: told 8 s
      assert.deepStrictEqual(
        [limited.body.retry_after_sec, limited.headers.get("retry-after"), limited.body.detail],
        [8, "8", "More than 2 requests in 10 s for this owner; retry in 8 s."]
      )
      clock.set(1_009_999)
      const last = yield* status()
      assert.deepStrictEqual([last.status, last.body.retry_after_sec], [429, 1])
      // the window ends exactly windowMs after its first request
      clock.set(1_010_000)
      assert.strictEqual((yield* status()).status, 200)
      assert.strictEqual((yield* status()).status, 200)
      const again = yield* status()
      assert.deepStrictEqual([again.status, again.body.retry_after_sec], [429, 10])
      assert.strictEqual(tools.calls.length, 4)
    })
  )

  it.live("past 10,000 owners, ended windows are dropped but a live window keeps its count", () =>
    Effect.gen(function* () {
      const tools = port()
      const clock = manualClock(5_000_000)
      const host = yield* serve(tools, { rateLimit: { requests: 1, windowMs: 60_000 } }, clock.layer)
      const as = (owner: string) => send(host, "GET", "/v1/briefing", { headers: { "x-owner": owner } })
      assert.strictEqual((yield* as("early")).status, 200)
      clock.set(5_030_000)
      assert.strictEqual((yield* as("alice")).status, 200)
      assert.strictEqual((yield* as("alice")).status, 429)
      // 10,000 more owners, one request each, some in flight at once
      yield* Effect.forEach(
        Array.from({ length: 10_000 }, (_, i) => `owner-${i}`),
        as,
        { concurrency: 32, discard: true }
      )
      // the early window has ended (the sweep may drop it); alice's has not and still counts her request
      clock.set(5_060_000)
      const alice = yield* as("alice")
      assert.deepStrictEqual([alice.status, alice.body.retry_after_sec], [429, 30])
      assert.strictEqual((yield* as("early")).status, 200)
    })
  )

  it.live("the docs page inlines Scalar's script and turns its CDN fonts off", () =>
    Effect.gen(function* () {
      const tools = port()
      const host = yield* serve(tools)
      const docs = yield* send(host, "GET", "/docs")
      assert.strictEqual(docs.status, 200)
      assert.include(docs.text, '"withDefaultFonts":false')
      assert.notInclude(docs.text, "<script src=")
      assert.include(docs.text, "The remind tool.")
    })
  )

  it("each write endpoint's body is its tool's schema, its description gains the tool's after a blank line", () => {
    const tools = names.slice(0, 4).map((name) => ({
      name,
      description: `Does ${name}.`,
      readOnly: false,
      inputSchema: { type: "object", title: name }
    }))
    const document = RestServer.openApi(tools) as OpenApiJson
    const endpoints: ReadonlyArray<readonly [string, string]> = [
      ["/v1/status", "report_status"],
      ["/v1/alerts", "report_alert"],
      ["/v1/intentions", "remind"],
      ["/v1/suppressions", "suppress_alert"]
    ]
    for (const [path, name] of endpoints) {
      const post = document.paths[path].post
      assert.deepStrictEqual(post.requestBody.content["application/json"].schema, { type: "object", title: name })
      assert.strictEqual(
        post.description,
        `Calls the \`${name}\` tool with the body as its parameters.\n\nDoes ${name}.`,
        path
      )
    }
  })

  it("POST /v1/tools/{name} lists every tool in its description and its name parameter's enum", () => {
    const tools = [
      { name: "get_status", description: "A status.", readOnly: true, inputSchema: { type: "object" } },
      { name: "remind", description: "A reminder.", readOnly: false, inputSchema: { type: "object" } }
    ]
    const call = (RestServer.openApi(tools) as OpenApiJson).paths["/v1/tools/{name}"].post
    assert.strictEqual(
      call.description,
      "Every awareness tool, with the tool's own parameters as the body and its reply as the response.\n\n" +
        "- `get_status` (read-only): A status.\n- `remind`: A reminder."
    )
    assert.deepStrictEqual(
      call.parameters.map((parameter: { name: string; schema: unknown }) => [parameter.name, parameter.schema]),
      [["name", { type: "string", enum: ["get_status", "remind"] }]]
    )
  })

  it("a write endpoint whose tool is not listed keeps its plain body schema and description", () => {
    const plain = RestServer.openApi([]) as OpenApiJson
    const document = RestServer.openApi([
      { name: "remind", description: "A reminder.", readOnly: false, inputSchema: { type: "object", title: "r" } }
    ]) as OpenApiJson
    for (const path of ["/v1/status", "/v1/alerts", "/v1/suppressions"]) {
      assert.deepStrictEqual(document.paths[path].post, plain.paths[path].post, path)
      assert.strictEqual(
        document.paths[path].post.description,
        `Calls the \`${path === "/v1/status" ? "report_status" : path === "/v1/alerts" ? "report_alert" : "suppress_alert"}\` tool with the body as its parameters.`
      )
    }
    assert.notDeepEqual(document.paths["/v1/intentions"].post, plain.paths["/v1/intentions"].post)
  })
})
