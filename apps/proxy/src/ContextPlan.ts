/**
 * The context-management decision for one request, as a pure function of the request's {@link Transcript}, the
 * session's {@link SessionState} and the settings: which efforts go upstream whole and which as their gist.
 *
 * 1. **Efforts**: every unit of at least `effortTokens` tokens (tool results and message texts; never the system
 *    prompt).
 * 2. **References**: each message not scanned before is matched (`@heed/decay` reference detection) against the
 *    efforts before it; a match sets the effort's last referenced turn, and restores it when collapsed. Keywords
 *    that three or more efforts of the request share do not count (`Efforts.commonKeywords`).
 * 3. **Decay**: an effort unreferenced for more than `decayTurns` turns is due; due efforts collapse together once
 *    they free at least `collapseAtLeast` tokens (batched, so prompt-cache prefixes break rarely).
 * 4. **Budget**: with `maxContext`, while the request is over it, the least recently referenced (then oldest)
 *    whole efforts collapse, never one in the last `keepTurns` turns, referenced in them, or pinned.
 *
 * @since 0.1.0
 */
import { References } from "@heed/decay"
import * as Efforts from "./Efforts.ts"
import type { EffortState, SessionState } from "./SessionState.ts"
import type { Transcript, Unit } from "./Transcript.ts"

/**
 * Context-management settings.
 *
 * @category models
 * @since 0.1.0
 */
export interface PlanConfig {
  /** Units of at least this many tokens are efforts (default 500). */
  readonly effortTokens: number
  /** Turns without a reference after which an effort is due to collapse (default 3). */
  readonly decayTurns: number
  /** The last turns never collapsed by the budget (default 2). */
  readonly keepTurns: number
  /** Tokens a batch of decay collapses must free at least (default 5,000). */
  readonly collapseAtLeast: number
  /** The most tokens a request may send upstream (the allocator backstop); none by default. */
  readonly maxContext: number | undefined
  /** Distinct keyword hits that make a reference (default 2). */
  readonly minKeywordOverlap: number
}

/**
 * The default settings.
 *
 * @category constants
 * @since 0.1.0
 */
export const defaults: PlanConfig = {
  effortTokens: 500,
  decayTurns: 3,
  keepTurns: 2,
  collapseAtLeast: 5_000,
  maxContext: undefined,
  minKeywordOverlap: References.DEFAULT_MIN_KEYWORD_OVERLAP
}

/**
 * Text that pins a unit: a unit containing it is never collapsed.
 *
 * @category constants
 * @since 0.1.0
 */
export const PIN = "[heed:pin]"

/**
 * Tokens each message adds beyond its texts (role and framing), as OpenAI's counting guide does.
 *
 * @category constants
 * @since 0.1.0
 */
export const MESSAGE_OVERHEAD = 4

/**
 * What the engine knows about one effort's content (computed once per process).
 *
 * @category models
 * @since 0.1.0
 */
export interface Info {
  readonly replacement: string
  readonly replacementTokens: number
  readonly prepared: Efforts.Prepared
  readonly pinned: boolean
}

/**
 * The caches a plan needs: a (cached) token counter and each effort's gist, marker and prepared keywords.
 *
 * @category models
 * @since 0.1.0
 */
export interface Engine {
  readonly count: Efforts.Count
  readonly info: (id: string, unit: Unit, text: string, tokens: number) => Info
}

/**
 * An engine over a token counter.
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeEngine = (count: Efforts.Count, capacity = 20_000): Engine => {
  const cached = Efforts.cachedCount(count)
  let infos = new Map<string, Info>()
  let previous = new Map<string, Info>()
  return {
    count: cached,
    info: (id, unit, text, tokens) => {
      let info = infos.get(id) ?? previous.get(id)
      if (info === undefined) {
        const gistText = Efforts.gist(text, cached, unit.kind)
        const replacement = Efforts.collapsedText(id, tokens, gistText)
        info = {
          replacement,
          replacementTokens: cached(replacement),
          prepared: Efforts.prepare(id, unit, text, gistText),
          pinned: text.includes(PIN)
        }
      }
      if (!infos.has(id)) {
        if (infos.size >= capacity / 2) {
          previous = infos
          infos = new Map()
        }
        infos.set(id, info)
      }
      return info
    }
  }
}

/**
 * The decision for one request.
 *
 * @category models
 * @since 0.1.0
 */
export interface Plan {
  /** The session's next state. */
  readonly state: SessionState
  /** The text replacing each collapsed unit, by unit key. */
  readonly replacements: ReadonlyMap<string, string>
  /** Tokens the client sent (texts, tool definitions and per-message framing). */
  readonly tokensIn: number
  /** Tokens going upstream with the replacements (the `heed_expand` tool not included). */
  readonly tokensSent: number
  /** Ids of the efforts sent collapsed. */
  readonly collapsed: ReadonlyArray<string>
  /** Ids restored this request because a new message referred to them. */
  readonly restored: ReadonlyArray<string>
  /** Ids collapsed for the first time (or again) this request. */
  readonly newlyCollapsed: ReadonlyArray<string>
}

/**
 * Input tokens of a transcript as the proxy counts them: the system texts, every message text, the tool
 * definitions, and {@link MESSAGE_OVERHEAD} per message.
 *
 * @category getters
 * @since 0.1.0
 */
export const tokensOf = (transcript: Transcript, count: Efforts.Count): number => {
  let total = transcript.toolsJson.length === 0 ? 0 : count(transcript.toolsJson)
  if (transcript.api === "anthropic") for (const text of transcript.system) total += count(text)
  for (const message of transcript.messages) {
    total += MESSAGE_OVERHEAD
    for (const text of message.texts) total += count(text)
  }
  return total
}

