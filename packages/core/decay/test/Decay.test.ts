import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { Decay } from "../src/index.ts"

const AUTH = {
  id: "auth-bug",
  status: "concluded" as const,
  summary: "Fixed 401 errors: refresh tokens never auto-called. Added axios interceptor."
}
const PERF = {
  id: "perf-fix",
  status: "concluded" as const,
  summary: "Dashboard query was slow because of a missing JOIN index; added the index."
}
const OPEN = { id: "new-feature", status: "open" as const, summary: null }

const state = (overrides: Partial<Decay.DecayState> = {}): Decay.DecayState => ({
  efforts: [AUTH, PERF, OPEN],
  expanded: ["auth-bug"],
  last_referenced_turn: { "auth-bug": 1 },
  summary_last_referenced_turn: {},
  ...overrides
})

/** Runs unreferenced turns from..to, returning the turn each id decayed. */
const runQuiet = (initial: Decay.DecayState, from: number, to: number, config?: Partial<Decay.DecayConfig>) => {
  let current = initial
  const decayedAt: Record<string, number> = {}
  for (let turn = from; turn <= to; turn++) {
    const result = Decay.check(current, turn, "what's the weather?", "Sunny.", config)
    for (const id of result.decayed) decayedAt[id] = turn
    current = result.state
  }
  return { state: current, decayedAt }
}

describe("Decay.check (upstream tests)", () => {
  it("expanded at turn 1: no decay at turns 2-3, decays at turn 4", () => {
    const s = state()
    const t2 = Decay.check(s, 2, "unrelated", "unrelated")
    assert.deepStrictEqual(t2.decayed, [])
    const t3 = Decay.check(t2.state, 3, "unrelated", "unrelated")
    assert.deepStrictEqual(t3.decayed, [])
    const t4 = Decay.check(t3.state, 4, "unrelated", "unrelated")
    assert.deepStrictEqual(t4.decayed, ["auth-bug"])
    assert.deepStrictEqual(t4.state.expanded, [])
    assert.isUndefined(t4.state.last_referenced_turn["auth-bug"])
    assert.deepStrictEqual(t4.collapses, [{ id: "auth-bug", inactive_turns: 3, reason: "threshold" }])
  })

  it("a reference at turn 4 resets the counter; the effort then decays at turn 7", () => {
    const t4 = Decay.check(state(), 4, "the refresh tokens expire", "ok")
    assert.deepStrictEqual(t4.decayed, [])
    assert.strictEqual(t4.state.last_referenced_turn["auth-bug"], 4)
    const { decayedAt } = runQuiet(t4.state, 5, 8)
    assert.strictEqual(decayedAt["auth-bug"], 7)
  })

  it("two expanded efforts decay independently", () => {
    const s = state({ expanded: ["auth-bug", "perf-fix"], last_referenced_turn: { "auth-bug": 1, "perf-fix": 1 } })
    const t2 = Decay.check(s, 2, "is the dashboard query using the JOIN now?", "yes")
    assert.strictEqual(t2.state.last_referenced_turn["perf-fix"], 2)
    const { decayedAt } = runQuiet(t2.state, 3, 6)
    assert.strictEqual(decayedAt["auth-bug"], 4)
    assert.strictEqual(decayedAt["perf-fix"], 5)
  })

  it("open efforts are unaffected", () => {
    const s = state({ expanded: ["new-feature"], last_referenced_turn: { "new-feature": 1 } })
    const { decayedAt, state: after } = runQuiet(s, 2, 30)
    assert.deepStrictEqual(decayedAt, {})
    assert.deepStrictEqual(after.expanded, ["new-feature"])
  })

  it("no expanded efforts gives no decays", () => {
    const result = Decay.check(state({ expanded: [], last_referenced_turn: {} }), 10, "x", "y")
    assert.deepStrictEqual(result.decayed, [])
  })

  it("a reference in the assistant response alone counts", () => {
    const result = Decay.check(state(), 4, "go on", "As in auth-bug, the interceptor retries.")
    assert.deepStrictEqual(result.decayed, [])
    assert.strictEqual(result.state.last_referenced_turn["auth-bug"], 4)
  })

  it("a missing last_referenced_turn counts as turn 0", () => {
    const result = Decay.check(state({ last_referenced_turn: {} }), 3, "x", "y")
    assert.deepStrictEqual(result.decayed, ["auth-bug"])
  })

  it("does not mutate its input", () => {
    const s = state()
    const copy = structuredClone(s)
    Decay.check(s, 4, "x", "y")
    assert.deepStrictEqual(s, copy)
  })
})

