/**
 * The attention tracker: a pure, synchronous state machine over targets (channels, `DM:<peer>` keys). It has no
 * clock and does no I/O: every method takes `now` in seconds, so callers drive it from Effect's `Clock` (and tests
 * from `TestClock`).
 *
 * @since 0.1.0
 */
import * as Option from "effect/Option"
import type * as AttentionConfig from "./AttentionConfig.ts"
import * as Band from "./Band.ts"
import { RadixSorter } from "./internal/radix.ts"
import { TimeQueue } from "./internal/timeQueue.ts"

/**
 * Why a band changed: `direct` (a mention or DM), `ambient` (traffic in an engaged channel), `decay` (a hold ran
 * out) or `manual` (an explicit {@link Tracker.set}). These strings go into logs and metrics unchanged.
 *
 * @category models
 * @since 0.1.0
 */
export type TransitionCause = "direct" | "ambient" | "decay" | "manual"

/**
 * A real band change of one target. Refreshes that keep the band emit nothing.
 *
 * @category models
 * @since 0.1.0
 */
export interface Transition {
  readonly target: string
  readonly from: Band.Band
  readonly to: Band.Band
  readonly cause: TransitionCause
}

/**
 * A copy of one target's state. Decay is lazy: `band` can be stale until {@link Tracker.dueTargets} runs.
 *
 * - `lastPromoteAt`: when the current hold started (a stimulus, a manual set, a TTL expiry, or the previous
 *   decay step plus its hold);
 * - `lastStimulusAt`: the last direct, ambient or manual event;
 * - `lastPollAt`: `None` until the first {@link Tracker.markPolled} (so a real `now = 0` is never mistaken for
 *   "never polled");
 * - `manualUntil`: the end of a manual hold set with a TTL (`Some(Infinity)` holds until a direct stimulus);
 * - `pinned`: the band is fixed by the config's `pinned` table.
 *
 * @category models
 * @since 0.1.0
 */
export interface TargetState {
  readonly band: Band.Band
  readonly lastPromoteAt: number
  readonly lastStimulusAt: number
  readonly lastPollAt: Option.Option<number>
  readonly manualUntil: Option.Option<number>
  readonly pinned: boolean
}

/**
 * Options for {@link Tracker.set} (in-process, so camelCase; the agent's `set_attention` keeps `ttl_s` on the wire).
 * `ttlS` holds the chosen band for that many seconds (no decay, no ambient change) before normal decay resumes from
 * it, with the hold timer restarting at the moment of expiry. `Infinity` holds until the next direct stimulus.
 * Without a positive `ttlS` the band decays normally from `now`. The old `ttl_s` is still accepted (`ttlS` wins when
 * both are set).
 *
 * @category models
 * @since 0.1.0
 */
export interface SetOptions {
  readonly ttlS?: number | undefined
  /**
   * The old name of `ttlS`, still accepted.
   *
   * @deprecated Use `ttlS`.
   */
  readonly ttl_s?: number | undefined
}

/**
 * Options for {@link make}. `onTransition` is called once per real band change, in order, after the state update
 * it reports is complete. If it throws, the remaining transitions of the same call are still delivered and the
 * first error is rethrown afterwards; the tracker's state stays consistent.
 *
 * @category models
 * @since 0.1.0
 */
export interface TrackerOptions {
  readonly onTransition?: ((transition: Transition) => void) | undefined
}

/**
 * The tracker's interface. Every method is synchronous; methods that take `now` ignore a non-finite `now` (no
 * state change, no target created).
 *
 * @category models
 * @since 0.1.0
 */
