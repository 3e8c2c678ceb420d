/**
 * The per-API pieces of the `heed_expand` loop: the tool's definition in each API's shape, finding the model's
 * `heed_expand` calls in a JSON or streamed response, and errors in each API's own error shape.
 *
 * @since 0.1.0
 */
import type { Api } from "./Transcript.ts"

/**
 * The tool the proxy adds while any effort is collapsed, and answers itself.
 *
 * @category constants
 * @since 0.1.0
 */
export const EXPAND_TOOL = "heed_expand"

const DESCRIPTION =
  'Restore a collapsed piece of this conversation (marked [heed: N tokens collapsed, heed_expand("<id>") restores them]) ' +
  "to its full text. Call it when you need the details of a collapsed tool result or message."

const PARAMETERS = {
  type: "object",
  properties: { id: { type: "string", description: "The id named in the collapsed marker, e.g. h1a2b3c4d" } },
  required: ["id"]
}

/**
 * The `heed_expand` tool definition in `api`'s shape.
 *
 * @category constants
 * @since 0.1.0
 */
export const expandTool = (api: Api): Record<string, unknown> =>
  api === "openai"
    ? { type: "function", function: { name: EXPAND_TOOL, description: DESCRIPTION, parameters: PARAMETERS } }
    : { name: EXPAND_TOOL, description: DESCRIPTION, input_schema: PARAMETERS }

/**
 * A body with the `heed_expand` tool appended to its tools. An OpenAI body that uses the legacy `functions` field
 * is left as it is (it may not mix `functions` and `tools`); its model can still read the gists.
 *
 * @category combinators
 * @since 0.1.0
 */
export const withExpandTool = (api: Api, body: Record<string, unknown>): Record<string, unknown> =>
  api === "openai" && body.functions !== undefined
    ? body
    : { ...body, tools: [...(Array.isArray(body.tools) ? body.tools : []), expandTool(api)] }

const idFromArguments = (raw: unknown): string | undefined => {
  try {
    const parsed = typeof raw === "string" ? (JSON.parse(raw === "" ? "{}" : raw) as unknown) : raw
    if (typeof parsed === "object" && parsed !== null && typeof (parsed as { id?: unknown }).id === "string") {
      return (parsed as { id: string }).id
    }
  } catch {
    // not JSON: the id may be the raw text itself
  }
  return typeof raw === "string" && /^h[0-9a-f]{8}$/.test(raw.trim()) ? raw.trim() : undefined
}

/**
 * The `heed_expand` calls in a JSON response: `undefined` when there are none, else the ids asked for (possibly
 * empty when the arguments were unreadable).
 *
 * @category getters
 * @since 0.1.0
 */
export const expandCalls = (api: Api, response: unknown): Array<string> | undefined => {
  if (typeof response !== "object" || response === null) return undefined
  const ids: Array<string> = []
  let found = false
  if (api === "openai") {
    const choices = (response as { choices?: unknown }).choices
    if (!Array.isArray(choices)) return undefined
    for (const choice of choices) {
      const calls = (choice as { message?: { tool_calls?: unknown } })?.message?.tool_calls
      if (!Array.isArray(calls)) continue
      for (const call of calls) {
        const fn = (call as { function?: { name?: unknown; arguments?: unknown } })?.function
        if (fn?.name !== EXPAND_TOOL) continue
        found = true
        const id = idFromArguments(fn.arguments)
        if (id !== undefined) ids.push(id)
      }
    }
  } else {
    const content = (response as { content?: unknown }).content
    if (!Array.isArray(content)) return undefined
    for (const block of content) {
      const b = block as { type?: unknown; name?: unknown; input?: unknown }
      if (b?.type !== "tool_use" || b.name !== EXPAND_TOOL) continue
      found = true
      const id = idFromArguments(b.input)
      if (id !== undefined) ids.push(id)
    }
  }
  return found ? ids : undefined
}

/**
 * An error body in `api`'s own error shape.
 *
 * @category constructors
 * @since 0.1.0
 */
export const errorBody = (api: Api, type: string, message: string): string =>
  api === "openai"
    ? JSON.stringify({ error: { message, type, param: null, code: type } })
    : JSON.stringify({ type: "error", error: { type, message } })

/**
 * An error as one server-sent event in `api`'s streaming shape (sent when a stream already started).
 *
 * @category constructors
 * @since 0.1.0
 */
export const errorEvent = (api: Api, type: string, message: string): string =>
  api === "openai"
    ? `data: ${errorBody(api, type, message)}\n\n`
    : `event: error\ndata: ${errorBody(api, type, message)}\n\n`

/**
 * Splits a server-sent event stream into whole events (each with its terminating blank line), keeping the bytes
 * of each event exactly as received.
 *
 * @category models
 * @since 0.1.0
 */
