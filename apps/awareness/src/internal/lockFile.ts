/**
 * The data directory's lock file and session socket, in plain Node: an attached stdio session reads them without
 * loading Effect, PGlite or the tokenizer (each would add tens of MB to every session's memory), and takes the lock
 * itself when it takes over, before loading anything heavy. `DataDirLock` wraps these functions for the Effect side.
 *
 * A holder is identified by more than its PID: the process's start time (field 22 of `/proc/<pid>/stat`), the
 * machine's boot id and a random token made by each process. A lock is obeyed only while its PID is alive, started at
 * the recorded time, on this boot, and is not this process's own PID with another token; so a PID reused by another
 * program, or by the starting process itself (a container restarted after SIGKILL gets the same small PIDs), does
 * not keep the folder locked. Where `/proc` does not exist (macOS) only the PID checks apply.
 *
 * @since 0.1.0
 */
import { randomUUID } from "node:crypto"
import { closeSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"

/**
 * The lock file's name inside the data directory.
 *
 * @category constants
 * @since 0.1.0
 */
export const lockFileName = "heed-awareness.lock"

/**
 * The session socket's name inside the data directory.
 *
 * @category constants
 * @since 0.1.0
 */
export const socketFileName = "heed-awareness.sock"

/**
 * What a lock file says about its holder.
 *
 * @category models
 * @since 0.1.0
 */
export interface LockRecord {
  readonly pid: number
  /** The holder's start time in clock ticks since boot (`/proc/<pid>/stat` field 22). */
  readonly start?: string | undefined
  /** The boot the holder runs in (`/proc/sys/kernel/random/boot_id`). */
  readonly boot?: string | undefined
  /** A random token of the holding process. */
  readonly token?: string | undefined
  /** The MCP URL of the holder when it is an HTTP server. */
  readonly url?: string | undefined
  /** The session socket the holder serves MCP on, once it listens. */
  readonly socket?: string | undefined
}

const readOrUndefined = (path: string): string | undefined => {
  try {
    return readFileSync(path, "utf8")
  } catch {
    return undefined
  }
}

/**
 * The start time of process `pid` in clock ticks since boot, or `undefined` without `/proc` or such a process.
 *
 * @category getters
 * @since 0.1.0
 */
export const processStart = (pid: number): string | undefined => {
  const stat = readOrUndefined(`/proc/${pid}/stat`)
  if (stat === undefined) return undefined
  // The command name (field 2) is in parentheses and may hold spaces or parentheses: count from the last ")".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return fields[19] // field 22 overall: fields 3.. start at index 0 here
}

/**
 * This machine's boot id, or `undefined` without `/proc`.
 *
 * @category getters
 * @since 0.1.0
 */
export const bootId = (): string | undefined => readOrUndefined("/proc/sys/kernel/random/boot_id")?.trim()

/**
 * This process's identity, as its lock records say.
 *
 * @category constants
 * @since 0.1.0
 */
export const self: LockRecord = {
  pid: process.pid,
  start: processStart(process.pid),
  boot: bootId(),
  token: randomUUID()
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/**
 * Whether `record` names this process.
 *
 * @category guards
 * @since 0.1.0
 */
export const isSelf = (record: LockRecord): boolean => record.token === self.token

/**
 * Whether the process a lock record names still holds it: this process with this token, or another live process
 * whose start time and boot match the record.
 *
 * @category guards
 * @since 0.1.0
 */
export const isLive = (record: LockRecord): boolean => {
  if (isSelf(record)) return true
  if (record.pid === process.pid) return false // an earlier process with our PID (a restarted container)
  if (record.boot !== undefined && self.boot !== undefined && record.boot !== self.boot) return false
  if (!alive(record.pid)) return false
  if (record.start === undefined) return true // written by an older version: the PID is all it says
  const start = processStart(record.pid)
  return start === undefined || start === record.start
}

/**
 * The lock file's record, live or not (`undefined` when there is none or it is unreadable).
 *
 * @category getters
 * @since 0.1.0
 */
export const read = (dataDir: string): LockRecord | undefined => {
  const text = readOrUndefined(join(dataDir, lockFileName))
  if (text === undefined) return undefined
  try {
    const parsed = JSON.parse(text) as LockRecord
    return typeof parsed === "object" && parsed !== null && typeof parsed.pid === "number" ? parsed : undefined
  } catch {
    return undefined
  }
}

/**
 * The live holder of `dataDir`, if any.
 *
 * @category getters
 * @since 0.1.0
 */
export const liveHolder = (dataDir: string): LockRecord | undefined => {
  const record = read(dataDir)
  return record !== undefined && isLive(record) ? record : undefined
}

const tryCreate = (path: string, record: LockRecord): boolean => {
  try {
    const fd = openSync(path, "wx", 0o600)
    try {
      writeFileSync(fd, JSON.stringify(record))
    } finally {
      closeSync(fd)
    }
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false
    throw error
  }
}

/**
 * Another process is removing the same stale lock right now: try again shortly.
 *
 * @category errors
 * @since 0.1.0
 */
export class LockBusy extends Error {
  constructor(path: string) {
    super(`the lock ${path} is being taken over by another process`)
    this.name = "LockBusy"
  }
}

/** A breaker left behind by a process that died while removing a stale lock is ignored after this long. */
const breakerStaleMs = 10_000

/**
 * Removes the lock file if it still holds the stale record `stale`. Several processes may find the same stale lock at
 * once: each first creates a breaker file (O_EXCL), so only one removes it, and only if it is still the stale one (a
 * plain remove could delete the lock that a faster process has just taken).
 */
const breakStale = (dataDir: string, stale: string): void => {
  const breaker = join(dataDir, `${lockFileName}.break`)
  if (!tryCreate(breaker, self)) {
    try {
      if (Date.now() - statSync(breaker).mtimeMs < breakerStaleMs) return
      renameSync(breaker, `${breaker}.${self.token}`) // one of the processes that found it old removes it
      rmSync(`${breaker}.${self.token}`, { force: true })
    } catch {
      // another process removed it first
    }
    return
  }
  try {
    if (readOrUndefined(join(dataDir, lockFileName)) === stale) rmSync(join(dataDir, lockFileName), { force: true })
  } finally {
    rmSync(breaker, { force: true })
  }
}

/**
 * Takes the lock on `dataDir` for this process. Returns `undefined` when it now holds it (or already did), else the
 * live holder's record; throws {@link LockBusy} when another process is breaking the same stale lock, and the file
 * system's error when the folder cannot be written.
 *
 * @category constructors
 * @since 0.1.0
 */
export const tryAcquire = (dataDir: string): LockRecord | undefined => {
  const path = join(dataDir, lockFileName)
  for (let attempt = 0; attempt < 5; attempt++) {
    if (tryCreate(path, self)) return undefined
    const text = readOrUndefined(path)
    if (text === undefined) continue // released meanwhile
    let record: LockRecord | undefined
    try {
      record = JSON.parse(text) as LockRecord
    } catch {
      record = undefined // half-written by a process that died: stale
    }
    if (record !== undefined && typeof record.pid === "number" && isLive(record)) {
      return isSelf(record) ? undefined : record
    }
    breakStale(dataDir, text)
  }
  const current = liveHolder(dataDir)
  if (current === undefined) throw new LockBusy(path)
  return isSelf(current) ? undefined : current
}

/**
 * Adds fields (a URL, a socket) to the lock this process holds on `dataDir`; does nothing otherwise.
 *
 * @category constructors
 * @since 0.1.0
 */
export const advertise = (dataDir: string, fields: Pick<LockRecord, "url" | "socket">): void => {
  const path = join(dataDir, lockFileName)
  const current = read(dataDir)
  if (current === undefined || !isSelf(current)) return
  // Written whole, then renamed over the lock: a reader never sees it half-written.
  const temporary = `${path}.${self.token}`
  writeFileSync(temporary, JSON.stringify({ ...current, ...fields }), { mode: 0o600 })
  renameSync(temporary, path)
}

/**
 * Removes the lock on `dataDir` if this process holds it.
 *
 * @category constructors
 * @since 0.1.0
 */
export const release = (dataDir: string): void => {
  const current = read(dataDir)
  if (current !== undefined && isSelf(current)) rmSync(join(dataDir, lockFileName), { force: true })
}