export interface Tracker {
  /** The effective config the tracker was built with. */
  readonly config: AttentionConfig.AttentionConfig
  /** The number of tracked targets. */
  readonly size: number
  /**
   * A direct stimulus (mention, DM): creates the target if needed, moves it to `HOT`, restarts its hold and ends any
   * manual hold (a direct stimulus always wins). Returns the new band. A pinned target keeps its pinned band.
   */
  readonly onDirect: (target: string, now: number) => Band.Band
  /**
   * An ambient stimulus (traffic in an engaged channel): one band warmer, capped at `WARM` (`HOT` stays `HOT`), and
   * always restarts the hold, even without a band change. During a manual hold the band does not change.
   */
  readonly onAmbient: (target: string, now: number) => Band.Band
  /**
   * Sets the band explicitly (cause `manual`), restarting the hold; see {@link SetOptions} for `ttlS`. A pinned
   * target keeps its pinned band. Returns the resulting band.
   */
  readonly set: (target: string, band: Band.Band, now: number, options?: SetOptions) => Band.Band
  /**
   * Applies lazy decay, then returns the targets due for a poll, in insertion order: never-polled targets, and
   * targets whose last poll is at least their band's `interval_s` ago. A target stays due until
   * {@link Tracker.markPolled}. A clock that moved backwards changes nothing. Cost: O(due · log due + decaying),
   * independent of the number of targets.
   */
  readonly dueTargets: (now: number) => ReadonlyArray<string>
  /** Records a poll at `now` (creating the target if needed). The band does not change. */
  readonly markPolled: (target: string, now: number) => void
  /** Ensures the target exists (at `IDLE`, or its pinned band) without touching an existing one. Returns its band. */
  readonly seed: (target: string) => Band.Band
  /** Drops a target (e.g. on part). Returns whether it existed. */
  readonly forget: (target: string) => boolean
  /** The state of one target, if tracked. */
  readonly get: (target: string) => Option.Option<TargetState>
  /** Copies of every target's state, in insertion order. */
  readonly snapshot: () => ReadonlyMap<string, TargetState>
}

const IDLE = 3

// Per-target state lives in one Float64Array, STRIDE numbers per target, so a target's fields share a cache line or
// two (a tick touches a few thousand random targets out of possibly millions).
// Field order keeps each path's fields adjacent: polling reads 0-3, decay reads 2 and 4-6.
const STRIDE = 8
const DUE_KEY = 0 // key of the live due-queue entry, NaN = none (always NaN while pending)
const POLL = 1 // lastPollAt, NaN = never polled
const FLAGS = 2 // band (bits 0-1) | (pinned band + 1, 0 = not pinned) << 2 | pending << 5
const SEQ = 3 // creation order, for insertion-ordered results
const DECAY_KEY = 4 // key of the live decay-queue entry, NaN = none
const PROMOTE = 5 // lastPromoteAt
const MANUAL = 6 // manual hold end, NaN = none
const STIMULUS = 7 // lastStimulusAt
const PENDING = 32

/** Slack for draining queue keys: the exact comparison is made afterwards, so this only has to cover rounding. */
const limitFor = (now: number): number => now + 1e-9 + Math.abs(now) * 1e-12

class TrackerImpl implements Tracker {
  readonly config: AttentionConfig.AttentionConfig
  private readonly onTransitionCallback: ((transition: Transition) => void) | undefined
  private readonly interval: Float64Array
  private readonly hold: Float64Array
  private readonly pins: ReadonlyMap<string, number>

  private readonly index = new Map<string, number>()
  private names: Array<string | undefined> = []
  private free: Array<number> = []
  private capacity = 0
  private nextSeq = 0
  private d = new Float64Array(0)
  private pendingPos = new Int32Array(0)

  private readonly decayQueue: TimeQueue
  private readonly dueQueue: TimeQueue
  private pendingList: Array<number> = []
  /** The ids of the last `dueTargets` result and how far `markPolled` has walked them (skips the name lookup). */
  private lastDue: Array<number> = []
  private lastDueCursor = 0
  /** Reused sort buffers for `inInsertionOrder` (fresh ones per tick would be off-heap allocations). */
  private readonly sorter = new RadixSorter()
  /** Queue entries and pending targets looked at by the last `dueTargets` call (read by tests through internal/). */
  examined = 0
  private emitted: Array<Transition> = []
  private emittedSeq: Array<number> = []

