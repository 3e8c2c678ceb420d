import { Bench } from "@heed/bench"
import { countTokens } from "gpt-tokenizer/encoding/o200k_base"
import { TokenCounter } from "../src/index.ts"

// gpt-tokenizer, the counter that countO200k replaced (a devDependency now), timed on the same texts for reference.
const gptTokenizer = (text: string): number => countTokens(text, { disallowedSpecial: new Set() })

const prose = "Attention is the scarce resource of an agent: what deserves a place in the context window? ".repeat(120)
const briefing = {
  generated: "2026-11-22T10:00:00Z",
  attention_needed: true,
  summary: "1 warning: qBittorrent stopped on nas. Calendar: dentist in 45 min.",
  sources: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`host-${i}`, { status: "ok", last_report: i }]))
}
const briefingJson = TokenCounter.toCompactJson(briefing)
const code = `export const rankOf = (vocabulary: Vocabulary, bytes: Uint8Array, start: number): number => {
  let slot = hashBytes(bytes, start, end) & mask // linear probing
  for (;;) { const entry = table[slot]!; if (entry === -1) return -1; slot = (slot + 1) & mask }
}
`.repeat(40)
// One piece of 20,000 letters: merged through the heap (a quadratic merge takes seconds here).
const longWord = Array.from({ length: 20_000 }, (_, i) => String.fromCharCode(97 + ((i * 7919) % 26))).join("")

await Bench.run("TokenCounter", [
  {
    name: "o200k prose 10 kB",
    fn: () => TokenCounter.countO200k(prose),
    figures: { bytes: prose.length, tokens: TokenCounter.countO200k(prose) }
  },
  {
    name: "approximate prose 10 kB",
    fn: () => TokenCounter.countApproximate(prose),
    figures: { tokens: TokenCounter.countApproximate(prose) }
  },
  {
    name: "o200k briefing JSON",
    fn: () => TokenCounter.countO200k(TokenCounter.toCompactJson(briefing)),
    figures: { bytes: briefingJson.length, tokens: TokenCounter.countO200k(briefingJson) }
  },
  {
    name: "o200k code 10 kB",
    fn: () => TokenCounter.countO200k(code),
    figures: { bytes: code.length, tokens: TokenCounter.countO200k(code) }
  },
  {
    name: "o200k one 20,000-letter word",
    fn: () => TokenCounter.countO200k(longWord),
    figures: { tokens: TokenCounter.countO200k(longWord) }
  },
  { name: "gpt-tokenizer prose 10 kB (reference)", fn: () => gptTokenizer(prose) },
  { name: "gpt-tokenizer briefing JSON (reference)", fn: () => gptTokenizer(TokenCounter.toCompactJson(briefing)) },
  { name: "gpt-tokenizer code 10 kB (reference)", fn: () => gptTokenizer(code) }
])

Bench.record("TokenCounter accuracy", [
  {
    name: "approximate / o200k (prose)",
    figures: { ratio: Number((TokenCounter.countApproximate(prose) / TokenCounter.countO200k(prose)).toFixed(3)) }
  },
  {
    name: "approximate / o200k (JSON)",
    figures: {
      ratio: Number((TokenCounter.countApproximate(briefingJson) / TokenCounter.countO200k(briefingJson)).toFixed(3))
    }
  }
])
