/**
 * Arguments no in-process client can even serialise (a 10,000-deep array), sent as raw JSON over Streamable HTTP
 * the way a fuzzer or a broken client would.
 */
import { createServer } from "node:http"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { assert, describe, it } from "@effect/vitest"
import { Awareness, Store } from "@heed/collator"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServer from "effect/http/HttpServer"
import * as Layer from "effect/Layer"
import { AwarenessMcp, AwarenessResolver } from "../src/index.ts"

const services = Layer.provide(AwarenessResolver.layer, Awareness.layer.pipe(Layer.provide(Store.layerMemory)))

const deep = (depth: number) => `${"[".repeat(depth)}"bottom"${"]".repeat(depth)}`

/** The JSON-RPC message in a response body (plain JSON or a single SSE `data:` event). */
const message = (
  body: string
): { result?: { isError?: boolean; content: Array<{ text: string }> }; error?: unknown } => {
  const data = body
    .split("\n")
    .filter((line) => line.startsWith("data:"))
    .map((line) => line.slice(5).trim())
  return JSON.parse(data.length > 0 ? data.join("") : body)
}

describe("deep input over Streamable HTTP", () => {
  it.live("a 10,000-deep array in any tool argument is a clear tool error with a bounded echo; serving goes on", () =>
    Effect.gen(function* () {
      const context = yield* Layer.build(
        HttpRouter.serve(AwarenessMcp.layerHttp({ pollInterval: 0 }).pipe(Layer.provide(services)), {
          disableLogger: true
        }).pipe(Layer.provideMerge(NodeHttpServer.layer(() => createServer(), { port: 0, host: "127.0.0.1" })))
      )
      const address = Context.get(context, HttpServer.HttpServer).address
      const url = `http://127.0.0.1:${address._tag === "UnixPathAddress" ? 0 : address.port}/mcp`
      const headers: Record<string, string> = {
        "content-type": "application/json",
        accept: "application/json, text/event-stream"
      }
      const post = (body: string) =>
        Effect.promise(async () => {
          const response = await fetch(url, { method: "POST", headers, body })
          return { response, text: await response.text() }
        })
      const init = yield* post(
        JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "fuzz", version: "1" } }
        })
      )
      const session = init.response.headers.get("mcp-session-id")
      if (session !== null) headers["mcp-session-id"] = session
      headers["mcp-protocol-version"] = "2025-06-18"
      yield* post(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }))
      const alert = `"source":"nas","alert_id":"x","level":"warning","message":"m"`
      const cases: ReadonlyArray<readonly [string, string, string]> = [
        ["report_alert", `{${alert},"tags":[],"details":{"nested":${deep(10_000)}}}`, "details"],
        ["report_alert", `{${alert},"tags":${deep(10_000)}}`, "tags"],
        ["remember", `{"source":"s","tags":[],"description":"d","content":${deep(10_000)}}`, "content"],
        ["get_alerts", `{"source":${deep(10_000)}}`, "source"],
        ["suppress_alert", `{"time_intervals":${deep(10_000)}}`, "time_intervals"]
      ]
      for (const [index, [name, args, param]] of cases.entries()) {
        const reply = yield* post(
          `{"jsonrpc":"2.0","id":${index + 2},"method":"tools/call","params":{"name":"${name}","arguments":${args}}}`
        )
        assert.isBelow(reply.text.length, 2_000)
        const result = message(reply.text).result
        assert.isDefined(result, reply.text)
        const body = JSON.parse(result!.content[0]!.text)
        assert.deepStrictEqual(
          [name, result!.isError, body.error.code, body.error.param],
          [name, true, "invalid_parameter", param]
        )
        assert.notInclude(reply.text, "    at ")
      }
      const briefing = yield* post(
        JSON.stringify({
          jsonrpc: "2.0",
          id: 99,
          method: "tools/call",
          params: { name: "get_briefing", arguments: {} }
        })
      )
      assert.strictEqual(JSON.parse(message(briefing.text).result!.content[0]!.text).attention_needed, false)
    }).pipe(Effect.scoped)
  )
})
