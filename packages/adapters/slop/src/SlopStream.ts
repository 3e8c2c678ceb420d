/**
 * SLOP's local stream transports for `@heed/state-tree`'s `Consumer`: a Unix socket, and the stdin/stdout of a
 * spawned provider command. Both carry one JSON message per line (NDJSON), as SLOP's own server transports do. A
 * lost connection is reopened with backoff and the current subscriptions are resent; a line that is not a SLOP
 * message (bad JSON, an unknown message, a line over the size limit) closes the connection with a logged reason,
 * never failing the client or its caller.
 *
 * @since 0.1.0
 */
import { spawn } from "node:child_process"
import * as net from "node:net"
import type { Consumer } from "@heed/state-tree"
import { Message } from "@heed/state-tree"
import type * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"

/**
 * Backoff after a lost connection: the delay doubles from `initialDelay` (default 3 s) up to `maxDelay` (default
 * 30 s, SLOP's discovery defaults) and resets after a connection opens; `maxAttempts` failed attempts in a row end
 * the client (default: never).
 *
 * @category models
 * @since 0.1.0
 */
export interface Reconnect {
  readonly initialDelay?: Duration.Input | undefined
  readonly maxDelay?: Duration.Input | undefined
  readonly maxAttempts?: number | undefined
}

/**
 * Options shared by both transports:
 *
 * - `name`: how logs name the provider (default: the socket path or the command);
 * - `reconnect`: see {@link Reconnect}; `false` stays closed after the first connection ends;
 * - `openTimeout`: how long one attempt to open may take (default 10 s);
 * - `maxLineBytes`: the longest line accepted (default 64 MiB); a longer one closes the connection;
 * - `maxPending`: messages kept while disconnected (default 1,000; beyond it a query or invoke is answered at once
 *   with an `error` of code `connection_lost`).
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly name?: string | undefined
  readonly reconnect?: false | Reconnect | undefined
  readonly openTimeout?: Duration.Input | undefined
  readonly maxLineBytes?: number | undefined
  readonly maxPending?: number | undefined
}

/**
 * Options of {@link unix}: the socket's `path`.
 *
 * @category models
 * @since 0.1.0
 */
export interface UnixOptions extends Options {
  readonly path: string
}

/**
 * Options of {@link stdio}: the `command` to spawn (program and arguments), and optionally its `cwd` and `env`
 * (added to the bridge's environment).
 *
 * @category models
 * @since 0.1.0
 */
export interface StdioOptions extends Options {
  readonly command: ReadonlyArray<string>
  readonly cwd?: string | undefined
  readonly env?: Readonly<Record<string, string>> | undefined
}

/**
 * The first connection could not be opened; `target` is the socket path or the command, and `message` says why.
 *
 * @category errors
 * @since 0.1.0
 */
export class SlopStreamError extends Schema.TaggedError<SlopStreamError>()("SlopStreamError", {
  target: Schema.String,
  message: Schema.String
}) {}

/**
 * Where a client stands: `open`, `reconnecting` after a lost connection, or `closed` for good.
 *
 * @category models
 * @since 0.1.0
 */
export type State = "open" | "reconnecting" | "closed"

/**
 * A connected client: a `Consumer.Transport` plus its state. Messages sent while disconnected wait for the next
 * connection (subscriptions are resent on every connection); a query or invoke unanswered when the connection is
 * lost is answered with an `error` of code `connection_lost`.
 *
 * @category models
 * @since 0.1.0
 */
export interface StreamClient extends Consumer.Transport {
  readonly state: Effect.Effect<State>
  /** How many times a connection was opened (1 + reconnections). */
  readonly connections: Effect.Effect<number>
  /** How many connections were closed because the provider sent something that is not a SLOP message. */
  readonly rejected: Effect.Effect<number>
  /** Why the last connection ended, when it ended on a problem. */
  readonly lastProblem: Effect.Effect<string | undefined>
  /** Closes the connection for good and ends `messages`. */
  readonly close: Effect.Effect<void>
}

