/**
 * The summarizer port used when an effort closes.
 *
 * - `Summarizer.layerExtractive`: no model; picks the most salient sentences of the log (deterministic).
 * - `Summarizer.layerLanguageModel`: one call to an `effect/ai` `LanguageModel` with CCM's prompt
 *   ("You summarize conversations concisely.", under 100 tokens).
 *
 * Efforts whose log has fewer than 50 characters never reach the summarizer (the session writes
 * "Brief effort: {id} (too short to summarize)" instead, a guard against invented summaries).
 *
 * @since 0.1.0
 */

import * as LanguageModel from "effect/ai/LanguageModel"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type { LogMessage } from "./Model.ts"
import { STOPWORDS } from "./References.ts"

/**
 * A summarizer failure (for example the model call failed).
 *
 * @category errors
 * @since 0.1.0
 */
export class SummarizerError extends Schema.TaggedError<SummarizerError>()("SummarizerError", {
  message: Schema.String,
  cause: Schema.optional(Schema.Defect())
}) {}

/**
 * What a summarizer gets: the effort id and its raw log.
 *
 * @category models
 * @since 0.1.0
 */
export interface SummarizeInput {
  /** The effort id. */
  readonly effort_id: string
  /** The effort's raw log, oldest first. */
  readonly messages: ReadonlyArray<LogMessage>
}

/**
 * The summarizer interface.
 *
 * @category models
 * @since 0.1.0
 */
export interface SummarizerShape {
  /** Summarizes an effort's log in a few sentences. */
  readonly summarize: (input: SummarizeInput) => Effect.Effect<string, SummarizerError>
}

/**
 * CCM's summarizer system prompt.
 *
 * @category constants
 * @since 0.1.0
 */
export const SUMMARIZER_SYSTEM_PROMPT = "You summarize conversations concisely."

/**
 * The user prompt for one effort: what was worked on, key findings, the resolution, under 100 tokens.
 *
 * @category constructors
 * @since 0.1.0
 */
export const summarizerPrompt = (input: SummarizeInput): string =>
  `Summarize this effort ("${input.effort_id}"). Capture what was worked on, the key findings and the ` +
  `resolution, in under 100 tokens.\n\n${transcript(input.messages)}`

const isBanner = (text: string) => text.startsWith("--- ") && text.endsWith(" ---")

/**
 * Drops programmatic banner lines, and the `Summary:` line that follows a concluded banner, so that a summary
 * made after the closing exchange is logged does not quote the previous summary back into itself.
 */
const withoutBanners = (content: string): string => {
  const kept: Array<string> = []
  let afterConcludedBanner = false
  for (const line of content.split("\n")) {
    const trimmed = line.trim()
    if (isBanner(trimmed)) {
      afterConcludedBanner = trimmed.startsWith("--- Concluded effort:")
      continue
    }
    if (afterConcludedBanner && trimmed.startsWith("Summary:")) {
      afterConcludedBanner = false
      continue
    }
    afterConcludedBanner = false
    kept.push(line)
  }
  return kept.join("\n")
}

/**
 * The log as plain `role: content` lines, skipping system markers.
 *
 * @category constructors
 * @since 0.1.0
 */
export const transcript = (messages: ReadonlyArray<LogMessage>): string =>
  messages
    .filter((message) => message.role !== "system")
    .map((message) => `${message.role}: ${message.content}`)
    .join("\n")

const SENTENCE = /[^.!?\n]+[.!?]*/g
const WORD = /[\p{L}\p{N}][\p{L}\p{N}'-]*/gu

/**
 * An extractive summary: scores each sentence of the user and assistant messages by the frequency of its
 * content words (stopwords and banners ignored), keeps the best sentences up to about `maxChars` characters,
 * and returns them in their original order. Deterministic and model-free.
 *
 * @category constructors
 * @since 0.1.0
 */
export const extractiveSummary = (messages: ReadonlyArray<LogMessage>, maxChars = 400): string => {
  const sentences: Array<{ text: string; words: Array<string>; index: number }> = []
  const frequency = new Map<string, number>()
  for (const message of messages) {
    if (message.role !== "user" && message.role !== "assistant") continue
    for (const paragraph of withoutBanners(message.content).split("\n\n")) {
      for (const match of paragraph.matchAll(SENTENCE)) {
        const text = match[0].replace(/\s+/g, " ").trim()
        if (text.length < 3) continue
        const words = (text.toLowerCase().match(WORD) ?? []).filter((w) => w.length >= 3 && !STOPWORDS.has(w))
        if (words.length === 0) continue
        for (const word of new Set(words)) frequency.set(word, (frequency.get(word) ?? 0) + 1)
        sentences.push({ text, words, index: sentences.length })
      }
    }
  }
  if (sentences.length === 0) return ""
  const scored = sentences
    .map((sentence) => {
      let score = 0
      for (const word of new Set(sentence.words)) score += frequency.get(word) ?? 0
      return { ...sentence, score: score / Math.sqrt(sentence.words.length + 1) }
    })
    .sort((a, b) => b.score - a.score || a.index - b.index)
  const chosen: typeof scored = []
  let length = 0
  for (const sentence of scored) {
    if (chosen.length > 0 && length + sentence.text.length + 1 > maxChars) continue
    chosen.push(sentence)
    length += sentence.text.length + 1
  }
  const text = chosen
    .sort((a, b) => a.index - b.index)
    .map((sentence) => sentence.text)
    .join(" ")
  return text.length > maxChars ? `${text.slice(0, maxChars - 1).trimEnd()}…` : text
}

/**
 * The summarizer service.
 *
 * @category services
 * @since 0.1.0
 */
export class Summarizer extends Context.Service<Summarizer, SummarizerShape>()("@heed/decay/Summarizer") {}

/**
 * The extractive summarizer: no model, no requirements.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerExtractive: Layer.Layer<Summarizer> = Layer.succeed(Summarizer, {
  summarize: (input) => Effect.sync(() => extractiveSummary(input.messages))
})

/**
 * A summarizer that asks the provided `LanguageModel` once per effort.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerLanguageModel: Layer.Layer<Summarizer, never, LanguageModel.LanguageModel> = Layer.effect(
  Summarizer,
  Effect.gen(function* () {
    const model = yield* LanguageModel.LanguageModel
    return Summarizer.of({
      summarize: (input) =>
        model
          .generateText({
            prompt: [
              { role: "system", content: SUMMARIZER_SYSTEM_PROMPT },
              { role: "user", content: [{ type: "text", text: summarizerPrompt(input) }] }
            ]
          })
          .pipe(
            Effect.map((response) => response.text.trim()),
            Effect.mapError(
              (cause) =>
                new SummarizerError({ message: `summarizing '${input.effort_id}' failed: ${cause.message}`, cause })
            )
          )
    })
  })
)
