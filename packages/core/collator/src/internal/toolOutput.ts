/**
 * The structured side of a tool reply (MCP 2025-06-18 `outputSchema` and `structuredContent`): the reply as a JSON
 * object (an object reply as it is, a list under `entries` or `tags`, a text reply under `text`).
 *
 * @since 0.1.0
 */

/** The key under which a reply that is not a JSON object goes: `text` for a text, `tags` or `entries` for a list. */
const wrapKey = (tool: string, reply: unknown): string =>
  typeof reply === "string" ? "text" : tool === "get_tags" ? "tags" : "entries"

/**
 * The `outputSchema` of every awareness tool: an object root. Every byte of `tools/list` is paid on every request,
 * so the reply's fields are described in the tool descriptions and documentation rather than here; the schema
 * tells a client that `structuredContent` is present and is a JSON object.
 */
export const outputSchema: Readonly<Record<string, unknown>> = { type: "object" }

/** A reply as `structuredContent`: an object as it is, anything else under its wrapper key. */
export const structuredOf = (tool: string, reply: unknown): Record<string, unknown> => {
  if (typeof reply === "object" && reply !== null && !Array.isArray(reply)) return reply as Record<string, unknown>
  return { [wrapKey(tool, reply)]: reply }
}