/** One open connection as the client sees it. */
interface Wire {
  readonly write: (line: string) => void
  readonly destroy: () => void
}

/** What a dialler reports: opened, one line, ended (with a problem when it ended on one). */
interface WireEvents {
  readonly open: () => void
  readonly line: (line: string) => void
  readonly end: (problem: string | undefined) => void
}

type Dial = (events: WireEvents) => Wire

interface Client {
  readonly target: string
  readonly name: string
  readonly options: Options
  readonly inbox: Queue.Queue<Message.Outbound, Cause.Done>
  readonly first: Deferred.Deferred<void, SlopStreamError>
  readonly subscriptions: Map<string, string>
  readonly pending: Set<string>
  waiting: Array<{ readonly text: string; readonly id: string | undefined }>
  wire: Wire | undefined
  state: State
  connections: number
  rejected: number
  problem: string | undefined
  closed: boolean
}

const idOf = (message: unknown): string | undefined => {
  const id = typeof message === "object" && message !== null ? (message as { id?: unknown }).id : undefined
  return typeof id === "string" ? id : undefined
}

const typeOf = (message: unknown): unknown =>
  typeof message === "object" && message !== null ? (message as { type?: unknown }).type : undefined

const answered = (message: Message.Outbound, out: Array<string> = []): Array<string> => {
  if (message.type === "batch") for (const inner of message.messages) answered(inner, out)
  else if ((message.type === "result" || message.type === "error" || message.type === "snapshot") && message.id)
    out.push(message.id)
  return out
}

const lost = (c: Client, id: string) =>
  Queue.offerUnsafe(c.inbox, {
    type: "error",
    id,
    error: {
      code: "connection_lost",
      message: `the connection to ${c.name} was lost before the answer came; the request may or may not have run`
    }
  })

const send =
  (c: Client) =>
  (message: unknown): Effect.Effect<void> =>
    Effect.sync(() => {
      const text = JSON.stringify(message)
      const type = typeOf(message)
      const id = type === "subscribe" || type === "unsubscribe" ? undefined : idOf(message)
      if (type === "subscribe") c.subscriptions.set(idOf(message) ?? "", text)
      else if (type === "unsubscribe") c.subscriptions.delete(idOf(message) ?? "")
      if (c.wire !== undefined) {
        if (id !== undefined) c.pending.add(id)
        c.wire.write(text)
        return
      }
      if (type === "subscribe" || type === "unsubscribe") return
      if (c.waiting.length < (c.options.maxPending ?? 1000)) c.waiting.push({ text, id })
      else if (id !== undefined) lost(c, id)
    })

/**
 * Reads one line: a SLOP message, or the reason the line is not one. The whole message is validated (trees
 * included), so nothing malformed reaches the consumer's mirror.
 */
const decodeLine = (line: string): { readonly message: Message.Outbound } | { readonly problem: string } => {
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch {
    return { problem: `sent a line that is not JSON: ${JSON.stringify(line.slice(0, 80))}` }
  }
  const result = Message.decodeOutbound(value)
  if (result._tag === "Failure") return { problem: `sent a message that is not SLOP: ${result.failure.message}` }
  return { message: result.success }
}

