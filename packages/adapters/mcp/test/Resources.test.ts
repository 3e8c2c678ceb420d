import { assert, describe, it } from "@effect/vitest"
import { Awareness } from "@heed/collator"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import { TestClock } from "effect/testing"
import { AwarenessResolver, BriefingNotifier, Instructions, Resources } from "../src/index.ts"
import { makeClient, ok, read } from "./helpers.ts"

describe("Resources", () => {
  it.effect("lists the six resources (two as templates)", () =>
    Effect.gen(function* () {
      const client = yield* makeClient()
      const { resources } = yield* client.listResources()
      assert.deepStrictEqual(resources.map((resource) => resource.uri).sort(), [
        "awareness://alerts",
        "awareness://briefing",
        "awareness://knowledge",
        "awareness://suppressions"
      ])
      const { resourceTemplates } = yield* client.listResourceTemplates()
      assert.deepStrictEqual(resourceTemplates.map((template) => template.uriTemplate).sort(), [
        "awareness://alerts/{source}",
        "awareness://status/{source}"
      ])
    }).pipe(Effect.scoped)
  )

  it.effect("every resource returns the same data as its tool mirror", () =>
    Effect.gen(function* () {
      const client = yield* makeClient()
      yield* ok(client, "report_status", { source: "nas", tags: ["nas"], metrics: { disk_pct: 91 } })
      yield* ok(client, "report_alert", {
        source: "nas",
        tags: ["disk"],
        alert_id: "disk_full",
        level: "critical",
        message: "Disk 91% full"
      })
      yield* ok(client, "suppress_alert", { source: "ci", reason: "flaky runner" })
      const briefing = yield* read(client, "awareness://briefing")
      const tool = yield* ok(client, "get_briefing")
      assert.deepStrictEqual([briefing.summary, briefing.attention_needed], [tool.summary, tool.attention_needed])
      assert.strictEqual(briefing.sources.nas.drill_down, "awareness://alerts/nas")
      const alerts = yield* read(client, "awareness://alerts")
      assert.strictEqual(alerts.entries[0].data.alert_id, "disk_full")
      const bySource = yield* read(client, "awareness://alerts/nas")
      assert.deepStrictEqual(bySource, yield* ok(client, "get_alerts", { source: "nas" }))
      const none = yield* read(client, "awareness://alerts/elsewhere")
      assert.deepStrictEqual(none.entries, [])
      const status = yield* read(client, "awareness://status/nas")
      assert.deepStrictEqual(status.data.metrics, { disk_pct: 91 })
      const suppressions = yield* read(client, "awareness://suppressions")
      assert.deepStrictEqual(suppressions, yield* ok(client, "get_suppressions"))
      assert.strictEqual(suppressions.length, 1)
    }).pipe(Effect.scoped)
  )

  it.effect("every resources/read content names its mimeType (application/json)", () =>
    Effect.gen(function* () {
      const client = yield* makeClient()
      yield* ok(client, "report_status", { source: "nas", tags: [], metrics: {} })
      for (const uri of [
        "awareness://briefing",
        "awareness://alerts",
        "awareness://alerts/nas",
        "awareness://status/nas",
        "awareness://status/missing",
        "awareness://knowledge",
        "awareness://suppressions"
      ]) {
        const { contents } = yield* client.readResource({ uri })
        assert.deepStrictEqual(
          contents.map((content) => [content.uri, content.mimeType]),
          [[uri, "application/json"]]
        )
      }
    }).pipe(Effect.scoped)
  )

  it.effect("a missing status answers upstream's JSON error body instead of a protocol error", () =>
    Effect.gen(function* () {
      const client = yield* makeClient()
      const body = yield* read(client, "awareness://status/ghost")
      assert.deepStrictEqual([body.status, body.error.code], ["error", "not_found"])
    }).pipe(Effect.scoped)
  )

  it.effect("heed differs: awareness://knowledge is paginated, never unbounded", () =>
    Effect.gen(function* () {
      const client = yield* makeClient()
      for (let i = 0; i < Resources.knowledgePageSize + 10; i++) {
        yield* ok(client, "remember", {
          source: "user",
          tags: ["bulk"],
          description: `note ${i}`,
          content: "x".repeat(200)
        })
      }
      const page = yield* read(client, "awareness://knowledge")
      assert.strictEqual(page.entries.length, Resources.knowledgePageSize)
      assert.isTrue(page.has_more)
      assert.include(page.next, "offset=")
      assert.isUndefined(page.entries[0].data)
    }).pipe(Effect.scoped)
  )
})

