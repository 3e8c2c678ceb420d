import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { connectHttp, ok, settingsFor, startHttp } from "./harness.ts"

const meta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {}
}

/** Opens a 2026-07-28 `subscriptions/listen` stream and collects its JSON-RPC messages. */
const listen = (url: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const controller = new AbortController()
      const response = await fetch(url, {
        method: "POST",
        signal: controller.signal,
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "subscriptions/listen"
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "subscriptions/listen",
          params: { _meta: meta, notifications: { resourceSubscriptions: ["awareness://briefing"] } }
        })
      })
      const messages: Array<{ method?: string; params?: { uri?: string } }> = []
      const reader = response.body!.getReader()
      const decoder = new TextDecoder()
      let buffer = ""
      void (async () => {
        try {
          while (true) {
            const { done, value } = await reader.read()
            if (done) return
            buffer += decoder.decode(value, { stream: true })
            let end = buffer.indexOf("\n\n")
            while (end >= 0) {
              const event = buffer.slice(0, end)
              buffer = buffer.slice(end + 2)
              for (const line of event.split("\n")) {
                if (line.startsWith("data: ")) messages.push(JSON.parse(line.slice(6)))
              }
              end = buffer.indexOf("\n\n")
            }
          }
        } catch {
          // aborted at the end of the test
        }
      })()
      return { status: response.status, messages, controller }
    }),
    ({ controller }) => Effect.sync(() => controller.abort())
  )

const waitFor = (messages: ReadonlyArray<{ method?: string }>, method: string, count: number) =>
  Effect.promise(async () => {
    const deadline = Date.now() + 10_000
    while (messages.filter((message) => message.method === method).length < count && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    return messages.filter((message) => message.method === method).length
  })

describe("briefing notifications over Streamable HTTP (2026-07-28 subscriptions/listen)", () => {
  it.live(
    "a listener receives notifications/resources/updated when another client's write changes the briefing",
    () =>
      Effect.gen(function* () {
        const { url } = yield* startHttp(settingsFor(), { _tag: "embedded", dataDir: "memory://" })
        const stream = yield* listen(url)
        assert.strictEqual(stream.status, 200)
        assert.strictEqual(yield* waitFor(stream.messages, "notifications/subscriptions/acknowledged", 1), 1)
        const writer = yield* connectHttp(url)
        yield* ok(writer, "report_alert", {
          source: "synology-nas",
          tags: ["qbittorrent"],
          alert_id: "qb",
          level: "warning",
          message: "qBittorrent stopped"
        })
        assert.strictEqual(yield* waitFor(stream.messages, "notifications/resources/updated", 1), 1)
        const update = stream.messages.find((message) => message.method === "notifications/resources/updated")
        assert.strictEqual(update?.params?.uri, "awareness://briefing")
        // That a write leaving the briefing unchanged sends nothing is @heed/mcp's Resources test (under the
        // TestClock, where the notifier's check is awaited); over a live stream only a sleep could "show" it.
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )
})
