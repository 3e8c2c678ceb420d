import { isDeepStrictEqual } from "node:util"
import { SlopClient } from "@heed/http"
import type { Message, Node, Pipeline } from "@heed/state-tree"
import { Consumer } from "@heed/state-tree"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"

/** A seeded PRNG (mulberry32), so random scenarios replay exactly. */
export const random = (seed: number) => {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (n: number) => Math.floor(next() * n)
  const pick = <A>(items: ReadonlyArray<A>): A => items[int(items.length)]!
  return { next, int, pick }
}

/**
 * A SlopClient + Consumer on a real WebSocket, and `settle`: waits (re-checking on every snapshot or patch that
 * arrives, never on a timer) until the subscription's mirror holds `holds` and equals the provider's own optimised
 * view for the same request (a one-shot `query`). Fails after `timeoutMs` without a match, naming the last mirror.
 */
export const mirrorOf = (url: string, token?: string) =>
  Effect.gen(function* () {
    const client = yield* SlopClient.make({ url, token })
    const arrivals = yield* Queue.sliding<void>(1)
    const transport: Consumer.Transport = {
      send: client.send,
      messages: client.messages.pipe(
        Stream.tap((message: Message.Outbound) =>
          message.type === "patch" || message.type === "snapshot" ? Queue.offer(arrivals, undefined) : Effect.void
        )
      )
    }
    const consumer = yield* Consumer.make(transport)
    const settle = (
      id: string,
      request: Pipeline.Request,
      holds: (tree: Node.Node | undefined) => boolean = () => true,
      timeoutMs = 15_000,
      label = ""
    ) =>
      Effect.gen(function* () {
        for (;;) {
          const mirror = yield* consumer.tree(id)
          if (holds(mirror)) {
            const view = yield* consumer.query(request)
            if (isDeepStrictEqual(mirror, view)) return mirror
          }
          yield* Queue.take(arrivals)
        }
      }).pipe(
        Effect.timeoutOrElse({
          duration: timeoutMs,
          orElse: () =>
            Effect.flatMap(Effect.all([consumer.tree(id), consumer.query(request)]), ([mirror, view]) =>
              Effect.die(
                new Error(
                  `the mirror did not settle ${label}: ${JSON.stringify(mirror)}\nview: ${JSON.stringify(view)}`
                )
              )
            )
        })
      )
    return { client, consumer, settle }
  })

/** The nodes under a top-level collection of the awareness tree. */
export const under = (tree: Node.Node | undefined, collection: string): ReadonlyArray<Node.Node> =>
  tree?.children?.find((child) => child.id === collection)?.children ?? []

/** Every alert node of the tree (under each source). */
export const alertsOf = (tree: Node.Node | undefined): ReadonlyArray<Node.Node> =>
  under(tree, "sources").flatMap((source) => source.children ?? [])

interface Reply {
  readonly status: number
  readonly type: string
  // biome-ignore lint/suspicious/noExplicitAny: parsed JSON that the tests walk freely
  readonly body: any
}

/** A request as a reporter's `curl` would send it. */
export const send = (
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {}
): Effect.Effect<Reply> =>
  Effect.promise(async () => {
    const response = await fetch(
      `${base}${path}`,
      body === undefined
        ? { method, headers }
        : {
            method,
            headers: { "content-type": "application/json", ...headers },
            body: typeof body === "string" ? body : JSON.stringify(body)
          }
    )
    const text = await response.text()
    let parsed: unknown = text
    try {
      parsed = JSON.parse(text)
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, type: response.headers.get("content-type") ?? "", body: parsed }
  })