  constructor(config: AttentionConfig.AttentionConfig, options: TrackerOptions) {
    this.config = config
    this.onTransitionCallback = options.onTransition
    const { cool, hot, idle, warm } = config.bands
    this.interval = Float64Array.of(hot.interval_s, warm.interval_s, cool.interval_s, idle.interval_s)
    this.hold = Float64Array.of(hot.hold_s ?? 0, warm.hold_s ?? 0, cool.hold_s ?? 0, Infinity)
    const pins = new Map<string, number>()
    for (const [target, band] of Object.entries(config.pinned ?? {}))
      if (Band.is(band)) pins.set(target, Band.rank(band))
    this.pins = pins
    this.decayQueue = new TimeQueue(config.tick_s)
    this.dueQueue = new TimeQueue(config.tick_s)
  }

  get size(): number {
    return this.index.size
  }

  // ---------------------------------------------------------------------------------------------- storage

  private grow(): void {
    const capacity = Math.max(16, this.capacity * 2)
    const d = new Float64Array(capacity * STRIDE)
    d.set(this.d)
    this.d = d
    const pendingPos = new Int32Array(capacity)
    pendingPos.set(this.pendingPos)
    this.pendingPos = pendingPos
    this.capacity = capacity
  }

  private bandOf(id: number): number {
    return this.d[id * STRIDE + FLAGS]! & 3
  }

  private setBand(id: number, band: number): void {
    const o = id * STRIDE + FLAGS
    this.d[o] = (this.d[o]! & ~3) | band
  }

  /** The pinned band's rank, or -1. */
  private pinOf(id: number): number {
    return ((this.d[id * STRIDE + FLAGS]! >> 2) & 7) - 1
  }

  private idOf(target: string): number {
    const existing = this.index.get(target)
    if (existing !== undefined) return existing
    let id = this.free.pop()
    if (id === undefined) {
      id = this.names.length
      if (id >= this.capacity) this.grow()
      this.names.push(target)
    } else {
      this.names[id] = target
    }
    const pinned = this.pins.get(target)
    const d = this.d
    const o = id * STRIDE
    d[o + FLAGS] = pinned === undefined ? IDLE : pinned | ((pinned + 1) << 2)
    d[o + SEQ] = this.nextSeq++
    d[o + PROMOTE] = 0
    d[o + STIMULUS] = 0
    d[o + POLL] = Number.NaN
    d[o + MANUAL] = Number.NaN
    d[o + DECAY_KEY] = Number.NaN
    d[o + DUE_KEY] = Number.NaN
    this.index.set(target, id)
    this.scheduleDue(id)
    return id
  }

  // ---------------------------------------------------------------------------------------------- scheduling

  private decayDeadline(id: number): number {
    const d = this.d
    const o = id * STRIDE
    const flags = d[o + FLAGS]!
    if ((flags & 28) !== 0) return Infinity
    // A manual hold's end is an event of its own, even on IDLE: the first dueTargets at or after it ends the hold,
    // so it stays over for every later call (also one whose clock went back before the end).
    const manual = d[o + MANUAL]!
    if (!Number.isNaN(manual)) return manual
    const band = flags & 3
    return band === IDLE ? Infinity : d[o + PROMOTE]! + this.hold[band]!
  }

  private scheduleDecay(id: number): void {
    const deadline = this.decayDeadline(id)
    if (deadline === Infinity) return
    const o = id * STRIDE + DECAY_KEY
    const live = this.d[o]!
    // A live entry at or before the deadline fires early, is re-checked and re-queued, so later deadlines need no push.
    if (Number.isNaN(live) || deadline < live) {
      this.decayQueue.push(deadline, id)
      this.d[o] = deadline
    }
  }

  private isDue(id: number, now: number): boolean {
    const o = id * STRIDE
    const polled = this.d[o + POLL]!
    if (Number.isNaN(polled)) return true
    const elapsed = now - polled
    return elapsed >= 0 && elapsed >= this.interval[this.d[o + FLAGS]! & 3]!
  }

