import { assert, describe, it } from "@effect/vitest"
import { TokenCounter } from "@heed/schema"
import { Deferred, Effect, Exit, Fiber, Layer, Option } from "effect"
import { TestClock } from "effect/testing"
import { Awareness, AwarenessError, AwarenessTools, type Entry, Store } from "../src/index.ts"

const START = Date.parse("2026-03-20T12:00:00Z") // a Friday
const TestLayer = Awareness.layer.pipe(Layer.provideMerge(Store.layerMemory))

const setup = Effect.gen(function* () {
  yield* TestClock.setTime(START)
  return yield* Awareness.Awareness
})

const minutes = (n: number) => TestClock.adjust(`${n} minutes`)

const instance = Effect.gen(function* () {
  return yield* Awareness.Awareness
})

const head = <A>(items: ReadonlyArray<A>): A => {
  const item = items[0]
  assert.isDefined(item)
  return item as A
}

const failure = <A, R>(effect: Effect.Effect<A, AwarenessError.AwarenessError, R>) => Effect.flip(effect)

/** A reminder of `goal` from "me", due an hour before the test clock's start: the next briefing fires it. */
const remindDue = (awareness: Awareness.AwarenessShape, goal: string) =>
  awareness.remind({ goal, source: "me", tags: [], deliver_at: "2026-03-20T11:00:00Z" })

/** The next read delivers exactly this due intention, marked new. */
const deliveredAsNew = (awareness: Awareness.AwarenessShape, id: string) =>
  Effect.map(awareness.getBriefing(), (read) =>
    assert.deepStrictEqual(
      read.fired_intentions?.map((item) => [item.id, item.new]),
      [[id, true]]
    )
  )

/**
 * The memory store in context, seen through a store that runs `between` (once, after `arm()`) right after answering
 * the first query `selects` picks: another replica's write landing between two of a briefing's reads.
 */
const afterRead = <E>(selects: (filter: Store.EntryFilter) => boolean, between: Effect.Effect<unknown, E>) =>
  Effect.map(Store.Store, (memory) => {
    let armed = false
    let fired = false
    const racing: Store.Store["Service"] = {
      ...memory,
      query: (filter) =>
        Effect.tap(memory.query(filter), () => {
          if (!armed || !selects(filter)) return Effect.void
          armed = false
          fired = true
          return Effect.orDie(between)
        })
    }
    return {
      layer: Layer.succeed(Store.Store, racing),
      arm: () => {
        armed = true
      },
      fired: () => fired
    }
  })

/** An entry written straight to the store, as another writer (or an older release) may leave it. */
const stored = (fields: Pick<Entry.Entry, "id" | "type" | "source" | "data"> & Partial<Entry.Entry>): Entry.Entry => ({
  tags: [],
  created: "2026-03-20T10:00:00Z",
  updated: null,
  expires: null,
  deleted: null,
  ...fields
})

/** Calls a tool with untrusted parameters, through the toolkit's validation (as MCP and REST do). */
const tool = (name: string, params: unknown) => AwarenessTools.call(name, params)

/** A slow-backup warning on nas, and a pattern saying backups run 7-9 in the owner's local time. */
const slowBackupWithPattern = (awareness: Awareness.AwarenessShape) =>
  Effect.gen(function* () {
    yield* awareness.reportAlert({
      source: "nas",
      tags: [],
      alert_id: "backup_slow",
      level: "warning",
      alert_type: "threshold",
      message: "Backup slow"
    })
    yield* awareness.learnPattern({
      source: "nas",
      tags: [],
      description: "backups run 7-9 local time",
      conditions: { hour_range: [7, 9], alert_id: "backup_*" }
    })
  })

