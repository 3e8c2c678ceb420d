import { request } from "node:http"
import { connect } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as HttpServer from "effect/http/HttpServer"
import { RestApi, RestServer } from "../src/index.ts"
import type { ToolFailure } from "../src/RestApi.ts"
import { listen } from "./support.ts"

// A port whose one tool fails with whatever failure the request carries, and succeeds on `{ ok: true }`.
const failing = Layer.succeed(RestApi.Tools, {
  owner: Effect.succeed("anyone"),
  tools: [{ name: "fail", description: "Fails as asked.", readOnly: false, inputSchema: { type: "object" } }],
  call: (_name, params) => {
    const { failure } = params as { failure?: ToolFailure }
    return failure === undefined ? Effect.succeed({ status: "ok" }) : Effect.fail(failure)
  }
})

const post = (host: string, path: string, body: string) =>
  Effect.promise(async () => {
    const response = await fetch(`http://${host}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body
    })
    return {
      status: response.status,
      type: response.headers.get("content-type") ?? "",
      // biome-ignore lint/suspicious/noExplicitAny: parsed JSON
      body: (await response.json().catch(() => null)) as any
    }
  })

/**
 * Sends a request's head declaring `declared` body bytes, then `body` (fewer bytes), and leaves the request open:
 * resolves with the response's status line, which only arrives if the server answers without waiting for the rest.
 */
const declareThenStall = (host: string, path: string, declared: number, body: string) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const [hostname, port] = host.split(":")
      return connect(Number(port), hostname)
    }),
    (socket) => Effect.sync(() => socket.destroy())
  ).pipe(
    Effect.flatMap((socket) =>
      Effect.promise(
        () =>
          new Promise<string>((resolve, reject) => {
            let received = ""
            socket.on("error", reject)
            socket.on("data", (chunk) => {
              received += chunk.toString()
              const end = received.indexOf("\r\n")
              if (end >= 0) resolve(received.slice(0, end))
            })
            socket.write(
              [
                `POST ${path} HTTP/1.1`,
                `host: ${host}`,
                "content-type: application/json",
                `content-length: ${declared}`,
                "",
                body
              ].join("\r\n")
            )
          })
      )
    )
  )

/**
 * Posts `body` with `transfer-encoding: chunked`, in chunks of 100 bytes, so the server only learns its size by
 * reading it (there is no content-length to refuse up front).
 */
const postChunked = (host: string, path: string, body: string) =>
  Effect.promise(
    () =>
      new Promise<{ status: number; type: string; body: unknown }>((resolve, reject) => {
        const [hostname, port] = host.split(":")
        const sent = request(
          {
            host: hostname,
            port: Number(port),
            path,
            method: "POST",
            headers: { "content-type": "application/json", "transfer-encoding": "chunked" }
          },
          (response) => {
            let text = ""
            response.setEncoding("utf8")
            response.on("data", (chunk: string) => {
              text += chunk
            })
            response.on("end", () =>
              resolve({
                status: response.statusCode ?? 0,
                type: String(response.headers["content-type"] ?? ""),
                body: text === "" ? null : JSON.parse(text)
              })
            )
          }
        )
        sent.on("error", reject)
        for (let i = 0; i < body.length; i += 100) sent.write(body.slice(i, i + 100))
        sent.end()
      })
  )

/** A JSON body `{"pad":"x…x"}` of exactly `bytes` bytes. */
const bodyOf = (bytes: number) => {
  const frame = JSON.stringify({ pad: "" })
  return JSON.stringify({ pad: "x".repeat(bytes - frame.length) })
}

const titles: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  404: "Not Found",
  409: "Conflict",
  413: "Content Too Large",
  429: "Too Many Requests",
  500: "Internal Server Error",
  503: "Service Unavailable"
}

describe("RestServer problems", () => {
  it.live("a tool failure answers the status its code names, with the failure's fields in the problem", () =>
    Effect.gen(function* () {
      const host = yield* listen(RestServer.layer().pipe(Layer.provide([failing, HttpServer.layerServices])))
      const expected: ReadonlyArray<readonly [string, number]> = [
        ["invalid_parameter", 400],
        ["invalid_params", 400],
        ["bad_request", 400],
        ["validation_failed", 400],
        ["validation_error", 400],
        ["invalid_schema", 400],
        ["unauthorized", 401],
        ["not_found", 404],
        ["schema_not_found", 404],
        ["schema_already_exists", 409],
        ["schema_immutable", 409],
        ["schema_in_use", 409],
        ["conflict", 409],
        ["payload_too_large", 413],
        ["rate_limited", 429],
        ["unavailable", 503],
        ["store_exploded", 500]
      ]
      const answered: Array<readonly [string, number]> = []
      for (const [code] of expected) {
        const reply = yield* post(host, "/v1/tools/fail", JSON.stringify({ failure: { code, message: `m-${code}` } }))
        assert.include(reply.type, "application/problem+json", code)
        assert.strictEqual(reply.body.code, code)
        assert.strictEqual(reply.body.detail, `m-${code}`)
        assert.strictEqual(reply.body.status, reply.status, code)
        assert.strictEqual(reply.body.title, titles[reply.status], code)
        answered.push([code, reply.status])
      }
      assert.deepStrictEqual(answered, expected)
    })
  )

  it("the OpenAPI document describes each error status with its own problem schema, named after the problem", () => {
    const document = RestServer.openApi([]) as unknown as {
      // biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document as JSON
      readonly paths: Record<string, any>
      // biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document as JSON
      readonly components: { readonly schemas: Record<string, any> }
    }
    const names: Record<string, string> = {
      400: "BadRequest",
      401: "Unauthorized",
      404: "NotFound",
      409: "Conflict",
      413: "PayloadTooLarge",
      429: "TooManyRequests",
      500: "Internal",
      503: "Unavailable"
    }
    const responses = document.paths["/v1/tools/{name}"].post.responses
    for (const [status, name] of Object.entries(names)) {
      const schema = responses[status].content["application/problem+json"].schema
      assert.deepStrictEqual(schema, { $ref: `#/components/schemas/${name}Encoded` }, status)
      assert.isDefined(document.components.schemas[`${name}Encoded`], name)
    }
  })

  it.live("an unavailable store answers a retryable 503 that keeps every field of the failure", () =>
    Effect.gen(function* () {
      const host = yield* listen(RestServer.layer().pipe(Layer.provide([failing, HttpServer.layerServices])))
      const failure = {
        code: "unavailable",
        message: "The store is unreachable.",
        parameter: "store",
        suggestion: "retry",
        valid: ["a", "b"],
        retryable: true,
        retry_after_sec: 5
      }
      const reply = yield* post(host, "/v1/tools/fail", JSON.stringify({ failure }))
      assert.strictEqual(reply.status, 503)
      assert.deepStrictEqual(reply.body, {
        type: "about:blank",
        status: 503,
        title: "Service Unavailable",
        code: "unavailable",
        detail: "The store is unreachable.",
        parameter: "store",
        suggestion: "retry",
        valid: ["a", "b"],
        retryable: true,
        retry_after_sec: 5
      })
      const bare = yield* post(host, "/v1/tools/fail", JSON.stringify({ failure: { code: "conflict", message: "no" } }))
      assert.deepStrictEqual(bare.body, {
        type: "about:blank",
        status: 409,
        title: "Conflict",
        code: "conflict",
        detail: "no"
      })
    })
  )
})

