/**
 * Building the awareness errors: bounded echoes of the caller's input and the common error codes.
 *
 * @since 0.1.0
 */
import { AwarenessError } from "../AwarenessError.ts"
import type { StoreError } from "../Store.ts"

const maxEchoChars = 200
const maxEchoDepth = 4
const maxEchoNodes = 50

/** Whether `value` is small and shallow enough to be echoed as it is. */
const isSmall = (value: unknown): boolean => {
  let nodes = 0
  const stack: Array<readonly [unknown, number]> = [[value, 1]]
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!
    if (++nodes > maxEchoNodes || depth > maxEchoDepth) return false
    if (typeof current === "string" && current.length > maxEchoChars) return false
    if (current !== null && typeof current === "object") {
      for (const item of Array.isArray(current) ? current : Object.values(current)) stack.push([item, depth + 1])
    }
  }
  return true
}

/** A short text rendering of a large value: its outer levels, with "…" where it was cut. */
const preview = (value: unknown, depth: number): string => {
  if (value === null || typeof value !== "object") {
    const text = JSON.stringify(value) ?? String(value)
    return text.length > 40 ? `${text.slice(0, 39)}…` : text
  }
  if (depth === 0) return Array.isArray(value) ? "[…]" : "{…}"
  const items = Array.isArray(value)
    ? value.slice(0, 5).map((item) => preview(item, depth - 1))
    : Object.entries(value)
        .slice(0, 5)
        .map(([key, item]) => `${JSON.stringify(key.slice(0, 40))}:${preview(item, depth - 1)}`)
  const size = Array.isArray(value) ? value.length : Object.keys(value).length
  const more = size > 5 ? ",…" : ""
  return Array.isArray(value) ? `[${items.join(",")}${more}]` : `{${items.join(",")}${more}}`
}

/**
 * The value an error may echo back: small values as they are; long strings cut to 200 characters; deep or large
 * JSON as a short preview string. An error body never grows with the caller's input.

 */
export const echo = (value: unknown): unknown => {
  if (typeof value === "string") return value.length <= maxEchoChars ? value : `${value.slice(0, maxEchoChars - 1)}…`
  if (isSmall(value)) return value
  const text = preview(value, 3)
  return text.length <= maxEchoChars ? text : `${text.slice(0, maxEchoChars - 1)}…`
}

/**
 * An `invalid_parameter` error naming `param`, echoing a bounded `value`.

 */
export const invalidParameter = (
  param: string,
  message: string,
  extra: {
    readonly value?: unknown
    readonly valid?: ReadonlyArray<string>
    readonly suggestion?: string | undefined
    readonly help_url?: string
  } = {}
): AwarenessError =>
  new AwarenessError({
    code: "invalid_parameter",
    message,
    retryable: false,
    param,
    ...("value" in extra && extra.value !== undefined ? { value: echo(extra.value) } : {}),
    ...(extra.valid === undefined ? {} : { valid: [...extra.valid] }),
    ...(extra.suggestion === undefined ? {} : { suggestion: extra.suggestion }),
    ...(extra.help_url === undefined ? {} : { help_url: extra.help_url })
  })

/**
 * A `not_found` error.

 */
export const notFound = (message: string): AwarenessError =>
  new AwarenessError({ code: "not_found", message, retryable: false })

/**
 * The `unavailable` error a real store failure becomes (retryable when the store says so).

 */
export const unavailable = (error: StoreError): AwarenessError =>
  new AwarenessError({
    code: "unavailable",
    message: `store unavailable: ${error.message}`,
    retryable: error.retryable
  })