export class EventSplitter {
  #buffer = ""
  /** Adds a chunk; returns the events it completed. */
  push(chunk: string): Array<string> {
    this.#buffer += chunk
    const out: Array<string> = []
    for (;;) {
      const match = /\r?\n\r?\n/.exec(this.#buffer)
      if (match === null) break
      const end = match.index + match[0].length
      out.push(this.#buffer.slice(0, end))
      this.#buffer = this.#buffer.slice(end)
    }
    return out
  }
  /** What is left (an unterminated last event). */
  rest(): string {
    const rest = this.#buffer
    this.#buffer = ""
    return rest
  }
}

/**
 * The `event:` name and `data:` text of one server-sent event.
 *
 * @category getters
 * @since 0.1.0
 */
export const parseEvent = (raw: string): { readonly event: string | undefined; readonly data: string } => {
  let event: string | undefined
  const data: Array<string> = []
  for (const line of raw.split(/\r?\n/)) {
    if (line.startsWith("event:")) event = line.slice(6).trim()
    else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""))
  }
  return { event, data: data.join("\n") }
}

// biome-ignore lint/suspicious/noExplicitAny: stream events are walked freely; every access is optional
const parseJson = (text: string): any => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/**
 * What one streamed round asks of the loop after it ends.
 *
 * @category models
 * @since 0.1.0
 */
export interface RoundOutcome {
  /** Ids of `heed_expand` calls, `undefined` when the model made none. */
  readonly expand: Array<string> | undefined
}

/**
 * Filters one upstream stream round for the client: text streams through at once; from the first tool call on,
 * events are held until the round ends, then either released (no `heed_expand` call) or dropped (the loop asks
 * again with the efforts restored). Later rounds drop their `message_start` and shift Anthropic block indexes
 * after the blocks already sent.
 *
 * @category models
 * @since 0.1.0
 */
export class StreamRound {
  readonly api: Api
  readonly first: boolean
  readonly indexOffset: number
  #held: Array<string> = []
  #holding = false
  #names = new Map<number, string>()
  #args = new Map<number, string>()
  /** Anthropic blocks sent to the client in this round. */
  sentBlocks = 0

  constructor(api: Api, first: boolean, indexOffset: number) {
    this.api = api
    this.first = first
    this.indexOffset = indexOffset
  }

  /** Takes one raw event; returns what to send to the client now. */
  push(raw: string): Array<string> {
    const { event, data } = parseEvent(raw)
    if (this.api === "openai") return this.#openAi(raw, data)
    return this.#anthropic(raw, event, data)
  }

  #openAi(raw: string, data: string): Array<string> {
    const chunk = data === "[DONE]" ? undefined : parseJson(data)
    const choice = chunk?.choices?.[0]
    const calls = choice?.delta?.tool_calls
    if (Array.isArray(calls)) {
      this.#holding = true
      for (const call of calls) {
        const index = typeof call?.index === "number" ? call.index : 0
        if (typeof call?.function?.name === "string") this.#names.set(index, call.function.name)
        if (typeof call?.function?.arguments === "string") {
          this.#args.set(index, (this.#args.get(index) ?? "") + call.function.arguments)
        }
      }
    }
    if (this.#holding) {
      this.#held.push(raw)
      return []
    }
    // The end of a round without tool calls is held too: a later round may still follow.
    if (
      data === "[DONE]" ||
      (choice?.finish_reason ?? null) !== null ||
      (chunk !== undefined && choice === undefined)
    ) {
      this.#held.push(raw)
      return []
    }
    return [raw]
  }

  #anthropic(raw: string, event: string | undefined, data: string): Array<string> {
    const body = parseJson(data)
    const type = event ?? body?.type
    if (type === "message_start" && !this.first) return []
    if (type === "ping" && !this.first) return []
    if (type === "content_block_start" && body?.content_block?.type === "tool_use") {
      this.#holding = true
      this.#names.set(body.index, body.content_block.name)
    }
    if (type === "content_block_delta" && body?.delta?.type === "input_json_delta") {
      this.#args.set(body.index, (this.#args.get(body.index) ?? "") + (body.delta.partial_json ?? ""))
    }
    if (type === "message_delta" || type === "message_stop") this.#holding = true
    const shifted =
      this.indexOffset > 0 && typeof body?.index === "number" && String(type).startsWith("content_block_")
        ? `event: ${type}\ndata: ${JSON.stringify({ ...body, index: body.index + this.indexOffset })}\n\n`
        : raw
    if (this.#holding) {
      this.#held.push(shifted)
      return []
    }
    if (type === "content_block_start") this.sentBlocks++
    return [shifted]
  }

  /** The round ended: what it asks for, and what to release to the client if it ends the loop. */
  finish(): { readonly outcome: RoundOutcome; readonly release: Array<string> } {
    const ids: Array<string> = []
    let found = false
    for (const [index, name] of this.#names) {
      if (name !== EXPAND_TOOL) continue
      found = true
      const id = idFromArguments(this.#args.get(index) ?? "")
      if (id !== undefined) ids.push(id)
    }
    const release = this.#held
    this.#held = []
    return { outcome: { expand: found ? ids : undefined }, release }
  }
}
