/**
 * The benchmark session's figures as a regression test (the replay is deterministic): heed-proxy sends every result a
 * later turn needs whole, far fewer tokens than no management, and fewer than the clear-oldest baseline, which
 * drops some needed results.
 */
import { assert, describe, it } from "@effect/vitest"
import { TokenCounter } from "@heed/schema"
import * as Replay from "../src/Replay.ts"

describe("the 100-turn benchmark session", () => {
  it("heed sends every needed result whole and at least 80% fewer tokens than no management", () => {
    const steps = Replay.session()
    const none = Replay.totals(Replay.replay("none", steps, TokenCounter.countO200k))
    const baseline = Replay.totals(Replay.replay("clear-oldest", steps, TokenCounter.countO200k))
    const heed = Replay.totals(Replay.replay("heed", steps, TokenCounter.countO200k))
    assert.isAtLeast(heed.needed, 15)
    assert.strictEqual(heed.present, heed.needed)
    assert.isBelow(baseline.present, baseline.needed)
    assert.isBelow(heed.tokens, baseline.tokens)
    assert.isAtMost(heed.tokens, none.tokens * 0.2)
  })
})
