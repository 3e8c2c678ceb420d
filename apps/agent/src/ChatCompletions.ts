/**
 * An `effect/ai` `LanguageModel` over an OpenAI-compatible chat-completions endpoint (`POST {url}/chat/completions`):
 * OpenAI, or a local Ollama or llama.cpp server. Text and function tools; no streaming (the agent posts whole
 * replies).
 *
 * @since 0.1.0
 */

import * as AiError from "effect/ai/AiError"
import * as LanguageModel from "effect/ai/LanguageModel"
import type * as Prompt from "effect/ai/Prompt"
import type * as Response from "effect/ai/Response"
import * as Tool from "effect/ai/Tool"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"

/**
 * Settings of {@link make}.
 *
 * @category models
 * @since 0.1.0
 */
export interface ChatCompletionsOptions {
  /** The API base, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`. */
  readonly url: string
  readonly model: string
  readonly apiKey?: string | undefined
  readonly maxTokens?: number | undefined
  readonly temperature?: number | undefined
  readonly timeoutS?: number | undefined
}

interface WireMessage {
  readonly role: "system" | "user" | "assistant" | "tool"
  readonly content: string | null
  readonly tool_calls?: ReadonlyArray<WireToolCall>
  readonly tool_call_id?: string
}

interface WireToolCall {
  readonly id: string
  readonly type: "function"
  readonly function: { readonly name: string; readonly arguments: string }
}

const textOf = (parts: ReadonlyArray<{ readonly type: string; readonly text?: string }>) =>
  parts
    .filter((part) => part.type === "text")
    .map((part) => part.text ?? "")
    .join("")

const json = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value ?? null))

/**
 * The wire messages of a prompt.
 *
 * @category combinators
 * @since 0.1.0
 */
export const toWire = (prompt: Prompt.Prompt): Array<WireMessage> => prompt.content.flatMap(wireOf)

function wireOf(message: Prompt.Message): Array<WireMessage> {
  switch (message.role) {
    case "system":
      return [{ role: "system", content: message.content }]
    case "user":
      return [{ role: "user", content: textOf(message.content) }]
    case "assistant": {
      const calls = message.content.flatMap((part) =>
        part.type === "tool-call"
          ? [{ id: part.id, type: "function" as const, function: { name: part.name, arguments: json(part.params) } }]
          : []
      )
      const text = textOf(message.content)
      return [
        calls.length === 0
          ? { role: "assistant", content: text }
          : { role: "assistant", content: text || null, tool_calls: calls }
      ]
    }
    case "tool":
      return message.content.flatMap((part) =>
        part.type === "tool-result"
          ? [{ role: "tool" as const, tool_call_id: part.id, content: json(part.result) }]
          : []
      )
  }
  return []
}

const failure = (description: string) =>
  AiError.make({
    module: "ChatCompletions",
    method: "generateText",
    reason: new AiError.UnknownError({ description })
  })

interface WireResponse {
  readonly choices?: ReadonlyArray<{
    readonly message?: { readonly content?: string | null; readonly tool_calls?: ReadonlyArray<WireToolCall> }
    readonly finish_reason?: string
  }>
  readonly usage?: { readonly prompt_tokens?: number; readonly completion_tokens?: number }
}

const parseArguments = (raw: string) => {
  try {
    return JSON.parse(raw === "" ? "{}" : raw) as unknown
  } catch {
    return raw
  }
}

const toParts = (body: WireResponse): Array<Response.PartEncoded> => {
  const choice = body.choices?.[0]
  const message = choice?.message ?? {}
  const calls = message.tool_calls ?? []
  const parts: Array<Response.PartEncoded> = []
  if (typeof message.content === "string" && message.content.length > 0)
    parts.push({ type: "text", text: message.content })
  for (const call of calls) {
    parts.push({
      type: "tool-call",
      id: call.id,
      name: call.function.name,
      params: parseArguments(call.function.arguments)
    })
  }
  parts.push({
    type: "finish",
    reason: calls.length > 0 ? "tool-calls" : choice?.finish_reason === "length" ? "length" : "stop",
    usage: {
      inputTokens: { total: body.usage?.prompt_tokens },
      outputTokens: { total: body.usage?.completion_tokens }
    }
  } as Response.PartEncoded)
  return parts
}

const post = (options: ChatCompletionsOptions, body: unknown) =>
  Effect.tryPromise({
    try: async (signal) => {
      const response = await fetch(`${options.url.replace(/\/+$/, "")}/chat/completions`, {
        method: "POST",
        signal: AbortSignal.any([signal, AbortSignal.timeout((options.timeoutS ?? 120) * 1000)]),
        headers: {
          "content-type": "application/json",
          ...(options.apiKey === undefined ? {} : { authorization: `Bearer ${options.apiKey}` })
        },
        body: JSON.stringify(body)
      })
      const text = await response.text()
      if (!response.ok) throw new Error(`HTTP ${response.status}: ${text.slice(0, 500)}`)
      return JSON.parse(text) as WireResponse
    },
    catch: (error) => failure(`chat completions at ${options.url}: ${(error as Error).message}`)
  })

/**
 * The language model.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (options: ChatCompletionsOptions): ReturnType<typeof LanguageModel.make> =>
  LanguageModel.make({
    generateText: (provider) =>
      Effect.map(
        post(options, {
          model: options.model,
          messages: toWire(provider.prompt),
          ...(options.maxTokens === undefined ? {} : { max_tokens: options.maxTokens }),
          ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
          ...(provider.tools.length === 0
            ? {}
            : {
                tools: provider.tools.map((tool) => ({
                  type: "function",
                  function: {
                    name: tool.name,
                    description: tool.description ?? "",
                    parameters: Tool.getJsonSchema(tool)
                  }
                }))
              })
        }),
        toParts
      ),
    streamText: () => Stream.fail(failure("streaming is not supported by this provider"))
  })
