/**
 * The `heed-agent` command line: `run --config agent.yaml` starts the agent; `attention <target> [--band B --ttl S]`,
 * `status`, `pause` and `resume` talk to a running agent over its control socket (found through `--config`'s
 * `state_dir`, or given with `--socket`).
 *
 * @since 0.1.0
 */
import { readFileSync } from "node:fs"
import { Band } from "@heed/attention-bands"
import { TokenCounter } from "@heed/schema"
import * as Console from "effect/Console"
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as Agent from "./Agent.ts"
import { AttentionControl } from "./AttentionControl.ts"
import * as Awareness from "./Awareness.ts"
import * as Config from "./Config.ts"
import * as Control from "./Control.ts"
import * as OpenAiRunner from "./OpenAiRunner.ts"
import * as Runner from "./Runner.ts"

const configFlag = Flag.String("config").pipe(
  Flag.withAlias("c"),
  Flag.withDescription("The agent's YAML config (default agent.yaml)"),
  Flag.withDefault("agent.yaml")
)
const socketFlag = Flag.String("socket").pipe(
  Flag.withDescription("The control socket (default: agent.sock in the config's state_dir)"),
  Flag.optional
)

/**
 * The runner layer a config asks for. The `command` runner learns the control socket through
 * `HEED_AGENT_SOCKET`, so the program it runs can call `heed-agent attention`.
 *
 * @category layers
 * @since 0.1.0
 */
export const runnerLayer = (
  config: Config.AgentConfig
): Layer.Layer<Runner.Runner, Config.ConfigError, AttentionControl> =>
  config.runner.type === "command"
    ? Runner.layerCommand(config.runner, { HEED_AGENT_SOCKET: Control.socketPath(config.state_dir) })
    : OpenAiRunner.layer(config.runner)

/**
 * Runs an agent for a config until interrupted (SIGINT or SIGTERM end it gracefully: QUIT, queue flushed, exit 0).
 *
 * @category constructors
 * @since 0.1.0
 */
export const runAgent = (config: Config.AgentConfig) =>
  Effect.gen(function* () {
    // The runner's tools need the agent's control, and the agent needs the runner: tie the knot lazily.
    let control: AttentionControl["Service"] | undefined
    const lazyControl = Layer.succeed(AttentionControl, {
      set: (...args) => Effect.suspend(() => control!.set(...args)),
      get: (target) => Effect.suspend(() => control!.get(target)),
      status: Effect.suspend(() => control!.status),
      pause: Effect.suspend(() => control!.pause),
      resume: Effect.suspend(() => control!.resume)
    })
    // Built in the caller's scope: the services live as long as the agent.
    const services = yield* Layer.build(
      Layer.mergeAll(
        runnerLayer(config).pipe(Layer.provide(lazyControl)),
        config.awareness === undefined ? Awareness.layerNone : Awareness.layerMcp(config.awareness),
        TokenCounter.layerO200k
      )
    )
    const agent = yield* Agent.make(config).pipe(Effect.provideContext(services))
    control = agent.control
    return agent
  })

const run = Command.make(
  "run",
  { config: configFlag },
  Effect.fnUntraced(function* (flags) {
    const config = yield* Config.load(flags.config)
    yield* runAgent(config).pipe(Effect.andThen(Effect.never), Effect.scoped)
  })
).pipe(Command.withDescription("Connect, join the configured channels and answer as the runner says"))

const socketOf = (flags: { readonly config: string; readonly socket: Option.Option<string> }) =>
  Option.match(flags.socket, {
    onSome: Effect.succeed,
    onNone: () => Effect.map(Config.load(flags.config), (config) => Control.socketPath(config.state_dir))
  })

const fail = (message: string) =>
  Effect.andThen(
    Console.error(`heed-agent: ${message}`),
    Effect.sync(() => {
      process.exitCode = 1
    })
  )

const print = (value: unknown) => Console.log(JSON.stringify(value, null, 2))

const attention = Command.make(
  "attention",
  {
    target: Argument.String("target").pipe(Argument.withDescription("A channel (#dev) or DM:<nick>")),
    // Any case is accepted (`--band cool`); logs and the socket protocol use the upper-case names.
    band: Flag.String("band").pipe(
      Flag.filterMap(
        (raw) => Option.liftPredicate(raw.toUpperCase(), Band.is),
        (raw) => `--band must be one of ${Band.values.join(", ")} (any case), got "${raw}"`
      ),
      Flag.withDescription(
        "Set this band: HOT, WARM, COOL or IDLE, in any case (otherwise the current attention is shown)"
      ),
      Flag.optional
    ),
    ttl: Flag.Finite("ttl").pipe(
      Flag.withDescription("Hold the band this many seconds, then decay normally"),
      Flag.optional
    ),
    config: configFlag,
    socket: socketFlag
  },
  Effect.fnUntraced(function* (flags) {
    if (Option.isNone(flags.band) && Option.isSome(flags.ttl)) {
      return yield* fail("--ttl holds a band: give it with --band (e.g. --band COOL --ttl 600)")
    }
    const path = yield* socketOf(flags)
    const result = yield* Option.match(flags.band, {
      onNone: () => Control.request(path, { op: "get_attention", target: flags.target }),
      onSome: (band) =>
        Control.request(path, {
          op: "set_attention",
          target: flags.target,
          band,
          ...Option.match(flags.ttl, { onNone: () => ({}), onSome: (ttl_s) => ({ ttl_s }) })
        })
    })
    yield* print(result)
  })
).pipe(Command.withDescription("Show or set a target's attention band (agent-controlled attention)"))

const simple = (name: "status" | "pause" | "resume", description: string) =>
  Command.make(
    name,
    { config: configFlag, socket: socketFlag },
    Effect.fnUntraced(function* (flags) {
      yield* print(yield* Control.request(yield* socketOf(flags), { op: name }))
    })
  ).pipe(Command.withDescription(description))

/**
 * The command tree.
 *
 * @category constructors
 * @since 0.1.0
 */
export const command = Command.make("heed-agent").pipe(
  Command.withDescription("heed-agent: an IRC agent whose attention bands decide when it looks"),
  Command.withSubcommands([
    run,
    attention,
    simple("status", "Show the running agent's connection and every target's attention"),
    simple("pause", "Stop polling (mentions still make targets HOT)"),
    simple("resume", "Resume polling")
  ])
)

/**
 * Runs the command line with the process arguments, logging to stderr.
 *
 * @category constructors
 * @since 0.1.0
 */
export const main = Command.run(command, {
  version: JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).version
}).pipe(
  // Our own errors get one clear line on stderr and exit status 1, without a stack trace.
  Effect.catchTags({
    ConfigError: (error) => fail(error.message),
    ControlError: (error) => fail(error.message),
    IrcConfigError: (error) => fail(`${error.field}: ${error.message}`)
  }),
  Effect.provideService(Logger.LogToStderr, true)
)
