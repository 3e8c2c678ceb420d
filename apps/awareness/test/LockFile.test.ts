import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as LockFile from "../src/internal/lockFile.ts"
import { defaultDataDir, sharedSessionOf } from "../src/internal/sharedSession.ts"

const withDir = (body: (dir: string) => void) => {
  const dir = mkdtempSync(join(tmpdir(), "heed-lockfile-"))
  try {
    body(dir)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

describe("the lock file names its holder by more than a PID", () => {
  it("obeys this process and a live process that started when the record says; not a reused or dead PID", async () => {
    const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" })
    try {
      const pid = child.pid!
      const start = LockFile.processStart(pid)
      assert.isString(start)
      const boot = LockFile.bootId()
      assert.isTrue(LockFile.isLive(LockFile.self))
      assert.isTrue(LockFile.isLive({ pid, start, boot, token: "other" }))
      // The PID belongs to a process that started at another time: another program now.
      assert.isFalse(LockFile.isLive({ pid, start: `${Number(start) + 1}`, boot, token: "other" }))
      // Another boot, or this process's own PID with another token (a restarted container).
      assert.isFalse(LockFile.isLive({ pid, start, boot: "another-boot", token: "other" }))
      assert.isFalse(LockFile.isLive({ ...LockFile.self, token: "before-the-restart" }))
    } finally {
      child.kill("SIGKILL")
    }
    const exited = await new Promise<number>((done) => child.on("exit", () => done(child.pid!)))
    assert.isFalse(LockFile.isLive({ pid: exited, token: "gone" }))
  })

  it("tryAcquire takes a free or stale lock, keeps its own, and names a live holder", () =>
    withDir((dir) => {
      assert.isUndefined(LockFile.tryAcquire(dir))
      assert.strictEqual(LockFile.read(dir)?.token, LockFile.self.token)
      assert.isUndefined(LockFile.tryAcquire(dir)) // re-entrant
      LockFile.advertise(dir, { socket: join(dir, LockFile.socketFileName) })
      assert.strictEqual(LockFile.read(dir)?.socket, join(dir, LockFile.socketFileName))
      LockFile.release(dir)
      assert.isUndefined(LockFile.read(dir))

      // Stale: the record names this process's PID with another token.
      const path = join(dir, LockFile.lockFileName)
      writeFileSync(path, JSON.stringify({ ...LockFile.self, token: "earlier" }))
      assert.isUndefined(LockFile.tryAcquire(dir))
      assert.strictEqual(JSON.parse(readFileSync(path, "utf8")).token, LockFile.self.token)
      LockFile.release(dir)

      // Half-written by a process that died: stale too.
      writeFileSync(path, '{"pid": 12')
      assert.isUndefined(LockFile.tryAcquire(dir))
      LockFile.release(dir)

      // Live: the parent process (the test runner's), recorded with its real start time.
      const parent = { pid: process.ppid, start: LockFile.processStart(process.ppid), boot: LockFile.bootId() }
      writeFileSync(path, JSON.stringify({ ...parent, token: "runner" }))
      assert.strictEqual(LockFile.tryAcquire(dir)?.pid, process.ppid)
      LockFile.release(dir) // not ours: left in place
      assert.strictEqual(LockFile.read(dir)?.token, "runner")
    }))
})

describe("which command lines run as a shared stdio session", () => {
  const env = { HOME: "/home/ada" }
  it("serve --stdio on an embedded folder, with --data-dir and --log-level in either form", () => {
    assert.deepStrictEqual(sharedSessionOf(["serve", "--stdio"], env), {
      dataDir: join("/home/ada", ".local", "share", "heed", "awareness"),
      logLevel: undefined
    })
    assert.deepStrictEqual(sharedSessionOf(["--log-level", "debug", "serve", "--stdio", "--data-dir=rel/dir"], env), {
      dataDir: resolve("rel/dir"),
      logLevel: "debug"
    })
    assert.strictEqual(
      sharedSessionOf(["serve", "--data-dir", "/srv/a", "--stdio"], { ...env, HEED_DATA_DIR: "/srv/b" })?.dataDir,
      "/srv/a"
    )
    assert.strictEqual(sharedSessionOf(["serve", "--stdio"], { ...env, HEED_DATA_DIR: "/srv/b" })?.dataDir, "/srv/b")
    assert.strictEqual(defaultDataDir({ XDG_DATA_HOME: "/xdg", HOME: "/home/ada" }), "/xdg/heed/awareness")
  })

  it("everything else runs the full program", () => {
    const cases: ReadonlyArray<ReadonlyArray<string>> = [
      ["serve"],
      ["serve", "--stdio", "--memory"],
      ["serve", "--stdio", "--database-url", "postgres://x"],
      ["serve", "--stdio", "--port", "1"],
      ["serve", "--stdio", "--help"],
      ["serve", "--stdio", "--data-dir"],
      ["briefing"],
      ["--stdio", "serve"],
      []
    ]
    for (const args of cases) assert.isUndefined(sharedSessionOf(args, env), args.join(" "))
    assert.isUndefined(sharedSessionOf(["serve", "--stdio"], { ...env, DATABASE_URL: "postgres://x" }))
    assert.isUndefined(sharedSessionOf(["serve", "--stdio"], { ...env, HEED_DATA_DIR: "memory://" }))
  })
})
