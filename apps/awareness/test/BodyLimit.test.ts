import { connect } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { settingsFor, startHttp } from "./harness.ts"

const memory = { _tag: "embedded", dataDir: "memory://" } as const
const limit = 64 * 1024

const post = (base: string, body: string, headers: Record<string, string> = {}) =>
  Effect.promise(async () => {
    const response = await fetch(`${base}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body
    })
    return { status: response.status, headers: response.headers, text: await response.text() }
  })

/** A JSON-RPC initialize request of exactly `bytes` bytes (its client name padded). */
const initializeOf = (bytes: number) => {
  const message = (name: string) =>
    JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name, version: "1" } }
    })
  return message("x".repeat(bytes - message("").length))
}

/**
 * Sends a POST /mcp head declaring `declared` body bytes, then `body` (fewer bytes), and leaves the request open:
 * resolves with the response's status line, which only arrives if the server answers without waiting for the rest.
 */
const declareThenStall = (base: string, declared: number, body: string) =>
  Effect.acquireRelease(
    Effect.sync(() => connect(Number(new URL(base).port), "127.0.0.1")),
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
                "POST /mcp HTTP/1.1",
                "host: 127.0.0.1",
                "content-type: application/json",
                "accept: application/json, text/event-stream",
                `content-length: ${declared}`,
                "",
                body
              ].join("\r\n")
            )
          })
      )
    )
  )

describe("MCP body limit at the edge", () => {
  it.live(
    "a body exactly at the limit is accepted and one byte over is refused with 413",
    () =>
      Effect.gen(function* () {
        const { base } = yield* startHttp(settingsFor({ maxBodyBytes: limit }), memory)
        const atLimit = initializeOf(limit)
        assert.strictEqual(Buffer.byteLength(atLimit), limit)
        const accepted = yield* post(base, atLimit)
        assert.strictEqual(accepted.status, 200)
        assert.isString(accepted.headers.get("mcp-session-id"))
        const over = yield* post(base, initializeOf(limit + 1))
        assert.strictEqual(over.status, 413)
        assert.include(JSON.parse(over.text).error.message, `${limit} bytes`)
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live(
    "a declared content-length over the limit is refused at once, before the body arrives",
    () =>
      Effect.gen(function* () {
        const { base } = yield* startHttp(settingsFor({ maxBodyBytes: limit }), memory)
        // 10 GB declared, 2 bytes sent: a server that read the body first would wait for the rest forever.
        assert.strictEqual(yield* declareThenStall(base, 10_000_000_000, "{}"), "HTTP/1.1 413 Payload Too Large")
        assert.strictEqual(yield* declareThenStall(base, limit + 1, "{"), "HTTP/1.1 413 Payload Too Large")
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )
})
