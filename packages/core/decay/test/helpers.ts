import { TokenCounter } from "@heed/schema"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { type Model, Session, type SessionContext, SessionStore, Summarizer } from "../src/index.ts"

export const TS = "2026-02-15T18:00:00"

export const AUTH_SUMMARY = "Fixed 401 errors: refresh tokens never auto-called. Added axios interceptor."
export const PERF_SUMMARY = "Dashboard query was slow because of a missing JOIN index; added the index."

export const concluded = (id: string, summary: string): Model.Effort => ({
  id,
  status: "concluded",
  summary,
  raw_file: `efforts/${id}.jsonl`,
  created: TS,
  updated: TS
})

export const exchange = (user: string, assistant: string): Array<Model.LogMessage> => [
  { role: "user", content: user, ts: TS },
  { role: "assistant", content: assistant, ts: TS }
]

/** A raw log of `n` exchanges about a topic. */
export const topicLog = (topic: string, n: number): Array<Model.LogMessage> =>
  Array.from({ length: n }, (_, i) =>
    exchange(
      `Question ${i} about ${topic}: what happens to the request when it fails with a status code?`,
      `Answer ${i} about ${topic}: the client retries after checking the headers, then logs the failure and the ` +
        `response body so we can trace the exact path through the middleware stack.`
    )
  ).flat()

/** Two concluded efforts (auth-bug, perf-fix) and a little ambient talk. */
export const proofInit: SessionStore.MemoryInit = {
  manifest: [concluded("auth-bug", AUTH_SUMMARY), concluded("perf-fix", PERF_SUMMARY)],
  logs: { "auth-bug": topicLog("auth", 6), "perf-fix": topicLog("perf", 6) },
  ambient: exchange("Hi there", "Hello! How can I help?")
}

/** A test summarizer that echoes every message, so a test can see what was summarized. */
export const echoSummarizer = Layer.succeed(Summarizer.Summarizer, {
  summarize: (input) => Effect.succeed(input.messages.map((message) => message.content).join(" | "))
})

/** Session + store (exposed) on in-memory storage, extractive summaries and o200k counts. */
export const sessionLayer = (
  config: Session.SessionConfig = {},
  init: SessionStore.MemoryInit = {},
  summarizer: Layer.Layer<Summarizer.Summarizer> = Summarizer.layerExtractive
) =>
  Session.layer(config).pipe(
    Layer.provideMerge(Layer.mergeAll(SessionStore.layerMemoryWith(init), summarizer, TokenCounter.layerO200k))
  )

export const contextTokens = (messages: ReadonlyArray<SessionContext.ContextMessage>): number =>
  messages.reduce((sum, message) => sum + TokenCounter.countO200k(message.content), 0)

export const systemText = (messages: ReadonlyArray<SessionContext.ContextMessage>): string => messages[0]!.content
