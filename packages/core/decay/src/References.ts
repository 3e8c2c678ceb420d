/**
 * Reference detection: does a message still talk about an effort?
 *
 * Keywords come from an effort's summary only (lowercased, punctuation stripped, at least 3 characters,
 * English stopwords removed). A message references an effort when it names the effort id (hyphen, underscore
 * or space form, on word boundaries) or shares at least `min_keyword_overlap` distinct keywords with it.
 * Matching applies a light stemmer on both sides, so `token` matches `tokens` and `query` matches `queries`.
 *
 * Everything here is a plain synchronous function; {@link prepareMessage} and {@link prepareEffort} let hot
 * paths tokenise a message once and test it against many efforts.
 *
 * @since 0.1.0
 */
import { normalizeOverlap } from "./internal/config.ts"

/**
 * The default number of distinct keyword hits that make a reference (upstream `MIN_KEYWORD_OVERLAP`).
 *
 * @category constants
 * @since 0.1.0
 */
export const DEFAULT_MIN_KEYWORD_OVERLAP = 2

/**
 * English function words never used as keywords.
 *
 * @category constants
 * @since 0.1.0
 */
export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    "a an the and or but nor not no yes so if then than that this these those there here when where which who whom " +
    "whose what why how all any both each few more most other some such only own same too very can will would " +
    "shall should could may might must do does did doing done have has had having be is am are was were been being " +
    "i me my mine myself we us our ours you your yours he him his she her hers it its they them their theirs " +
    "to of in on at by for with from into onto upon about above below over under again further once up down out " +
    "off through during before after between against among within without via per just also now still even ever " +
    "again already yet get got go goes going went let lets like make made much many well really quite rather " +
    "ok okay oh hey hi please thanks thank sure got gotten while because since until though although whether"
  ).split(" ")
)

// Characters stripped from both ends of a whitespace token (upstream's punctuation set).
const STRIP = new Set(".,;:!?\"'()-[]{}/*#@&^%$`~<>|\\+_=")

const stripPunctuation = (token: string): string => {
  let start = 0
  let end = token.length
  while (start < end && STRIP.has(token[start]!)) start++
  while (end > start && STRIP.has(token[end - 1]!)) end--
  return start === 0 && end === token.length ? token : token.slice(start, end)
}

const WHITESPACE = /\s+/
const NON_WORD = /[^\p{L}\p{N}]+/u

/**
 * Light English stemmer used for matching: folds common plural forms and a trailing `e`, so `token`/`tokens`,
 * `query`/`queries`, `cache`/`caches` and `box`/`boxes` meet. Words of 3 characters or fewer are unchanged.
 *
 * @category combinators
 * @since 0.1.0
 */
export const stem = (word: string): string => {
  if (word.length <= 3) return word
  let w = word
  if (w.endsWith("ies") && w.length > 4) {
    w = `${w.slice(0, -3)}y`
  } else if (w.endsWith("s") && !w.endsWith("ss") && !w.endsWith("us") && !(w.endsWith("is") && w.length >= 5)) {
    w = w.slice(0, -1)
  }
  if (w.endsWith("e") && w.length > 3) w = w.slice(0, -1)
  return w
}

// Stems of recently seen words; natural text repeats words a lot. Cleared when it grows large.
const stemCache = new Map<string, string>()
const stemCached = (word: string): string => {
  let stemmed = stemCache.get(word)
  if (stemmed === undefined) {
    if (stemCache.size >= 50_000) stemCache.clear()
    stemmed = stem(word)
    stemCache.set(word, stemmed)
  }
  return stemmed
}

/**
 * The summary keywords of an effort: the summary lowercased, split on whitespace, stripped of punctuation at
 * both ends, keeping tokens of at least 3 characters that are not stopwords. Hyphenated words survive
 * (`auth-bug`). Keywords are returned unstemmed; {@link isReferenced} stems when matching. Empty, `null` or
 * `undefined` input gives the empty set.
 *
 * @category combinators
 * @since 0.1.0
 */
export const extractKeywords = (summary: string | null | undefined): ReadonlySet<string> => {
  const keywords = new Set<string>()
  if (typeof summary !== "string" || summary.length === 0) return keywords
  for (const raw of summary.toLowerCase().split(WHITESPACE)) {
    const word = stripPunctuation(raw)
    if (word.length >= 3 && !STOPWORDS.has(word)) keywords.add(word)
  }
  return keywords
}

/**
 * A message tokenised once for matching against many efforts.
 *
 * @category models
 * @since 0.1.0
 */
export interface PreparedMessage {
  /** Stemmed words of the message: whitespace tokens and their alphanumeric parts. */
  readonly words: ReadonlySet<string>
  /** The stemmed alphanumeric word sequence, space separated and padded with a space on both ends. */
  readonly sequence: string
  /** The lowercased message (fallback for ids without letters or digits). */
  readonly lower: string
}

/**
 * Tokenises a message for {@link matches}.
 *
 * @category constructors
 * @since 0.1.0
 */
export const prepareMessage = (message: string): PreparedMessage => {
  const lower = typeof message === "string" ? message.toLowerCase() : ""
  const words = new Set<string>()
  const parts: Array<string> = []
  const n = lower.length
  let i = 0
  // One pass over the text: whitespace-separated tokens, noting whether a token is one plain ASCII word.
  while (i < n) {
    if (isSpace(lower.charCodeAt(i))) {
      i++
      continue
    }
    const start = i
    let plain = true
    while (i < n) {
      const c = lower.charCodeAt(i)
      if (isSpace(c)) break
      if (plain && !((c >= 97 && c <= 122) || (c >= 48 && c <= 57))) plain = false
      i++
    }
    const raw = lower.slice(start, i)
    if (plain) {
      const stemmed = stemCached(raw)
      words.add(stemmed)
      parts.push(stemmed)
      continue
    }
    const word = stripPunctuation(raw)
    if (word.length > 0) words.add(stemCached(word))
    for (const part of raw.split(NON_WORD)) {
      if (part.length === 0) continue
      const stemmed = stemCached(part)
      parts.push(stemmed)
      words.add(stemmed)
    }
  }
  return new Prepared(words, parts, lower)
}

