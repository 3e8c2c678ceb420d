/**
 * The awareness server's program, loaded by the entry point `main.ts` (which may set V8's flags first). SIGINT and
 * SIGTERM interrupt the program, which closes the HTTP server (in-flight requests finish) and the store, then exits 0.
 * A failure the user can fix prints one line (`heed-awareness: …`) and exits 1; the full cause follows only with
 * `--log-level debug`.
 *
 * @since 0.1.0
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Runtime from "effect/Runtime"
import * as Cli from "./Cli.ts"
import * as UserError from "./UserError.ts"

let failed = false

const program = Cli.run.pipe(
  Effect.provide(NodeServices.layer),
  Effect.catchCause((cause): Effect.Effect<void, unknown> => {
    const line = UserError.fromCause(cause)
    if (line === undefined) return Effect.failCause(cause)
    return Effect.sync(() => {
      if (UserError.wantsDebug(process.argv, process.env)) process.stderr.write(`${Cause.pretty(cause)}\n`)
      process.stderr.write(`heed-awareness: ${line}\n`)
      failed = true
    })
  })
)

NodeRuntime.runMain(program, {
  disableErrorReporting: true,
  teardown: (exit, onExit) =>
    failed
      ? onExit(1)
      : Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause)
        ? onExit(0)
        : Runtime.defaultTeardown(exit, onExit)
})
