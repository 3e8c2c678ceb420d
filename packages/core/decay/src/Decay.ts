/**
 * Salience decay (CCM slice 3) and summary eviction (slice 4) as pure functions over plain data.
 *
 * After each turn, every expanded effort that neither the user message nor the assistant message references is
 * checked: once `turn − last_referenced_turn ≥ decay_threshold` it collapses back to its summary. Concluded
 * summaries that go unreferenced for `summary_eviction_threshold` turns leave the system prompt (they stay
 * searchable). heed adds per-effort thresholds and an optional token budget under which the largest idle
 * expansions collapse first.
 *
 * @since 0.1.0
 */
import { normalizeOverlap, normalizeTurns } from "./internal/config.ts"
import * as References from "./References.ts"

/**
 * Decay settings. Field names follow upstream's constants; every field is optional in {@link check}.
 *
 * @category models
 * @since 0.1.0
 */
export interface DecayConfig {
  /** Turns without a reference before an expanded effort auto-collapses (upstream `DECAY_THRESHOLD`, 3). */
  readonly decay_threshold: number
  /** Distinct keyword hits that make a reference (upstream `MIN_KEYWORD_OVERLAP`, 2). */
  readonly min_keyword_overlap: number
  /** Turns without a reference before a summary leaves the system prompt (`SUMMARY_EVICTION_THRESHOLD`, 20). */
  readonly summary_eviction_threshold: number
  /** Ambient exchanges kept in the working context (`AMBIENT_WINDOW`, 10 exchanges = 20 messages). */
  readonly ambient_window: number
  /**
   * Optional token budget for all expansions together. When the expanded efforts exceed it after the threshold
   * check, idle ones (not referenced this turn) collapse largest first until the rest fits. Needs
   * `expanded_tokens` in the state.
   */
  readonly token_budget?: number | undefined
}

/**
 * Turns without a reference before an expanded effort auto-collapses (upstream constant).
 *
 * @category constants
 * @since 0.1.0
 */
export const DECAY_THRESHOLD = 3

/**
 * Distinct keyword hits that make a reference (upstream constant).
 *
 * @category constants
 * @since 0.1.0
 */
export const MIN_KEYWORD_OVERLAP = 2

/**
 * Turns without a reference before a concluded summary leaves the system prompt (upstream constant).
 *
 * @category constants
 * @since 0.1.0
 */
export const SUMMARY_EVICTION_THRESHOLD = 20

/**
 * Ambient exchanges kept in the working context (upstream constant; 2 messages each).
 *
 * @category constants
 * @since 0.1.0
 */
export const AMBIENT_WINDOW = 10

/**
 * The upstream defaults: `decay_threshold` 3, `min_keyword_overlap` 2, `summary_eviction_threshold` 20,
 * `ambient_window` 10, no token budget.
 *
 * @category constants
 * @since 0.1.0
 */
export const defaults: DecayConfig = {
  decay_threshold: DECAY_THRESHOLD,
  min_keyword_overlap: MIN_KEYWORD_OVERLAP,
  summary_eviction_threshold: SUMMARY_EVICTION_THRESHOLD,
  ambient_window: AMBIENT_WINDOW
}

/**
 * Fills a partial config with {@link defaults}. Values that are not finite numbers of at least 1 fall back to
 * the default, so a bad setting never disables decay or throws.
 *
 * @category constructors
 * @since 0.1.0
 */
export const resolveConfig = (config?: Partial<DecayConfig>): DecayConfig => {
  const budget = config?.token_budget
  return {
    decay_threshold: normalizeTurns(config?.decay_threshold, defaults.decay_threshold),
    min_keyword_overlap: normalizeOverlap(config?.min_keyword_overlap),
    summary_eviction_threshold: normalizeTurns(config?.summary_eviction_threshold, defaults.summary_eviction_threshold),
    ambient_window: normalizeTurns(config?.ambient_window, defaults.ambient_window),
    token_budget: typeof budget === "number" && Number.isFinite(budget) && budget >= 0 ? budget : undefined
  }
}

/**
 * A manifest entry as far as decay needs it: the summary gives the keywords.
 *
 * @category models
 * @since 0.1.0
 */
export interface EffortEntry {
  /** The effort id. */
  readonly id: string
  /** `open` or `concluded`. Open efforts never decay. */
  readonly status: "open" | "concluded"
  /** The summary of a concluded effort, `null` while open. */
  readonly summary: string | null
}

/**
 * The decay state (upstream `expanded.json` plus the manifest entries).
 *
 * @category models
 * @since 0.1.0
 */
export interface DecayState {
  /** The manifest entries. */
  readonly efforts: ReadonlyArray<EffortEntry>
  /** Ids of the expanded efforts. */
  readonly expanded: ReadonlyArray<string>
  /** The turn each expanded effort was last referenced (a missing entry counts as turn 0). */
  readonly last_referenced_turn: Readonly<Record<string, number>>
  /** The turn each concluded summary was last referenced (slice 4 eviction). */
  readonly summary_last_referenced_turn: Readonly<Record<string, number>>
  /** Per-effort decay thresholds overriding `decay_threshold` (heed). */
  readonly decay_thresholds?: Readonly<Record<string, number>> | undefined
  /** Tokens each expanded effort adds to the context, for `token_budget` (heed). */
  readonly expanded_tokens?: Readonly<Record<string, number>> | undefined
}

