/**
 * Test support: a fake model server on loopback that records exactly what it receives and answers as a script
 * says, and the proxy itself in process on an ephemeral port.
 */
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"
import { TokenCounter } from "@heed/schema"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as HttpServer from "effect/http/HttpServer"
import * as Layer from "effect/Layer"
import * as Cli from "../src/Cli.ts"
import * as ContextPlan from "../src/ContextPlan.ts"

/** One request the fake upstream received. */
export interface Received {
  readonly method: string
  readonly url: string
  readonly headers: IncomingHttpHeaders
  readonly body: Buffer
  // biome-ignore lint/suspicious/noExplicitAny: parsed JSON that the tests walk freely
  readonly json: any
}

/** What the fake upstream answers: a status, headers and body, or chunks written one by one (streams). */
export interface Reply {
  readonly status?: number
  readonly headers?: Record<string, string>
  readonly body?: string
  readonly chunks?: ReadonlyArray<string>
  /** Never answer (for timeouts). */
  readonly hang?: boolean
  /** Write the first `after` chunks, then wait for `until` before writing the rest. */
  readonly gate?: { readonly after: number; readonly until: Promise<void> }
}

/** A fake upstream: `answer` decides each reply from the request and its index. */
export const fakeUpstream = (answer: (request: Received, index: number) => Reply) =>
  Effect.acquireRelease(
    Effect.callback<{ url: string; received: Array<Received>; close: () => void }>((resume) => {
      const received: Array<Received> = []
      const server = createServer((request, response) => {
        const chunks: Array<Buffer> = []
        request.on("data", (chunk: Buffer) => chunks.push(chunk))
        request.on("end", () => {
          const body = Buffer.concat(chunks)
          let json: unknown
          try {
            json = JSON.parse(body.toString("utf8"))
          } catch {
            json = undefined
          }
          const entry: Received = {
            method: request.method ?? "",
            url: request.url ?? "",
            headers: request.headers,
            body,
            json
          }
          received.push(entry)
          const reply = answer(entry, received.length - 1)
          if (reply.hang === true) return
          response.writeHead(reply.status ?? 200, { "content-type": "application/json", ...reply.headers })
          if (reply.chunks !== undefined) {
            const write = (i: number): void => {
              if (i >= reply.chunks!.length) return void response.end()
              if (reply.gate !== undefined && i === reply.gate.after) {
                reply.gate.until.then(() => response.write(reply.chunks![i], () => write(i + 1)))
                return
              }
              response.write(reply.chunks![i], () => write(i + 1))
            }
            write(0)
          } else response.end(reply.body ?? "")
        })
      })
      server.listen(0, "127.0.0.1", () => {
        const port = (server.address() as AddressInfo).port
        resume(
          Effect.succeed({
            url: `http://127.0.0.1:${port}`,
            received,
            close: () => {
              server.closeAllConnections()
              server.close()
            }
          })
        )
      })
    }),
    (fake) => Effect.sync(() => fake.close())
  )

/** Starts the proxy in process on an ephemeral port; returns its base URL. */
export const startProxy = (upstream: string, plan: Partial<ContextPlan.PlanConfig> = {}, timeoutMs = 30_000) =>
  Effect.gen(function* () {
    const context = yield* Layer.build(
      Cli.layer({
        port: 0,
        host: "127.0.0.1",
        maxSessions: 100,
        databaseUrl: undefined,
        settings: { upstream, timeoutMs, plan: { ...ContextPlan.defaults, ...plan } }
      })
    )
    const server = Context.get(context, HttpServer.HttpServer)
    const address = server.address as { port: number }
    return `http://127.0.0.1:${address.port}`
  })

/** o200k token count. */
export const count = TokenCounter.countO200k

/** A text of about `tokens` tokens, distinct per `seed`, with a path and identifiers in it. */
export const bigText = (seed: string, tokens: number): string => {
  const lines: Array<string> = []
  let i = 0
  while (count(lines.join("\n")) < tokens) {
    lines.push(
      `src/${seed}/module${i}.ts:${i * 7} export function ${seed}Handler${i}(input) { return compute${i}(input) }`
    )
    i++
  }
  return lines.join("\n")
}

/** Posts JSON; returns status, headers and body text. */
export const post = async (
  url: string,
  body: unknown,
  headers: Record<string, string> = {}
): Promise<{ status: number; headers: globalThis.Headers; text: string }> => {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body)
  })
  return { status: response.status, headers: response.headers, text: await response.text() }
}
