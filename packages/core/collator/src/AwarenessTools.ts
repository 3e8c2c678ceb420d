/**
 * The awareness tools as one typed toolkit: each of mcp-awareness's tools (plus heed's `clear_suppression`) is an
 * `effect/ai` `Tool` with Schema parameters, a Schema success and {@link AwarenessError} as its failure, grouped in
 * {@link toolkit} and implemented on the {@link Awareness} service ({@link layer}). Names, parameters, defaults and
 * reply shapes are upstream's.
 *
 * Every edge uses the same path: {@link call} validates untrusted parameters against the tool's schema (upstream's
 * loose coercions — numbers and booleans sent as strings, tags as a comma-separated string, a JSON object sent as
 * a string — are Schema transformations), runs the handler and encodes the reply. Anything else of the wrong type
 * is an `invalid_parameter` error naming the parameter, with the valid values and a did-you-mean suggestion where
 * it applies; the error echoes the offending value only in bounded form.
 *
 * @since 0.1.0
 */
import type * as Tool from "effect/ai/Tool"
import * as Toolkit from "effect/ai/Toolkit"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import { Awareness, type AwarenessShape } from "./Awareness.ts"
import { AwarenessError } from "./AwarenessError.ts"
import * as BriefingView from "./BriefingView.ts"
import { echo } from "./internal/errors.ts"
import * as Read from "./internal/readTools.ts"
import { didYouMean } from "./internal/text.ts"
import * as ToolCall from "./internal/toolCall.ts"
import * as Defs from "./internal/toolDefs.ts"
import * as ToolOutput from "./internal/toolOutput.ts"
import * as Write from "./internal/writeTools.ts"

/**
 * A page of entries, as upstream's list tools return it: `{ entries, limit, offset, has_more }`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Page = Defs.Page

// The tools themselves, one `effect/ai` Tool each, defined by kind in internal/readTools.ts and internal/writeTools.ts.
export * from "./internal/readTools.ts"
export * from "./internal/writeTools.ts"

/**
 * Every awareness tool, in the order `tools/list` reports them.
 *
 * @category models
 * @since 0.1.0
 */
export const toolkit = Toolkit.make(
  Read.GetBriefing,
  Read.GetAlerts,
  Read.GetStatus,
  Read.GetKnowledge,
  Read.GetSuppressions,
  Read.GetIntentions,
  Read.GetStats,
  Read.GetTags,
  Read.Search,
  Write.ReportStatus,
  Write.ReportAlert,
  Write.LearnPattern,
  Write.Remember,
  Write.AddContext,
  Write.SetPreference,
  Write.SuppressAlert,
  Write.ClearSuppression,
  Write.Remind,
  Write.UpdateIntention,
  Write.ActedOn,
  Write.UpdateEntry,
  Write.DeleteEntry,
  Write.RestoreEntry
)

/**
 * The toolkit's handlers on an `Awareness` service.
 *
 * @category constructors
 * @since 0.1.0
 */
export const handlers = (awareness: AwarenessShape) =>
  toolkit.of({
    get_briefing: (params) =>
      Effect.map(awareness.getBriefing(params), (briefing) =>
        BriefingView.render(briefing, {
          ...(params.explain === undefined ? {} : { explain: params.explain }),
          ...(params.format === undefined ? {} : { format: params.format })
        })
      ),
    get_alerts: (params) => awareness.getAlerts(params),
    get_status: (params) => awareness.getStatus(params),
    get_knowledge: (params) => awareness.getKnowledge(params),
    get_suppressions: (params) => awareness.getSuppressions(params),
    get_intentions: (params) => awareness.getIntentions(params),
    get_stats: (params) => awareness.getStats(params),
    get_tags: (params) => awareness.getTags(params),
    search: (params) => awareness.search(params),
    report_status: (params) => awareness.reportStatus(params),
    report_alert: (params) => awareness.reportAlert(params),
    learn_pattern: (params) => awareness.learnPattern(params),
    remember: (params) => awareness.remember(params),
    add_context: (params) => awareness.addContext(params),
    set_preference: (params) => awareness.setPreference(params),
    suppress_alert: (params) => awareness.suppressAlert(params),
    clear_suppression: (params) => awareness.clearSuppression(params),
    remind: (params) => awareness.remind(params),
    update_intention: (params) => awareness.updateIntention(params),
    acted_on: (params) => awareness.actedOn(params),
    update_entry: (params) => awareness.updateEntry(params),
    delete_entry: (params) => awareness.deleteEntry(params),
    restore_entry: (params) => awareness.restoreEntry(params)
  })

/**
 * The handlers of {@link toolkit} on the `Awareness` service in context, for a `LanguageModel` or
 * `McpServer.registerToolkit`.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer: Layer.Layer<Tool.HandlersFor<Toolkit.Tools<typeof toolkit>>, never, Awareness> = toolkit.toLayer(
  Effect.gen(function* () {
    return handlers(yield* Awareness)
  })
)

/**
 * The name of an awareness tool.
 *
 * @category models
 * @since 0.1.0
 */
