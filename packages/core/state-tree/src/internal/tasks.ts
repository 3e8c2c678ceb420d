/**
 * A provider's async actions: each task is a node under `/tasks` with its progress and a `cancel` affordance while it
 * runs. Done tasks disappear after 30 s, cancelled ones after 10 s; failed ones stay with `urgency: "high"`.
 *
 * @since 0.1.0
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import type * as Scope from "effect/Scope"
import type { Node } from "../Node.ts"
import type { Handler, TaskControl } from "../Provider.ts"
import { errorBody, handlerKey } from "./invoke.ts"

interface Task {
  readonly id: string
  readonly action: string
  status: "running" | "done" | "failed" | "cancelled"
  progress: number
  message: string
  result?: unknown
  fiber?: Fiber.Fiber<unknown, unknown> | undefined
}

/** The tasks of one provider. */
export interface Tasks {
  /** The app tree with the `tasks` collection as its last child (the app tree itself while there are none). */
  readonly compose: (app: Node) => Node
  /** Starts a task; see `Provider.startTask`. */
  readonly start: (action: string, run: (task: TaskControl) => Effect.Effect<unknown, unknown>) => Effect.Effect<string>
}

/** What the tasks need from their provider. */
export interface TaskHost {
  readonly scope: Scope.Scope
  /** Where the `cancel` handlers of running tasks are registered. */
  readonly handlers: Map<string, Handler>
  /** Schedules a rebuild. */
  readonly markDirty: Effect.Effect<void>
}

const taskNode = (task: Task): Node => ({
  id: task.id,
  type: "status",
  properties: {
    progress: task.progress,
    message: task.message,
    status: task.status,
    action: task.action,
    ...(task.result !== undefined ? { result: task.result } : {})
  },
  ...(task.status === "running" ? { affordances: [{ action: "cancel", label: "Cancel", dangerous: true }] } : {}),
  meta:
    task.status === "failed"
      ? { salience: 1, urgency: "high" }
      : { salience: task.status === "running" ? 0.8 : task.status === "done" ? 0.5 : 0.3 }
})

/** Creates the task registry of a provider. */
export const make = (host: TaskHost): Tasks => {
  const tasks = new Map<string, Task>()
  let counter = 0
  // the `tasks` node, rebuilt only after a task changed
  let node: Node | undefined
  const changed = Effect.suspend(() => {
    node = undefined
    return host.markDirty
  })
  const compose = (app: Node): Node => {
    if (tasks.size === 0) return app
    node ??= {
      id: "tasks",
      type: "collection",
      properties: { label: "Tasks" },
      children: [...tasks.values()].map(taskNode)
    }
    const children = (app.children ?? []).filter((child) => child.id !== "tasks")
    return { ...app, children: [...children, node] }
  }
  const removeLater = (task: Task, ms: number) =>
    Effect.forkIn(
      Effect.sleep(ms).pipe(
        Effect.andThen(
          Effect.suspend(() => {
            tasks.delete(task.id)
            return changed
          })
        )
      ),
      host.scope
    )
  const start = (action: string, run: (task: TaskControl) => Effect.Effect<unknown, unknown>) =>
    Effect.gen(function* () {
      const task: Task = { id: `task-${++counter}`, action, status: "running", progress: 0, message: "" }
      tasks.set(task.id, task)
      const key = handlerKey(`/tasks/${task.id}`, "cancel")
      host.handlers.set(key, cancel(task))
      yield* changed
      const body = Effect.suspend(() => run(control(task, changed))).pipe(
        Effect.onExit((exit) => settle(task, exit, changed, removeLater)),
        Effect.ignore,
        Effect.ensuring(Effect.sync(() => host.handlers.delete(key)))
      )
      task.fiber = yield* Effect.forkIn(body, host.scope)
      return task.id
    })
  return { compose, start }
}

const control = (task: Task, changed: Effect.Effect<void>): TaskControl => ({
  taskId: task.id,
  progress: (progress, message) =>
    Effect.suspend(() => {
      if (task.status !== "running") return Effect.void
      task.progress = Math.min(1, Math.max(0, progress))
      if (message !== undefined) task.message = message
      return changed
    })
})

// A task that is not running answers `cancel` with `conflict` (the code a handler's `ActionError` would carry).
const cancel =
  (task: Task): Handler =>
  () =>
    Effect.suspend(() =>
      task.status !== "running" || task.fiber === undefined
        ? Effect.fail({ code: "conflict", message: `task ${task.id} is not running` })
        : Fiber.interrupt(task.fiber)
    )

const settle = (
  task: Task,
  exit: Exit.Exit<unknown, unknown>,
  changed: Effect.Effect<void>,
  removeLater: (task: Task, ms: number) => Effect.Effect<unknown>
): Effect.Effect<void> =>
  Effect.suspend(() => {
    if (Exit.isSuccess(exit)) {
      task.status = "done"
      task.progress = 1
      if (exit.value !== undefined) task.result = exit.value
      return changed.pipe(Effect.andThen(removeLater(task, 30_000)), Effect.asVoid)
    }
    if (Cause.hasInterruptsOnly(exit.cause)) {
      task.status = "cancelled"
      return changed.pipe(Effect.andThen(removeLater(task, 10_000)), Effect.asVoid)
    }
    task.status = "failed"
    task.message = errorBody(exit.cause.reasons.find(Cause.isFailReason)?.error).message
    return changed
  })
