/**
 * The views a provider serves: the optimised tree (or digest) a request asks for, and the broadcast of a rebuilt tree
 * to every subscription as patches.
 *
 * @since 0.1.0
 * @internal
 */
import * as Digest from "../Digest.ts"
import type * as Message from "../Message.ts"
import type { Node } from "../Node.ts"
import { find } from "../Node.ts"
import * as Patch from "../Patch.ts"
import * as Pipeline from "../Pipeline.ts"
import type { Conn, Subscription } from "./outbox.ts"
import { offer, offerPatch, offerSnapshot } from "./outbox.ts"

/** What shapes every view: the provider's ceilings and token counter, and its outbox limit. */
export interface ViewSettings {
  readonly ceilings: Pipeline.Options
  readonly outboxLimit: number
}

/** The view `request` asks for on `tree`, or `undefined` when its path names no node. */
export const viewOf = (
  request: Message.Subscribe | Message.Query,
  tree: Node,
  settings: ViewSettings
): Node | undefined => {
  const path = request.path ?? "/"
  const root = find(tree, path)
  if (root === undefined) return undefined
  if (request.digest === true) {
    return Digest.make(root, {
      minSalience: request.filter?.min_salience,
      maxNodes: Pipeline.nodeBudget(request, settings.ceilings),
      maxTokens: request.max_tokens,
      countTokens: settings.ceilings.countTokens,
      path
    })
  }
  return Pipeline.optimize(tree, request, settings.ceilings)
}

const requestKey = (r: Message.Subscribe) =>
  JSON.stringify([r.path, r.depth, r.max_nodes, r.max_tokens, r.filter, r.digest])

interface SharedOps {
  readonly last: Node
  readonly ops: ReadonlyArray<Patch.Op>
}

/**
 * Sends each subscription what changed in its view of `tree`. Subscriptions with the same request share one view per
 * rebuild, and those that also share their last view (every one of them after the first shared rebuild) and patch
 * format share the ops. A subscription whose path is gone ends with a `not_found` error.
 */
export const broadcast = (conns: Iterable<Conn>, tree: Node, settings: ViewSettings): void => {
  const views = new Map<string, Node | undefined>()
  const patches = new Map<string, SharedOps>()
  for (const conn of conns) {
    for (const sub of conn.subs.values()) {
      const key = requestKey(sub.request)
      let view = views.get(key)
      if (view === undefined && !views.has(key)) {
        view = viewOf(sub.request, tree, settings)
        views.set(key, view)
      }
      if (view === undefined) end(conn, sub)
      else update(conn, sub, view, opsFor(sub, view, key, patches), settings.outboxLimit)
    }
  }
}

const opsFor = (sub: Subscription, view: Node, key: string, patches: Map<string, SharedOps>) => {
  const format = sub.request.patch_format ?? "slop"
  const patchKey = `${format}${key}`
  const shared = patches.get(patchKey)
  if (shared !== undefined && shared.last === sub.last) return shared.ops
  const ops = Patch.diff(sub.last, view, format)
  patches.set(patchKey, { last: sub.last, ops })
  return ops
}

const update = (conn: Conn, sub: Subscription, view: Node, ops: ReadonlyArray<Patch.Op>, outboxLimit: number) => {
  if (ops.length === 0) return
  sub.last = view
  if (ops[0]!.path === "") offerSnapshot(conn, sub)
  else offerPatch(conn, sub, ops, outboxLimit)
}

const end = (conn: Conn, sub: Subscription) => {
  conn.subs.delete(sub.id)
  offer(conn, {
    type: "error",
    id: sub.id,
    error: { code: "not_found", message: `path "${sub.request.path ?? "/"}" no longer exists; subscription ended` }
  })
}