/** One connection, from dialling to its end. Succeeds with whether it opened. */
const session = (c: Client, dial: Dial): Effect.Effect<boolean> =>
  Effect.callback<boolean>((resume) => {
    let opened = false
    let ended = false
    const openTimeout = Duration.toMillis(Duration.fromInputUnsafe(c.options.openTimeout ?? 10_000))
    const timer = setTimeout(() => {
      if (!opened) {
        c.problem = `did not open within ${openTimeout} ms`
        wire.destroy()
      }
    }, openTimeout)
    const wire: Wire = dial({
      open: () => {
        if (ended) return
        opened = true
        clearTimeout(timer)
        c.connections++
        c.state = "open"
        c.problem = undefined
        for (const text of c.subscriptions.values()) wire.write(text)
        const held = c.waiting
        c.waiting = []
        for (const { id, text } of held) {
          if (id !== undefined) c.pending.add(id)
          wire.write(text)
        }
        c.wire = wire
        Deferred.doneUnsafe(c.first, Effect.void)
      },
      line: (line) => {
        if (ended || line.trim() === "") return
        const decoded = decodeLine(line)
        if ("problem" in decoded) {
          c.rejected++
          c.problem = decoded.problem
          wire.destroy()
          return
        }
        for (const id of answered(decoded.message)) c.pending.delete(id)
        Queue.offerUnsafe(c.inbox, decoded.message)
      },
      end: (problem) => {
        if (ended) return
        ended = true
        clearTimeout(timer)
        if (problem !== undefined && c.problem === undefined) c.problem = problem
        c.wire = undefined
        for (const id of c.pending) lost(c, id)
        c.pending.clear()
        resume(Effect.succeed(opened))
      }
    })
    return Effect.sync(() => {
      clearTimeout(timer)
      wire.destroy()
    })
  })

const backoff = (options: Options["reconnect"], attempt: number): Duration.Duration => {
  const settings = options === false ? undefined : options
  const initial = Duration.toMillis(Duration.fromInputUnsafe(settings?.initialDelay ?? 3000))
  const max = Duration.toMillis(Duration.fromInputUnsafe(settings?.maxDelay ?? 30_000))
  return Duration.millis(Math.min(max, initial * 2 ** Math.min(attempt - 1, 30)))
}

const run = (c: Client, dial: Dial) =>
  Effect.gen(function* () {
    let failures = 0
    const retry = c.options.reconnect
    const maxAttempts = retry === false ? 0 : (retry?.maxAttempts ?? Infinity)
    while (!c.closed) {
      c.problem = undefined
      const opened = yield* session(c, dial)
      const problem = c.problem
      if (!opened && c.connections === 0) {
        yield* Deferred.fail(
          c.first,
          new SlopStreamError({
            target: c.target,
            message: `could not connect to ${c.name}: ${problem ?? "it closed"}`
          })
        )
        return
      }
      if (c.closed) return
      if (problem !== undefined) yield* Effect.logWarning(`SLOP provider ${c.name} disconnected: ${problem}`)
      else yield* Effect.logInfo(`SLOP provider ${c.name} closed the connection`)
      failures = opened ? 1 : failures + 1
      if (failures > maxAttempts) return
      c.state = "reconnecting"
      yield* Effect.sleep(backoff(retry, failures))
    }
  }).pipe(
    Effect.ensuring(
      Effect.sync(() => {
        c.state = "closed"
        Queue.endUnsafe(c.inbox)
      })
    )
  )

const make = (
  target: string,
  options: Options,
  dial: Dial
): Effect.Effect<StreamClient, SlopStreamError, Scope.Scope> =>
  Effect.gen(function* () {
    const c: Client = {
      target,
      name: options.name ?? target,
      options,
      inbox: yield* Queue.unbounded<Message.Outbound, Cause.Done>(),
      first: yield* Deferred.make<void, SlopStreamError>(),
      subscriptions: new Map(),
      pending: new Set(),
      waiting: [],
      wire: undefined,
      state: "reconnecting",
      connections: 0,
      rejected: 0,
      problem: undefined,
      closed: false
    }
    const fiber = yield* Effect.forkScoped(run(c, dial))
    yield* Deferred.await(c.first)
    const client: StreamClient = {
      send: send(c),
      messages: Stream.fromQueue(c.inbox),
      state: Effect.sync(() => c.state),
      connections: Effect.sync(() => c.connections),
      rejected: Effect.sync(() => c.rejected),
      lastProblem: Effect.sync(() => c.problem),
      close: Effect.suspend(() => {
        c.closed = true
        return Fiber.interrupt(fiber)
      })
    }
    return client
  })

