/**
 * Acceptance-style tests: every name comes from the package barrel `@heed/decay` (and `@heed/schema`) and is
 * used exactly as issue 6 writes it.
 */
import { assert, describe, it } from "@effect/vitest"
import { Decay, References, Session, SessionStore, Summarizer, Tools } from "@heed/decay"
import { TokenCounter } from "@heed/schema"
import { Effect, Layer, Metric, Stream } from "effect"
import { LanguageModel, Tool } from "effect/ai"
import * as fc from "fast-check"

const AUTH_SUMMARY = "Fixed 401 errors: refresh tokens never auto-called. Added axios interceptor."
const PERF_SUMMARY = "Dashboard query was slow because of a missing JOIN index; added the index."

const live = (config?: Parameters<typeof Session.layer>[0]) =>
  Session.layer(config).pipe(
    Layer.provide(Layer.mergeAll(SessionStore.layerMemory, Summarizer.layerExtractive, TokenCounter.layerO200k))
  )

const LONG_USER = "The login keeps failing with 401 errors after an hour; the refresh token is never sent by axios."
const LONG_ASSISTANT =
  "Add an axios interceptor that catches the 401, calls the refresh endpoint once, stores the new access token " +
  "and retries the original request; queue concurrent requests while the refresh is in flight."

/** Builds a concluded effort through the tools only: open, one exchange, close (the closing turn logs too). */
const conclude = (session: Session.SessionShape, id: string, user = LONG_USER, assistant = LONG_ASSISTANT) =>
  Effect.gen(function* () {
    yield* session.openEffort({ name: id })
    yield* session.processTurn({ user, assistant })
    const closed = yield* session.closeEffort({})
    yield* session.processTurn({ user: "That is done, thanks.", assistant: "Great, closing it." })
    return closed
  })

const unrelated = (session: Session.SessionShape, n: number) =>
  Effect.gen(function* () {
    const out = []
    for (let i = 0; i < n; i++) {
      out.push(yield* session.processTurn({ user: "What's the weather like?", assistant: "Sunny and warm." }))
    }
    return out
  })

describe("References (public API)", () => {
  it("isReferenced: id, spaced id, two keywords; one keyword or unrelated text is not", () => {
    const keywords = References.extractKeywords(AUTH_SUMMARY)
    assert.isTrue(References.isReferenced("What about auth-bug?", "auth-bug", keywords))
    assert.isTrue(References.isReferenced("the auth bug details", "auth-bug", keywords))
    assert.isTrue(References.isReferenced("The refresh tokens are expiring", "auth-bug", keywords))
    assert.isFalse(References.isReferenced("The refresh rate is fine", "auth-bug", keywords))
    assert.isFalse(References.isReferenced("Let's plan the sailing trip", "auth-bug", keywords))
    assert.isTrue(References.isReferenced("WHAT ABOUT AUTH-BUG", "auth-bug", keywords))
    assert.isTrue(References.isReferenced("REFRESH TOKENS", "auth-bug", keywords))
  })

  it("word-boundary ids ('api' is not in 'capital'); plural/singular forms match", () => {
    const none = new Set<string>()
    assert.isFalse(References.isReferenced("What is the capital of France?", "api", none))
    assert.isTrue(References.isReferenced("The api is down", "api", none))
    assert.isTrue(References.isReferenced("Both APIs are down", "api", none))
    assert.isTrue(References.isReferenced("those auth bugs again", "auth-bug", none))
    // Keywords are stemmed when matching: "token" meets "tokens", "interceptors" meets "interceptor".
    const keywords = References.extractKeywords(AUTH_SUMMARY)
    assert.isTrue(References.isReferenced("the token and the interceptors", "auth-bug", keywords))
  })

  it("options.min_keyword_overlap changes the number of hits needed", () => {
    const keywords = References.extractKeywords(AUTH_SUMMARY)
    assert.isTrue(References.isReferenced("The refresh rate is fine", "auth-bug", keywords, { min_keyword_overlap: 1 }))
    assert.isFalse(
      References.isReferenced("The refresh tokens are expiring", "auth-bug", keywords, { min_keyword_overlap: 3 })
    )
  })
})

