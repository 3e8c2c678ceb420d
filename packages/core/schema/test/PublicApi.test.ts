/**
 * Acceptance-style tests: every name comes from the package barrel `@heed/schema` and is used as issue 2
 * (item 6) writes it.
 */
import { assert, describe, it } from "@effect/vitest"
import { AttentionMeta, Salience, TokenBudget, TokenCounter, Urgency } from "@heed/schema"
import { Array as Arr, Effect, Exit, Order, Schema } from "effect"

const SALIENCE_MESSAGE = "salience must be a finite number between 0 and 1"
const BUDGET_MESSAGE = "a token budget must be a positive integer"

const failureMessage = <A>(schema: Schema.Codec<A, unknown>, input: unknown): string => {
  const exit = Schema.decodeUnknownExit(schema)(input)
  assert.isTrue(Exit.isFailure(exit), `expected ${String(input)} to be rejected`)
  return Exit.isFailure(exit) ? String(exit.cause) : ""
}

describe("Salience", () => {
  it("is a Schema of finite numbers in [0, 1]", () => {
    const decode = Schema.decodeUnknownSync(Salience.Salience)
    assert.strictEqual(decode(0), 0)
    assert.strictEqual(decode(0.42), 0.42)
    assert.strictEqual(decode(1), 1)
    assert.isTrue(Schema.is(Salience.Salience)(0.5))
    assert.isFalse(Schema.is(Salience.Salience)(1.5))
  })

  it("rejects NaN, infinities and out-of-range values with the same clear message", () => {
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0.1, 1.1]) {
      assert.include(failureMessage(Salience.Salience, bad), SALIENCE_MESSAGE, String(bad))
    }
    assert.isTrue(Exit.isFailure(Schema.decodeUnknownExit(Salience.Salience)("0.5")))
  })
})

describe("Urgency", () => {
  it("is a Schema of none | low | medium | high | critical", () => {
    const decode = Schema.decodeUnknownSync(Urgency.Urgency)
    for (const level of ["none", "low", "medium", "high", "critical"] as const) assert.strictEqual(decode(level), level)
    assert.include(
      failureMessage(Urgency.Urgency, "urgent"),
      "urgency must be one of none, low, medium, high, critical"
    )
  })

  it("rank orders the levels 0..4", () => {
    assert.deepStrictEqual((["none", "low", "medium", "high", "critical"] as const).map(Urgency.rank), [0, 1, 2, 3, 4])
  })

  it("max picks the most urgent, from arguments or from an array", () => {
    assert.strictEqual(Urgency.max("low", "critical", "medium"), "critical")
    assert.strictEqual(Urgency.max("high", "low"), "high")
    assert.strictEqual(Urgency.max(["low", "high", "medium"]), "high")
    assert.strictEqual(Urgency.max([]), "none")
  })

  it("an ordering: Urgency.Order (also Urgency.order) sorts least urgent first", () => {
    const mixed: Array<Urgency.Urgency> = ["critical", "none", "high", "low", "medium"]
    const sorted = ["none", "low", "medium", "high", "critical"]
    assert.deepStrictEqual(Arr.sort(mixed, Urgency.Order), sorted)
    assert.deepStrictEqual(Arr.sort(mixed, Urgency.Order), sorted)
    assert.strictEqual(Urgency.Order("low", "high"), -1)
    assert.strictEqual(Urgency.Order("high", "high"), 0)
    assert.strictEqual(Order.max(Urgency.Order)("medium", "low"), "medium")
  })
})

describe("AttentionMeta", () => {
  it("is a Schema struct with salience, pinned, changed, focus, urgency, reason, summary", () => {
    const meta = {
      salience: 0.7,
      pinned: false,
      changed: true,
      focus: true,
      urgency: "medium",
      reason: "new mail",
      summary: "Inbox: 2 unread"
    } as const
    assert.deepStrictEqual(Schema.decodeUnknownSync(AttentionMeta.AttentionMeta)(meta), meta)
    assert.deepStrictEqual(Object.keys(AttentionMeta.AttentionMeta.fields).sort(), [
      "changed",
      "focus",
      "pinned",
      "reason",
      "salience",
      "summary",
      "urgency"
    ])
  })

  it("validates its salience and urgency fields", () => {
    assert.include(failureMessage(AttentionMeta.AttentionMeta, { salience: Number.NaN }), SALIENCE_MESSAGE)
    assert.isTrue(Exit.isFailure(Schema.decodeUnknownExit(AttentionMeta.AttentionMeta)({ urgency: "asap" })))
  })
})

describe("TokenCounter", () => {
  it.effect("layerO200k: count(text) and countJson(value), synchronous", () =>
    Effect.gen(function* () {
      const counter = yield* TokenCounter.TokenCounter
      assert.strictEqual(counter.count("hello world"), 2)
      const value = { a: [1, 2, 3], b: "text" }
      assert.strictEqual(counter.countJson(value), counter.count(JSON.stringify(value)))
    }).pipe(Effect.provide(TokenCounter.layerO200k))
  )

  it.effect("layerApproximate: characters / 4", () =>
    Effect.gen(function* () {
      const counter = yield* TokenCounter.TokenCounter
      assert.strictEqual(counter.count("x".repeat(40)), 10)
      assert.strictEqual(counter.count("x".repeat(41)), 11)
      assert.strictEqual(counter.countJson("abcdef"), 2)
    }).pipe(Effect.provide(TokenCounter.layerApproximate))
  )

  it.effect("a configurable safety factor scales counts up", () =>
    Effect.gen(function* () {
      const counter = yield* TokenCounter.TokenCounter
      assert.strictEqual(counter.count("x".repeat(40)), 15)
    }).pipe(Effect.provide(TokenCounter.layer({ encoding: "approximate", safetyFactor: 1.5 })))
  )
})

describe("TokenBudget", () => {
  it("is a Schema of positive integers with a clear message", () => {
    assert.strictEqual(Schema.decodeUnknownSync(TokenBudget.TokenBudget)(4000), 4000)
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.include(failureMessage(TokenBudget.TokenBudget, bad), BUDGET_MESSAGE, String(bad))
    }
  })

  it("helpers: fits, remaining, split, pack", () => {
    assert.isTrue(TokenBudget.fits(10, 10))
    assert.strictEqual(TokenBudget.remaining(10, 4), 6)
    assert.deepStrictEqual(TokenBudget.split(100, [1, 1, 2]), [25, 25, 50])
    assert.deepStrictEqual(TokenBudget.pack([5, 9, 3], (n) => n, 10).taken, [5, 3])
  })
})
