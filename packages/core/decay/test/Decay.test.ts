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

describe("Decay: behaviours pinned by mutation testing", () => {
  const sized = (id: string) => ({ id, status: "concluded" as const, summary: `Notes on ${id}` })

  it("a token budget that is not a non-negative finite number is ignored", () => {
    assert.isUndefined(Decay.resolveConfig({ token_budget: Number.POSITIVE_INFINITY }).token_budget)
    assert.isUndefined(Decay.resolveConfig({ token_budget: -1 }).token_budget)
    // biome-ignore lint/suspicious/noExplicitAny: a setting from an untyped caller
    assert.isUndefined(Decay.resolveConfig({ token_budget: "5000" as any }).token_budget)
    assert.strictEqual(Decay.resolveConfig({ token_budget: 0 }).token_budget, 0)
  })

  it("a token budget of 0 collapses every idle expansion that has a size", () => {
    const s: Decay.DecayState = {
      efforts: [sized("alpha"), sized("beta")],
      expanded: ["alpha", "beta"],
      last_referenced_turn: { alpha: 1, beta: 1 },
      summary_last_referenced_turn: {},
      expanded_tokens: { alpha: 10, beta: 20 }
    }
    const result = Decay.check(s, 2, "x", "y", { token_budget: 0 })
    assert.deepStrictEqual(result.decayed, ["beta", "alpha"])
    assert.deepStrictEqual(result.state.expanded, [])
  })
  it("the prepared cache keeps one entry per effort and rebuilds it when the summary changes", () => {
    const cache = Decay.makeCache()
    const s = state()
    Decay.check(s, 2, "x", "y", undefined, cache)
    const first = cache.get("auth-bug")
    assert.strictEqual(first?.summary, AUTH.summary)
    Decay.check(s, 2, "x", "y", undefined, cache)
    assert.strictEqual(cache.get("auth-bug")?.prepared, first?.prepared)
    const renamed = { ...AUTH, summary: "Sailing trip planning along the coast." }
    const other = state({ efforts: [renamed, PERF, OPEN] })
    const result = Decay.check(other, 2, "the sailing trip", "coast", undefined, cache)
    assert.strictEqual(result.state.last_referenced_turn["auth-bug"], 2)
    assert.strictEqual(cache.get("auth-bug")?.summary, renamed.summary)
  })

  it("an id listed twice in expanded is checked once and kept once", () => {
    const kept = Decay.check(state({ expanded: ["auth-bug", "auth-bug"] }), 2, "x", "y")
    assert.deepStrictEqual(kept.state.expanded, ["auth-bug"])
    const gone = Decay.check(state({ expanded: ["auth-bug", "auth-bug"] }), 4, "x", "y")
    assert.deepStrictEqual(gone.decayed, ["auth-bug"])
  })

  it("an expanded id missing from the manifest is referenced by its id only", () => {
    const s = state({ expanded: ["ghost"], last_referenced_turn: { ghost: 1 } })
    assert.strictEqual(Decay.check(s, 4, "the ghost again", "ok").state.last_referenced_turn.ghost, 4)
    assert.deepStrictEqual(Decay.check(s, 4, "x", "y").decayed, ["ghost"])
  })

  it("a last_referenced_turn that is not a finite number counts as turn 0", () => {
    const s = state({ last_referenced_turn: { "auth-bug": Number.NaN } })
    assert.deepStrictEqual(Decay.check(s, 5, "x", "y").collapses, [
      { id: "auth-bug", inactive_turns: 5, reason: "threshold" }
    ])
  })

  it("an effort kept without a recorded turn gets none, one kept with a turn keeps it", () => {
    const s = state({ expanded: ["auth-bug", "new-feature"], last_referenced_turn: { "auth-bug": 1 } })
    assert.deepStrictEqual(Decay.check(s, 2, "x", "y").state.last_referenced_turn, { "auth-bug": 1 })
  })

  const budgetState = (sizes: Record<string, number>, last: Record<string, number> = {}): Decay.DecayState => ({
    efforts: [...Object.keys(sizes).map(sized), OPEN],
    expanded: Object.keys(sizes),
    last_referenced_turn: last,
    summary_last_referenced_turn: {},
    expanded_tokens: sizes
  })

  it("a token budget without expansion sizes collapses nothing", () => {
    const { expanded_tokens: _, ...s } = budgetState({ alpha: 10, beta: 20 }, { alpha: 1, beta: 1 })
    assert.deepStrictEqual(Decay.check(s, 2, "x", "y", { token_budget: 5 }).decayed, [])
  })

  it("an open expansion never collapses for the budget", () => {
    const s = { ...budgetState({ alpha: 10 }, { alpha: 1 }), expanded: ["new-feature", "alpha"] }
    const result = Decay.check({ ...s, expanded_tokens: { "new-feature": 500, alpha: 10 } }, 2, "x", "y", {
      token_budget: 100
    })
    assert.deepStrictEqual(result.decayed, ["alpha"])
    assert.deepStrictEqual(result.state.expanded, ["new-feature"])
  })

  it("between equal sizes the least recently referenced collapses first, then the smaller id", () => {
    const byTurn = budgetState({ alpha: 10, beta: 10 }, { alpha: 2, beta: 1 })
    assert.deepStrictEqual(Decay.check(byTurn, 3, "x", "y", { token_budget: 10 }).decayed, ["beta"])
    const byId = budgetState({ zeta: 10, beta: 10, mu: 10 }, { zeta: 1, beta: 1, mu: 1 })
    assert.deepStrictEqual(Decay.check(byId, 2, "x", "y", { token_budget: 10 }).decayed, ["beta", "mu"])
  })

  it("a budget collapse reports the idle turns and drops the effort's turn", () => {
    const s = budgetState({ alpha: 10, beta: 20 }, { alpha: 1 })
    const result = Decay.check(s, 2, "x", "y", { token_budget: 0 })
    assert.deepStrictEqual(result.collapses, [
      { id: "beta", inactive_turns: 2, reason: "token_budget" },
      { id: "alpha", inactive_turns: 1, reason: "token_budget" }
    ])
    assert.deepStrictEqual(result.state.last_referenced_turn, {})
    assert.deepStrictEqual(result.state.expanded_tokens, {})
  })

  it("expansions of no, negative or unbounded size are never collapsed for the budget", () => {
    const s = budgetState(
      { alpha: 0, beta: -5, gamma: Number.POSITIVE_INFINITY, "auth-bug": 100 },
      { alpha: 1, beta: 1, gamma: 1, "auth-bug": 1 }
    )
    const result = Decay.check(s, 2, "the auth-bug", "y", { token_budget: 50 })
    assert.deepStrictEqual(result.decayed, [])
    assert.deepStrictEqual(result.state.expanded, ["alpha", "beta", "gamma", "auth-bug"])
  })

  it("a turn without collapses leaves expanded_tokens as given; a collapse keeps only the sizes still expanded", () => {
    const sizes = { "auth-bug": 50, stale: 7 }
    const kept = Decay.check(state({ expanded_tokens: sizes }), 2, "x", "y")
    assert.deepStrictEqual(kept.state.expanded_tokens, sizes)
    const s = state({ expanded: ["auth-bug", "perf-fix"], expanded_tokens: sizes })
    const collapsed = Decay.check(s, 4, "x", "y")
    assert.deepStrictEqual(collapsed.decayed, ["auth-bug", "perf-fix"])
    assert.deepStrictEqual(collapsed.state.expanded_tokens, {})
    const partly = Decay.check(
      state({
        expanded: ["auth-bug", "perf-fix"],
        last_referenced_turn: { "auth-bug": 1, "perf-fix": 3 },
        expanded_tokens: sizes
      }),
      4,
      "x",
      "y"
    )
    assert.deepStrictEqual(partly.state.expanded, ["perf-fix"])
    assert.deepStrictEqual(partly.state.expanded_tokens, {})
  })

  it("open efforts are never evicted, whatever their recorded turn", () => {
    const s = state({ expanded: [], summary_last_referenced_turn: { "new-feature": 1, "auth-bug": 1 } })
    assert.deepStrictEqual([...Decay.evicted(s, 100)], ["auth-bug"])
  })

  it("a recorded summary turn that is not a number never evicts", () => {
    // biome-ignore lint/suspicious/noExplicitAny: a corrupt entry from an untyped caller
    const s = state({ expanded: [], summary_last_referenced_turn: { "auth-bug": "1" as any } })
    assert.strictEqual(Decay.evicted(s, 100).size, 0)
  })

  it("a state without expanded ids or sizes from an untyped caller collapses nothing and adds no sizes", () => {
    // biome-ignore lint/suspicious/noExplicitAny: deliberately incomplete input from an untyped caller
    const partial = { efforts: [AUTH] } as any
    const result = Decay.check(partial, 50, "x", "y")
    assert.deepStrictEqual(result.decayed, [])
    assert.isFalse("expanded_tokens" in result.state)
  })
})
