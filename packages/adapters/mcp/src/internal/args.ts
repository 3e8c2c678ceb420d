/**
 * Validation and light coercion of tool arguments against the catalogue, producing upstream error bodies.
 *
 * @since 0.1.0
 */
import * as Predicate from "effect/Predicate"
import * as Result from "effect/Result"
import type { Param, ToolDefinition } from "../Catalog.ts"
import * as ToolError from "../ToolError.ts"

const typeName = (param: Param): string =>
  param.type === "string[]" ? "an array of strings" : param.type === "integer" ? "an integer" : `a ${param.type}`

const coerce = (param: Param, value: unknown): Result.Result<unknown, string> => {
  switch (param.type) {
    case "any":
      return Result.succeed(value)
    case "string":
      return Predicate.isString(value)
        ? Result.succeed(value)
        : Predicate.isNumber(value) || Predicate.isBoolean(value)
          ? Result.succeed(String(value))
          : Result.fail(typeName(param))
    case "integer":
    case "number": {
      const n = Predicate.isNumber(value)
        ? value
        : Predicate.isString(value) && value.trim() !== ""
          ? Number(value)
          : Number.NaN
      if (!Number.isFinite(n) || (param.type === "integer" && !Number.isInteger(n))) return Result.fail(typeName(param))
      return Result.succeed(n)
    }
    case "boolean":
      if (Predicate.isBoolean(value)) return Result.succeed(value)
      if (value === "true") return Result.succeed(true)
      if (value === "false") return Result.succeed(false)
      return Result.fail(typeName(param))
    case "object":
      if (Predicate.isObject(value) && !Array.isArray(value)) return Result.succeed(value)
      if (Predicate.isString(value)) {
        try {
          const parsed: unknown = JSON.parse(value)
          if (Predicate.isObject(parsed) && !Array.isArray(parsed)) return Result.succeed(parsed)
        } catch {
          // fall through to the error below
        }
      }
      return Result.fail(typeName(param))
    case "string[]":
      if (Array.isArray(value) && value.every(Predicate.isString)) return Result.succeed(value)
      if (Predicate.isString(value)) {
        return Result.succeed(
          value
            .split(",")
            .map((tag) => tag.trim())
            .filter((tag) => tag !== "")
        )
      }
      return Result.fail(typeName(param))
  }
}

/**
 * Checks the arguments of one call: required parameters, JSON types (numbers and booleans sent as strings are
 * coerced, as upstream's validation does), enums with did-you-mean, minimums, and unknown parameter names close to
 * a known one. `null` counts as omitted. Unknown names far from every parameter are passed through unchanged
 * (the awareness service may accept more than the catalogue lists).
 */
export const validate = (
  tool: ToolDefinition,
  payload: unknown
): Result.Result<Record<string, unknown>, ToolError.ErrorBody> => {
  if (payload !== undefined && payload !== null && (!Predicate.isObject(payload) || Array.isArray(payload))) {
    return Result.fail(
      ToolError.make({
        code: "invalid_parameter",
        message: `The arguments of ${tool.name} must be a JSON object.`,
        retryable: false
      })
    )
  }
  const input = (payload ?? {}) as Record<string, unknown>
  const names = Object.keys(tool.params)
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(input)) {
    if (key in tool.params) continue
    const suggestion = ToolError.suggest(key, names)
    if (suggestion !== undefined && !(suggestion in input)) {
      return Result.fail(
        ToolError.invalidParameter({
          param: key,
          value: key,
          valid: names,
          message: `${tool.name} has no parameter '${key}'.`
        })
      )
    }
    if (value !== undefined && value !== null) out[key] = value
  }
  for (const [name, param] of Object.entries(tool.params)) {
    const raw = input[name]
    if (raw === undefined || raw === null) {
      if (param.required === true) {
        return Result.fail(
          ToolError.make({
            code: "invalid_parameter",
            message: `${tool.name} requires '${name}': ${param.description}`,
            retryable: false,
            param: name
          })
        )
      }
      continue
    }
    const coerced = coerce(param, raw)
    if (Result.isFailure(coerced)) {
      return Result.fail(
        ToolError.make({
          code: "invalid_parameter",
          message: `'${name}' must be ${coerced.failure}.`,
          retryable: false,
          param: name,
          value: raw
        })
      )
    }
    const value = coerced.success
    if (param.enum !== undefined && !param.enum.includes(value as string)) {
      return Result.fail(
        ToolError.invalidParameter({
          param: name,
          value,
          valid: param.enum,
          message: `Invalid ${name} '${String(value)}'; expected one of ${param.enum.join(", ")}.`
        })
      )
    }
    if (param.minimum !== undefined && Predicate.isNumber(value) && value < param.minimum) {
      return Result.fail(
        ToolError.make({
          code: "invalid_parameter",
          message: `'${name}' must be at least ${param.minimum}.`,
          retryable: false,
          param: name,
          value
        })
      )
    }
    out[name] = value
  }
  return Result.succeed(out)
}