describe("RestServer body limit", () => {
  it.live("a body exactly at the limit is accepted and one byte over is refused with 413", () =>
    Effect.gen(function* () {
      const host = yield* listen(
        RestServer.layer({ maxBodyBytes: 1024 }).pipe(Layer.provide([failing, HttpServer.layerServices]))
      )
      const atLimit = bodyOf(1024)
      assert.strictEqual(Buffer.byteLength(atLimit), 1024)
      const accepted = yield* post(host, "/v1/tools/fail", atLimit)
      assert.strictEqual(accepted.status, 200)
      assert.deepStrictEqual(accepted.body, { status: "ok" })
      const over = yield* post(host, "/v1/tools/fail", bodyOf(1025))
      assert.strictEqual(over.status, 413)
      assert.strictEqual(over.body.code, "payload_too_large")
      assert.include(over.body.detail, "1024 bytes")
    })
  )

  it.live(
    "a declared content-length over the limit is refused at once, before the body arrives",
    () =>
      Effect.gen(function* () {
        const host = yield* listen(
          RestServer.layer({ maxBodyBytes: 1024 }).pipe(Layer.provide([failing, HttpServer.layerServices]))
        )
        // 10 GB declared, 2 bytes sent: a server that read the body first would wait for the rest forever.
        const status = yield* declareThenStall(host, "/v1/tools/fail", 10_000_000_000, "{}")
        assert.strictEqual(status, "HTTP/1.1 413 Payload Too Large")
        // one byte over, declared, also answers before the body
        assert.strictEqual(yield* declareThenStall(host, "/v1/tools/fail", 1025, "{"), "HTTP/1.1 413 Payload Too Large")
      }).pipe(Effect.scoped),
    { timeout: 10_000 }
  )

  it.live(
    "a chunked body (no content-length) over the limit is refused with a 413 problem; one at the limit is accepted",
    () =>
      Effect.gen(function* () {
        const host = yield* listen(
          RestServer.layer({ maxBodyBytes: 1024 }).pipe(Layer.provide([failing, HttpServer.layerServices]))
        )
        const accepted = yield* postChunked(host, "/v1/tools/fail", bodyOf(1024))
        assert.deepStrictEqual([accepted.status, accepted.body], [200, { status: "ok" }])
        for (const bytes of [1025, 200_000]) {
          const over = yield* postChunked(host, "/v1/tools/fail", bodyOf(bytes))
          assert.strictEqual(over.status, 413, `${bytes} bytes`)
          assert.include(over.type, "application/problem+json")
          assert.deepStrictEqual(over.body, {
            type: "about:blank",
            status: 413,
            title: "Content Too Large",
            code: "payload_too_large",
            detail: "The request body is over the limit of 1024 bytes."
          })
        }
      })
  )
})
