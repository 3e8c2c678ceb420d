/**
 * A tiny YAML reader and writer for CCM's `manifest.yaml`: a list of flat mappings under `efforts:` with
 * scalar values (plain, single- or double-quoted, folded over several lines as PyYAML writes long strings).
 * Anything else is reported as an error with its line number instead of being guessed.
 *
 * @since 0.1.0
 */

/** A manifest entry as raw key/value pairs. */
export type RawEntry = Record<string, string | boolean | null>

/** Writes entries as `efforts:` followed by one `- key: value` block per entry; strings are double-quoted. */
export const writeManifest = (entries: ReadonlyArray<Record<string, unknown>>): string => {
  if (entries.length === 0) return "efforts: []\n"
  const lines = ["efforts:"]
  for (const entry of entries) {
    let first = true
    for (const [key, value] of Object.entries(entry)) {
      if (value === undefined) continue
      const scalar =
        value === null ? "null" : typeof value === "boolean" || typeof value === "number" ? String(value) : quote(value)
      lines.push(`${first ? "- " : "  "}${key}: ${scalar}`)
      first = false
    }
  }
  return `${lines.join("\n")}\n`
}

const quote = (value: unknown): string =>
  // JSON strings are valid YAML double-quoted scalars; escape U+2028/9 that YAML treats as line breaks.
  JSON.stringify(String(value))
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029")

const YAML_ESCAPES: Record<string, string> = {
  "0": "\0",
  a: "\x07",
  b: "\b",
  t: "\t",
  "\t": "\t",
  n: "\n",
  v: "\v",
  f: "\f",
  r: "\r",
  e: "\x1b",
  " ": " ",
  '"': '"',
  "/": "/",
  "\\": "\\",
  N: "\u0085",
  _: "\u00a0",
  L: "\u2028",
  P: "\u2029"
}

const unescapeDouble = (body: string, line: number): string => {
  let out = ""
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!
    if (c !== "\\") {
      out += c
      continue
    }
    const next = body[++i]
    if (next === undefined) throw new YamlError(line, "dangling escape")
    const width = next === "x" ? 2 : next === "u" ? 4 : next === "U" ? 8 : 0
    if (width > 0) {
      const hex = body.slice(i + 1, i + 1 + width)
      if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== width) throw new YamlError(line, `bad \\${next} escape`)
      out += String.fromCodePoint(Number.parseInt(hex, 16))
      i += width
      continue
    }
    const mapped = YAML_ESCAPES[next]
    if (mapped === undefined) throw new YamlError(line, `unknown escape \\${next}`)
    out += mapped
  }
  return out
}

/** A parse failure with the 1-based line number. */
export class YamlError extends Error {
  readonly line: number
  constructor(line: number, reason: string) {
    super(`manifest.yaml line ${line}: ${reason}`)
    this.line = line
  }
}

const indentOf = (line: string): number => line.length - line.trimStart().length

const isBlank = (line: string): boolean => {
  const trimmed = line.trim()
  return trimmed.length === 0 || trimmed.startsWith("#")
}

/** Parses a scalar that starts on `lines[index]` at column of `text`; returns the value and the next line index. */
const readScalar = (
  text: string,
  lines: ReadonlyArray<string>,
  index: number,
  keyIndent: number,
  key: string
): { value: string | boolean | null; next: number } => {
  let next = index + 1
  const continuation: Array<string> = []
  const collect = () => {
    while (next < lines.length) {
      const line = lines[next]!
      if (line.trim().length === 0) {
        continuation.push("")
        next++
        continue
      }
      if (indentOf(line) <= keyIndent) break
      continuation.push(line.trim())
      next++
    }
    while (continuation.length > 0 && continuation[continuation.length - 1] === "") continuation.pop()
  }
  const fold = (first: string): string => {
    let out = first
    let pendingBreaks = 0
    for (const part of continuation) {
      if (part === "") {
        pendingBreaks++
        continue
      }
      if (pendingBreaks > 0) out += "\n".repeat(pendingBreaks)
      else if (out.endsWith("\\") && !out.endsWith("\\\\")) out = out.slice(0, -1)
      else out += " "
      out += part
      pendingBreaks = 0
    }
    return out
  }
  const trimmed = text.trim()
  if (trimmed.startsWith('"')) {
    collect()
    const joined = fold(trimmed)
    const end = findClosingDouble(joined)
    if (end < 0) throw new YamlError(index + 1, `unterminated double-quoted value for '${key}'`)
    return { value: unescapeDouble(joined.slice(1, end), index + 1), next }
  }
  if (trimmed.startsWith("'")) {
    collect()
    const joined = fold(trimmed)
    const match = /^'((?:[^']|'')*)'/.exec(joined)
    if (match === null) throw new YamlError(index + 1, `unterminated single-quoted value for '${key}'`)
    return { value: match[1]!.replace(/''/g, "'"), next }
  }
  if (trimmed.startsWith("|") || trimmed.startsWith(">") || trimmed.startsWith("[") || trimmed.startsWith("{")) {
    throw new YamlError(index + 1, `unsupported value for '${key}' (block or flow collections)`)
  }
  collect()
  const plain = fold(trimmed.replace(/\s+#.*$/, ""))
  if (plain === "" || plain === "~" || plain === "null" || plain === "Null" || plain === "NULL")
    return { value: null, next }
  if (plain === "true" || plain === "True") return { value: true, next }
  if (plain === "false" || plain === "False") return { value: false, next }
  return { value: plain, next }
}

const findClosingDouble = (text: string): number => {
  for (let i = 1; i < text.length; i++) {
    if (text[i] === "\\") i++
    else if (text[i] === '"') return i
  }
  return -1
}

const KEY = /^([A-Za-z_][A-Za-z0-9_]*):(?:\s+(.*))?$/

/** Parses `manifest.yaml` into raw entries. Throws {@link YamlError}. */
export const readManifest = (source: string): Array<RawEntry> => {
  const lines = source.replace(/\r\n?/g, "\n").split("\n")
  const entries: Array<RawEntry> = []
  let i = 0
  while (i < lines.length && isBlank(lines[i]!)) i++
  if (i >= lines.length) return entries
  let listIndent = 0
  const head = lines[i]!
  if (!head.trimStart().startsWith("- ")) {
    const match = KEY.exec(head.trim())
    if (match === null || match[1] !== "efforts") throw new YamlError(i + 1, "expected 'efforts:'")
    const rest = (match[2] ?? "").trim()
    if (rest === "[]") return entries
    if (rest !== "") throw new YamlError(i + 1, "expected a list under 'efforts:'")
    i++
    while (i < lines.length && isBlank(lines[i]!)) i++
    if (i >= lines.length) return entries
    listIndent = indentOf(lines[i]!)
  }
  let current: RawEntry | undefined
  while (i < lines.length) {
    const line = lines[i]!
    if (isBlank(line)) {
      i++
      continue
    }
    const indent = indentOf(line)
    let body = line.trim()
    let keyIndent: number
    if (indent === listIndent && body.startsWith("- ")) {
      current = {}
      entries.push(current)
      body = body.slice(2).trimStart()
      keyIndent = indent + (line.trim().length - body.length)
    } else if (current !== undefined && indent > listIndent) {
      keyIndent = indent
    } else {
      throw new YamlError(i + 1, "unexpected content outside the efforts list")
    }
    const match = KEY.exec(body)
    if (match === null || current === undefined) throw new YamlError(i + 1, "expected 'key: value'")
    const { value, next } = readScalar(match[2] ?? "", lines, i, keyIndent, match[1]!)
    current[match[1]!] = value
    i = next
  }
  return entries
}
