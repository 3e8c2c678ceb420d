/**
 * Store changes made in this process, per owner: the backend is wrapped so that every successful write through any
 * transport (MCP, REST, a SLOP affordance) announces its owner. Changes made by other replicas arrive through the
 * backend's database change feed instead.
 *
 * @since 0.1.0
 */

import { AwarenessTools } from "@heed/collator"
import type { AwarenessResolver } from "@heed/mcp"
import * as Tool from "effect/ai/Tool"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Predicate from "effect/Predicate"
import * as PubSub from "effect/PubSub"
import * as Stream from "effect/Stream"
import { Backend } from "./Backend.ts"

/**
 * The owners whose stores changed, as they change.
 *
 * @category services
 * @since 0.1.0
 */
export class Changes extends Context.Service<
  Changes,
  {
    /** Owners whose store this process just wrote to (one element per write). */
    readonly local: Stream.Stream<string>
  }
>()("@heed/awareness/Changes") {}

/** The `Awareness` methods behind the write tools (each tool's camelCase name). */
const writeMethods = new Set(
  AwarenessTools.names
    .filter((name) => !Context.get(AwarenessTools.toolkit.tools[name].annotations, Tool.Readonly))
    .map((name) => name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase()))
)

const announcing = (
  api: AwarenessResolver.AwarenessApi,
  announce: Effect.Effect<void>
): AwarenessResolver.AwarenessApi =>
  new Proxy(api, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver)
      if (typeof property !== "string" || !writeMethods.has(property) || !Predicate.isFunction(value)) return value
      return (...args: Array<unknown>) => {
        const effect = value.apply(target, args) as unknown
        return Effect.isEffect(effect) ? Effect.tap(effect, () => announce) : effect
      }
    }
  })

/**
 * Wraps the `Backend` in context so that its writes are announced on {@link Changes}; provides both.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer: Layer.Layer<Changes | Backend, never, Backend> = Layer.effectContext(
  Effect.gen(function* () {
    const backend = yield* Backend
    const hub = yield* PubSub.unbounded<string>()
    const wrapped = new Map<AwarenessResolver.AwarenessApi, AwarenessResolver.AwarenessApi>()
    const inner = new WeakMap<AwarenessResolver.AwarenessApi, AwarenessResolver.AwarenessApi>()
    const forOwner = (owner: string) =>
      Effect.map(backend.forOwner(owner), (api) => {
        let out = wrapped.get(api)
        if (out === undefined) {
          out = announcing(api, PubSub.publish(hub, owner).pipe(Effect.asVoid))
          wrapped.set(api, out)
          inner.set(out, api)
        }
        return out
      })
    const audienceOf = (api: AwarenessResolver.AwarenessApi) => backend.audienceOf(inner.get(api) ?? api)
    // The same objects that requests get, so a watcher (the briefing notifier) sees one service per owner.
    const watched = Effect.map(backend.watched, (all) => all.map((api) => wrapped.get(api) ?? api))
    return Context.make(Backend, Backend.of({ ...backend, forOwner, watched, audienceOf })).pipe(
      Context.add(Changes, Changes.of({ local: Stream.fromPubSub(hub) }))
    )
  })
)
