/**
 * The awareness prompts: `agent_instructions` (the server instructions plus the user's entries tagged
 * `memory-prompt`), `system_status(source)` and `catchup(hours=24)`.
 *
 * @since 0.1.0
 */

import * as McpServer from "effect/ai/McpServer"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type { AwarenessResolver } from "./AwarenessResolver.ts"
import { instructions } from "./Instructions.ts"
import { callByName, type Outcome, toJson } from "./internal/call.ts"
import { registerAll } from "./internal/register.ts"
import * as ToolError from "./ToolError.ts"

const render = (outcome: Outcome): string =>
  Result.isSuccess(outcome) ? toJson(outcome.success, true) : ToolError.toText(outcome.failure)

const entriesOf = (outcome: Outcome): ReadonlyArray<Record<string, unknown>> => {
  if (Result.isFailure(outcome)) return []
  const value = outcome.success as { entries?: unknown } | ReadonlyArray<unknown> | null
  const list = Array.isArray(value) ? value : value !== null && typeof value === "object" ? value.entries : undefined
  return Array.isArray(list) ? (list as ReadonlyArray<Record<string, unknown>>) : []
}

const entryText = (entry: Record<string, unknown>): string => {
  const data = (entry.data ?? {}) as Record<string, unknown>
  const content = data.content ?? entry.content
  const description = data.description ?? entry.description ?? ""
  return typeof content === "string" && content !== "" ? content : String(description)
}

const entryOrder = (entry: Record<string, unknown>): number => {
  const match = /entry\s*(\d+)/i.exec(
    String((entry.data as Record<string, unknown> | undefined)?.description ?? entry.description ?? "")
  )
  return match === null ? Number.MAX_SAFE_INTEGER : Number(match[1])
}

/**
 * Registers the prompts on the `McpServer` in context.
 *
 * @category constructors
 * @since 0.1.0
 */
export const register: Effect.Effect<void, never, McpServer.McpServer | AwarenessResolver> = registerAll((resolver) => [
  McpServer.registerPrompt({
    name: "agent_instructions",
    title: "Agent instructions",
    description: "How to use heed awareness, plus your own instructions (entries tagged memory-prompt).",
    content: () =>
      callByName(resolver, "get_knowledge", { tags: ["memory-prompt"], limit: 100 }).pipe(
        Effect.map((outcome) => {
          const own = [...entriesOf(outcome)].sort((a, b) => entryOrder(a) - entryOrder(b)).map(entryText)
          return own.length === 0 ? instructions : `${instructions}\n\nThe user's instructions:\n${own.join("\n\n")}`
        })
      )
  }),
  McpServer.registerPrompt({
    name: "system_status",
    title: "System status",
    description: "Summarise the status and active alerts of one source.",
    parameters: { source: Schema.String },
    content: ({ source }) =>
      Effect.all([
        callByName(resolver, "get_status", { source }),
        callByName(resolver, "get_alerts", { source, limit: 20 })
      ]).pipe(
        Effect.map(
          ([status, alerts]) =>
            `Summarise the health of '${source}' for the user in two or three sentences: what is wrong (if ` +
            `anything), since when, and what to do next.\n\nStatus:\n${render(status)}\n\nActive alerts:\n${render(
              alerts
            )}`
        )
      )
  }),
  McpServer.registerPrompt({
    name: "catchup",
    title: "Catch up",
    description: "What changed in the last N hours (default 24): briefing, alerts and knowledge.",
    parameters: { hours: Schema.optional(Schema.String) },
    content: ({ hours }) =>
      Effect.gen(function* () {
        const parsed = Number(hours ?? "24")
        const span = Number.isFinite(parsed) && parsed > 0 ? parsed : 24
        const now = yield* Clock.currentTimeMillis
        const since = new Date(now - span * 3_600_000).toISOString()
        const [briefing, alerts, knowledge] = yield* Effect.all([
          callByName(resolver, "get_briefing", {}),
          callByName(resolver, "get_alerts", { since, limit: 20 }),
          callByName(resolver, "get_knowledge", { since, mode: "list", limit: 20 })
        ])
        return (
          `Catch the user up on the last ${span} hours in a short paragraph; mention only what matters.\n\n` +
          `Briefing:\n${render(briefing)}\n\nAlerts since ${since}:\n${render(alerts)}\n\nKnowledge since ${since}:\n${render(
            knowledge
          )}`
        )
      })
  })
])

/**
 * A layer that registers the prompts on the `McpServer` it is provided to.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer: Layer.Layer<never, never, McpServer.McpServer | AwarenessResolver> = Layer.effectDiscard(register)