/** Splits a character stream into lines, refusing a line longer than `max` characters. */
const lineSplitter = (events: WireEvents, max: number, destroy: () => void) => {
  let buffer = ""
  return (chunk: string) => {
    let start = 0
    let newline = chunk.indexOf("\n")
    while (newline !== -1) {
      const line = buffer + chunk.slice(start, newline)
      buffer = ""
      events.line(line)
      start = newline + 1
      newline = chunk.indexOf("\n", start)
    }
    buffer += chunk.slice(start)
    if (buffer.length > max) {
      buffer = ""
      events.end(`sent a line longer than ${max} bytes`)
      destroy()
    }
  }
}

const defaultMaxLine = 64 * 1024 * 1024

/**
 * Connects to a SLOP provider listening on a Unix socket (NDJSON) and keeps the connection, reconnecting with
 * backoff. Fails with {@link SlopStreamError} when the first connection cannot be opened. The client lives in the
 * current scope.
 *
 * **Example** (Mirroring a provider on a Unix socket)
 *
 * ```ts
 * import { SlopStream } from "@heed/slop"
 * import { Consumer } from "@heed/state-tree"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function* () {
 *   const client = yield* SlopStream.unix({ path: "/tmp/slop/board.sock" })
 *   const consumer = yield* Consumer.make(client)
 *   const id = yield* consumer.subscribe({ depth: -1 })
 *   return yield* consumer.tree(id)
 * }).pipe(Effect.scoped)
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const unix = (options: UnixOptions): Effect.Effect<StreamClient, SlopStreamError, Scope.Scope> =>
  make(options.path, options, (events) => {
    const socket = net.createConnection({ path: options.path })
    socket.setEncoding("utf8")
    const destroy = () => socket.destroy()
    const split = lineSplitter(events, options.maxLineBytes ?? defaultMaxLine, destroy)
    let problem: string | undefined
    socket.on("connect", events.open)
    socket.on("data", (chunk: string) => split(chunk))
    socket.on("error", (error) => {
      problem = error.message
    })
    socket.on("close", () => events.end(problem))
    return {
      write: (line) => {
        if (socket.writable) socket.write(`${line}\n`)
      },
      destroy
    }
  })

/**
 * Spawns a SLOP provider command and talks to it over its stdin and stdout (NDJSON; its stderr is ignored). When the
 * process exits it is started again with backoff; closing the client (or its scope) ends the process with SIGTERM.
 * Fails with {@link SlopStreamError} when the command cannot be started or exits before it opens.
 *
 * @category constructors
 * @since 0.1.0
 */
export const stdio = (options: StdioOptions): Effect.Effect<StreamClient, SlopStreamError, Scope.Scope> => {
  const [program, ...args] = options.command
  const target = options.command.join(" ")
  if (program === undefined || program === "") {
    return Effect.fail(new SlopStreamError({ target, message: "command must name a program to run" }))
  }
  return make(target, options, (events) => {
    const child = spawn(program, args, {
      cwd: options.cwd,
      env: options.env === undefined ? process.env : { ...process.env, ...options.env },
      stdio: ["pipe", "pipe", "ignore"]
    })
    let problem: string | undefined
    const destroy = () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM")
    }
    const split = lineSplitter(events, options.maxLineBytes ?? defaultMaxLine, destroy)
    child.stdout.setEncoding("utf8")
    child.stdout.on("data", (chunk: string) => split(chunk))
    child.stdin.on("error", () => {})
    child.on("spawn", events.open)
    child.on("error", (error) => {
      problem = error.message
      events.end(problem)
    })
    child.on("close", (code, signal) => events.end(problem ?? `the process exited (${signal ?? `code ${code}`})`))
    return {
      write: (line) => {
        if (child.stdin.writable) child.stdin.write(`${line}\n`)
      },
      destroy
    }
  })
}
