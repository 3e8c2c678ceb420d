/**
 * WebSocket frames of SLOP messages: one JSON message per text frame.
 *
 * @since 0.1.0
 * @internal
 */
import type { Message } from "@heed/state-tree"

// Patches of subscriptions with the same request share their ops array, and snapshots their tree (the provider
// computes them once per rebuild), so a fan-out to many subscribers serialises each once.
const serialised = new WeakMap<object, string>()

const json = (value: object): string => {
  let text = serialised.get(value)
  if (text === undefined) {
    text = JSON.stringify(value)
    serialised.set(value, text)
  }
  return text
}

/** The text frame of an outbound message. */
export const encode = (message: Message.Outbound): string => {
  switch (message.type) {
    case "patch":
      return `{"type":"patch","subscription":${JSON.stringify(message.subscription)},"version":${message.version},"ops":${json(message.ops)}}`
    case "snapshot":
      return `{"type":"snapshot","id":${JSON.stringify(message.id)},"version":${message.version},"tree":${json(message.tree)}}`
    default:
      return JSON.stringify(message)
  }
}

const encoder = new TextEncoder()

/** The UTF-8 byte length of a string. */
export const utf8Length = (text: string): number => encoder.encode(text).byteLength

/** Parses a text frame, or says why it is not JSON. */
export const parse = (text: string): { readonly value: unknown } | { readonly problem: string } => {
  try {
    return { value: JSON.parse(text) }
  } catch (error) {
    return { problem: `invalid JSON: ${error instanceof Error ? error.message : String(error)}` }
  }
}