describe("Decay.check (public API)", () => {
  const efforts = [
    { id: "auth-bug", status: "concluded" as const, summary: AUTH_SUMMARY },
    { id: "perf-fix", status: "concluded" as const, summary: PERF_SUMMARY },
    { id: "wip", status: "open" as const, summary: null }
  ]
  const base = {
    efforts,
    expanded: ["auth-bug"],
    last_referenced_turn: { "auth-bug": 1 },
    summary_last_referenced_turn: {}
  }

  it("returns { state, decayed }: expanded at 1, decays at exactly 1 + decay_threshold", () => {
    const t2 = Decay.check(base, 2, "weather?", "sunny")
    const t3 = Decay.check(t2.state, 3, "pizza?", "basil")
    const t4 = Decay.check(t3.state, 4, "quantum?", "spooky")
    assert.deepStrictEqual([t2.decayed, t3.decayed, t4.decayed], [[], [], ["auth-bug"]])
    assert.deepStrictEqual(t4.state.expanded, [])
    assert.isUndefined(t4.state.last_referenced_turn["auth-bug"])
    assert.deepStrictEqual(base.expanded, ["auth-bug"])
  })

  it("a reference in the user or the assistant message resets last_referenced_turn", () => {
    assert.strictEqual(Decay.check(base, 4, "the auth-bug again", "ok").state.last_referenced_turn["auth-bug"], 4)
    const viaAssistant = Decay.check(base, 4, "and then?", "the refresh tokens expired")
    assert.deepStrictEqual(viaAssistant.decayed, [])
    assert.strictEqual(viaAssistant.state.last_referenced_turn["auth-bug"], 4)
  })

  it("config may be partial: decay_threshold alone", () => {
    assert.deepStrictEqual(Decay.check(base, 4, "x", "y", { decay_threshold: 5 }).decayed, [])
    assert.deepStrictEqual(Decay.check(base, 6, "x", "y", { decay_threshold: 5 }).decayed, ["auth-bug"])
  })

  it("config.min_keyword_overlap is honoured", () => {
    const one = Decay.check(base, 4, "the refresh rate", "fine", { min_keyword_overlap: 1 })
    assert.deepStrictEqual(one.decayed, [])
    assert.deepStrictEqual(Decay.check(base, 4, "the refresh rate", "fine").decayed, ["auth-bug"])
  })

  it("open efforts never decay, even when listed as expanded", () => {
    const result = Decay.check({ ...base, expanded: ["wip"], last_referenced_turn: { wip: 1 } }, 50, "x", "y")
    assert.deepStrictEqual(result.decayed, [])
    assert.deepStrictEqual(result.state.expanded, ["wip"])
  })

  it("summary_last_referenced_turn: a reference records the turn, first sight gets grace", () => {
    const result = Decay.check(
      { ...base, summary_last_referenced_turn: { "auth-bug": 1 } },
      7,
      "the JOIN index",
      "query"
    )
    assert.strictEqual(result.state.summary_last_referenced_turn["perf-fix"], 7)
    assert.strictEqual(result.state.summary_last_referenced_turn["auth-bug"], 1)
    const fresh = Decay.check({ ...base, summary_last_referenced_turn: {} }, 3, "x", "y")
    assert.strictEqual(fresh.state.summary_last_referenced_turn["auth-bug"], 3)
    assert.isUndefined(fresh.state.summary_last_referenced_turn.wip)
  })

  it("property: referenced every turn never decays; unreferenced decays at exactly the threshold", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 0, max: 20 }), (threshold, start) => {
        let referenced: Decay.DecayState = { ...base, last_referenced_turn: { "auth-bug": start } }
        let idle: Decay.DecayState = referenced
        let decayedAt: number | undefined
        for (let turn = start + 1; turn <= start + threshold + 3; turn++) {
          const a = Decay.check(referenced, turn, "auth-bug?", "yes", { decay_threshold: threshold })
          assert.deepStrictEqual(a.decayed, [])
          referenced = a.state
          const b = Decay.check(idle, turn, "weather", "sun", { decay_threshold: threshold })
          if (b.decayed.length > 0 && decayedAt === undefined) decayedAt = turn
          idle = b.state
        }
        assert.strictEqual(decayedAt, start + threshold)
      })
    )
  })
})

