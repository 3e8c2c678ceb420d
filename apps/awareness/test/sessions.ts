/**
 * Helpers of the shared-session tests and bench: real `serve --stdio` processes driven by the official MCP SDK client
 * over stdio, and waits on signals (messages, files, exit events) rather than on time.
 */
import { spawn } from "node:child_process"
import { readFileSync, watch } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"

export const appDir = fileURLToPath(new URL("..", import.meta.url))

/** The command that runs the CLI from source, as the tests and `./heed start` do. */
export const cliArgs = (args: ReadonlyArray<string>): Array<string> => [
  "--conditions=@heed/source",
  join(appDir, "src", "main.ts"),
  ...args
]

/** The SDK's request timeout here: a takeover on a loaded machine may take longer than its default 60 s. */
export const requestTimeout = 300_000

/** A stdio session: an official SDK client over a spawned `serve --stdio`, and what it was told. */
export interface Session {
  readonly client: Client
  readonly pid: number
  readonly stderr: () => string
  /** `notifications/resources/updated` URIs received, in order. */
  readonly updates: Array<string>
  /** Resolves with the next `resources/updated` notification's URI. */
  readonly nextUpdate: () => Promise<string>
  readonly exited: Promise<number | null>
  readonly close: () => Promise<void>
}

/** Starts `serve --stdio` on `dataDir` and connects the SDK client (it initialises, so the session is serving). */
export const openSession = async (
  dataDir: string,
  env: Record<string, string> = {},
  /** A built `main.js` to run instead of the sources (the bench measures the bin users run). */
  builtMain?: string
): Promise<Session> => {
  const args = ["serve", "--stdio", "--data-dir", dataDir]
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: builtMain === undefined ? cliArgs(args) : [builtMain, ...args],
    cwd: appDir,
    env: { ...(process.env as Record<string, string>), HEED_LOG_LEVEL: "Warn", ...env },
    stderr: "pipe"
  })
  let stderr = ""
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const client = new Client({ name: "heed-session-test", version: "1.0.0" })
  const updates: Array<string> = []
  const waiters: Array<(uri: string) => void> = []
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
    updates.push(notification.params.uri)
    for (const waiter of waiters.splice(0)) waiter(notification.params.uri)
  })
  let resolveExit: (code: number | null) => void = () => undefined
  const exited = new Promise<number | null>((resolve) => {
    resolveExit = resolve
  })
  // Five sessions starting at once on a loaded machine may take longer than the SDK's default 60 s to initialise.
  await client.connect(transport, { timeout: requestTimeout })
  const pid = transport.pid!
  // The SDK does not expose the child process: its exit is observed through the transport closing, and the PID.
  transport.onclose = () => resolveExit(null)
  return {
    client,
    pid,
    stderr: () => stderr,
    updates,
    nextUpdate: () => new Promise<string>((resolve) => waiters.push(resolve)),
    exited,
    close: () => client.close()
  }
}

// biome-ignore lint/suspicious/noExplicitAny: parsed JSON that the tests walk freely
export const call = async (session: Session, name: string, args: Record<string, unknown> = {}): Promise<any> => {
  const result = await session.client.callTool({ name, arguments: args }, undefined, { timeout: requestTimeout })
  const content = result.content as Array<{ type: string; text?: string }>
  const body = JSON.parse(content[0]?.text ?? "null")
  if (result.isError === true) throw new Error(`${name}: ${JSON.stringify(body)}`)
  return body
}

/** The lock file's record of `dataDir` (or `undefined`). */
// biome-ignore lint/suspicious/noExplicitAny: parsed JSON
export const lockOf = (dataDir: string): any => {
  try {
    return JSON.parse(readFileSync(join(dataDir, "heed-awareness.lock"), "utf8"))
  } catch {
    return undefined
  }
}

/** Resolves when `predicate` holds for the lock file of `dataDir` (checked now and on every change in the folder). */
export const lockSatisfies = (
  dataDir: string,
  // biome-ignore lint/suspicious/noExplicitAny: parsed JSON
  predicate: (record: any) => boolean
) =>
  new Promise<void>((resolve) => {
    const check = () => {
      if (predicate(lockOf(dataDir))) {
        watcher.close()
        resolve()
      }
    }
    const watcher = watch(dataDir, check)
    check()
  })

/** Spawns the CLI with piped output; resolves `ready` when stdout contains `text`. */
export const spawnCli = (args: ReadonlyArray<string>, env: Record<string, string> = {}, readyText?: string) => {
  const child = spawn(process.execPath, cliArgs(args), {
    cwd: appDir,
    env: { ...process.env, HEED_LOG_LEVEL: "Warn", ...env },
    stdio: ["pipe", "pipe", "pipe"]
  })
  let stdout = ""
  let stderr = ""
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString()
      if (readyText !== undefined && stdout.includes(readyText)) resolve()
    })
    child.on("exit", (code) => reject(new Error(`exited ${code} before '${readyText}': ${stdout}${stderr}`)))
  })
  ready.catch(() => undefined)
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
  return { child, ready, exited, stdout: () => stdout, stderr: () => stderr }
}

/** The resident memory of process `pid` in MB (`VmRSS` of `/proc/<pid>/status`). */
export const rssMb = (pid: number): number => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN) / 1024
}
