import * as net from "node:net"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Consumer, Node } from "@heed/state-tree"
import { Effect } from "effect"
import { SlopStream } from "../src/index.ts"
import { eventually, fixture, startUnixProvider, stop, tempDir } from "./support.ts"

const fast = { initialDelay: 20, maxDelay: 100 }

const titles = (tree: Node.Node | undefined) =>
  (Node.find(tree!, "/todos")?.children ?? []).map((child) => String(child.properties?.label))

describe("SlopStream.unix against the spec-following fixture on a real Unix socket", () => {
  it.live("mirrors the tree; an invoke changes the provider and its patch reaches the mirror", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("slop-unix-")
      const path = join(dir, "todo.sock")
      yield* startUnixProvider(["--socket", path, "--items", "2"])
      const client = yield* SlopStream.unix({ path })
      const consumer = yield* Consumer.make(client)
      assert.strictEqual((yield* consumer.hello).provider.id, "todo")
      const id = yield* consumer.subscribe({ depth: -1 })
      assert.deepStrictEqual(titles(yield* consumer.tree(id)), ["Task 1", "Task 2"])
      const result = yield* consumer.invoke("/todos", "add", { title: "Write tests" })
      assert.strictEqual(result.status, "ok")
      const tree = yield* eventually(consumer.tree(id), (tree) => titles(tree).length === 3)
      assert.deepStrictEqual(titles(tree), ["Task 1", "Task 2", "Write tests"])
      const failed = yield* Effect.flip(consumer.invoke("/todos/nope", "toggle"))
      assert.strictEqual(failed.code, "not_found")
    }).pipe(Effect.scoped)
  )

  it.live("a provider killed and started again is reconnected, and the subscription restarts", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("slop-unix-")
      const path = join(dir, "todo.sock")
      const first = yield* startUnixProvider(["--socket", path, "--items", "1"])
      const client = yield* SlopStream.unix({ path, reconnect: fast })
      const consumer = yield* Consumer.make(client)
      const id = yield* consumer.subscribe({ depth: -1 })
      yield* consumer.invoke("/todos", "add", { title: "before the crash" })
      yield* eventually(consumer.tree(id), (tree) => titles(tree).length === 2)
      yield* stop(first, "SIGKILL")
      yield* eventually(client.state, (state) => state === "reconnecting")
      yield* startUnixProvider(["--socket", path, "--items", "4"])
      yield* eventually(consumer.tree(id), (tree) => titles(tree).length === 4)
      assert.strictEqual(yield* client.connections, 2)
      assert.strictEqual(yield* client.state, "open")
    }).pipe(Effect.scoped)
  )

  it.live("garbage closes the connection with a reason and the client survives to reconnect", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("slop-garbage-")
      const path = join(dir, "bad.sock")
      let accepted = 0
      const server = net.createServer((socket) => {
        accepted++
        socket.on("error", () => {})
        const hello = { type: "hello", provider: { id: "bad", name: "Bad", slop_version: "0.1", capabilities: [] } }
        socket.write(`${JSON.stringify(hello)}\n`)
        socket.write(accepted === 1 ? "this is not json\n" : `${JSON.stringify({ type: "snapshot", id: 7 })}\n`)
      })
      yield* Effect.acquireRelease(
        Effect.callback<void>((resume) => void server.listen(path, () => resume(Effect.void))),
        () => Effect.sync(() => server.close())
      )
      const client = yield* SlopStream.unix({ path, reconnect: fast })
      const consumer = yield* Consumer.make(client)
      yield* consumer.hello
      yield* eventually(client.rejected, (n) => n >= 2)
      const problem = yield* client.lastProblem
      assert.isTrue(accepted >= 2, "the client connected again after the garbage")
      assert.match(String(problem), /not SLOP|not JSON/)
      assert.notStrictEqual(yield* client.state, "closed")
    }).pipe(Effect.scoped)
  )

  it.live("a socket nobody listens on fails the first connection with a typed error naming it", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("slop-none-")
      const path = join(dir, "missing.sock")
      const error = yield* Effect.flip(SlopStream.unix({ path, reconnect: false }))
      assert.strictEqual(error._tag, "SlopStreamError")
      assert.strictEqual(error.target, path)
      assert.include(error.message, path)
    }).pipe(Effect.scoped)
  )
})

describe("SlopStream.stdio against the fixture as a child process", () => {
  it.live("spawns the command, mirrors its tree, invokes, and ends the process with the scope", () =>
    Effect.gen(function* () {
      const client = yield* SlopStream.stdio({ command: [process.execPath, fixture, "--stdio", "--items", "2"] })
      const consumer = yield* Consumer.make(client)
      const id = yield* consumer.subscribe({ depth: -1 })
      yield* consumer.invoke("/todos/t1", "toggle")
      const tree = yield* eventually(
        consumer.tree(id),
        (tree) => Node.find(tree!, "/todos/t1")?.properties?.done === true
      )
      assert.strictEqual(Node.find(tree!, "/alerts/disk")?.meta?.urgency, "critical")
      yield* client.close
      assert.strictEqual(yield* client.state, "closed")
    }).pipe(Effect.scoped)
  )

  it.live("a command that cannot start is a typed error", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(SlopStream.stdio({ command: ["/nonexistent/provider"], reconnect: false }))
      assert.strictEqual(error._tag, "SlopStreamError")
      assert.include(error.message, "/nonexistent/provider")
      const empty = yield* Effect.flip(SlopStream.stdio({ command: [] }))
      assert.include(empty.message, "command")
    }).pipe(Effect.scoped)
  )
})
