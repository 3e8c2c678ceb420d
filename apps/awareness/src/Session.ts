/**
 * A `serve --stdio` session on an embedded data directory: one awareness per folder, however many sessions. The
 * session relays its client's MCP messages (newline-delimited JSON-RPC) both ways to the session socket of the
 * process holding the folder (`SessionSocket.ts`): requests, responses, notifications (`resources/updated`
 * included) and server requests. When no process holds the folder, the session becomes the holder first (loads
 * `Holder.ts`: opens the store, serves the socket) and relays to its own socket.
 *
 * When the holder goes away (its session closed, or it was killed), the session takes over if it gets the lock
 * (otherwise it attaches to the session that did), then re-initialises upstream on its client's behalf: it replays the
 * client's `initialize` and `notifications/initialized`, re-subscribes its subscriptions, sends again every request
 * that had no answer yet (a write the old holder committed but never acknowledged may so run twice; an acknowledged
 * one is on disk), and tells the client that each subscribed resource may have changed
 * (`notifications/resources/updated`), since an update could have been lost with the holder. The client sees no
 * error. The relay's own requests carry ids starting with `heed-relay:`, and their answers are not passed on.
 *
 * This module is plain Node on purpose: an attached session loads neither Effect nor PGlite nor the tokenizer
 * (about 50 MB resident from the built bin, against about 300 MB for the holder), which is why its protocol handling
 * is a small line relay rather than an `McpServer`.
 *
 * @since 0.1.0
 */
import { mkdirSync } from "node:fs"
import { connect, type Socket } from "node:net"
import type { Running } from "./Holder.ts"
import * as LockFile from "./internal/lockFile.ts"

/**
 * Options of a session.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /** The embedded store's data directory (an absolute path). */
  readonly dataDir: string
  /** The `--log-level` flag, passed to the holder when this session becomes one. */
  readonly logLevel?: string | undefined
  /** Where the client's messages come from (default `process.stdin`). */
  readonly input?: NodeJS.ReadableStream | undefined
  /** Where the client's messages go (default `process.stdout`). */
  readonly output?: NodeJS.WritableStream | undefined
}

/**
 * A JSON-RPC message, as far as the relay looks into it.
 *
 * @category models
 * @since 0.1.0
 */
export interface Message {
  readonly id?: unknown
  readonly method?: unknown
  readonly params?: { readonly uri?: unknown } | undefined
  readonly error?: unknown
}

const relayPrefix = "heed-relay:"

/** How often a waiting session looks at the lock again (a killed holder leaves no other signal). */
const retryMs = 25

const parse = (line: string): Message | undefined => {
  try {
    const value = JSON.parse(line) as unknown
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Message) : undefined
  } catch {
    return undefined
  }
}

const keyOf = (id: unknown): string => JSON.stringify(id)

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

const tryConnect = (path: string) =>
  new Promise<Socket | undefined>((resolve) => {
    const socket = connect(path)
    socket.once("connect", () => {
      socket.removeAllListeners("error")
      resolve(socket)
    })
    socket.once("error", () => resolve(undefined))
  })

/** Splits a stream of bytes into lines, calling `onLine` for each complete one. */
const lines = (onLine: (line: string) => void) => {
  let buffer = ""
  return (chunk: Buffer | string) => {
    buffer += chunk.toString()
    let newline = buffer.indexOf("\n")
    while (newline !== -1) {
      const line = buffer.slice(0, newline).replace(/\r$/, "")
      buffer = buffer.slice(newline + 1)
      if (line.trim() !== "") onLine(line)
      newline = buffer.indexOf("\n")
    }
  }
}

/**
 * Runs a session until its client closes its input (or the process gets SIGINT or SIGTERM): attaches to the holder
 * of `dataDir`, or becomes it. Resolves with the exit code: 0, or 1 when this session could not open the store (the
 * reason is printed on stderr as `heed-awareness: …`).
 *
 * @category running
 * @since 0.1.0
 */
