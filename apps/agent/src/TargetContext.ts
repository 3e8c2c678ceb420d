/**
 * Decay-managed context per conversation (`@heed/decay`): every channel, DM and thread is an effort, named as
 * prompts name it (`#dev`, `DM:alice`, `#dev thread:deploy`). Its exchanges are kept in a bounded log; when the
 * conversation returns to it its log expands into the prompt, and after `decay_threshold` turns in which no
 * exchange refers to it (by name or by the keywords of its summary) it collapses back to a one-line summary, so
 * the prompt stays bounded however many conversations the agent has.
 *
 * Built on decay's pure API (`Decay.check`, `Decay.evicted`) rather than its `Session`: a Session serves one
 * conversation in which the model opens, switches and concludes efforts with tools. It routes each exchange to
 * the effort active when the turn began and logs the banners of effort tools into the next turn's text, where
 * their effort names count as references. Here the transport, not the model, knows which conversation a turn
 * belongs to, turns of different conversations interleave, and nothing but the exchange itself may count as a
 * reference; the pure functions give exactly that with a few lines of bookkeeping below.
 *
 * @since 0.1.0
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Decay, type Model, Summarizer } from "@heed/decay"
import type { TokenCounter } from "@heed/schema"

/**
 * The effort of a conversation: the target (`#dev`, `DM:alice`), or `#dev thread:deploy` for a thread.
 *
 * @category constructors
 * @since 0.1.0
 */
export const effortId = (target: string, thread: string | undefined): string =>
  thread === undefined ? target : `${target} thread:${thread}`

/**
 * One exchange on a target: what the agent was shown (the quoted lines) and what it answered.
 *
 * @category models
 * @since 0.1.0
 */
export interface Exchange {
  readonly incoming: string
  readonly reply: string
  /**
   * What the exchange is about, for its summary and for reference detection: the messages' text without
   * senders and without the mention of the agent (default: `incoming`). Nicks would otherwise make every
   * exchange look related to every other.
   */
  readonly topic?: string | undefined
}

/**
 * One message of a runner's prompt.
 *
 * @category models
 * @since 0.1.0
 */
export interface PromptMessage {
  readonly role: "system" | "user" | "assistant"
  readonly content: string
}

/**
 * Settings (in-process, so camelCase; the config file's `context` section names them `decay_threshold` and
 * `log_exchanges`): `decayThreshold` (turns without reference before a log collapses, default 3) and `logExchanges`
 * (exchanges kept per target, default 20).
 *
 * @category models
 * @since 0.1.0
 */
export interface TargetContextOptions {
  readonly decayThreshold?: number | undefined
  readonly logExchanges?: number | undefined
  /** A file to keep the context in across restarts (written after every turn). */
  readonly file?: string | undefined
}

interface Effort {
  summary: string | null
  log: Array<Exchange>
}

interface Stored {
  readonly turn: number
  readonly efforts: Record<string, Effort>
  readonly expanded: ReadonlyArray<string>
  readonly last_referenced_turn: Record<string, number>
  readonly summary_last_referenced_turn: Record<string, number>
}

const SUMMARIES_HEADER = "Earlier conversations (summaries only):"

/**
 * The context of every conversation (effort) of one agent.
 *
 * @category models
 * @since 0.1.0
 */
export interface TargetContext {
  /**
   * The messages for a turn in `effort` (see {@link effortId}): the system prompt with the summaries of collapsed
   * efforts, the logs of the other expanded efforts, then `effort`'s own log and the new prompt. Expands `effort`
   * first (the conversation returned to it).
   */
  readonly messages: (effort: string, system: string, prompt: string) => ReadonlyArray<PromptMessage>
  /** Records the turn's exchange in `effort` and runs decay; returns the efforts that collapsed. */
  readonly record: (effort: string, exchange: Exchange) => ReadonlyArray<string>
  /** The efforts whose logs are expanded. */
  readonly expanded: () => ReadonlyArray<string>
  /** Completed turns. */
  readonly turn: () => number
  /** Writes the context file now (no-op without a file). */
  readonly save: () => void
}

/**
 * Renders prompt messages as one text (for runners that take text, like the `command` runner).
 *
 * @category combinators
 * @since 0.1.0
 */
export const render = (messages: ReadonlyArray<PromptMessage>): string =>
  messages
    .map((message) => (message.role === "system" ? message.content : `${message.role}: ${message.content}`))
    .join("\n\n")

/**
 * Tokens of a prompt (every message's content).
 *
 * @category getters
 * @since 0.1.0
 */
export const tokens = (counter: TokenCounter.TokenCounterShape, messages: ReadonlyArray<PromptMessage>): number =>
  messages.reduce((sum, message) => sum + counter.count(message.content), 0)

const load = (file: string | undefined): Stored | undefined => {
  if (file === undefined) return undefined
  try {
    return JSON.parse(readFileSync(file, "utf8")) as Stored
  } catch {
    return undefined
  }
}

