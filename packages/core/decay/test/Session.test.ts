import { assert, describe, it } from "@effect/vitest"
import { TokenCounter } from "@heed/schema"
import { Effect, Layer, Metric } from "effect"
import { Banner, Session, SessionContext, SessionMetrics, SessionStore, Summarizer } from "../src/index.ts"
import {
  AUTH_SUMMARY,
  concluded,
  contextTokens,
  echoSummarizer,
  exchange,
  PERF_SUMMARY,
  proofInit,
  sessionLayer,
  systemText,
  topicLog
} from "./helpers.ts"

const quiet = (session: Session.Session["Service"], n: number, topic = "the weather") =>
  Effect.gen(function* () {
    const results = []
    for (let i = 0; i < n; i++) {
      results.push(
        yield* session.processTurn({ user: `What about ${topic}?`, assistant: `Nothing special about ${topic}.` })
      )
    }
    return results
  })

describe("Session tools (upstream tests)", () => {
  it.effect("open: several opens, the newest is active", () =>
    Effect.gen(function* () {
      const session = yield* Session.Session
      assert.deepStrictEqual(yield* session.openEffort({ name: "a" }), { status: "opened", effort_id: "a" })
      yield* session.openEffort({ name: "b" })
      const { manifest } = yield* session.state()
      assert.deepStrictEqual(
        manifest.map((e) => [e.id, e.status, e.active]),
        [
          ["a", "open", false],
          ["b", "open", true]
        ]
      )
    }).pipe(Effect.provide(sessionLayer()))
  )

  it.effect("close by id; closing the active effort activates the first remaining open one", () =>
    Effect.gen(function* () {
      const session = yield* Session.Session
      yield* session.openEffort({ name: "a" })
      yield* session.openEffort({ name: "b" })
      yield* session.openEffort({ name: "c" })
      const closedA = yield* session.closeEffort({ id: "a" })
      assert.strictEqual(closedA.status, "concluded")
      assert.strictEqual(closedA.summary, "Brief effort: a (too short to summarize)")
      let manifest = (yield* session.state()).manifest
      assert.isTrue(manifest.find((e) => e.id === "c")!.active)
      yield* session.closeEffort({})
      manifest = (yield* session.state()).manifest
      assert.strictEqual(manifest.find((e) => e.id === "c")!.status, "concluded")
      assert.isTrue(manifest.find((e) => e.id === "b")!.active)
      assert.isUndefined(manifest.find((e) => e.id === "c")!.active)
    }).pipe(Effect.provide(sessionLayer()))
  )

  it.effect("close errors", () =>
    Effect.gen(function* () {
      const session = yield* Session.Session
      const noActive = yield* Effect.flip(session.closeEffort({}))
      assert.strictEqual(noActive.message, "No active effort to close.")
      const noOpen = yield* Effect.flip(session.closeEffort({ id: "ghost" }))
      assert.strictEqual(noOpen._tag, "EffortNotFound")
      assert.strictEqual(noOpen.message, "No open effort with id 'ghost'.")
    }).pipe(Effect.provide(sessionLayer()))
  )

  it.effect("expand errors: nonexistent, not concluded, already expanded", () =>
    Effect.gen(function* () {
      const session = yield* Session.Session
      yield* session.openEffort({ name: "live" })
      assert.strictEqual(
        (yield* Effect.flip(session.expandEffort({ id: "nope" }))).message,
        "No effort with id 'nope'."
      )
      assert.strictEqual(
        (yield* Effect.flip(session.expandEffort({ id: "live" }))).message,
        "Cannot expand 'live': status is 'open', must be 'concluded'."
      )
      yield* session.expandEffort({ id: "auth-bug" })
      assert.strictEqual(
        (yield* Effect.flip(session.expandEffort({ id: "auth-bug" }))).message,
        "Effort 'auth-bug' is already expanded."
      )
    }).pipe(Effect.provide(sessionLayer({}, proofInit)))
  )

  it.effect("collapse of a non-expanded effort fails; collapse works", () =>
    Effect.gen(function* () {
      const session = yield* Session.Session
      assert.strictEqual(
        (yield* Effect.flip(session.collapseEffort({ id: "auth-bug" }))).message,
        "Effort 'auth-bug' is not currently expanded."
      )
      yield* session.expandEffort({ id: "auth-bug" })
      assert.deepStrictEqual(yield* session.collapseEffort({ id: "auth-bug" }), {
        status: "collapsed",
        effort_id: "auth-bug"
      })
      assert.deepStrictEqual((yield* session.state()).expanded, [])
    }).pipe(Effect.provide(sessionLayer({}, proofInit)))
  )

  it.effect("switch: to a concluded effort fails; to an open one makes it the only active", () =>
    Effect.gen(function* () {
      const session = yield* Session.Session
      yield* session.openEffort({ name: "a" })
      yield* session.openEffort({ name: "b" })
      assert.strictEqual(
        (yield* Effect.flip(session.switchEffort({ id: "auth-bug" }))).message,
        "Cannot switch to 'auth-bug': status is 'concluded', must be 'open'."
      )
      assert.deepStrictEqual(yield* session.switchEffort({ id: "a" }), { status: "switched", effort_id: "a" })
      const active = (yield* session.state()).manifest.filter((e) => e.active === true).map((e) => e.id)
      assert.deepStrictEqual(active, ["a"])
    }).pipe(Effect.provide(sessionLayer({}, proofInit)))
  )

  it.effect("the turn counter starts at 0 and increments per turn", () =>
    Effect.gen(function* () {
      const session = yield* Session.Session
      const store = yield* SessionStore.SessionStore
      assert.strictEqual((yield* session.state()).turn_count, 0)
      const first = yield* session.processTurn({ user: "hi", assistant: "hello" })
      assert.strictEqual(first.turn, 1)
      yield* session.processTurn({ user: "again", assistant: "yes" })
      assert.strictEqual((yield* store.load).session.turn_count, 2)
    }).pipe(Effect.provide(sessionLayer()))
  )

  it.effect("expanded.json holds last_referenced_turn and keeps the expansion timestamps", () =>
    Effect.gen(function* () {
      const session = yield* Session.Session
      const store = yield* SessionStore.SessionStore
      yield* session.expandEffort({ id: "auth-bug" })
      const first = (yield* store.load).expanded
      assert.deepStrictEqual(first.expanded, ["auth-bug"])
      assert.strictEqual(first.last_referenced_turn["auth-bug"], 1)
      const at = first.expanded_at["auth-bug"]
      assert.isString(at)
      yield* session.processTurn({ user: "the auth-bug please", assistant: "here" })
      yield* session.expandEffort({ id: "perf-fix" })
      const second = (yield* store.load).expanded
      assert.strictEqual(second.expanded_at["auth-bug"], at)
      assert.deepStrictEqual(second.last_referenced_turn, { "auth-bug": 1, "perf-fix": 2 })
    }).pipe(Effect.provide(sessionLayer({}, proofInit)))
  )

  it.effect("effort_status lists efforts, or says there are none", () =>
    Effect.gen(function* () {
      const session = yield* Session.Session
      assert.deepStrictEqual(yield* session.effortStatus(), { efforts: [], message: "No efforts yet." })
    }).pipe(Effect.provide(sessionLayer()))
  )

  it.effect("effort_status entries", () =>
    Effect.gen(function* () {
      const session = yield* Session.Session
      yield* session.openEffort({ name: "live" })
      yield* session.expandEffort({ id: "auth-bug" })
      const { efforts } = yield* session.effortStatus()
      const auth = efforts.find((e) => e.id === "auth-bug")!
      assert.strictEqual(auth.expanded, true)
      assert.strictEqual(auth.summary_tokens, TokenCounter.countO200k(AUTH_SUMMARY))
      assert.isAbove(auth.raw_tokens!, 100)
      assert.strictEqual(efforts.find((e) => e.id === "live")!.active, true)
    }).pipe(Effect.provide(sessionLayer({}, proofInit)))
  )
})

