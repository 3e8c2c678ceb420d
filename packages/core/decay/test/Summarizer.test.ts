import { assert, describe, it } from "@effect/vitest"
import { TokenCounter } from "@heed/schema"
import { Effect, Layer, Stream } from "effect"
import { AiError, LanguageModel } from "effect/ai"
import { References, Session, SessionStore, Summarizer } from "../src/index.ts"
import { exchange } from "./helpers.ts"

const LOG = [
  ...exchange(
    "Users get 401 errors after an hour. The refresh token is never sent.",
    "--- Started effort: auth-bug ---\n\nThe axios client has no interceptor, so refresh tokens are never used."
  ),
  ...exchange(
    "How do we fix the refresh flow?",
    "Add an axios interceptor that catches 401 errors, refreshes the token and retries the request."
  ),
  ...exchange("Thanks, that works.", "Great. The interceptor now refreshes tokens automatically.")
]

/** A fake model: records the prompt it got and answers with a fixed summary. */
const fakeModel = (seen: Array<unknown>) =>
  Layer.effect(
    LanguageModel.LanguageModel,
    LanguageModel.make({
      generateText: (options) =>
        Effect.sync(() => {
          seen.push(options.prompt)
          return [
            { type: "text", text: "  Fixed 401s with an axios interceptor that refreshes tokens.  " },
            { type: "finish", reason: "stop", usage: { inputTokens: { total: 10 }, outputTokens: { total: 12 } } }
          ]
        }),
      streamText: () => Stream.empty
    })
  )

describe("Summarizer", () => {
  it("the extractive summary is short, deterministic and keeps the salient words", () => {
    const summary = Summarizer.extractiveSummary(LOG)
    assert.isAtMost(summary.length, 400)
    assert.strictEqual(summary, Summarizer.extractiveSummary(LOG))
    assert.notInclude(summary, "--- Started effort")
    const keywords = References.extractKeywords(summary)
    assert.isTrue(References.isReferenced("the axios interceptor for refresh tokens", "x", keywords))
    assert.strictEqual(Summarizer.extractiveSummary([]), "")
  })

  it("the summary made after the closing exchange never quotes banners or the previous summary", () => {
    const closing = [
      ...LOG,
      { role: "user" as const, content: "Works now, thanks!", ts: "2026-01-01T00:10:00Z" },
      {
        role: "assistant" as const,
        content: "--- Concluded effort: auth-bug ---\nSummary: PREVIOUS SUMMARY TEXT.\nGlad the interceptor fixed it.",
        ts: "2026-01-01T00:10:01Z"
      }
    ]
    const summary = Summarizer.extractiveSummary(closing, 2000)
    assert.notInclude(summary, "---")
    assert.notInclude(summary, "PREVIOUS SUMMARY TEXT")
    assert.include(summary, "Glad the interceptor fixed it.")
  })

  it.effect("layerExtractive needs nothing", () =>
    Effect.gen(function* () {
      const summarizer = yield* Summarizer.Summarizer
      assert.strictEqual(
        yield* summarizer.summarize({ effort_id: "auth-bug", messages: LOG }),
        Summarizer.extractiveSummary(LOG)
      )
    }).pipe(Effect.provide(Summarizer.layerExtractive))
  )

  it.effect("layerLanguageModel asks the model once with CCM's prompt", () => {
    const seen: Array<unknown> = []
    return Effect.gen(function* () {
      const summarizer = yield* Summarizer.Summarizer
      const summary = yield* summarizer.summarize({ effort_id: "auth-bug", messages: LOG })
      assert.strictEqual(summary, "Fixed 401s with an axios interceptor that refreshes tokens.")
      assert.strictEqual(seen.length, 1)
      const text = JSON.stringify(seen[0])
      assert.include(text, Summarizer.SUMMARIZER_SYSTEM_PROMPT)
      assert.include(text, "under 100 tokens")
      assert.include(
        Summarizer.summarizerPrompt({ effort_id: "auth-bug", messages: LOG }),
        "user: How do we fix the refresh flow?"
      )
    }).pipe(Effect.provide(Summarizer.layerLanguageModel.pipe(Layer.provide(fakeModel(seen)))))
  })

  it.effect("a session closes efforts with the model summary, and skips the model for brief efforts", () => {
    const seen: Array<unknown> = []
    return Effect.gen(function* () {
      const session = yield* Session.Session
      yield* session.openEffort({ name: "tiny" })
      const brief = yield* session.closeEffort({})
      assert.strictEqual(brief.summary, "Brief effort: tiny (too short to summarize)")
      assert.strictEqual(seen.length, 0)
      yield* session.openEffort({ name: "auth-bug" })
      yield* session.processTurn({ user: LOG[0]!.content, assistant: "Add an interceptor that refreshes tokens." })
      const closed = yield* session.closeEffort({})
      assert.strictEqual(closed.summary, "Fixed 401s with an axios interceptor that refreshes tokens.")
    }).pipe(
      Effect.provide(
        Session.layer().pipe(
          Layer.provide(
            Layer.mergeAll(
              SessionStore.layerMemory,
              Summarizer.layerLanguageModel.pipe(Layer.provide(fakeModel(seen))),
              TokenCounter.layerApproximate
            )
          )
        )
      )
    )
  })

  it.effect("a failing model surfaces as SummarizerError", () =>
    Effect.gen(function* () {
      const summarizer = yield* Summarizer.Summarizer
      const error = yield* Effect.flip(summarizer.summarize({ effort_id: "auth-bug", messages: LOG }))
      assert.strictEqual(error._tag, "SummarizerError")
      assert.include(error.message, "auth-bug")
    }).pipe(
      Effect.provide(
        Summarizer.layerLanguageModel.pipe(
          Layer.provide(
            Layer.effect(
              LanguageModel.LanguageModel,
              LanguageModel.make({
                generateText: () =>
                  Effect.fail(
                    AiError.make({
                      module: "Fake",
                      method: "generateText",
                      reason: new AiError.UnknownError({ description: "model offline" })
                    })
                  ),
                streamText: () => Stream.empty
              })
            )
          )
        )
      )
    )
  )
})
