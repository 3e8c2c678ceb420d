/**
 * The awareness briefing, read through MCP (the official `@modelcontextprotocol/sdk` client over Streamable
 * HTTP) from a heed awareness server: before a poll prompt the agent calls `get_briefing` and, when
 * `attention_needed` is true, puts the briefing's summary in front of the prompt. An unreachable server is logged
 * and costs nothing but the briefing.
 *
 * @since 0.1.0
 */
import { readFileSync } from "node:fs"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

// The MCP client names the agent's release (its package.json), as `heed-agent --version` does.
const agentVersion: string = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).version

/**
 * What the agent takes from a briefing that needs attention.
 *
 * @category models
 * @since 0.1.0
 */
export interface Attention {
  readonly summary: string
  readonly suggested: string | undefined
}

/**
 * The briefing reader: `Some` when the awareness server says attention is needed, `None` otherwise (or when it
 * cannot be reached, which is logged).
 *
 * @category services
 * @since 0.1.0
 */
export class Awareness extends Context.Service<
  Awareness,
  { readonly briefing: Effect.Effect<Option.Option<Attention>> }
>()("@heed/agent/Awareness") {}

const BriefingReply = Schema.Struct({
  attention_needed: Schema.Boolean,
  summary: Schema.String,
  suggested_mention: Schema.optionalKey(Schema.String)
})
const decodeBriefing = Schema.decodeUnknownEffect(Schema.fromJsonString(BriefingReply))

/**
 * No awareness server configured: never a briefing.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerNone: Layer.Layer<Awareness> = Layer.succeed(Awareness, { briefing: Effect.succeedNone })

/**
 * Reads briefings from the MCP endpoint at `url` (e.g. `http://127.0.0.1:8420/mcp`), with a bearer `token`
 * when the server requires one. Connects on first use and again after a failure; closes with the layer.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerMcp = (options: {
  readonly url: string
  readonly token?: string | undefined
}): Layer.Layer<Awareness> =>
  Layer.effect(
    Awareness,
    Effect.gen(function* () {
      let client: Client | undefined
      yield* Effect.addFinalizer(() => Effect.promise(async () => client?.close().catch(() => undefined)))
      const connect = Effect.tryPromise(async () => {
        if (client !== undefined) return client
        const fresh = new Client({ name: "heed-agent", version: agentVersion })
        const headers: Record<string, string> =
          options.token === undefined ? {} : { Authorization: `Bearer ${options.token}` }
        await fresh.connect(new StreamableHTTPClientTransport(new URL(options.url), { requestInit: { headers } }))
        client = fresh
        return fresh
      })
      const call = Effect.flatMap(connect, (connected) =>
        Effect.tryPromise(() => connected.callTool({ name: "get_briefing", arguments: {} }))
      )
      const briefing = Effect.gen(function* () {
        const result = yield* call
        const content = result.content as ReadonlyArray<{ readonly type: string; readonly text?: string }>
        if (result.isError === true) return yield* Effect.fail(new Error(content[0]?.text ?? "get_briefing failed"))
        const reply = yield* decodeBriefing(content.find((part) => part.type === "text")?.text ?? "")
        return reply.attention_needed
          ? Option.some({ summary: reply.summary, suggested: reply.suggested_mention })
          : Option.none()
      }).pipe(
        Effect.catchCause((cause) =>
          Effect.logWarning(`awareness: get_briefing at ${options.url} failed; polling without it`, cause).pipe(
            Effect.tap(() =>
              Effect.sync(() => {
                client = undefined
              })
            ),
            Effect.as(Option.none<Attention>())
          )
        )
      )
      return { briefing }
    })
  )