/**
 * One collapse made by {@link check}.
 *
 * @category models
 * @since 0.1.0
 */
export interface Collapse {
  /** The effort id. */
  readonly id: string
  /** Turns since the effort was last referenced. */
  readonly inactive_turns: number
  /** `threshold` for an ordinary decay, `token_budget` when the budget forced it. */
  readonly reason: "threshold" | "token_budget"
}

/**
 * The result of {@link check}.
 *
 * @category models
 * @since 0.1.0
 */
export interface CheckResult {
  /** The new state (the input is never mutated). */
  readonly state: DecayState
  /** Ids of the efforts that collapsed this turn, in collapse order. */
  readonly decayed: ReadonlyArray<string>
  /** Details of each collapse, same order as `decayed`. */
  readonly collapses: ReadonlyArray<Collapse>
}

/**
 * Caches of prepared efforts, so repeated checks do not re-extract keywords. Keyed by id; an entry is reused
 * while the summary is unchanged.
 *
 * @category models
 * @since 0.1.0
 */
export type PreparedCache = Map<
  string,
  { readonly summary: string | null; readonly prepared: References.PreparedEffort }
>

/**
 * Makes an empty {@link PreparedCache}.
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeCache = (): PreparedCache => new Map()

const prepared = (cache: PreparedCache, id: string, summary: string | null): References.PreparedEffort => {
  const hit = cache.get(id)
  if (hit !== undefined && hit.summary === summary) return hit.prepared
  const value = References.prepareEffort(id, References.extractKeywords(summary))
  cache.set(id, { summary, prepared: value })
  return value
}

/**
 * The effective decay threshold of one effort: its per-effort override, else the session's.
 *
 * @category getters
 * @since 0.1.0
 */
export const thresholdOf = (state: DecayState, id: string, config: DecayConfig): number =>
  normalizeTurns(state.decay_thresholds?.[id], config.decay_threshold)

/**
 * The per-turn decay check, run after the turn's messages are logged. `turn` is the turn just completed.
 *
 * For every expanded effort: if the user or the assistant message references it, `last_referenced_turn`
 * becomes `turn`; otherwise, once `turn − last_referenced_turn ≥ threshold`, it collapses and its entry is
 * dropped. Open efforts never decay. Then, if `config.token_budget` is set, idle expansions (not referenced
 * this turn) collapse largest first until the expansions fit. Finally every concluded summary referenced this
 * turn records `summary_last_referenced_turn = turn`, and summaries seen for the first time get `turn` as a
 * grace start.
 *
 * Pure: the input state is not changed. `config` may be partial; {@link defaults} fill the rest.
 *
 * @category combinators
 * @since 0.1.0
 */
export const check = (
  state: DecayState,
  turn: number,
  userMessage: string,
  assistantMessage: string,
  config?: Partial<DecayConfig>,
  cache: PreparedCache = makeCache()
): CheckResult =>
  checkPrepared(
    state,
    turn,
    [References.prepareMessage(userMessage), References.prepareMessage(assistantMessage)],
    resolveConfig(config),
    cache
  )

/**
 * {@link check} over messages already prepared with `References.prepareMessage` and a resolved config.
 *
 * @category combinators
 * @since 0.1.0
 */
export const checkPrepared = (
  state: DecayState,
  turn: number,
  messages: ReadonlyArray<References.PreparedMessage>,
  config: DecayConfig,
  cache: PreparedCache = makeCache()
): CheckResult => {
  const byId = new Map<string, EffortEntry>()
  // Tolerate missing fields from untyped callers: treat them as empty.
  const efforts = state.efforts ?? []
  for (const effort of efforts) byId.set(effort.id, effort)
  const isRef = referenceTest(messages, cache, config.min_keyword_overlap)
  const pass = thresholdPass(state, byId, turn, config, isRef)
  const expanded = budgetPass(state, byId, turn, config, pass)
  const summaryRefs: Record<string, number> = { ...state.summary_last_referenced_turn }
  for (const effort of efforts) {
    if (effort.status !== "concluded") continue
    if (isRef(effort.id, effort.summary) || summaryRefs[effort.id] === undefined) summaryRefs[effort.id] = turn
  }
  const sizes = state.expanded_tokens
  let expandedTokens = sizes
  if (sizes !== undefined && pass.decayed.length > 0) {
    const next: Record<string, number> = {}
    for (const id of expanded) if (sizes[id] !== undefined) next[id] = sizes[id]
    expandedTokens = next
  }
  return {
    state: {
      ...state,
      expanded,
      last_referenced_turn: pass.lastReferenced,
      summary_last_referenced_turn: summaryRefs,
      ...(expandedTokens === undefined ? {} : { expanded_tokens: expandedTokens })
    },
    decayed: pass.decayed,
    collapses: pass.collapses
  }
}

