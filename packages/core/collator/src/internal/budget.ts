/**
 * The budget fitter: picks the most detailed rendering of a briefing that stays strictly under its token budget.
 *
 * Every source keeps its own line when everything fits. Otherwise it walks a ladder of steps (shorter texts, fewer
 * names, intentions and upcoming items, ok sources folded into a count) and, at each step, searches for the largest
 * number of detailed problem items that fits; critical sources win space before fired intentions. Counts only are
 * the last resort.
 *
 * @since 0.1.0
 */

import { TokenCounter } from "@heed/schema"
import type { Briefing } from "../Briefing.ts"
import type { Entry } from "../Entry.ts"
import { type Limits, type Model, type Prepared, prepare, render } from "./render.ts"

/**
 * A rendering, an upper bound on its tokens from its size, and its exact token count, counted on first read
 * (`Infinity` when it is certainly over budget). Both are of the rendering as a delivering read shows it, every
 * fired intention marked `new: true`, so that the mark never takes a fitted briefing over its budget.
 */
export interface Fitted {
  readonly briefing: Briefing
  readonly fired: Array<Entry>
  readonly upper: number
  readonly tokens: number
}

/**
 * The UTF-8 byte length of `text`: an upper bound on its o200k tokens, since a byte-level BPE token is at least one
 * byte. A briefing whose bound is under the budget fits without being counted.
 */
const utf8Bytes = (text: string): number => {
  let bytes = text.length
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    // 2 bytes below U+0800, 3 above, 4 for a surrogate pair (2 code units of 2 each).
    if (code >= 0x80) bytes += code >= 0x800 && (code < 0xd800 || code > 0xdfff) ? 2 : 1
  }
  return bytes
}

/**
 * The briefing with every fired intention marked `new`, as the read that delivers them all shows it: the largest
 * the briefing cache's marking (`{ ...item, new: true }`, the key last) can make it. A read that delivers fewer shows
 * fewer marks, so fitting this fits every delivery.
 */
const asDelivered = (briefing: Briefing): Briefing =>
  briefing.fired_intentions === undefined
    ? briefing
    : { ...briefing, fired_intentions: briefing.fired_intentions.map((item) => ({ ...item, new: true })) }

/** Whether a rendering fits: by its size when that settles it, else by its exact count. */
const fits = (fitted: Fitted, limit: number): boolean => fitted.upper <= limit || fitted.tokens <= limit

/** The bound for a counter it does not hold for (a caller's own, with a safety factor): never settles anything. */
const noBound = Number.POSITIVE_INFINITY

type Step = Omit<Limits, "detailed" | "fold">

/** The ladder, from most to least detail. */
const steps: ReadonlyArray<Step> = [
  { textChars: 200, maxNames: 5, maxIntentions: 10, maxUpcoming: 10, listOk: true, summaryChars: 400 },
  // Healthy sources collapse to a count before problem detail is shortened or left out.
  { textChars: 200, maxNames: 5, maxIntentions: 10, maxUpcoming: 10, listOk: false, summaryChars: 400 },
  { textChars: 120, maxNames: 3, maxIntentions: 5, maxUpcoming: 5, listOk: false, summaryChars: 300 },
  { textChars: 80, maxNames: 3, maxIntentions: 3, maxUpcoming: 3, listOk: false, summaryChars: 200 },
  { textChars: 50, maxNames: 2, maxIntentions: 1, maxUpcoming: 1, listOk: false, summaryChars: 150 }
]

/** What one fitting run shares: the model, its ranking, the budget and how to measure a rendering. */
interface Fitter {
  readonly model: Model
  readonly prepared: Prepared
  readonly budget: number
  /** The largest token count allowed: budgets are exclusive (at most budget - 1 tokens). */
  readonly limit: number
  /** Every source line or group costs well over 5 tokens, so more than budget / 5 of them cannot fit. */
  readonly maxLines: number
  readonly measure: (limits: Limits) => Fitted
}

const makeFitter = (
  model: Model,
  attention: boolean,
  budget: number,
  countTokens: (text: string) => number,
  byteBound: boolean
): Fitter => {
  const prepared = prepare(model)
  const measure = (limits: Limits): Fitted => {
    const out = render(model, prepared, attention, limits)
    const json = TokenCounter.toCompactJson(asDelivered(out.briefing))
    let exact: number | undefined
    return {
      ...out,
      upper: byteBound ? utf8Bytes(json) : noBound,
      get tokens() {
        // Cheap rejection first: o200k never packs 16 characters of this JSON into one token in practice.
        exact ??= json.length > budget * 16 ? Number.POSITIVE_INFINITY : countTokens(json)
        return exact
      }
    }
  }
  return { model, prepared, budget, limit: budget - 1, maxLines: Math.floor(budget / 5), measure }
}

