/**
 * `searchEfforts`' ranking: concluded efforts whose id the query mentions, or whose summary keywords it shares
 * (at least `min_keyword_overlap` of them), scored by rarity-weighted overlap (an id mention adds 10), best
 * first, ties in manifest order.
 *
 * @since 0.1.0
 */
import type { Effort } from "../Model.ts"
import * as References from "../References.ts"
import type { SearchReply } from "../Session.ts"

export const search = (manifest: ReadonlyArray<Effort>, query: string, minKeywordOverlap: number): SearchReply => {
  const concluded = manifest.filter((effort) => effort.status === "concluded")
  const message = References.prepareMessage(query)
  const prepared = concluded.map((effort) => ({
    effort,
    prepared: References.prepareEffort(effort.id, References.extractKeywords(effort.summary))
  }))
  const documentFrequency = new Map<string, number>()
  for (const { prepared: p } of prepared) {
    for (const keyword of p.keywords) documentFrequency.set(keyword, (documentFrequency.get(keyword) ?? 0) + 1)
  }
  const n = prepared.length
  const scored: Array<{ effort: Effort; score: number; index: number }> = []
  prepared.forEach(({ effort, prepared: p }, index) => {
    const idHit = References.mentionsId(message, p)
    let hits = 0
    let score = 0
    for (const keyword of p.keywords) {
      if (!message.words.has(keyword)) continue
      hits++
      score += Math.log(1 + n / (documentFrequency.get(keyword) ?? 1))
    }
    if (!idHit && hits < minKeywordOverlap) return
    scored.push({ effort, score: score + (idHit ? 10 : 0), index })
  })
  scored.sort((a, b) => b.score - a.score || a.index - b.index)
  return {
    results: scored.map(({ effort }) => ({ id: effort.id, summary: effort.summary, status: "concluded" })),
    query
  }
}