describe("Awareness: write tools", () => {
  it.effect("report_status returns handles only and replaces the source's status", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      const first = yield* awareness.reportStatus({ source: "nas", tags: ["infra"], metrics: { cpu_pct: 12 } })
      assert.strictEqual(first.status, "ok")
      assert.strictEqual(first.source, "nas")
      const second = yield* awareness.reportStatus({
        source: "nas",
        tags: ["infra"],
        metrics: { cpu_pct: 13 },
        ttl_sec: 300
      })
      const store = yield* Store.Store
      const statuses = yield* store.query({ types: ["status"] })
      assert.lengthOf(statuses, 1)
      assert.strictEqual(statuses[0]?.id, second.id)
      assert.deepStrictEqual(statuses[0]?.data, { metrics: { cpu_pct: 13 }, ttl_sec: 300 })
      const status = yield* awareness.getStatus({ source: "nas" })
      assert.strictEqual(status.id, second.id)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("report_alert upserts by (source, alert_id), merging data and replacing tags", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      const first = yield* awareness.reportAlert({
        source: "nas",
        tags: ["a"],
        alert_id: "disk",
        level: "warning",
        alert_type: "threshold",
        message: "Disk 91%",
        details: { mount: "/volume1" }
      })
      assert.deepStrictEqual(first, { status: "ok", id: first.id, action: "reported", alert_id: "disk" })
      const second = yield* awareness.reportAlert({
        source: "nas",
        tags: ["b"],
        alert_id: "disk",
        level: "critical",
        alert_type: "threshold",
        message: "Disk 99%"
      })
      assert.strictEqual(second.id, first.id)
      yield* awareness.reportAlert({
        source: "ci",
        tags: [],
        alert_id: "disk",
        level: "warning",
        alert_type: "threshold",
        message: "CI disk"
      })
      const page = yield* awareness.getAlerts({ source: "nas" })
      assert.lengthOf(page.entries, 1)
      const entry = page.entries[0] as { tags: ReadonlyArray<string>; data: Record<string, unknown> }
      assert.deepStrictEqual(entry.tags, ["b"])
      assert.strictEqual(entry.data.level, "critical")
      assert.deepStrictEqual(entry.data.details, { mount: "/volume1" })
      assert.lengthOf((yield* awareness.getAlerts()).entries, 2)
      const resolved = yield* awareness.reportAlert({
        source: "nas",
        tags: [],
        alert_id: "disk",
        level: "warning",
        alert_type: "threshold",
        message: "Disk fine",
        resolved: true
      })
      assert.strictEqual(resolved.action, "resolved")
      assert.lengthOf((yield* awareness.getAlerts({ source: "nas" })).entries, 0)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("concurrent report_alert calls produce one row", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      yield* Effect.forEach(
        Array.from({ length: 10 }, (_, i) => i),
        (i) =>
          awareness.reportAlert({
            source: "nas",
            tags: [],
            alert_id: "cpu",
            level: "warning",
            alert_type: "threshold",
            message: `CPU ${90 + i}%`
          }),
        { concurrency: "unbounded", discard: true }
      )
      assert.lengthOf((yield* awareness.getAlerts()).entries, 1)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("invalid parameters give structured errors with valid values and did-you-mean", () =>
    Effect.gen(function* () {
      yield* setup
      const level = yield* failure(
        tool("report_alert", {
          source: "nas",
          tags: [],
          alert_id: "x",
          level: "critcal",
          alert_type: "threshold",
          message: "m"
        })
      )
      assert.strictEqual(level.code, "invalid_parameter")
      assert.strictEqual(level.param, "level")
      assert.deepStrictEqual(level.valid, ["warning", "critical"])
      assert.strictEqual(level.suggestion, "critical")
      assert.isFalse(level.retryable)
      assert.deepStrictEqual(level.toEnvelope().status, "error")
      assert.strictEqual(level.toEnvelope().error.code, "invalid_parameter")
      const missing = yield* failure(tool("report_status", { tags: [], metrics: {} }))
      assert.strictEqual(missing.param, "source")
      const empty = yield* failure(tool("remind", { goal: "g", source: "s", tags: [], deliver_at: "" }))
      assert.strictEqual(empty.param, "deliver_at")
      const malformed = yield* failure(tool("remind", { goal: "g", source: "s", tags: [], deliver_at: "tomorrow" }))
      assert.isString(malformed.help_url)
      const negative = yield* failure(tool("get_alerts", { limit: -1 }))
      assert.strictEqual(negative.param, "limit")
      const duration = yield* failure(tool("suppress_alert", { duration_minutes: 0 }))
      assert.strictEqual(duration.param, "duration_minutes")
      const nullParams = yield* failure(tool("report_status", null))
      assert.strictEqual(nullParams.param, "source")
      const far = yield* failure(tool("get_knowledge", { entry_type: "zzzzzzzz" }))
      assert.isUndefined(far.suggestion)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("naive and Z timestamps are accepted as UTC", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      yield* tool("remind", { goal: "a", source: "s", tags: [], deliver_at: "2026-03-21T09:00:00" })
      yield* tool("remind", { goal: "b", source: "s", tags: [], deliver_at: "2026-03-21T09:00:00Z" })
      const page = yield* awareness.getIntentions({})
      const times = page.entries.map((e) => (e.data as { deliver_at: string }).deliver_at)
      assert.deepStrictEqual(times, ["2026-03-21T09:00:00Z", "2026-03-21T09:00:00Z"])
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("learn_pattern rejects unknown condition keys with a suggestion", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      const error = yield* failure(
        awareness.learnPattern({ source: "nas", tags: [], description: "d", conditions: { day_of_weak: "friday" } })
      )
      assert.strictEqual(error.code, "invalid_parameter")
      assert.strictEqual(error.param, "conditions")
      assert.strictEqual(error.suggestion, "day_of_week")
      assert.include(error.valid ?? [], "hour_range")
      // The rejected pattern was not stored.
      assert.lengthOf(yield* (yield* Store.Store).query({ types: ["pattern"] }), 0)
      const ok = yield* awareness.learnPattern({
        source: "nas",
        tags: [],
        description: "qBittorrent restarts on Fridays",
        conditions: { day_of_week: "friday" },
        effect: "suppress qbittorrent_stopped"
      })
      assert.strictEqual(ok.status, "ok")
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("write responses never echo the caller's payload", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      const sentinel = "SENTINEL-7f3a"
      const responses = [
        yield* awareness.reportStatus({ source: "nas", tags: [sentinel], metrics: { x: sentinel } }),
        yield* awareness.reportAlert({
          source: "nas",
          tags: [sentinel],
          alert_id: "a",
          level: "warning",
          alert_type: "threshold",
          message: sentinel
        }),
        yield* awareness.learnPattern({ source: "nas", tags: [sentinel], description: sentinel, effect: sentinel }),
        yield* awareness.remember({ source: "nas", tags: [sentinel], description: sentinel, content: sentinel }),
        yield* awareness.addContext({ source: "nas", tags: [sentinel], description: sentinel }),
        yield* awareness.setPreference({ key: "k", value: sentinel }),
        yield* awareness.suppressAlert({ source: "nas", tags: [sentinel], reason: sentinel }),
        yield* awareness.remind({ goal: sentinel, source: "nas", tags: [sentinel], constraints: sentinel })
      ]
      for (const response of responses) assert.notInclude(JSON.stringify(response), sentinel)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("injection-looking payloads are stored literally", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      const payload = "'; DROP TABLE entries; -- %s {0} $" + "{x}"
      const { id } = yield* awareness.remember({ source: payload, tags: [payload], description: payload })
      const store = yield* Store.Store
      const entry = Option.getOrThrow(yield* store.get(id))
      assert.strictEqual(entry.source, payload)
      assert.deepStrictEqual(entry.tags, [payload])
      assert.strictEqual(entry.data.description, payload)
    }).pipe(Effect.provide(TestLayer))
  )
})

describe("Awareness: the cached briefing", () => {
  it.effect("is cached until the store changes; staleness_sec is real", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      yield* awareness.reportStatus({ source: "nas", tags: [], metrics: {}, ttl_sec: 3600 })
      const first = yield* awareness.getBriefing()
      assert.strictEqual(first.staleness_sec, 0)
      yield* TestClock.adjust("42 seconds")
      const cached = yield* awareness.getBriefing()
      assert.strictEqual(cached.staleness_sec, 42)
      assert.strictEqual(cached.generated, first.generated)
      yield* awareness.reportAlert({
        source: "nas",
        tags: [],
        alert_id: "d",
        level: "warning",
        alert_type: "threshold",
        message: "Disk"
      })
      const rebuilt = yield* awareness.getBriefing()
      assert.strictEqual(rebuilt.staleness_sec, 0)
      assert.strictEqual(rebuilt.sources.nas?.headline, "Disk")
      assert.strictEqual(rebuilt.active_alerts, 1)
      assert.notStrictEqual(rebuilt.generated, first.generated)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("concurrent readers share a generation begun after their reads, while writes keep coming", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(START)
      const memory = yield* Store.Store
      // Each generation reads the statuses first; the n-th one then waits for gates[n] (a slow read) when there is one.
      const gates: Array<Deferred.Deferred<void>> = []
      let generations = 0
      // Without `changes`, so that every generation reads its snapshot afresh (and is counted here).
      const gated = Store.Store.of({
        ...memory,
        changes: undefined,
        query: (filter) =>
          filter.types?.[0] === "status" && filter.activeAt !== undefined
            ? Effect.suspend(() => {
                const gate = gates[generations++]
                return gate === undefined
                  ? memory.query(filter)
                  : Effect.flatMap(memory.query(filter), (rows) => Effect.as(Deferred.await(gate), rows))
              })
            : memory.query(filter)
      })
      const awareness = yield* Effect.provide(
        instance,
        Awareness.layer.pipe(Layer.provide(Layer.succeed(Store.Store, gated)))
      )
      const until = (condition: () => boolean) =>
        Effect.gen(function* () {
          for (let i = 0; i < 1000 && !condition(); i++) yield* Effect.yieldNow
          assert.isTrue(condition())
        })
      const settle = Effect.repeat(Effect.yieldNow, { times: 20 })
      const write = (source: string) => awareness.reportStatus({ source, tags: [], metrics: {}, ttl_sec: 3600 })
      const first = yield* Deferred.make<void>()
      const second = yield* Deferred.make<void>()
      gates.push(first, second)
      const reader1 = yield* Effect.forkChild(awareness.getBriefing())
      yield* until(() => generations === 1)
      yield* write("a")
      const reader2 = yield* Effect.forkChild(awareness.getBriefing())
      yield* write("b")
      const reader3 = yield* Effect.forkChild(awareness.getBriefing())
      yield* settle
      yield* Deferred.succeed(first, undefined)
      // reader 2 generates after both writes; a write lands while it does
      yield* until(() => generations === 2)
      yield* write("c")
      yield* Deferred.succeed(second, undefined)
      assert.deepStrictEqual(Object.keys((yield* Fiber.join(reader1)).sources), [])
      assert.deepStrictEqual(Object.keys((yield* Fiber.join(reader2)).sources).sort(), ["a", "b"])
      // reader 3's own write is in the briefing reader 2 generated: shared, not generated a third time
      assert.deepStrictEqual(Object.keys((yield* Fiber.join(reader3)).sources).sort(), ["a", "b"])
      assert.strictEqual(generations, 2)
      // the next reader sees the last write
      assert.deepStrictEqual(Object.keys((yield* awareness.getBriefing()).sources).sort(), ["a", "b", "c"])
    }).pipe(Effect.provide(Store.layerMemory))
  )

  it.effect("is rebuilt when time changes the answer (a status goes stale)", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      yield* awareness.reportStatus({ source: "nas", tags: [], metrics: {} })
      assert.strictEqual((yield* awareness.getBriefing()).sources.nas?.status, "ok")
      yield* TestClock.adjust("121 seconds")
      const stale = yield* awareness.getBriefing()
      assert.strictEqual(stale.sources.nas?.status, "stale")
      assert.strictEqual(stale.staleness_sec, 0)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("sees writes made by another Awareness instance over the same store", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(START)
      const one = yield* Effect.provide(instance, Awareness.layer)
      const two = yield* Effect.provide(instance, Awareness.layer)
      assert.strictEqual((yield* one.getBriefing()).active_alerts, 0)
      yield* two.reportAlert({
        source: "ci",
        tags: [],
        alert_id: "x",
        level: "warning",
        alert_type: "structural",
        message: "CI red"
      })
      assert.strictEqual((yield* one.getBriefing()).active_alerts, 1)
    }).pipe(Effect.provide(Store.layerMemory))
  )

  it.effect("alerts from a source without status appear in the briefing", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      yield* awareness.reportAlert({
        source: "edge",
        tags: [],
        alert_id: "x",
        level: "critical",
        alert_type: "structural",
        message: "Edge down"
      })
      const briefing = yield* awareness.getBriefing()
      assert.deepStrictEqual(briefing.sources.edge, {
        status: "critical",
        last_report: null,
        headline: "Edge down",
        drill_down: "awareness://alerts/edge"
      })
      assert.strictEqual(briefing.suggested_mention, "CRITICAL: Edge down")
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("a metric-scoped suppression matches an MCP-reported alert with metric", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      yield* awareness.reportStatus({ source: "nas", tags: [], metrics: {} })
      yield* awareness.reportAlert({
        source: "nas",
        tags: [],
        alert_id: "disk_busy",
        level: "warning",
        alert_type: "threshold",
        message: "Disk busy 97%",
        metric: "disk_busy_pct",
        value: 97,
        threshold: 90
      })
      yield* awareness.suppressAlert({ source: "nas", metric: "disk_busy_pct", duration_minutes: 60, reason: "scrub" })
      const briefing = yield* awareness.getBriefing()
      assert.strictEqual(briefing.active_alerts, 0)
      assert.strictEqual(briefing.evaluation.suppressed, 1)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("clear_suppression brings the alert back; expiry re-surfaces it, marked as such", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      yield* awareness.reportAlert({
        source: "nas",
        tags: [],
        alert_id: "d",
        level: "warning",
        alert_type: "threshold",
        message: "Disk 91%"
      })
      const sup = yield* awareness.suppressAlert({ source: "nas", duration_minutes: 30 })
      assert.strictEqual((yield* awareness.getBriefing()).active_alerts, 0)
      yield* minutes(31)
      const back = yield* awareness.getBriefing()
      assert.strictEqual(back.active_alerts, 1)
      assert.strictEqual(back.sources.nas?.resurfaced, true)
      const again = yield* awareness.suppressAlert({ source: "nas", duration_minutes: 30 })
      assert.strictEqual((yield* awareness.getBriefing()).active_alerts, 0)
      const cleared = yield* awareness.clearSuppression({ entry_id: again.id })
      assert.strictEqual(cleared.cleared, true)
      assert.strictEqual((yield* awareness.getBriefing()).active_alerts, 1)
      const missing = yield* failure(awareness.clearSuppression({ entry_id: again.id }))
      assert.strictEqual(missing.code, "not_found")
      const expired = yield* failure(awareness.clearSuppression({ entry_id: sup.id }))
      assert.strictEqual(expired.code, "not_found")
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("the owner's timezone preference drives pattern conditions", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      yield* slowBackupWithPattern(awareness)
      assert.strictEqual((yield* awareness.getBriefing()).active_alerts, 1) // 12:00 UTC
      yield* awareness.setPreference({ key: "timezone", value: "America/New_York" }) // 08:00 there
      assert.strictEqual((yield* awareness.getBriefing()).active_alerts, 0)
      const bad = yield* failure(awareness.setPreference({ key: "timezone", value: "Mars/Base" }))
      assert.strictEqual(bad.param, "value")
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("acted_on acknowledges an alert, holding it back", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      const { id } = yield* awareness.reportAlert({
        source: "nas",
        tags: ["x"],
        alert_id: "d",
        level: "warning",
        alert_type: "threshold",
        message: "Disk"
      })
      yield* minutes(1)
      const ack = yield* awareness.actedOn({ entry_id: id, action: "acknowledged", platform: "claude" })
      assert.strictEqual(ack.entry_id, id)
      assert.strictEqual(ack.action, "acknowledged")
      const briefing = yield* awareness.getBriefing()
      assert.strictEqual(briefing.active_alerts, 0)
      assert.strictEqual(briefing.evaluation.acknowledged, 1)
      const missing = yield* failure(awareness.actedOn({ entry_id: "nope", action: "x" }))
      assert.strictEqual(missing.code, "not_found")
    }).pipe(Effect.provide(TestLayer))
  )
})

describe("Awareness: flap damping", () => {
  const uplink = (awareness: Awareness.AwarenessShape, resolved: boolean) =>
    awareness.reportAlert({
      source: "nas",
      tags: [],
      alert_id: "link",
      level: "warning",
      alert_type: "structural",
      message: "Uplink down",
      resolved
    })

  it.effect("a flapping alert resolved between a briefing's reads of firing and resolved alerts counts once", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(START)
      const other = yield* Effect.provide(instance, Awareness.layer)
      const report = (resolved: boolean) => uplink(other, resolved)
      const racing = yield* afterRead(
        (filter) => filter.types?.[0] === "alert" && filter.data?.resolved === false,
        report(true)
      )
      const one = yield* Effect.provide(instance, Awareness.layer.pipe(Layer.provide(racing.layer)))
      for (const resolved of [false, true, false]) {
        yield* report(resolved)
        yield* minutes(5)
      }
      racing.arm()
      const briefing = yield* one.getBriefing()
      assert.isTrue(racing.fired())
      assert.deepStrictEqual([briefing.active_alerts, briefing.sources.nas?.flapping], [1, true])
    }).pipe(Effect.provide(Store.layerMemory))
  )

  it.effect("an alert that flaps keeps firing in the briefing instead of toggling", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      const report = (resolved: boolean) => uplink(awareness, resolved)
      yield* report(false)
      yield* minutes(5)
      yield* report(true)
      yield* minutes(5)
      yield* report(false)
      yield* minutes(5)
      yield* report(true)
      const briefing = yield* awareness.getBriefing()
      assert.strictEqual(briefing.active_alerts, 1)
      assert.strictEqual(briefing.sources.nas?.flapping, true)
      yield* minutes(61)
      assert.strictEqual((yield* awareness.getBriefing()).active_alerts, 0)
    }).pipe(Effect.provide(TestLayer))
  )
})

describe("Awareness: intentions", () => {
  it.effect("a due intention is marked new in the one read that delivers it and stays until acknowledged", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      const { id } = yield* awareness.remind({
        goal: "Call mom",
        source: "personal",
        tags: [],
        deliver_at: "2026-03-20T11:00:00Z"
      })
      const first = yield* awareness.getBriefing()
      assert.deepStrictEqual(first.fired_intentions, [
        { id, goal: "Call mom", source: "personal", tags: [], new: true }
      ])
      const second = yield* awareness.getBriefing()
      assert.deepStrictEqual(second.fired_intentions, [{ id, goal: "Call mom", source: "personal", tags: [] }])
      assert.isTrue(second.attention_needed)
      const page = yield* awareness.getIntentions({ state: "fired" })
      assert.lengthOf(page.entries, 1)
      assert.strictEqual((head(page.entries).data as { state_reason: string }).state_reason, "Delivered via briefing")
      yield* awareness.actedOn({ entry_id: id, action: "called" })
      assert.isUndefined((yield* awareness.getBriefing()).fired_intentions)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("a fired intention leaves the briefing when moved to another state or after the retention", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      const done = yield* remindDue(awareness, "Done")
      const kept = yield* remindDue(awareness, "Kept")
      assert.lengthOf((yield* awareness.getBriefing()).fired_intentions ?? [], 2)
      yield* awareness.updateIntention({ entry_id: done.id, state: "completed" })
      assert.deepStrictEqual(
        (yield* awareness.getBriefing()).fired_intentions?.map((item) => item.id),
        [kept.id]
      )
      yield* minutes(24 * 60 - 1)
      assert.lengthOf((yield* awareness.getBriefing()).fired_intentions ?? [], 1)
      yield* minutes(1)
      const after = yield* awareness.getBriefing()
      assert.isUndefined(after.fired_intentions)
      assert.strictEqual(after.evaluation.intentions_fired, 0)
    }).pipe(Effect.provide(TestLayer))
  )

  // `fired_retention_minutes` is the deprecated spelling of `firedRetentionMinutes`: both must keep working.
  for (const options of [{ firedRetentionMinutes: 10 }, { fired_retention_minutes: 10 }]) {
    it.effect(`the fired-intention retention is configurable (${Object.keys(options)[0]})`, () =>
      Effect.gen(function* () {
        const awareness = yield* Effect.provide(instance, Awareness.layerWith(options))
        yield* TestClock.setTime(START)
        yield* remindDue(awareness, "Short")
        assert.lengthOf((yield* awareness.getBriefing()).fired_intentions ?? [], 1)
        yield* minutes(9)
        assert.lengthOf((yield* awareness.getBriefing()).fired_intentions ?? [], 1)
        yield* minutes(1)
        assert.isUndefined((yield* awareness.getBriefing()).fired_intentions)
      }).pipe(Effect.provide(Store.layerMemory))
    )
  }

  it.effect("peekBriefing shows a due intention without delivering it", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      const { id } = yield* remindDue(awareness, "Peek")
      const peeked = yield* awareness.peekBriefing
      assert.deepStrictEqual(
        peeked.fired_intentions?.map((item) => item.id),
        [id]
      )
      assert.lengthOf((yield* awareness.getIntentions({ state: "pending" })).entries, 1)
      yield* deliveredAsNew(awareness, id)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("peekBriefingWithin fits the briefing under a smaller token budget, uncached and delivering nothing", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      for (let i = 0; i < 12; i++) {
        const source = `host-${String(i).padStart(2, "0")}`
        yield* awareness.reportStatus({ source, tags: ["infra"], metrics: { cpu_pct: 50 } })
        yield* awareness.reportAlert({
          source,
          tags: ["infra"],
          alert_id: "disk",
          level: i % 3 === 0 ? "critical" : "warning",
          message: `Disk usage on ${source} is at ${80 + i}% and rising by about two points an hour since midnight`
        })
      }
      const { id } = yield* remindDue(awareness, "Rotate keys")
      const agentTokens = (b: object) => TokenCounter.countO200k(TokenCounter.toCompactJson(b))
      const full = yield* awareness.peekBriefing
      const fitted = yield* awareness.peekBriefingWithin(250)
      assert.isAbove(agentTokens(full), 250)
      assert.isAtMost(agentTokens(fitted), 250)
      assert.strictEqual(fitted.attention_needed, true)
      assert.strictEqual(fitted.summary.length > 0, true, "the fitted briefing still has a summary")
      // not cached: the next unbudgeted peek is the full briefing again, and the due reminder is still undelivered
      assert.deepStrictEqual(yield* awareness.peekBriefing, full)
      assert.lengthOf((yield* awareness.getIntentions({ state: "pending" })).entries, 1)
      yield* deliveredAsNew(awareness, id)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("intentions are marked new exactly once under concurrent briefing reads (also across instances)", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(START)
      const one = yield* Effect.provide(instance, Awareness.layer)
      const two = yield* Effect.provide(instance, Awareness.layer)
      for (let i = 0; i < 5; i++) {
        yield* one.remind({ goal: `Task ${i}`, source: "personal", tags: [], deliver_at: "2026-03-20T11:00:00Z" })
      }
      const briefings = yield* Effect.forEach(
        Array.from({ length: 20 }, (_, i) => i),
        (i) => (i % 2 === 0 ? one : two).getBriefing(),
        { concurrency: "unbounded" }
      )
      const delivered = briefings
        .flatMap((b) => b.fired_intentions ?? [])
        .filter((item) => item.new === true)
        .map((item) => item.goal)
      assert.deepStrictEqual([...delivered].sort(), ["Task 0", "Task 1", "Task 2", "Task 3", "Task 4"])
      for (const briefing of briefings) assert.lengthOf(briefing.fired_intentions ?? [], 5)
    }).pipe(Effect.provide(Store.layerMemory))
  )

  it.effect("an intention another replica claims between a briefing's reads of pending and fired ones shows once", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(START)
      const other = yield* Effect.provide(instance, Awareness.layer)
      const racing = yield* afterRead(
        (filter) => filter.types?.[0] === "intention" && filter.data?.state === "pending",
        other.getBriefing()
      )
      const one = yield* Effect.provide(instance, Awareness.layer.pipe(Layer.provide(racing.layer)))
      const { id } = yield* remindDue(one, "Call")
      racing.arm()
      const read = yield* one.getBriefing()
      assert.isTrue(racing.fired())
      // The other replica delivered it (marked new there); this read shows it once, as already delivered.
      assert.deepStrictEqual(
        read.fired_intentions?.map((item) => [item.id, item.new]),
        [[id, undefined]]
      )
      assert.strictEqual(read.evaluation.intentions_fired, 1)
    }).pipe(Effect.provide(Store.layerMemory))
  )

  it.effect("a future intention within the horizon is upcoming; one beyond it is only pending", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      yield* awareness.remind({ goal: "Dentist", source: "gcal", tags: [], deliver_at: "2026-03-20T12:40:00Z" })
      yield* awareness.remind({ goal: "Next week", source: "gcal", tags: [], deliver_at: "2026-03-27T12:00:00Z" })
      const briefing = yield* awareness.getBriefing()
      assert.deepStrictEqual(briefing.upcoming, [
        { source: "gcal", summary: "Dentist", deliver_at: "2026-03-20T12:40:00Z", in_minutes: 40 }
      ])
      assert.isUndefined(briefing.fired_intentions)
      assert.isTrue(briefing.attention_needed)
      assert.strictEqual(briefing.summary, "1 upcoming item.")
      assert.strictEqual(briefing.suggested_mention, "UPCOMING in 40 min: Dentist")
      assert.strictEqual(briefing.pending_intentions, 2)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("update_intention constrains transitions; snoozing re-arms the intention", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      const { id } = yield* remindDue(awareness, "Stretch")
      assert.lengthOf((yield* awareness.getBriefing()).fired_intentions ?? [], 1)
      const noDate = yield* failure(awareness.updateIntention({ entry_id: id, state: "snoozed" }))
      assert.strictEqual(noDate.param, "deliver_at")
      yield* awareness.updateIntention({
        entry_id: id,
        state: "snoozed",
        reason: "busy",
        deliver_at: "2026-03-20T12:10:00Z"
      })
      assert.isUndefined((yield* awareness.getBriefing()).fired_intentions)
      yield* minutes(11)
      assert.lengthOf((yield* awareness.getBriefing()).fired_intentions ?? [], 1)
      yield* awareness.updateIntention({ entry_id: id, state: "completed" })
      const back = yield* failure(awareness.updateIntention({ entry_id: id, state: "pending" }))
      assert.strictEqual(back.code, "invalid_parameter")
      assert.deepStrictEqual(back.valid, [])
      const typo = yield* failure(tool("update_intention", { entry_id: id, state: "complete" }))
      assert.strictEqual(typo.suggestion, "completed")
    }).pipe(Effect.provide(TestLayer))
  )
})