interface Present {
  readonly unit: Unit
  readonly text: string
  readonly tokens: number
  readonly info: Info
}

/**
 * Plans one request. `expand` holds effort ids the model asked for with `heed_expand` (restored whole).
 *
 * @category combinators
 * @since 0.1.0
 */
export const plan = (
  transcript: Transcript,
  state: SessionState,
  config: PlanConfig,
  engine: Engine,
  expand: ReadonlySet<string> = new Set()
): Plan => {
  const { count } = engine
  const T = transcript.turn
  const messages = transcript.messages
  const efforts: Record<string, EffortState> = { ...state.efforts }
  const present = new Map<string, Present>()
  const byMessage: Array<Array<string>> = messages.map(() => [])
  messages.forEach((message, i) => {
    if (message.role === "system" || message.role === "developer") return
    for (const unit of message.units) {
      let tokens = 0
      for (const text of unit.texts) tokens += count(text)
      if (tokens < config.effortTokens) continue
      const text = Efforts.textOf(unit)
      const id = Efforts.idOf(unit, text)
      if (present.has(id)) continue
      present.set(id, { unit, text, tokens, info: engine.info(id, unit, text, tokens) })
      byMessage[i]!.push(id)
      if (efforts[id] === undefined) {
        efforts[id] = {
          id,
          message: i,
          kind: unit.kind,
          turn: message.turn,
          tokens,
          lastReferenced: message.turn,
          collapsed: false,
          expands: 0,
          restores: 0
        }
      }
    }
  })
  const update = (id: string, change: Partial<EffortState>) => {
    efforts[id] = { ...efforts[id]!, ...change }
  }

  // References from the messages not scanned before.
  const restored: Array<string> = []
  const start = state.scanned <= messages.length ? state.scanned : 0
  if (present.size > 0) {
    const common = Efforts.commonKeywords([...present.values()].map((item) => item.info.prepared))
    const earlier: Array<string> = []
    for (let j = 0; j < start && j < messages.length; j++) earlier.push(...byMessage[j]!)
    for (let j = start; j < messages.length; j++) {
      const message = messages[j]!
      if (earlier.length > 0 && message.references.length > 0) {
        const prepared = References.prepareMessage(message.references.join("\n"))
        for (const id of earlier) {
          if (!Efforts.refersTo(prepared, present.get(id)!.info.prepared, config.minKeywordOverlap, common)) continue
          const effort = efforts[id]!
          if (effort.collapsed) {
            restored.push(id)
            update(id, {
              collapsed: false,
              restores: effort.restores + 1,
              lastReferenced: Math.max(effort.lastReferenced, message.turn)
            })
          } else if (message.turn > effort.lastReferenced) update(id, { lastReferenced: message.turn })
        }
      }
      earlier.push(...byMessage[j]!)
    }
  }
  for (const id of expand) {
    const effort = efforts[id]
    if (effort !== undefined && present.has(id)) {
      update(id, { collapsed: false, expands: effort.expands + 1, lastReferenced: T })
    }
  }

  // Decay, batched.
  const recent = T - config.keepTurns
  const newlyCollapsed: Array<string> = []
  const due: Array<string> = []
  let freed = 0
  for (const [id, item] of present) {
    const effort = efforts[id]!
    if (effort.collapsed || item.info.pinned || messages[effort.message]!.turn > recent) continue
    if (T - effort.lastReferenced <= config.decayTurns) continue
    due.push(id)
    freed += item.tokens - item.info.replacementTokens
  }
  if (due.length > 0 && freed >= config.collapseAtLeast) {
    for (const id of due) {
      update(id, { collapsed: true, reason: "decay", collapsedAt: T })
      newlyCollapsed.push(id)
    }
  }

  const tokensIn = tokensOf(transcript, count)
  let tokensSent = tokensIn
  for (const [id, item] of present) {
    if (efforts[id]!.collapsed) tokensSent -= item.tokens - item.info.replacementTokens
  }

  // The budget backstop: least recently referenced, then oldest, outside the protected recent turns.
  if (config.maxContext !== undefined && tokensSent > config.maxContext) {
    const candidates = [...present.entries()]
      .filter(([id, item]) => {
        const effort = efforts[id]!
        return (
          !effort.collapsed &&
          !item.info.pinned &&
          messages[effort.message]!.turn <= recent &&
          effort.lastReferenced <= recent &&
          item.tokens > item.info.replacementTokens
        )
      })
      .sort(
        ([a], [b]) =>
          efforts[a]!.lastReferenced - efforts[b]!.lastReferenced || efforts[a]!.message - efforts[b]!.message
      )
    for (const [id, item] of candidates) {
      if (tokensSent <= config.maxContext) break
      update(id, { collapsed: true, reason: "budget", collapsedAt: T })
      newlyCollapsed.push(id)
      tokensSent -= item.tokens - item.info.replacementTokens
    }
  }

  const replacements = new Map<string, string>()
  const collapsed: Array<string> = []
  for (const [id, item] of present) {
    if (!efforts[id]!.collapsed) continue
    replacements.set(item.unit.key, item.info.replacement)
    collapsed.push(id)
  }
  return {
    state: {
      ...state,
      turn: T,
      scanned: messages.length,
      efforts,
      requests: state.requests + 1,
      tokensIn: state.tokensIn + tokensIn,
      tokensSent: state.tokensSent + tokensSent
    },
    replacements,
    tokensIn,
    tokensSent,
    collapsed,
    restored,
    newlyCollapsed
  }
}
