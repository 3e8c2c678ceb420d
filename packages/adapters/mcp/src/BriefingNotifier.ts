/**
 * Briefing change notifications. After a write (coalesced over a short window), on the resolver's change feed, and
 * on a periodic tick for time-driven changes (a source going stale, a suppression expiring, an intention coming
 * due), the notifier re-reads the briefing of the affected owners and, when its content changed, sends
 * `notifications/resources/updated` for `awareness://briefing` to the subscribed clients (over stdio and in memory
 * on every protocol version; over HTTP through the 2026-07-28 `subscriptions/listen`).
 *
 * The notifier looks with `Awareness.peekBriefing`, which delivers nothing: an intention coming due appears in the
 * peeked briefing (so subscribers are told), and stays pending until a client's own read delivers it, marked
 * `new: true` in that read only.
 *
 * Content means the briefing without `generated`, `staleness_sec`, `suggested_mention`, the age-bearing headline
 * of stale sources, the `in_minutes` of upcoming items and the `new` marks of fired intentions, so a briefing that
 * only ages, or whose intention was just delivered, does not notify again.
 *
 * With several owners on one server, the resolver's `audienceOf` scopes the notifications: a change is announced
 * once per audience whose briefing changed, tagged with `_meta[audienceKey]`, and the transport delivers each to its
 * audience's sessions only (removing the tag). Without `audienceOf` every subscriber is told of every change.
 *
 * @since 0.1.0
 */

import { McpServer } from "effect/ai/McpServer"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Predicate from "effect/Predicate"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import type { AwarenessApi } from "./AwarenessResolver.ts"
import { AwarenessResolver } from "./AwarenessResolver.ts"

/**
 * The URI of the briefing resource.
 *
 * @category constants
 * @since 0.1.0
 */
export const briefingUri = "awareness://briefing"

/**
 * The `_meta` key naming a notification's audience (see `AwarenessResolver.audienceOf`).
 *
 * @category constants
 * @since 0.1.0
 */
export const audienceKey = "heed.dev/audience"

/**
 * Tells the notifier that an awareness service was written to.
 *
 * @category services
 * @since 0.1.0
 */
export class BriefingChanged extends Context.Service<
  BriefingChanged,
  {
    readonly signal: (awareness: AwarenessApi) => Effect.Effect<void>
  }
>()("@heed/mcp/BriefingChanged") {}

/**
 * Options of the notifier.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /** Coalescing window for bursts of writes (default 200 ms; 0 disables it). */
  readonly debounce?: Duration.Input | undefined
  /** How often to look for time-driven changes (default 5 seconds; 0 disables the tick). */
  readonly pollInterval?: Duration.Input | undefined
}

/**
 * The content of a briefing that matters for change detection.
 *
 * @category getters
 * @since 0.1.0
 */
export const fingerprint = (briefing: unknown): string => {
  if (!Predicate.isObject(briefing)) return JSON.stringify(briefing ?? null)
  const {
    generated: _generated,
    staleness_sec: _staleness,
    suggested_mention: _mention,
    ...rest
  } = briefing as Record<string, unknown>
  const sources = rest.sources
  if (Predicate.isObject(sources) && !Array.isArray(sources)) {
    // No prototype: a source named `__proto__` is an ordinary key here, so its changes still notify.
    const normalised = Object.create(null) as Record<string, unknown>
    for (const [name, line] of Object.entries(sources)) {
      if (Predicate.isObject(line) && (line as Record<string, unknown>).status === "stale") {
        const { headline: _headline, ...kept } = line as Record<string, unknown>
        normalised[name] = kept
      } else {
        normalised[name] = line
      }
    }
    rest.sources = normalised
  }
  if (Array.isArray(rest.upcoming)) {
    rest.upcoming = rest.upcoming.map((item: unknown) => {
      if (!Predicate.isObject(item)) return item
      const { in_minutes: _minutes, ...kept } = item as Record<string, unknown>
      return kept
    })
  }
  if (Array.isArray(rest.fired_intentions)) {
    rest.fired_intentions = (rest.fired_intentions as ReadonlyArray<unknown>).map((item) => {
      if (!Predicate.isObject(item)) return item
      const { new: _new, ...kept } = item as Record<string, unknown>
      return kept
    })
  }
  return JSON.stringify(rest)
}

/**
 * The notifier layer.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options: Options = {}): Layer.Layer<BriefingChanged, never, McpServer | AwarenessResolver> =>
  Layer.effect(
    BriefingChanged,
    Effect.gen(function* () {
      const server = yield* McpServer
      const resolver = yield* AwarenessResolver
      const wake = yield* Queue.sliding<void>(1)
      // Services written to (a first sighting counts as a change) and services due a time check (a first sighting
      // only records the baseline).
      const dirty = new Set<AwarenessApi>()
      const due = new Set<AwarenessApi>()
      const seen = new WeakMap<AwarenessApi, string>()
      const debounce = Duration.fromInputUnsafe(options.debounce ?? Duration.millis(200))
      const pollInterval = Duration.fromInputUnsafe(options.pollInterval ?? Duration.seconds(5))

      // A change-feed event means a write happened (maybe through another replica): an owner seen for the first
      // time then counts as changed, since its first briefing here may already include that write (one spurious
      // notification at worst). A clock tick only records first sightings as baselines.
      const markAll = (written: boolean) =>
        Effect.flatMap(resolver.watched, (all) =>
          Effect.sync(() => {
            for (const awareness of all) (written ? dirty : due).add(awareness)
          }).pipe(Effect.andThen(Queue.offer(wake, undefined)))
        )

      const check = Effect.gen(function* () {
        const written = new Set(dirty)
        const batch = new Set([...dirty, ...due])
        dirty.clear()
        due.clear()
        // The audiences whose briefing changed (`undefined`: everyone, when the resolver names no audiences).
        const changed = new Set<string | undefined>()
        for (const awareness of batch) {
          const briefing = yield* awareness.peekBriefing.pipe(Effect.option)
          if (briefing._tag === "None") continue
          const print = fingerprint(briefing.value)
          const previous = seen.get(awareness)
          if (previous === undefined ? written.has(awareness) : previous !== print) {
            changed.add(resolver.audienceOf?.(awareness))
          }
          seen.set(awareness, print)
        }
        for (const audience of changed) {
          yield* server.notifications["notifications/resources/updated"](
            audience === undefined ? { uri: briefingUri } : { uri: briefingUri, _meta: { [audienceKey]: audience } }
          )
        }
      })

      yield* Queue.take(wake).pipe(
        Effect.andThen(Duration.isZero(debounce) ? Effect.void : Effect.sleep(debounce)),
        Effect.andThen(check),
        Effect.catchCause((cause) => Effect.logWarning("heed/mcp: briefing notification failed", cause)),
        Effect.forever,
        Effect.forkScoped
      )
      // Record the starting briefings, so that the first real change is the first notification.
      yield* markAll(false).pipe(Effect.forkScoped)
      if (!Duration.isZero(pollInterval)) {
        yield* markAll(false).pipe(Effect.repeat(Schedule.spaced(pollInterval)), Effect.forkScoped)
      }
      if (resolver.changes !== undefined) {
        yield* resolver.changes.pipe(
          Stream.runForEach(() => markAll(true)),
          Effect.catchCause((cause) => Effect.logWarning("heed/mcp: change feed failed", cause)),
          Effect.forkScoped
        )
      }
      return BriefingChanged.of({
        signal: (awareness) =>
          Effect.sync(() => dirty.add(awareness)).pipe(Effect.andThen(Queue.offer(wake, undefined)), Effect.asVoid)
      })
    })
  )