/** Whether this turn's messages reference an effort, answered once per id. */
const referenceTest = (
  messages: ReadonlyArray<References.PreparedMessage>,
  cache: PreparedCache,
  overlap: number
): ((id: string, summary: string | null) => boolean) => {
  const seenRefs = new Map<string, boolean>()
  return (id, summary) => {
    const known = seenRefs.get(id)
    if (known !== undefined) return known
    const effort = prepared(cache, id, summary)
    let referenced = false
    for (const message of messages) {
      if (References.matches(message, effort, overlap)) {
        referenced = true
        break
      }
    }
    seenRefs.set(id, referenced)
    return referenced
  }
}

/** The outcome of the threshold pass over the expanded efforts. */
interface ThresholdPass {
  readonly lastReferenced: Record<string, number>
  readonly remaining: Array<string>
  readonly decayed: Array<string>
  readonly collapses: Array<Collapse>
  readonly referencedNow: Set<string>
}

/** Referenced efforts record `turn`; the others collapse once idle for their threshold; open efforts stay. */
const thresholdPass = (
  state: DecayState,
  byId: ReadonlyMap<string, EffortEntry>,
  turn: number,
  config: DecayConfig,
  isRef: (id: string, summary: string | null) => boolean
): ThresholdPass => {
  const lastReferencedIn = state.last_referenced_turn ?? {}
  const pass: ThresholdPass = {
    lastReferenced: {},
    remaining: [],
    decayed: [],
    collapses: [],
    referencedNow: new Set()
  }
  const seen = new Set<string>()
  for (const id of state.expanded ?? []) {
    if (seen.has(id)) continue
    seen.add(id)
    const entry = byId.get(id)
    const previous = lastReferencedIn[id]
    const keep = () => {
      pass.remaining.push(id)
      if (previous !== undefined) pass.lastReferenced[id] = previous
    }
    // Open efforts never decay; keep them untouched.
    if (entry?.status === "open") keep()
    else if (isRef(id, entry?.summary ?? null)) {
      pass.referencedNow.add(id)
      pass.lastReferenced[id] = turn
      pass.remaining.push(id)
    } else {
      const since = turn - (typeof previous === "number" && Number.isFinite(previous) ? previous : 0)
      if (since < thresholdOf(state, id, config)) keep()
      else {
        pass.decayed.push(id)
        pass.collapses.push({ id, inactive_turns: since, reason: "threshold" })
      }
    }
  }
  return pass
}

/**
 * Over `token_budget`, idle expansions (not referenced this turn, not open) collapse largest first (then least
 * recently referenced, then by id) until the expansions fit. Returns the expanded ids that stay.
 */
const budgetPass = (
  state: DecayState,
  byId: ReadonlyMap<string, EffortEntry>,
  turn: number,
  config: DecayConfig,
  pass: ThresholdPass
): Array<string> => {
  const { remaining, lastReferenced } = pass
  const sizes = state.expanded_tokens
  if (config.token_budget === undefined || sizes === undefined) return remaining
  const sizeOf = (id: string) => {
    const size = sizes[id]
    return typeof size === "number" && Number.isFinite(size) && size > 0 ? size : 0
  }
  let total = 0
  for (const id of remaining) total += sizeOf(id)
  if (total <= config.token_budget) return remaining
  const idle = remaining
    .filter((id) => !pass.referencedNow.has(id) && byId.get(id)?.status !== "open")
    .sort(
      (a, b) =>
        sizeOf(b) - sizeOf(a) || (lastReferenced[a] ?? 0) - (lastReferenced[b] ?? 0) || (a < b ? -1 : a > b ? 1 : 0)
    )
  const dropped = new Set<string>()
  for (const id of idle) {
    if (total <= config.token_budget) break
    if (sizeOf(id) === 0) continue
    total -= sizeOf(id)
    dropped.add(id)
    pass.decayed.push(id)
    pass.collapses.push({ id, inactive_turns: turn - (lastReferenced[id] ?? 0), reason: "token_budget" })
    delete lastReferenced[id]
  }
  return dropped.size > 0 ? remaining.filter((id) => !dropped.has(id)) : remaining
}

/**
 * Ids of concluded summaries evicted from the system prompt at `turn`: those with an entry in
 * `summary_last_referenced_turn` and `turn − entry ≥ summary_eviction_threshold` (inclusive). Ids without an
 * entry are never evicted.
 *
 * @category combinators
 * @since 0.1.0
 */
export const evicted = (state: DecayState, turn: number, config?: Partial<DecayConfig>): ReadonlySet<string> => {
  const threshold = normalizeTurns(config?.summary_eviction_threshold, defaults.summary_eviction_threshold)
  const out = new Set<string>()
  for (const effort of state.efforts ?? []) {
    if (effort.status !== "concluded") continue
    const last = state.summary_last_referenced_turn?.[effort.id]
    if (typeof last === "number" && turn - last >= threshold) out.add(effort.id)
  }
  return out
}
