/**
 * The holder inside a stdio session: when no process holds the data directory, the session (`Session.ts`) loads
 * this module, which opens the embedded store and serves the session socket (`SessionSocket.ts`); the session then
 * relays its client to that socket like any attached session. Loaded on demand only, since it brings Effect, PGlite
 * and the tokenizer with it.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import type * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as References from "effect/References"
import * as Scope from "effect/Scope"
import * as Backend from "./Backend.ts"
import * as SessionSocket from "./SessionSocket.ts"
import * as Settings from "./Settings.ts"
import * as UserError from "./UserError.ts"

/**
 * A running holder: the socket it serves and how to stop it (closes the socket, the store, then the lock).
 *
 * @category models
 * @since 0.1.0
 */
export interface Running {
  readonly socket: string
  readonly stop: () => Promise<void>
}

/**
 * Why a holder did not start: another process took the lock first (`locked`: attach to it), or a failure the user
 * must fix (`line`: print it and exit).
 *
 * @category errors
 * @since 0.1.0
 */
export class HolderFailure extends Error {
  readonly reason: "locked" | "failed"
  constructor(reason: "locked" | "failed", message: string) {
    super(message)
    this.reason = reason
    this.name = "HolderFailure"
  }
}

const logLevels: ReadonlyArray<LogLevel.LogLevel> = ["All", "Trace", "Debug", "Info", "Warn", "Error", "Fatal", "None"]

/**
 * Opens the embedded store in `dataDir` and serves its session socket. `logLevel` is the `--log-level` flag, if
 * given (case-insensitive). Rejects with a {@link HolderFailure}.
 *
 * @category constructors
 * @since 0.1.0
 */
export const start = async (dataDir: string, logLevel?: string): Promise<Running> => {
  const level = logLevels.find((candidate) => candidate.toLowerCase() === logLevel?.toLowerCase())
  const scope = Effect.runSync(Scope.make())
  const exit = await Effect.runPromiseExit(
    Effect.gen(function* () {
      const settings = yield* Settings.load({
        dataDir: Option.some(dataDir),
        logLevel: level === undefined ? Option.none() : Option.some(level)
      })
      const layer = SessionSocket.layer(settings, dataDir).pipe(
        Layer.provide(Backend.layer({ _tag: "embedded", dataDir }))
      )
      // The command line's modules (with telemetry's) load only when telemetry is asked for: a takeover waits on them.
      const withTelemetry = Option.isSome(settings.otlpEndpoint)
        ? (yield* Effect.promise(() => import("./Cli.ts"))).withTelemetry(settings)
        : <A, E, R>(self: Layer.Layer<A, E, R>) => self
      yield* Layer.buildWithScope(withTelemetry(layer), scope).pipe(
        Effect.provideService(References.MinimumLogLevel, settings.logLevel),
        Effect.provideService(Logger.LogToStderr, true)
      )
    })
  )
  if (Exit.isSuccess(exit)) {
    return {
      socket: SessionSocket.pathOf(dataDir),
      stop: () => Effect.runPromise(Scope.close(scope, Exit.void))
    }
  }
  await Effect.runPromise(Scope.close(scope, exit))
  const locked = Cause.findErrorOption(exit.cause).pipe(
    Option.filter((error) => (error as { readonly _tag?: string })._tag === "DataDirLocked")
  )
  if (Option.isSome(locked)) throw new HolderFailure("locked", String((locked.value as Error).message))
  const line = UserError.fromCause(exit.cause) ?? Cause.pretty(exit.cause)
  throw new HolderFailure("failed", line)
}
