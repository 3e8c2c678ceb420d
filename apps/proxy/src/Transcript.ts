/**
 * One neutral view of an OpenAI Chat Completions or Anthropic Messages request body: its messages, the turn each
 * belongs to, the text the reference detector reads, and the **units** the proxy may collapse (a tool result, or
 * the text of a message). {@link rewrite} writes replacement texts back into a copy of the body, changing nothing
 * else: message order and count, roles, tool-call pairing, images, `cache_control` and unknown fields stay.
 *
 * A turn ends with an assistant message: the messages up to and including the first assistant message are turn 1,
 * and the request's current turn is one more than the number of assistant messages.
 *
 * @since 0.1.0
 */

/**
 * The two API shapes the proxy speaks.
 *
 * @category models
 * @since 0.1.0
 */
export type Api = "openai" | "anthropic"

/**
 * Where one text of a unit lives inside its message: `block` is the index in the message's content array (`-1`
 * when the content is a string), `inner` the index inside a tool result's own content array (`-1` when that
 * content is a string, or the block is not a tool result).
 *
 * @category models
 * @since 0.1.0
 */
export interface Location {
  readonly block: number
  readonly inner: number
}

/**
 * A collapsible piece of a message: a tool result, or the text of a user or assistant message.
 *
 * @category models
 * @since 0.1.0
 */
export interface Unit {
  /** `"<message>:<block>"`, unique in the request. */
  readonly key: string
  /** The message index. */
  readonly message: number
  /** A tool result or a message's text. */
  readonly kind: "tool_result" | "text"
  /** The unit's texts, in order. */
  readonly texts: ReadonlyArray<string>
  /** Where each text lives. */
  readonly locations: ReadonlyArray<Location>
  /** The tool call this result answers. */
  readonly toolCallId: string | undefined
  /** The called tool's name and raw arguments (JSON text), when the call is in the request. */
  readonly toolName: string | undefined
  readonly toolArguments: string | undefined
}

/**
 * A message as the proxy sees it.
 *
 * @category models
 * @since 0.1.0
 */
export interface Message {
  /** `system`, `developer`, `user`, `assistant`, `tool` (or whatever the client sent). */
  readonly role: string
  /** The turn it belongs to (1-based). */
  readonly turn: number
  /** Every text of the message: texts, tool-call names and arguments, tool results (counted as input tokens). */
  readonly texts: ReadonlyArray<string>
  /**
   * The texts in which the user or the model may refer to earlier efforts: user and assistant texts and tool-call
   * arguments, not tool results (as CCM checks the user and assistant messages only).
   */
  readonly references: ReadonlyArray<string>
  /** Its collapsible units. */
  readonly units: ReadonlyArray<Unit>
}

/**
 * The neutral view of a request.
 *
 * @category models
 * @since 0.1.0
 */
export interface Transcript {
  readonly api: Api
  /** The system prompt's texts (never collapsed). */
  readonly system: ReadonlyArray<string>
  /** The first user message's text (with the system prompt, the default session key). */
  readonly firstUser: string
  readonly messages: ReadonlyArray<Message>
  /** The current turn: the number of assistant messages plus one. */
  readonly turn: number
  /** Index of the last assistant message, or -1: the messages after it (and it) are the newest turn. */
  readonly lastAssistant: number
  /** The request's tool definitions as JSON text ("" when none), counted as input tokens. */
  readonly toolsJson: string
  /** Whether the client asked for a streamed response. */
  readonly stream: boolean
}

type Json = Record<string, unknown>

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)

const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)

/**
 * Thrown by {@link read} when a body is not a request of the API (no `messages` array, a message that is not an
 * object). The message names the field.
 *
 * @category errors
 * @since 0.1.0
 */
export class TranscriptError extends Error {
  readonly field: string
  constructor(field: string, message: string) {
    super(`${field}: ${message}`)
    this.field = field
  }
}

/** Texts of an array of content parts (`{type:"text", text}`), with their indexes. */
const textParts = (parts: ReadonlyArray<unknown>): Array<{ index: number; text: string }> => {
  const out: Array<{ index: number; text: string }> = []
  parts.forEach((part, index) => {
    if (isObject(part) && part.type === "text" && typeof part.text === "string") out.push({ index, text: part.text })
  })
  return out
}

