import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as IdleCollection from "../src/IdleCollection.ts"
import * as Settings from "../src/Settings.ts"

describe("IdleCollection.make", () => {
  it("collects once, idleMs after the last request, and again only after another request", () => {
    let collected = 0
    const collection = IdleCollection.make(5000, () => collected++)
    collection.touch(0)
    collection.touch(1000)
    assert.isFalse(collection.check(5999))
    assert.isTrue(collection.check(6000))
    assert.isFalse(collection.check(60_000))
    collection.touch(61_000)
    assert.isFalse(collection.check(65_999))
    assert.isTrue(collection.check(66_000))
    assert.deepStrictEqual([collected, collection.collections()], [2, 2])
  })

  it("never collects in a process that served no request", () => {
    let collected = 0
    const collection = IdleCollection.make(5000, () => collected++)
    assert.isFalse(collection.check(1e12))
    assert.strictEqual(collected, 0)
  })
})

describe("IdleCollection.watch", () => {
  it("collects after start-up and after each burst of requests to a real HTTP server, once it goes quiet", async () => {
    const signals: Array<() => void> = []
    const next = () => new Promise<void>((resolve) => signals.push(resolve))
    let started = next()
    const server = createServer((_, response) => response.end("ok"))
    const collection = IdleCollection.watch(server, 20, () => signals.shift()?.())
    assert.isDefined(collection)
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    try {
      await started
      assert.strictEqual(collection?.collections(), 1)
      started = next()
      const { port } = server.address() as AddressInfo
      assert.strictEqual(await (await fetch(`http://127.0.0.1:${port}/`)).text(), "ok")
      await started
      assert.strictEqual(collection?.collections(), 2)
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it("watches nothing when idleMs is 0", () => {
    assert.isUndefined(IdleCollection.watch(createServer(), 0, () => undefined))
  })
})

describe("IdleCollection.collector", () => {
  it("is V8's collection: garbage dropped before it is gone after it", () => {
    const collect = IdleCollection.collector()
    assert.isDefined(collect)
    collect?.()
    const before = process.memoryUsage().heapUsed
    let garbage: Array<Array<number>> | undefined = Array.from({ length: 2000 }, (_, i) => Array(1000).fill(i))
    assert.strictEqual(garbage.length, 2000)
    garbage = undefined
    const held = process.memoryUsage().heapUsed
    collect?.()
    const after = process.memoryUsage().heapUsed
    // About 16 MB of arrays were allocated and dropped; the collection takes them back.
    assert.isAbove(held - before, 8 * 1048576)
    assert.isBelow(after - before, 4 * 1048576)
  })
})

describe("Settings: HEED_IDLE_GC_SEC", () => {
  it.effect("defaults to 5 s, and 0 turns the collection off", () =>
    Effect.gen(function* () {
      const load = (env: Record<string, string>) =>
        Settings.load().pipe(
          Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnv({ env: { HOME: "/h", ...env } }))
        )
      assert.strictEqual((yield* load({})).idleGcMs, 5000)
      assert.strictEqual((yield* load({ HEED_IDLE_GC_SEC: "0" })).idleGcMs, 0)
      assert.strictEqual((yield* load({ HEED_IDLE_GC_SEC: "30" })).idleGcMs, 30_000)
    })
  )
})