describe("searchEfforts", () => {
  const init = {
    manifest: [
      concluded("auth-bug", AUTH_SUMMARY),
      concluded("perf-fix", PERF_SUMMARY),
      concluded("sailing-trip", "Planned a coastal sailing trip: tides, harbour fees and a weather window."),
      concluded("index-notes", "Notes on the index of the dashboard handbook and the query glossary.")
    ],
    logs: {}
  }

  it.effect("keyword match, id match, no match, and open efforts ignored (upstream)", () =>
    Effect.gen(function* () {
      const session = yield* Session.Session
      yield* session.openEffort({ name: "refresh-work" })
      const byKeywords = yield* session.searchEfforts({ query: "refresh tokens broke" })
      assert.deepStrictEqual(byKeywords, {
        results: [{ id: "auth-bug", summary: AUTH_SUMMARY, status: "concluded" }],
        query: "refresh tokens broke"
      })
      assert.deepStrictEqual(
        (yield* session.searchEfforts({ query: "what was sailing trip about" })).results.map((r) => r.id),
        ["sailing-trip"]
      )
      assert.deepStrictEqual((yield* session.searchEfforts({ query: "quantum physics" })).results, [])
      assert.notInclude(
        (yield* session.searchEfforts({ query: "refresh work" })).results.map((r) => r.id),
        "refresh-work"
      )
    }).pipe(Effect.provide(sessionLayer({}, init)))
  )

  it.effect("heed differs: results are ranked by rarity-weighted overlap, not manifest order", () =>
    Effect.gen(function* () {
      const session = yield* Session.Session
      // "dashboard", "query", "index" are shared; "join" and "slow" are only in perf-fix.
      const { results } = yield* session.searchEfforts({ query: "dashboard index notes glossary handbook" })
      assert.deepStrictEqual(
        results.map((r) => r.id),
        ["index-notes", "perf-fix"]
      )
      const ranked = yield* session.searchEfforts({ query: "slow dashboard query missing join" })
      assert.deepStrictEqual(
        ranked.results.map((r) => r.id),
        ["perf-fix", "index-notes"]
      )
    }).pipe(Effect.provide(sessionLayer({}, init)))
  )
})