describe("Session (public API)", () => {
  it.effect("tool replies are shaped like upstream's", () =>
    Effect.gen(function* () {
      const session = yield* Session.Session
      assert.deepStrictEqual(yield* session.effortStatus(), { efforts: [], message: "No efforts yet." })
      assert.deepStrictEqual(yield* session.openEffort({ name: "auth-bug" }), {
        status: "opened",
        effort_id: "auth-bug"
      })
      yield* session.processTurn({ user: LONG_USER, assistant: LONG_ASSISTANT })
      const closed = yield* session.closeEffort({})
      assert.strictEqual(closed.status, "concluded")
      assert.strictEqual(closed.effort_id, "auth-bug")
      assert.isString(closed.summary)
      yield* session.processTurn({ user: "Done, thanks.", assistant: "Closing." })
      const expanded = yield* session.expandEffort({ id: "auth-bug" })
      assert.deepStrictEqual(Object.keys(expanded).sort(), ["effort_id", "status", "tokens_loaded"])
      assert.strictEqual(expanded.status, "expanded")
      assert.deepStrictEqual(yield* session.collapseEffort({ id: "auth-bug" }), {
        status: "collapsed",
        effort_id: "auth-bug"
      })
      yield* session.openEffort({ name: "a" })
      yield* session.openEffort({ name: "b" })
      assert.deepStrictEqual(yield* session.switchEffort({ id: "a" }), { status: "switched", effort_id: "a" })
      const search = yield* session.searchEfforts({ query: "auth-bug" })
      assert.strictEqual(search.query, "auth-bug")
      assert.deepStrictEqual(
        search.results.map((r) => [r.id, r.status]),
        [["auth-bug", "concluded"]]
      )
      const reopened = yield* session.reopenEffort({ id: "auth-bug" })
      assert.strictEqual(reopened.status, "reopened")
      assert.strictEqual(reopened.effort_id, "auth-bug")
      assert.isString(reopened.prior_summary)
      const status = yield* session.effortStatus()
      assert.deepStrictEqual(
        status.efforts.map((e) => [e.id, e.status, e.active]),
        [
          ["auth-bug", "open", true],
          ["a", "open", false],
          ["b", "open", false]
        ]
      )
    }).pipe(Effect.provide(live()))
  )

  it.effect("upstream error texts", () =>
    Effect.gen(function* () {
      const session = yield* Session.Session
      assert.strictEqual((yield* Effect.flip(session.closeEffort())).message, "No active effort to close.")
      assert.strictEqual(
        (yield* Effect.flip(session.expandEffort({ id: "ghost" }))).message,
        "No effort with id 'ghost'."
      )
      yield* session.openEffort({ name: "wip" })
      assert.strictEqual(
        (yield* Effect.flip(session.expandEffort({ id: "wip" }))).message,
        "Cannot expand 'wip': status is 'open', must be 'concluded'."
      )
      assert.strictEqual(
        (yield* Effect.flip(session.collapseEffort({ id: "wip" }))).message,
        "Effort 'wip' is not currently expanded."
      )
      assert.strictEqual(
        (yield* Effect.flip(session.closeEffort({ id: "nope" }))).message,
        "No open effort with id 'nope'."
      )
      assert.strictEqual(
        (yield* Effect.flip(session.reopenEffort({ id: "wip" }))).message,
        "Cannot reopen 'wip': status is 'open', must be 'concluded'."
      )
      yield* conclude(session, "done")
      assert.strictEqual(
        (yield* Effect.flip(session.switchEffort({ id: "done" }))).message,
        "Cannot switch to 'done': status is 'concluded', must be 'open'."
      )
      yield* session.expandEffort({ id: "done" })
      assert.strictEqual(
        (yield* Effect.flip(session.expandEffort({ id: "done" }))).message,
        "Effort 'done' is already expanded."
      )
    }).pipe(Effect.provide(live()))
  )

  it.effect("duplicate effort ids are rejected with a clear error", () =>
    Effect.gen(function* () {
      const session = yield* Session.Session
      yield* session.openEffort({ name: "auth-bug" })
      const error = yield* Effect.flip(session.openEffort({ name: "auth-bug" }))
      assert.strictEqual(error._tag, "DuplicateEffortId")
      assert.include(error.message, "auth-bug")
      assert.include(error.message, "already exists")
      assert.strictEqual((yield* session.effortStatus()).efforts.length, 1)
    }).pipe(Effect.provide(live()))
  )

  it.effect("seed proof run: expand, reference, 3 unrelated turns, auto-collapse at the threshold, re-expand", () =>
    Effect.gen(function* () {
      const session = yield* Session.Session
      yield* conclude(session, "auth-bug")
      yield* conclude(
        session,
        "perf-fix",
        "The dashboard query takes 9 seconds on the orders table.",
        "Add a composite index for the JOIN on customer_id and created_at; the query drops to 40 ms."
      )
      const tokens = () =>
        Effect.map(session.buildContext(), (messages) =>
          messages.reduce((n, m) => n + TokenCounter.countO200k(m.content), 0)
        )
      const baseline = yield* tokens()
      const expand = yield* session.expandEffort({ id: "auth-bug" })
      const t1 = yield* session.processTurn({ user: "Show me the auth-bug details", assistant: "Here they are." })
      assert.include(t1.banners[0]!, "--- Expanded effort: auth-bug (")
      const expandedTokens = yield* tokens()
      assert.isAbove(expandedTokens, baseline + expand.tokens_loaded / 2)
      const t2 = yield* session.processTurn({ user: "So the auth-bug was the interceptor?", assistant: "Yes." })
      const [t3, t4, t5] = yield* unrelated(session, 3)
      assert.deepStrictEqual(
        [t1.decayed, t2.decayed, t3!.decayed, t4!.decayed, t5!.decayed],
        [[], [], [], [], ["auth-bug"]]
      )
      assert.deepStrictEqual(t5!.banners, ["--- Auto-collapsed effort: auth-bug (inactive for 3 turns) ---"])
      // Appended, not logged: the banner is nowhere in the working context.
      const after = yield* session.buildContext()
      assert.isFalse(after.some((m) => m.content.includes("Auto-collapsed")))
      assert.isTrue(after[0]!.content.includes("- auth-bug: "))
      yield* unrelated(session, 1)
      const again = yield* session.expandEffort({ id: "auth-bug" })
      assert.strictEqual(again.status, "expanded")
      const t7 = yield* session.processTurn({ user: "back to the auth-bug", assistant: "ok" })
      assert.deepStrictEqual(t7.decayed, [])
      assert.strictEqual(t7.metrics.auto_collapses, 1)
      assert.strictEqual(t7.metrics.false_decay_rate, 1)
      assert.isAbove(t7.metrics.tokens_saved_by_decay, 0)
      for (const key of [
        "auto_collapses",
        "avg_expansion_duration",
        "manual_vs_auto_collapse",
        "false_decay_rate",
        "tokens_saved_by_decay",
        "context_tokens",
        "expansion_tokens",
        "expansion_overhead",
        "savings_vs_naive"
      ]) {
        assert.isNumber((t7.metrics as unknown as Record<string, number>)[key], key)
      }
    }).pipe(Effect.provide(live()))
  )

  it.effect("open efforts never decay and decay_threshold is configurable per session", () =>
    Effect.gen(function* () {
      const session = yield* Session.Session
      yield* conclude(session, "auth-bug")
      yield* session.openEffort({ name: "wip" })
      // Expanded during turn 3 (turns 1-2 built the effort); threshold 5: collapses at the end of turn 8.
      yield* session.expandEffort({ id: "auth-bug" })
      const turns = yield* unrelated(session, 6)
      assert.deepStrictEqual(
        turns.map((t) => t.decayed),
        [[], [], [], [], [], ["auth-bug"]]
      )
      const status = yield* session.effortStatus()
      assert.strictEqual(status.efforts.find((e) => e.id === "wip")!.status, "open")
    }).pipe(Effect.provide(live({ decay_threshold: 5 })))
  )

  it.effect("re-expanded within 2 turns of an auto-collapse, the effort stays longer", () =>
    Effect.gen(function* () {
      const session = yield* Session.Session
      yield* conclude(session, "auth-bug")
      yield* session.expandEffort({ id: "auth-bug" })
      const first = yield* unrelated(session, 4)
      assert.deepStrictEqual(first[3]!.decayed, ["auth-bug"])
      yield* session.expandEffort({ id: "auth-bug" })
      const second = yield* unrelated(session, 4)
      assert.deepStrictEqual(
        second.map((t) => t.decayed),
        [[], [], [], []]
      )
    }).pipe(Effect.provide(live()))
  )

  it.effect("tokens_loaded counts content tokens; the closing exchange is in the summary", () =>
    Effect.gen(function* () {
      const session = yield* Session.Session
      yield* session.openEffort({ name: "auth-bug" })
      yield* session.processTurn({ user: LONG_USER, assistant: LONG_ASSISTANT })
      yield* session.closeEffort({})
      yield* session.processTurn({
        user: "Resolved: the interceptor shipped in release 4.2 with zebra-stripe logging.",
        assistant: "Great, closing the effort."
      })
      const expanded = yield* session.expandEffort({ id: "auth-bug" })
      const context = yield* session.buildContext()
      const logged = context.filter((m) => m.role !== "system")
      const content = logged.reduce((n, m) => n + TokenCounter.countO200k(m.content), 0)
      assert.strictEqual(expanded.tokens_loaded, content)
      // The summary was made again after the closing exchange was logged, and covers it.
      const summary = (yield* session.effortStatus()).efforts[0]!.summary!
      assert.include(summary, "zebra-stripe logging")
      assert.include(summary, LONG_USER)
    }).pipe(
      Effect.provide(
        Session.layer().pipe(
          Layer.provide(
            Layer.mergeAll(
              SessionStore.layerMemory,
              TokenCounter.layerO200k,
              Layer.succeed(Summarizer.Summarizer, {
                summarize: (input) => Effect.succeed(input.messages.map((m) => m.content).join(" | "))
              })
            )
          )
        )
      )
    )
  )

  it.effect("buildContext order: system, ambient, expanded, open non-active, active last", () =>
    Effect.gen(function* () {
      const session = yield* Session.Session
      yield* session.processTurn({ user: "ambient hello", assistant: "ambient hi" })
      yield* conclude(session, "done")
      yield* session.openEffort({ name: "side" })
      yield* session.processTurn({ user: "side question", assistant: "side answer" })
      yield* session.openEffort({ name: "main" })
      yield* session.processTurn({ user: "main question", assistant: "main answer" })
      yield* session.expandEffort({ id: "done" })
      const context = yield* session.buildContext()
      assert.strictEqual(context[0]!.role, "system")
      // The only concluded effort is expanded, so no summary line; the memory section is there.
      assert.notInclude(context[0]!.content, "Concluded efforts (summaries only):")
      assert.include(context[0]!.content, "## Memory")
      const contents = context.map((m) => m.content)
      const at = (text: string) => contents.findIndex((c) => c.includes(text))
      assert.isTrue(at("ambient hello") > 0)
      assert.isTrue(at("ambient hello") < at(LONG_USER))
      assert.isTrue(at(LONG_USER) < at("side question"))
      assert.isTrue(at("side question") < at("main question"))
      // The expanded effort's summary is not duplicated in the system message.
      assert.notInclude(context[0]!.content, "- done: ")
    }).pipe(Effect.provide(live()))
  )

  it.effect("under token_budget, the largest idle expansion collapses first", () =>
    Effect.gen(function* () {
      const session = yield* Session.Session
      yield* conclude(session, "small", "lint rule question?", "Enable the rule.")
      yield* conclude(session, "large", LONG_USER.repeat(6), LONG_ASSISTANT.repeat(6))
      yield* conclude(session, "medium", LONG_USER, LONG_ASSISTANT)
      yield* session.expandEffort({ id: "small" })
      yield* session.expandEffort({ id: "large" })
      yield* session.expandEffort({ id: "medium" })
      const first = yield* session.processTurn({ user: "loaded?", assistant: "yes" })
      assert.deepStrictEqual(first.decayed, [])
      const second = yield* session.processTurn({ user: "the medium effort again", assistant: "ok" })
      assert.deepStrictEqual(second.decayed, ["large"])
      assert.include(second.banners.at(-1)!, "--- Auto-collapsed effort: large (inactive for 1 turns")
    }).pipe(Effect.provide(live({ token_budget: 300 })))
  )

  it.effect("a tool call and its result are never split by the ambient window", () =>
    Effect.gen(function* () {
      const session = yield* Session.Session
      for (let i = 0; i < 12; i++) {
        yield* session.processTurn({
          user: `question ${i}`,
          assistant: `answer ${i}`,
          tool_calls: [{ id: `call-${i}`, name: "lookup", arguments: { i }, result: { found: i } }]
        })
      }
      const context = yield* session.buildContext()
      const calls = new Set<string>()
      for (const message of context) for (const call of message.tool_calls ?? []) calls.add(call.id)
      for (const message of context) {
        if (message.role === "tool") assert.isTrue(calls.has(message.tool_call_id!), message.tool_call_id)
      }
      assert.isAbove(context.filter((m) => m.role === "tool").length, 0)
    }).pipe(Effect.provide(live()))
  )

  it.effect(
    "summary eviction: a summary unreferenced for 20 turns leaves the system prompt, search still finds it",
    () =>
      Effect.gen(function* () {
        const session = yield* Session.Session
        yield* conclude(session, "sailing-trip", "Plan the coastal sailing trip tides.", "Leave at high tide, 9 am.")
        assert.include((yield* session.buildContext())[0]!.content, "- sailing-trip: ")
        // Last referenced at turn 2 (the closing turn's banner names it): still shown for turn 21 (21 − 2 = 19),
        // evicted from turn 22 on (22 − 2 = 20).
        yield* unrelated(session, 18)
        assert.include((yield* session.buildContext())[0]!.content, "- sailing-trip: ")
        yield* unrelated(session, 1)
        assert.notInclude((yield* session.buildContext())[0]!.content, "- sailing-trip: ")
        const found = yield* session.searchEfforts({ query: "sailing-trip" })
        assert.deepStrictEqual(
          found.results.map((r) => r.id),
          ["sailing-trip"]
        )
      }).pipe(Effect.provide(live()))
  )

  it.effect("searchEfforts ranks by rarity-weighted overlap", () =>
    Effect.gen(function* () {
      const session = yield* Session.Session
      yield* conclude(
        session,
        "common",
        "We discussed the database migration plan and the database schema for the database team meeting.",
        "Database migration notes: schema versions, database backups and the database rollback plan."
      )
      yield* conclude(
        session,
        "rare",
        "Database question about the flamingo replication lag on the flamingo cluster.",
        "The flamingo replica lags because of the database checkpoint settings; raise the flamingo wal size."
      )
      const reply = yield* session.searchEfforts({ query: "database flamingo replication" })
      assert.strictEqual(reply.results[0]?.id, "rare")
    }).pipe(Effect.provide(live()))
  )

  it.effect("the metrics are Effect metrics too", () =>
    Effect.gen(function* () {
      const session = yield* Session.Session
      yield* conclude(session, "auth-bug")
      yield* session.expandEffort({ id: "auth-bug" })
      yield* unrelated(session, 4)
      const snapshot = yield* Metric.snapshot
      const names = new Set(snapshot.map((m) => m.id))
      for (const name of [
        "auto_collapses",
        "avg_expansion_duration",
        "manual_vs_auto_collapse",
        "false_decay_rate",
        "tokens_saved_by_decay"
      ]) {
        assert.isTrue(names.has(name), name)
      }
    }).pipe(Effect.provide(live()), Effect.provideService(Metric.MetricRegistry, new Map()))
  )
})

