import { record, run } from "@heed/bench"
import { countApproximate, countO200k, toCompactJson } from "../src/index.ts"

const prose = "Attention is the scarce resource of an agent: what deserves a place in the context window? ".repeat(120)
const briefing = {
  generated: "2026-11-22T10:00:00Z",
  attention_needed: true,
  summary: "1 warning: qBittorrent stopped on nas. Calendar: dentist in 45 min.",
  sources: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`host-${i}`, { status: "ok", last_report: i }]))
}
const briefingJson = toCompactJson(briefing)

await run("TokenCounter", [
  {
    name: "o200k prose 10 kB",
    fn: () => countO200k(prose),
    figures: { bytes: prose.length, tokens: countO200k(prose) }
  },
  { name: "approximate prose 10 kB", fn: () => countApproximate(prose), figures: { tokens: countApproximate(prose) } },
  {
    name: "o200k briefing JSON",
    fn: () => countO200k(toCompactJson(briefing)),
    figures: { bytes: briefingJson.length, tokens: countO200k(briefingJson) }
  }
])

record("TokenCounter accuracy", [
  {
    name: "approximate / o200k (prose)",
    figures: { ratio: Number((countApproximate(prose) / countO200k(prose)).toFixed(3)) }
  },
  {
    name: "approximate / o200k (JSON)",
    figures: { ratio: Number((countApproximate(briefingJson) / countO200k(briefingJson)).toFixed(3)) }
  }
])
