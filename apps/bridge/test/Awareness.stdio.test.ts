import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { call, eventually, startBridge, stop, tempDir } from "./support.ts"

const awarenessMain = fileURLToPath(new URL("../../awareness/src/main.ts", import.meta.url))

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = net.createServer()
    server.listen(0, "127.0.0.1", () => {
      const address = server.address() as net.AddressInfo
      server.close(() => resolve(address.port))
    })
  })

/** The awareness server (in memory) on a free port, ready once its banner says so; stopped with the scope. */
const startAwareness = Effect.acquireRelease(
  Effect.gen(function* () {
    const port = yield* Effect.promise(freePort)
    const child = spawn(
      process.execPath,
      ["--conditions=@heed/source", awarenessMain, "serve", "--memory", "--port", String(port)],
      {
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, HEED_LOG_LEVEL: "Warn" }
      }
    )
    yield* Effect.callback<void, Error>((resume) => {
      let out = ""
      child.stdout!.setEncoding("utf8")
      child.stdout!.on("data", (chunk: string) => {
        out += chunk
        if (out.includes("Press Ctrl+C")) resume(Effect.void)
      })
      child.once("exit", (code) => resume(Effect.fail(new Error(`the awareness server exited with ${code}`))))
    })
    return { child, port }
  }),
  ({ child }) => stop(child)
)

describe("the awareness server as a third provider, added by its /.well-known/slop URL", () => {
  it.live("--provider http://…/.well-known/slop connects to heed's awareness tree over WebSocket", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("heed-bridge-aw-")
      fs.mkdirSync(join(dir, "providers"))
      const { port } = yield* startAwareness
      const { client } = yield* startBridge(dir, ["--provider", `http://127.0.0.1:${port}/.well-known/slop`])
      const listed = yield* eventually(call(client, "list_apps"), (r) =>
        /^heed-awareness: .*\(connected,/m.test(r.text)
      )
      assert.include(listed.text, `ws ws://127.0.0.1:${port}/slop`)
      const state = yield* call(client, "get_state", { app: "heed-awareness" })
      assert.isFalse(state.isError, state.text)
      assert.match(state.text, /^\[root\]/)
    }).pipe(Effect.scoped)
  )
})
