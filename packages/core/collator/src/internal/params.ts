/**
 * The building blocks of the awareness tools' parameter schemas: strings a database can store, upstream's loose
 * coercions (numbers, booleans and JSON objects sent as strings, tags as a comma-separated string) as Schema
 * transformations, bounded JSON values, ISO timestamps, and the JSON Schema each parameter advertises (kept on the
 * schema under the `heed/json` annotation, so the tool's schema is the one source of both).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"
import * as SchemaGetter from "effect/SchemaGetter"
import type * as SchemaIssue from "effect/SchemaIssue"
import { AwarenessError } from "../AwarenessError.ts"
import * as Limits from "../Limits.ts"
import { echo, invalidParameter } from "./errors.ts"
import { didYouMean } from "./text.ts"
import { parseIso, toIso } from "./time.ts"

/** The annotation key holding a parameter's advertised JSON Schema. */
export const jsonKey = "heed/json"
/** The annotation key holding a parameter's expected-value phrase ("an integer"). */
export const expectedKey = "heed/expected"
/** The annotation key holding an enum parameter's valid values. */
export const validKey = "heed/valid"
/** The annotation key marking a parameter that is accepted but not advertised (an alias). */
export const hiddenKey = "heed/hidden"

/** How deep a free-form JSON parameter may nest, and how many values it may hold. */
export const maxJsonDepth = 32
const maxJsonNodes = 100_000

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** Why a string cannot be stored (a lone surrogate or a NUL: PostgreSQL refuses both), or `undefined`. */
export const unstorable = (text: string): string | undefined => {
  if (text.includes("\u0000")) return "must not contain a NUL character (\\u0000)"
  if (loneSurrogate.test(text)) return "must not contain a lone UTF-16 surrogate (e.g. \\ud800)"
  return undefined
}

/** Why a JSON value cannot be stored (too deep, too large, or a string inside it that cannot be), or `undefined`. */
export const unstorableJson = (value: unknown): string | undefined => {
  let nodes = 0
  const stack: Array<readonly [unknown, number]> = [[value, 1]]
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!
    if (++nodes > maxJsonNodes) return `must hold at most ${maxJsonNodes} values`
    if (typeof current === "string") {
      const problem = unstorable(current)
      if (problem !== undefined) return problem
    } else if (typeof current === "number") {
      if (!Number.isFinite(current)) return "must contain only finite numbers"
    } else if (current !== null && typeof current === "object") {
      if (depth > maxJsonDepth) return `must not nest deeper than ${maxJsonDepth} levels`
      if (Array.isArray(current)) {
        for (const item of current) stack.push([item, depth + 1])
      } else {
        for (const [key, item] of Object.entries(current)) {
          const problem = unstorable(key)
          if (problem !== undefined) return `keys ${problem}`
          stack.push([item, depth + 1])
        }
      }
    } else if (typeof current !== "boolean") {
      return "must be JSON"
    }
  }
  return undefined
}

const storable = Schema.makeFilter((text: string) => unstorable(text) ?? true)
const storableJson = Schema.makeFilter((value: unknown) => unstorableJson(value) ?? true)

/** A string the store can keep (no lone surrogates, no NUL). */
export const Text = Schema.String.check(storable)

/** A required string: not blank. */
export const NonBlank = Text.check(Schema.makeFilter((text: string) => text.trim().length > 0 || "must not be empty"))

const json = <S extends Schema.Top>(schema: S, advertised: Record<string, unknown>, expected: string): S =>
  schema.annotate({ [jsonKey]: advertised, [expectedKey]: expected }) as S

const numberToString = Schema.Finite.pipe(
  Schema.decodeTo(Text, { decode: SchemaGetter.transform(String), encode: SchemaGetter.transform(Number) })
)
const booleanToString = Schema.Boolean.pipe(
  Schema.decodeTo(Text, {
    decode: SchemaGetter.transform(String),
    encode: SchemaGetter.transform((text: string) => text === "true")
  })
)

/** A string parameter (numbers and booleans sent in its place are turned into their text, as upstream does). */
export const string = json(Schema.Union([Text, numberToString, booleanToString]), { type: "string" }, "a string")

/** A required, non-blank string parameter. */
export const requiredString = json(
  Schema.Union([NonBlank, numberToString, booleanToString]),
  { type: "string" },
  "a non-empty string"
)

const numeric = (s: string): number => (s.trim() === "" ? Number.NaN : Number(s))
const fromNumericString = <S extends Schema.Codec<number, number>>(target: S) =>
  Schema.String.pipe(
    Schema.decodeTo(target, { decode: SchemaGetter.transform(numeric), encode: SchemaGetter.transform(String) })
  )