/** Every source on its own line, nothing shortened; `undefined` when that does not fit. */
const everything = (f: Fitter): Fitted | undefined => {
  const lineCount = f.prepared.lineItems.length
  if (lineCount + f.prepared.okLines.length > f.maxLines) return undefined
  const full = f.measure({
    detailed: lineCount,
    textChars: undefined,
    maxNames: undefined,
    maxIntentions: f.model.due.length,
    maxUpcoming: f.model.upcoming.length,
    listOk: true,
    summaryChars: undefined,
    fold: false
  })
  return fits(full, f.limit) ? full : undefined
}

interface Found {
  readonly result: Fitted
  readonly k: number
}

/** The most detailed (folded) items that fit with the step's limits, or `undefined` if even none fit. */
const search = (f: Fitter, step: Step): Found | undefined => {
  const at = (detailed: number) => f.measure({ ...step, detailed, fold: true })
  let best = at(0)
  if (!fits(best, f.limit)) return undefined
  const hi = Math.min(f.prepared.items.length, f.maxLines)
  if (hi === 0) return { result: best, k: 0 }
  const top = at(hi)
  if (fits(top, f.limit)) return { result: top, k: hi }
  // Interpolate from the two ends, then walk to the largest count that fits.
  const perItem = Math.max(1, (Math.min(top.tokens, f.budget * 16) - best.tokens) / hi)
  let k = Math.min(hi - 1, Math.max(1, Math.floor((f.limit - best.tokens) / perItem)))
  let trial = at(k)
  while (!fits(trial, f.limit) && k > 1) {
    k = Math.max(1, k - Math.max(1, Math.ceil((trial.tokens - f.limit) / perItem)))
    trial = at(k)
  }
  if (!fits(trial, f.limit)) return { result: best, k: 0 }
  best = trial
  for (let up = 0; up < 3 && k + 1 < hi; up++) {
    const next = at(k + 1)
    if (!fits(next, f.limit)) break
    best = next
    k++
  }
  return { result: best, k }
}

/**
 * Critical sources win space before intentions: when fewer than the critical items are detailed, intentions are
 * trimmed (they stay pending) until the critical items that fit without any are detailed. `undefined` when
 * trimming gains nothing.
 */
const trimIntentions = (f: Fitter, step: Step, found: Found, criticalItems: number): Fitted | undefined => {
  const intentions = Math.min(step.maxIntentions, f.model.due.length)
  if (found.k >= criticalItems || intentions === 0) return undefined
  const without = search(f, { ...step, maxIntentions: 0 })
  if (without === undefined || without.k <= found.k) return undefined
  // Even without intentions the critical items overflow: they get all the space.
  if (without.k < criticalItems) return without.result
  // Otherwise keep the most intentions that leave every critical item detailed (fewer intentions never detail
  // fewer items, so a binary search finds it).
  let best = without
  let low = 1
  let high = intentions - 1
  while (low <= high) {
    const m = (low + high) >> 1
    const trial = search(f, { ...step, maxIntentions: m })
    if (trial !== undefined && trial.k >= criticalItems) {
      best = trial
      low = m + 1
    } else {
      high = m - 1
    }
  }
  return best.result
}

/** The first step of the ladder that fits, at its most detailed. */
const ladder = (f: Fitter): Fitted | undefined => {
  const lineCount = f.prepared.lineItems.length
  const okCount = f.prepared.okLines.length
  let criticalItems = 0
  for (const item of f.prepared.items) if (item.status === "critical") criticalItems++
  for (const step of steps) {
    if (step.listOk && okCount > f.maxLines) continue
    // Each source keeps its own line, with the groups on top, whenever all of them fit; folding is the fallback.
    if (f.prepared.multi.length > 0 && lineCount + (step.listOk ? okCount : 0) <= f.maxLines) {
      const unfolded = f.measure({ ...step, detailed: lineCount, fold: false })
      if (fits(unfolded, f.limit)) return unfolded
    }
    const found = search(f, step)
    if (found === undefined) continue
    // Listing healthy sources is worth nothing while a problem is left out: collapse them first.
    if (step.listOk && found.k < Math.min(f.prepared.items.length, f.maxLines)) continue
    return trimIntentions(f, step, found, criticalItems) ?? found.result
  }
  return undefined
}

/** The last resort: counts only. */
const countsOnly = (f: Fitter): Fitted =>
  f.measure({
    detailed: 0,
    textChars: 40,
    maxNames: 1,
    maxIntentions: 0,
    maxUpcoming: 0,
    listOk: false,
    summaryChars: 100,
    fold: true
  })

/**
 * The most detailed rendering of `model` under `budget` tokens (exclusive), counted with `countTokens`. `byteBound`:
 * whether a rendering's UTF-8 size bounds its count (true for o200k), so that a small one need not be counted.
 */
export const fit = (
  model: Model,
  attention: boolean,
  budget: number,
  countTokens: (text: string) => number,
  byteBound: boolean
): Fitted => {
  const f = makeFitter(model, attention, budget, countTokens, byteBound)
  return everything(f) ?? ladder(f) ?? countsOnly(f)
}