export type Name = keyof Toolkit.Tools<typeof toolkit> & string

/**
 * The tool names, in `tools/list` order.
 *
 * @category constants
 * @since 0.1.0
 */
export const names: ReadonlyArray<Name> = Object.keys(toolkit.tools) as Array<Name>

/**
 * The decoded parameters of a tool: what the `Awareness` method of the same name takes.
 *
 * @category models
 * @since 0.1.0
 */
export type Input<N extends Name> = Tool.Parameters<Toolkit.Tools<typeof toolkit>[N]>

/**
 * The reply of a tool, before encoding.
 *
 * @category models
 * @since 0.1.0
 */
export type Reply<N extends Name> = Tool.Success<Toolkit.Tools<typeof toolkit>[N]>

// ---------------------------------------------------------------------------------------------------------------
// One entry point for every edge

type AnyTool = (typeof toolkit.tools)[Name]

/**
 * The closest of `valid` to `value` within an edit distance of 2 (case-insensitive), as upstream's did-you-mean
 * suggestions; `undefined` when nothing is close enough. Edges phrase their own errors with it.
 *
 * @category getters
 * @since 0.1.0
 */
export const suggest = (value: string, valid: ReadonlyArray<string>): string | undefined => didYouMean(value, valid)

const lookup = (name: string): AnyTool | undefined =>
  Object.hasOwn(toolkit.tools, name) ? toolkit.tools[name as Name] : undefined

/**
 * The JSON Schema (object root) advertised for a tool's input: each parameter's JSON type, description, default,
 * enum and minimum, and the required ones. Coercions a client may rely on (numbers as strings) are accepted but not
 * advertised.
 *
 * @category getters
 * @since 0.1.0
 */
export const inputSchema = (name: Name): Record<string, unknown> =>
  ToolCall.inputSchemaOf(toolkit.tools[name].parametersSchema.fields)

/**
 * The JSON Schema advertised as a tool's MCP `outputSchema`: an object root (every reply is returned as a JSON
 * object in `structuredContent`, see {@link structured}). The reply's fields are not spelled out: `tools/list` is
 * paid for on every request, and the tool descriptions and `Page`, `Briefing` and the `Reply` types document them.
 *
 * @category getters
 * @since 0.1.0
 */
export const outputSchema = (_name: Name): Record<string, unknown> => ({ ...ToolOutput.outputSchema })

/**
 * A tool's reply as MCP `structuredContent` (always a JSON object, matching {@link outputSchema}): an object reply
 * as it is, a list under `entries` (`tags` for `get_tags`), a text under `text`.
 *
 * @category getters
 * @since 0.1.0
 */
export const structured = (name: string, reply: unknown): Record<string, unknown> =>
  ToolOutput.structuredOf(name, reply)

/**
 * Calls one awareness tool by name on the given service with untrusted parameters (a JSON object; `null` values
 * count as omitted): validates them against the tool's schema, runs the handler and returns the reply encoded as
 * JSON-ready data. Fails only with {@link AwarenessError} — `{ code, message, retryable, param?, value?, valid?,
 * suggestion?, help_url? }` where `param` names the offending parameter — so an edge maps it directly: MCP answers
 * it as an `isError` result with upstream's `{"status":"error","error":{…}}` body (`toEnvelope()`), REST as
 * `application/problem+json` (`invalid_parameter` → 400, `not_found` → 404, `unavailable` → 503). An unknown tool
 * name is `not_found` with a did-you-mean suggestion.
 *
 * @category constructors
 * @since 0.1.0
 */
export const callWith = (
  awareness: AwarenessShape,
  name: string,
  params: unknown
): Effect.Effect<unknown, AwarenessError> => {
  const found = lookup(name)
  if (found === undefined) {
    const suggestion = didYouMean(name, names)
    return Effect.fail(
      new AwarenessError({
        code: "not_found",
        message: `There is no tool named '${echo(name)}'.${suggestion === undefined ? "" : ` Did you mean '${suggestion}'?`}`,
        retryable: false,
        ...(suggestion === undefined ? {} : { suggestion })
      })
    )
  }
  const handler: (params: never) => Effect.Effect<unknown, AwarenessError> = handlers(awareness)[found.name]
  const decoded = ToolCall.decodeParameters(found.name, found.parametersSchema, params)
  // Every reply schema is a plain JSON shape (no transformations), so a reply is its own encoding: it is returned
  // as is rather than walked again (a 1,000-entry page would cost milliseconds per call). The toolkit's own
  // `handle` (effect/ai) still encodes, and the tests check the replies against their schemas there.
  return Effect.flatMap(decoded, (decoded) => handler(decoded as never))
}

/**
 * {@link callWith} on the `Awareness` service in context: the entry point for REST (`POST /v1/tools/{name}`) and
 * any other edge outside MCP.
 *
 * @category constructors
 * @since 0.1.0
 */
export const call = (name: string, params: unknown): Effect.Effect<unknown, AwarenessError, Awareness> =>
  Effect.flatMap(Awareness, (awareness) => callWith(awareness, name, params))
