import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { ToolError } from "../src/index.ts"

// A plain reference edit distance, to check suggestions against.
const editDistance = (a: string, b: string): number => {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!
      row[j] = Math.min(above + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1))
      diagonal = above
    }
  }
  return row[b.length]!
}

describe("ToolError", () => {
  it("suggest finds the closest valid value within distance 2, case-insensitively, or nothing", () => {
    assert.strictEqual(ToolError.suggest("CRITCAL", ["warning", "critical"]), "critical")
    assert.strictEqual(ToolError.suggest("warnin", ["warning", "critical"]), "warning")
    assert.isUndefined(ToolError.suggest("urgent", ["warning", "critical"]))
    fc.assert(
      fc.property(
        fc.string({ maxLength: 10 }),
        fc.array(fc.string({ maxLength: 10 }), { maxLength: 6 }),
        (v, valid) => {
          const s = ToolError.suggest(v, valid)
          return s === undefined || (valid.includes(s) && editDistance(v.toLowerCase(), s.toLowerCase()) <= 2)
        }
      )
    )
  })

  it("invalidParameter builds upstream's body with valid values and the suggestion", () => {
    const body = ToolError.invalidParameter({
      param: "level",
      value: "critcal",
      valid: ["warning", "critical"],
      message: "Invalid level."
    })
    assert.deepStrictEqual(body, {
      status: "error",
      error: {
        code: "invalid_parameter",
        message: "Invalid level. Did you mean 'critical'?",
        retryable: false,
        param: "level",
        value: "critcal",
        valid: ["warning", "critical"],
        suggestion: "critical"
      }
    })
  })

  it("fromFailure keeps the public fields of coded errors and hides everything else", () => {
    const coded = Object.assign(new Error("boom"), {
      _tag: "AwarenessError",
      code: "schema_already_exists",
      retryable: false,
      existing_id: "abc"
    })
    assert.deepStrictEqual(ToolError.fromFailure(coded), {
      status: "error",
      error: { code: "schema_already_exists", message: "boom", retryable: false, existing_id: "abc" }
    })
    const internal = ToolError.fromFailure(new Error("secret stack detail"))
    assert.strictEqual(internal.error.code, "internal_error")
    assert.notInclude(ToolError.toText(internal), "secret")
    const nested = ToolError.fromFailure(ToolError.make({ code: "not_found", message: "gone", retryable: false }))
    assert.strictEqual(nested.error.code, "not_found")
  })
})
