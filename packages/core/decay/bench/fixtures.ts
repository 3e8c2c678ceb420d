import { TokenCounter } from "@heed/schema"
import { Effect, Layer } from "effect"
import { type Model, Session, SessionStore, Summarizer } from "../src/index.ts"

const TS = "2026-11-22T00:00:00.000Z"

const PROSE =
  "the team walked through the plan again and agreed that the next step would be to write it down clearly " +
  "so that everyone could follow along later without asking the same questions twice in the morning meeting"
const proseWords = PROSE.split(" ")

/** Deterministic filler prose of about `tokens` o200k tokens (roughly one token per word). */
export const prose = (tokens: number, seed = 0): string => {
  const out: Array<string> = []
  for (let i = 0; i < tokens; i++) out.push(proseWords[(i * 7 + seed) % proseWords.length]!)
  return `${out.join(" ")}.`
}

/** A concluded effort `effort-NN` whose summary and log use its own topic words. */
export const effort = (n: number): Model.Effort => ({
  id: `effort-${String(n).padStart(3, "0")}`,
  status: "concluded",
  summary: `Resolved topic${n} issue: the widget${n} crashed when gadget${n} timed out; added a retry for gizmo${n}.`,
  raw_file: `efforts/effort-${String(n).padStart(3, "0")}.jsonl`,
  created: TS,
  updated: TS
})

/** A raw log of about `tokens` tokens about effort `n`. */
export const effortLog = (n: number, tokens: number): Array<Model.LogMessage> => {
  const messages: Array<Model.LogMessage> = []
  let total = 0
  let i = 0
  while (total < tokens) {
    const user = `About widget${n} and gadget${n}: ${prose(60, i)}`
    const assistant = `For topic${n}, the gizmo${n} retry fixed it. ${prose(120, i + 3)}`
    messages.push({ role: "user", content: user, ts: TS }, { role: "assistant", content: assistant, ts: TS })
    total += 200
    i++
  }
  return messages
}

/** A session on in-memory storage over `count` concluded efforts with logs of `tokensOf(n)` tokens. */
export const sessionLayer = (
  count: number,
  tokensOf: (n: number) => number,
  config: Session.SessionConfig,
  counter: Layer.Layer<TokenCounter.TokenCounter> = TokenCounter.layerO200k
) => {
  const manifest = Array.from({ length: count }, (_, n) => effort(n))
  const logs: Record<string, Array<Model.LogMessage>> = {}
  for (let n = 0; n < count; n++) logs[manifest[n]!.id] = effortLog(n, tokensOf(n))
  return Session.layer(config).pipe(
    Layer.provide(Layer.mergeAll(SessionStore.layerMemoryWith({ manifest, logs }), Summarizer.layerExtractive, counter))
  )
}

/** Builds a session synchronously (memory store, so nothing is asynchronous). */
export const buildSession = (layer: Layer.Layer<Session.Session, unknown>): Session.Session["Service"] =>
  Effect.runSync(Effect.provide(Session.Session, layer))