/**
 * A whole number from `minimum` to `maximum` (default `Limits.maxCount`; numeric strings are accepted). A value
 * beyond `maximum` names the limit, so a duration can never reach past what the store and `Date` can hold.
 */
export const integer = (minimum: number, maximum: number = Limits.maxCount) => {
  const target = Schema.Number.check(
    Schema.makeFilter((n: number) => Number.isInteger(n) || "must be a whole number"),
    Schema.makeFilter((n: number) => n >= minimum || `must be at least ${minimum}`),
    Schema.makeFilter((n: number) => n <= maximum || `must be at most ${maximum}`)
  )
  return json(
    Schema.Union([target, fromNumericString(target)]),
    { type: "integer", minimum, maximum },
    `a whole number from ${minimum} to ${maximum}`
  )
}

/** A finite number (numeric strings are accepted). */
export const number = json(
  Schema.Union([Schema.Finite, fromNumericString(Schema.Finite)]),
  { type: "number" },
  "a finite number"
)

/** A boolean (`"true"` and `"false"` are accepted). */
export const boolean = json(
  Schema.Union([
    Schema.Boolean,
    Schema.Literals(["true", "false"]).pipe(
      Schema.decodeTo(Schema.Boolean, {
        decode: SchemaGetter.transform((text: "true" | "false") => text === "true"),
        encode: SchemaGetter.transform((flag: boolean) => (flag ? "true" : "false"))
      })
    )
  ]),
  { type: "boolean" },
  "true or false"
)

/** One of `valid` (the parameter's error lists them with a did-you-mean suggestion). */
export const literals = <const L extends ReadonlyArray<string>>(valid: L) =>
  json(
    Schema.Union([
      Schema.Literals(valid),
      // A boolean sent for a "true"/"false" enum (include_history) is its text, as upstream's validation does.
      Schema.Boolean.pipe(
        Schema.decodeTo(Schema.Literals(valid), {
          decode: SchemaGetter.transform((flag: boolean) => String(flag) as L[number]),
          encode: SchemaGetter.transform((text: L[number]) => text === "true")
        })
      )
    ]),
    { type: "string", enum: valid },
    `one of ${valid.join(", ")}`
  ).annotate({ [validKey]: valid })

/** A list of strings; a single string is split on commas (`"a, b"` is `["a", "b"]`), as upstream accepts it. */
export const tags = json(
  Schema.Union([
    Schema.Array(Text),
    Text.pipe(
      Schema.decodeTo(Schema.Array(Text), {
        decode: SchemaGetter.transform((text: string) =>
          text
            .split(",")
            .map((tag) => tag.trim())
            .filter((tag) => tag !== "")
        ),
        encode: SchemaGetter.transform((list: ReadonlyArray<string>) => list.join(","))
      })
    )
  ]),
  { type: "array", items: { type: "string" } },
  "an array of strings"
)

/** Any JSON value the store can keep (bounded depth and size, storable strings). */
export const JsonValue = Schema.Unknown.check(storableJson)

const JsonObjectValue = Schema.Record(Schema.String, Schema.Unknown).check(storableJson)

/** A JSON object; a string holding a JSON object is parsed, as upstream accepts it. */
export const object = json(
  Schema.Union([
    JsonObjectValue,
    Schema.String.pipe(
      Schema.decodeTo(JsonObjectValue, {
        decode: SchemaGetter.transform((text: string): Record<string, unknown> => {
          try {
            const parsed: unknown = JSON.parse(text)
            return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)
              ? (parsed as Record<string, unknown>)
              : (undefined as never)
          } catch {
            return undefined as never
          }
        }),
        encode: SchemaGetter.transform((value: Record<string, unknown>) => JSON.stringify(value))
      })
    )
  ]),
  { type: "object" },
  "a JSON object"
)

/** A JSON value of the listed JSON types (advertised as such). */
export const jsonOf = (types: ReadonlyArray<string>, expected: string) =>
  json(JsonValue, { type: types.length === 1 ? types[0] : types }, expected)

/**
 * An ISO 8601 timestamp between the years 1 and 9999 (naive timestamps are UTC), normalised to UTC (`…Z`).
 * Impossible dates (`2027-02-30`) are refused rather than rolled over.
 */
export const timestamp = json(
  Text.check(Schema.makeFilter((text: string) => timestampProblem(text) ?? true)).pipe(
    Schema.decodeTo(Text, {
      decode: SchemaGetter.transform((text: string) => toIso(parseIso(text) ?? 0)),
      encode: SchemaGetter.transform((text: string) => text)
    })
  ),
  { type: "string", format: "date-time" },
  'an ISO 8601 timestamp (e.g. "2026-03-19T15:00:00Z")'
)

