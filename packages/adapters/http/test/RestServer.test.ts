import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as HttpServer from "effect/http/HttpServer"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import { RestApi, RestServer } from "../src/index.ts"
import { listen } from "./support.ts"

// A port with one tool that checks its own parameter, as the awareness tools do; the owner is the `x-owner` header.
const tools = Layer.succeed(RestApi.Tools, {
  owner: Effect.map(HttpServerRequest.HttpServerRequest, (request) => request.headers["x-owner"] ?? "anyone"),
  tools: [
    {
      name: "report_alert",
      description: "Raise an alert.",
      readOnly: false,
      inputSchema: { type: "object", properties: { level: { type: "string", enum: ["warning", "critical"] } } }
    }
  ],
  call: (_name, params) => {
    const level = (params as { level?: unknown } | null)?.level
    return level === "warning" || level === "critical"
      ? Effect.succeed({ status: "ok", level })
      : Effect.fail({ code: "invalid_parameter", message: "bad level", parameter: "level", suggestion: "critical" })
  }
})

const post = (host: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
  Effect.promise(async () => {
    const response = await fetch(`http://${host}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body)
    })
    return {
      status: response.status,
      type: response.headers.get("content-type") ?? "",
      retryAfter: response.headers.get("retry-after"),
      // biome-ignore lint/suspicious/noExplicitAny: parsed JSON
      body: (await response.json().catch(() => null)) as any
    }
  })

describe("RestServer", () => {
  it.live("a per-owner rate limit answers 429 with retry_after_sec; other owners are unaffected", () =>
    Effect.gen(function* () {
      const host = yield* listen(
        RestServer.layer({ rateLimit: { requests: 3, windowMs: 60_000 } }).pipe(
          Layer.provide([tools, HttpServer.layerServices])
        )
      )
      const alice = { "x-owner": "alice" }
      for (let i = 0; i < 3; i++) {
        assert.strictEqual((yield* post(host, "/v1/alerts", { level: "warning" }, alice)).status, 200)
      }
      const limited = yield* post(host, "/v1/alerts", { level: "warning" }, alice)
      assert.strictEqual(limited.status, 429)
      assert.include(limited.type, "application/problem+json")
      assert.strictEqual(limited.body.code, "rate_limited")
      assert.isAbove(limited.body.retry_after_sec, 0)
      assert.strictEqual(limited.retryAfter, String(limited.body.retry_after_sec))
      const bob = yield* post(host, "/v1/alerts", { level: "critical" }, { "x-owner": "bob" })
      assert.strictEqual(bob.status, 200)
    })
  )

  it.live("without a rate limit, the port's failures map to problems by code; unknown tools get a suggestion", () =>
    Effect.gen(function* () {
      const host = yield* listen(
        RestServer.layer({ maxBodyBytes: 1024 }).pipe(Layer.provide([tools, HttpServer.layerServices]))
      )
      for (let i = 0; i < 20; i++) {
        assert.strictEqual((yield* post(host, "/v1/alerts", { level: "warning" })).status, 200)
      }
      const bad = yield* post(host, "/v1/alerts", { level: "loud" })
      assert.strictEqual(bad.status, 400)
      assert.deepStrictEqual(
        { code: bad.body.code, parameter: bad.body.parameter, suggestion: bad.body.suggestion },
        { code: "invalid_parameter", parameter: "level", suggestion: "critical" }
      )
      const unknown = yield* post(host, "/v1/tools/report_alrt", {})
      assert.strictEqual(unknown.status, 404)
      assert.strictEqual(unknown.body.suggestion, "report_alert")
      const large = yield* post(host, "/v1/alerts", { level: "warning", pad: "x".repeat(2048) })
      assert.strictEqual(large.status, 413)
      assert.strictEqual(large.body.code, "payload_too_large")
    })
  )

  it("the OpenAPI document carries each write endpoint's tool schema and the tool names", () => {
    const document = RestServer.openApi([
      {
        name: "report_alert",
        description: "Raise an alert.",
        readOnly: false,
        inputSchema: { type: "object", properties: { level: { type: "string" } }, required: ["level"] }
      }
    ]) as unknown as {
      // biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document as JSON
      readonly paths: Record<string, any>
    }
    assert.deepStrictEqual(document.paths["/v1/alerts"].post.requestBody.content["application/json"].schema.required, [
      "level"
    ])
    const name = document.paths["/v1/tools/{name}"].post.parameters.find((p: { name: string }) => p.name === "name")
    assert.deepStrictEqual(name.schema.enum, ["report_alert"])
  })
})
