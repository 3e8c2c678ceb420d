import { Effect, Logger } from "effect"

export interface LogLine {
  readonly level: string
  readonly text: string
}

/** Runs `effect` with a logger that records each log call's string parts, and returns the lines with the result. */
export const captureLogs = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const lines: Array<LogLine> = []
    const logger = Logger.make(({ logLevel, message }) => {
      const parts = Array.isArray(message) ? message : [message]
      lines.push({ level: logLevel, text: parts.filter((part) => typeof part === "string").join(" ") })
    })
    const result = yield* Effect.provide(effect, Logger.layer([logger]))
    return { result, lines }
  })
