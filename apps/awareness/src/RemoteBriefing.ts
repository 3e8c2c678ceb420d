/**
 * Reads a briefing through a running awareness server over Streamable HTTP (used by `briefing` when a server holds
 * the embedded store's lock): `initialize`, `tools/call get_briefing`, then `DELETE` of the session.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type { Settings } from "./Settings.ts"
import * as Token from "./Token.ts"

/**
 * The running server could not give the briefing.
 *
 * @category errors
 * @since 0.1.0
 */
export class RemoteBriefingError extends Schema.TaggedError<RemoteBriefingError>()("RemoteBriefingError", {
  message: Schema.String
}) {}

/** The JSON-RPC message of a reply, whether it came as JSON or as server-sent events. */
const messageOf = (text: string): { result?: unknown; error?: { message?: string } } => {
  const data = text
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => line.slice(6))
  return JSON.parse(data.length > 0 ? data[data.length - 1]! : text)
}

/**
 * Fetches `owner`'s briefing from the server at `url` (an MCP endpoint). With a signing secret set, it sends a
 * short-lived token for `owner`.
 *
 * @category constructors
 * @since 0.1.0
 */
export const fetch = (url: string, owner: string, settings: Settings) =>
  Effect.tryPromise({
    try: async () => {
      const headers: Record<string, string> = {
        "content-type": "application/json",
        accept: "application/json, text/event-stream"
      }
      if (Option.isSome(settings.secret)) {
        const nowSec = Math.floor(Date.now() / 1000)
        const token = Token.sign({
          sub: owner,
          secret: Redacted.value(settings.secret.value),
          nowSec,
          expiresInSec: 60
        })
        headers.authorization = `Bearer ${token}`
      }
      const rpc = (id: number, method: string, params: object) =>
        globalThis.fetch(url, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id, method, params }) })
      const init = await rpc(1, "initialize", {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "heed-awareness briefing", version: "1" }
      })
      if (!init.ok) throw new Error(`the server answered ${init.status} to initialize`)
      await init.text()
      const session = init.headers.get("mcp-session-id")
      if (session !== null) {
        headers["mcp-session-id"] = session
        headers["mcp-protocol-version"] = "2025-06-18"
      }
      const reply = messageOf(
        await (await rpc(2, "tools/call", { name: "get_briefing", arguments: { explain: true } })).text()
      )
      if (session !== null) await globalThis.fetch(url, { method: "DELETE", headers }).catch(() => undefined)
      const content = (reply.result as { content?: Array<{ text?: string }>; isError?: boolean } | undefined) ?? {}
      if (reply.error !== undefined || content.isError === true || content.content?.[0]?.text === undefined) {
        throw new Error(reply.error?.message ?? content.content?.[0]?.text ?? "no briefing in the reply")
      }
      return JSON.parse(content.content[0].text) as unknown
    },
    catch: (cause) =>
      new RemoteBriefingError({
        message: `the running server at ${url} holds the data directory, and reading the briefing through it failed: ${
          cause instanceof Error ? cause.message : String(cause)
        }`
      })
  })
