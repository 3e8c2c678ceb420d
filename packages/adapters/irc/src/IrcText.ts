/**
 * Splitting outgoing text into IRC lines: one PRIVMSG per line of the text, each cut to fit IRC's 512-byte line
 * limit once the server has added our prefix (`:nick!user@host `) when relaying it. Cuts prefer the last space
 * and never split a UTF-8 character.
 *
 * @since 0.1.0
 */

/** RFC 1459 line limit, CRLF included. */
const LINE_BYTES = 512
/** Room the relaying server needs for `:nick!user@host ` (nick ≤ 30, user ≤ 10, host ≤ 63, separators). */
const PREFIX_RESERVE = 1 + 30 + 1 + 10 + 1 + 63 + 1

const encoder = new TextEncoder()
const byteLength = (text: string): number => encoder.encode(text).length

/**
 * The most payload bytes one `PRIVMSG <target> :<payload>` can carry so that the relayed line still fits in
 * 512 bytes.
 *
 * @category getters
 * @since 0.1.0
 */
export const maxPayloadBytes = (target: string): number =>
  Math.max(16, LINE_BYTES - 2 - PREFIX_RESERVE - byteLength(`PRIVMSG ${target} :`))

// The longest prefix of `text` (whole code points) within `limit` bytes, preferring to end at a space.
const cut = (text: string, limit: number): number => {
  let bytes = 0
  let end = 0
  let lastSpace = -1
  for (const char of text) {
    const size = byteLength(char)
    if (bytes + size > limit) break
    bytes += size
    end += char.length
    if (char === " ") lastSpace = end
  }
  return end < text.length && lastSpace > end / 2 ? lastSpace : end
}

/**
 * Splits a text into the lines to send: one per non-empty line of the text (CR, LF and CRLF all separate
 * lines; NUL becomes a space), each cut into pieces of at most `maxBytes`
 * UTF-8 bytes, preferring spaces. Returns no lines for an empty or blank text.
 *
 * @category constructors
 * @since 0.1.0
 */
export const splitMessage = (text: string, maxBytes: number): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (const raw of text.split(/\r\n|\r|\n/)) {
    // NUL cannot travel in an IRC line; other controls (bold, colours) can.
    let rest = raw.replaceAll("\u0000", " ").trimEnd()
    while (rest.trim().length > 0) {
      const end = cut(rest, maxBytes)
      out.push(rest.slice(0, end).trimEnd())
      rest = rest.slice(end).trimStart()
    }
  }
  return out
}
