import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { Awareness, type Entry, Store } from "../src/index.ts"

const START = Date.parse("2026-03-20T12:00:00Z")
const DUE = "2026-03-20T11:00:00Z"

const instance = Effect.gen(function* () {
  return yield* Awareness.Awareness
})

/** What the store holds for an intention: its state. */
const stateOf = (id: string) =>
  Effect.flatMap(Store.Store, (store) =>
    Effect.map(store.get(id), (found) => (found._tag === "Some" ? found.value.data.state : "missing"))
  )

/**
 * The memory store in context, seen through a store that runs `between` once (after `arm()`) right before the first
 * `update`: another replica's write landing between a briefing's reads and its claim of a due intention.
 */
const beforeClaim = <E>(between: Effect.Effect<unknown, E>) =>
  Effect.map(Store.Store, (memory) => {
    let armed = false
    let fired = false
    const racing: Store.Store["Service"] = {
      ...memory,
      update: (id, f) =>
        Effect.suspend(() => {
          if (!armed) return memory.update(id, f)
          armed = false
          fired = true
          return Effect.andThen(Effect.orDie(between), memory.update(id, f))
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

describe("Awareness: delivering intentions", () => {
  it.effect("a read that loses the claim to another replica shows the intention without marking it new", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(START)
      const other = yield* Effect.provide(instance, Awareness.layer)
      const racing = yield* beforeClaim(other.getBriefing())
      const one = yield* Effect.provide(instance, Awareness.layer.pipe(Layer.provide(racing.layer)))
      const { id } = yield* one.remind({ goal: "Call", source: "me", tags: [], deliver_at: DUE })
      racing.arm()
      const read = yield* one.getBriefing()
      assert.isTrue(racing.fired())
      // the other replica claimed it first (and marked it new there): here it is shown, once, as already delivered
      assert.deepStrictEqual(
        read.fired_intentions?.map((item) => [item.id, item.new]),
        [[id, undefined]]
      )
      assert.strictEqual(yield* stateOf(id), "fired")
      // and no later read of either replica marks it new again
      for (const replica of [one, other]) {
        assert.deepStrictEqual(
          (yield* replica.getBriefing()).fired_intentions?.map((item) => [item.id, item.new]),
          [[id, undefined]]
        )
      }
    }).pipe(Effect.provide(Store.layerMemory))
  )

  it.effect(
    "a read does not fire again an intention it shows as retained, when another replica snoozed it meanwhile",
    () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(START)
        const other = yield* Effect.provide(instance, Awareness.layer)
        let earlier = ""
        const racing = yield* beforeClaim(
          Effect.suspend(() =>
            other.updateIntention({ entry_id: earlier, state: "snoozed", deliver_at: "2026-03-21T12:00:00Z" })
          )
        )
        const one = yield* Effect.provide(instance, Awareness.layer.pipe(Layer.provide(racing.layer)))
        earlier = (yield* one.remind({ goal: "Earlier", source: "me", tags: [], deliver_at: DUE })).id
        assert.lengthOf((yield* one.getBriefing()).fired_intentions ?? [], 1)
        yield* TestClock.adjust("1 minute")
        const { id } = yield* one.remind({ goal: "Now due", source: "me", tags: [], deliver_at: DUE })
        racing.arm()
        yield* one.getBriefing()
        assert.isTrue(racing.fired())
        assert.strictEqual(yield* stateOf(id), "fired")
        assert.strictEqual(yield* stateOf(earlier), "snoozed")
      }).pipe(Effect.provide(Store.layerMemory))
  )

  it.effect("a read that loses the claim because another replica completed the intention shows only the others", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(START)
      const other = yield* Effect.provide(instance, Awareness.layer)
      let id = ""
      const racing = yield* beforeClaim(
        Effect.suspend(() => other.updateIntention({ entry_id: id, state: "completed" }))
      )
      const one = yield* Effect.provide(instance, Awareness.layer.pipe(Layer.provide(racing.layer)))
      id = (yield* one.remind({ goal: "Done elsewhere", source: "me", tags: [], deliver_at: DUE })).id
      const kept = yield* one.remind({ goal: "Still due", source: "me", tags: [], deliver_at: DUE })
      racing.arm()
      const read = yield* one.getBriefing()
      assert.isTrue(racing.fired())
      // the other due intention is still delivered, and only it
      assert.deepStrictEqual(
        read.fired_intentions?.map((item) => [item.id, item.new]),
        [[kept.id, true]]
      )
      assert.strictEqual(read.evaluation.intentions_fired, 1)
      assert.strictEqual(yield* stateOf(id), "completed")
    }).pipe(Effect.provide(Store.layerMemory))
  )

  it.effect("a read whose due intention vanished from the store before the claim does not show it", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(START)
      const memory = yield* Store.Store
      // an upsert that stores the intention under another id removes the row this read saw
      const racing = yield* beforeClaim(
        memory.upsert({ type: "intention", source: "me" }, (existing) => ({
          ...(existing as Entry.Entry),
          id: "replacement",
          data: { ...existing?.data, state: "completed" }
        }))
      )
      const one = yield* Effect.provide(instance, Awareness.layer.pipe(Layer.provide(racing.layer)))
      const { id } = yield* one.remind({ goal: "Vanishing", source: "me", tags: [], deliver_at: DUE })
      racing.arm()
      const read = yield* one.getBriefing()
      assert.isTrue(racing.fired())
      assert.isUndefined(read.fired_intentions)
      assert.strictEqual(yield* stateOf(id), "missing")
    }).pipe(Effect.provide(Store.layerMemory))
  )

  it.effect("a due intention whose state was dropped before the claim counts as pending: it is delivered", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(START)
      const memory = yield* Store.Store
      let id = ""
      const racing = yield* beforeClaim(
        Effect.suspend(() =>
          memory.update(id, (current) => ({
            ...current,
            data: { goal: current.data.goal, deliver_at: current.data.deliver_at }
          }))
        )
      )
      const one = yield* Effect.provide(instance, Awareness.layer.pipe(Layer.provide(racing.layer)))
      id = (yield* one.remind({ goal: "Stateless", source: "me", tags: [], deliver_at: DUE })).id
      racing.arm()
      const read = yield* one.getBriefing()
      assert.isTrue(racing.fired())
      assert.deepStrictEqual(
        read.fired_intentions?.map((item) => [item.id, item.new]),
        [[id, true]]
      )
      assert.strictEqual(yield* stateOf(id), "fired")
    }).pipe(Effect.provide(Store.layerMemory))
  )

  it.effect("a briefing that delivers is never served from the cache: the store holds the intention fired", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(START)
      const awareness = yield* instance
      const { id } = yield* awareness.remind({ goal: "Water plants", source: "me", tags: [], deliver_at: DUE })
      // a peek shows what a read would deliver, without delivering it
      const peeked = yield* awareness.peekBriefing
      assert.deepStrictEqual(
        peeked.fired_intentions?.map((item) => item.id),
        [id]
      )
      assert.strictEqual(yield* stateOf(id), "pending")
      const first = yield* awareness.getBriefing()
      assert.deepStrictEqual(
        first.fired_intentions?.map((item) => [item.id, item.new]),
        [[id, true]]
      )
      assert.strictEqual(yield* stateOf(id), "fired")
      const second = yield* awareness.getBriefing()
      assert.deepStrictEqual(
        second.fired_intentions?.map((item) => [item.id, item.new]),
        [[id, undefined]]
      )
      assert.strictEqual(second.staleness_sec, 0)
      // the briefing after the delivery is cached like any other
      yield* TestClock.adjust("30 seconds")
      const third = yield* awareness.getBriefing()
      assert.deepStrictEqual(third.fired_intentions, second.fired_intentions)
      assert.strictEqual(third.staleness_sec, 30)
    }).pipe(Effect.provide(Awareness.layer.pipe(Layer.provideMerge(Store.layerMemory))))
  )
  it.effect("an intention another replica fired after this read's instant is shown as fired, not upcoming", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(START)
      const awareness = yield* instance
      const store = yield* Store.Store
      const { id } = yield* awareness.remind({ goal: "Call", source: "me", tags: [], deliver_at: DUE })
      // the other replica read later (its clock 5 s ahead of this read's) and claimed it
      const later = new Date(START + 5000).toISOString()
      yield* store.update(id, (entry) => ({ ...entry, updated: later, data: { ...entry.data, state: "fired" } }))
      const read = yield* awareness.getBriefing()
      assert.deepStrictEqual(
        read.fired_intentions?.map((item) => [item.id, item.new]),
        [[id, undefined]]
      )
      assert.deepStrictEqual(read.upcoming ?? [], [])
    }).pipe(Effect.provide(Awareness.layer.pipe(Layer.provideMerge(Store.layerMemory))))
  )
})
