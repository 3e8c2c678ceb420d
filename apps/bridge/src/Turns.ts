/**
 * The conversation side of the bridge, pure and synchronous: turns, which apps the conversation referred to and
 * when (by app id, name, or the label of a top-level or salient node, with `@heed/decay`'s `References`), the
 * apps' attention bands (`@heed/attention-bands`' `Tracker`: a reference or a salient change makes an app HOT,
 * untouched apps cool down), decay to stubs after N turns without a reference, and what the agent saw at its last
 * injection (for the digest of changes).
 *
 * @since 0.1.0
 */
import type { Band } from "@heed/attention-bands"
import { AttentionConfig, Tracker } from "@heed/attention-bands"
import { References } from "@heed/decay"
import type { Node } from "@heed/state-tree"
import * as Budget from "./Budget.ts"

/**
 * One app as the turns see it: when it was last referenced, the tree the agent saw last, and its reference labels
 * (prepared once per tree).
 *
 * @category models
 * @since 0.1.0
 */
export interface AppTurns {
  readonly id: string
  lastReference: number
  lastInjected: Node.Node | undefined
  labels: { readonly tree: Node.Node | undefined; readonly efforts: ReadonlyArray<References.PreparedEffort> }
}

/**
 * The turns of one conversation.
 *
 * @category models
 * @since 0.1.0
 */
export interface Turns {
  turn: number
  readonly budget: number
  readonly decayTurns: number
  readonly tracker: Tracker.Tracker
  readonly apps: Map<string, AppTurns>
}

/**
 * A connected app now: its display name and mirrored tree.
 *
 * @category models
 * @since 0.1.0
 */
export interface Live {
  readonly id: string
  readonly name: string
  readonly tree: Node.Node | undefined
}

/**
 * Starts the turns: `budget` (default 1,500 tokens) and `decayTurns` (default 3, as in `@heed/decay`).
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (
  options: { readonly budget?: number | undefined; readonly decayTurns?: number | undefined } = {}
): Turns => ({
  turn: 0,
  budget: options.budget ?? Budget.defaultBudget,
  decayTurns: options.decayTurns ?? 3,
  tracker: Tracker.make(AttentionConfig.defaults),
  apps: new Map()
})

/**
 * Starts following an app (on connection): it counts as referenced now, so it stays expanded for `decayTurns`.
 *
 * @category constructors
 * @since 0.1.0
 */
export const track = (turns: Turns, id: string): AppTurns => {
  let app = turns.apps.get(id)
  if (app === undefined) {
    app = { id, lastReference: turns.turn, lastInjected: undefined, labels: { tree: undefined, efforts: [] } }
    turns.apps.set(id, app)
    turns.tracker.seed(id)
  } else app.lastReference = turns.turn
  return app
}

/**
 * Stops following an app.
 *
 * @category constructors
 * @since 0.1.0
 */
export const forget = (turns: Turns, id: string): void => {
  turns.apps.delete(id)
  turns.tracker.forget(id)
}

/**
 * Marks an app as referenced now (`now` in seconds): it turns HOT and its decay restarts.
 *
 * @category constructors
 * @since 0.1.0
 */
export const reference = (turns: Turns, id: string, now: number): void => {
  const app = turns.apps.get(id)
  if (app === undefined) return
  app.lastReference = turns.turn
  turns.tracker.onDirect(id, now)
}

/**
 * A salient change in an app: it turns HOT (without counting as a reference for decay).
 *
 * @category constructors
 * @since 0.1.0
 */
export const salient = (turns: Turns, id: string, now: number): void => {
  if (turns.apps.has(id)) turns.tracker.onDirect(id, now)
}

/**
 * An app's band now (decay applied lazily by {@link views}).
 *
 * @category getters
 * @since 0.1.0
 */
export const bandOf = (turns: Turns, id: string): Band.Band => {
  const state = turns.tracker.get(id)
  return state._tag === "Some" ? state.value.band : "IDLE"
}

