/**
 * Binds an {@link IrcTransport}'s events to `@heed/attention-bands` with the daemon's rules: a mention or DM is a
 * direct stimulus (HOT, and it opens the thread window), even while the scheduler is paused; channel traffic
 * counts as ambient only inside the thread window; every line we send (thread replies included) opens the window;
 * a joined channel is seeded (polled even while quiet) and a parted one forgotten.
 *
 * @since 0.1.0
 */
import { Scheduler, type Tracker } from "@heed/attention-bands"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { IrcEvent } from "./IrcEvent.ts"
import { IrcTransport, type IrcTransportShape } from "./IrcTransport.ts"

/**
 * The attention side of an event: applies it to the scheduler (see the module description). Exposed for callers
 * that route events themselves.
 *
 * @category combinators
 * @since 0.1.0
 */
export const apply = (scheduler: Scheduler.SchedulerShape, event: IrcEvent): Effect.Effect<void> => {
  switch (event._tag) {
    case "Mention":
      return Effect.asVoid(scheduler.direct(event.target))
    case "Ambient":
      return Effect.asVoid(scheduler.ambient(event.target))
    case "Outgoing":
      return scheduler.outgoing(event.target)
    case "Joined":
      return Effect.asVoid(scheduler.join(event.channel))
    case "Parted":
      return Effect.asVoid(scheduler.part(event.channel))
    default:
      return Effect.void
  }
}

/**
 * The wiring's interface: the scheduler it feeds, for introspection.
 *
 * @category models
 * @since 0.1.0
 */
export interface AttentionWiringShape {
  readonly scheduler: Scheduler.SchedulerShape
  /** One target's attention state. */
  readonly get: (target: string) => Effect.Effect<Option.Option<Tracker.TargetState>>
}

/**
 * Subscribes to the transport now and applies every event to the scheduler in a fiber of the current scope.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (
  transport: IrcTransportShape,
  scheduler: Scheduler.SchedulerShape
): Effect.Effect<AttentionWiringShape, never, Scope.Scope> =>
  Effect.gen(function* () {
    const events = yield* transport.subscribe
    yield* events.pipe(
      Stream.runForEach((event) => apply(scheduler, event)),
      Effect.forkScoped
    )
    return { scheduler, get: scheduler.get }
  })

/**
 * The wiring as a service: `AttentionWiring.layer` needs an {@link IrcTransport} and a `Scheduler`.
 *
 * **Example** (An agent whose attention follows IRC)
 *
 * ```ts
 * import { AttentionConfig, Scheduler } from "@heed/attention-bands"
 * import { AttentionWiring, IrcTransport } from "@heed/irc"
 * import { Effect, Layer } from "effect"
 *
 * const Live = AttentionWiring.layer.pipe(
 *   Layer.provideMerge(
 *     Scheduler.layer({
 *       config: AttentionConfig.defaults,
 *       agent: "spark-bot",
 *       targets: ["#dev"],
 *       poll: (target) => Effect.log(`poll ${target}`).pipe(Effect.as("empty" as const))
 *     })
 *   ),
 *   Layer.provideMerge(IrcTransport.layer({ host: "127.0.0.1", nick: "spark-bot", channels: ["#dev"] }))
 * )
 * ```
 *
 * @category services
 * @since 0.1.0
 */
export class AttentionWiring extends Context.Service<AttentionWiring, AttentionWiringShape>()(
  "@heed/irc/AttentionWiring"
) {}

/**
 * The wiring for the layer's lifetime.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer: Layer.Layer<AttentionWiring, never, IrcTransport | Scheduler.Scheduler> = Layer.effect(
  AttentionWiring,
  Effect.gen(function* () {
    return yield* make(yield* IrcTransport, yield* Scheduler.Scheduler)
  })
)