const logMessages = (log: ReadonlyArray<Exchange>): Array<Model.LogMessage> =>
  log.flatMap((exchange) => [
    { role: "user" as const, content: exchange.topic ?? exchange.incoming, ts: "" },
    { role: "assistant" as const, content: exchange.reply, ts: "" }
  ])

/** Replaces `file` with `data` in one rename, so a crash never leaves half a file. */
const writeStored = (file: string, data: Stored) => {
  mkdirSync(join(file, ".."), { recursive: true })
  writeFileSync(`${file}.tmp`, JSON.stringify(data))
  renameSync(`${file}.tmp`, file)
}

/**
 * The prompt for a turn on `effort`: the system text followed by the summaries of the efforts neither expanded nor
 * evicted, the logs of the expanded efforts (the others sorted, `effort` last), then `prompt`.
 */
const promptOf = (
  efforts: ReadonlyMap<string, Effort>,
  expanded: ReadonlyArray<string>,
  evicted: ReadonlySet<string>,
  effort: string,
  system: string,
  prompt: string
): ReadonlyArray<PromptMessage> => {
  const summaries = [...efforts]
    .filter(([id, entry]) => !expanded.includes(id) && !evicted.has(id) && entry.summary !== null)
    .map(([id, entry]) => `- ${id}: ${entry.summary}`)
  const out: Array<PromptMessage> = [
    {
      role: "system",
      content: summaries.length === 0 ? system : `${system}\n\n${SUMMARIES_HEADER}\n${summaries.join("\n")}`
    }
  ]
  const others = expanded.filter((id) => id !== effort).sort()
  for (const id of [...others, ...(efforts.has(effort) ? [effort] : [])]) {
    for (const exchange of efforts.get(id)!.log) {
      out.push(
        { role: "user", content: `[${id}] ${exchange.incoming}` },
        { role: "assistant", content: exchange.reply }
      )
    }
  }
  out.push({ role: "user", content: prompt })
  return out
}

/**
 * Builds the context (loading `options.file` when it exists).
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (options: TargetContextOptions = {}): TargetContext => {
  const config = Decay.resolveConfig(
    options.decayThreshold === undefined ? {} : { decay_threshold: options.decayThreshold }
  )
  const keep = Math.max(1, options.logExchanges ?? 20)
  const stored = load(options.file)
  const efforts = new Map<string, Effort>(Object.entries(stored?.efforts ?? {}))
  let expanded: Array<string> = [...(stored?.expanded ?? [])].filter((id) => efforts.has(id))
  let lastReferenced: Record<string, number> = { ...stored?.last_referenced_turn }
  let summaryReferenced: Record<string, number> = { ...stored?.summary_last_referenced_turn }
  let turn = stored?.turn ?? 0
  const cache = Decay.makeCache()

  const state = (): Decay.DecayState => ({
    efforts: [...efforts].map(([id, effort]) => ({ id, status: "concluded" as const, summary: effort.summary })),
    expanded,
    last_referenced_turn: lastReferenced,
    summary_last_referenced_turn: summaryReferenced
  })

  const save = () => {
    if (options.file === undefined) return
    const data: Stored = {
      turn,
      efforts: Object.fromEntries(efforts),
      expanded,
      last_referenced_turn: lastReferenced,
      summary_last_referenced_turn: summaryReferenced
    }
    writeStored(options.file, data)
  }

  const messages = (effort: string, system: string, prompt: string): ReadonlyArray<PromptMessage> => {
    if (efforts.has(effort) && !expanded.includes(effort)) {
      expanded = [...expanded, effort]
      lastReferenced = { ...lastReferenced, [effort]: turn + 1 }
    }
    return promptOf(efforts, expanded, Decay.evicted(state(), turn + 1, config), effort, system, prompt)
  }

  const record = (effort: string, exchange: Exchange): ReadonlyArray<string> => {
    const entry = efforts.get(effort) ?? { summary: null, log: [] }
    entry.log.push(exchange)
    if (entry.log.length > keep) entry.log.splice(0, entry.log.length - keep)
    entry.summary = Summarizer.extractiveSummary(logMessages(entry.log), 200) || null
    if (!efforts.has(effort)) {
      efforts.set(effort, entry)
      expanded = [...expanded, effort]
    }
    turn += 1
    lastReferenced = { ...lastReferenced, [effort]: turn }
    // The turn refers to its own conversation by taking place there; what it says decides which others it
    // refers to (a thread's turn does not keep its channel's log alive by naming the channel).
    const result = Decay.check(state(), turn, exchange.topic ?? exchange.incoming, exchange.reply, config, cache)
    expanded = [...result.state.expanded]
    lastReferenced = { ...result.state.last_referenced_turn }
    summaryReferenced = { ...result.state.summary_last_referenced_turn, [effort]: turn }
    save()
    return result.decayed
  }

  return { messages, record, expanded: () => [...expanded], turn: () => turn, save }
}