  private scheduleDue(id: number): void {
    const d = this.d
    const o = id * STRIDE
    const flags = d[o + FLAGS]!
    if ((flags & PENDING) !== 0) return
    const polled = d[o + POLL]!
    const deadline = Number.isNaN(polled) ? -Infinity : polled + this.interval[flags & 3]!
    const live = d[o + DUE_KEY]!
    if (Number.isNaN(live) || deadline < live) {
      this.dueQueue.push(deadline, id)
      d[o + DUE_KEY] = deadline
    }
  }

  private addPending(id: number): void {
    const o = id * STRIDE + FLAGS
    this.d[o] = this.d[o]! | PENDING
    this.pendingPos[id] = this.pendingList.length
    this.pendingList.push(id)
  }

  private removePending(id: number): void {
    const o = id * STRIDE + FLAGS
    const flags = this.d[o]!
    if ((flags & PENDING) === 0) return
    this.d[o] = flags & ~PENDING
    const list = this.pendingList
    const last = list.pop()!
    if (last !== id) {
      const position = this.pendingPos[id]!
      list[position] = last
      this.pendingPos[last] = position
    }
  }

  // ---------------------------------------------------------------------------------------------- transitions

  private emit(id: number, from: number, to: number, cause: TransitionCause): void {
    if (this.onTransitionCallback === undefined) return
    this.emitted.push({ target: this.names[id]!, from: Band.fromRank(from), to: Band.fromRank(to), cause })
    this.emittedSeq.push(this.d[id * STRIDE + SEQ]!)
  }

  private flush(sortBySeq: boolean): void {
    const callback = this.onTransitionCallback
    if (callback === undefined || this.emitted.length === 0) return
    let transitions = this.emitted
    if (sortBySeq && transitions.length > 1) {
      const seqs = this.emittedSeq
      const order = transitions.map((_, i) => i)
      order.sort((a, b) => seqs[a]! - seqs[b]! || a - b)
      transitions = order.map((i) => this.emitted[i]!)
    }
    this.emitted = []
    this.emittedSeq = []
    let failure: { readonly error: unknown } | undefined
    for (const transition of transitions) {
      try {
        callback(transition)
      } catch (error) {
        failure ??= { error }
      }
    }
    if (failure !== undefined) throw failure.error
  }

  // ---------------------------------------------------------------------------------------------- stimuli

  /** Ends a manual hold whose TTL has passed (the hold timer restarts at the expiry); true while still held. */
  private expireManual(id: number, now: number): boolean {
    const o = id * STRIDE
    const until = this.d[o + MANUAL]!
    if (Number.isNaN(until)) return false
    if (now < until) return true
    this.d[o + MANUAL] = Number.NaN
    this.d[o + PROMOTE] = until
    return false
  }

  private promote(id: number, to: number, now: number, cause: TransitionCause): number {
    const from = this.bandOf(id)
    this.setBand(id, to)
    const o = id * STRIDE
    this.d[o + PROMOTE] = now
    this.d[o + STIMULUS] = now
    if (from !== to) {
      this.emit(id, from, to, cause)
      this.scheduleDue(id)
    }
    this.scheduleDecay(id)
    return to
  }

  onDirect = (target: string, now: number): Band.Band => {
    if (!Number.isFinite(now)) return this.currentBand(target)
    const id = this.idOf(target)
    this.d[id * STRIDE + MANUAL] = Number.NaN
    const pinned = this.pinOf(id)
    const band = this.promote(id, Math.max(0, pinned), now, "direct")
    this.flush(false)
    return Band.fromRank(band)
  }

  onAmbient = (target: string, now: number): Band.Band => {
    if (!Number.isFinite(now)) return this.currentBand(target)
    const id = this.idOf(target)
    const from = this.bandOf(id)
    const held = this.pinOf(id) >= 0 || this.expireManual(id, now)
    const band = this.promote(id, held || from <= 1 ? from : from - 1, now, "ambient")
    this.flush(false)
    return Band.fromRank(band)
  }

