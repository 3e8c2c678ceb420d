/**
 * Gives the garbage of a burst of requests back to the operating system once the HTTP server goes quiet: one full
 * garbage collection `idleMs` after the last request (at most once per quiet spell, never while requests keep
 * coming).
 *
 * Why: the server's live heap is small (about 75 MB with 1k sources and 10k alerts on a PostgreSQL server), but V8
 * grows its heap for speed during a burst of writes and, in a server that then waits on its sockets, did not shrink
 * it again: RSS stayed at 449 MB twelve seconds after seeding 10k alerts. One collection after 5 s of quiet brought it
 * to 177 MB, for a few tens of milliseconds of one core while nothing else is waiting. V8's own
 * `--optimize-for-size` keeps RSS low too, but doubles the CPU of every fresh briefing (its collector runs all the
 * time), so it stays opt-in (`HEED_OPTIMIZE_FOR_SIZE`).
 *
 * The collection needs V8's `gc` function, which node exposes only with `--expose-gc`: the module turns that flag on
 * at run time and takes the function from a new context, where V8 installs it. Where that is not possible, nothing is
 * collected (`collector()` is `undefined`).
 *
 * @since 0.2.0
 */
import type { Server } from "node:http"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"

/**
 * The quiet-spell logic, without timers: `touch` at each request, `check` now and then; `check` collects (and says
 * so) when a request came since the last collection and none for `idleMs`.
 *
 * @category models
 * @since 0.2.0
 */
export interface IdleCollection {
  readonly touch: (nowMs: number) => void
  readonly check: (nowMs: number) => boolean
  /** Collections so far. */
  readonly collections: () => number
}

/**
 * The quiet-spell logic over `collect`.
 *
 * @category constructors
 * @since 0.2.0
 */
export const make = (idleMs: number, collect: () => void): IdleCollection => {
  let lastRequestMs = Number.NEGATIVE_INFINITY
  let pending = false
  let collections = 0
  return {
    touch: (nowMs) => {
      lastRequestMs = nowMs
      pending = true
    },
    check: (nowMs) => {
      if (!pending || nowMs - lastRequestMs < idleMs) return false
      pending = false
      collections++
      collect()
      return true
    },
    collections: () => collections
  }
}

// `null`: not looked up yet; `undefined`: the runtime refused.
let exposed: (() => void) | undefined | null = null

/** V8's `gc` asked for its most thorough collection, the one that also returns pooled pages to the system. */
const lastResort = (gc: (options?: unknown) => void) => () =>
  gc({ type: "major", execution: "sync", flavor: "last-resort" })

/**
 * V8's full collection that gives freed memory back (`undefined` where the runtime refuses to expose it). A plain
 * `gc()` shrank the heap from 313 to 138 MB but left RSS at 445 MB: V8 pools the freed pages for reuse. The
 * `last-resort` flavour returns them (RSS 177 MB); a runtime whose `gc` takes no options runs a plain one.
 *
 * @category getters
 * @since 0.2.0
 */
export const collector = (): (() => void) | undefined => {
  if (exposed === null) exposed = exposeGc()
  return exposed
}

/** `gc` as the process has it (`--expose-gc`), else from a new context once the flag is on. */
const exposeGc = (): (() => void) | undefined => {
  const own = (globalThis as { readonly gc?: unknown }).gc
  if (typeof own === "function") return lastResort(own as (options?: unknown) => void)
  try {
    setFlagsFromString("--expose-gc")
    const gc: unknown = runInNewContext("gc")
    return typeof gc === "function" ? lastResort(gc as (options?: unknown) => void) : undefined
  } catch {
    return undefined
  }
}

/**
 * Watches `server`: its creation and every request and upgrade count as activity, a timer (which never keeps the
 * process alive) checks every `idleMs`, and closing the server stops it. Returns the logic (tests read its count), or
 * `undefined` when `idleMs` is 0 or no collector is available.
 *
 * @category constructors
 * @since 0.2.0
 */
export const watch = (
  server: Server,
  idleMs: number,
  collect: (() => void) | undefined = collector()
): IdleCollection | undefined => {
  if (!(idleMs > 0) || collect === undefined) return undefined
  const collection = make(idleMs, collect)
  const touch = () => collection.touch(Date.now())
  // Starting up is a burst of its own (loading modules, opening the store): collect after it too.
  touch()
  server.on("request", touch)
  server.on("upgrade", touch)
  const timer = setInterval(() => collection.check(Date.now()), idleMs)
  timer.unref()
  server.on("close", () => clearInterval(timer))
  return collection
}