describe("Briefing subscription", () => {
  it.effect("a write that changes the briefing sends notifications/resources/updated to subscribers", () =>
    Effect.gen(function* () {
      const client = yield* makeClient()
      yield* client.subscribe({ uri: "awareness://briefing" })
      yield* ok(client, "get_briefing")
      yield* ok(client, "report_alert", {
        source: "nas",
        tags: ["qbittorrent"],
        alert_id: "qb",
        level: "warning",
        message: "qBittorrent stopped"
      })
      const notification = yield* Queue.take(client.notifications)
      assert.deepStrictEqual(notification, {
        _tag: "Notification",
        method: "notifications/resources/updated",
        payload: { uri: "awareness://briefing" }
      } as unknown as typeof notification)
    }).pipe(Effect.scoped)
  )

  it.effect("a write that leaves the briefing as it was sends nothing", () =>
    Effect.gen(function* () {
      // With a coalescing window under the TestClock, adjusting past it runs the notifier's check to completion:
      // the absence below is the check's answer, not a pause.
      const client = yield* makeClient({ debounce: "100 millis" })
      yield* client.subscribe({ uri: "awareness://briefing" })
      yield* ok(client, "report_alert", { source: "nas", tags: [], alert_id: "qb", level: "warning", message: "down" })
      yield* TestClock.adjust("100 millis")
      assert.isTrue(Option.isSome(yield* Queue.poll(client.notifications)))
      yield* ok(client, "remember", { source: "user", tags: ["x"], description: "unrelated" })
      yield* ok(client, "set_preference", { key: "colour", value: "blue" })
      yield* TestClock.adjust("100 millis")
      assert.isTrue(Option.isNone(yield* Queue.poll(client.notifications)))
      // The notifier still answers a change after the silent check.
      yield* ok(client, "report_alert", {
        source: "nas",
        tags: [],
        alert_id: "qb",
        level: "warning",
        message: "up",
        resolved: true
      })
      yield* TestClock.adjust("100 millis")
      assert.isTrue(Option.isSome(yield* Queue.poll(client.notifications)))
    }).pipe(Effect.scoped)
  )

  it.effect("time alone (a source going stale) notifies subscribers on the next tick", () =>
    Effect.gen(function* () {
      const client = yield* makeClient({ pollInterval: "1 second" })
      yield* ok(client, "report_status", { source: "nas", tags: [], metrics: {}, ttl_sec: 60 })
      yield* client.subscribe({ uri: "awareness://briefing" })
      yield* TestClock.adjust("1 second")
      // The write's own notification (the source appeared).
      yield* Queue.take(client.notifications)
      yield* TestClock.adjust("61 seconds")
      const notification = yield* Queue.take(client.notifications)
      assert.strictEqual((notification as unknown as { payload: { uri: string } }).payload.uri, "awareness://briefing")
      const briefing = yield* ok(client, "get_briefing")
      assert.strictEqual(briefing.sources.nas.status, "stale")
      // Staying stale (only the age in the headline changes) does not notify again.
      yield* TestClock.adjust("5 seconds")
      assert.isTrue(Option.isNone(yield* Queue.poll(client.notifications)))
    }).pipe(Effect.scoped)
  )

  it.effect(
    "a due intention is announced, never delivered by the notifier itself (the subscriber's read gets it)",
    () =>
      Effect.gen(function* () {
        const client = yield* makeClient({ pollInterval: "1 second" })
        yield* ok(client, "remind", {
          goal: "Water the plants",
          source: "user",
          tags: [],
          deliver_at: new Date(10 * 60_000).toISOString()
        })
        yield* client.subscribe({ uri: "awareness://briefing" })
        yield* TestClock.adjust("1 second")
        yield* Queue.take(client.notifications)
        yield* TestClock.adjust("10 minutes")
        const notification = yield* Queue.take(client.notifications)
        assert.strictEqual((notification as unknown as { method: string }).method, "notifications/resources/updated")
        const pending = yield* ok(client, "get_intentions", { state: "pending" })
        assert.lengthOf(pending.entries, 1)
        const briefing = yield* ok(client, "get_briefing")
        assert.deepStrictEqual(
          briefing.fired_intentions.map((fired: { goal: string; new?: boolean }) => [fired.goal, fired.new]),
          [["Water the plants", true]]
        )
      }).pipe(Effect.scoped)
  )

  it.effect("a reminder written while the notifier looks is delivered to the subscriber's read, marked new once", () =>
    Effect.gen(function* () {
      // The notifier's look is hooked: the first look after `armed` writes a due reminder first (as a client's
      // remind landing between the notifier's steps would). Its look must not deliver it.
      let armed = false
      const hooked = (real: AwarenessResolver.AwarenessApi): AwarenessResolver.AwarenessApi => {
        const hook = Effect.suspend(() => {
          if (!armed) return Effect.void
          armed = false
          const past = new Date(-60_000).toISOString()
          return Effect.asVoid(real.remind({ goal: "Call the plumber", source: "home", tags: [], deliver_at: past }))
        })
        return {
          ...real,
          getIntentions: (input) => Effect.tap(real.getIntentions(input), () => hook),
          peekBriefing: Effect.andThen(hook, real.peekBriefing)
        }
      }
      const resolver = Layer.unwrap(Effect.map(Awareness.Awareness, (real) => AwarenessResolver.single(hooked(real))))
      const client = yield* makeClient({ resolver })
      yield* client.subscribe({ uri: "awareness://briefing" })
      armed = true
      yield* ok(client, "report_status", { source: "nas", tags: [], metrics: {} })
      yield* Queue.take(client.notifications)
      const first = yield* ok(client, "get_briefing")
      assert.deepStrictEqual(
        first.fired_intentions.map((fired: { goal: string; new?: boolean }) => [fired.goal, fired.new]),
        [["Call the plumber", true]]
      )
      const second = yield* ok(client, "get_briefing")
      assert.deepStrictEqual(
        second.fired_intentions.map((fired: { goal: string; new?: boolean }) => [fired.goal, fired.new]),
        [["Call the plumber", undefined]]
      )
    }).pipe(Effect.scoped)
  )

  it.effect("with audiences, a change is announced to the audience of the service whose briefing changed", () =>
    Effect.gen(function* () {
      const resolver = Layer.unwrap(
        Effect.map(Awareness.Awareness, (awareness) =>
          Layer.succeed(
            AwarenessResolver.AwarenessResolver,
            AwarenessResolver.make({
              current: Effect.succeed(awareness),
              watched: Effect.succeed([awareness]),
              audienceOf: (service) => (service === awareness ? "audience-of-alice" : undefined)
            })
          )
        )
      )
      const client = yield* makeClient({ resolver })
      yield* client.subscribe({ uri: "awareness://briefing" })
      yield* ok(client, "report_alert", { source: "a", tags: [], alert_id: "x", level: "critical", message: "m" })
      const notification = yield* Queue.take(client.notifications)
      assert.deepStrictEqual(notification, {
        _tag: "Notification",
        method: "notifications/resources/updated",
        payload: { uri: "awareness://briefing", _meta: { [BriefingNotifier.audienceKey]: "audience-of-alice" } }
      } as unknown as typeof notification)
    }).pipe(Effect.scoped)
  )

  it.effect("subscriptions work on every stateful protocol version heed serves (2025-06-18 here)", () =>
    Effect.gen(function* () {
      const client = yield* makeClient({ protocolVersion: "2025-06-18" })
      assert.strictEqual(client.protocolVersion, "2025-06-18")
      yield* client.subscribe({ uri: "awareness://briefing" })
      yield* ok(client, "report_alert", { source: "a", tags: [], alert_id: "x", level: "critical", message: "m" })
      const notification = yield* Queue.take(client.notifications)
      assert.strictEqual((notification as unknown as { method: string }).method, "notifications/resources/updated")
    }).pipe(Effect.scoped)
  )

  it.effect("the 2026-07-28 revision serves the same tools and resources", () =>
    Effect.gen(function* () {
      const client = yield* makeClient({ protocolVersion: "2026-07-28" })
      assert.strictEqual(client.protocolVersion, "2026-07-28")
      const briefing = yield* read(client, "awareness://briefing")
      assert.strictEqual(briefing.attention_needed, false)
    }).pipe(Effect.scoped)
  )
})

