import { Bench } from "@heed/bench"
import { TokenCounter } from "@heed/schema"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { Digest, Node, Patch, Pipeline, Provider, Render } from "../src/index.ts"
import { deepCopy, generate, mutate } from "./generate.ts"

const sizes = [1_000, 10_000, 100_000] as const

for (const size of sizes) {
  const tree = generate(size)
  const changed = deepCopy(mutate(tree, 0.01))
  const shared = mutate(tree, 0.01)
  const budgeted = { depth: 3, filter: { min_salience: 0.3 }, max_nodes: 200 } as const

  // Fresh rows: every timed call gets its own copy of the tree, which nothing has seen yet (no working tree, no
  // counted lines in the WeakMap caches). Warm rows: the same tree again and again, caches kept.
  let fresh = tree
  const freshCopy = () => {
    fresh = deepCopy(tree)
  }
  const tokenView = Pipeline.optimize(tree, { max_tokens: 2000 })
  const budgetedView = Pipeline.optimize(tree, budgeted)
  const digest = Digest.make(tree, { maxNodes: 50 })

  // A provider with 100 subscriptions, each with its own budget, on one connection.
  const scope = Effect.runSync(Scope.make())
  const provider = Effect.runSync(
    Provider.make({ coalesce_ms: 0, outboxLimit: 1e9 }).pipe(Effect.provideService(Scope.Scope, scope))
  )
  Effect.runSync(provider.setTree(tree))
  const connection = Effect.runSync(provider.connect())
  for (let i = 0; i < 100; i++) {
    const request = {
      type: "subscribe",
      id: `sub-${i}`,
      depth: [2, 3, 4, -1][i % 4],
      max_nodes: 50 + 10 * i,
      ...(i % 3 === 0 ? { filter: { min_salience: (i % 10) / 10 } } : {}),
      ...(i % 10 === 9 ? { max_tokens: 1000 + 100 * i } : {})
    }
    Effect.runSync(connection.send(request))
  }
  let flip = false

  await Bench.run(
    `state-tree ${size / 1000}k nodes`,
    [
      {
        name: "optimize depth 3, min_salience 0.3, max_nodes 200 (fresh tree)",
        beforeEach: freshCopy,
        fn: () => Pipeline.optimize(fresh, budgeted),
        figures: { nodes: Node.count(tree), out_nodes: Node.count(budgetedView) }
      },
      {
        name: "optimize depth 3, min_salience 0.3, max_nodes 200 (warm tree)",
        fn: () => Pipeline.optimize(tree, budgeted),
        figures: { nodes: Node.count(tree), out_nodes: Node.count(budgetedView) }
      },
      {
        name: "optimize max_tokens 2000 (fresh tree)",
        beforeEach: freshCopy,
        fn: () => Pipeline.optimize(fresh, { max_tokens: 2000 }),
        figures: { out_nodes: Node.count(tokenView), out_tokens: TokenCounter.countO200k(Render.text(tokenView)) }
      },
      {
        name: "optimize max_tokens 2000 (warm tree)",
        fn: () => Pipeline.optimize(tree, { max_tokens: 2000 }),
        figures: { out_nodes: Node.count(tokenView), out_tokens: TokenCounter.countO200k(Render.text(tokenView)) }
      },
      {
        name: "digest (max_nodes 50)",
        fn: () => Digest.make(tree, { maxNodes: 50 }),
        figures: { entries: digest.children?.length ?? 0 }
      },
      {
        name: "diff after 1% changed (deep copy)",
        fn: () => Patch.diff(tree, changed),
        figures: { ops: Patch.diff(tree, changed).length }
      },
      {
        name: "diff after 1% changed (shared subtrees)",
        fn: () => Patch.diff(tree, shared)
      },
      {
        name: "rebuild broadcast to 100 subscriptions",
        fn: () => {
          flip = !flip
          Effect.runSync(provider.setTree(flip ? shared : tree))
        }
      }
    ],
    size === 100_000 ? { timeMs: 700 } : {}
  )

  Effect.runSync(Scope.close(scope, Exit.void))
}
