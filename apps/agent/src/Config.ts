/**
 * The agent's configuration file (`agent.yaml`), read with `yaml` and decoded with Schema into one config type
 * for every runner: `server {host, port, tls, tls_ca_file?, tls_insecure?, nick, password?}`, `channels`,
 * culture's `attention` block (with the legacy top-level `poll_interval` honoured when the block is absent),
 * `runner` (`command` or `openai`), `awareness? {url, token?}`, `state_dir`, plus heed's `send` pacing, `context`
 * decay settings and the runner's `retry` policy.
 *
 * @since 0.1.0
 */
import { readFileSync } from "node:fs"
import { dirname, resolve } from "node:path"
import { AttentionConfig } from "@heed/attention-bands"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { parse } from "yaml"

/**
 * The config file cannot be read or used; `message` names the file and the field.
 *
 * @category errors
 * @since 0.1.0
 */
export class ConfigError extends Schema.TaggedError<ConfigError>()("ConfigError", {
  message: Schema.String
}) {}

const Positive = Schema.Finite.check(Schema.isGreaterThan(0))
const PositiveInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))

/**
 * The `command` runner: spawns `command` (an argv list, or one string run by `sh -c`) per prompt, writes the
 * prompt to its stdin and posts its stdout. `context: full` (default) sends the decay-managed context before the
 * prompt; `prompt` sends only the prompt (for CLI agents that keep their own session).
 *
 * @category schemas
 * @since 0.1.0
 */
export const CommandRunnerConfig = Schema.Struct({
  type: Schema.Literal("command"),
  command: Schema.Union([Schema.NonEmptyString, Schema.NonEmptyArray(Schema.String)]),
  timeout_s: Schema.optionalKey(Positive),
  context: Schema.optionalKey(Schema.Literals(["full", "prompt"])),
  env: Schema.optionalKey(Schema.Record(Schema.String, Schema.String))
})

/**
 * The `openai` runner: an `effect/ai` `LanguageModel` over an OpenAI-compatible chat-completions endpoint
 * (`url` is the API base, e.g. `http://127.0.0.1:11434/v1` for Ollama), with the key read from the environment
 * variable `api_key_env` when set.
 *
 * @category schemas
 * @since 0.1.0
 */
export const OpenAiRunnerConfig = Schema.Struct({
  type: Schema.Literal("openai"),
  url: Schema.NonEmptyString,
  model: Schema.NonEmptyString,
  api_key_env: Schema.optionalKey(Schema.NonEmptyString),
  max_tokens: Schema.optionalKey(PositiveInt),
  temperature: Schema.optionalKey(Schema.Finite),
  timeout_s: Schema.optionalKey(Positive),
  max_tool_steps: Schema.optionalKey(PositiveInt)
})

/**
 * The file's shape as written (before the attention block is resolved).
 *
 * @category schemas
 * @since 0.1.0
 */
export const AgentFile = Schema.Struct({
  server: Schema.Struct({
    host: Schema.NonEmptyString,
    port: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 65535 }))),
    tls: Schema.optionalKey(Schema.Boolean),
    tls_ca_file: Schema.optionalKey(Schema.NonEmptyString),
    tls_insecure: Schema.optionalKey(Schema.Boolean),
    nick: Schema.NonEmptyString,
    password: Schema.optionalKey(Schema.String)
  }),
  channels: Schema.optionalKey(Schema.Array(Schema.NonEmptyString)),
  poll_interval: Schema.optionalKey(Schema.Finite),
  attention: Schema.optionalKey(Schema.Unknown),
  runner: Schema.Union([CommandRunnerConfig, OpenAiRunnerConfig]),
  awareness: Schema.optionalKey(
    Schema.Struct({ url: Schema.NonEmptyString, token: Schema.optionalKey(Schema.String) })
  ),
  state_dir: Schema.optionalKey(Schema.NonEmptyString),
  send: Schema.optionalKey(
    Schema.Struct({ rate: Schema.optionalKey(Positive), burst: Schema.optionalKey(PositiveInt) })
  ),
  context: Schema.optionalKey(
    Schema.Struct({
      decay_threshold: Schema.optionalKey(PositiveInt),
      log_exchanges: Schema.optionalKey(PositiveInt)
    })
  ),
  retry: Schema.optionalKey(
    Schema.Struct({ attempts: Schema.optionalKey(PositiveInt), backoff_s: Schema.optionalKey(Positive) })
  ),
  quit_message: Schema.optionalKey(Schema.String)
})

/**
 * The file as written.
 *
 * @category models
 * @since 0.1.0
 */
export type AgentFile = typeof AgentFile.Type

/**
 * The runner settings.
 *
 * @category models
 * @since 0.1.0
 */
export type RunnerConfig = AgentFile["runner"]

/**
 * The effective configuration: the file with its attention block resolved (`AttentionConfig.decode`, legacy
 * `poll_interval` migration included) and `state_dir` and `server.tls_ca_file` made absolute (relative to the
 * file).
 *
 * @category models
 * @since 0.1.0
 */
export interface AgentConfig extends Omit<AgentFile, "attention" | "state_dir"> {
  readonly attention: AttentionConfig.AttentionConfig
  readonly state_dir: string
}

const decodeFile = Schema.decodeUnknownEffect(AgentFile)

/**
 * Decodes an already parsed config (`base` is the directory relative paths start from).
 *
 * @category decoding
 * @since 0.1.0
 */
export const decode = Effect.fnUntraced(function* (raw: unknown, base: string, source = "the config") {
  const file = yield* decodeFile(raw, { onExcessProperty: "error" }).pipe(
    Effect.mapError((error) => new ConfigError({ message: `${source}: ${error.message}` }))
  )
  const attention = yield* AttentionConfig.decode(file.attention, {
    legacyPollInterval: file.poll_interval
  }).pipe(Effect.mapError((error) => new ConfigError({ message: `${source}: ${error.message}` })))
  const ca = file.server.tls_ca_file
  return {
    ...file,
    server: ca === undefined ? file.server : { ...file.server, tls_ca_file: resolve(base, ca) },
    attention,
    state_dir: resolve(base, file.state_dir ?? ".heed-agent")
  } satisfies AgentConfig
})

/**
 * Reads and decodes `agent.yaml`.
 *
 * @category decoding
 * @since 0.1.0
 */
export const load = Effect.fnUntraced(function* (path: string) {
  const text = yield* Effect.try({
    try: () => readFileSync(path, "utf8"),
    catch: (error) => new ConfigError({ message: `cannot read ${path}: ${(error as Error).message}` })
  })
  const raw = yield* Effect.try({
    try: () => parse(text) as unknown,
    catch: (error) => new ConfigError({ message: `${path} is not valid YAML: ${(error as Error).message}` })
  })
  return yield* decode(raw, dirname(resolve(path)), path)
})