describe("Ports and layers (public API)", () => {
  it.effect("SessionStore.layerMemory and Summarizer.layerExtractive need nothing", () =>
    Effect.gen(function* () {
      const store = yield* SessionStore.SessionStore
      const summarizer = yield* Summarizer.Summarizer
      assert.strictEqual((yield* store.load).manifest.length, 0)
      const summary = yield* summarizer.summarize({
        effort_id: "auth-bug",
        messages: [
          { role: "user", content: LONG_USER, ts: "2026-01-01T00:00:00Z" },
          { role: "assistant", content: LONG_ASSISTANT, ts: "2026-01-01T00:00:01Z" }
        ]
      })
      assert.isAbove(summary.length, 0)
    }).pipe(Effect.provide(Layer.mergeAll(SessionStore.layerMemory, Summarizer.layerExtractive)))
  )

  it("Tools: the eight tools with upstream names and parameters", () => {
    assert.deepStrictEqual(Object.keys(Tools.toolkit.tools).sort(), [
      "close_effort",
      "collapse_effort",
      "effort_status",
      "expand_effort",
      "open_effort",
      "reopen_effort",
      "search_efforts",
      "switch_effort"
    ])
    const props = (name: keyof typeof Tools.toolkit.tools) =>
      Object.keys((Tool.getJsonSchema(Tools.toolkit.tools[name]) as { properties?: object }).properties ?? {})
    assert.deepStrictEqual(props("open_effort"), ["name"])
    assert.deepStrictEqual(props("close_effort"), ["id"])
    assert.deepStrictEqual(props("reopen_effort"), ["id"])
    assert.deepStrictEqual(props("search_efforts"), ["query"])
  })

  it.effect("a LanguageModel can call a tool on the Session", () =>
    Effect.gen(function* () {
      const session = yield* Session.Session
      const response = yield* LanguageModel.generateText({ prompt: "start auth work", toolkit: Tools.toolkit })
      assert.deepStrictEqual(response.toolResults[0]!.result, { status: "opened", effort_id: "auth-bug" })
      assert.strictEqual((yield* session.effortStatus()).efforts[0]!.id, "auth-bug")
    }).pipe(
      Effect.provide(
        Layer.mergeAll(
          Tools.layer.pipe(Layer.provideMerge(live())),
          Layer.effect(
            LanguageModel.LanguageModel,
            LanguageModel.make({
              generateText: () =>
                Effect.succeed([
                  { type: "tool-call", id: "c1", name: "open_effort", params: { name: "auth-bug" } },
                  {
                    type: "finish",
                    reason: "tool-calls",
                    usage: { inputTokens: { total: 1 }, outputTokens: { total: 1 } }
                  }
                ]),
              streamText: () => Stream.empty
            })
          )
        )
      )
    )
  )
})
