/**
 * SLOP provider discovery for local consumers: the descriptor files in `~/.slop/providers/` (user level) and
 * `/tmp/slop/providers/` (session level), or the colon-separated folders of `HEED_SLOP_PROVIDER_DIRS`, which
 * replace both. The folders are scanned at start, watched for files added and removed, and rescanned every 15
 * seconds; a removed descriptor, or one whose `pid` is no longer running, removes its provider.
 *
 * @since 0.1.0
 */
import * as fs from "node:fs"
import { homedir } from "node:os"
import { join } from "node:path"
import { Discovery } from "@heed/http"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"

/**
 * The environment variable holding colon-separated descriptor folders that replace the default ones.
 *
 * @category constants
 * @since 0.1.0
 */
export const directoriesVariable = "HEED_SLOP_PROVIDER_DIRS"

/**
 * The descriptor folders: those of `HEED_SLOP_PROVIDER_DIRS` (colon-separated, empty entries ignored) when it is
 * set and not empty, otherwise `~/.slop/providers` and `/tmp/slop/providers`, in that order (on an id found in
 * both, the first folder wins).
 *
 * @category getters
 * @since 0.1.0
 */
export const directories = (env: Readonly<Record<string, string | undefined>> = process.env): ReadonlyArray<string> => {
  const listed = (env[directoriesVariable] ?? "").split(":").filter((entry) => entry.trim() !== "")
  if (listed.length > 0) return listed
  return [join(homedir(), ".slop", "providers"), join("/tmp", "slop", "providers")]
}

/**
 * A discovered provider: its descriptor and the file it came from.
 *
 * @category models
 * @since 0.1.0
 */
export interface Entry {
  readonly descriptor: Discovery.Descriptor
  readonly file: string
}

/**
 * A change in the set of providers: one `added`, one whose descriptor file changed (`updated`, e.g. a new `pid` or
 * transport after a restart), or one `removed` (its file is gone, or its `pid` is not running; `reason` says which).
 *
 * @category models
 * @since 0.1.0
 */
export type Change =
  | { readonly _tag: "added"; readonly entry: Entry }
  | { readonly _tag: "updated"; readonly entry: Entry }
  | { readonly _tag: "removed"; readonly id: string; readonly reason: string }

/**
 * Whether a process is running: `process.kill(pid, 0)` succeeds, or fails only for lack of permission.
 *
 * @category guards
 * @since 0.1.0
 */
export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as { code?: unknown }).code === "EPERM"
  }
}

const decodeDescriptor = Schema.decodeUnknownResult(Schema.fromJsonString(Discovery.DescriptorSchema))

/**
 * The outcome of one scan: the live providers by id, the providers skipped for a dead `pid`, and the files that are
 * not descriptors (with the reason).
 *
 * @category models
 * @since 0.1.0
 */
export interface Scan {
  readonly providers: ReadonlyMap<string, Entry>
  readonly dead: ReadonlyMap<string, number>
  readonly invalid: ReadonlyMap<string, string>
}

/**
 * Reads every `*.json` file of the folders once (missing folders have none). Synchronous: a folder holds a handful
 * of small files.
 *
 * @category constructors
 * @since 0.1.0
 */
export const scan = (folders: ReadonlyArray<string>, alive: (pid: number) => boolean = isAlive): Scan => {
  const providers = new Map<string, Entry>()
  const dead = new Map<string, number>()
  const invalid = new Map<string, string>()
  for (const folder of folders) {
    let names: Array<string>
    try {
      names = fs.readdirSync(folder).filter((name) => name.endsWith(".json"))
    } catch {
      continue
    }
    names.sort()
    for (const name of names) {
      const file = join(folder, name)
      let text: string
      try {
        text = fs.readFileSync(file, "utf8")
      } catch {
        continue
      }
      const result = decodeDescriptor(text)
      if (result._tag === "Failure") {
        invalid.set(file, result.failure.message)
        continue
      }
      const descriptor = result.success
      if (providers.has(descriptor.id)) continue
      if (descriptor.pid !== undefined && !alive(descriptor.pid)) {
        dead.set(descriptor.id, descriptor.pid)
        continue
      }
      providers.set(descriptor.id, { descriptor, file })
    }
  }
  return { providers, dead, invalid }
}

