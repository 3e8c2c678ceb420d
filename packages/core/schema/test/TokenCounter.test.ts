import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import { TokenCounter } from "../src/index.ts"

describe("TokenCounter", () => {
  it.effect("layerO200k counts with o200k_base", () =>
    Effect.gen(function* () {
      const tokens = yield* TokenCounter.TokenCounter
      assert.strictEqual(tokens.encoding, "o200k")
      assert.strictEqual(tokens.count("hello world"), 2)
      assert.strictEqual(tokens.count(""), 0)
      // "<|endoftext|>" is data here, not a control token: counted, never rejected.
      assert.isAbove(tokens.count("a <|endoftext|> b"), 3)
    }).pipe(Effect.provide(TokenCounter.layerO200k))
  )

  it.effect("layerApproximate counts characters / 4, rounded up", () =>
    Effect.gen(function* () {
      const tokens = yield* TokenCounter.TokenCounter
      assert.strictEqual(tokens.count("abcd"), 1)
      assert.strictEqual(tokens.count("abcde"), 2)
      assert.strictEqual(tokens.count(""), 0)
    }).pipe(Effect.provide(TokenCounter.layerApproximate))
  )

  it.effect("countJson counts compact JSON", () =>
    Effect.gen(function* () {
      const tokens = yield* TokenCounter.TokenCounter
      const value = { status: "ok", sources: [1, 2, 3] }
      assert.strictEqual(tokens.countJson(value), TokenCounter.countO200k(JSON.stringify(value)))
      assert.strictEqual(tokens.countJson(undefined), 0)
    }).pipe(Effect.provide(TokenCounter.layerO200k))
  )

  it.effect("a safety factor scales counts up, rounding up", () =>
    Effect.gen(function* () {
      const tokens = yield* TokenCounter.TokenCounter
      const text = "The quick brown fox jumps over the lazy dog."
      assert.strictEqual(tokens.safetyFactor, 1.2)
      assert.strictEqual(tokens.count(text), Math.ceil(TokenCounter.countO200k(text) * 1.2))
    }).pipe(Effect.provide(TokenCounter.layer({ safetyFactor: 1.2 })))
  )

  it.effect("bad options fail with TokenCounterConfigError naming the option", () =>
    Effect.gen(function* () {
      const tooSmall = yield* Effect.flip(TokenCounter.make({ safetyFactor: 0.5 }))
      assert.strictEqual(tooSmall._tag, "TokenCounterConfigError")
      assert.include(tooSmall.message, "safetyFactor")
      // biome-ignore lint/suspicious/noExplicitAny: deliberately invalid input from an untyped caller
      const badEncoding = yield* Effect.flip(TokenCounter.make({ encoding: "cl100k" } as any))
      assert.include(badEncoding.message, "encoding")
    })
  )

  it("toCompactJson never throws on bigints or cycles", () => {
    const cyclic: Record<string, unknown> = { a: 1 }
    cyclic.self = cyclic
    assert.strictEqual(TokenCounter.toCompactJson(cyclic), '{"a":1,"self":"[Circular]"}')
    assert.strictEqual(TokenCounter.toCompactJson({ n: 10n }), '{"n":"10"}')
    const shared = { x: 1 }
    assert.strictEqual(TokenCounter.toCompactJson([shared, shared]), '[{"x":1},{"x":1}]')
  })

  it("o200k counts are additive-ish and never exceed bytes; approximate is monotonic", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), fc.string({ maxLength: 200 }), (a, b) => {
        assert.isAtMost(TokenCounter.countO200k(a), new TextEncoder().encode(a).length)
        assert.isAtMost(TokenCounter.countApproximate(a), TokenCounter.countApproximate(a + b))
      })
    )
  })
})
