/**
 * Exact o200k counting for the collator's hot path. o200k splits text into pieces with one regular expression and
 * encodes each piece on its own, so a text's count is the sum of its pieces' counts. For ASCII text (every briefing
 * whose sources and messages are ASCII) the pieces are found by a hand-written scanner equivalent to that
 * expression, and each distinct piece is counted once and remembered (briefings repeat their keys, statuses and
 * names). Text with other characters is cut where a piece certainly starts: its ASCII parts are scanned the same way
 * and each other part is counted by `@heed/schema`'s `countO200k` once and remembered.
 *
 * @since 0.1.0
 */
import { TokenCounter } from "@heed/schema"

const UPPER = 0
const LOWER = 1
const DIGIT = 2
/** Whitespace other than CR and LF. */
const SPACE = 3
const NEWLINE = 4
/** Anything else: punctuation, symbols, control characters. */
const OTHER = 5

const classes = new Uint8Array(128).map((_, code) => {
  if (code >= 65 && code <= 90) return UPPER
  if (code >= 97 && code <= 122) return LOWER
  if (code >= 48 && code <= 57) return DIGIT
  if (code === 10 || code === 13) return NEWLINE
  // JavaScript's \s in ASCII: tab, vertical tab, form feed, space.
  if (code === 9 || code === 11 || code === 12 || code === 32) return SPACE
  return OTHER
})

const classAt = (text: string, i: number): number => classes[text.charCodeAt(i)] ?? OTHER

/** `[Lu]*[Ll]+` or `[Lu]+[Ll]*` from `i`: the end of the letters, or `i` when there are none. */
const lettersEnd = (text: string, i: number): number => {
  let k = i
  while (k < text.length && classAt(text, k) === UPPER) k++
  while (k < text.length && classAt(text, k) === LOWER) k++
  return k
}

/** The optional contraction after a word: 's 'd 'm 't 'll 've 're, in any case. */
const contractionEnd = (text: string, k: number): number => {
  if (text.charCodeAt(k) !== 39) return k
  const a = text.charAt(k + 1).toLowerCase()
  if (a === "s" || a === "d" || a === "m" || a === "t") return k + 2
  const two = text.slice(k + 1, k + 3).toLowerCase()
  return two === "ll" || two === "ve" || two === "re" ? k + 3 : k
}

/** Where the o200k piece starting at `i` ends, for ASCII text (the alternatives of the expression, in order). */
const pieceEnd = (text: string, i: number): number => {
  const n = text.length
  const first = classAt(text, i)
  // [^\r\n\p{L}\p{N}]?[\p{Lu}]*[\p{Ll}]+ and [^\r\n\p{L}\p{N}]?[\p{Lu}]+[\p{Ll}]*, with a contraction.
  if (first === SPACE || first === OTHER) {
    const end = lettersEnd(text, i + 1)
    if (end > i + 1) return contractionEnd(text, end)
  } else if (first === UPPER || first === LOWER) {
    return contractionEnd(text, lettersEnd(text, i))
  }
  // \p{N}{1,3}
  if (first === DIGIT) {
    let k = i + 1
    while (k < n && k < i + 3 && classAt(text, k) === DIGIT) k++
    return k
  }
  // ` ?[^\s\p{L}\p{N}]+[\r\n/]*`
  const start = text.charCodeAt(i) === 32 ? i + 1 : i
  let k = start
  while (k < n && classAt(text, k) === OTHER) k++
  if (k > start) {
    while (k < n && (classAt(text, k) === NEWLINE || text.charCodeAt(k) === 47)) k++
    return k
  }
  // Whitespace: \s*[\r\n]+, then \s+(?!\S), then \s+.
  let end = i
  let lastNewline = -1
  while (end < n && (classAt(text, end) === SPACE || classAt(text, end) === NEWLINE)) {
    if (classAt(text, end) === NEWLINE) lastNewline = end
    end++
  }
  if (lastNewline >= 0) return lastNewline + 1
  if (end === n || end - i === 1) return end
  return end - 1
}

const pieces = new Map<string, number>()

const isAscii = (text: string): boolean => {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 127) return false
  return true
}

/** The count of ASCII `text`: the scanner's pieces, each distinct one counted once. */
const countAscii = (text: string): number => {
  let total = 0
  let i = 0
  while (i < text.length) {
    const end = pieceEnd(text, i)
    total += remembered(text.slice(i, end))
    i = end
  }
  return total
}

/**
 * `countO200k(text)`, remembered for the next call (bounded: the pieces of briefings repeat, but messages and names
 * are the callers').
 */
const remembered = (text: string): number => {
  let known = pieces.get(text)
  if (known === undefined) {
    known = TokenCounter.countO200k(text)
    if (pieces.size >= 50_000) pieces.clear()
    pieces.set(text, known)
  }
  return known
}

/**
 * Whether a piece certainly starts at `p`: an ASCII digit after an ASCII character that is neither a digit nor white
 * space. Only `\p{N}{1,3}` holds a digit, so the digit starts its own piece; and the piece before ends where it does
 * whatever follows (a letter or punctuation run stops at any digit, and it is not white space, whose `(?!\S)` looks
 * ahead).
 */
const pieceStartsAt = (text: string, p: number): boolean => {
  const code = text.charCodeAt(p)
  if (code < 48 || code > 57) return false
  const before = classes[text.charCodeAt(p - 1)]
  return before === UPPER || before === LOWER || before === OTHER
}

/**
 * The o200k token count of `text`, exactly `countO200k(text)`. Text with non-ASCII characters (a `…` where a text
 * was shortened, a name with an accent) is cut where a piece certainly starts (before a digit, and briefings are
 * full of them: times, counts, names): the ASCII parts go through the scanner and each other part is counted by
 * `countO200k` once and remembered, so one `…` no longer sends the whole briefing through the expression.
 */
export const countO200kFast = (text: string): number => {
  if (isAscii(text)) return countAscii(text)
  let total = 0
  for (const part of partsOf(text)) total += countPart(part)
  return total
}

/** `text` cut before every position where a piece certainly starts (see `pieceStartsAt`). */
export const partsOf = (text: string): Array<string> => {
  const parts: Array<string> = []
  let start = 0
  for (let p = 1; p < text.length; p++) {
    if (!pieceStartsAt(text, p)) continue
    parts.push(text.slice(start, p))
    start = p
  }
  parts.push(text.slice(start))
  return parts
}

const countPart = (part: string): number => (isAscii(part) ? countAscii(part) : remembered(part))
