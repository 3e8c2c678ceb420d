/**
 * A straightforward scan-based tracker mirroring upstream culture's AttentionTracker (plus heed's TTL and pinned
 * rules), used as an oracle for the indexed implementation.
 */
import type { AttentionConfig, Band, Tracker } from "../src/index.ts"

const names: ReadonlyArray<Band.Band> = ["HOT", "WARM", "COOL", "IDLE"]

interface State {
  band: number
  lastPromoteAt: number
  lastPollAt: number | undefined
  manualUntil: number | undefined
  pinned: number | undefined
}

export class ReferenceTracker {
  readonly states = new Map<string, State>()
  readonly transitions: Array<Tracker.Transition> = []
  private readonly interval: ReadonlyArray<number>
  private readonly hold: ReadonlyArray<number>

  private readonly config: AttentionConfig.AttentionConfig

  constructor(config: AttentionConfig.AttentionConfig) {
    this.config = config
    const { cool, hot, idle, warm } = config.bands
    this.interval = [hot.interval_s, warm.interval_s, cool.interval_s, idle.interval_s]
    this.hold = [hot.hold_s ?? 0, warm.hold_s ?? 0, cool.hold_s ?? 0, Infinity]
  }

  private state(target: string): State {
    let state = this.states.get(target)
    if (state === undefined) {
      const pin = this.config.pinned[target]
      const pinned = pin === undefined ? undefined : names.indexOf(pin)
      state = { band: pinned ?? 3, lastPromoteAt: 0, lastPollAt: undefined, manualUntil: undefined, pinned }
      this.states.set(target, state)
    }
    return state
  }

  private move(target: string, state: State, to: number, now: number, cause: Tracker.TransitionCause) {
    const from = state.band
    state.band = to
    state.lastPromoteAt = now
    if (from !== to) this.transitions.push({ target, from: names[from]!, to: names[to]!, cause })
  }

  private held(state: State, now: number): boolean {
    if (state.manualUntil === undefined) return false
    if (now < state.manualUntil) return true
    state.lastPromoteAt = state.manualUntil
    state.manualUntil = undefined
    return false
  }

  onDirect(target: string, now: number) {
    const state = this.state(target)
    state.manualUntil = undefined
    this.move(target, state, state.pinned ?? 0, now, "direct")
  }

  onAmbient(target: string, now: number) {
    const state = this.state(target)
    const fixed = state.pinned !== undefined || this.held(state, now)
    this.move(target, state, fixed || state.band <= 1 ? state.band : state.band - 1, now, "ambient")
  }

  set(target: string, band: Band.Band, now: number, ttl?: number) {
    const state = this.state(target)
    if (state.pinned !== undefined) return
    state.manualUntil = ttl === undefined ? undefined : now + ttl
    this.move(target, state, names.indexOf(band), now, "manual")
  }

  markPolled(target: string, now: number) {
    this.state(target).lastPollAt = now
  }

  seed(target: string) {
    this.state(target)
  }

  forget(target: string) {
    this.states.delete(target)
  }

  dueTargets(now: number): Array<string> {
    const due: Array<string> = []
    for (const [target, state] of this.states) {
      if (state.pinned === undefined && !this.held(state, now)) {
        while (state.band !== 3) {
          const elapsed = now - state.lastPromoteAt
          if (elapsed < 0 || elapsed <= this.hold[state.band]!) break
          state.lastPromoteAt += this.hold[state.band]!
          this.transitions.push({ target, from: names[state.band]!, to: names[state.band + 1]!, cause: "decay" })
          state.band++
        }
      }
      if (state.lastPollAt === undefined) due.push(target)
      else {
        const elapsed = now - state.lastPollAt
        if (elapsed >= 0 && elapsed >= this.interval[state.band]!) due.push(target)
      }
    }
    return due
  }
}
