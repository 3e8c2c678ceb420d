/**
 * Validation of invoke params against the JSON Schema subset SLOP supports.
 *
 * @since 0.1.0
 * @internal
 */
import type { JsonSchema } from "../Node.ts"

const typeMatches = (type: string, value: unknown): boolean | undefined => {
  switch (type) {
    case "object":
      return typeof value === "object" && value !== null && !Array.isArray(value)
    case "string":
      return typeof value === "string"
    case "number":
      return typeof value === "number" && Number.isFinite(value)
    case "integer":
      return typeof value === "number" && Number.isInteger(value)
    case "boolean":
      return typeof value === "boolean"
    case "array":
      return Array.isArray(value)
    case "null":
      return value === null
    default:
      return undefined
  }
}

const article = (type: string) => (/^[aeiou]/.test(type) ? "an" : "a")

/**
 * Validates `value` against the JSON Schema subset SLOP supports (`type`, `required`, `properties`, `items`,
 * `enum`); unknown types pass. Returns the first problem, e.g. `params.body is required`.
 */
export const validate = (schema: JsonSchema | undefined, value: unknown, at: string): string | undefined => {
  if (schema === undefined || typeof schema !== "object" || schema === null) return undefined
  const type = schema.type
  if (typeof type === "string" && typeMatches(type, value) === false) {
    return `${at} must be ${article(type)} ${type}`
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => JSON.stringify(option) === JSON.stringify(value))) {
    return `${at} must be one of ${schema.enum.map((option) => JSON.stringify(option)).join(", ")}`
  }
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const record = value as Record<string, unknown>
    if (Array.isArray(schema.required)) {
      for (const key of schema.required) if (record[key] === undefined) return `${at}.${key} is required`
    }
    if (typeof schema.properties === "object" && schema.properties !== null) {
      for (const [key, inner] of Object.entries(schema.properties)) {
        if (record[key] === undefined) continue
        const problem = validate(inner, record[key], `${at}.${key}`)
        if (problem !== undefined) return problem
      }
    }
  }
  if (Array.isArray(value) && schema.items !== undefined) {
    for (let i = 0; i < value.length; i++) {
      const problem = validate(schema.items, value[i], `${at}[${i}]`)
      if (problem !== undefined) return problem
    }
  }
  return undefined
}
