import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { callTool, connectHttp, ok, settingsFor, startHttp } from "./harness.ts"

const clients = 50
const alertsPerClient = 100

describe("load (bounded counts, no timing assertions)", () => {
  it.live(
    `${clients} concurrent clients each report ${alertsPerClient} alerts and read briefings`,
    () =>
      Effect.gen(function* () {
        const { url } = yield* startHttp(settingsFor(), { _tag: "embedded", dataDir: "memory://" })
        const sessions = yield* Effect.forEach(
          Array.from({ length: clients }, (_, i) => i),
          () => connectHttp(url),
          {
            concurrency: 10
          }
        )
        let errors = 0
        let briefings = 0
        yield* Effect.forEach(
          sessions,
          (client, i) =>
            Effect.gen(function* () {
              for (let j = 0; j < alertsPerClient; j++) {
                const reply = yield* callTool(client, "report_alert", {
                  source: `load-${i}`,
                  tags: ["load"],
                  alert_id: `alert-${j}`,
                  level: j % 10 === 0 ? "critical" : "warning",
                  message: `client ${i} alert ${j}`
                })
                if (reply.isError) errors++
                if (j % 10 === 9) {
                  const briefing = yield* callTool(client, "get_briefing")
                  if (briefing.isError || briefing.body.attention_needed !== true) errors++
                  briefings++
                }
              }
            }),
          { concurrency: "unbounded", discard: true }
        )
        assert.strictEqual(errors, 0)
        assert.strictEqual(briefings, (clients * alertsPerClient) / 10)
        const checker = sessions[0]!
        const stats = yield* ok(checker, "get_stats")
        assert.strictEqual(stats.entries.alert, clients * alertsPerClient)
        assert.strictEqual(stats.sources.length, clients)
        for (const i of [0, 17, 49]) {
          const page = yield* ok(checker, "get_alerts", { source: `load-${i}`, limit: alertsPerClient + 1 })
          assert.strictEqual(page.entries.length, alertsPerClient)
        }
        const briefing = yield* ok(checker, "get_briefing")
        assert.strictEqual(briefing.active_alerts, clients * alertsPerClient)
      }).pipe(Effect.scoped),
    { timeout: 300_000 }
  )
})
