/**
 * The local socket that `heed-bridge inject` asks: the running bridge listens on a Unix socket (one request per
 * connection: a JSON line `{ "prompt": "…" }`, answered with the budgeted text, then closed), and `inject` prints
 * the answer, or nothing when no bridge runs.
 *
 * @since 0.1.0
 */
import * as fs from "node:fs"
import * as net from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"

/**
 * The environment variable naming the socket.
 *
 * @category constants
 * @since 0.1.0
 */
export const socketVariable = "HEED_BRIDGE_SOCKET"

/**
 * The socket path: `HEED_BRIDGE_SOCKET`, else `$XDG_RUNTIME_DIR/heed-bridge.sock`, else
 * `<tmpdir>/heed-bridge-<uid>.sock`.
 *
 * @category getters
 * @since 0.1.0
 */
export const defaultPath = (env: Readonly<Record<string, string | undefined>> = process.env): string => {
  const given = env[socketVariable]
  if (given !== undefined && given !== "") return given
  const runtime = env.XDG_RUNTIME_DIR
  if (runtime !== undefined && runtime !== "") return join(runtime, "heed-bridge.sock")
  return join(tmpdir(), `heed-bridge-${process.getuid?.() ?? "user"}.sock`)
}

/** Whether a bridge answers on the socket. */
const answers = (path: string): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = net.createConnection({ path })
    socket.once("connect", () => {
      socket.destroy()
      resolve(true)
    })
    socket.once("error", () => resolve(false))
  })

interface Request {
  readonly socket: net.Socket
  readonly line: string
}

/**
 * Serves `answer(prompt)` on the socket until the scope closes (then removes the socket file). A stale socket file
 * left by a crashed bridge is replaced; when another bridge answers on it, this one does not serve and says so
 * (returns `false`).
 *
 * @category constructors
 * @since 0.1.0
 */
export const serve = (
  path: string,
  answer: (prompt: string) => Effect.Effect<string>
): Effect.Effect<boolean, never, Scope.Scope> =>
  Effect.gen(function* () {
    if (fs.existsSync(path)) {
      if (yield* Effect.promise(() => answers(path))) {
        yield* Effect.logWarning(`heed-bridge: another bridge answers inject on ${path}; this one serves MCP only`)
        return false
      }
      fs.rmSync(path, { force: true })
    }
    const requests = yield* Queue.unbounded<Request>()
    const server = net.createServer((socket) => {
      socket.setEncoding("utf8")
      socket.on("error", () => {})
      let buffer = ""
      socket.on("data", (chunk: string) => {
        buffer += chunk
        const newline = buffer.indexOf("\n")
        if (newline !== -1) Queue.offerUnsafe(requests, { socket, line: buffer.slice(0, newline) })
        else if (buffer.length > 1_000_000) socket.destroy()
      })
    })
    const listening = yield* Effect.callback<boolean>((resume) => {
      server.once("error", () => resume(Effect.succeed(false)))
      server.listen(path, () => resume(Effect.succeed(true)))
    })
    if (!listening) {
      yield* Effect.logWarning(`heed-bridge: cannot listen on ${path}; inject will find no bridge`)
      return false
    }
    fs.chmodSync(path, 0o600)
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        server.close()
        fs.rmSync(path, { force: true })
      })
    )
    yield* Effect.forkScoped(
      Effect.forever(
        Effect.gen(function* () {
          const { socket, line } = yield* Queue.take(requests)
          let prompt = ""
          try {
            const parsed = JSON.parse(line) as { prompt?: unknown }
            if (typeof parsed.prompt === "string") prompt = parsed.prompt
          } catch {
            prompt = line
          }
          const text = yield* answer(prompt).pipe(Effect.catchCause(() => Effect.succeed("")))
          socket.end(text)
        })
      )
    )
    return true
  })

/**
 * The prompt in a prompt hook's JSON: `prompt` (Claude Code's `UserPromptSubmit`, Codex), `user_prompt` or
 * `message`; input that is not JSON is the prompt itself.
 *
 * @category getters
 * @since 0.1.0
 */
export const promptOf = (input: string): string => {
  try {
    const parsed = JSON.parse(input) as Record<string, unknown>
    for (const key of ["prompt", "user_prompt", "message"]) {
      if (typeof parsed[key] === "string") return parsed[key] as string
    }
    return ""
  } catch {
    return input.trim()
  }
}

/**
 * Asks the bridge on `path` for the budgeted text of `prompt`. Resolves `""` when no bridge answers (no socket, a
 * refused connection, or no answer within `timeoutMs`, default 5 s).
 *
 * @category constructors
 * @since 0.1.0
 */
export const ask = (path: string, prompt: string, timeoutMs = 5000): Promise<string> =>
  new Promise((resolve) => {
    let out = ""
    let done = false
    const finish = (text: string) => {
      if (done) return
      done = true
      clearTimeout(timer)
      socket.destroy()
      resolve(text)
    }
    const socket = net.createConnection({ path })
    const timer = setTimeout(() => finish(""), timeoutMs)
    socket.setEncoding("utf8")
    socket.on("connect", () => socket.write(`${JSON.stringify({ prompt })}\n`))
    socket.on("data", (chunk: string) => {
      out += chunk
    })
    socket.on("end", () => finish(out))
    socket.on("error", () => finish(""))
  })
