/**
 * A digest's `max_tokens`: fill the budget most-important-first. Each line is costed as a unit with its indentation
 * and newline (exact for o200k up to the last line's missing newline); entries that do not fit are skipped, so a
 * smaller, less important one may still be shown. The rendered digest is then measured exactly: entries are dropped
 * from the end while it is over, and skipped entries that the measured slack may still hold are tried one by one.
 *
 * @since 0.1.0
 * @internal
 */
import type { Node } from "../Node.ts"
import * as Render from "../Render.ts"

/** Consecutive entries that do not fit before the search for smaller ones stops. */
const MAX_MISSES = 64
/** Exact tries of skipped entries near the budget. */
const MAX_TRIES = 16

/**
 * The digest of the entries (built on demand, most important first) that fits `maxTokens`, with at most `limit`
 * entries; `rootOf(shown, entries)` builds the digest root, whose summary depends on how many are shown.
 */
export const fill = (
  entries: ReadonlyArray<() => Node>,
  limit: number,
  maxTokens: number,
  count: (text: string) => number,
  rootOf: (shown: number, entries: Array<Node>) => Node
): Node => {
  const filler = new Filler(entries, count, rootOf)
  const skipped = filler.greedy(limit, maxTokens)
  filler.dropWhileOver(maxTokens)
  filler.retry(skipped, limit, maxTokens)
  return filler.out
}

class Filler {
  readonly built: Array<Node | undefined> = []
  readonly costs: Array<number> = []
  readonly rootCosts = new Map<number, number>()
  /** the chosen entries, in order */
  readonly chosen: Array<number> = []
  /** the sum of the chosen entries' unit costs */
  sum = 0
  /** the digest of the chosen entries, and its measured cost */
  out!: Node
  exact = 0
  readonly entries: ReadonlyArray<() => Node>
  readonly count: (text: string) => number
  readonly rootOf: (shown: number, entries: Array<Node>) => Node

  constructor(
    entries: ReadonlyArray<() => Node>,
    count: (text: string) => number,
    rootOf: (shown: number, entries: Array<Node>) => Node
  ) {
    this.entries = entries
    this.count = count
    this.rootOf = rootOf
  }

  entryAt(r: number): Node {
    let entry = this.built[r]
    if (entry === undefined) {
      entry = this.entries[r]!()
      this.built[r] = entry
    }
    return entry
  }

  costAt(r: number): number {
    let cost = this.costs[r]
    if (cost === undefined) {
      const entry = this.entryAt(r)
      cost = this.count(`  ${Render.line(entry)}\n`)
      for (const extra of Render.extraLines(entry)) cost += this.count(`    ${extra}\n`)
      this.costs[r] = cost
    }
    return cost
  }

  rootCost(shown: number): number {
    let cost = this.rootCosts.get(shown)
    if (cost === undefined) {
      cost = this.count(`${Render.line(this.rootOf(shown, []))}\n`)
      this.rootCosts.set(shown, cost)
    }
    return cost
  }

  build(chosen: ReadonlyArray<number>): Node {
    return this.rootOf(
      chosen.length,
      chosen.map((r) => this.entryAt(r))
    )
  }

  /** 1. Greedy on unit costs; returns the skipped entries. */
  greedy(limit: number, maxTokens: number): Array<number> {
    const skipped: Array<number> = []
    let misses = 0
    for (let r = 0; r < this.entries.length && this.chosen.length < limit && misses < MAX_MISSES; r++) {
      const cost = this.costAt(r)
      if (this.rootCost(this.chosen.length + 1) + this.sum + cost <= maxTokens) {
        this.chosen.push(r)
        this.sum += cost
        misses = 0
      } else {
        skipped.push(r)
        misses++
      }
    }
    return skipped
  }

  /** 2. Exact: drops entries from the end while the measured digest is over. */
  dropWhileOver(maxTokens: number): void {
    this.out = this.build(this.chosen)
    this.exact = this.count(Render.text(this.out))
    while (this.chosen.length > 0 && this.exact > maxTokens) {
      this.sum -= this.costAt(this.chosen.pop()!)
      this.out = this.build(this.chosen)
      this.exact = this.count(Render.text(this.out))
    }
  }

  /** 3. Exact: tries skipped entries the measured slack may still hold (unit sums can overestimate a little). */
  retry(skipped: ReadonlyArray<number>, limit: number, maxTokens: number): void {
    const chosen = this.chosen
    let tries = 0
    for (let s = 0; s < skipped.length && chosen.length < limit && tries < MAX_TRIES; s++) {
      const r = skipped[s]!
      const drift = this.exact - (this.rootCost(chosen.length) + this.sum)
      if (this.rootCost(chosen.length + 1) + this.sum + this.costAt(r) + drift - 2 > maxTokens) continue
      tries++
      let at = chosen.length
      while (at > 0 && chosen[at - 1]! > r) at--
      const candidate = this.build([...chosen.slice(0, at), r, ...chosen.slice(at)])
      const measured = this.count(Render.text(candidate))
      if (measured > maxTokens) continue
      chosen.splice(at, 0, r)
      this.sum += this.costAt(r)
      this.out = candidate
      this.exact = measured
    }
  }
}
