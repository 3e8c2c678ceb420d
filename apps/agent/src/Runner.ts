/**
 * The runner port: what turns a prompt into a reply. Two implementations: the `command` runner (spawns a
 * configured program per prompt, the prompt on stdin, the reply from stdout; how culture drives CLI agents) and
 * the `openai` runner (`OpenAiRunner`). A failure is a typed {@link RunnerError}; the agent logs it and isolates
 * it to the target.
 *
 * @since 0.1.0
 */
import { spawn } from "node:child_process"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type { CommandRunnerConfig } from "./Config.ts"
import { type PromptMessage, render } from "./TargetContext.ts"

/**
 * A runner failed for one prompt; `message` says how (exit status and stderr, timeout, HTTP error).
 *
 * @category errors
 * @since 0.1.0
 */
export class RunnerError extends Schema.TaggedError<RunnerError>()("RunnerError", {
  target: Schema.String,
  message: Schema.String
}) {}

/**
 * One prompt for a runner: the target it is about and the messages (system prompt, context, the new prompt last).
 *
 * @category models
 * @since 0.1.0
 */
export interface RunnerRequest {
  readonly target: string
  /** The thread of `target` the prompt is about, if any (replies are posted there). */
  readonly thread?: string | undefined
  readonly messages: ReadonlyArray<PromptMessage>
}

/**
 * The runner's interface: the reply text (empty means stay silent).
 *
 * @category models
 * @since 0.1.0
 */
export interface RunnerShape {
  readonly reply: (request: RunnerRequest) => Effect.Effect<string, RunnerError>
}

/**
 * The runner service.
 *
 * @category services
 * @since 0.1.0
 */
export class Runner extends Context.Service<Runner, RunnerShape>()("@heed/agent/Runner") {}

const MAX_OUTPUT = 1_000_000

/**
 * Runs a program once: writes `input` to its stdin and resolves with its stdout, or fails with its exit status and
 * the end of its stderr. The process is killed when the effect is interrupted or `timeoutS` passes.
 *
 * @category constructors
 * @since 0.1.0
 */
export const runProgram = (
  target: string,
  argv: ReadonlyArray<string>,
  input: string,
  options: { readonly env: Record<string, string>; readonly timeoutS: number }
): Effect.Effect<string, RunnerError> =>
  Effect.callback<string, RunnerError>((resume) => {
    const [file, ...args] = argv
    const child = spawn(file!, args, { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, ...options.env } })
    let stdout = ""
    let stderr = ""
    const fail = (message: string) => resume(Effect.fail(new RunnerError({ target, message })))
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      if (stdout.length < MAX_OUTPUT) stdout += chunk
    })
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-2000)
    })
    child.on("error", (error) => fail(`cannot run ${JSON.stringify(file)}: ${error.message}`))
    child.on("close", (code, signal) => {
      if (code === 0) resume(Effect.succeed(stdout.slice(0, MAX_OUTPUT)))
      else fail(`${file} exited with ${signal ?? code}${stderr.trim() === "" ? "" : `: ${stderr.trim()}`}`)
    })
    child.stdin.on("error", () => {}) // a program that exits without reading its stdin is not an error by itself
    child.stdin.end(input)
    return Effect.sync(() => child.kill("SIGKILL"))
  }).pipe(
    Effect.timeoutOrElse({
      duration: `${options.timeoutS} seconds`,
      orElse: () =>
        Effect.fail(new RunnerError({ target, message: `${argv[0]} did not answer within ${options.timeoutS} s` }))
    })
  )

/**
 * The `command` runner. `env` adds `HEED_AGENT_TARGET` (the target of the prompt), `HEED_AGENT_THREAD` (its
 * thread, when there is one) and whatever `extraEnv` holds (the agent adds `HEED_AGENT_SOCKET`, so the program
 * can call `heed-agent attention`).
 *
 * @category layers
 * @since 0.1.0
 */
export const layerCommand = (
  config: typeof CommandRunnerConfig.Type,
  extraEnv: Record<string, string> = {}
): Layer.Layer<Runner> =>
  Layer.succeed(Runner, {
    reply: (request) => {
      const argv = typeof config.command === "string" ? ["sh", "-c", config.command] : config.command
      const input = config.context === "prompt" ? (request.messages.at(-1)?.content ?? "") : render(request.messages)
      return Effect.map(
        runProgram(request.target, argv, `${input}\n`, {
          env: {
            ...extraEnv,
            ...config.env,
            HEED_AGENT_TARGET: request.target,
            ...(request.thread === undefined ? {} : { HEED_AGENT_THREAD: request.thread })
          },
          timeoutS: config.timeout_s ?? 300
        }),
        (out) => out.trim()
      )
    }
  })
