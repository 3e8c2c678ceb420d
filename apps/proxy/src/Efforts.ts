/**
 * Efforts: the units of a request large enough to manage. Each gets a stable short id (the same unit in the
 * next request, resent by the client, gets the same id), a gist (extractive, at most 80 tokens, through
 * `@heed/decay`'s `Summarizer.extractiveSummary`), the marker that replaces it when collapsed, and the prepared
 * forms `@heed/decay`'s reference detection matches later messages against (the id, the tool call id, paths and
 * identifiers in the call's arguments, and distinctive keywords of the content and gist).
 *
 * @since 0.1.0
 */
import { References, Summarizer } from "@heed/decay"
import type { Unit } from "./Transcript.ts"

/**
 * Counts tokens of a text (the `TokenCounter` service's `count`).
 *
 * @category models
 * @since 0.1.0
 */
export type Count = (text: string) => number

/**
 * A token counter that remembers the counts of the texts it saw (bounded; the older half is dropped when full).
 * Clients resend their whole history on every request, so nearly every text is counted once. Long texts are
 * keyed by their length and a hash of their first and last 256 characters, so a lookup does not hash the whole
 * text (two texts alike in all of those but different inside would share a count: a counting error, never a
 * change to what is sent).
 *
 * @category constructors
 * @since 0.1.0
 */
export const cachedCount = (count: Count, capacity = 50_000): Count => {
  let cache = new Map<string, number>()
  let previous = new Map<string, number>()
  return (text) => {
    const key = text.length <= 1024 ? text : sampleKey(text)
    let hit = cache.get(key)
    if (hit !== undefined) return hit
    hit = previous.get(key) ?? count(text)
    if (cache.size >= capacity / 2) {
      previous = cache
      cache = new Map()
    }
    cache.set(key, hit)
    return hit
  }
}

const sampleKey = (text: string): string =>
  `${text.length}:${fnv(text, 2166136261, 0, SAMPLE).toString(36)}:${fnv(text, 16777619, text.length - SAMPLE, text.length).toString(36)}`

const fnv = (text: string, seed: number, from = 0, to = text.length): number => {
  let hash = seed >>> 0
  for (let i = from; i < to; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 16777619) >>> 0
  }
  return hash
}

const SAMPLE = 256

/**
 * The effort id of a unit: `h` and 8 hex digits of a hash over its position, kind, tool call id, length and the
 * first and last 256 characters of its text. Stable across requests of one conversation.
 *
 * @category constructors
 * @since 0.1.0
 */
export const idOf = (unit: Unit, text: string): string => {
  const head = text.length <= SAMPLE * 2 ? text : `${text.slice(0, SAMPLE)}${text.slice(-SAMPLE)}`
  const key = `${unit.key}|${unit.kind}|${unit.toolCallId ?? ""}|${text.length}|${head}`
  return `h${fnv(key, 2166136261).toString(16).padStart(8, "0")}`
}

/**
 * The text of a unit (its parts joined by blank lines).
 *
 * @category getters
 * @since 0.1.0
 */
export const textOf = (unit: Unit): string => (unit.texts.length === 1 ? unit.texts[0]! : unit.texts.join("\n\n"))

/**
 * The most tokens a gist may have.
 *
 * @category constants
 * @since 0.1.0
 */
export const GIST_MAX_TOKENS = 80

const clip = (line: string, max: number) => (line.length <= max ? line : `${line.slice(0, max - 1).trimEnd()}…`)

/**
 * An extractive gist of a text, at most {@link GIST_MAX_TOKENS} tokens. A tool result's gist is its first and
 * last non-empty lines (where tools put the path, the command and the totals); prose gets `@heed/decay`'s
 * extractive summary (sentences scored by content-word frequency, kept in order). Either is shortened until it
 * fits. Deterministic: the same text always gives the same gist, so a collapsed prefix stays cacheable.
 *
 * @category constructors
 * @since 0.1.0
 */
export const gist = (text: string, count: Count, kind: Unit["kind"] = "text"): string => {
  let summary: string
  const lines = kind === "tool_result" ? text.split("\n").filter((line) => line.trim().length > 0) : []
  if (lines.length >= 2) {
    summary = `${clip(lines[0]!.trim(), 160)} … ${clip(lines[lines.length - 1]!.trim(), 160)}`
  } else {
    // Long inputs: the summary only needs a sample of the sentences (head and tail keep paths, errors, totals).
    const sample = text.length > 24_000 ? `${text.slice(0, 16_000)}\n${text.slice(-8_000)}` : text
    let maxChars = 320
    summary = Summarizer.extractiveSummary([{ role: "assistant", content: sample, ts: "" }], maxChars)
    while (summary.length > 0 && count(summary) > GIST_MAX_TOKENS && maxChars > 40) {
      maxChars = Math.floor(maxChars * 0.75)
      summary = Summarizer.extractiveSummary([{ role: "assistant", content: sample, ts: "" }], maxChars)
    }
  }
  while (summary.length > 0 && count(summary) > GIST_MAX_TOKENS) summary = summary.slice(0, -8)
  return summary
}

