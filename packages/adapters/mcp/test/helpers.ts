import { Awareness, Store } from "@heed/collator"
import * as McpProtocol from "effect/ai/McpProtocol"
import type * as McpSchema from "effect/ai/McpSchema"
import * as McpTest from "effect/ai/McpTest"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AwarenessMcp, AwarenessResolver } from "../src/index.ts"

export const makeClient = (
  options: {
    readonly pollInterval?: Duration.Input
    /** The notifier's coalescing window (default 0); under the TestClock, adjusting past it runs the check. */
    readonly debounce?: Duration.Input
    readonly protocolVersion?: "2025-06-18" | "2025-11-25" | "2026-07-28"
    /** How requests find their service (default: the one `Awareness` in context). */
    readonly resolver?: Layer.Layer<AwarenessResolver.AwarenessResolver, never, Awareness.Awareness>
  } = {}
) =>
  McpTest.makeClient(
    AwarenessMcp.registrations({
      notificationDebounce: options.debounce ?? 0,
      pollInterval: options.pollInterval ?? 0
    }).pipe(
      Layer.provide(options.resolver ?? AwarenessResolver.layer),
      Layer.provide(Awareness.layer),
      Layer.provide(Store.layerMemory)
    ),
    {
      protocols: AwarenessMcp.protocols,
      ...(options.protocolVersion === undefined ? {} : { protocolVersion: options.protocolVersion })
    }
  )

export type Client = McpTest.Client

export interface Reply {
  readonly isError: boolean
  // biome-ignore lint/suspicious/noExplicitAny: parsed JSON that the tests walk freely
  readonly body: any
}

export const parse = (result: McpSchema.CallToolResult): Reply => {
  const first = result.content[0]
  const text = first !== undefined && first.type === "text" ? first.text : "null"
  return { isError: result.isError === true, body: JSON.parse(text) }
}

export const call = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  Effect.map(client.callTool({ name, arguments: args }), parse)

export const ok = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  Effect.flatMap(call(client, name, args), (reply) =>
    reply.isError ? Effect.die(new Error(`${name} failed: ${JSON.stringify(reply.body)}`)) : Effect.succeed(reply.body)
  )

export const read = (client: Client, uri: string) =>
  Effect.map(client.readResource({ uri }), (result) => {
    const first = result.contents[0] as { readonly text?: string } | undefined
    return JSON.parse(first?.text ?? "null")
  })

export const protocols = McpProtocol
