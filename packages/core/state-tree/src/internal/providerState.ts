/**
 * A provider's state and its rebuilds: the registered tree, the tree as served (with `changed` stamps and task
 * nodes), the version, and the coalescing of changes into one rebuild-and-broadcast.
 *
 * @since 0.1.0
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type * as Message from "../Message.ts"
import type { Node } from "../Node.ts"
import type { Handler } from "../Provider.ts"
import type { Conn } from "./outbox.ts"
import { stamp } from "./stamp.ts"
import * as Tasks from "./tasks.ts"
import type { ViewSettings } from "./views.ts"
import { broadcast } from "./views.ts"

/** A provider's settings, resolved from its options. */
export interface Settings extends ViewSettings {
  readonly providerId: string
  /** How long changes are gathered before a rebuild; `0` or less rebuilds at once. */
  readonly coalesceMs: number
  readonly hello: Message.Hello
}

/** The mutable state of one provider. */
export interface State {
  readonly settings: Settings
  readonly scope: Scope.Scope
  /** handlers per node and action (`handle`, and running tasks' `cancel`) */
  readonly handlers: Map<string, Handler>
  /** handlers per action, for any node that offers it (`handleAction`) */
  readonly actionHandlers: Map<string, Handler>
  readonly conns: Set<Conn>
  readonly tasks: Tasks.Tasks
  /** nodes stamped `changed` by the last rebuild, and their ancestors */
  readonly stamped: WeakSet<Node>
  /** the tree as registered by `setTree` / `update` */
  app: Node | undefined
  /** the registered tree plus task nodes, as of the last rebuild (before stamping) */
  composed: Node | undefined
  /** the tree served: `composed` with `changed` stamps */
  current: Node | undefined
  version: number
  dirty: boolean
  scheduled: boolean
}

/** Creates the state of a provider that runs its background work in `scope`. */
export const make = (settings: Settings, scope: Scope.Scope): State => {
  const handlers = new Map<string, Handler>()
  const state: State = {
    settings,
    scope,
    handlers,
    actionHandlers: new Map(),
    conns: new Set(),
    tasks: Tasks.make({ scope, handlers, markDirty: Effect.suspend(() => markDirty(state)) }),
    stamped: new WeakSet(),
    app: undefined,
    composed: undefined,
    current: undefined,
    version: 0,
    dirty: false,
    scheduled: false
  }
  return state
}

/** Rebuilds now when something changed: stamps what changed, bumps the version and broadcasts. */
export const flush = (state: State): void => {
  if (!state.dirty) return
  state.dirty = false
  if (state.app === undefined) return
  const composed = state.tasks.compose(state.app)
  const previous = state.composed
  state.composed = composed
  if (previous === undefined || state.current === undefined) state.current = composed
  else {
    const { changes, tree } = stamp(previous, composed, state.current, state.stamped)
    if (changes === 0) return
    state.current = tree
  }
  state.version++
  broadcast(state.conns, state.current, state.settings)
}

/** Marks the state changed and schedules a rebuild after the coalescing delay (at once without one). */
export const markDirty = (state: State): Effect.Effect<void> =>
  Effect.suspend(() => {
    state.dirty = true
    if (state.settings.coalesceMs <= 0) return Effect.sync(() => flush(state))
    if (state.scheduled) return Effect.void
    state.scheduled = true
    const later = Effect.sleep(state.settings.coalesceMs).pipe(
      Effect.andThen(
        Effect.sync(() => {
          state.scheduled = false
          flush(state)
        })
      )
    )
    return Effect.asVoid(Effect.forkIn(later, state.scope))
  })