describe("summary eviction (upstream tests)", () => {
  const concluded = state({ expanded: [], last_referenced_turn: {} })

  it("a reference records the turn", () => {
    const result = Decay.check(
      { ...concluded, summary_last_referenced_turn: { "auth-bug": 1, "perf-fix": 1 } },
      5,
      "auth-bug again",
      "ok"
    )
    assert.strictEqual(result.state.summary_last_referenced_turn["auth-bug"], 5)
    assert.strictEqual(result.state.summary_last_referenced_turn["perf-fix"], 1)
  })

  it("an unreferenced summary seen for the first time gets the current turn (grace)", () => {
    const result = Decay.check(concluded, 7, "hello", "hi")
    assert.strictEqual(result.state.summary_last_referenced_turn["auth-bug"], 7)
    assert.isUndefined(result.state.summary_last_referenced_turn["new-feature"])
  })

  it("evicted at 1 + 20, not at turn 15 after a reference at turn 10", () => {
    const s = { ...concluded, summary_last_referenced_turn: { "auth-bug": 1, "perf-fix": 10 } }
    assert.isTrue(Decay.evicted(s, 21).has("auth-bug"))
    assert.isFalse(Decay.evicted(s, 20).has("auth-bug"))
    assert.isFalse(Decay.evicted(s, 15).has("perf-fix"))
  })

  it("an id without an entry is never evicted", () => {
    assert.strictEqual(Decay.evicted(concluded, 100).size, 0)
  })

  it("the boundary is inclusive: 20 evicts, 19 does not", () => {
    const s = { ...concluded, summary_last_referenced_turn: { "auth-bug": 30 } }
    assert.isTrue(Decay.evicted(s, 50).has("auth-bug"))
    assert.isFalse(Decay.evicted(s, 49).has("auth-bug"))
  })

  it("the eviction threshold is configurable", () => {
    const s = { ...concluded, summary_last_referenced_turn: { "auth-bug": 1 } }
    assert.isTrue(Decay.evicted(s, 6, { summary_eviction_threshold: 5 }).has("auth-bug"))
  })
})

