/** Agent transcripts for the tests: rounds of a read_file tool call and its (large) result, in either API shape. */
import { bigText } from "./harness.ts"

const SYSTEM = "You are a coding agent. Use the tools."

/** `rounds` read_file calls of `tokens`-token results, then a final user message. */
export const openAi = (rounds: number, finalUser: string, options: { tokens?: number; stream?: boolean } = {}) => {
  const messages: Array<Record<string, unknown>> = [
    { role: "system", content: SYSTEM },
    { role: "user", content: "Fix the failing tests in the repository." }
  ]
  for (let i = 0; i < rounds; i++) {
    messages.push({
      role: "assistant",
      content: null,
      tool_calls: [
        {
          id: `call_${i}`,
          type: "function",
          function: { name: "read_file", arguments: JSON.stringify({ path: `src/area${i}/file.ts` }) }
        }
      ]
    })
    messages.push({ role: "tool", tool_call_id: `call_${i}`, content: bigText(`area${i}`, options.tokens ?? 1500) })
  }
  messages.push({ role: "assistant", content: "I have read the files." })
  messages.push({ role: "user", content: finalUser })
  return {
    model: "fake-1",
    messages,
    tools: [{ type: "function", function: { name: "read_file", parameters: { type: "object" } } }],
    ...(options.stream === true ? { stream: true } : {}),
    unknown_field: { kept: true }
  }
}

/** The same agent loop in the Anthropic Messages shape, with a cache_control marker and an image. */
export const anthropic = (rounds: number, finalUser: string, options: { tokens?: number; stream?: boolean } = {}) => {
  const messages: Array<Record<string, unknown>> = [
    {
      role: "user",
      content: [
        { type: "text", text: "Fix the failing tests in the repository." },
        { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } }
      ]
    }
  ]
  for (let i = 0; i < rounds; i++) {
    messages.push({
      role: "assistant",
      content: [{ type: "tool_use", id: `toolu_${i}`, name: "read_file", input: { path: `src/area${i}/file.ts` } }]
    })
    messages.push({
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: `toolu_${i}`,
          content: bigText(`area${i}`, options.tokens ?? 1500),
          ...(i === 0 ? { cache_control: { type: "ephemeral" } } : {})
        }
      ]
    })
  }
  messages.push({ role: "assistant", content: [{ type: "text", text: "I have read the files." }] })
  messages.push({ role: "user", content: finalUser })
  return {
    model: "claude-fake",
    max_tokens: 100,
    system: SYSTEM,
    messages,
    tools: [{ name: "read_file", input_schema: { type: "object" } }],
    ...(options.stream === true ? { stream: true } : {})
  }
}

/** An OpenAI chat completion answering `text`. */
export const openAiText = (text: string) =>
  JSON.stringify({
    id: "chatcmpl-1",
    object: "chat.completion",
    choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }]
  })

/** An OpenAI chat completion calling heed_expand(id). */
export const openAiExpand = (id: string) =>
  JSON.stringify({
    id: "chatcmpl-2",
    object: "chat.completion",
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "call_x", type: "function", function: { name: "heed_expand", arguments: JSON.stringify({ id }) } }
          ]
        },
        finish_reason: "tool_calls"
      }
    ]
  })

/** An Anthropic message answering `text`. */
export const anthropicText = (text: string) =>
  JSON.stringify({
    id: "msg_1",
    type: "message",
    role: "assistant",
    content: [{ type: "text", text }],
    stop_reason: "end_turn"
  })

/** OpenAI stream chunks: optional leading text, then either a heed_expand call or the end. */
export const openAiStream = (text: string, expandId?: string): Array<string> => {
  const chunk = (delta: unknown, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
  const out = [chunk({ role: "assistant", content: "" }), chunk({ content: text })]
  if (expandId !== undefined) {
    out.push(
      chunk({
        tool_calls: [{ index: 0, id: "call_x", type: "function", function: { name: "heed_expand", arguments: "" } }]
      })
    )
    out.push(chunk({ tool_calls: [{ index: 0, function: { arguments: `{"id":"${expandId}"}` } }] }))
    out.push(chunk({}, "tool_calls"))
  } else out.push(chunk({}, "stop"))
  out.push("data: [DONE]\n\n")
  return out
}

/** Anthropic stream events: a text block, then either a heed_expand tool_use block or the end. */
export const anthropicStream = (text: string, expandId?: string): Array<string> => {
  const event = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`
  const out = [
    event("message_start", {
      type: "message_start",
      message: { id: "msg_1", type: "message", role: "assistant", content: [] }
    }),
    event("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
    event("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } }),
    event("content_block_stop", { type: "content_block_stop", index: 0 })
  ]
  if (expandId !== undefined) {
    out.push(
      event("content_block_start", {
        type: "content_block_start",
        index: 1,
        content_block: { type: "tool_use", id: "toolu_x", name: "heed_expand", input: {} }
      }),
      event("content_block_delta", {
        type: "content_block_delta",
        index: 1,
        delta: { type: "input_json_delta", partial_json: `{"id":"${expandId}"}` }
      }),
      event("content_block_stop", { type: "content_block_stop", index: 1 }),
      event("message_delta", { type: "message_delta", delta: { stop_reason: "tool_use" } })
    )
  } else out.push(event("message_delta", { type: "message_delta", delta: { stop_reason: "end_turn" } }))
  out.push(event("message_stop", { type: "message_stop" }))
  return out
}
