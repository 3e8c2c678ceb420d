/**
 * The edge of every awareness tool call: the advertised JSON Schema of a parameter struct (with its `Limits`), and
 * decoding untrusted parameters into a tool's input (null as omitted, unknown names refused with a did-you-mean,
 * lengths checked against `Limits`, the first bad parameter named).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"
import { AwarenessError } from "../AwarenessError.ts"
import * as Limits from "../Limits.ts"
import { echo, invalidParameter } from "./errors.ts"
import * as P from "./params.ts"
import { didYouMean } from "./text.ts"

/** The JSON Schema (object root) of a tool's parameter fields, from their `heed/json` annotations. */
export const inputSchemaOf = (fields: Schema.Struct.Fields): Record<string, unknown> => {
  const properties: Record<string, unknown> = {}
  const requiredNames: Array<string> = []
  for (const [key, field] of Object.entries(fields)) {
    const annotations = SchemaAST.resolve(field.ast) ?? {}
    if (annotations[P.hiddenKey] === true) continue
    // `format: "date-time"` is not advertised (it demands a zone; naive timestamps are accepted as UTC), nor an
    // integer's `minimum` (a smaller value is answered with an error naming the parameter): `tools/list` is paid on
    // every request.
    const {
      format: _format,
      minimum: _minimum,
      ...advertised
    } = (annotations[P.jsonKey] ?? {}) as Record<string, unknown>
    properties[key] = {
      ...advertised,
      ...advertisedLimits(key, advertised),
      ...(annotations.description === undefined ? {} : { description: annotations.description }),
      ...(annotations.default === undefined ? {} : { default: annotations.default })
    }
    if (field.ast.context?.isOptional !== true) requiredNames.push(key)
  }
  return requiredNames.length === 0
    ? { type: "object", properties }
    : { type: "object", properties, required: requiredNames }
}

/** The length limits a parameter advertises (`maxLength`; for tags `maxItems` and each item's `maxLength`). */
const advertisedLimits = (key: string, advertised: Record<string, unknown>): Record<string, unknown> => {
  if (key === "tags") {
    return {
      maxItems: Limits.maxTags,
      items: { ...(advertised.items as object | undefined), maxLength: Limits.maxIdentifierLength }
    }
  }
  const max = advertised.type === "string" && advertised.enum === undefined ? Limits.maxLengthOf(key) : undefined
  return max === undefined ? {} : { maxLength: max }
}

/** Whether a field is advertised (an alias is accepted but not listed). */
const isAdvertised = (field: Schema.Struct.Fields[string]): boolean =>
  SchemaAST.resolve(field.ast)?.[P.hiddenKey] !== true

/** Another name agents use for a parameter. */
const synonyms: Readonly<Record<string, string>> = { severity: "level", when: "deliver_at", due: "deliver_at" }

/**
 * The parameter an unknown name most likely meant: within an edit distance of 2, else the only parameter with the
 * name as one of its words (`at` is `deliver_at`, `ttl` is `ttl_sec`), else a known synonym (`severity` is `level`).
 */
const meantBy = (key: string, valid: ReadonlyArray<string>): string | undefined => {
  const close = didYouMean(key, valid)
  if (close !== undefined) return close
  const lower = key.toLowerCase()
  const byWord = valid.filter((name) => name.split("_").includes(lower))
  if (byWord.length === 1) return byWord[0]
  const synonym = synonyms[lower]
  return synonym !== undefined && valid.includes(synonym) ? synonym : undefined
}

/** The error for a parameter the tool does not have, with a did-you-mean suggestion or the list of its parameters. */
const unknownParameter = (
  tool: string,
  fields: Schema.Struct.Fields,
  given: ReadonlySet<string>,
  key: string
): AwarenessError => {
  const valid = Object.keys(fields).filter((name) => isAdvertised(fields[name]!))
  const meant = meantBy(key, valid)
  const suggestion = meant === undefined || given.has(meant) ? undefined : meant
  const hint =
    suggestion !== undefined
      ? ` Did you mean '${suggestion}'?`
      : valid.length === 0
        ? " It takes no parameters."
        : ` Its parameters are: ${valid.join(", ")}.`
  return invalidParameter(key, `${tool} has no parameter '${echo(key)}'.${hint}`, {
    value: key,
    valid,
    suggestion
  })
}

/** A string parameter over its length limit, or a tag list over its limits: the error naming it, or `undefined`. */
const overLimit = (key: string, value: unknown): AwarenessError | undefined => {
  if (key === "tags") {
    const tags = typeof value === "string" ? value.split(",") : Array.isArray(value) ? value : []
    if (tags.length > Limits.maxTags) {
      return invalidParameter(key, `'tags' may hold at most ${Limits.maxTags} tags (got ${tags.length}).`)
    }
    const long = tags.find((tag) => typeof tag === "string" && tag.trim().length > Limits.maxIdentifierLength)
    return long === undefined
      ? undefined
      : invalidParameter(
          key,
          `each tag must be at most ${Limits.maxIdentifierLength} characters (got one of ${long.trim().length}).`,
          { value: long }
        )
  }
  if (typeof value !== "string") return undefined
  const max = Limits.maxLengthOf(key)
  return max === undefined || value.length <= max
    ? undefined
    : invalidParameter(key, `'${key}' must be at most ${max} characters (got ${value.length}).`, { value })
}

/** Decodes a call's parameters, or fails with the `invalid_parameter` error naming the first bad one. */
export const decodeParameters = <S extends Schema.Struct<Schema.Struct.Fields>>(
  tool: string,
  schema: S,
  params: unknown
): Effect.Effect<S["Type"], AwarenessError, S["DecodingServices"]> => {
  if (params !== undefined && params !== null && (typeof params !== "object" || Array.isArray(params))) {
    return Effect.fail(
      new AwarenessError({
        code: "invalid_parameter",
        message: `The arguments of ${tool} must be a JSON object.`,
        retryable: false
      })
    )
  }
  const entries: ReadonlyArray<[string, unknown]> = Object.entries(params ?? {})
  const given = new Set(entries.map(([key]) => key))
  const input: Record<string, unknown> = {}
  for (const [key, value] of entries) {
    if (!Object.hasOwn(schema.fields, key)) return Effect.fail(unknownParameter(tool, schema.fields, given, key))
    if (value === null || value === undefined) continue
    const error = overLimit(key, value)
    if (error !== undefined) return Effect.fail(error)
    input[key] = value
  }
  return Schema.decodeUnknownEffect(schema)(input).pipe(
    Effect.mapError((error) => P.toParameterError(tool, schema.fields, input, error.issue))
  )
}