describe("working context (upstream tests)", () => {
  it.effect("concluded summaries are in the system prompt, their raw logs are not; memory section present", () =>
    Effect.gen(function* () {
      const session = yield* Session.Session
      const context = yield* session.buildContext()
      const system = systemText(context)
      assert.include(system, SessionContext.SUMMARIES_HEADER)
      assert.include(system, `- auth-bug: ${AUTH_SUMMARY}`)
      assert.include(system, `- perf-fix: ${PERF_SUMMARY}`)
      assert.include(system, SessionContext.MEMORY_SECTION)
      assert.isFalse(context.some((m) => m.content.includes("Question 0 about auth")))
    }).pipe(Effect.provide(sessionLayer({}, proofInit)))
  )

  it.effect("an expanded effort's raw log appears and its summary is not duplicated", () =>
    Effect.gen(function* () {
      const session = yield* Session.Session
      yield* session.expandEffort({ id: "auth-bug" })
      const context = yield* session.buildContext()
      assert.notInclude(systemText(context), `- auth-bug:`)
      assert.include(systemText(context), `- perf-fix:`)
      assert.isTrue(context.some((m) => m.content.includes("Question 0 about auth")))
    }).pipe(Effect.provide(sessionLayer({}, proofInit)))
  )

  it.effect("order: system, ambient, expanded (sorted), open non-active, active last", () =>
    Effect.gen(function* () {
      const session = yield* Session.Session
      yield* session.openEffort({ name: "first" })
      yield* session.processTurn({ user: "first work", assistant: "first reply" })
      yield* session.openEffort({ name: "second" })
      // The turn that opened "second" still belongs to "first" (active when it began).
      yield* session.processTurn({ user: "moving on", assistant: "ok" })
      yield* session.processTurn({ user: "second work", assistant: "second reply" })
      yield* session.switchEffort({ id: "first" })
      yield* session.expandEffort({ id: "perf-fix" })
      yield* session.expandEffort({ id: "auth-bug" })
      const context = yield* session.buildContext()
      const indexOf = (text: string) => context.findIndex((m) => m.content.includes(text))
      assert.strictEqual(context[0]!.role, "system")
      assert.isBelow(indexOf("Hello! How can I help?"), indexOf("about auth"))
      assert.isBelow(indexOf("about auth"), indexOf("about perf"))
      assert.isBelow(indexOf("about perf"), indexOf("second work"))
      // "first" is active: its log comes last, even though it was opened first.
      assert.isBelow(indexOf("second work"), indexOf("first work"))
      assert.include(context[context.length - 1]!.content, "ok")
    }).pipe(Effect.provide(sessionLayer({}, proofInit)))
  )

  it.effect("the ambient window keeps the last 20 messages (or all when fewer)", () =>
    Effect.gen(function* () {
      const session = yield* Session.Session
      const few = yield* session.buildContext()
      assert.strictEqual(few.length, 1 + 2)
      for (let i = 0; i < 15; i++) yield* session.processTurn({ user: `message ${i}`, assistant: `reply ${i}` })
      const context = yield* session.buildContext()
      const ambient = context.slice(1)
      assert.strictEqual(ambient.length, 20)
      assert.strictEqual(ambient[0]!.content, "message 5")
      assert.strictEqual(ambient[19]!.content, "reply 14")
    }).pipe(Effect.provide(sessionLayer({}, proofInit)))
  )

  it.effect("a tool call and its result are never split by the ambient window", () =>
    Effect.gen(function* () {
      const session = yield* Session.Session
      yield* session.processTurn({
        user: "look it up",
        assistant: "found it",
        tool_calls: [
          { id: "c1", name: "lookup", arguments: { q: "a" }, result: "A" },
          { id: "c2", name: "lookup", arguments: { q: "b" }, result: { value: "B" } }
        ]
      })
      // ambient_window 1 = the last 2 messages: "found it" and a tool result; the call must come along.
      const context = yield* session.buildContext()
      const ambient = context.slice(1)
      assert.deepStrictEqual(
        ambient.map((m) => m.role),
        ["assistant", "tool", "tool", "assistant"]
      )
      assert.deepStrictEqual(
        ambient[0]!.tool_calls!.map((c) => c.id),
        ["c1", "c2"]
      )
      assert.strictEqual(ambient[2]!.content, '{"value":"B"}')
      assert.strictEqual(ambient[2]!.tool_call_id, "c2")
    }).pipe(Effect.provide(sessionLayer({ ambient_window: 1 })))
  )
})

