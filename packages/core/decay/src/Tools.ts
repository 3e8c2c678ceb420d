/**
 * The eight effort tools as `effect/ai` Tool definitions, with CCM's names and parameters, grouped in
 * {@link toolkit}; {@link layer} implements them on the `Session` service so any `LanguageModel` can call them.
 * A failing tool returns `{error}` to the model (CCM's behaviour) instead of failing the generation.
 *
 * @since 0.1.0
 */

import * as Tool from "effect/ai/Tool"
import * as Toolkit from "effect/ai/Toolkit"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { Session } from "./Session.ts"
import type { EffortError } from "./SessionError.ts"

/**
 * The failure a tool returns to the model: `{error: message}`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ToolFailure = Schema.Struct({ error: Schema.String }).annotate({ identifier: "ToolFailure" })

const EffortId = Schema.String.annotate({ description: "The effort id, e.g. 'auth-bug'" })
const Status = (status: string) => Schema.Literal(status)
const NullableString = Schema.NullOr(Schema.String)

/** A tool that takes an effort `id` and answers `{ status, effort_id }`. */
const effortTool = <const Name extends string>(name: Name, description: string, status: string) =>
  Tool.make(name, {
    description,
    parameters: Schema.Struct({ id: EffortId }),
    success: Schema.Struct({ status: Status(status), effort_id: Schema.String }),
    failure: ToolFailure,
    failureMode: "return"
  })

/**
 * `open_effort(name)`: starts an effort and makes it active.
 *
 * @category models
 * @since 0.1.0
 */
export const OpenEffort = Tool.make("open_effort", {
  description:
    "Start a new effort (a piece of work that can be concluded) and make it the active one. " +
    "Not for greetings or one-off questions.",
  parameters: Schema.Struct({
    name: Schema.String.annotate({ description: "A short kebab-case id for the effort, e.g. 'auth-bug'" })
  }),
  success: Schema.Struct({ status: Status("opened"), effort_id: Schema.String }),
  failure: ToolFailure,
  failureMode: "return"
})

/**
 * `close_effort(id?)`: concludes an open effort (the active one by default) with a summary.
 *
 * @category models
 * @since 0.1.0
 */
export const CloseEffort = Tool.make("close_effort", {
  description: "Conclude an effort when the user says it is done or resolved. Never to pause or switch.",
  parameters: Schema.Struct({
    id: Schema.optional(EffortId.annotate({ description: "The open effort to close; the active one if omitted" }))
  }),
  success: Schema.Struct({ status: Status("concluded"), effort_id: Schema.String, summary: Schema.String }),
  failure: ToolFailure,
  failureMode: "return"
})

/**
 * `effort_status()`: lists the efforts.
 *
 * @category models
 * @since 0.1.0
 */
export const EffortStatus = Tool.make("effort_status", {
  description: "List all efforts with their status and summaries.",
  success: Schema.Struct({
    efforts: Schema.Array(
      Schema.Struct({
        id: Schema.String,
        status: Schema.Literals(["open", "concluded"]),
        summary: NullableString,
        active: Schema.optional(Schema.Boolean),
        expanded: Schema.optional(Schema.Boolean),
        raw_tokens: Schema.optional(Schema.Finite),
        summary_tokens: Schema.optional(Schema.Finite)
      })
    ),
    message: Schema.optional(Schema.String)
  }),
  failure: ToolFailure,
  failureMode: "return"
})

/**
 * `expand_effort(id)`: loads a concluded effort's full log into the context.
 *
 * @category models
 * @since 0.1.0
 */
export const ExpandEffort = Tool.make("expand_effort", {
  description: "Load the full conversation of a concluded effort when its summary cannot answer the question.",
  parameters: Schema.Struct({ id: EffortId }),
  success: Schema.Struct({ status: Status("expanded"), effort_id: Schema.String, tokens_loaded: Schema.Finite }),
  failure: ToolFailure,
  failureMode: "return"
})

/**
 * `collapse_effort(id)`: returns an expanded effort to its summary.
 *
 * @category models
 * @since 0.1.0
 */
export const CollapseEffort = effortTool(
  "collapse_effort",
  "Collapse an expanded effort back to its summary when it is no longer needed.",
  "collapsed"
)

/**
 * `switch_effort(id)`: makes another open effort the active one.
 *
 * @category models
 * @since 0.1.0
 */
export const SwitchEffort = effortTool("switch_effort", "Make another open effort the active one.", "switched")

/**
 * `search_efforts(query)`: finds concluded efforts, best match first.
 *
 * @category models
 * @since 0.1.0
 */
export const SearchEfforts = Tool.make("search_efforts", {
  description: "Search concluded efforts whose summaries are not shown, by id or keywords.",
  parameters: Schema.Struct({ query: Schema.String.annotate({ description: "Words describing the topic" }) }),
  success: Schema.Struct({
    results: Schema.Array(Schema.Struct({ id: Schema.String, summary: NullableString, status: Status("concluded") })),
    query: Schema.String
  }),
  failure: ToolFailure,
  failureMode: "return"
})

/**
 * `reopen_effort(id)`: reopens a concluded effort as the active one.
 *
 * @category models
 * @since 0.1.0
 */
export const ReopenEffort = Tool.make("reopen_effort", {
  description: "Reopen a concluded effort to continue working on it.",
  parameters: Schema.Struct({ id: EffortId }),
  success: Schema.Struct({ status: Status("reopened"), effort_id: Schema.String, prior_summary: NullableString }),
  failure: ToolFailure,
  failureMode: "return"
})

/**
 * The eight effort tools.
 *
 * @category models
 * @since 0.1.0
 */
export const toolkit = Toolkit.make(
  OpenEffort,
  CloseEffort,
  EffortStatus,
  ExpandEffort,
  CollapseEffort,
  SwitchEffort,
  SearchEfforts,
  ReopenEffort
)

const toFailure = (error: EffortError) => ({ error: error.message })

/**
 * Handlers for {@link toolkit} on the `Session` service.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer: Layer.Layer<Tool.HandlersFor<Toolkit.Tools<typeof toolkit>>, never, Session> = toolkit.toLayer(
  Effect.gen(function* () {
    const session = yield* Session
    return toolkit.of({
      open_effort: ({ name }) => Effect.mapError(session.openEffort({ name }), toFailure),
      close_effort: ({ id }) => Effect.mapError(session.closeEffort({ id }), toFailure),
      effort_status: () => session.effortStatus(),
      expand_effort: ({ id }) => Effect.mapError(session.expandEffort({ id }), toFailure),
      collapse_effort: ({ id }) => Effect.mapError(session.collapseEffort({ id }), toFailure),
      switch_effort: ({ id }) => Effect.mapError(session.switchEffort({ id }), toFailure),
      search_efforts: ({ query }) => session.searchEfforts({ query }),
      reopen_effort: ({ id }) => Effect.mapError(session.reopenEffort({ id }), toFailure)
    })
  })
)
