import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Queue } from "effect"
import { ProviderWatch } from "../src/index.ts"
import { tempDir } from "./support.ts"

const descriptor = (id: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    id,
    name: `App ${id}`,
    slop_version: "0.1",
    transport: { type: "unix", path: `/tmp/${id}.sock` },
    capabilities: ["state"],
    ...extra
  })

/** The pid of a process that has exited. */
const deadPid = () => spawnSync(process.execPath, ["-e", ""]).pid

describe("ProviderWatch", () => {
  it("directories: HEED_SLOP_PROVIDER_DIRS replaces both defaults; empty entries are ignored", () => {
    assert.deepStrictEqual(ProviderWatch.directories({ HEED_SLOP_PROVIDER_DIRS: "/a::/b" }), ["/a", "/b"])
    const defaults = ProviderWatch.directories({})
    assert.strictEqual(defaults.length, 2)
    assert.match(defaults[0]!, /\.slop\/providers$/)
    assert.strictEqual(defaults[1], "/tmp/slop/providers")
  })

  it.effect("scan: first folder wins an id; invalid files and dead pids are set apart", () =>
    Effect.gen(function* () {
      const a = yield* tempDir("slop-watch-a-")
      const b = yield* tempDir("slop-watch-b-")
      fs.writeFileSync(join(a, "one.json"), descriptor("one"))
      fs.writeFileSync(join(b, "one.json"), descriptor("one", { name: "shadowed" }))
      fs.writeFileSync(join(b, "two.json"), descriptor("two", { pid: process.pid }))
      fs.writeFileSync(join(b, "gone.json"), descriptor("gone", { pid: deadPid() }))
      fs.writeFileSync(join(b, "junk.json"), "{ not json")
      fs.writeFileSync(join(b, "notes.txt"), "ignored")
      const scan = ProviderWatch.scan([a, b, join(a, "missing")])
      assert.deepStrictEqual([...scan.providers.keys()].sort(), ["one", "two"])
      assert.strictEqual(scan.providers.get("one")!.descriptor.name, "App one")
      assert.isTrue(scan.dead.has("gone"))
      assert.deepStrictEqual([...scan.invalid.keys()], [join(b, "junk.json")])
    }).pipe(Effect.scoped)
  )

  it.live("watch: reports added, updated and removed (file deleted, then pid dead) as files change", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("slop-watch-")
      fs.writeFileSync(join(dir, "early.json"), descriptor("early"))
      const changes = yield* Queue.unbounded<ProviderWatch.Change>()
      let alive = true
      yield* ProviderWatch.watch({
        folders: [dir],
        alive: (pid) => pid !== 4242 || alive,
        onChange: (change) => Queue.offer(changes, change)
      })
      const first = yield* Queue.take(changes)
      assert.strictEqual(first._tag, "added")
      fs.writeFileSync(join(dir, "late.json"), descriptor("late", { pid: 4242 }))
      const added = yield* Queue.take(changes)
      assert.deepStrictEqual([added._tag, added._tag === "added" ? added.entry.descriptor.id : ""], ["added", "late"])
      fs.writeFileSync(join(dir, "late.json"), descriptor("late", { pid: 4242, name: "Renamed" }))
      const updated = yield* Queue.take(changes)
      assert.strictEqual(updated._tag, "updated")
      fs.rmSync(join(dir, "early.json"))
      const removed = yield* Queue.take(changes)
      assert.deepStrictEqual(removed, {
        _tag: "removed",
        id: "early",
        reason: `its descriptor ${join(dir, "early.json")} was removed`
      })
      alive = false
      // no file event for a process that dies: the periodic rescan (or any event) finds it
      fs.writeFileSync(join(dir, "other.txt"), "poke")
      const dead = yield* Queue.take(changes)
      assert.deepStrictEqual(dead, { _tag: "removed", id: "late", reason: "its process 4242 is not running" })
    }).pipe(Effect.scoped)
  )

  it.live("watch: the periodic rescan finds a folder created after the start", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("slop-watch-")
      const later = join(dir, "later")
      const changes = yield* Queue.unbounded<ProviderWatch.Change>()
      yield* ProviderWatch.watch({
        folders: [later],
        rescanInterval: 50,
        onChange: (change) => Queue.offer(changes, change)
      })
      fs.mkdirSync(later)
      fs.writeFileSync(join(later, "x.json"), descriptor("x"))
      const added = yield* Queue.take(changes)
      assert.strictEqual(added._tag === "added" ? added.entry.descriptor.id : "", "x")
    }).pipe(Effect.scoped)
  )
})
