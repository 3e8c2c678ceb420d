/**
 * The edge of every awareness tool call: the advertised JSON Schema of a parameter struct, and decoding untrusted
 * parameters into a tool's input (null as omitted, misspelled names caught, the first bad parameter named).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"
import { AwarenessError } from "../AwarenessError.ts"
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
      ...(annotations.description === undefined ? {} : { description: annotations.description }),
      ...(annotations.default === undefined ? {} : { default: annotations.default })
    }
    if (field.ast.context?.isOptional !== true) requiredNames.push(key)
  }
  return requiredNames.length === 0
    ? { type: "object", properties }
    : { type: "object", properties, required: requiredNames }
}

/** A parameter name that is not the tool's but close to one of its names: an error naming it, or `undefined`. */
const misspelled = (
  tool: string,
  fields: Schema.Struct.Fields,
  given: ReadonlySet<string>,
  key: string
): AwarenessError | undefined => {
  const valid = Object.keys(fields)
  const suggestion = didYouMean(key, valid)
  if (suggestion === undefined || given.has(suggestion)) return undefined
  return invalidParameter(key, `${tool} has no parameter '${echo(key)}'. Did you mean '${suggestion}'?`, {
    value: key,
    valid,
    suggestion
  })
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
    if (value === null || value === undefined) continue
    if (Object.hasOwn(schema.fields, key)) {
      input[key] = value
      continue
    }
    const error = misspelled(tool, schema.fields, given, key)
    if (error !== undefined) return Effect.fail(error)
  }
  return Schema.decodeUnknownEffect(schema)(input).pipe(
    Effect.mapError((error) => P.toParameterError(tool, schema.fields, input, error.issue))
  )
}
