/**
 * The shared pieces of the awareness tool definitions: parameter fields (required, optional with an advertised
 * default, the common paging and filter fields), reply schemas, and `tool`, which makes one `effect/ai` Tool with
 * its MCP hints.
 *
 * @since 0.1.0
 */
import * as Tool from "effect/ai/Tool"
import * as Schema from "effect/Schema"
import { AwarenessError } from "../AwarenessError.ts"
import { EntryType } from "../Entry.ts"
import * as P from "./params.ts"

// ---------------------------------------------------------------------------------------------------------------
// Parameter fields

export const required = <S extends Schema.Top>(schema: S, description: string) => schema.annotate({ description })

export const optional = <S extends Schema.Top>(schema: S, description: string, fallback?: unknown) =>
  Schema.optionalKey(schema.annotate(fallback === undefined ? { description } : { description, default: fallback }))

export const entryType = P.literals(EntryType.literals)
export const modeField = optional(P.literals(["full", "list"]), "list: metadata only.")
export const limitField = optional(P.integer(0), "Max entries (100).")
export const offsetField = optional(P.integer(0), "Skip this many.")
export const sinceField = optional(P.timestamp, "Since (ISO 8601).")
export const untilField = optional(P.timestamp, "Updated before.")
export const languageField = optional(P.string, "Language (ISO 639-1).")
export const learnedFromField = optional(P.string, "Who taught this.")

// ---------------------------------------------------------------------------------------------------------------
// Replies

export const EntryView = Schema.Record(Schema.String, Schema.Unknown)

/** A page of entries, as upstream's list tools return it: `{ entries, limit, offset, has_more }`. */
export const Page = Schema.Struct({
  entries: Schema.Array(EntryView),
  limit: Schema.Finite,
  offset: Schema.Finite,
  has_more: Schema.Boolean
})

export const ok = <F extends Schema.Struct.Fields>(fields: F) =>
  Schema.Struct({ status: Schema.Literal("ok"), id: Schema.String, ...fields })

export const Stats = Schema.Struct({
  entries: Schema.Record(Schema.String, Schema.Finite),
  sources: Schema.Array(Schema.String),
  total: Schema.Finite
})

export const DeleteReply = Schema.Union([
  Schema.Struct({
    status: Schema.Literal("acknowledged"),
    entry_id: Schema.String,
    recoverable_days: Schema.Finite,
    note: Schema.String
  }),
  Schema.Struct({ status: Schema.Literal("dry_run"), would_trash: Schema.Finite, note: Schema.String }),
  Schema.Struct({ status: Schema.Literal("ok"), trashed: Schema.Finite, recoverable_days: Schema.Finite })
])

export const tool = <const Name extends string, F extends Schema.Struct.Fields, S extends Schema.Top>(
  name: Name,
  options: {
    readonly title: string
    readonly description: string
    readonly parameters: F
    readonly success: S
    readonly readOnly?: boolean
    readonly destructive?: boolean
    readonly idempotent?: boolean
  }
) =>
  Tool.make(name, {
    description: options.description,
    parameters: Schema.Struct(options.parameters),
    success: options.success,
    failure: AwarenessError,
    failureMode: "return"
  })
    .annotate(Tool.Title, options.title)
    .annotate(Tool.Readonly, options.readOnly ?? false)
    .annotate(Tool.Destructive, options.destructive ?? false)
    .annotate(Tool.Idempotent, options.idempotent ?? options.readOnly ?? false)
    .annotate(Tool.OpenWorld, false)
