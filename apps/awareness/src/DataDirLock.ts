/**
 * An exclusive lock on the embedded store's data directory: PGlite has no lock of its own, and two processes on one
 * folder lose each other's writes. The lock is a file, `heed-awareness.lock`, created with O_EXCL and naming its
 * holder by PID, process start time, boot id and a random token (see `internal/lockFile.ts`), plus what the holder
 * serves: its HTTP URL (for `briefing`) and its session socket (for attached stdio sessions). A lock whose holder is
 * gone, or whose PID now belongs to another process, is taken over.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as LockFile from "./internal/lockFile.ts"

/**
 * The lock file's name inside the data directory.
 *
 * @category constants
 * @since 0.1.0
 */
export const fileName = LockFile.lockFileName

/**
 * What a lock file says about its holder.
 *
 * @category models
 * @since 0.1.0
 */
export type Holder = LockFile.LockRecord

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

/**
 * Reads the holder of the lock on `dataDir`, if a live process holds it.
 *
 * @category getters
 * @since 0.1.0
 */
export const holder = (dataDir: string): Holder | undefined => LockFile.liveHolder(dataDir)

/**
 * Takes the lock on `dataDir` for the scope (released, i.e. the file removed, when the scope closes). Fails with
 * {@link DataDirLocked} naming the holder's PID when another live process holds it. A lock this process already
 * holds (an attached session taking over takes it before loading the store) is kept, and released with the scope.
 *
 * @category constructors
 * @since 0.1.0
 */
export const acquire = (dataDir: string) =>
  Effect.acquireRelease(
    Effect.suspend(() => {
      const current = LockFile.tryAcquire(dataDir)
      if (current === undefined) return Effect.succeed(dataDir)
      return Effect.fail(
        new DataDirLocked({
          message:
            `the data directory ${dataDir} is in use by process ${current.pid}` +
            `${current.url === undefined ? "" : ` (a server at ${current.url})`}: stop it, or choose another folder with --data-dir or HEED_DATA_DIR`,
          pid: current.pid,
          url: current.url
        })
      )
    }),
    (dir) => Effect.sync(() => LockFile.release(dir))
  )

/**
 * Records the server's URL in the lock this process holds on `dataDir`, so that `briefing` can read through it.
 *
 * @category constructors
 * @since 0.1.0
 */
export const advertise = (dataDir: string, url: string) =>
  Effect.sync(() => {
    try {
      LockFile.advertise(dataDir, { url })
    } catch {
      // no lock (an in-memory or server store)
    }
  })
