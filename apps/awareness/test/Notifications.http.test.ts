import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Token from "../src/Token.ts"
import { connectHttp, ok, settingsFor, startHttp } from "./harness.ts"

const secret = "notifications-test-secret-0123456789"
const tokenFor = (sub: string) => Token.sign({ sub, secret, nowSec: Math.floor(Date.now() / 1000), expiresInSec: 3600 })

const meta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {}
}

/** Opens a 2026-07-28 `subscriptions/listen` stream and collects its JSON-RPC messages. */
const listen = (url: string, token?: string) =>
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
          "mcp-method": "subscriptions/listen",
          ...(token === undefined ? {} : { authorization: `Bearer ${token}` })
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "subscriptions/listen",
          params: { _meta: meta, notifications: { resourceSubscriptions: ["awareness://briefing"] } }
        })
      })
      const messages: Array<{ method?: string; params?: { uri?: string; _meta?: Record<string, unknown> } }> = []
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

  it.live(
    "a write by one owner notifies that owner's listeners only, and the notification names no audience",
    () =>
      Effect.gen(function* () {
        const { url } = yield* startHttp(
          settingsFor({ authRequired: true, secret: Option.some(Redacted.make(secret)) }),
          { _tag: "embedded", dataDir: "memory://" }
        )
        const aliceToken = tokenFor("alice")
        const bobToken = tokenFor("bob")
        const aliceStream = yield* listen(url, aliceToken)
        const bobStream = yield* listen(url, bobToken)
        for (const stream of [aliceStream, bobStream]) {
          assert.strictEqual(stream.status, 200)
          assert.strictEqual(yield* waitFor(stream.messages, "notifications/subscriptions/acknowledged", 1), 1)
        }
        // the official SDK client writes (it speaks no 2026-07-28, so it cannot listen itself: over HTTP, resource
        // subscriptions exist only as subscriptions/listen streams)
        const alice = yield* connectHttp(url, aliceToken)
        const bob = yield* connectHttp(url, bobToken)
        const alert = (n: number) => ({
          source: "nas",
          tags: [],
          alert_id: `disk-${n}`,
          level: "critical",
          message: `Disk ${n} failing`
        })
        const updated = "notifications/resources/updated"
        // Turn by turn, each write waits for its owner's notification, so every notification sent for the write
        // before (to anyone) was sent before the next write: a stream that got another owner's would count it.
        yield* ok(alice, "report_alert", alert(1))
        assert.strictEqual(yield* waitFor(aliceStream.messages, updated, 1), 1)
        yield* ok(bob, "report_alert", alert(1))
        assert.isAtLeast(yield* waitFor(bobStream.messages, updated, 1), 1)
        yield* ok(alice, "report_alert", alert(2))
        assert.isAtLeast(yield* waitFor(aliceStream.messages, updated, 2), 2)
        yield* ok(bob, "report_alert", alert(2))
        assert.isAtLeast(yield* waitFor(bobStream.messages, updated, 2), 2)
        yield* ok(alice, "report_alert", alert(3))
        assert.isAtLeast(yield* waitFor(aliceStream.messages, updated, 3), 3)
        const count = (messages: ReadonlyArray<{ method?: string }>) =>
          messages.filter((message) => message.method === updated).length
        assert.strictEqual(count(aliceStream.messages), 3, "alice's listener was told of bob's writes")
        assert.strictEqual(count(bobStream.messages), 2, "bob's listener was told of alice's writes")
        for (const message of [...aliceStream.messages, ...bobStream.messages]) {
          if (message.method !== updated) continue
          assert.strictEqual(message.params?.uri, "awareness://briefing")
          assert.isUndefined(message.params?._meta?.["heed.dev/audience"])
        }
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )
})
