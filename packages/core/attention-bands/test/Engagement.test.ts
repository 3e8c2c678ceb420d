import { assert, describe, it } from "@effect/vitest"
import { Option } from "effect"
import * as fc from "fast-check"
import { AttentionConfig, Engagement } from "../src/index.ts"

describe("Engagement", () => {
  it("is false before any engagement, true within the window, and exactly thread_window_s still counts", () => {
    const engagement = Engagement.make(AttentionConfig.defaults)
    assert.strictEqual(engagement.windowS, 1800)
    assert.isFalse(engagement.isEngaged("#dev", 0))
    engagement.engage("#dev", 100)
    assert.isTrue(engagement.isEngaged("#dev", 100))
    assert.isTrue(engagement.isEngaged("#dev", 1900))
    assert.isFalse(engagement.isEngaged("#dev", 1900.001))
    assert.isFalse(engagement.isEngaged("#other", 100))
  })

  it("a later engagement restarts the window; forget drops it", () => {
    const engagement = Engagement.make(60)
    engagement.engage("#dev", 0)
    engagement.engage("#dev", 50)
    assert.isTrue(engagement.isEngaged("#dev", 110))
    assert.deepStrictEqual(engagement.lastEngagedAt("#dev"), Option.some(50))
    assert.isTrue(engagement.forget("#dev"))
    assert.isFalse(engagement.isEngaged("#dev", 60))
    engagement.engage("#dev", Number.NaN)
    assert.isTrue(Option.isNone(engagement.lastEngagedAt("#dev")))
  })

  it("isWithinWindow agrees with the strict > rule", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 0, max: 10_000 }), (last, now) => {
        assert.strictEqual(Engagement.isWithinWindow(Option.some(last), now, 1800), now - last <= 1800)
        assert.isFalse(Engagement.isWithinWindow(Option.none(), now, 1800))
      })
    )
  })

  it("keys DMs by peer, never by the agent's own nick", () => {
    assert.strictEqual(Engagement.dmTarget("spark-alice"), "DM:spark-alice")
    assert.notStrictEqual(Engagement.dmTarget("spark-alice"), Engagement.dmTarget("spark-bob"))
  })
})