describe("Prompts and instructions", () => {
  it.effect("lists agent_instructions, system_status and catchup", () =>
    Effect.gen(function* () {
      const client = yield* makeClient()
      const { prompts } = yield* client.listPrompts()
      assert.deepStrictEqual(prompts.map((prompt) => prompt.name).sort(), [
        "agent_instructions",
        "catchup",
        "system_status"
      ])
    }).pipe(Effect.scoped)
  )

  it.effect("agent_instructions adds the user's memory-prompt entries in 'Entry N' order", () =>
    Effect.gen(function* () {
      const client = yield* makeClient()
      yield* ok(client, "remember", {
        source: "user",
        tags: ["memory-prompt"],
        description: "Entry 2",
        content: "Answer in French."
      })
      yield* ok(client, "remember", {
        source: "user",
        tags: ["memory-prompt"],
        description: "Entry 1",
        content: "Call me Sam."
      })
      const result = yield* client.getPrompt({ name: "agent_instructions", arguments: {} })
      const text = (result.messages[0]!.content as { text: string }).text
      assert.include(text, "get_briefing")
      assert.isBelow(text.indexOf("Call me Sam."), text.indexOf("Answer in French."))
    }).pipe(Effect.scoped)
  )

  it.effect("system_status and catchup embed live data", () =>
    Effect.gen(function* () {
      const client = yield* makeClient()
      yield* ok(client, "report_status", { source: "nas", tags: [], metrics: { load: 3 } })
      const status = yield* client.getPrompt({ name: "system_status", arguments: { source: "nas" } })
      assert.include((status.messages[0]!.content as { text: string }).text, '"load": 3')
      const catchup = yield* client.getPrompt({ name: "catchup", arguments: { hours: "2" } })
      assert.include((catchup.messages[0]!.content as { text: string }).text, "last 2 hours")
    }).pipe(Effect.scoped)
  )

  it("the server instructions tell agents to read the briefing first and stay quiet when nothing is needed", () => {
    assert.include(Instructions.instructions, "get_briefing")
    assert.include(Instructions.instructions, "attention_needed is false: say nothing")
    assert.include(Instructions.instructions, "suppress_alert")
  })
})
