/**
 * How the MCP layers find the `Awareness` service for the request at hand. A single-owner server resolves to one
 * service; the awareness app resolves the owner from the request's bearer token and keeps one service per owner.
 *
 * @since 0.1.0
 */
import { Awareness } from "@heed/collator"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Stream from "effect/Stream"
import type * as ToolError from "./ToolError.ts"

/**
 * The awareness service the MCP layers call: @heed/collator's typed `Awareness` service.
 *
 * @category models
 * @since 0.1.0
 */
export type AwarenessApi = Awareness.AwarenessShape

/**
 * The resolver service.
 *
 * @category services
 * @since 0.1.0
 */
export class AwarenessResolver extends Context.Service<
  AwarenessResolver,
  {
    /** The awareness service for the current request (called inside each tool, resource and prompt handler). */
    readonly current: Effect.Effect<AwarenessApi, ToolError.ErrorBody>
    /** The services whose briefings are watched for time-driven changes (staleness, expiry, due intentions). */
    readonly watched: Effect.Effect<ReadonlyArray<AwarenessApi>>
    /** Signals that some briefing may have changed outside this process (e.g. a database change feed); optional. */
    readonly changes?: Stream.Stream<void> | undefined
    /**
     * The audience of a service's briefing notifications (e.g. an opaque id of its owner); optional. When given, a
     * briefing change is announced once per audience, with the audience in the notification's
     * `_meta[BriefingNotifier.audienceKey]`, and the transport must deliver it only to that audience's sessions
     * and remove the key (the awareness app's HTTP guard does both). Without it every subscriber is told.
     */
    readonly audienceOf?: ((awareness: AwarenessApi) => string | undefined) | undefined
  }
>()("@heed/mcp/AwarenessResolver") {}

/**
 * A resolver from its parts, at module level (the tag's own `of`, for callers that build their own layer).
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (resolver: AwarenessResolver["Service"]): AwarenessResolver["Service"] =>
  AwarenessResolver.of(resolver)

/**
 * Resolves every request to one awareness service.
 *
 * @category layers
 * @since 0.1.0
 */
export const single = (awareness: AwarenessApi, changes?: Stream.Stream<void>): Layer.Layer<AwarenessResolver> =>
  Layer.succeed(
    AwarenessResolver,
    make({ current: Effect.succeed(awareness), watched: Effect.succeed([awareness]), changes })
  )

/**
 * Resolves every request to the `Awareness` service in context (one owner).
 *
 * @category layers
 * @since 0.1.0
 */
export const layer: Layer.Layer<AwarenessResolver, never, Awareness.Awareness> = Layer.unwrap(
  Effect.map(Awareness.Awareness, (awareness) => single(awareness))
)
