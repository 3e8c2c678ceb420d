import type { Server as NodeServer } from "node:http"
import { connect } from "node:net"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as HttpServer from "effect/http/HttpServer"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Backend from "../src/Backend.ts"
import * as Server from "../src/Server.ts"
import type { Settings } from "../src/Settings.ts"

void NodeHttpServer

export const settingsFor = (overrides: Partial<Settings> = {}): Settings => ({
  port: 0,
  host: "127.0.0.1",
  dataDir: "memory://",
  databaseUrl: Option.none(),
  authRequired: false,
  secret: Option.none(),
  defaultOwner: "tester",
  logLevel: "Warn",
  otlpEndpoint: Option.none(),
  watchIntervalMs: 0,
  allowedOrigins: [],
  clockSkewSec: 30,
  maxBodyBytes: 1_048_576,
  sessionIdleMs: 3_600_000,
  maxSessions: 1000,
  maxResponseBytes: 4 * 1_048_576,
  socketTimeoutMs: 60_000,
  ...overrides
})

/**
 * A wall clock that tests can move forward: real time plus an offset. With `monotonic`, `advance` moves the monotonic
 * clock too; with `frozenMonotonic`, the monotonic clock also stands still between advances (idle times exact to the
 * millisecond).
 */
export const makeTravel = (
  startAt?: number,
  options: { readonly monotonic?: boolean; readonly frozenMonotonic?: boolean } = {}
) => {
  let offset = startAt === undefined ? 0 : startAt - Date.now()
  let monotonicOffset = 0n
  const frozenAt = process.hrtime.bigint()
  const monotonic = () => (options.frozenMonotonic === true ? frozenAt : process.hrtime.bigint()) + monotonicOffset
  const millis = () => Date.now() + offset
  const clock: Clock.Clock = {
    currentTimeMillisUnsafe: millis,
    currentTimeMillis: Effect.sync(millis),
    currentTimeNanosUnsafe: () => BigInt(millis()) * 1_000_000n,
    currentTimeNanos: Effect.sync(() => BigInt(millis()) * 1_000_000n),
    monotonicTimeNanosUnsafe: monotonic,
    monotonicTimeNanos: Effect.sync(monotonic),
    sleep: (duration) =>
      Effect.callback<void>((resume) => {
        const timer = setTimeout(() => resume(Effect.void), Duration.toMillis(duration))
        return Effect.sync(() => clearTimeout(timer))
      })
  }
  return {
    clock,
    now: millis,
    /** Moves the wall clock (and, with `monotonic`, the monotonic clock) forward. */
    advance: (ms: number) => {
      offset += ms
      if (options.monotonic === true || options.frozenMonotonic === true) monotonicOffset += BigInt(ms) * 1_000_000n
    }
  }
}

export type Travel = ReturnType<typeof makeTravel>

/** Starts the real HTTP server on a free loopback port; returns its MCP URL. */
export const startHttp = (
  settings: Settings,
  kind: Backend.StoreKind,
  travel: Travel = makeTravel(),
  onServer?: (server: NodeServer) => void
) =>
  Effect.gen(function* () {
    const context = yield* Layer.build(
      Server.layerHttp(settings, travel.now(), onServer).pipe(Layer.provideMerge(Backend.layer(kind)))
    ).pipe(Effect.provideService(Clock.Clock, travel.clock))
    const address = Context.get(context, HttpServer.HttpServer).address
    const port = address._tag === "UnixPathAddress" ? 0 : address.port
    return { url: `http://127.0.0.1:${port}/mcp`, base: `http://127.0.0.1:${port}`, travel }
  })

/** An official SDK client over Streamable HTTP, closed with the scope. */
export const connectHttp = (url: string, token?: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client({ name: "heed-test", version: "1.0.0" })
      const transport = new StreamableHTTPClientTransport(
        new URL(url),
        token === undefined ? {} : { requestInit: { headers: { Authorization: `Bearer ${token}` } } }
      )
      await client.connect(transport)
      return client
    }),
    (client) => Effect.promise(() => client.close())
  )

export interface Reply {
  readonly isError: boolean
  // biome-ignore lint/suspicious/noExplicitAny: parsed JSON that the tests walk freely
  readonly body: any
}

export const callTool = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  Effect.promise(async (): Promise<Reply> => {
    const result = await client.callTool({ name, arguments: args })
    const content = result.content as Array<{ type: string; text?: string }>
    return { isError: result.isError === true, body: JSON.parse(content[0]?.text ?? "null") }
  })

export const ok = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  Effect.flatMap(callTool(client, name, args), (reply) =>
    reply.isError ? Effect.die(new Error(`${name}: ${JSON.stringify(reply.body)}`)) : Effect.succeed(reply.body)
  )

/** The next Friday at 10:00 UTC (the scenario's maintenance day). */
export const nextFriday10 = (from = Date.now()): number => {
  const date = new Date(from)
  date.setUTCHours(10, 0, 0, 0)
  const days = (5 - date.getUTCDay() + 7) % 7 || 7
  return date.getTime() + days * 86_400_000
}

/**
 * Whether PostgreSQL accepts TCP connections at `databaseUrl`. Under `CI=true` an unreachable server fails the run
 * (CI always has one); elsewhere `skipping` is printed as the reason the tests that need it are skipped.
 */
export const postgresReachable = async (databaseUrl: string, skipping: string): Promise<boolean> => {
  const reachable = await new Promise<boolean>((resolve) => {
    const url = new URL(databaseUrl)
    const socket = connect({ host: url.hostname, port: Number(url.port || 5432) })
    socket.setTimeout(3000)
    socket.on("connect", () => {
      socket.destroy()
      resolve(true)
    })
    socket.on("timeout", () => {
      socket.destroy()
      resolve(false)
    })
    socket.on("error", () => resolve(false))
  })
  if (!reachable) {
    if (process.env.CI === "true") throw new Error(`PostgreSQL at ${databaseUrl} is unreachable and CI=true`)
    console.warn(`Skipping ${skipping}: PostgreSQL at ${databaseUrl} is unreachable`)
  }
  return reachable
}
