/**
 * The working context a session hands to the model: one system message (the tool-usage rules, the visible
 * concluded summaries and the memory paragraph), then the ambient window, the expanded efforts' logs, the other
 * open efforts' logs and the active effort's log last.
 *
 * @since 0.1.0
 */
import type { ToolCall } from "./Model.ts"

/**
 * A message of the working context.
 *
 * @category models
 * @since 0.1.0
 */
export interface ContextMessage {
  readonly role: "system" | "user" | "assistant" | "tool"
  readonly content: string
  readonly tool_calls?: ReadonlyArray<ToolCall>
  readonly tool_call_id?: string
}

/**
 * The default system prompt: how to use the effort tools.
 *
 * @category constants
 * @since 0.1.0
 */
export const DEFAULT_SYSTEM_PROMPT = [
  "You work in efforts: an effort is a piece of work that can be concluded.",
  "- open_effort when the user starts such work; never for greetings or one-off questions.",
  "- While an effort is active, follow-ups and sub-topics belong to it.",
  "- close_effort only when the user says the work is done or resolved, never to pause or switch.",
  "- expand_effort when a concluded effort's summary cannot answer the question; collapse_effort when done.",
  "  Expanded efforts also collapse on their own when the conversation moves on.",
  "- search_efforts when the topic is not among the visible summaries; reopen_effort when the user names one.",
  "When in doubt, answer without calling tools."
].join("\n")

/**
 * The `## Memory` paragraph added whenever concluded efforts exist.
 *
 * @category constants
 * @since 0.1.0
 */
export const MEMORY_SECTION =
  "## Memory\nOnly summaries referenced recently are listed above. Older concluded efforts still exist: " +
  "find them with search_efforts and load one in full with expand_effort."

/**
 * The header before the summary lines in the system message.
 *
 * @category constants
 * @since 0.1.0
 */
export const SUMMARIES_HEADER = "Concluded efforts (summaries only):"