/**
 * The text that replaces a collapsed effort: a marker naming its size and id, then its gist.
 *
 * @category constructors
 * @since 0.1.0
 */
export const collapsedText = (id: string, tokens: number, gistText: string): string =>
  `[heed: ${tokens} tokens collapsed, heed_expand("${id}") restores them]${gistText.length > 0 ? ` ${gistText}` : ""}`

const IDENTIFIER = /[A-Za-z_][\w$]*(?:[./:-][\w$]+)+|[a-z]+[A-Z][\w$]*|[A-Za-z]+_[\w$]+/g
const STRING_VALUE = /"((?:[^"\\]|\\.){3,200})"/g

/**
 * Distinctive words of a text: file paths, dotted names, camelCase and snake_case identifiers, most frequent
 * first (at most `limit`).
 *
 * @category getters
 * @since 0.1.0
 */
export const identifiers = (text: string, limit = 24): Array<string> => {
  const sample = text.length > 40_000 ? `${text.slice(0, 30_000)}\n${text.slice(-10_000)}` : text
  const frequency = new Map<string, number>()
  for (const match of sample.matchAll(IDENTIFIER)) {
    const word = match[0].replace(/[.:-]+$/, "")
    if (word.length < 5) continue
    frequency.set(word, (frequency.get(word) ?? 0) + 1)
  }
  return [...frequency.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, limit)
    .map(([word]) => word)
}

/**
 * The names a later message may use for an effort, each enough alone: the effort id, the tool call id, and the
 * string values of the call's arguments that look like paths or identifiers (`src/auth.ts`, `parseToken`).
 *
 * @category getters
 * @since 0.1.0
 */
export const aliases = (id: string, unit: Unit): Array<string> => {
  const out = [id]
  if (unit.toolCallId !== undefined) out.push(unit.toolCallId)
  if (unit.toolArguments !== undefined) {
    for (const match of unit.toolArguments.matchAll(STRING_VALUE)) {
      const value = match[1]!
      if (/\s/.test(value) || value.length < 4) continue
      if (/[/.]/.test(value) || /[a-z][A-Z]|_/.test(value)) out.push(value)
    }
  }
  return out
}

/**
 * An effort prepared for reference detection.
 *
 * @category models
 * @since 0.1.0
 */
export interface Prepared {
  readonly aliases: ReadonlyArray<References.PreparedEffort>
  readonly keywords: References.PreparedEffort
}

/**
 * Prepares an effort: its aliases, and its keywords: its distinctive identifiers (paths, dotted, camelCase and
 * snake_case names), or, for prose with fewer than three of them, the keywords of its gist
 * (`References.extractKeywords`, as CCM takes them from a summary).
 *
 * @category constructors
 * @since 0.1.0
 */
export const prepare = (id: string, unit: Unit, text: string, gistText: string): Prepared => {
  const found = identifiers(text)
  const keywords =
    found.length >= 3 ? new Set(found.map((word) => word.toLowerCase())) : new Set(References.extractKeywords(gistText))
  return {
    aliases: aliases(id, unit).map((alias) => References.prepareEffort(alias, [])),
    keywords: References.prepareEffort(id, keywords)
  }
}

/**
 * The keywords shared by at least `limit` (default 3) of the given efforts: names every other file uses
 * (`Effect.gen`, `console.log`) say nothing about which effort a message means, so {@link refersTo} ignores them.
 *
 * @category getters
 * @since 0.1.0
 */
export const commonKeywords = (efforts: Iterable<Prepared>, limit = 3): ReadonlySet<string> => {
  const frequency = new Map<string, number>()
  const common = new Set<string>()
  for (const effort of efforts) {
    for (const keyword of effort.keywords.keywords) {
      const n = (frequency.get(keyword) ?? 0) + 1
      frequency.set(keyword, n)
      if (n >= limit) common.add(keyword)
    }
  }
  return common
}

/**
 * Whether a prepared message refers to an effort: it names one of its aliases on word boundaries, or shares at
 * least `minKeywordOverlap` (default 2) distinct keywords with it, not counting `common` ones.
 *
 * @category guards
 * @since 0.1.0
 */
export const refersTo = (
  message: References.PreparedMessage,
  effort: Prepared,
  minKeywordOverlap = References.DEFAULT_MIN_KEYWORD_OVERLAP,
  common: ReadonlySet<string> = new Set()
): boolean => {
  for (const alias of effort.aliases) if (References.mentionsId(message, alias)) return true
  if (common.size === 0) return References.keywordOverlap(message, effort.keywords) >= minKeywordOverlap
  let hits = 0
  for (const keyword of effort.keywords.keywords) {
    if (common.has(keyword) || !message.words.has(keyword)) continue
    if (++hits >= minKeywordOverlap) return true
  }
  return false
}
