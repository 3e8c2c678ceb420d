/**
 * A cheap, provable lower bound on o200k token counts, so the planner can prune without tokenizing every line.
 *
 * o200k's pre-tokenizer splits text into pieces and encodes each piece into at least one token, so the number of
 * pieces is a lower bound on the count. Its rules give, for a "word" (a maximal run of characters other than ASCII
 * separators, i.e. ASCII characters that are neither letters, digits nor `'`):
 *
 * - a piece holding a letter holds only contiguous letters of one word (plus a one-character non-letter prefix and a
 *   `'s`-style suffix, both inside or before the word); a piece holding a digit holds one to three contiguous digits;
 *   so every word containing an ASCII letter or digit owns at least one piece no other word shares;
 * - in a word made only of ASCII letters and digits, each letter run owns at least one piece and each run of `n`
 *   digits exactly `ceil(n / 3)`.
 *
 * Words with a non-ASCII character or an apostrophe count as one piece (when they hold an ASCII letter or digit)
 * or none, which keeps the bound safe whatever those characters are.
 *
 * @since 0.1.0
 * @internal
 */
import { TokenCounter } from "@heed/schema"

/** 0: separator, 1: letter, 2: digit, 3: other word character (apostrophe) */
const asciiClass = new Uint8Array(128)
for (let c = 65; c <= 90; c++) asciiClass[c] = 1
for (let c = 97; c <= 122; c++) asciiClass[c] = 1
for (let c = 48; c <= 57; c++) asciiClass[c] = 2
asciiClass[39] = 3

/**
 * A lower bound on the o200k pieces (hence tokens) of the words of `text` that are delimited by ASCII separators.
 * When `text` is embedded in a longer text between ASCII separators (or at its ends), the bound holds for that
 * embedding too, and the bounds of several such embedded texts add up.
 *
 * @since 0.1.0
 * @internal
 */
export const o200kWordPieces = (text: string): number => {
  let pieces = 0
  let inWord = false
  let plain = true
  let alnum = false
  let wordPieces = 0
  let previous = 0
  let digits = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    const kind = code < 128 ? asciiClass[code]! : 3
    if (kind === 0) {
      if (inWord) pieces += plain ? wordPieces : alnum ? 1 : 0
      inWord = false
      continue
    }
    if (!inWord) {
      inWord = true
      plain = true
      alnum = false
      wordPieces = 0
      previous = 0
    }
    if (kind === 3) {
      plain = false
      previous = 3
    } else if (kind === 1) {
      alnum = true
      if (previous !== 1) wordPieces++
      previous = 1
    } else {
      alnum = true
      if (previous !== 2) digits = 0
      if (digits++ % 3 === 0) wordPieces++
      previous = 2
    }
  }
  if (inWord) pieces += plain ? wordPieces : alnum ? 1 : 0
  return pieces
}

/**
 * The counters the planner may plan lazily with a lower bound per line (see {@link o200kWordPieces}); lines of
 * other counters are all counted up front. Tests remove `countO200k` to compare with the eager planner.
 *
 * @since 0.1.0
 * @internal
 */
export const lazyCounters: Set<(text: string) => number> = new Set([TokenCounter.countO200k])
