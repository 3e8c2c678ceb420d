/**
 * The agent's local control socket: JSON Lines over a Unix socket in `state_dir` (`agent.sock`). Each request line
 * is `{"op":"set_attention","target":"#dev","band":"COOL","ttl_s":120}`, `{"op":"get_attention","target":"#dev"}`
 * `{"op":"status"}`, `{"op":"pause"}` or `{"op":"resume"}`; each answer line is `{"ok":true,"result":...}` or `{"ok":false,"error":"..."}`.
 * `heed-agent attention` and `heed-agent status` are its clients.
 *
 * @since 0.1.0
 */
import { existsSync, mkdirSync, rmSync } from "node:fs"
import { createConnection, createServer, type Socket } from "node:net"
import { dirname, join } from "node:path"
import { Band } from "@heed/attention-bands"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type { AttentionControlShape } from "./AttentionControl.ts"

/**
 * A control request.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Request = Schema.Union([
  Schema.Struct({
    op: Schema.Literal("set_attention"),
    target: Schema.NonEmptyString,
    band: Band.Band,
    ttl_s: Schema.optionalKey(Schema.Finite)
  }),
  Schema.Struct({ op: Schema.Literal("get_attention"), target: Schema.NonEmptyString }),
  Schema.Struct({ op: Schema.Literals(["status", "pause", "resume"]) })
])

/**
 * A control request.
 *
 * @category models
 * @since 0.1.0
 */
export type Request = typeof Request.Type

/**
 * The socket could not be used (no agent running there, or a broken answer).
 *
 * @category errors
 * @since 0.1.0
 */
export class ControlError extends Schema.TaggedError<ControlError>()("ControlError", { message: Schema.String }) {}

const MAX_LINE = 64 * 1024
const MAX_CLIENTS = 16
const REQUEST_TIMEOUT_S = 10
const decodeRequest = Schema.decodeUnknownEffect(Schema.fromJsonString(Request))

/**
 * The socket path for a state directory.
 *
 * @category getters
 * @since 0.1.0
 */
export const socketPath = (stateDir: string): string => join(stateDir, "agent.sock")

const answer = (control: AttentionControlShape, line: string): Effect.Effect<string> =>
  decodeRequest(line).pipe(
    Effect.mapError((error) => error.message),
    Effect.flatMap((request): Effect.Effect<unknown, string> => {
      switch (request.op) {
        case "set_attention":
          return Effect.mapError(control.set(request.target, request.band, request.ttl_s), (e) => e.message)
        case "get_attention":
          return Effect.mapError(control.get(request.target), (e) => e.message)
        case "status":
          return control.status
        case "pause":
          return control.pause
        case "resume":
          return control.resume
        default:
          return Effect.fail("unknown op")
      }
    }),
    Effect.match({
      onFailure: (error) => JSON.stringify({ ok: false, error }),
      onSuccess: (result) => JSON.stringify({ ok: true, result })
    })
  )

// Whether something accepts connections on the socket file.
const answers = (path: string) =>
  Effect.callback<boolean>((resume) => {
    const probe = createConnection(path)
    probe.once("connect", () => {
      probe.destroy()
      resume(Effect.succeed(true))
    })
    probe.once("error", () => resume(Effect.succeed(false)))
  })

/**
 * Serves the control socket in the current scope (the socket file is removed when the scope closes). A stale socket
 * file from a crashed agent is replaced; a live one (another agent with the same `state_dir`) is an error.
 *
 * @category constructors
 * @since 0.1.0
 */
export const serve = (path: string, control: AttentionControlShape): Effect.Effect<void, ControlError, Scope.Scope> =>
  Effect.gen(function* () {
    const context = yield* Effect.context<never>()
    const runPromise = (effect: Effect.Effect<string>) => Effect.runPromiseWith(context)(effect)
    mkdirSync(dirname(path), { recursive: true })
    if (existsSync(path)) {
      if (yield* answers(path)) {
        return yield* new ControlError({
          message: `another heed-agent is running with this state_dir (its socket ${path} answers); stop it or use another state_dir`
        })
      }
      rmSync(path) // left behind by an agent that crashed
    }
    const sockets = new Set<Socket>()
    const server = createServer((socket) => {
      socket.on("error", () => socket.destroy())
      if (sockets.size >= MAX_CLIENTS) {
        const busy = JSON.stringify({ ok: false, error: `busy: ${MAX_CLIENTS} clients are connected` })
        socket.end(`${busy}\n`, () => socket.destroy())
        return
      }
      sockets.add(socket)
      socket.on("close", () => sockets.delete(socket))
      let buffer = ""
      let chain = Promise.resolve()
      socket.setEncoding("utf8")
      socket.on("data", (chunk: string) => {
        buffer += chunk
        if (buffer.length > MAX_LINE)
          return void socket.end(`${JSON.stringify({ ok: false, error: "request too long" })}\n`)
        let index = buffer.indexOf("\n")
        while (index >= 0) {
          const line = buffer.slice(0, index).trim()
          buffer = buffer.slice(index + 1)
          index = buffer.indexOf("\n")
          if (line === "") continue
          chain = chain.then(() => runPromise(answer(control, line)).then((reply) => void socket.write(`${reply}\n`)))
        }
      })
    })
    yield* Effect.acquireRelease(
      Effect.callback<void, ControlError>((resume) => {
        server.once("error", (error) =>
          resume(Effect.fail(new ControlError({ message: `cannot listen on ${path}: ${error.message}` })))
        )
        server.listen(path, () => resume(Effect.void))
      }),
      () =>
        Effect.callback<void>((resume) => {
          server.close(() => resume(Effect.void))
          for (const socket of sockets) socket.destroy()
        }).pipe(Effect.andThen(Effect.sync(() => rmSync(path, { force: true }))))
    )
  })

/**
 * Sends one request to the agent at `path` and returns its `result`, or fails with the agent's error.
 *
 * @category constructors
 * @since 0.1.0
 */
export const request = (path: string, body: Request): Effect.Effect<unknown, ControlError> =>
  Effect.callback<unknown, ControlError>((resume) => {
    const socket = createConnection(path)
    let buffer = ""
    socket.setEncoding("utf8")
    socket.on("close", () =>
      resume(Effect.fail(new ControlError({ message: `the agent at ${path} closed the connection without answering` })))
    )
    socket.on("error", (error) =>
      resume(
        Effect.fail(
          new ControlError({ message: `no agent answers at ${path} (${error.message}); is heed-agent run going?` })
        )
      )
    )
    socket.on("data", (chunk: string) => {
      buffer += chunk
      const index = buffer.indexOf("\n")
      if (index < 0) return
      socket.end()
      try {
        const reply = JSON.parse(buffer.slice(0, index)) as { ok: boolean; result?: unknown; error?: string }
        resume(
          reply.ok ? Effect.succeed(reply.result) : Effect.fail(new ControlError({ message: reply.error ?? "failed" }))
        )
      } catch {
        resume(Effect.fail(new ControlError({ message: "the agent sent a broken answer" })))
      }
    })
    socket.write(`${JSON.stringify(body)}\n`)
    return Effect.sync(() => socket.destroy())
  }).pipe(
    Effect.timeoutOrElse({
      duration: `${REQUEST_TIMEOUT_S} seconds`,
      orElse: () =>
        Effect.fail(new ControlError({ message: `the agent at ${path} did not answer within ${REQUEST_TIMEOUT_S} s` }))
    })
  )