  set = (target: string, band: Band.Band, now: number, options: SetOptions = {}): Band.Band => {
    if (!Number.isFinite(now) || !Band.is(band)) return this.currentBand(target)
    const id = this.idOf(target)
    const pinned = this.pinOf(id)
    if (pinned >= 0) return Band.fromRank(pinned)
    const ttl = options.ttlS ?? options.ttl_s
    this.d[id * STRIDE + MANUAL] =
      ttl === Infinity ? Infinity : ttl !== undefined && Number.isFinite(ttl) && ttl > 0 ? now + ttl : Number.NaN
    const result = this.promote(id, Band.rank(band), now, "manual")
    this.flush(false)
    return Band.fromRank(result)
  }

  // ---------------------------------------------------------------------------------------------- polling

  private applyDecay(id: number, now: number): void {
    if (this.pinOf(id) >= 0) return
    if (this.expireManual(id, now)) return
    const d = this.d
    const o = id * STRIDE
    let band = d[o + FLAGS]! & 3
    const start = band
    while (band !== IDLE) {
      const elapsed = now - d[o + PROMOTE]!
      const hold = this.hold[band]!
      if (elapsed < 0 || elapsed <= hold) break
      d[o + PROMOTE] = d[o + PROMOTE]! + hold
      this.emit(id, band, band + 1, "decay")
      band++
    }
    if (band !== start) {
      this.setBand(id, band)
      this.scheduleDue(id)
    }
  }

  /** Drains queue entries up to `limit`; ids whose exact check failed by rounding are re-queued afterwards. */
  private readonly retry: Array<number> = []

  private processDecay(now: number, limit: number): void {
    const retry = this.retry
    this.decayQueue.drain(limit, (key, id) => {
      this.examined++
      const o = id * STRIDE + DECAY_KEY
      if (key !== this.d[o]) return
      this.d[o] = Number.NaN
      this.applyDecay(id, now)
      const deadline = this.decayDeadline(id)
      if (deadline === Infinity) return
      if (deadline <= limit) retry.push(id)
      else {
        this.decayQueue.push(deadline, id)
        this.d[o] = deadline
      }
    })
    for (const id of retry) this.scheduleDecay(id)
    retry.length = 0
  }

  dueTargets = (now: number): ReadonlyArray<string> => {
    if (!Number.isFinite(now)) return []
    const limit = limitFor(now)
    this.examined = this.pendingList.length
    this.processDecay(now, limit)
    const due: Array<number> = []
    const pendingList = this.pendingList
    // Targets returned earlier and not polled yet stay due unless a decay lengthened their interval.
    for (let i = pendingList.length - 1; i >= 0; i--) {
      const id = pendingList[i]!
      if (this.isDue(id, now)) due.push(id)
      else {
        this.removePending(id)
        this.scheduleDue(id)
      }
    }
    const retry = this.retry
    this.dueQueue.drain(limit, (key, id) => {
      this.examined++
      const o = id * STRIDE + DUE_KEY
      if (key !== this.d[o]) return
      this.d[o] = Number.NaN
      if (this.isDue(id, now)) {
        this.addPending(id)
        due.push(id)
      } else {
        retry.push(id)
      }
    })
    for (const id of retry) this.scheduleDue(id)
    retry.length = 0
    const result = this.inInsertionOrder(due)
    this.flush(true)
    return result
  }

  /** Names of `ids` sorted by creation order (a radix sort on `seq` while it fits in 32 bits). */
  private inInsertionOrder(ids: Array<number>): Array<string> {
    const names = this.names
    const d = this.d
    const count = ids.length
    if (count > 1) {
      if (this.nextSeq <= 0xffffffff) {
        const { keys, values } = this.sorter.prepare(count)
        for (let i = 0; i < count; i++) {
          const id = ids[i]!
          keys[i] = d[id * STRIDE + SEQ]!
          values[i] = id
        }
        const sorted = this.sorter.sort(count, this.nextSeq)
        for (let i = 0; i < count; i++) ids[i] = sorted[i]!
      } else {
        ids.sort((a, b) => d[a * STRIDE + SEQ]! - d[b * STRIDE + SEQ]!)
      }
    }
    const result = new Array<string>(count)
    for (let i = 0; i < count; i++) result[i] = names[ids[i]!]!
    this.lastDue = ids
    this.lastDueCursor = 0
    return result
  }

