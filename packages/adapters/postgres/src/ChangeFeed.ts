/**
 * The change feed: a signal each time entries of the store's owner change, from this process or any other writing to
 * the same database (used to push `resources/updated` to subscribers of every replica; briefing caches do not need
 * it, they compare the store's `version` on each read). On a PostgreSQL server it rides on LISTEN/NOTIFY (a
 * trigger on `entries` notifies at commit); on PGlite the same trigger and NOTIFY are delivered in-process.
 *
 * @since 0.1.0
 */
import type { StoreError } from "@heed/collator/Store"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"

/**
 * One change signal: the owner whose entries changed. Changes committed together may arrive as one signal.
 *
 * @category models
 * @since 0.1.0
 */
export interface Change {
  readonly owner_id: string
}

/**
 * The change-feed service. `subscribe` resolves once the subscription is active (a write committed after that is
 * always seen); the stream then yields a {@link Change} per committed change of this store's owner until the scope
 * closes.
 *
 * **Example** (Invalidating a cache on change)
 *
 * ```ts
 * import { ChangeFeed } from "@heed/postgres"
 * import { Effect, Stream } from "effect"
 *
 * const watch = Effect.gen(function*() {
 *   const feed = yield* ChangeFeed.ChangeFeed
 *   const changes = yield* feed.subscribe
 *   yield* Stream.runForEach(changes, () => Effect.log("entries changed; rebuild the briefing"))
 * }).pipe(Effect.scoped)
 * ```
 *
 * @category services
 * @since 0.1.0
 */
export class ChangeFeed extends Context.Service<
  ChangeFeed,
  {
    readonly subscribe: Effect.Effect<Stream.Stream<Change, StoreError>, StoreError, Scope.Scope>
  }
>()("@heed/postgres/ChangeFeed") {}
