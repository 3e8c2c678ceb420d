import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Duration, Effect, Schedule } from "effect"

/** The spec-following fixture provider (a separate Node process). */
export const fixture = fileURLToPath(new URL("./fixtures/provider.ts", import.meta.url))

/** A fresh temporary folder, removed when the scope closes. */
export const tempDir = (prefix: string) =>
  Effect.acquireRelease(
    Effect.sync(() => fs.mkdtempSync(join(tmpdir(), prefix))),
    (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
  )

/** Starts the fixture on a Unix socket and waits for its "listening" line; killed when the scope closes. */
export const startUnixProvider = (args: ReadonlyArray<string>) =>
  Effect.acquireRelease(
    Effect.callback<ChildProcess, Error>((resume) => {
      const child = spawn(process.execPath, [fixture, ...args], { stdio: ["ignore", "pipe", "inherit"] })
      child.stdout!.setEncoding("utf8")
      child.stdout!.once("data", () => resume(Effect.succeed(child)))
      child.once("error", (error) => resume(Effect.fail(error)))
      child.once("exit", (code) => resume(Effect.fail(new Error(`the fixture exited with ${code}`))))
    }),
    (child) => stop(child, "SIGKILL")
  )

/** Ends a process and waits for its exit. */
export const stop = (child: ChildProcess, signal: NodeJS.Signals = "SIGTERM") =>
  Effect.callback<void>((resume) => {
    if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
    child.once("exit", () => resume(Effect.void))
    child.kill(signal)
  })

/** Re-evaluates `check` until it holds (a condition, not a timing assumption), failing after `limit`. */
export const eventually = <A, E, R>(check: Effect.Effect<A, E, R>, holds: (a: A) => boolean, limit = 20_000) =>
  Effect.flatMap(check, (a) => (holds(a) ? Effect.succeed(a) : Effect.fail("not yet" as const))).pipe(
    Effect.retry(Schedule.spaced(Duration.millis(20))),
    Effect.timeout(Duration.millis(limit))
  )
