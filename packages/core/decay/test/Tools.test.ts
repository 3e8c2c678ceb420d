import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Stream } from "effect"
import { LanguageModel, Tool } from "effect/ai"
import { Session, Tools } from "../src/index.ts"
import { proofInit, sessionLayer } from "./helpers.ts"

/** A fake model that calls one tool with the given parameters, then answers. */
const callingModel = (name: string, params: unknown) =>
  Layer.effect(
    LanguageModel.LanguageModel,
    LanguageModel.make({
      generateText: () =>
        Effect.succeed([
          { type: "tool-call", id: "call-1", name, params },
          { type: "finish", reason: "tool-calls", usage: { inputTokens: { total: 1 }, outputTokens: { total: 1 } } }
        ]),
      streamText: () => Stream.empty
    })
  )

const live = Tools.layer.pipe(Layer.provideMerge(sessionLayer({}, proofInit)))

describe("Tools", () => {
  it("the eight tools carry CCM's names and parameters", () => {
    assert.deepStrictEqual(Object.keys(Tools.toolkit.tools), [
      "open_effort",
      "close_effort",
      "effort_status",
      "expand_effort",
      "collapse_effort",
      "switch_effort",
      "search_efforts",
      "reopen_effort"
    ])
    const params = (tool: Tool.Any) => {
      const schema = Tool.getJsonSchema(tool) as { properties?: Record<string, unknown>; required?: Array<string> }
      return [Object.keys(schema.properties ?? {}), schema.required ?? []]
    }
    assert.deepStrictEqual(params(Tools.OpenEffort), [["name"], ["name"]])
    assert.deepStrictEqual(params(Tools.CloseEffort), [["id"], []])
    assert.deepStrictEqual(params(Tools.EffortStatus), [[], []])
    assert.deepStrictEqual(params(Tools.ExpandEffort), [["id"], ["id"]])
    assert.deepStrictEqual(params(Tools.SearchEfforts), [["query"], ["query"]])
    for (const tool of Object.values(Tools.toolkit.tools)) assert.isString(tool.description)
  })

  it.effect("handlers act on the session", () =>
    Effect.gen(function* () {
      const toolkit = yield* Tools.toolkit
      const session = yield* Session.Session
      const results = yield* Effect.flatMap(toolkit.handle("expand_effort", { id: "auth-bug" }), Stream.runCollect)
      const last = results.at(-1)!
      assert.strictEqual(last.isFailure, false)
      assert.strictEqual((last.result as { status: string }).status, "expanded")
      assert.deepStrictEqual((yield* session.state()).expanded, ["auth-bug"])
      const failed = yield* Effect.flatMap(toolkit.handle("expand_effort", { id: "ghost" }), Stream.runCollect)
      assert.strictEqual(failed.at(-1)!.isFailure, true)
      assert.deepStrictEqual(failed.at(-1)!.result, { error: "No effort with id 'ghost'." })
    }).pipe(Effect.provide(live))
  )

  it.effect("any LanguageModel can call them", () =>
    Effect.gen(function* () {
      const session = yield* Session.Session
      const response = yield* LanguageModel.generateText({ prompt: "Open the auth bug", toolkit: Tools.toolkit })
      assert.strictEqual(response.toolResults.length, 1)
      assert.deepStrictEqual(response.toolResults[0]!.result, {
        status: "reopened",
        effort_id: "auth-bug",
        prior_summary: proofInit.manifest![0]!.summary
      })
      const auth = (yield* session.state()).manifest.find((e) => e.id === "auth-bug")!
      assert.strictEqual(auth.status, "open")
    }).pipe(Effect.provide(Layer.merge(live, callingModel("reopen_effort", { id: "auth-bug" }))))
  )
})
