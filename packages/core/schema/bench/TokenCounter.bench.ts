import { Bench } from "@heed/bench"
import { TokenCounter } from "../src/index.ts"

const prose = "Attention is the scarce resource of an agent: what deserves a place in the context window? ".repeat(120)
const briefing = {
  generated: "2026-11-22T10:00:00Z",
  attention_needed: true,
  summary: "1 warning: qBittorrent stopped on nas. Calendar: dentist in 45 min.",
  sources: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`host-${i}`, { status: "ok", last_report: i }]))
}
const briefingJson = TokenCounter.toCompactJson(briefing)

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
  }
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
