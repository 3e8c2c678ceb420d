/**
 * Text helpers: word splitting, globs and did-you-mean suggestions.
 *
 * @since 0.1.0
 */

const splitter = /[^\p{L}\p{N}]+/u

/** Lower-cased words, split on anything that is not a letter or a digit (so `_`, `-`, `—` and quotes split). */
export const words = (text: string): Array<string> => {
  const out: Array<string> = []
  for (const word of text.toLowerCase().split(splitter)) if (word.length > 0) out.push(word)
  return out
}

const globCache = new Map<string, RegExp>()

/** A case-insensitive glob (`*` any run, `?` one character) as a RegExp anchored at both ends. */
export const globToRegExp = (glob: string): RegExp => {
  let cached = globCache.get(glob)
  if (cached === undefined) {
    const body = glob
      .replace(/[.+^${}()|[\]\\]/g, "\\$&")
      .replace(/\*/g, ".*")
      .replace(/\?/g, ".")
    cached = new RegExp(`^${body}$`, "is")
    if (globCache.size > 1000) globCache.clear()
    globCache.set(glob, cached)
  }
  return cached
}

/** Levenshtein edit distance. */
export const levenshtein = (a: string, b: string): number => {
  if (a === b) return 0
  if (a.length === 0) return b.length
  if (b.length === 0) return a.length
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost))
    }
    previous = current
  }
  return previous[b.length] ?? 0
}

/** The closest valid value within edit distance 2 (case-insensitive), if any. */
export const didYouMean = (value: string, valid: ReadonlyArray<string>): string | undefined => {
  const lower = value.toLowerCase()
  let best: string | undefined
  let bestDistance = 3
  for (const candidate of valid) {
    const distance = levenshtein(lower, candidate.toLowerCase())
    if (distance < bestDistance) {
      best = candidate
      bestDistance = distance
    }
  }
  return best
}

/** Cuts `text` to at most `max` characters, ending with an ellipsis when cut. */
export const truncate = (text: string, max: number): string =>
  text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`

/** Ends `text` with a full stop unless it already ends a sentence (or was cut with an ellipsis). */
export const sentence = (text: string): string => (/[.!?…]$/.test(text) ? text : `${text}.`)
