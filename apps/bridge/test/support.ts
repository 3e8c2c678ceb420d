import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { Effect } from "effect"

export const appDir = fileURLToPath(new URL("../", import.meta.url))
/** The spec-following Unix-socket provider (shared with @heed/slop's tests). */
export const unixFixture = fileURLToPath(
  new URL("../../../packages/adapters/slop/test/fixtures/provider.ts", import.meta.url)
)
/** heed's SlopServer over WebSocket as a provider process. */
export const wsFixture = fileURLToPath(new URL("./fixtures/wsProvider.ts", import.meta.url))

/** A fresh temporary folder, removed when the scope closes. */
export const tempDir = (prefix: string) =>
  Effect.acquireRelease(
    Effect.sync(() => fs.mkdtempSync(join(tmpdir(), prefix))),
    (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
  )

/** Ends a process and waits for its exit. */
export const stop = (child: ChildProcess, signal: NodeJS.Signals = "SIGTERM") =>
  Effect.callback<void>((resume) => {
    if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
    child.once("exit", () => resume(Effect.void))
    child.kill(signal)
  })

/** Starts a provider process and waits for its first stdout line ("listening …"); killed when the scope closes. */
export const startProvider = (script: string, args: ReadonlyArray<string>) =>
  Effect.acquireRelease(
    Effect.callback<ChildProcess, Error>((resume) => {
      const child = spawn(process.execPath, ["--conditions=@heed/source", script, ...args], {
        cwd: appDir,
        stdio: ["ignore", "pipe", "inherit"]
      })
      child.stdout!.setEncoding("utf8")
      child.stdout!.once("data", () => resume(Effect.succeed(child)))
      child.once("error", (error) => resume(Effect.fail(error)))
      child.once("exit", (code) => resume(Effect.fail(new Error(`${script} exited with ${code}`))))
    }),
    (child) => stop(child)
  )

/** The bridge (`serve`, MCP over stdio) under the official SDK client, with fast reconnects and rescans. */
export const startBridge = (dir: string, extra: ReadonlyArray<string> = []) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const updates: Array<string> = []
      const client = new Client({ name: "heed-bridge-test", version: "1.0.0" })
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
        updates.push(notification.params.uri)
      })
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [
          "--conditions=@heed/source",
          "src/main.ts",
          "serve",
          "--socket",
          join(dir, "bridge.sock"),
          "--reconnect-delay",
          "50",
          "--rescan",
          "0.3",
          ...extra
        ],
        cwd: appDir,
        env: { ...(process.env as Record<string, string>), HEED_SLOP_PROVIDER_DIRS: join(dir, "providers") },
        stderr: "pipe"
      })
      await client.connect(transport)
      return { client, updates, socket: join(dir, "bridge.sock") }
    }),
    ({ client }) => Effect.promise(() => client.close())
  )

/** Calls a tool; returns its text and whether it is an error. */
export const call = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  Effect.promise(async () => {
    const result = await client.callTool({ name, arguments: args })
    const content = result.content as Array<{ type: string; text?: string }>
    return { text: content.map((part) => part.text ?? "").join("\n"), isError: result.isError === true }
  })

/** Re-evaluates `check` until `holds`, failing after `limit` ms with the last value. */
export const eventually = <A>(check: Effect.Effect<A>, holds: (a: A) => boolean, limit = 20_000) =>
  Effect.gen(function* () {
    const deadline = Date.now() + limit
    for (;;) {
      const value = yield* check
      if (holds(value)) return value
      if (Date.now() > deadline)
        return yield* Effect.die(new Error(`condition not met in ${limit} ms: ${JSON.stringify(value)}`))
      yield* Effect.sleep("25 millis")
    }
  })
