import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fc from "fast-check"
import { Gister, LodTree } from "../src/index.ts"

const options = { blockSize: 2, maxLevel: 2, dim: 2 }
// Token t has the vector [t, 1] (upstream's token ids arange(n) in miniature).
const tokens = (from: number, to: number) => {
  const data = new Float32Array((to - from) * 2)
  for (let t = from; t < to; t++) data.set([t, 1], (t - from) * 2)
  return data
}

/** A gister that keeps the first child: exposes hierarchy bugs a symmetric mean would hide. */
const firstChild = Layer.succeed(
  Gister.Gister,
  Gister.Gister.of({
    gist: (blocks) =>
      Effect.sync(() => {
        const out = new Float32Array(blocks.count * blocks.dim)
        for (let b = 0; b < blocks.count; b++) {
          out.set(
            blocks.data.subarray(b * blocks.blockSize * blocks.dim, (b * blocks.blockSize + 1) * blocks.dim),
            b * blocks.dim
          )
        }
        return out
      })
  })
)

const failing = Layer.succeed(
  Gister.Gister,
  Gister.Gister.of({ gist: () => Effect.fail(new Gister.GisterError({ message: "backend down" })) })
)

describe("LodTree", () => {
  it("shape: level L has floor(count(L-1) / blockSize) nodes", () => {
    assert.deepStrictEqual(LodTree.shape(100_000, { blockSize: 32, maxLevel: 2 }), [100_000, 3125, 97])
    assert.deepStrictEqual(LodTree.shape(7, { blockSize: 2, maxLevel: 3 }), [7, 3, 1, 0])
    assert.deepStrictEqual(LodTree.shape(0, { blockSize: 32, maxLevel: 2 }), [0, 0, 0])
  })

  it.effect("heed differs: levels shrink by floor, so a partial block never gets a gist", () =>
    Effect.gen(function* () {
      const tree = yield* LodTree.fromEmbeddings(options, tokens(0, 7))
      assert.deepStrictEqual(tree.counts, [7, 3, 1])
      assert.deepStrictEqual(tree.counts, LodTree.shape(7, options))
      const partial = yield* LodTree.fromEmbeddings(options, tokens(0, 1))
      assert.deepStrictEqual(partial.counts, [1, 0, 0])
    }).pipe(Effect.provide(Gister.layerMeanPool))
  )

  it.effect("the hierarchy is right level after level (first-child gister)", () =>
    Effect.gen(function* () {
      const tree = yield* LodTree.fromEmbeddings(options, tokens(0, 8))
      assert.deepStrictEqual(Array.from(tree.node(1, 3)!), [6, 1])
      assert.deepStrictEqual(Array.from(tree.node(2, 1)!), [4, 1])
      assert.deepStrictEqual(Array.from(tree.entry({ level: 2, start: 4 })!), [4, 1])
      assert.deepStrictEqual(Array.from(tree.children(2, 1)!), [4, 1, 6, 1])
      assert.strictEqual(tree.parentIndex(3), 1)
      assert.isUndefined(tree.node(2, 2))
      assert.isUndefined(tree.entry({ level: 1, start: 1 }))
    }).pipe(Effect.provide(firstChild))
  )

  it.effect("mean pooling equals the arithmetic mean, also when appended token by token", () =>
    Effect.gen(function* () {
      const tree = yield* LodTree.make({ blockSize: 4, maxLevel: 2, dim: 2 })
      for (let t = 0; t < 16; t++) yield* LodTree.append(tree, tokens(t, t + 1))
      assert.deepStrictEqual(Array.from(tree.node(1, 0)!), [1.5, 1])
      assert.deepStrictEqual(Array.from(tree.node(1, 3)!), [13.5, 1])
      assert.deepStrictEqual(Array.from(tree.node(2, 0)!), [7.5, 1])
      assert.deepStrictEqual(
        Array.from(Gister.meanPool({ count: 2, blockSize: 2, dim: 1, data: Float32Array.from([1, 3, 10, 20]) })),
        [2, 15]
      )
    }).pipe(Effect.provide(Gister.layerMeanPool))
  )

  it.effect("property: appending in random chunks gives the same tree as one append", () =>
    Effect.gen(function* () {
      const chunkings = fc.sample(fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 1, maxLength: 12 }), 30)
      for (const chunks of chunkings) {
        const total = chunks.reduce((a, b) => a + b, 0)
        const whole = yield* LodTree.fromEmbeddings(options, tokens(0, total))
        const pieces = yield* LodTree.make(options)
        let at = 0
        for (const n of chunks) {
          yield* LodTree.append(pieces, tokens(at, at + n))
          at += n
        }
        assert.deepStrictEqual(pieces.counts, whole.counts)
        assert.deepStrictEqual(pieces.counts, LodTree.shape(total, options))
        for (let L = 0; L <= 2; L++) {
          for (let i = 0; i < whole.count(L); i++) assert.deepStrictEqual(pieces.node(L, i), whole.node(L, i))
        }
      }
    }).pipe(Effect.provide(Gister.layerMeanPool))
  )

  it.effect("a failing gister leaves the tree unchanged (all or nothing)", () =>
    Effect.gen(function* () {
      const tree = yield* LodTree.fromEmbeddings(options, tokens(0, 3)).pipe(Effect.provide(Gister.layerMeanPool))
      const error = yield* Effect.flip(LodTree.append(tree, tokens(3, 8)).pipe(Effect.provide(failing)))
      assert.strictEqual(error._tag, "GisterError")
      assert.deepStrictEqual(tree.counts, [3, 1, 0])
      yield* LodTree.append(tree, tokens(3, 8)).pipe(Effect.provide(Gister.layerMeanPool))
      assert.deepStrictEqual(tree.counts, [8, 4, 2])
    })
  )

  it.effect("bad options, embeddings and lookups fail with LodTreeError", () =>
    Effect.gen(function* () {
      const badOptions = yield* Effect.flip(LodTree.make({ blockSize: 1, maxLevel: 2, dim: 2 }))
      assert.include(badOptions.message, "blockSize")
      const tree = yield* LodTree.make(options)
      const badLength = yield* Effect.flip(LodTree.append(tree, new Float32Array(3)))
      assert.strictEqual(badLength._tag, "LodTreeError")
      const nan = yield* Effect.flip(LodTree.append(tree, Float32Array.from([1, Number.NaN])))
      assert.include(nan.message, "not finite")
      assert.deepStrictEqual(tree.counts, [0, 0, 0])
      const missing = yield* Effect.flip(tree.gather([{ level: 1, start: 0 }]))
      assert.include(missing.message, "no tree node")
    }).pipe(Effect.provide(Gister.layerMeanPool))
  )

  it.effect("gather stacks entry vectors; tokens clamps to the history", () =>
    Effect.gen(function* () {
      const tree = yield* LodTree.fromEmbeddings(options, tokens(0, 5))
      const stacked = yield* tree.gather([
        { level: 2, start: 0 },
        { level: 0, start: 4 }
      ])
      assert.deepStrictEqual(Array.from(stacked.data), [1.5, 1, 4, 1])
      assert.strictEqual(stacked.rows, 2)
      assert.deepStrictEqual(Array.from(tree.tokens(3, 99).data), [3, 1, 4, 1])
      assert.strictEqual(tree.tokens(-5, 0).rows, 0)
    }).pipe(Effect.provide(Gister.layerMeanPool))
  )

  it.effect("the mean-pool gister rejects a malformed batch", () =>
    Effect.gen(function* () {
      const gister = yield* Gister.Gister
      const error = yield* Effect.flip(gister.gist({ count: 2, blockSize: 2, dim: 2, data: new Float32Array(3) }))
      assert.strictEqual(error._tag, "GisterError")
      assert.include(error.message, "expected 2 x 2 x 2")
    }).pipe(Effect.provide(Gister.layerMeanPool))
  )
})