interface Builder {
  readonly texts: Array<string>
  readonly references: Array<string>
  readonly units: Array<Unit>
}

const textUnit = (message: number, located: ReadonlyArray<{ block: number; text: string }>): Unit | undefined =>
  located.length === 0
    ? undefined
    : {
        key: `${message}:t`,
        message,
        kind: "text",
        texts: located.map((part) => part.text),
        locations: located.map((part) => ({ block: part.block, inner: -1 })),
        toolCallId: undefined,
        toolName: undefined,
        toolArguments: undefined
      }

const callText = (name: string | undefined, args: string | undefined) => `${name ?? ""}(${args ?? ""})`

/**
 * Reads a request body of `api` into its neutral view.
 *
 * @category constructors
 * @since 0.1.0
 */
export const read = (api: Api, body: unknown): Transcript => {
  if (!isObject(body)) throw new TranscriptError("body", "must be a JSON object")
  const raw = body.messages
  if (!Array.isArray(raw)) throw new TranscriptError("messages", "must be an array")
  const system: Array<string> = []
  if (api === "anthropic") {
    if (typeof body.system === "string") system.push(body.system)
    else if (Array.isArray(body.system)) for (const part of textParts(body.system)) system.push(part.text)
  }
  const calls = new Map<string, { name: string | undefined; args: string | undefined }>()
  const messages: Array<Message> = []
  let turn = 1
  let lastAssistant = -1
  let firstUser: string | undefined
  for (let i = 0; i < raw.length; i++) {
    const message = raw[i]
    if (!isObject(message)) throw new TranscriptError(`messages[${i}]`, "must be an object")
    const role = str(message.role) ?? ""
    const built: Builder = { texts: [], references: [], units: [] }
    if (api === "openai") readOpenAi(message, i, role, built, calls, system)
    else readAnthropic(message, i, built, calls)
    if (firstUser === undefined && role === "user") firstUser = built.texts.join("\n")
    messages.push({ role, turn, texts: built.texts, references: built.references, units: built.units })
    if (role === "assistant") {
      lastAssistant = i
      turn++
    }
  }
  const tools = body.tools
  return {
    api,
    system,
    firstUser: firstUser ?? "",
    messages,
    turn,
    lastAssistant,
    toolsJson: Array.isArray(tools) && tools.length > 0 ? JSON.stringify(tools) : "",
    stream: body.stream === true
  }
}

const readOpenAi = (
  message: Json,
  i: number,
  role: string,
  built: Builder,
  calls: Map<string, { name: string | undefined; args: string | undefined }>,
  system: Array<string>
) => {
  const content = message.content
  const located: Array<{ block: number; text: string }> = []
  if (typeof content === "string") located.push({ block: -1, text: content })
  else if (Array.isArray(content))
    for (const part of textParts(content)) located.push({ block: part.index, text: part.text })
  for (const part of located) built.texts.push(part.text)
  if (role !== "tool" && role !== "function") for (const part of located) built.references.push(part.text)
  if (role === "system" || role === "developer") {
    for (const part of located) system.push(part.text)
    return
  }
  if (Array.isArray(message.tool_calls)) {
    for (const call of message.tool_calls) {
      if (!isObject(call) || !isObject(call.function)) continue
      const name = str(call.function.name)
      const args = str(call.function.arguments)
      const id = str(call.id)
      if (id !== undefined) calls.set(id, { name, args })
      built.texts.push(callText(name, args))
      built.references.push(callText(name, args))
    }
  }
  if (role === "tool" || role === "function") {
    const id = str(message.tool_call_id) ?? str(message.name)
    const call = id === undefined ? undefined : calls.get(id)
    if (located.length > 0) {
      built.units.push({
        key: `${i}:r`,
        message: i,
        kind: "tool_result",
        texts: located.map((part) => part.text),
        locations: located.map((part) => ({ block: part.block, inner: -1 })),
        toolCallId: id,
        toolName: call?.name,
        toolArguments: call?.args
      })
    }
    return
  }
  const unit = textUnit(i, located)
  if (unit !== undefined) built.units.push(unit)
}