  markPolled = (target: string, now: number): void => {
    if (!Number.isFinite(now)) return
    // Callers usually poll the due list in order: try the next due id before hashing the name.
    const hinted = this.lastDue[this.lastDueCursor]
    let id: number
    if (hinted !== undefined && this.names[hinted] === target) {
      id = hinted
      this.lastDueCursor++
    } else {
      id = this.idOf(target)
    }
    this.d[id * STRIDE + POLL] = now
    this.removePending(id)
    this.scheduleDue(id)
  }

  // ---------------------------------------------------------------------------------------------- membership

  seed = (target: string): Band.Band => Band.fromRank(this.bandOf(this.idOf(target)))

  forget = (target: string): boolean => {
    const id = this.index.get(target)
    if (id === undefined) return false
    this.index.delete(target)
    this.names[id] = undefined
    this.removePending(id)
    this.d[id * STRIDE + DECAY_KEY] = Number.NaN
    this.d[id * STRIDE + DUE_KEY] = Number.NaN
    this.free.push(id)
    return true
  }

  // ---------------------------------------------------------------------------------------------- inspection

  private currentBand(target: string): Band.Band {
    const id = this.index.get(target)
    return id === undefined ? "IDLE" : Band.fromRank(this.bandOf(id))
  }

  private stateOf(id: number): TargetState {
    const o = id * STRIDE
    const polled = this.d[o + POLL]!
    const manual = this.d[o + MANUAL]!
    return {
      band: Band.fromRank(this.bandOf(id)),
      lastPromoteAt: this.d[o + PROMOTE]!,
      lastStimulusAt: this.d[o + STIMULUS]!,
      lastPollAt: Number.isNaN(polled) ? Option.none() : Option.some(polled),
      manualUntil: Number.isNaN(manual) ? Option.none() : Option.some(manual),
      pinned: this.pinOf(id) >= 0
    }
  }

  get = (target: string): Option.Option<TargetState> => {
    const id = this.index.get(target)
    return id === undefined ? Option.none() : Option.some(this.stateOf(id))
  }

  snapshot = (): ReadonlyMap<string, TargetState> => {
    const ids = [...this.index.values()].sort((a, b) => this.d[a * STRIDE + SEQ]! - this.d[b * STRIDE + SEQ]!)
    return new Map(ids.map((id) => [this.names[id]!, this.stateOf(id)]))
  }
}

/**
 * Builds a tracker for an effective config (see `AttentionConfig.decode`). Targets are created lazily by any
 * method, at `IDLE` (or their `pinned` band).
 *
 * **Behaviour** (upstream culture, exactly): direct moves to `HOT`; ambient moves one band warmer capped at
 * `WARM` and always restarts the hold; decay happens only once the hold has *strictly* passed and steps
 * `lastPromoteAt += hold`, so one late `dueTargets` walks several bands with one transition each; never-polled
 * targets are always due; a backwards clock does nothing; `seed` is idempotent; transitions fire only on real
 * changes.
 *
 * **Additions**: manual holds with a TTL (`set(target, band, now, { ttlS })`), pinned bands that never change,
 * `forget`, and a time-ordered index (a calendar queue of poll and decay deadlines with lazy invalidation) so
 * `dueTargets` costs O(due · log due + decaying) instead of a scan of every target.
 *
 * **Example** (Decay after a mention)
 *
 * ```ts
 * import { AttentionConfig, Tracker } from "@heed/attention-bands"
 *
 * const tracker = Tracker.make(AttentionConfig.defaults, { onTransition: (t) => console.log(t) })
 * tracker.onDirect("#dev", 0) // "HOT"   logs { target: "#dev", from: "IDLE", to: "HOT", cause: "direct" }
 * tracker.dueTargets(0) // ["#dev"]  (never polled)
 * tracker.markPolled("#dev", 0)
 * tracker.dueTargets(121) // ["#dev"]  decays HOT→WARM first; 121 s >= WARM's 120 s interval
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (config: AttentionConfig.AttentionConfig, options: TrackerOptions = {}): Tracker =>
  new TrackerImpl(config, options)