describe("proof runs (upstream, scripted)", () => {
  it.effect("decay cycle: expand, reference, three unrelated turns, auto-collapse, re-expand", () =>
    Effect.gen(function* () {
      const session = yield* Session.Session
      const tokens = () => Effect.map(session.buildContext(), contextTokens)
      const baseline = yield* tokens()
      const log: Array<{ turn: number; tokens: number; expanded: ReadonlyArray<string> }> = []
      const step = (user: string, assistant: string) =>
        Effect.gen(function* () {
          const result = yield* session.processTurn({ user, assistant })
          const { expanded } = yield* session.state()
          log.push({ turn: result.turn, tokens: yield* tokens(), expanded })
          return result
        })

      // Turn 1: expand auth-bug.
      const expand = yield* session.expandEffort({ id: "auth-bug" })
      const t1 = yield* step("Show me the auth-bug details", "Here is what we did.")
      assert.include(t1.response, Banner.expanded("auth-bug", expand.tokens_loaded))
      assert.isAbove(log[0]!.tokens, baseline + expand.tokens_loaded - 5)
      // Turn 2: referenced by keywords.
      yield* step("Why did the refresh tokens stop working?", "The interceptor never retried.")
      assert.deepStrictEqual((yield* session.state()).last_referenced_turn, { "auth-bug": 2 })
      // Turns 3-5: unrelated; the 3rd unrelated turn collapses it (5 − 2 = 3).
      const t3 = yield* step("What's the weather like?", "Sunny and warm.")
      const t4 = yield* step("Recommend a pizza topping.", "Basil and mozzarella.")
      assert.deepStrictEqual([t3.decayed, t4.decayed], [[], []])
      const t5 = yield* step("Explain quantum entanglement briefly.", "Correlated states across distance.")
      assert.deepStrictEqual(t5.decayed, ["auth-bug"])
      assert.include(t5.response, "Auto-collapsed")
      assert.deepStrictEqual(t5.banners, ["--- Auto-collapsed effort: auth-bug (inactive for 3 turns) ---"])
      assert.isTrue(t5.response.endsWith("\n\n--- Auto-collapsed effort: auth-bug (inactive for 3 turns) ---"))
      assert.include(systemText(yield* session.buildContext()), `- auth-bug: ${AUTH_SUMMARY}`)
      // Turn 6: gone.
      yield* step("Any news?", "None.")
      assert.isBelow(log[5]!.tokens, log[3]!.tokens - expand.tokens_loaded + 200)
      // Turn 7: re-expansion works; the effort is still concluded.
      const again = yield* session.expandEffort({ id: "auth-bug" })
      assert.strictEqual(again.tokens_loaded, expand.tokens_loaded)
      yield* step("Back to the auth bug, show it again", "Here it is.")
      assert.isAbove(log[6]!.tokens, log[5]!.tokens + expand.tokens_loaded - 5)
      assert.deepStrictEqual(
        log.map((entry) => entry.expanded.length),
        [1, 1, 1, 1, 0, 0, 1]
      )
      const metrics = yield* session.metrics()
      assert.strictEqual(metrics.auto_collapses, 1)
      assert.strictEqual(metrics.tokens_saved_by_decay, expand.tokens_loaded)
      assert.strictEqual(metrics.avg_expansion_duration, 4)
      // Re-expanded 2 turns after the collapse: a false decay.
      assert.strictEqual(metrics.false_decays, 1)
      assert.strictEqual(metrics.false_decay_rate, 1)
    }).pipe(Effect.provide(sessionLayer({}, proofInit)))
  )

  it.effect("expansion cycle: expand then collapse returns exactly to the baseline tokens", () =>
    Effect.gen(function* () {
      const session = yield* Session.Session
      const baseline = contextTokens(yield* session.buildContext())
      yield* session.expandEffort({ id: "perf-fix" })
      assert.isAbove(contextTokens(yield* session.buildContext()), baseline)
      yield* session.collapseEffort({ id: "perf-fix" })
      assert.strictEqual(contextTokens(yield* session.buildContext()), baseline)
    }).pipe(Effect.provide(sessionLayer({}, proofInit)))
  )

  const bounded = {
    manifest: [
      concluded("auth-bug", AUTH_SUMMARY),
      concluded("perf-fix", PERF_SUMMARY),
      concluded("sailing-trip", "Planned a coastal sailing trip: tides, harbour fees and a weather window."),
      concluded("garden-plan", "Garden plan: raised beds, tomato varieties and a drip irrigation timer."),
      concluded("tax-return", "Tax return filed: deductions for the home office and the pension receipts.")
    ],
    logs: {},
    ambient: Array.from({ length: 30 }, (_, i) => exchange(`ambient question ${i}`, `ambient answer ${i}`)).flat()
  }

  it.effect("bounded context: eviction after 20 turns, a 20-message ambient window, search still finds", () =>
    Effect.gen(function* () {
      const session = yield* Session.Session
      const store = yield* SessionStore.SessionStore
      const unbounded = contextTokens(yield* session.buildContext())
      yield* session.processTurn({
        user: "Recap auth-bug, perf-fix, sailing-trip, garden-plan and tax-return.",
        assistant: "Done."
      })
      yield* quiet(session, 13)
      yield* session.processTurn({ user: "auth-bug and perf-fix again", assistant: "Sure." })
      yield* quiet(session, 5)
      // Turn 21 is next: the three summaries last referenced at turn 1 are evicted.
      const { evicted } = yield* session.state()
      assert.deepStrictEqual([...evicted].sort(), ["garden-plan", "sailing-trip", "tax-return"])
      const context = yield* session.buildContext()
      const system = systemText(context)
      assert.include(system, "- auth-bug:")
      assert.include(system, "- perf-fix:")
      assert.notInclude(system, "- sailing-trip:")
      assert.include(system, SessionContext.MEMORY_SECTION)
      assert.strictEqual(context.length - 1, 20)
      assert.strictEqual(context[context.length - 1]!.content, "Nothing special about the weather.")
      assert.deepStrictEqual(
        (yield* session.searchEfforts({ query: "sailing coastal trip" })).results.map((r) => r.id),
        ["sailing-trip"]
      )
      assert.isBelow(contextTokens(context), unbounded + 200)
      const stored = yield* store.load
      assert.strictEqual(stored.manifest.length, 5)
      assert.strictEqual(stored.ambient.length, 60 + 2 * 20)
    }).pipe(Effect.provide(sessionLayer({}, bounded)))
  )

  it.effect("a reference resets the eviction counter", () =>
    Effect.gen(function* () {
      const session = yield* Session.Session
      yield* session.processTurn({ user: "hello", assistant: "hi" })
      yield* quiet(session, 18)
      yield* session.processTurn({ user: "the sailing trip tides?", assistant: "Low at noon." })
      yield* quiet(session, 5)
      const { evicted } = yield* session.state()
      assert.notInclude(evicted, "sailing-trip")
      assert.include(evicted, "tax-return")
    }).pipe(Effect.provide(sessionLayer({}, bounded)))
  )
})

