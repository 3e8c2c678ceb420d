/**
 * Two heed-proxy processes on one PostgreSQL database share a session: what one collapsed, the other knows, and a
 * reference seen by the second restores the effort the first collapsed.
 */
import { spawn } from "node:child_process"
import { connect, createServer } from "node:net"
import { fileURLToPath } from "node:url"
import * as PgClient from "@effect/sql-pg/PgClient"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as SqlClient from "effect/sql/SqlClient"
import * as SessionStore from "../src/SessionStore.ts"
import { fakeUpstream, post } from "./harness.ts"
import * as T from "./transcripts.ts"

const appDir = fileURLToPath(new URL("..", import.meta.url))
const adminUrl = process.env.HEED_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"
const database = "heed_proxy_test"
const urlOf = (name: string) => {
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return url.toString()
}
const databaseUrl = urlOf(database)

const reachable = await new Promise<boolean>((resolve) => {
  const url = new URL(adminUrl)
  const socket = connect({ host: url.hostname, port: Number(url.port || 5432) })
  socket.setTimeout(3000)
  socket.on("connect", () => {
    socket.destroy()
    resolve(true)
  })
  socket.on("timeout", () => {
    socket.destroy()
    resolve(false)
  })
  socket.on("error", () => resolve(false))
})
if (!reachable) {
  if (process.env.CI === "true") throw new Error(`PostgreSQL at ${adminUrl} is unreachable and CI=true`)
  console.warn(`Skipping the replica test: PostgreSQL at ${adminUrl} is unreachable`)
}

/** A database of our own (each run uses a session id of its own, so earlier rows do not matter). */
const prepareDatabase = (name = database) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const exists = yield* sql`SELECT 1 FROM pg_database WHERE datname = ${name}`
    if (exists.length === 0) yield* sql.unsafe(`CREATE DATABASE ${name}`)
  }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(adminUrl) })))

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer()
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      probe.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })

/** One `heed-proxy serve` process on the shared database, stopped with the scope. */
const replica = (upstream: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const port = await freePort()
      const child = spawn(
        process.execPath,
        ["--conditions=@heed/source", "src/main.ts", "serve", "--upstream", upstream, "--port", `${port}`],
        { cwd: appDir, env: { ...process.env, DATABASE_URL: databaseUrl }, stdio: ["ignore", "pipe", "pipe"] }
      )
      let output = ""
      await new Promise<void>((resolve, reject) => {
        const onData = (chunk: Buffer) => {
          output += chunk.toString()
          if (output.includes("Listening on")) resolve()
        }
        child.stdout.on("data", onData)
        child.stderr.on("data", onData)
        child.on("exit", () => reject(new Error(`replica exited: ${output}`)))
      })
      return { url: `http://127.0.0.1:${port}`, child }
    }),
    ({ child }) =>
      Effect.promise(
        () =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null) return resolve()
            child.once("exit", () => resolve())
            child.kill("SIGTERM")
          })
      )
  )

describe.skipIf(!reachable)("two proxy processes on one PostgreSQL", () => {
  it.live("share a session: the second restores what the first collapsed and counts both requests", () =>
    Effect.gen(function* () {
      yield* prepareDatabase()
      const upstream = yield* fakeUpstream(() => ({ body: T.openAiText("ok") }))
      const [a, b] = yield* Effect.all([replica(upstream.url), replica(upstream.url)], { concurrency: 2 })
      const session = `replicas-${process.pid}-${Date.now().toString(36)}`
      const first = T.openAi(8, "Summarise.")
      const one = yield* Effect.promise(() =>
        post(`${a.url}/v1/chat/completions`, first, { "x-heed-session": session })
      )
      assert.strictEqual(one.headers.get("x-heed-collapsed"), "5")
      const next = {
        ...first,
        messages: [
          ...first.messages,
          { role: "assistant", content: "Summary given." },
          { role: "user", content: "Go back to src/area1/file.ts." }
        ]
      }
      const two = yield* Effect.promise(() => post(`${b.url}/v1/chat/completions`, next, { "x-heed-session": session }))
      // Result 1 restored; result 5, due now, rides along with the restore.
      assert.strictEqual(two.headers.get("x-heed-collapsed"), "5")
      const seen = (yield* Effect.promise(() => fetch(`${b.url}/sessions/${session}`).then((r) => r.json()))) as {
        requests: number
        efforts: Array<{ restores: number; state: string }>
      }
      assert.strictEqual(seen.requests, 2)
      assert.strictEqual(seen.efforts.filter((effort) => effort.restores === 1).length, 1)
      assert.strictEqual(seen.efforts.filter((effort) => effort.state === "collapsed").length, 5)
      const fromA = (yield* Effect.promise(() => fetch(`${a.url}/sessions/${session}`).then((r) => r.json()))) as {
        requests: number
      }
      assert.strictEqual(fromA.requests, 2)
    })
  )
  it.live("stores starting at the same moment on a database without the table both start, 20 times in a row", () =>
    Effect.gen(function* () {
      // A database of its own: the table is dropped and created again in each round.
      yield* prepareDatabase("heed_proxy_race")
      // Two connection pools, as two processes have: CREATE TABLE IF NOT EXISTS from both at once could collide in
      // the catalog (a unique violation) unless one waits for the other.
      const clients = yield* Effect.all(
        [0, 1].map(() => Layer.build(PgClient.layer({ url: Redacted.make(urlOf("heed_proxy_race")) }))),
        { concurrency: 2 }
      )
      const admin = clients[0]!
      for (let round = 0; round < 20; round++) {
        yield* Effect.provide(
          Effect.flatMap(SqlClient.SqlClient, (sql) => sql`DROP TABLE IF EXISTS heed_proxy_sessions`),
          admin
        )
        const kinds = yield* Effect.all(
          clients.map((context) =>
            Effect.provide(
              Effect.map(SessionStore.makePostgres, (store) => store.kind),
              context
            )
          ),
          { concurrency: 2 }
        )
        assert.deepStrictEqual(kinds, ["postgres", "postgres"], `round ${round}`)
      }
    })
  )
})
