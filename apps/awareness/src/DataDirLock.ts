/**
 * An exclusive lock on the embedded store's data directory: PGlite has no lock of its own, and two processes on one
 * folder lose each other's writes. The lock is a file, `heed-awareness.lock`, created with O_EXCL and holding the
 * holder's PID (and, for a server, its URL); a lock whose process is gone is taken over.
 *
 * @since 0.1.0
 */
import { closeSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/**
 * The lock file's name inside the data directory.
 *
 * @category constants
 * @since 0.1.0
 */
export const fileName = "heed-awareness.lock"

/**
 * What a lock file says about its holder.
 *
 * @category models
 * @since 0.1.0
 */
export interface Holder {
  readonly pid: number
  /** The MCP URL of the holder when it is an HTTP server. */
  readonly url?: string | undefined
}

/**
 * The data directory is in use by another live process.
 *
 * @category errors
 * @since 0.1.0
 */
export class DataDirLocked extends Schema.TaggedError<DataDirLocked>()("DataDirLocked", {
  message: Schema.String,
  pid: Schema.Number,
  url: Schema.optional(Schema.String)
}) {}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/**
 * Reads the holder of the lock on `dataDir`, if a live process holds it.
 *
 * @category getters
 * @since 0.1.0
 */
export const holder = (dataDir: string): Holder | undefined => {
  try {
    const parsed = JSON.parse(readFileSync(join(dataDir, fileName), "utf8")) as Holder
    return typeof parsed.pid === "number" && alive(parsed.pid) ? parsed : undefined
  } catch {
    return undefined
  }
}

const tryCreate = (path: string): boolean => {
  try {
    const fd = openSync(path, "wx")
    writeFileSync(fd, JSON.stringify({ pid: process.pid } satisfies Holder))
    closeSync(fd)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false
    throw error
  }
}

/**
 * Takes the lock on `dataDir` for the scope (released, i.e. the file removed, when the scope closes). Fails with
 * {@link DataDirLocked} naming the holder's PID when another live process holds it.
 *
 * @category constructors
 * @since 0.1.0
 */
export const acquire = (dataDir: string) =>
  Effect.acquireRelease(
    Effect.suspend(() => {
      const path = join(dataDir, fileName)
      for (let attempt = 0; attempt < 3; attempt++) {
        if (tryCreate(path)) return Effect.succeed(path)
        const current = holder(dataDir)
        if (current !== undefined) {
          return Effect.fail(
            new DataDirLocked({
              message:
                `the data directory ${dataDir} is in use by process ${current.pid}` +
                `${current.url === undefined ? "" : ` (a server at ${current.url})`}: stop it, or choose another folder with --data-dir or HEED_DATA_DIR`,
              pid: current.pid,
              url: current.url
            })
          )
        }
        rmSync(path, { force: true }) // the holder is gone: a stale lock
      }
      return Effect.die(new Error(`could not take the lock ${path}`))
    }),
    (path) => Effect.sync(() => release(path))
  )

const release = (path: string) => {
  try {
    const current = JSON.parse(readFileSync(path, "utf8")) as Holder
    if (current.pid === process.pid) rmSync(path, { force: true })
  } catch {
    // already gone
  }
}

/**
 * Records the server's URL in the lock this process holds on `dataDir`, so that `briefing` can read through it.
 *
 * @category constructors
 * @since 0.1.0
 */
export const advertise = (dataDir: string, url: string) =>
  Effect.sync(() => {
    try {
      const path = join(dataDir, fileName)
      const current = JSON.parse(readFileSync(path, "utf8")) as Holder
      if (current.pid === process.pid) writeFileSync(path, JSON.stringify({ pid: process.pid, url } satisfies Holder))
    } catch {
      // no lock (an in-memory or server store)
    }
  })