describe("Session: heed additions", () => {
  it.effect("duplicate effort ids are rejected with a clear error; bad ids too", () =>
    Effect.gen(function* () {
      const session = yield* Session.Session
      yield* session.openEffort({ name: "a" })
      const dupOpen = yield* Effect.flip(session.openEffort({ name: "a" }))
      assert.strictEqual(dupOpen._tag, "DuplicateEffortId")
      assert.include(dupOpen.message, "already exists")
      const dupConcluded = yield* Effect.flip(session.openEffort({ name: "auth-bug" }))
      assert.include(dupConcluded.message, "reopen_effort")
      for (const bad of ["", "../etc", "a/b", " padded "]) {
        assert.strictEqual((yield* Effect.flip(session.openEffort({ name: bad })))._tag, "InvalidEffortInput")
      }
      assert.strictEqual((yield* session.state()).manifest.length, 3)
    }).pipe(Effect.provide(sessionLayer({}, proofInit)))
  )

  it.effect("tokens_loaded counts content tokens, not JSON syntax", () =>
    Effect.gen(function* () {
      const session = yield* Session.Session
      const reply = yield* session.expandEffort({ id: "auth-bug" })
      const log = proofInit.logs!["auth-bug"]!
      const content = log.reduce((sum, m) => sum + TokenCounter.countO200k(m.content), 0)
      assert.strictEqual(reply.tokens_loaded, content)
      const jsonl = log.map((m) => TokenCounter.toCompactJson(m)).join("\n")
      assert.isBelow(reply.tokens_loaded, TokenCounter.countO200k(jsonl))
    }).pipe(Effect.provide(sessionLayer({}, proofInit)))
  )

  it.effect("the closing exchange is logged in the effort and included in its summary", () =>
    Effect.gen(function* () {
      const session = yield* Session.Session
      const store = yield* SessionStore.SessionStore
      yield* session.openEffort({ name: "deploy" })
      yield* session.processTurn({
        user: "Deploy the service to staging with the new config.",
        assistant: "Deployed to staging."
      })
      const reply = yield* session.closeEffort({})
      assert.notInclude(reply.summary, "ROLLBACK-PLAN")
      const turn = yield* session.processTurn({
        user: "Great, that's done. Note the ROLLBACK-PLAN.",
        assistant: "Noted."
      })
      assert.include(turn.response, "--- Concluded effort: deploy ---")
      const stored = yield* store.load
      assert.include(stored.manifest.find((e) => e.id === "deploy")!.summary!, "ROLLBACK-PLAN")
      assert.strictEqual(stored.logs.get("deploy")!.length, 4)
      assert.strictEqual(stored.ambient.length, 0)
      // The next turn goes to the ambient log.
      yield* session.processTurn({ user: "unrelated", assistant: "ok" })
      assert.strictEqual((yield* store.load).ambient.length, 2)
    }).pipe(Effect.provide(sessionLayer({}, {}, echoSummarizer)))
  )

  it.effect("an effort opened during a turn receives that turn", () =>
    Effect.gen(function* () {
      const session = yield* Session.Session
      const store = yield* SessionStore.SessionStore
      yield* session.openEffort({ name: "fresh" })
      const turn = yield* session.processTurn({ user: "start something", assistant: "Started." })
      assert.strictEqual(turn.response, "--- Started effort: fresh ---\n\nStarted.")
      assert.deepStrictEqual(turn.banners, ["--- Started effort: fresh ---"])
      assert.strictEqual((yield* store.load).logs.get("fresh")!.length, 2)
    }).pipe(Effect.provide(sessionLayer()))
  )

  it.effect("per-session and per-effort thresholds", () =>
    Effect.gen(function* () {
      const session = yield* Session.Session
      yield* session.expandEffort({ id: "auth-bug" })
      yield* session.expandEffort({ id: "perf-fix", decay_threshold: 2 })
      assert.deepStrictEqual((yield* session.state()).thresholds, { "auth-bug": 5, "perf-fix": 2 })
      const turns = yield* quiet(session, 6)
      assert.deepStrictEqual(
        turns.map((t) => t.decayed),
        [[], [], ["perf-fix"], [], [], ["auth-bug"]]
      )
      const bad = yield* Effect.flip(session.expandEffort({ id: "perf-fix", decay_threshold: 0 }))
      assert.strictEqual(bad._tag, "InvalidEffortInput")
    }).pipe(Effect.provide(sessionLayer({ effort_thresholds: { "auth-bug": 5 } }, proofInit)))
  )

  it.effect("hysteresis: a re-expansion within 2 turns of a decay lengthens the threshold; +3 does not count", () =>
    Effect.gen(function* () {
      const session = yield* Session.Session
      yield* session.expandEffort({ id: "auth-bug" })
      // Expanded during turn 1: decays at the end of turn 4.
      const first = yield* quiet(session, 4)
      assert.deepStrictEqual(first[3]!.decayed, ["auth-bug"])
      // Re-expanded during turn 5 (+1): a false decay; threshold 3 + 3 = 6, so it decays at turn 11.
      yield* session.expandEffort({ id: "auth-bug" })
      assert.deepStrictEqual((yield* session.state()).thresholds, { "auth-bug": 6 })
      const second = yield* quiet(session, 7)
      assert.deepStrictEqual(
        second.map((t) => t.decayed.length),
        [0, 0, 0, 0, 0, 0, 1]
      )
      // +3 turns after the second decay: not a false decay, the threshold stays.
      yield* quiet(session, 2)
      yield* session.expandEffort({ id: "auth-bug" })
      assert.deepStrictEqual((yield* session.state()).thresholds, { "auth-bug": 6 })
      const metrics = yield* session.metrics()
      assert.strictEqual(metrics.false_decays, 1)
      assert.strictEqual(metrics.auto_collapses, 2)
      assert.strictEqual(metrics.false_decay_rate, 0.5)
    }).pipe(Effect.provide(sessionLayer({}, proofInit)))
  )

  it.effect("+2 turns counts as a false decay", () =>
    Effect.gen(function* () {
      const session = yield* Session.Session
      yield* session.expandEffort({ id: "auth-bug" })
      const turns = yield* quiet(session, 4)
      assert.deepStrictEqual(turns[3]!.decayed, ["auth-bug"])
      yield* quiet(session, 1)
      // Expanding during turn 6, 2 turns after the decay at turn 4.
      yield* session.expandEffort({ id: "auth-bug" })
      assert.strictEqual((yield* session.metrics()).false_decays, 1)
    }).pipe(Effect.provide(sessionLayer({}, proofInit)))
  )

  it.effect("token-weighted decay: over the budget, the largest idle expansion goes first", () =>
    Effect.gen(function* () {
      const session = yield* Session.Session
      yield* session.expandEffort({ id: "small" })
      yield* session.expandEffort({ id: "large" })
      yield* session.expandEffort({ id: "auth-bug" })
      // Turn 1 references all three (the expand banners name them): nothing is idle yet.
      const first = yield* session.processTurn({ user: "load them", assistant: "loaded" })
      assert.deepStrictEqual(first.decayed, [])
      const turn = yield* session.processTurn({ user: "the auth-bug again", assistant: "ok" })
      assert.deepStrictEqual(turn.decayed, ["large"])
      assert.strictEqual(turn.banners.at(-1), Banner.autoCollapsed("large", 1, true))
      assert.deepStrictEqual([...(yield* session.state()).expanded].sort(), ["auth-bug", "small"])
    }).pipe(
      Effect.provide(
        sessionLayer(
          { token_budget: 800 },
          {
            ...proofInit,
            manifest: [
              ...proofInit.manifest!,
              concluded("small", "Small notes on lint."),
              concluded("large", "Large notes on the migration.")
            ],
            logs: { ...proofInit.logs, small: topicLog("lint", 2), large: topicLog("migration", 12) }
          }
        )
      )
    )
  )

  it.effect("reopen: only concluded; becomes open and active, leaves the expanded set, marks its log", () =>
    Effect.gen(function* () {
      const session = yield* Session.Session
      const store = yield* SessionStore.SessionStore
      yield* session.openEffort({ name: "live" })
      assert.strictEqual(
        (yield* Effect.flip(session.reopenEffort({ id: "live" }))).message,
        "Cannot reopen 'live': status is 'open', must be 'concluded'."
      )
      yield* session.expandEffort({ id: "auth-bug" })
      const reply = yield* session.reopenEffort({ id: "auth-bug" })
      assert.deepStrictEqual(reply, { status: "reopened", effort_id: "auth-bug", prior_summary: AUTH_SUMMARY })
      const state = yield* session.state()
      assert.deepStrictEqual(state.expanded, [])
      const auth = state.manifest.find((e) => e.id === "auth-bug")!
      assert.deepStrictEqual([auth.status, auth.active], ["open", true])
      assert.isFalse(state.manifest.find((e) => e.id === "live")!.active!)
      const log = (yield* store.load).logs.get("auth-bug")!
      assert.deepStrictEqual([log.at(-1)!.role, log.at(-1)!.content], ["system", "--- Effort reopened ---"])
      // Re-closing summarises the whole log and replaces the summary.
      const closed = yield* session.closeEffort({ id: "auth-bug" })
      assert.include(closed.summary, "Question 0 about auth")
    }).pipe(Effect.provide(sessionLayer({}, proofInit, echoSummarizer)))
  )

  it.effect("all banners use CCM's texts", () =>
    Effect.gen(function* () {
      const session = yield* Session.Session
      yield* session.openEffort({ name: "x" })
      yield* session.switchEffort({ id: "x" })
      const expand = yield* session.expandEffort({ id: "auth-bug" })
      yield* session.collapseEffort({ id: "auth-bug" })
      yield* session.reopenEffort({ id: "perf-fix" })
      const turn = yield* session.processTurn({ user: "u", assistant: "a" })
      assert.deepStrictEqual(turn.banners, [
        "--- Started effort: x ---",
        "--- Switched to effort: x ---",
        `--- Expanded effort: auth-bug (${expand.tokens_loaded} tokens loaded) ---`,
        "--- Collapsed effort: auth-bug (back to summary) ---",
        "--- Reopened effort: perf-fix ---"
      ])
      assert.strictEqual(Banner.concluded("x", "S"), "--- Concluded effort: x ---\nSummary: S")
    }).pipe(Effect.provide(sessionLayer({}, proofInit)))
  )

  it.effect("metrics: slice-3 and slice-2 figures in processTurn and as Effect metrics", () =>
    Effect.gen(function* () {
      const session = yield* Session.Session
      yield* session.expandEffort({ id: "auth-bug" })
      yield* session.expandEffort({ id: "perf-fix" })
      yield* session.processTurn({ user: "perf-fix only", assistant: "ok" })
      yield* session.collapseEffort({ id: "perf-fix" })
      const turns = yield* quiet(session, 2)
      const metrics = turns[1]!.metrics
      assert.deepStrictEqual(turns[1]!.decayed, ["auth-bug"])
      assert.strictEqual(metrics.turn, 3)
      assert.strictEqual(metrics.auto_collapses, 1)
      assert.strictEqual(metrics.manual_collapses, 1)
      assert.strictEqual(metrics.manual_vs_auto_collapse, 0.5)
      // perf-fix: expanded in turn 1, collapsed during turn 2 (1 turn); auth-bug: turn 1 to its decay at turn 3.
      assert.strictEqual(metrics.avg_expansion_duration, (1 + 2) / 2)
      assert.strictEqual(metrics.expansion_tokens, 0)
      assert.isAbove(metrics.context_tokens, 0)
      assert.isAbove(metrics.savings_vs_naive, 0.5)
      assert.isAbove(metrics.tokens_saved_by_decay, 100)
      assert.strictEqual((yield* Metric.value(SessionMetrics.auto_collapses)).count, 1)
      assert.strictEqual((yield* Metric.value(SessionMetrics.manual_collapses)).count, 1)
      assert.strictEqual(
        (yield* Metric.value(SessionMetrics.tokens_saved_by_decay)).count,
        metrics.tokens_saved_by_decay
      )
      assert.strictEqual((yield* Metric.value(SessionMetrics.context_tokens)).value, metrics.context_tokens)
    }).pipe(
      Effect.provide(sessionLayer({ decay_threshold: 2 }, proofInit)),
      Effect.provideService(Metric.MetricRegistry, new Map())
    )
  )

  it.effect("expansion overhead while expanded", () =>
    Effect.gen(function* () {
      const session = yield* Session.Session
      yield* session.expandEffort({ id: "auth-bug" })
      const { metrics } = yield* session.processTurn({ user: "auth-bug", assistant: "ok" })
      assert.isAbove(metrics.expansion_tokens, 100)
      assert.closeTo(metrics.expansion_overhead, metrics.expansion_tokens / metrics.context_tokens, 1e-9)
    }).pipe(Effect.provide(sessionLayer({}, proofInit)))
  )

  it.effect("bad settings fail with SessionConfigError", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(Session.make({ decay_threshold: 0 }))
      assert.strictEqual(error._tag, "SessionConfigError")
      assert.include(error.message, "decay_threshold")
    }).pipe(Effect.provide(sessionLayer()))
  )
})

describe("Session: storage failures", () => {
  const failing = Layer.succeed(SessionStore.SessionStore, {
    ...SessionStore.makeMemory(),
    appendAmbient: () => Effect.fail(new SessionStore.SessionStoreError({ message: "disk full" }))
  })

  it.effect("a failed write fails the turn without advancing it", () =>
    Effect.gen(function* () {
      const session = yield* Session.Session
      const error = yield* Effect.flip(session.processTurn({ user: "hi", assistant: "hello" }))
      assert.strictEqual(error._tag, "SessionStoreError")
      assert.strictEqual((yield* session.state()).turn_count, 0)
      assert.strictEqual((yield* session.buildContext()).length, 1)
    }).pipe(
      Effect.provide(
        Session.layer().pipe(
          Layer.provide(Layer.mergeAll(failing, Summarizer.layerExtractive, TokenCounter.layerO200k))
        )
      )
    )
  )
})