const yearPart = /^(\d{4})-/

/** Why `text` is not an acceptable timestamp, or `undefined`. `parseIso` refuses impossible dates (`2027-02-30`). */
export const timestampProblem = (text: string): string | undefined => {
  if (text.trim() === "") return "must be an ISO 8601 timestamp, not an empty value"
  const ms = parseIso(text)
  const year = yearPart.exec(text)
  if (ms === undefined || year === null) {
    return 'is not a valid ISO 8601 timestamp with a real date (e.g. "2026-03-19T15:00:00Z")'
  }
  const normalised = new Date(ms).getUTCFullYear()
  if (Number(year[1]) < Limits.minYear || normalised < Limits.minYear || normalised > Limits.maxYear) {
    return "must be a date in the years 0001 to 9999"
  }
  return undefined
}

// ---------------------------------------------------------------------------------------------------------------
// Issues as tool errors

/** The first parameter an issue points at, and the issue below that pointer. */
const locate = (issue: SchemaIssue.Issue): { readonly param?: string; readonly issue: SchemaIssue.Issue } => {
  switch (issue._tag) {
    case "Pointer":
      return issue.path.length > 0 ? { param: String(issue.path[0]), issue: issue.issue } : locate(issue.issue)
    case "Composite":
    case "AnyOf":
      for (const inner of issue.issues) {
        const found = locate(inner)
        if (found.param !== undefined) return found
      }
      return { issue }
    case "Filter":
    case "Encoding":
      return locate(issue.issue)
    default:
      return { issue }
  }
}

/** The first message one of heed's own checks attached below `issue` ("must be at least 1"). */
const ownMessage = (issue: SchemaIssue.Issue): string | undefined => {
  switch (issue._tag) {
    case "InvalidValue":
      return typeof issue.annotations?.message === "string" ? issue.annotations.message : undefined
    case "Pointer":
    case "Filter":
    case "Encoding":
      return ownMessage(issue.issue)
    case "Composite":
    case "AnyOf":
      for (const inner of issue.issues) {
        const message = ownMessage(inner)
        if (message !== undefined) return message
      }
      return undefined
    default:
      return undefined
  }
}

const isMissing = (issue: SchemaIssue.Issue): boolean =>
  issue._tag === "MissingKey" || ((issue._tag === "Pointer" || issue._tag === "Filter") && isMissing(issue.issue))

/**
 * The `invalid_parameter` error for a failed decode of a tool's parameters: names the parameter, says what it must
 * be (heed's own check message, else the parameter's expected phrase), lists the valid values of an enum with a
 * did-you-mean suggestion, and echoes the given value in bounded form.
 */
export const toParameterError = (
  tool: string,
  fields: Schema.Struct.Fields,
  input: Readonly<Record<string, unknown>>,
  issue: SchemaIssue.Issue
): AwarenessError => {
  const located = locate(issue)
  const param = located.param
  if (param === undefined || !Object.hasOwn(fields, param)) {
    return new AwarenessError({
      code: "invalid_parameter",
      message: `Invalid arguments for ${tool}.`,
      retryable: false
    })
  }
  const annotations = SchemaAST.resolve(fields[param]!.ast) ?? {}
  if (isMissing(located.issue) || !(param in input)) {
    const description = typeof annotations.description === "string" ? `: ${annotations.description}` : ""
    return invalidParameter(param, `${tool} requires '${param}'${description}`)
  }
  const value = input[param]
  const valid = annotations[validKey] as ReadonlyArray<string> | undefined
  if (valid !== undefined) {
    const suggestion = typeof value === "string" ? didYouMean(value, valid) : undefined
    const shown = typeof value === "string" ? ` '${echo(value)}'` : ""
    return invalidParameter(
      param,
      `Invalid ${param}${shown}; expected one of ${valid.join(", ")}.` +
        (suggestion === undefined ? "" : ` Did you mean '${suggestion}'?`),
      { value, valid, suggestion }
    )
  }
  const own = ownMessage(located.issue)
  const expected = typeof annotations[expectedKey] === "string" ? annotations[expectedKey] : "valid"
  const isTimestamp = (annotations[jsonKey] as { format?: unknown } | undefined)?.format === "date-time"
  return invalidParameter(param, own === undefined ? `'${param}' must be ${expected}.` : `'${param}' ${own}.`, {
    value,
    ...(isTimestamp ? { help_url: "https://en.wikipedia.org/wiki/ISO_8601" } : {})
  })
}
