/**
 * The context builder: assembles a session's working context (see `SessionContext`) from its state.
 *
 * @since 0.1.0
 */
import type { Effort, LogMessage } from "../Model.ts"
import { type ContextMessage, MEMORY_SECTION, SUMMARIES_HEADER } from "../SessionContext.ts"
import { active, evictedNow, type SessionCore } from "./sessionCore.ts"

/** The ambient window: the last `2 × ambient_window` messages, widened so a tool result never loses its call. */
export const ambientStart = (core: SessionCore) => {
  let start = Math.max(0, core.ambient.length - core.settings.config.ambient_window * 2)
  while (start > 0 && core.ambient[start]!.role === "tool") start--
  return start
}

/** Concluded efforts whose summary line is in the system message: neither expanded nor evicted. */
export const visibleSummaries = (core: SessionCore) => {
  const evicted = evictedNow(core)
  const open = new Set(core.expanded)
  return core.manifest.filter(
    (effort) => effort.status === "concluded" && !open.has(effort.id) && !evicted.has(effort.id)
  )
}

export const summaryLine = (effort: Effort) => `- ${effort.id}: ${effort.summary ?? ""}`

const toContext = (message: LogMessage): ContextMessage => {
  const out: { -readonly [K in keyof ContextMessage]: ContextMessage[K] } = {
    role: message.role,
    content: message.content
  }
  if (message.tool_calls !== undefined) out.tool_calls = message.tool_calls
  if (message.tool_call_id !== undefined) out.tool_call_id = message.tool_call_id
  return out
}

const systemMessage = (core: SessionCore): ContextMessage => {
  const parts = [core.settings.systemPrompt]
  const summaries = visibleSummaries(core)
  if (summaries.length > 0) parts.push(`${SUMMARIES_HEADER}\n${summaries.map(summaryLine).join("\n")}`)
  if (core.manifest.some((effort) => effort.status === "concluded")) parts.push(MEMORY_SECTION)
  return { role: "system", content: parts.join("\n\n") }
}

/**
 * The ordered messages for the next model call: the system message, the ambient window, the expanded efforts
 * (by id), the other open efforts, and the active effort last.
 */
export const buildContext = (core: SessionCore): ReadonlyArray<ContextMessage> => {
  const out: Array<ContextMessage> = [systemMessage(core)]
  const push = (messages: ReadonlyArray<LogMessage> | undefined) => {
    for (const message of messages ?? []) out.push(toContext(message))
  }
  for (let i = ambientStart(core); i < core.ambient.length; i++) out.push(toContext(core.ambient[i]!))
  for (const id of [...core.expanded].sort()) push(core.logs.get(id))
  const current = active(core)
  for (const effort of core.manifest) {
    if (effort.status !== "open" || effort.id === current?.id) continue
    push(core.logs.get(effort.id))
  }
  if (current !== undefined) push(core.logs.get(current.id))
  return out
}