describe("Awareness: knowledge and maintenance", () => {
  it.effect("remember with logical_key creates, updates with a changelog, and leaves no-op updates untouched", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      const created = yield* awareness.remember({ source: "repo", tags: ["a"], description: "v1", logical_key: "k" })
      assert.strictEqual(created.action, "created")
      yield* minutes(1)
      const updated = yield* awareness.remember({ source: "repo", tags: ["a"], description: "v2", logical_key: "k" })
      assert.strictEqual(updated.action, "updated")
      assert.strictEqual(updated.id, created.id)
      yield* minutes(1)
      yield* awareness.remember({ source: "repo", tags: ["a"], description: "v2", logical_key: "k" })
      const store = yield* Store.Store
      const entry = Option.getOrThrow(yield* store.get(created.id))
      assert.strictEqual(entry.updated, "2026-03-20T12:01:00Z")
      assert.deepStrictEqual(entry.data.changelog, [
        { updated: "2026-03-20T12:01:00Z", changed: { description: "v1" } }
      ])
      const other = yield* awareness.remember({ source: "other", tags: [], description: "x", logical_key: "k" })
      assert.strictEqual(other.action, "created")
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("get_knowledge: default types, tags AND, history, list mode and pagination", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      yield* awareness.remember({ source: "s", tags: ["a", "b"], description: "note ab" })
      yield* awareness.remember({ source: "s", tags: ["a"], description: "note a" })
      yield* awareness.addContext({ source: "s", tags: ["a", "b"], description: "context ab", expires_days: 2 })
      yield* awareness.reportAlert({
        source: "s",
        tags: ["a", "b"],
        alert_id: "x",
        level: "warning",
        alert_type: "threshold",
        message: "not knowledge"
      })
      const both = yield* awareness.getKnowledge({ tags: ["a", "b"] })
      assert.lengthOf(both.entries, 2)
      const paged = yield* awareness.getKnowledge({ tags: ["a"], limit: 2 })
      assert.lengthOf(paged.entries, 2)
      assert.isTrue(paged.has_more)
      const list = yield* awareness.getKnowledge({ mode: "list", limit: 1, offset: 2 })
      assert.deepStrictEqual(Object.keys(list.entries[0] ?? {}).sort(), [
        "created",
        "description",
        "id",
        "source",
        "tags",
        "type",
        "updated"
      ])
      assert.isFalse(list.has_more)
      const { id } = yield* awareness.remember({ source: "s", tags: [], description: "first", logical_key: "h" })
      yield* awareness.updateEntry({ entry_id: id, description: "second" })
      const only = yield* awareness.getKnowledge({ include_history: "only" })
      assert.lengthOf(only.entries, 1)
      assert.isDefined((head(only.entries).data as Record<string, unknown>).changelog)
      const stripped = yield* awareness.getKnowledge({ source: "s", entry_type: "note" })
      assert.isTrue(stripped.entries.every((e) => !("changelog" in (e.data as object))))
      yield* minutes(3 * 24 * 60)
      const after = yield* awareness.getKnowledge({ entry_type: "context" })
      assert.lengthOf(after.entries, 0)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("get_stats, get_tags and get_suppressions", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      yield* awareness.remember({ source: "a", tags: ["x", "y"], description: "n" })
      yield* awareness.remember({ source: "b", tags: ["x"], description: "n" })
      yield* awareness.suppressAlert({ tags: ["y"], duration_minutes: 5 })
      const stats = yield* awareness.getStats()
      assert.strictEqual(stats.entries.note, 2)
      assert.strictEqual(stats.entries.suppression, 1)
      assert.strictEqual(stats.entries.record, 0)
      assert.strictEqual(stats.total, 3)
      assert.deepStrictEqual(stats.sources, ["", "a", "b"])
      assert.deepStrictEqual(yield* awareness.getTags(), [
        { tag: "x", count: 2 },
        { tag: "y", count: 2 }
      ])
      assert.lengthOf(yield* awareness.getSuppressions(), 1)
      yield* minutes(6)
      assert.lengthOf(yield* awareness.getSuppressions(), 0)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("update_entry edits knowledge and refuses status, alert and suppression entries", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      const note = yield* awareness.remember({ source: "s", tags: ["t"], description: "old" })
      yield* minutes(1)
      const result = yield* awareness.updateEntry({ entry_id: note.id, description: "new", tags: ["t", "u"] })
      assert.strictEqual(result.updated, "2026-03-20T12:01:00Z")
      const alert = yield* awareness.reportAlert({
        source: "s",
        tags: [],
        alert_id: "a",
        level: "warning",
        alert_type: "threshold",
        message: "m"
      })
      const refused = yield* failure(awareness.updateEntry({ entry_id: alert.id, description: "x" }))
      assert.strictEqual(refused.code, "not_found")
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect(
    "delete_entry: by id always acknowledges; bulk is a dry run unless confirmed; restore brings entries back",
    () =>
      Effect.gen(function* () {
        const awareness = yield* setup
        const ctx = yield* awareness.addContext({ source: "s", tags: ["a", "b"], description: "c", expires_days: 5 })
        yield* awareness.remember({ source: "s", tags: ["a"], description: "n" })
        const byId = yield* awareness.deleteEntry({ entry_id: ctx.id })
        const unknown = yield* awareness.deleteEntry({ entry_id: "does-not-exist" })
        assert.deepStrictEqual({ ...byId, entry_id: "" }, { ...unknown, entry_id: "" })
        assert.strictEqual(byId.status, "acknowledged")
        assert.lengthOf((yield* awareness.getKnowledge({})).entries, 1)
        const restored = yield* awareness.restoreEntry({ entry_id: ctx.id })
        assert.strictEqual(restored.restored, 1)
        const store = yield* Store.Store
        assert.strictEqual(Option.getOrThrow(yield* store.get(ctx.id)).expires, ctx.expires)
        const again = yield* awareness.deleteEntry({ entry_id: ctx.id })
        assert.strictEqual(again.status, "acknowledged")
        const deletedAt = Option.getOrThrow(yield* store.get(ctx.id)).deleted
        assert.isString(deletedAt)
        yield* minutes(1)
        yield* awareness.deleteEntry({ entry_id: ctx.id })
        assert.strictEqual(Option.getOrThrow(yield* store.get(ctx.id)).deleted, deletedAt, "double delete is a no-op")
        yield* awareness.restoreEntry({ entry_id: ctx.id })
        const dryExact = yield* awareness.deleteEntry({ tags: ["a", "b"] })
        assert.deepStrictEqual(dryExact, {
          status: "dry_run",
          would_trash: 1,
          note: "Nothing was deleted. Call again with confirm=true to move these entries to trash."
        })
        const dry = yield* awareness.deleteEntry({ tags: ["a"] })
        assert.deepStrictEqual([dry.status, dry.status === "dry_run" ? dry.would_trash : -1], ["dry_run", 2])
        assert.lengthOf((yield* awareness.getKnowledge({})).entries, 2)
        const done = yield* awareness.deleteEntry({ tags: ["a", "b"], confirm: true })
        assert.deepStrictEqual(done, { status: "ok", trashed: 1, recoverable_days: 30 })
        assert.lengthOf((yield* awareness.getKnowledge({})).entries, 1)
        const back = yield* awareness.restoreEntry({ tags: ["a", "b"] })
        assert.strictEqual(back.restored, 1)
        const nothing = yield* failure(awareness.deleteEntry({}))
        assert.strictEqual(nothing.code, "invalid_parameter")
      }).pipe(Effect.provide(TestLayer))
  )

  it.effect("search ranks lexical matches without an embedding provider", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      yield* awareness.remember({ source: "s", tags: [], description: "The NAS backup runs nightly" })
      yield* awareness.remember({ source: "s", tags: ["backup"], description: "Unrelated note" })
      yield* awareness.remember({ source: "s", tags: [], description: "Nothing here" })
      const hits = yield* awareness.search({ query: "backup nightly" })
      assert.lengthOf(hits, 2)
      // Upstream's shape: each hit is the entry itself with a `similarity` field.
      assert.strictEqual(
        (head(hits) as unknown as { data: { description: string } }).data.description,
        "The NAS backup runs nightly"
      )
      assert.strictEqual(head(hits).type, "note")
      assert.notProperty(head(hits), "entry")
      assert.isAbove(hits[0]?.similarity ?? 0, hits[1]?.similarity ?? 0)
      const limited = yield* awareness.search({ query: "backup", limit: 1, mode: "list" })
      assert.lengthOf(limited, 1)
      yield* awareness.remember({ source: "s", tags: [], description: "We walked the dog" })
      const stemmed = yield* awareness.search({ query: "walking" })
      assert.lengthOf(stemmed, 1)
      const none = yield* awareness.search({ query: "zebra" })
      assert.lengthOf(none, 0)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("get_status of an unknown source is not_found", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      const error = yield* failure(awareness.getStatus({ source: "ghost" }))
      assert.strictEqual(error.code, "not_found")
    }).pipe(Effect.provide(TestLayer))
  )
})

describe("Awareness: store failures", () => {
  const failing = Layer.succeed(Store.Store, {
    version: Effect.fail(new Store.StoreError({ message: "connection refused", retryable: true })),
    insert: () => Effect.fail(new Store.StoreError({ message: "connection refused", retryable: true })),
    get: () => Effect.fail(new Store.StoreError({ message: "connection refused", retryable: true })),
    query: () => Effect.fail(new Store.StoreError({ message: "connection refused", retryable: true })),
    upsert: () => Effect.fail(new Store.StoreError({ message: "connection refused", retryable: true })),
    update: () => Effect.fail(new Store.StoreError({ message: "connection refused", retryable: true }))
  })

  it.effect("surface as retryable `unavailable` errors", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      const write = yield* failure(awareness.remember({ source: "s", tags: [], description: "d" }))
      assert.strictEqual(write.code, "unavailable")
      assert.isTrue(write.retryable)
      const read = yield* failure(awareness.getBriefing())
      assert.strictEqual(read.code, "unavailable")
    }).pipe(Effect.provide(Awareness.layer.pipe(Layer.provide(failing))))
  )
})

describe("Awareness: audit fixes", () => {
  it.effect("suppress_alert accepts suppress_level as an alias of level", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      yield* awareness.suppressAlert({ source: "nas", suppress_level: "critical", duration_minutes: 60 })
      const store = yield* Store.Store
      const [suppression] = yield* store.query({ types: ["suppression"] })
      assert.strictEqual(suppression?.data.suppress_level, "critical")
      yield* awareness.reportAlert({
        source: "nas",
        tags: [],
        alert_id: "down",
        level: "critical",
        alert_type: "threshold",
        message: "NAS down"
      })
      const briefing = yield* awareness.getBriefing()
      assert.strictEqual(briefing.evaluation.suppressed, 1)
      assert.isFalse(briefing.attention_needed)
      const conflict = yield* failure(
        awareness.suppressAlert({ source: "nas", level: "warning", suppress_level: "critical" })
      )
      assert.strictEqual(conflict.code, "invalid_parameter")
      assert.strictEqual(conflict.param, "suppress_level")
      const bad = yield* failure(tool("suppress_alert", { source: "nas", suppress_level: "loud" }))
      assert.strictEqual(bad.param, "suppress_level")
      assert.deepStrictEqual(bad.valid, ["warning", "critical"])
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("learn_pattern rejects conditions that are not an object with a structured error", () =>
    Effect.gen(function* () {
      yield* setup
      for (const conditions of ["friday", 42, true, ["day_of_week"]]) {
        const error = yield* failure(tool("learn_pattern", { source: "nas", tags: [], description: "d", conditions }))
        assert.strictEqual(error.code, "invalid_parameter")
        assert.strictEqual(error.param, "conditions")
      }
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("set_preference rejects an unknown timezone with a structured error", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      const error = yield* failure(awareness.setPreference({ key: "timezone", value: "Mars/Olympus" }))
      assert.strictEqual(error.code, "invalid_parameter")
      assert.strictEqual(error.param, "value")
      assert.include(error.message, "IANA")
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("an unknown timezone option fails building the layer with a typed config error, not a defect", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        Effect.scoped(
          Layer.build(Awareness.layerWith({ timezone: "Mars/Olympus" }).pipe(Layer.provide(Store.layerMemory)))
        )
      )
      assert.instanceOf(error, AwarenessError.AwarenessConfigError)
      assert.strictEqual(error.option, "timezone")
      assert.include(error.message, "Mars/Olympus")
      const negative = yield* Effect.flip(
        Effect.scoped(
          Layer.build(Awareness.layerWith({ firedRetentionMinutes: -1 }).pipe(Layer.provide(Store.layerMemory)))
        )
      )
      assert.strictEqual(negative.option, "firedRetentionMinutes")
      const negativeAlias = yield* Effect.flip(
        Effect.scoped(
          Layer.build(Awareness.layerWith({ max_cache_age_sec: -5 }).pipe(Layer.provide(Store.layerMemory)))
        )
      )
      assert.strictEqual(negativeAlias.option, "max_cache_age_sec")
      assert.include(negativeAlias.message, "got -5")
      const ok = yield* Effect.exit(
        Effect.scoped(
          Layer.build(Awareness.layerWith({ timezone: "Europe/Berlin" }).pipe(Layer.provide(Store.layerMemory)))
        )
      )
      assert.isTrue(Exit.isSuccess(ok))
    })
  )

  const alertOnce = Effect.gen(function* () {
    const awareness = yield* setup
    yield* awareness.reportAlert({
      source: "nas",
      tags: [],
      alert_id: "cpu",
      level: "warning",
      alert_type: "threshold",
      message: "CPU at 97%"
    })
    return yield* awareness.getBriefing()
  })

  it.effect("the briefing budget is counted with a provided TokenCounter", () =>
    Effect.gen(function* () {
      const calls: Array<string> = []
      const counter = TokenCounter.TokenCounter.of({
        encoding: "approximate",
        safetyFactor: 1,
        count: (text) => {
          calls.push(text)
          return Math.ceil(text.length / 4)
        },
        countJson: (value) => Math.ceil(JSON.stringify(value).length / 4)
      })
      const briefing = yield* alertOnce.pipe(
        Effect.provide(TestLayer),
        Effect.provideService(TokenCounter.TokenCounter, counter)
      )
      assert.isTrue(briefing.attention_needed)
      assert.isAbove(calls.length, 0)
      assert.isTrue(calls.every((text) => text.startsWith("{")))
    })
  )

  it.effect("without a TokenCounter the budget defaults to o200k (Awareness.layer needs only Store)", () =>
    Effect.gen(function* () {
      const briefing = yield* alertOnce.pipe(Effect.provide(TestLayer))
      assert.strictEqual(briefing.sources.nas?.status, "warning")
      // The layer's requirements are exactly Store: checked by tsc, not at run time.
      Awareness.layer satisfies Layer.Layer<Awareness.Awareness, never, Store.Store>
    })
  )
})

describe("AwarenessTools.suggest", () => {
  it("suggests the closest valid value within edit distance 2, case-insensitively", () => {
    assert.strictEqual(AwarenessTools.suggest("critcal", ["warning", "critical"]), "critical")
    assert.strictEqual(AwarenessTools.suggest("WARNIN", ["warning", "critical"]), "warning")
    assert.isUndefined(AwarenessTools.suggest("urgent", ["warning", "critical"]))
    assert.isUndefined(AwarenessTools.suggest("anything", []))
  })
})

// Kept at the end of the file: entry ids come from the seeded Random, and tests placed earlier would change the ids
// (and so the token counts) the tests above see.
describe("Awareness: the briefing cache, its snapshot and delivery", () => {
  const uplink = (awareness: Awareness.AwarenessShape, resolved: boolean) =>
    awareness.reportAlert({
      source: "nas",
      tags: [],
      alert_id: "link",
      level: "warning",
      alert_type: "structural",
      message: "Uplink down",
      resolved
    })

  it.effect(
    "an unchanged briefing is regenerated once it is maxCacheAgeSec old (300 s by default), also for an empty store",
    () =>
      Effect.gen(function* () {
        const awareness = yield* setup
        assert.strictEqual((yield* awareness.getBriefing()).staleness_sec, 0)
        yield* TestClock.adjust("299 seconds")
        assert.strictEqual((yield* awareness.getBriefing()).staleness_sec, 299)
        yield* TestClock.adjust("1 second")
        assert.strictEqual((yield* awareness.getBriefing()).staleness_sec, 0)
      }).pipe(Effect.provide(TestLayer))
  )

  it.effect("peekBriefing is served from the cache like a read", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      yield* awareness.reportStatus({ source: "nas", tags: [], metrics: {}, ttl_sec: 3600 })
      assert.strictEqual((yield* awareness.peekBriefing).staleness_sec, 0)
      yield* TestClock.adjust("10 seconds")
      assert.strictEqual((yield* awareness.peekBriefing).staleness_sec, 10)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("a preference other than the timezone does not set the briefing's time zone, whatever its value", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      yield* slowBackupWithPattern(awareness)
      yield* minutes(1)
      // the newest entry in the store, holding a zone 08:00 there: 12:00 UTC still rules the pattern out
      yield* awareness.setPreference({ key: "home_zone", value: "America/New_York" })
      assert.strictEqual((yield* awareness.getBriefing()).active_alerts, 1)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect(
    "a firing alert is the headline over a resolved flapping one of the same level updated at the same instant",
    () =>
      Effect.gen(function* () {
        const awareness = yield* setup
        const store = yield* Store.Store
        const changes = ["11:45", "11:50", "11:55", "12:00"].map((time) => `2026-03-20T${time}:00Z`)
        const alert = (id: string, alertId: string, message: string, resolved: boolean) =>
          stored({
            id,
            type: "alert",
            source: "nas",
            updated: "2026-03-20T12:00:00Z",
            data: {
              alert_id: alertId,
              level: "warning",
              alert_type: "threshold",
              message,
              resolved,
              state_changes: changes
            }
          })
        yield* store.insert(alert("alert-a", "link", "Uplink flapping", true))
        yield* store.insert(alert("alert-b", "disk", "Disk full", false))
        const briefing = yield* awareness.getBriefing()
        assert.strictEqual(briefing.active_alerts, 2)
        assert.strictEqual(briefing.sources.nas?.headline, "Disk full")
      }).pipe(Effect.provide(TestLayer))
  )

  it.effect("only pattern entries explain alerts: a note carrying pattern conditions does not", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      const store = yield* Store.Store
      yield* awareness.reportAlert({
        source: "nas",
        tags: [],
        alert_id: "d",
        level: "warning",
        alert_type: "threshold",
        message: "Disk 91%"
      })
      yield* store.insert(
        stored({
          id: "note-1",
          type: "note",
          source: "nas",
          data: { description: "disk", conditions: { alert_id: "d" } }
        })
      )
      assert.strictEqual((yield* awareness.getBriefing()).active_alerts, 1)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("an alert that flapped and resolved 44 minutes ago still counts: the default flap window is an hour", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      for (const resolved of [false, true, false, true]) {
        yield* uplink(awareness, resolved)
        yield* minutes(5)
      }
      yield* minutes(39)
      const briefing = yield* awareness.getBriefing()
      assert.deepStrictEqual([briefing.active_alerts, briefing.sources.nas?.flapping], [1, true])
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("a due intention fires while another one is snoozed", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      const later = yield* remindDue(awareness, "Later")
      yield* awareness.updateIntention({ entry_id: later.id, state: "snoozed", deliver_at: "2026-03-21T12:00:00Z" })
      const { id } = yield* remindDue(awareness, "Now")
      yield* deliveredAsNew(awareness, id)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("retained fired intentions are listed most recently fired first, not by their deliver_at", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      const first = yield* remindDue(awareness, "First")
      yield* deliveredAsNew(awareness, first.id)
      yield* minutes(30)
      const second = yield* awareness.remind({
        goal: "Second",
        source: "me",
        tags: [],
        deliver_at: "2026-03-20T10:00:00Z"
      })
      assert.deepStrictEqual(
        (yield* awareness.getBriefing()).fired_intentions?.map((item) => [item.id, item.new]),
        [
          [first.id, undefined],
          [second.id, true]
        ]
      )
      assert.deepStrictEqual(
        (yield* awareness.getBriefing()).fired_intentions?.map((item) => item.id),
        [second.id, first.id]
      )
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("a fired intention with an empty acted_on list is not acknowledged: it stays shown", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      const store = yield* Store.Store
      yield* store.insert({
        id: "fired-unacted",
        type: "intention",
        source: "me",
        tags: [],
        created: "2026-03-20T10:00:00Z",
        updated: "2026-03-20T11:00:00Z",
        expires: null,
        deleted: null,
        data: { goal: "Unacted", state: "fired", deliver_at: "2026-03-20T10:30:00Z", acted_on: [] }
      })
      assert.deepStrictEqual(
        (yield* awareness.getBriefing()).fired_intentions?.map((item) => [item.id, item.new]),
        [["fired-unacted", undefined]]
      )
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("delivering an intention records its previous state in the changelog", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      const store = yield* Store.Store
      const { id } = yield* remindDue(awareness, "Log")
      yield* minutes(1)
      yield* deliveredAsNew(awareness, id)
      assert.deepStrictEqual(Option.getOrThrow(yield* store.get(id)).data.changelog, [
        { updated: "2026-03-20T12:01:00Z", changed: { state: "pending" } }
      ])
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect(
    "a peek that finds an intention due does not evict the cached briefing (seen when the clock steps back)",
    () =>
      Effect.gen(function* () {
        const awareness = yield* setup
        yield* awareness.remind({ goal: "Later", source: "me", tags: [], deliver_at: "2026-03-20T14:00:00Z" })
        assert.strictEqual((yield* awareness.peekBriefing).staleness_sec, 0)
        yield* TestClock.setTime(Date.parse("2026-03-20T14:00:00Z"))
        assert.lengthOf((yield* awareness.peekBriefing).fired_intentions ?? [], 1)
        yield* TestClock.setTime(START + 60_000)
        const again = yield* awareness.peekBriefing
        assert.strictEqual(again.staleness_sec, 60)
        assert.isUndefined(again.fired_intentions)
      }).pipe(Effect.provide(TestLayer))
  )

  it.effect("peekBriefingWithin a budget too small for any reminder leaves fired_intentions out", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      yield* remindDue(awareness, "Rotate keys")
      const fitted = yield* awareness.peekBriefingWithin(40)
      assert.isUndefined(fitted.fired_intentions)
      assert.strictEqual(fitted.omitted?.intentions, 1)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("a briefing fitted to n tokens stays within n once its due reminders are marked new, for every n", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      for (let i = 0; i < 8; i++) {
        const source = `host-${i}`
        yield* awareness.reportStatus({ source, tags: ["infra"], metrics: { cpu_pct: 50 }, ttl_sec: 3600 })
        yield* awareness.reportAlert({
          source,
          tags: ["infra"],
          alert_id: "disk",
          level: "warning",
          message: `Disk usage on ${source} is at ${80 + i}% and rising`
        })
      }
      for (const goal of ["Rotate keys", "Renew the certificate", "Call the vendor"]) {
        yield* remindDue(awareness, goal)
      }
      const over: Array<string> = []
      for (let n = 170; n <= 330; n++) {
        const fitted = yield* awareness.peekBriefingWithin(n)
        const tokens = TokenCounter.countO200k(TokenCounter.toCompactJson(fitted))
        if (tokens > n) over.push(`${n}: ${tokens}`)
        if (n === 330)
          assert.isTrue(
            fitted.fired_intentions?.every((item) => item.new === true),
            "marked new"
          )
      }
      assert.deepStrictEqual(over, [], "budgets the fitted briefing went over (budget: tokens)")
    }).pipe(Effect.provide(TestLayer))
  )

  for (const attention of [false, true]) {
    it.effect(
      `peekBriefingWithin(n) keeps a briefing of exactly n tokens whole and fits it within n - 1 (${attention ? "issues" : "all clear with info lines"})`,
      () =>
        Effect.gen(function* () {
          const awareness = yield* setup
          for (let i = 0; i < 6; i++) {
            const source = `host-${i}`
            // An all-clear briefing with status headlines (info lines) has something the fitter can drop.
            yield* awareness.reportStatus({
              source,
              tags: ["infra"],
              metrics: { cpu_pct: 50 },
              ttl_sec: 3600,
              ...(attention ? {} : { headline: `Nightly backup of ${source} finished` })
            })
            if (attention) {
              yield* awareness.reportAlert({
                source,
                tags: ["infra"],
                alert_id: "disk",
                level: "warning",
                message: `Disk usage on ${source} is high`
              })
            }
          }
          const full = yield* awareness.peekBriefing
          assert.strictEqual(full.attention_needed, attention)
          const tokens = TokenCounter.countO200k(TokenCounter.toCompactJson(full))
          assert.deepStrictEqual(yield* awareness.peekBriefingWithin(tokens), full)
          const trimmed = yield* awareness.peekBriefingWithin(tokens - 1)
          assert.isAtMost(TokenCounter.countO200k(TokenCounter.toCompactJson(trimmed)), tokens - 1)
          assert.strictEqual(trimmed.attention_needed, attention)
        }).pipe(Effect.provide(TestLayer))
    )
  }

  it.effect("pending_intentions counts pending intentions only, not the other entries in the store", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      yield* awareness.reportStatus({ source: "nas", tags: [], metrics: {}, ttl_sec: 3600 })
      yield* awareness.reportAlert({ source: "nas", tags: [], alert_id: "d", level: "warning", message: "Disk 91%" })
      yield* awareness.remind({ goal: "Later", source: "me", tags: [], deliver_at: "2026-03-27T12:00:00Z" })
      assert.strictEqual((yield* awareness.getBriefing()).pending_intentions, 1)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("equally urgent intentions due at the same instant fire pending ones first, then snoozed ones", () =>
    Effect.gen(function* () {
      const awareness = yield* setup
      const store = yield* Store.Store
      const due = "2026-03-20T11:00:00Z"
      yield* store.insert(
        stored({
          id: "intention-s",
          type: "intention",
          source: "me",
          created: "2026-03-20T09:00:00Z",
          updated: "2026-03-20T10:30:00Z",
          data: { goal: "Snoozed", state: "snoozed", urgency: "normal", deliver_at: due }
        })
      )
      yield* store.insert(
        stored({
          id: "intention-p",
          type: "intention",
          source: "me",
          data: { goal: "Pending", state: "pending", urgency: "normal", deliver_at: due }
        })
      )
      assert.deepStrictEqual(
        (yield* awareness.getBriefing()).fired_intentions?.map((item) => item.id),
        ["intention-p", "intention-s"]
      )
    }).pipe(Effect.provide(TestLayer))
  )
})