/** The labels that make a prompt refer to an app: its id and name, its top-level labels, its salient nodes' labels. */
const effortsOf = (live: Live): ReadonlyArray<References.PreparedEffort> => {
  const names = new Set<string>([live.id, live.name])
  const tree = live.tree
  const add = (value: unknown) => {
    if (typeof value === "string" && value.length >= 3 && value.length <= 60) names.add(value)
  }
  if (tree !== undefined) {
    const label = (node: Node.Node) => add(node.properties?.label ?? node.properties?.title)
    label(tree)
    for (const child of tree.children ?? []) label(child)
    for (const salient of Budget.summaryOf(tree).salientLabels) add(salient)
  }
  return [...names].map(prepared)
}

/** Prepared reference labels, by label: most labels stay the same from one tree to the next. */
const preparedLabels = new Map<string, References.PreparedEffort>()

const prepared = (label: string): References.PreparedEffort => {
  let effort = preparedLabels.get(label)
  if (effort === undefined) {
    if (preparedLabels.size >= 10_000) preparedLabels.clear()
    effort = References.prepareEffort(label, [])
    preparedLabels.set(label, effort)
  }
  return effort
}

/**
 * The planner's views of the live apps. With a `prompt`, the apps it refers to are referenced first (a turn in
 * progress). Returns the views and the trees the agent will have seen once they are injected (collapsed apps keep
 * their last seen tree, so that on expansion the digest covers everything they missed).
 *
 * @category getters
 * @since 0.1.0
 */
export const views = (
  turns: Turns,
  live: ReadonlyArray<Live>,
  now: number,
  prompt?: string | undefined
): {
  readonly views: ReadonlyArray<Budget.AppView>
  readonly seen: ReadonlyArray<readonly [AppTurns, Node.Node | undefined]>
} => {
  turns.tracker.dueTargets(now)
  const message = prompt === undefined || prompt === "" ? undefined : References.prepareMessage(prompt)
  const out: Array<Budget.AppView> = []
  const seen: Array<readonly [AppTurns, Node.Node | undefined]> = []
  for (const app of live) {
    const state = turns.apps.get(app.id) ?? track(turns, app.id)
    if (message !== undefined) {
      if (state.labels.tree !== app.tree || state.labels.efforts.length === 0) {
        state.labels = { tree: app.tree, efforts: effortsOf(app) }
      }
      if (state.labels.efforts.some((effort) => References.mentionsId(message, effort))) {
        state.lastReference = turns.turn
        turns.tracker.onDirect(app.id, now)
      }
    }
    const since = turns.turn - state.lastReference
    const collapsed = since >= turns.decayTurns
    out.push({
      id: app.id,
      name: app.name,
      tree: app.tree,
      band: bandOf(turns, app.id),
      turnsSinceReference: since,
      collapsed,
      changes:
        app.tree === undefined || state.lastInjected === undefined
          ? undefined
          : Budget.changesBetween(state.lastInjected, app.tree)
    })
    if (!collapsed) seen.push([state, app.tree])
  }
  return { views: out, seen }
}

/**
 * One turn: the turn counter moves on, the prompt's references are read, the view is planned within the budget,
 * and what the agent saw is remembered.
 *
 * @category constructors
 * @since 0.1.0
 */
export const inject = (turns: Turns, live: ReadonlyArray<Live>, prompt: string, now: number): Budget.Plan => {
  turns.turn++
  const planned = views(turns, live, now, prompt)
  const plan = Budget.plan(planned.views, turns.budget)
  for (const [state, tree] of planned.seen) state.lastInjected = tree
  return plan
}

/**
 * The plan the next injection would make without a prompt, without taking a turn.
 *
 * @category getters
 * @since 0.1.0
 */
export const peek = (turns: Turns, live: ReadonlyArray<Live>, now: number): Budget.Plan =>
  Budget.plan(views(turns, live, now).views, turns.budget)
