/**
 * The session socket: the process holding an embedded data directory (a `serve --stdio` session or the HTTP server)
 * serves MCP on a Unix socket inside it, `heed-awareness.sock`, so that later stdio sessions on the same folder attach
 * to it (see `Session.ts`) instead of failing on the lock. Each connection is one MCP session, spoken exactly as over
 * stdio (newline-delimited JSON-RPC) by its own `McpServer` over the shared `Backend`: the default owner's awareness,
 * and briefing notifications fed by the store's change feed, so a write through one session notifies the others.
 *
 * Only the owner may connect: the data directory is made 0700 and the socket 0600. The socket is advertised in the
 * lock file once it listens, and removed when the scope closes.
 *
 * @since 0.1.0
 */
import { chmodSync, rmSync } from "node:fs"
import { createServer, type Socket } from "node:net"
import { join } from "node:path"
import { PassThrough } from "node:stream"
import * as NodeSink from "@effect/platform-node/NodeSink"
import * as NodeStream from "@effect/platform-node/NodeStream"
import { AwarenessMcp, AwarenessResolver } from "@heed/mcp"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as PlatformError from "effect/PlatformError"
import * as Schema from "effect/Schema"
import * as Sink from "effect/Sink"
import * as Stdio from "effect/Stdio"
import { Backend } from "./Backend.ts"
import * as LockFile from "./internal/lockFile.ts"
import type { Settings } from "./Settings.ts"

/**
 * The session socket's name inside the data directory.
 *
 * @category constants
 * @since 0.1.0
 */
export const fileName = LockFile.socketFileName

/**
 * The session socket of `dataDir`.
 *
 * @category getters
 * @since 0.1.0
 */
export const pathOf = (dataDir: string): string => join(dataDir, fileName)

/**
 * The longest socket path Linux and macOS accept (`sun_path` holds 108 and 104 bytes with the terminating NUL).
 *
 * @category constants
 * @since 0.1.0
 */
export const maxPathBytes = 103

/**
 * The session socket could not be served.
 *
 * @category errors
 * @since 0.1.0
 */
export class SessionSocketError extends Schema.TaggedError<SessionSocketError>()("SessionSocketError", {
  message: Schema.String
}) {}

const socketError = (method: string) => (cause: unknown) =>
  PlatformError.systemError({ _tag: "Unknown", module: "SessionSocket", method, cause })

/**
 * A `Stdio` whose input and output are one socket connection. The input ends when the socket closes, even when the
 * other side just went away (a killed session), so that a departure is an end of input rather than a read error.
 */
const stdioOf = (socket: Socket): Stdio.Stdio => {
  const input = new PassThrough()
  socket.pipe(input)
  socket.on("close", () => input.end())
  return Stdio.make({
    args: Effect.succeed([]),
    stdout: () => NodeSink.fromWritable({ evaluate: () => socket, onError: socketError("write"), endOnDone: false }),
    stderr: () => Sink.drain,
    stdin: NodeStream.fromReadable({ evaluate: () => input, onError: socketError("read"), closeOnDone: false })
  })
}

/**
 * The sessions' resolver, as over stdio: the default owner's awareness, briefing changes from the store's change feed
 * (so a write through one session notifies the others). It is `Server.resolverLayer` without the HTTP server's
 * modules, which a session taking over the folder need not load.
 *
 * @category layers
 * @since 0.1.0
 */
export const resolverLayer = (settings: Settings): Layer.Layer<AwarenessResolver.AwarenessResolver, never, Backend> =>
  Layer.effect(
    AwarenessResolver.AwarenessResolver,
    Effect.map(Backend, (backend) =>
      AwarenessResolver.make({
        changes: backend.changes,
        watched: backend.watched,
        current: backend.forOwner(settings.defaultOwner)
      })
    )
  )

/**
 * Serves MCP sessions on `dataDir`'s session socket for the layer's lifetime (the caller holds the data directory's
 * lock). Fails with {@link SessionSocketError} when the path is too long for a socket or cannot be listened on.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (settings: Settings, dataDir: string): Layer.Layer<never, SessionSocketError, Backend> =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const path = pathOf(dataDir)
      if (Buffer.byteLength(path) > maxPathBytes) {
        return yield* new SessionSocketError({
          message: `the session socket ${path} is longer than ${maxPathBytes} bytes: choose a shorter --data-dir or HEED_DATA_DIR`
        })
      }
      const runFork = Effect.runForkWith(yield* Effect.context<Backend>())
      const session = (socket: Socket) =>
        Layer.launch(
          AwarenessMcp.layerStdio({ pollInterval: settings.watchIntervalMs }).pipe(
            Layer.provide([resolverLayer(settings), Layer.succeed(Stdio.Stdio, stdioOf(socket))])
          )
        ).pipe(Effect.catchCause((cause) => Effect.logWarning("heed: a session on the socket failed", cause)))
      const sockets = new Set<Socket>()
      const server = createServer((socket) => {
        sockets.add(socket)
        const fiber = runFork(session(socket))
        socket.on("error", () => socket.destroy())
        socket.on("close", () => {
          sockets.delete(socket)
          fiber.interruptUnsafe()
        })
      })
      yield* Effect.acquireRelease(
        Effect.callback<void, SessionSocketError>((resume) => {
          try {
            chmodSync(dataDir, 0o700)
          } catch {
            // a folder of another user's: the socket's own mode still applies
          }
          rmSync(path, { force: true }) // left by a holder that was killed; we hold the lock now
          server.once("error", (error) =>
            resume(Effect.fail(new SessionSocketError({ message: `cannot serve ${path}: ${error.message}` })))
          )
          server.listen(path, () => {
            chmodSync(path, 0o600)
            resume(Effect.void)
          })
        }),
        () =>
          Effect.callback<void>((resume) => {
            for (const socket of sockets) socket.destroy()
            server.close(() => resume(Effect.void))
            rmSync(path, { force: true })
          })
      )
      yield* Effect.sync(() => LockFile.advertise(dataDir, { socket: path }))
    })
  )
