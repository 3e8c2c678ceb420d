/**
 * A session's settings: validation of the user's `SessionConfig` (a typed error naming the field) and the
 * resolved settings a running session reads.
 *
 * @since 0.1.0
 */
import type { TokenCounter } from "@heed/schema"
import * as Decay from "../Decay.ts"
import type { SessionConfig } from "../Session.ts"
import { DEFAULT_SYSTEM_PROMPT, MEMORY_SECTION, SUMMARIES_HEADER } from "../SessionContext.ts"
import { SessionConfigError } from "../SessionError.ts"

/** A whole number of turns, at least 1. */
export const validThreshold = (value: unknown): value is number =>
  typeof value === "number" && Number.isInteger(value) && value >= 1

/** The first problem of `config`, or `undefined` when it is valid. */
export const checkConfig = (config: SessionConfig): SessionConfigError | undefined => {
  const turns = ["decay_threshold", "min_keyword_overlap", "summary_eviction_threshold", "ambient_window"] as const
  for (const key of turns) {
    const value = config[key]
    if (value !== undefined && !validThreshold(value)) {
      return new SessionConfigError({ message: `${key} must be a whole number of at least 1 (got ${String(value)}).` })
    }
  }
  if (
    config.token_budget !== undefined &&
    !(typeof config.token_budget === "number" && Number.isFinite(config.token_budget) && config.token_budget >= 0)
  ) {
    return new SessionConfigError({ message: `token_budget must be a finite number of tokens, at least 0.` })
  }
  for (const [id, value] of Object.entries(config.effort_thresholds ?? {})) {
    if (!validThreshold(value)) {
      return new SessionConfigError({ message: `effort_thresholds['${id}'] must be a whole number of at least 1.` })
    }
  }
  if (config.hysteresis_window !== undefined && !validThreshold(config.hysteresis_window)) {
    return new SessionConfigError({ message: "hysteresis_window must be a whole number of at least 1." })
  }
  if (
    config.hysteresis_extension !== undefined &&
    !(Number.isInteger(config.hysteresis_extension) && config.hysteresis_extension >= 0)
  ) {
    return new SessionConfigError({ message: "hysteresis_extension must be a whole number of at least 0." })
  }
  return undefined
}

/** The settings of a running session. */
export interface Settings {
  readonly config: Decay.DecayConfig
  /** A re-expansion this many turns or fewer after an auto-collapse is a false decay. */
  readonly hysteresisWindow: number
  /** Turns added to an effort's threshold per false decay. */
  readonly hysteresisExtension: number
  readonly effortThresholds: Readonly<Record<string, number>>
  readonly systemPrompt: string
  readonly systemPromptTokens: number
  /** Tokens of the summaries header and the memory paragraph, present whenever concluded efforts exist. */
  readonly fixedSystemTokens: number
}

/** Resolves `options` (already checked, or as lenient as the pure functions for the rest) into settings. */
export const resolveSettings = (options: SessionConfig, counter: TokenCounter.TokenCounterShape): Settings => {
  const config = Decay.resolveConfig(options)
  const extension = options.hysteresis_extension
  const effortThresholds: Record<string, number> = {}
  for (const [id, value] of Object.entries(options.effort_thresholds ?? {})) {
    if (validThreshold(value)) effortThresholds[id] = value
  }
  const systemPrompt = options.system_prompt ?? DEFAULT_SYSTEM_PROMPT
  return {
    config,
    hysteresisWindow: validThreshold(options.hysteresis_window) ? options.hysteresis_window : 2,
    hysteresisExtension:
      typeof extension === "number" && Number.isFinite(extension) && extension >= 0
        ? Math.floor(extension)
        : config.decay_threshold,
    effortThresholds,
    systemPrompt,
    systemPromptTokens: counter.count(systemPrompt),
    fixedSystemTokens: counter.count(`${SUMMARIES_HEADER}\n${MEMORY_SECTION}`)
  }
}
