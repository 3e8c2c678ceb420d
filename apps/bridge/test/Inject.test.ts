import { spawn } from "node:child_process"
import * as fs from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { TokenCounter } from "@heed/schema"
import { Effect } from "effect"
import * as Bridge from "../src/Bridge.ts"
import * as InjectSocket from "../src/InjectSocket.ts"
import { appDir, eventually, startProvider, tempDir, unixFixture } from "./support.ts"

const stdioDescriptor = (id: string) =>
  JSON.stringify({
    id,
    name: `Stdio ${id}`,
    slop_version: "0.1",
    transport: { type: "stdio", command: [process.execPath, unixFixture, "--stdio", "--id", id] },
    capabilities: ["state"]
  })

/** Runs `heed-bridge inject` as a process with `input` on stdin; resolves its stdout and exit code. */
const runInject = (args: ReadonlyArray<string>, input: string) =>
  Effect.callback<{ stdout: string; code: number | null }>((resume) => {
    const child = spawn(process.execPath, ["--conditions=@heed/source", "src/main.ts", "inject", ...args], {
      cwd: appDir,
      stdio: ["pipe", "pipe", "inherit"]
    })
    let stdout = ""
    child.stdout.setEncoding("utf8")
    child.stdout.on("data", (chunk: string) => {
      stdout += chunk
    })
    child.on("close", (code) => resume(Effect.succeed({ stdout, code })))
    child.stdin.end(input)
  })

const reportOf = (plan: { readonly apps: ReadonlyArray<{ readonly id: string }> }, id: string) =>
  plan.apps.find((app) => app.id === id) as (typeof plan.apps)[number] & { share: number; stub: boolean }

describe("inject: turns, references and decay through a bridge connected to real providers", () => {
  it.live(
    "a referenced app gets the larger share; unreferenced for 3 turns it becomes a stub; a reference expands it",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir("heed-bridge-inject-")
        const providers = join(dir, "providers")
        fs.mkdirSync(providers)
        const spec = (id: string, name: string, items: string) => [
          "--socket",
          join(dir, `${id}.sock`),
          "--descriptor-dir",
          providers,
          "--id",
          id,
          "--name",
          name,
          "--items",
          items
        ]
        yield* startProvider(unixFixture, spec("groceries", "Groceries", "300"))
        yield* startProvider(unixFixture, spec("chores", "Chores", "300"))
        const bridge = yield* Bridge.make({ folders: [providers], budget: 1500 })
        yield* eventually(
          bridge.list,
          (apps) => apps.filter((app) => app.status === "connected" && app.nodes > 300).length === 2
        )

        const first = yield* bridge.inject("what do I need from the groceries list?")
        const groceries = reportOf(first, "groceries")
        const chores = reportOf(first, "chores")
        assert.isAbove(groceries.share, chores.share)
        assert.isAtMost(first.tokens, 1500)
        assert.include(first.text, "Disk almost full")
        assert.include(first.text, "Shares = band weight")

        // chores was last referenced when it connected (turn 0): collapsed from turn 3 on
        yield* bridge.inject("and the groceries for tomorrow?")
        const third = yield* bridge.inject("groceries again")
        assert.isTrue(reportOf(third, "chores").stub)
        assert.isFalse(reportOf(third, "groceries").stub)
        assert.match(
          third.text,
          /### Chores \[chores\] collapsed \(not mentioned for 3 turns\): 304 nodes, 0 changes since last look/
        )
        // critical nodes are never hidden by decay
        const stub = Bridge.sectionOf(third, "chores")!
        assert.include(stub, "Disk almost full")
        assert.isAtMost(TokenCounter.countO200k(stub.split("\n")[0]!), 60)

        // a reference expands it again, with what changed while it was collapsed
        yield* bridge.invoke("chores", "/todos", "add", { title: "Fix the gate" })
        const expanded = yield* eventually(bridge.inject("what chores are left?"), (plan) =>
          (Bridge.sectionOf(plan, "chores") ?? "").includes("Since last look")
        )
        assert.isFalse(reportOf(expanded, "chores").stub)
        assert.include(Bridge.sectionOf(expanded, "chores"), "Fix the gate")
        assert.isAbove(reportOf(expanded, "chores").share, reportOf(expanded, "groceries").share)
      }).pipe(Effect.scoped)
  )

  it.live("heed-bridge inject prints the running bridge's answer for the hook's prompt, and nothing without one", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("heed-bridge-cli-")
      const socket = join(dir, "bridge.sock")
      const none = yield* runInject(["--socket", socket], JSON.stringify({ prompt: "hi", session_id: "s" }))
      assert.deepStrictEqual(none, { stdout: "", code: 0 })
      const seen: Array<string> = []
      const served = yield* InjectSocket.serve(socket, (prompt) =>
        Effect.sync(() => {
          seen.push(prompt)
          return `## SLOP apps\nanswer to ${prompt}`
        })
      )
      assert.isTrue(served)
      const hook = JSON.stringify({ session_id: "abc", hook_event_name: "UserPromptSubmit", prompt: "status of CI?" })
      const out = yield* runInject(["--socket", socket], hook)
      assert.deepStrictEqual(out, { stdout: "## SLOP apps\nanswer to status of CI?\n", code: 0 })
      assert.deepStrictEqual(seen, ["status of CI?"])
      // a second bridge does not take the socket over
      const second = yield* InjectSocket.serve(socket, () => Effect.succeed("other"))
      assert.isFalse(second)
    }).pipe(Effect.scoped)
  )

  it.live("a stdio descriptor runs its command only from a file the user owns that others cannot write", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("heed-bridge-stdio-")
      fs.writeFileSync(join(dir, "mine.json"), stdioDescriptor("mine"), { mode: 0o644 })
      fs.writeFileSync(join(dir, "shared.json"), stdioDescriptor("shared"))
      fs.chmodSync(join(dir, "shared.json"), 0o666)
      const bridge = yield* Bridge.make({ folders: [dir] })
      const apps = yield* eventually(bridge.list, (list) =>
        list.some((app) => app.id === "mine" && app.status === "connected")
      )
      const shared = apps.find((app) => app.id === "shared")!
      assert.strictEqual(shared.status, "failed")
      assert.include(shared.problem, "only run from a file you own")
      assert.include(yield* bridge.state("mine", { path: "/alerts" }), "Disk almost full")
    }).pipe(Effect.scoped)
  )

  it.live("--connect lazy lists providers without connecting until connect is asked for", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("heed-bridge-lazy-")
      fs.writeFileSync(join(dir, "later.json"), stdioDescriptor("later"), { mode: 0o644 })
      const bridge = yield* Bridge.make({ folders: [dir], connect: "lazy" })
      const before = yield* eventually(bridge.list, (list) => list.length === 1)
      assert.strictEqual(before[0]!.status, "available")
      assert.strictEqual((yield* bridge.inject("anything")).text, "")
      const notYet = yield* Effect.flip(bridge.state("later", {}))
      assert.include(notYet.message, "call connect_app first")
      const info = yield* bridge.connect("later")
      assert.strictEqual(info.status, "connected")
      assert.include(yield* bridge.state("later", { path: "/alerts" }), "Disk almost full")
      assert.deepStrictEqual(yield* bridge.connected, ["later"])
    }).pipe(Effect.scoped)
  )
})
