/**
 * Raw JSON-RPC over `POST /mcp` with fetch, for tests of the MCP edge itself (the guard's limits, sessions and
 * framing), where the official SDK client would hide the status codes and bodies under test.
 */
import * as Effect from "effect/Effect"

/** An in-memory store: each server starts empty. */
export const memory = { _tag: "embedded", dataDir: "memory://" } as const

/** POSTs `body` to `path` (default `/mcp`) as an MCP client does; the reply's status, headers and text. */
export const post = (base: string, body: string, headers: Record<string, string> = {}, path = "/mcp") =>
  Effect.promise(async () => {
    const response = await fetch(`${base}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body
    })
    return { status: response.status, headers: response.headers, text: await response.text() }
  })

/** An `initialize` request; the reply with the session id it opened (empty when none). */
export const initialize = (base: string, headers: Record<string, string> = {}) =>
  Effect.map(
    post(
      base,
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "curl", version: "1" } }
      }),
      headers
    ),
    (reply) => ({ ...reply, session: reply.headers.get("mcp-session-id") ?? "" })
  )

/** The headers of a request in `session`. */
export const inSession = (session: string) => ({ "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" })

/** A ping request with `id`. */
export const ping = (id: unknown) => JSON.stringify({ jsonrpc: "2.0", id, method: "ping" })
