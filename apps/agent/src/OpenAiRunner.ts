/**
 * The `openai` runner: the prompt goes to an OpenAI-compatible chat-completions model (`ChatCompletions`) with
 * the attention tools (`set_attention`, `get_attention`) available; tool calls are answered and the model is
 * asked again, up to `max_tool_steps` (default 4) rounds, until it replies with text.
 *
 * @since 0.1.0
 */

import * as Chat from "effect/ai/Chat"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { type AttentionControl, toolkit, toolkitLayer } from "./AttentionControl.ts"
import * as ChatCompletions from "./ChatCompletions.ts"
import { ConfigError, type OpenAiRunnerConfig } from "./Config.ts"
import { Runner, RunnerError } from "./Runner.ts"

/**
 * The `openai` runner's layer; it needs the agent's {@link AttentionControl} for the tools. Fails with a
 * `ConfigError` when `api_key_env` names a variable that is not set.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (config: typeof OpenAiRunnerConfig.Type): Layer.Layer<Runner, ConfigError, AttentionControl> =>
  Layer.effect(
    Runner,
    Effect.gen(function* () {
      const apiKey = config.api_key_env === undefined ? undefined : process.env[config.api_key_env]
      if (config.api_key_env !== undefined && (apiKey === undefined || apiKey === "")) {
        return yield* new ConfigError({
          message: `runner.api_key_env: the environment variable ${config.api_key_env} is not set (it should hold the API key)`
        })
      }
      const model = yield* ChatCompletions.make({
        url: config.url,
        model: config.model,
        apiKey,
        maxTokens: config.max_tokens,
        temperature: config.temperature,
        timeoutS: config.timeout_s
      })
      const tools = yield* toolkit
      const steps = config.max_tool_steps ?? 4
      return Runner.of({
        reply: (request) =>
          Effect.gen(function* () {
            const chat = yield* Chat.fromPrompt(request.messages)
            for (let step = 0; step <= steps; step++) {
              const response = yield* chat.generateText({ prompt: [], toolkit: tools })
              if (response.toolCalls.length === 0) return response.text.trim()
            }
            return yield* new RunnerError({
              target: request.target,
              message: `the model kept calling tools for ${steps + 1} rounds without replying`
            })
          }).pipe(
            Effect.provideService(LanguageModel.LanguageModel, model),
            Effect.catchTag("AiError", (error) =>
              Effect.fail(new RunnerError({ target: request.target, message: error.message }))
            )
          )
      })
    })
  ).pipe(Layer.provide(toolkitLayer))
