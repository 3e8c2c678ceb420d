import * as fs from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { TokenCounter } from "@heed/schema"
import { Effect } from "effect"
import * as InjectSocket from "../src/InjectSocket.ts"
import { call, eventually, startBridge, startProvider, stop, tempDir, unixFixture, wsFixture } from "./support.ts"

const connected = (text: string, id: string) => new RegExp(`^${id}: .*\\(connected,`, "m").test(text)

describe("heed-bridge over stdio with the official MCP SDK client, real providers discovered from a folder", () => {
  it.live(
    "lists, connects, acts and reads state on a Unix-socket provider and heed's SlopServer; errors are tool errors; " +
      "a killed provider reconnects; a removed descriptor disconnects",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir("heed-bridge-")
        const providers = join(dir, "providers")
        fs.mkdirSync(providers)
        const todoArgs = ["--socket", join(dir, "todo.sock"), "--descriptor-dir", providers, "--items", "2"]
        const todo = yield* startProvider(unixFixture, todoArgs)
        const board = yield* startProvider(wsFixture, ["--descriptor-dir", providers])
        const { client, socket } = yield* startBridge(dir)

        const names = (yield* Effect.promise(() => client.listTools())).tools.map((tool) => tool.name).sort()
        assert.deepStrictEqual(names, [
          "app_action",
          "app_action_batch",
          "connect_app",
          "disconnect_app",
          "get_state",
          "list_apps"
        ])
        const listed = yield* eventually(
          call(client, "list_apps"),
          (r) => connected(r.text, "todo") && connected(r.text, "board")
        )
        assert.include(listed.text, "todo: Todo list")
        assert.include(listed.text, "board: Kanban board")

        // connect_app returns the state at its budget and the actions
        const todoState = yield* call(client, "connect_app", { app: "todo" })
        assert.isFalse(todoState.isError)
        assert.include(todoState.text, "Disk almost full")
        assert.include(todoState.text, "/todos add(title)")
        assert.include(todoState.text, "/todos/t1 delete() [DANGEROUS]")

        // app_action changes the provider's state and the next get_state shows it
        const added = yield* call(client, "app_action", {
          app: "todo",
          path: "/todos",
          action: "add",
          params: { title: "Ship the bridge" }
        })
        assert.deepStrictEqual(added, { text: "ok", isError: false })
        const after = yield* eventually(call(client, "get_state", { app: "todo" }), (r) =>
          r.text.includes("Ship the bridge")
        )
        assert.include(after.text, "Task 1")
        const sub = yield* call(client, "get_state", { app: "todo", path: "/alerts", depth: 1 })
        assert.include(sub.text, "[notification] disk")
        assert.notInclude(sub.text, "Task 1")

        // the same through heed's own SlopServer over WebSocket
        const closed = yield* call(client, "app_action", { app: "board", path: "/cards/c1", action: "close" })
        assert.isFalse(closed.isError, closed.text)
        yield* eventually(call(client, "get_state", { app: "board" }), (r) => !r.text.includes("Write the README"))
        const batch = yield* call(client, "app_action_batch", {
          actions: [
            { app: "board", path: "/cards/c2", action: "close" },
            { app: "todo", path: "/todos/t2", action: "toggle" }
          ]
        })
        assert.match(batch.text, /^1\. ok/m)
        assert.match(batch.text, /^2\. ok/m)

        // bad input is a clear tool error
        const badPath = yield* call(client, "app_action", { app: "todo", path: "/nope", action: "toggle" })
        assert.isTrue(badPath.isError)
        assert.include(badPath.text, 'no node at path "/nope"')
        assert.include(badPath.text, "/todos")
        const badAction = yield* call(client, "app_action", { app: "todo", path: "/todos", action: "explode" })
        assert.isTrue(badAction.isError)
        assert.include(badAction.text, 'has no action "explode" (its actions: add)')
        const badApp = yield* call(client, "get_state", { app: "nosuch" })
        assert.isTrue(badApp.isError)
        assert.include(badApp.text, 'no app "nosuch"')
        const badField = yield* call(client, "get_state", { app: "todo", depth: "deep" })
        assert.isTrue(badField.isError)
        assert.include(badField.text, "depth")
        const badStatePath = yield* call(client, "get_state", { app: "todo", path: "/missing" })
        assert.isTrue(badStatePath.isError)
        assert.include(badStatePath.text, "/missing")

        // inject through the local socket: within the default budget, urgent nodes present
        const injected = yield* Effect.promise(() =>
          InjectSocket.ask(socket, InjectSocket.promptOf(JSON.stringify({ prompt: "what is on the todo list?" })))
        )
        assert.include(injected, "## SLOP apps")
        assert.include(injected, "Disk almost full")
        assert.include(injected, "Build broken on main")
        assert.isAtMost(TokenCounter.countO200k(injected), 1500)

        // a provider killed and started again is reconnected (fresh state: four items)
        yield* stop(todo, "SIGKILL")
        yield* startProvider(unixFixture, [...todoArgs.slice(0, 4), "--items", "4"])
        const restarted = yield* eventually(call(client, "get_state", { app: "todo" }), (r) =>
          r.text.includes("Task 4")
        )
        assert.notInclude(restarted.text, "Ship the bridge")

        // a removed descriptor disconnects: the board stops and removes its file
        yield* stop(board)
        const gone = yield* eventually(call(client, "list_apps"), (r) => !r.text.includes("board:"))
        assert.include(gone.text, "todo:")
        const goneState = yield* call(client, "get_state", { app: "board" })
        assert.isTrue(goneState.isError)
      }).pipe(Effect.scoped),
    120_000
  )

  it.live("--tools dynamic registers one tool per affordance with SLOP's names, validated by their schema", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("heed-bridge-dyn-")
      const providers = join(dir, "providers")
      fs.mkdirSync(providers)
      yield* startProvider(unixFixture, ["--socket", join(dir, "todo.sock"), "--descriptor-dir", providers])
      const { client } = yield* startBridge(dir, ["--tools", "dynamic"])
      const tools = yield* eventually(
        Effect.promise(() => client.listTools()),
        (list) => list.tools.some((tool) => tool.name.startsWith("todo__"))
      )
      const names = tools.tools.map((tool) => tool.name)
      assert.include(names, "todo__todos__add")
      assert.include(names, "todo__toggle")
      const toggle = tools.tools.find((tool) => tool.name === "todo__toggle")!
      assert.deepStrictEqual((toggle.inputSchema.required ?? []).includes("target"), true)
      const missing = yield* call(client, "todo__todos__add", {})
      assert.isTrue(missing.isError)
      assert.include(missing.text, "title: is required")
      const added = yield* call(client, "todo__todos__add", { title: "Dynamic" })
      assert.deepStrictEqual(added, { text: "ok", isError: false })
      const toggled = yield* call(client, "todo__toggle", { target: "/todos/t1" })
      assert.deepStrictEqual(toggled, { text: "ok", isError: false })
      const badTarget = yield* call(client, "todo__toggle", { target: "/todos/zzz" })
      assert.isTrue(badTarget.isError)
      assert.include(badTarget.text, "target")
      yield* eventually(call(client, "get_state", { app: "todo" }), (r) => r.text.includes("Dynamic"))
    }).pipe(Effect.scoped)
  )

  it.live("resources: slop://apps is the budgeted view; resources/updated comes for a salient change only", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("heed-bridge-res-")
      const providers = join(dir, "providers")
      fs.mkdirSync(providers)
      yield* startProvider(wsFixture, ["--descriptor-dir", providers])
      const { client, updates } = yield* startBridge(dir)
      yield* eventually(call(client, "list_apps"), (r) => connected(r.text, "board"))
      yield* Effect.promise(() => client.subscribeResource({ uri: "slop://apps" }))
      yield* Effect.promise(() => client.subscribeResource({ uri: "slop://apps/board" }))
      const read = (uri: string) =>
        Effect.promise(async () => {
          const result = await client.readResource({ uri })
          return result.contents.map((content) => ("text" in content ? content.text : "")).join("")
        })
      const all = yield* read("slop://apps")
      assert.include(all, "## SLOP apps (heed-bridge)")
      assert.include(all, "Build broken on main")
      // an ordinary change: no notification
      yield* call(client, "app_action", { app: "board", path: "/cards/c1", action: "close" })
      yield* eventually(read("slop://apps/board"), (text) => !text.includes("Write the README"))
      // a critical node appears: notified
      yield* call(client, "app_action", { app: "board", path: "/", action: "alarm" })
      yield* eventually(
        Effect.sync(() => updates.length),
        (n) => n >= 2
      )
      assert.deepStrictEqual([...updates].sort(), ["slop://apps", "slop://apps/board"])
      const board = yield* read("slop://apps/board")
      assert.match(board, /^### Kanban board \[board\] HOT/)
      assert.include(board, "Production outage")
    }).pipe(Effect.scoped)
  )
})
