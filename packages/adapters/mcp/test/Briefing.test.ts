/**
 * get_briefing over MCP as an agent reads it: compact JSON text by default (no evaluation, no timestamps on
 * healthy sources), the full briefing with explain (and in the resource), plain text with format "text".
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { call, makeClient, ok, read } from "./helpers.ts"

type Client = Effect.Success<ReturnType<typeof makeClient>>

/** The text of get_briefing's reply, as the client receives it. */
const textOf = (client: Client, args: Record<string, unknown>) =>
  Effect.map(client.callTool({ name: "get_briefing", arguments: args }), (result) => {
    const first = result.content[0]
    return first !== undefined && first.type === "text" ? first.text : ""
  })

describe("get_briefing", () => {
  it.effect("compact JSON by default; explain adds the evaluation and healthy timestamps; the resource is full", () =>
    Effect.gen(function* () {
      const client = yield* makeClient()
      yield* ok(client, "report_status", { source: "ci", tags: [], metrics: {} })
      yield* ok(client, "report_status", { source: "nas", tags: [], metrics: {} })
      yield* ok(client, "report_alert", {
        source: "nas",
        tags: [],
        alert_id: "disk",
        level: "critical",
        message: "Disk failing"
      })
      const text = yield* textOf(client, {})
      assert.notInclude(text, "\n")
      const compact = JSON.parse(text)
      assert.isUndefined(compact.evaluation)
      assert.deepStrictEqual(compact.sources.ci, { status: "ok" })
      assert.isString(compact.sources.nas.last_report)
      assert.deepStrictEqual(Object.keys(compact.sources), ["nas", "ci"])
      const explained = yield* ok(client, "get_briefing", { explain: true })
      assert.strictEqual(explained.evaluation.surfaced, 1)
      assert.isString(explained.sources.ci.last_report)
      const resource = yield* read(client, "awareness://briefing")
      assert.strictEqual(resource.evaluation.alerts_checked, 1)
      assert.isString(resource.sources.ci.last_report)
    }).pipe(Effect.scoped)
  )

  it.effect("format text: one line per item, most severe first", () =>
    Effect.gen(function* () {
      const client = yield* makeClient()
      yield* ok(client, "report_status", { source: "ci", tags: [], metrics: {} })
      yield* ok(client, "report_alert", {
        source: "aaa",
        tags: [],
        alert_id: "d",
        level: "warning",
        message: "Disk 85% full"
      })
      yield* ok(client, "report_alert", {
        source: "zzz",
        tags: [],
        alert_id: "db",
        level: "critical",
        message: "Database down"
      })
      assert.strictEqual(
        yield* textOf(client, { format: "text" }),
        [
          "1 critical on zzz. 1 warning on aaa.",
          "CRITICAL zzz: Database down",
          "WARNING aaa: Disk 85% full",
          "OK 1 source"
        ].join("\n")
      )
    }).pipe(Effect.scoped)
  )

  it.effect("a misspelled format or a non-boolean explain is invalid_parameter naming it", () =>
    Effect.gen(function* () {
      const client = yield* makeClient()
      const format = yield* call(client, "get_briefing", { format: "txt" })
      assert.deepStrictEqual(
        [format.isError, format.body.error.code, format.body.error.param, format.body.error.suggestion],
        [true, "invalid_parameter", "format", "text"]
      )
      const explain = yield* call(client, "get_briefing", { explain: "yes" })
      assert.deepStrictEqual([explain.isError, explain.body.error.param], [true, "explain"])
    }).pipe(Effect.scoped)
  )
})