export const run = (options: Options): Promise<number> =>
  new Promise<number>((resolveExit) => {
    const input = options.input ?? process.stdin
    const output = options.output ?? process.stdout
    const dataDir = options.dataDir

    let upstream: Socket | undefined
    let ready = false
    let closing = false
    let holding: Running | undefined
    let starting: Promise<Running> | undefined
    let relayCounter = 0

    // What the client said that a new upstream must hear again.
    let initialize: { readonly key: string; readonly line: string; acknowledged: boolean } | undefined
    let initialized: string | undefined
    let logLevelLine: string | undefined
    const subscriptions = new Set<string>()
    const pendingSubscriptions = new Map<string, { readonly uri: string; readonly subscribe: boolean }>()
    // Client requests without an answer yet (in order), and whether the current upstream has them.
    const pending = new Map<string, { readonly line: string; sent: boolean }>()
    // Client messages that wait for an upstream (notifications and answers to server requests; requests stay in
    // `pending` until they are sent).
    const outbox: Array<string> = []
    // The relay's own requests whose answers are dropped.
    const replaying = new Set<string>()
    let handshake: string | undefined

    const toClient = (line: string) => {
      output.write(`${line}\n`)
    }

    const send = (line: string) => {
      upstream?.write(`${line}\n`)
    }

    const flush = () => {
      for (const entry of pending.values()) {
        if (!entry.sent) {
          entry.sent = true
          send(entry.line)
        }
      }
      for (const line of outbox.splice(0)) send(line)
    }

    const relayRequest = (method: string, params: unknown) => {
      const id = `${relayPrefix}${++relayCounter}`
      replaying.add(keyOf(id))
      send(JSON.stringify({ jsonrpc: "2.0", id, method, params }))
      return keyOf(id)
    }

    /** After the replayed `initialize` is answered: the rest of the client's state, then its waiting messages. */
    const finishHandshake = () => {
      handshake = undefined
      if (initialized !== undefined) send(initialized)
      if (logLevelLine !== undefined) {
        const message = parse(logLevelLine)
        relayRequest("logging/setLevel", message?.params)
      }
      for (const uri of subscriptions) relayRequest("resources/subscribe", { uri })
      ready = true
      flush()
      // An update may have been lost with the old holder: let the client read each subscribed resource again.
      for (const uri of subscriptions) {
        toClient(JSON.stringify({ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri } }))
      }
    }

    const onClientLine = (line: string) => {
      const message = parse(line)
      if (message !== undefined && typeof message.method === "string" && message.id !== undefined) {
        const key = keyOf(message.id)
        if (message.method === "initialize") initialize = { key, line, acknowledged: false }
        if (message.method === "logging/setLevel") logLevelLine = line
        if (message.method === "resources/subscribe" || message.method === "resources/unsubscribe") {
          const uri = message.params?.uri
          if (typeof uri === "string") {
            pendingSubscriptions.set(key, { uri, subscribe: message.method === "resources/subscribe" })
          }
        }
        pending.set(key, { line, sent: false })
        if (ready) flush()
        return
      }
      if (message?.method === "notifications/initialized") initialized = line
      if (ready) send(line)
      else outbox.push(line)
    }

    const onUpstreamLine = (line: string) => {
      const message = parse(line)
      if (message !== undefined && message.method === undefined && message.id !== undefined) {
        const key = keyOf(message.id)
        if (replaying.delete(key)) {
          if (key === handshake) finishHandshake()
          return
        }
        pending.delete(key)
        if (initialize?.key === key && message.error === undefined) initialize.acknowledged = true
        const change = pendingSubscriptions.get(key)
        if (change !== undefined) {
          pendingSubscriptions.delete(key)
          if (message.error === undefined) {
            if (change.subscribe) subscriptions.add(change.uri)
            else subscriptions.delete(change.uri)
          }
        }
      }
      toClient(line)
    }

    const attach = (socket: Socket) => {
      upstream = socket
      socket.on("data", lines(onUpstreamLine))
      socket.on("error", () => socket.destroy())
      socket.on("close", () => {
        if (upstream !== socket) return
        upstream = undefined
        ready = false
        handshake = undefined
        replaying.clear()
        for (const entry of pending.values()) entry.sent = false
        if (!closing) void reconnect()
      })
      if (initialize?.acknowledged === true) {
        // Re-initialise on the client's behalf before anything else reaches the new upstream.
        const message = parse(initialize.line)
        handshake = relayRequest("initialize", message?.params)
      } else {
        ready = true
        flush()
      }
    }

    const fail = (line: string) => {
      process.stderr.write(`heed-awareness: ${line}\n`)
      void shutdown(1)
    }

    /** Attaches to the folder's holder, becoming it first when there is none. */
    const connectUpstream = async (): Promise<Socket | undefined> => {
      while (!closing) {
        const holder = LockFile.liveHolder(dataDir)
        if (holder === undefined) {
          let taken: LockFile.LockRecord | undefined
          try {
            taken = LockFile.tryAcquire(dataDir)
          } catch (error) {
            if (!(error instanceof LockFile.LockBusy)) {
              fail(`cannot lock the data directory ${dataDir}: ${(error as Error).message}`)
              return undefined
            }
            await wait(retryMs) // another session is removing the same stale lock
            continue
          }
          if (taken !== undefined) continue
          starting = import("./Holder.ts").then((Holder) => Holder.start(dataDir, options.logLevel))
          try {
            holding = await starting
          } catch (error) {
            LockFile.release(dataDir)
            const failure = error as { readonly reason?: string; readonly message?: string }
            if (failure.reason === "locked") continue
            fail(String(failure.message ?? error))
            return undefined
          } finally {
            starting = undefined
          }
          if (closing) return undefined // `shutdown` stops it
          const socket = await tryConnect(holding.socket)
          if (socket !== undefined) return socket
          fail(`cannot connect to this session's own socket ${holding.socket}`)
          return undefined
        }
        if (holder.socket !== undefined) {
          const socket = await tryConnect(holder.socket)
          if (socket !== undefined) return socket
        }
        await wait(retryMs) // the holder is still opening the store, or closing it
      }
      return undefined
    }

    const reconnect = async () => {
      const socket = await connectUpstream()
      if (socket === undefined) return
      if (closing) {
        socket.destroy()
        return
      }
      attach(socket)
    }

    const shutdown = async (code: number) => {
      if (closing) return
      closing = true
      upstream?.destroy()
      upstream = undefined
      // A holder still opening the store is stopped once it is open.
      await starting?.catch(() => undefined)
      const running = holding
      holding = undefined
      if (running !== undefined) await running.stop().catch(() => undefined)
      resolveExit(code)
    }

    try {
      mkdirSync(dataDir, { recursive: true })
    } catch (error) {
      process.stderr.write(`heed-awareness: cannot create the data directory ${dataDir}: ${(error as Error).message}\n`)
      resolveExit(1)
      return
    }
    // A client that went away closes its end of stdout too: end the session instead of crashing on EPIPE.
    output.on("error", () => void shutdown(0))
    input.on("data", lines(onClientLine))
    input.on("end", () => void shutdown(0))
    input.on("close", () => void shutdown(0))
    process.once("SIGINT", () => void shutdown(0))
    process.once("SIGTERM", () => void shutdown(0))
    void reconnect()
  })