const SPACE = /\s/
const isSpace = (c: number): boolean =>
  c === 32 || (c >= 9 && c <= 13) || (c > 127 && SPACE.test(String.fromCharCode(c)))

class Prepared implements PreparedMessage {
  readonly words: ReadonlySet<string>
  readonly lower: string
  #parts: ReadonlyArray<string>
  #sequence: string | undefined
  constructor(words: ReadonlySet<string>, parts: ReadonlyArray<string>, lower: string) {
    this.words = words
    this.lower = lower
    this.#parts = parts
  }
  // Joined on first use: most messages never need it (an id's parts must all be words of the message first).
  get sequence(): string {
    if (this.#sequence === undefined) this.#sequence = ` ${this.#parts.join(" ")} `
    return this.#sequence
  }
}

/**
 * An effort prepared for {@link matches}: its id forms and stemmed keywords.
 *
 * @category models
 * @since 0.1.0
 */
export interface PreparedEffort {
  /** The effort id. */
  readonly id: string
  /** The id as a padded stemmed word sequence (`" auth bug "`), or `undefined` if it has no letters or digits. */
  readonly idSequence: string | undefined
  /** The stemmed alphanumeric parts of the id (a fast pre-check before scanning the message). */
  readonly idParts: ReadonlyArray<string>
  /** The lowercased id, used when it has no letters or digits. */
  readonly idLower: string
  /** Distinct stemmed keywords. */
  readonly keywords: ReadonlySet<string>
}

/**
 * Prepares an effort id and its (unstemmed) keywords for {@link matches}.
 *
 * @category constructors
 * @since 0.1.0
 */
export const prepareEffort = (effortId: string, keywords: Iterable<string>): PreparedEffort => {
  const idLower = effortId.toLowerCase()
  const parts = idLower
    .split(NON_WORD)
    .filter((part) => part.length > 0)
    .map(stem)
  const stemmed = new Set<string>()
  for (const keyword of keywords) stemmed.add(stem(keyword.toLowerCase()))
  return {
    id: effortId,
    idSequence: parts.length === 0 ? undefined : ` ${parts.join(" ")} `,
    idParts: parts,
    idLower,
    keywords: stemmed
  }
}

/**
 * Whether a prepared message names the effort id on word boundaries (hyphen, underscore and space forms match
 * each other, plural forms match the singular).
 *
 * @category guards
 * @since 0.1.0
 */
export const mentionsId = (message: PreparedMessage, effort: PreparedEffort): boolean => {
  if (effort.idSequence === undefined) return effort.idLower.length > 0 && message.lower.includes(effort.idLower)
  // Every part must be a word of the message before the (linear) scan for the sequence is worth it.
  for (const part of effort.idParts) if (!message.words.has(part)) return false
  return message.sequence.includes(effort.idSequence)
}

/**
 * The number of distinct stemmed keywords of `effort` present in `message`.
 *
 * @category getters
 * @since 0.1.0
 */
export const keywordOverlap = (message: PreparedMessage, effort: PreparedEffort): number => {
  let hits = 0
  for (const keyword of effort.keywords) if (message.words.has(keyword)) hits++
  return hits
}

/**
 * The prepared form of {@link isReferenced}.
 *
 * @category guards
 * @since 0.1.0
 */
export const matches = (
  message: PreparedMessage,
  effort: PreparedEffort,
  minKeywordOverlap: number = DEFAULT_MIN_KEYWORD_OVERLAP
): boolean => mentionsId(message, effort) || keywordOverlap(message, effort) >= normalizeOverlap(minKeywordOverlap)

/**
 * Options for {@link isReferenced}.
 *
 * @category models
 * @since 0.1.0
 */
export interface ReferenceOptions {
  /** Distinct keyword hits needed (default 2). Values below 1 or not finite fall back to the default. */
  readonly min_keyword_overlap?: number | undefined
}

/**
 * Whether `message` references the effort `effortId` with summary keywords `keywords` (as returned by
 * {@link extractKeywords}): the id appears on word boundaries (`auth-bug`, `auth bug`, `auth_bug`; id `api`
 * does not match "capital"), or at least `min_keyword_overlap` (default 2) distinct keywords appear, compared
 * after light stemming. Case-insensitive.
 *
 * **Example** (Id and keyword references)
 *
 * ```ts
 * import { References } from "@heed/decay"
 *
 * const keywords = References.extractKeywords("Fixed 401 errors: refresh tokens never auto-called.")
 * References.isReferenced("What about auth-bug?", "auth-bug", keywords) // true
 * References.isReferenced("The refresh token is expiring", "auth-bug", keywords) // true
 * References.isReferenced("The refresh rate is fine", "auth-bug", keywords) // false
 * ```
 *
 * @category guards
 * @since 0.1.0
 */
export const isReferenced = (
  message: string,
  effortId: string,
  keywords: Iterable<string>,
  options?: ReferenceOptions
): boolean =>
  matches(prepareMessage(message), prepareEffort(effortId, keywords), options?.min_keyword_overlap ?? undefined)