/**
 * Options of {@link watch}: the `folders` (default {@link directories}), the `rescanInterval` (default 15 s), how
 * to tell a live `pid` (default {@link isAlive}), and `onChange`, called in order for every change, starting with
 * an `added` for each provider found by the first scan.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly folders?: ReadonlyArray<string> | undefined
  readonly rescanInterval?: Duration.Input | undefined
  readonly alive?: ((pid: number) => boolean) | undefined
  readonly onChange: (change: Change) => Effect.Effect<void>
}

/**
 * A running watch: the providers as last scanned, and `rescan` to scan now.
 *
 * @category models
 * @since 0.1.0
 */
export interface Watcher {
  readonly providers: Effect.Effect<ReadonlyMap<string, Entry>>
  readonly folders: ReadonlyArray<string>
  readonly rescan: Effect.Effect<void>
}

const same = (a: Entry, b: Entry): boolean =>
  a.file === b.file && JSON.stringify(a.descriptor) === JSON.stringify(b.descriptor)

/**
 * Scans the folders, reports every provider as `added`, then watches the folders (each one that exists, and any
 * that appears later) and rescans after every file event and every `rescanInterval`, reporting the differences.
 * Files that are not descriptors are logged once (again only when they change). The watch lives in the current
 * scope.
 *
 * @category constructors
 * @since 0.1.0
 */
export const watch = (options: Options): Effect.Effect<Watcher, never, Scope.Scope> =>
  Effect.gen(function* () {
    const folders = options.folders ?? directories()
    const alive = options.alive ?? isAlive
    const interval = Duration.fromInputUnsafe(options.rescanInterval ?? 15_000)
    const signals = yield* Queue.sliding<void>(1)
    const watchers = new Map<string, fs.FSWatcher>()
    const warned = new Map<string, string>()
    let current: ReadonlyMap<string, Entry> = new Map()
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        for (const watcher of watchers.values()) watcher.close()
        watchers.clear()
      })
    )
    const watchFolders = () => {
      for (const folder of folders) {
        if (watchers.has(folder)) continue
        try {
          const watcher = fs.watch(folder, () => Queue.offerUnsafe(signals, undefined))
          watcher.on("error", () => {
            watcher.close()
            watchers.delete(folder)
            Queue.offerUnsafe(signals, undefined)
          })
          watchers.set(folder, watcher)
        } catch {
          // not there yet: the next rescan tries again
        }
      }
    }
    const rescan = Effect.gen(function* () {
      watchFolders()
      const next = scan(folders, alive)
      for (const [file, reason] of next.invalid) {
        if (warned.get(file) === reason) continue
        warned.set(file, reason)
        yield* Effect.logWarning(`skipping ${file}: not a SLOP descriptor (${reason})`)
      }
      const previous = current
      current = next.providers
      for (const [id, entry] of previous) {
        if (next.providers.has(id)) continue
        const pid = next.dead.get(id)
        const reason =
          pid !== undefined ? `its process ${pid} is not running` : `its descriptor ${entry.file} was removed`
        yield* options.onChange({ _tag: "removed", id, reason })
      }
      for (const [id, entry] of next.providers) {
        const before = previous.get(id)
        if (before === undefined) yield* options.onChange({ _tag: "added", entry })
        else if (!same(before, entry)) yield* options.onChange({ _tag: "updated", entry })
      }
    })
    yield* rescan
    yield* Effect.forkScoped(
      Effect.forever(
        Effect.raceFirst(Queue.take(signals), Effect.sleep(interval)).pipe(
          // a burst of file events (write, rename) settles before the rescan
          Effect.andThen(Effect.sleep(Duration.millis(30))),
          Effect.andThen(Queue.clear(signals)),
          Effect.andThen(rescan)
        )
      )
    )
    return {
      providers: Effect.sync(() => current),
      folders,
      rescan
    }
  })
