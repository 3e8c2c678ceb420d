import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { ToolError } from "../src/index.ts"

describe("ToolError", () => {
  it("distance is the Levenshtein distance", () => {
    assert.strictEqual(ToolError.distance("critcal", "critical"), 1)
    assert.strictEqual(ToolError.distance("warn", "warning"), 3)
    assert.strictEqual(ToolError.distance("", "abc"), 3)
    assert.strictEqual(ToolError.distance("same", "same"), 0)
  })

  it("distance is symmetric and zero only for equal strings", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }), (a, b) => {
        const d = ToolError.distance(a, b)
        return d === ToolError.distance(b, a) && (d === 0) === (a === b) && d <= Math.max(a.length, b.length)
      })
    )
  })

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
          return s === undefined || (valid.includes(s) && ToolError.distance(v.toLowerCase(), s.toLowerCase()) <= 2)
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
