/**
 * `heed-proxy`'s entry point. SIGINT and SIGTERM stop the server (in-flight requests get 5 s) and the process
 * exits 0.
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

NodeRuntime.runMain(Cli.main.pipe(Effect.provide(NodeServices.layer)), {
  teardown: (exit, onExit) =>
    Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause) ? onExit(0) : Runtime.defaultTeardown(exit, onExit)
})