const readAnthropic = (
  message: Json,
  i: number,
  built: Builder,
  calls: Map<string, { name: string | undefined; args: string | undefined }>
) => {
  const content = message.content
  if (typeof content === "string") {
    built.texts.push(content)
    built.references.push(content)
    const unit = textUnit(i, [{ block: -1, text: content }])
    if (unit !== undefined) built.units.push(unit)
    return
  }
  if (!Array.isArray(content)) return
  const located: Array<{ block: number; text: string }> = []
  content.forEach((block, index) => {
    if (!isObject(block)) return
    if (block.type === "text" && typeof block.text === "string") {
      located.push({ block: index, text: block.text })
      built.texts.push(block.text)
      built.references.push(block.text)
    } else if (block.type === "tool_use") {
      const name = str(block.name)
      const args = block.input === undefined ? undefined : JSON.stringify(block.input)
      const id = str(block.id)
      if (id !== undefined) calls.set(id, { name, args })
      built.texts.push(callText(name, args))
      built.references.push(callText(name, args))
    } else if (block.type === "tool_result") {
      const id = str(block.tool_use_id)
      const call = id === undefined ? undefined : calls.get(id)
      const texts: Array<string> = []
      const locations: Array<Location> = []
      if (typeof block.content === "string") {
        texts.push(block.content)
        locations.push({ block: index, inner: -1 })
      } else if (Array.isArray(block.content)) {
        for (const part of textParts(block.content)) {
          texts.push(part.text)
          locations.push({ block: index, inner: part.index })
        }
      }
      for (const text of texts) built.texts.push(text)
      if (texts.length > 0) {
        built.units.push({
          key: `${i}:${index}`,
          message: i,
          kind: "tool_result",
          texts,
          locations,
          toolCallId: id,
          toolName: call?.name,
          toolArguments: call?.args
        })
      }
    }
  })
  const unit = textUnit(i, located)
  if (unit !== undefined) built.units.push(unit)
}

/**
 * A copy of `body` with each unit in `replacements` (by {@link Unit.key}) replaced by its text: the first text of
 * the unit takes the replacement, the unit's other text parts are dropped (a string content stays a string). Only
 * the touched messages and blocks are copied; everything else is shared with `body`, and every other field of a
 * touched message or block is kept.
 *
 * @category combinators
 * @since 0.1.0
 */
export const rewrite = (
  body: Json,
  transcript: Transcript,
  replacements: ReadonlyMap<string, string>
): Record<string, unknown> => {
  if (replacements.size === 0) return body
  const messages = (body.messages as Array<unknown>).slice()
  transcript.messages.forEach((message, i) => {
    const units = message.units.filter((unit) => replacements.has(unit.key))
    if (units.length === 0) return
    const copy: Json = { ...(messages[i] as Json) }
    const dropped = new Set<number>()
    for (const unit of units) applyUnit(copy, unit, replacements.get(unit.key)!, dropped)
    if (dropped.size > 0) copy.content = (copy.content as Array<unknown>).filter((_, index) => !dropped.has(index))
    messages[i] = copy
  })
  return { ...body, messages }
}

/**
 * Writes `text` into the unit's first location of `message` (a copy) and marks its other text blocks in `dropped`
 * (filtered once all units of the message are written, so block indexes stay valid meanwhile).
 */
const applyUnit = (message: Json, unit: Unit, text: string, dropped: Set<number>) => {
  const [first, ...rest] = unit.locations
  if (first === undefined) return
  if (first.block === -1) {
    message.content = text
    return
  }
  const blocks = (message.content as Array<unknown>).slice()
  message.content = blocks
  const block = blocks[first.block] as Json
  if (first.inner === -1) {
    blocks[first.block] = block.type === "tool_result" ? { ...block, content: text } : { ...block, text }
    for (const location of rest) dropped.add(location.block)
    return
  }
  // Text parts inside one tool_result block.
  const inner = (block.content as Array<unknown>).slice()
  inner[first.inner] = { ...(inner[first.inner] as Json), text }
  const drop = new Set(rest.map((location) => location.inner))
  blocks[first.block] = { ...block, content: inner.filter((_, index) => !drop.has(index)) }
}
