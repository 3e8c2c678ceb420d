import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import { Store } from "@heed/collator"
import { Effect, Layer } from "effect"
import { PostgresStore } from "../src/index.ts"
import { freshSchema, schemaCleanup, serverUnavailable, serverUrl } from "./utils/server.ts"
import { freshOwner } from "./utils/shared.ts"

const fixture = fileURLToPath(new URL("./fixtures/writer.ts", import.meta.url))

/**
 * Runs the writer fixture, SIGKILLs it once it has acknowledged `acks` writes (a few more may be in flight), and
 * returns the ids it acknowledged.
 */
const writeThenKill = (args: ReadonlyArray<string>, acks: number) =>
  Effect.callback<ReadonlyArray<string>, Error>((resume) => {
    const child = spawn(process.execPath, ["--conditions=@heed/source", fixture, ...args], {
      stdio: ["ignore", "pipe", "pipe"]
    })
    const acknowledged: Array<string> = []
    let buffer = ""
    let stderr = ""
    let killed = false
    child.stdout.setEncoding("utf8")
    child.stdout.on("data", (chunk: string) => {
      buffer += chunk
      const lines = buffer.split("\n")
      buffer = lines.pop() ?? ""
      for (const line of lines) if (line.startsWith("ack ")) acknowledged.push(line.slice(4))
      if (!killed && acknowledged.length >= acks) {
        killed = true
        child.kill("SIGKILL")
      }
    })
    child.stderr.on("data", (chunk) => {
      stderr += String(chunk)
    })
    child.on("exit", (code, signal) => {
      if (signal === "SIGKILL" && killed) resume(Effect.succeed(acknowledged))
      else resume(Effect.fail(new Error(`writer exited early (code ${code}, signal ${signal}): ${stderr}`)))
    })
    return Effect.sync(() => child.kill("SIGKILL"))
  })

const storedIds = (layer: Layer.Layer<Store.Store, unknown>) =>
  Effect.gen(function* () {
    const store = yield* Store.Store
    return new Set((yield* store.query({ types: ["alert"], source: "durability" })).map((e) => e.id))
  }).pipe(Effect.provide(layer))

describe("durability: acknowledged writes survive SIGKILL", () => {
  it.live(
    "PGlite in a data directory",
    () =>
      Effect.gen(function* () {
        const dataDir = mkdtempSync(join(tmpdir(), "heed-durability-"))
        yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dataDir, { recursive: true, force: true })))
        const owner = freshOwner("durable")
        const acknowledged = yield* writeThenKill(["embedded", dataDir, owner], 25)
        assert.isAtLeast(acknowledged.length, 25)
        const stored = yield* storedIds(PostgresStore.layerEmbedded({ dataDir, owner }))
        for (const id of acknowledged) assert.isTrue(stored.has(id), `acknowledged ${id} is missing after SIGKILL`)
      }).pipe(Effect.scoped),
    120_000
  )

  it.live.skipIf(serverUnavailable !== undefined)(
    "PostgreSQL server",
    () =>
      Effect.gen(function* () {
        const schema = freshSchema("durable")
        yield* Layer.build(schemaCleanup(schema))
        const owner = freshOwner("durable")
        const acknowledged = yield* writeThenKill(["server", serverUrl, owner, schema], 50)
        assert.isAtLeast(acknowledged.length, 50)
        const stored = yield* storedIds(PostgresStore.layer({ url: serverUrl, schema, owner }))
        for (const id of acknowledged) assert.isTrue(stored.has(id), `acknowledged ${id} is missing after SIGKILL`)
      }).pipe(Effect.scoped),
    120_000
  )
})