describe("heed additions", () => {
  it("config may be partial; defaults fill the rest; bad values fall back", () => {
    assert.deepStrictEqual(Decay.resolveConfig({ decay_threshold: 5 }), {
      decay_threshold: 5,
      min_keyword_overlap: 2,
      summary_eviction_threshold: 20,
      ambient_window: 10,
      token_budget: undefined
    })
    assert.strictEqual(Decay.resolveConfig({ decay_threshold: -1 }).decay_threshold, 3)
    assert.strictEqual(Decay.resolveConfig({ decay_threshold: Number.NaN }).decay_threshold, 3)
  })

  it("the session threshold is configurable", () => {
    const { decayedAt } = runQuiet(state(), 2, 10, { decay_threshold: 5 })
    assert.strictEqual(decayedAt["auth-bug"], 6)
  })

  it("per-effort thresholds override the session's", () => {
    const s = state({
      expanded: ["auth-bug", "perf-fix"],
      last_referenced_turn: { "auth-bug": 1, "perf-fix": 1 },
      decay_thresholds: { "perf-fix": 6 }
    })
    const { decayedAt } = runQuiet(s, 2, 10)
    assert.strictEqual(decayedAt["auth-bug"], 4)
    assert.strictEqual(decayedAt["perf-fix"], 7)
  })

  it("token budget: the largest idle expansions collapse first, referenced ones stay", () => {
    const big = { id: "big", status: "concluded" as const, summary: "Large migration notes" }
    const mid = { id: "mid", status: "concluded" as const, summary: "Medium refactor notes" }
    const s: Decay.DecayState = {
      efforts: [AUTH, big, mid],
      expanded: ["auth-bug", "big", "mid"],
      last_referenced_turn: { "auth-bug": 1, big: 1, mid: 1 },
      summary_last_referenced_turn: {},
      expanded_tokens: { "auth-bug": 5000, big: 3000, mid: 2000 }
    }
    // auth-bug is referenced this turn, so only big and mid are idle; 10000 > 6000: drop big (3000) then mid? 7000 > 6000.
    const result = Decay.check(s, 2, "the auth-bug again", "ok", { token_budget: 6000 })
    assert.deepStrictEqual(result.decayed, ["big", "mid"])
    assert.deepStrictEqual(result.state.expanded, ["auth-bug"])
    assert.deepStrictEqual(
      result.collapses.map((c) => c.reason),
      ["token_budget", "token_budget"]
    )
    // With a looser budget only the largest idle one goes.
    const loose = Decay.check(s, 2, "the auth-bug again", "ok", { token_budget: 8000 })
    assert.deepStrictEqual(loose.decayed, ["big"])
    assert.deepStrictEqual(loose.state.expanded_tokens, { "auth-bug": 5000, mid: 2000 })
  })

  it("without a budget, sizes change nothing", () => {
    const s = state({ expanded_tokens: { "auth-bug": 1_000_000 } })
    assert.deepStrictEqual(Decay.check(s, 2, "x", "y").decayed, [])
  })
})

describe("properties", () => {
  const threshold = fc.integer({ min: 1, max: 8 })

  it("an effort referenced every turn never decays", () => {
    fc.assert(
      fc.property(threshold, fc.integer({ min: 1, max: 40 }), (t, turns) => {
        let s = state()
        for (let turn = 2; turn <= turns + 1; turn++) {
          const r = Decay.check(s, turn, "more on the auth bug", "sure", { decay_threshold: t })
          if (r.decayed.length > 0) return false
          s = r.state
        }
        return s.expanded.includes("auth-bug")
      })
    )
  })

  it("an unreferenced effort decays at exactly its threshold", () => {
    fc.assert(
      fc.property(threshold, fc.integer({ min: 0, max: 50 }), (t, start) => {
        const s = state({ last_referenced_turn: { "auth-bug": start } })
        const { decayedAt } = runQuiet(s, start + 1, start + t + 5, { decay_threshold: t })
        return decayedAt["auth-bug"] === start + t
      })
    )
  })

  it("open efforts never decay", () => {
    fc.assert(
      fc.property(threshold, fc.integer({ min: 1, max: 60 }), fc.string(), (t, turns, text) => {
        let s = state({ expanded: ["new-feature"], last_referenced_turn: {} })
        for (let turn = 1; turn <= turns; turn++) {
          const r = Decay.check(s, turn, text, text, { decay_threshold: t })
          if (r.decayed.includes("new-feature")) return false
          s = r.state
        }
        return true
      })
    )
  })
})

describe("robustness", () => {
  it("a state with missing fields from an untyped caller does not throw", () => {
    // biome-ignore lint/suspicious/noExplicitAny: deliberately incomplete input from an untyped caller
    const partial = { efforts: [AUTH], expanded: ["auth-bug"] } as any
    const result = Decay.check(partial, 5, "x", "y")
    assert.deepStrictEqual(result.decayed, ["auth-bug"])
    assert.strictEqual(Decay.evicted(partial, 5).size, 0)
  })
})
