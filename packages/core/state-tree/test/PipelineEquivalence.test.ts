import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { generate, random } from "../bench/generate.ts"
import { Node, Pipeline } from "../src/index.ts"
import { primeWork, workFor } from "../src/internal/workTree.ts"
import type { Node as NodeT } from "../src/Node.ts"
import { arbitraryTree } from "./fixtures.ts"
import { eagerWork } from "./reference/EagerWorkTree.ts"

// Issue 28: nodes at the depth limit are settled lazily (only those the view shows or whose tokens are counted).
// Each view must equal, field for field, the view the eager builder gives: the reference is served from the
// working-tree cache of a structural copy of the tree, the lazy builder works on the original.
const viewsAgree = (tree: NodeT, request: Pipeline.Request): void => {
  const copy = structuredClone(tree)
  const root = Node.find(copy, request.path ?? "/")
  if (root === undefined) return
  const depth = Pipeline.effectiveDepth(request)
  const f = request.filter
  const filter = f !== undefined && (f.min_salience !== undefined || f.types !== undefined) ? f : undefined
  const reference = eagerWork(root, depth, filter)
  primeWork(root, depth, filter, reference)
  const expected = Pipeline.optimize(copy, request)
  assert.strictEqual(workFor(root, depth, filter), reference, "the reference view came from the eager working tree")
  const actual = Pipeline.optimize(tree, request)
  assert.deepStrictEqual(actual, expected)
}

const anyRequest: fc.Arbitrary<Pipeline.Request> = fc.record(
  {
    depth: fc.constantFrom(-1, 0, 1, 2, 3, 4),
    filter: fc.record(
      {
        min_salience: fc.constantFrom(0, 0.3, 0.5, 0.8),
        types: fc.constantFrom(["item", "group"], ["item"], ["group", "status"]),
        keep_ancestors: fc.boolean()
      },
      { requiredKeys: [] }
    ),
    max_nodes: fc.integer({ min: 0, max: 60 }),
    max_tokens: fc.integer({ min: 0, max: 400 }),
    window: fc.tuple(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 5 }))
  },
  { requiredKeys: [] }
)

describe("Pipeline: lazy depth-limit nodes give the eager builder's views", () => {
  it("on random trees and requests (depth, filter, keep_ancestors, max_nodes, max_tokens, window)", () => {
    fc.assert(
      fc.property(arbitraryTree(6, true), anyRequest, (tree, request) => viewsAgree(tree, request)),
      { numRuns: 400 }
    )
  })

  it("on seeded generated trees with the bench's request and its neighbours", () => {
    for (const seed of [1, 2, 3]) {
      const tree = generate(5_000, seed)
      for (const request of [
        { depth: 3, filter: { min_salience: 0.3 }, max_nodes: 200 },
        { depth: 3, filter: { min_salience: 0.3 }, max_nodes: 50 },
        { depth: 2, filter: { min_salience: 0.5, keep_ancestors: true }, max_nodes: 120 },
        { depth: 4, max_nodes: 500 },
        { depth: 3, filter: { min_salience: 0.3 }, max_tokens: 1500 },
        { depth: 3, filter: { types: ["collection"] }, window: [2, 5] as const },
        { path: "/r-3", depth: 2, filter: { min_salience: 0.6 }, max_nodes: 40 }
      ]) {
        viewsAgree(tree, request)
      }
    }
  })

  // The builder keeps the filter's verdicts on the lists it is visiting in one stack: a list of 200 children
  // whose children hold 80 each makes it grow while outer lists still hold verdicts on it.
  it("on wide trees whose nested child lists outgrow the filter's verdict stack", () => {
    const next = random(7)
    const wide = (id: string, level: number): NodeT => ({
      id,
      type: level % 2 === 0 ? "group" : "item",
      meta: { salience: Math.round(next() * 10) / 10, ...(next() < 0.01 ? { pinned: true } : {}) },
      ...(level < 2
        ? { children: Array.from({ length: 200 - 120 * level }, (_, i) => wide(`${id}-${i}`, level + 1)) }
        : {})
    })
    const tree = wide("w", 0)
    for (const request of [
      { depth: 2, filter: { min_salience: 0.4 }, max_nodes: 300 },
      { depth: 1, filter: { min_salience: 0.7, keep_ancestors: true } },
      { depth: -1, filter: { min_salience: 0.2, types: ["item"], keep_ancestors: true }, max_nodes: 1000 }
    ]) {
      viewsAgree(tree, request)
    }
  })
})
