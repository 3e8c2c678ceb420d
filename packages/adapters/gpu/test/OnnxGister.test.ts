import { assert, describe, it } from "@effect/vitest"
import { Gister } from "@heed/allocator"
import { Effect } from "effect"
import { Graphs, OnnxGister } from "../src/index.ts"
import { matrix } from "./providers.ts"

describe("OnnxGister", () => {
  it.effect("gists blocks to their means, as the allocator's reference, through the Gister port", () =>
    Effect.gen(function* () {
      const gister = yield* Gister.Gister
      const blocks = { count: 3, blockSize: 4, dim: 5, data: matrix(12, 5, 1).data }
      assert.deepStrictEqual(yield* gister.gist(blocks), Gister.meanPool(blocks))
      assert.deepStrictEqual(
        yield* gister.gist({ count: 2, blockSize: 2, dim: 1, data: Float32Array.of(1, 3, 5, 7) }),
        Float32Array.of(2, 6)
      )
      assert.strictEqual((yield* OnnxGister.OnnxGister).provider, "cpu")
    }).pipe(Effect.provide(OnnxGister.layer({ executionProvider: "cpu", threads: 1 })))
  )

  it.effect("a block with NaN or ±Infinity is a typed error naming the block; the session stays usable", () =>
    Effect.gen(function* () {
      const gister = yield* OnnxGister.make({ executionProvider: "cpu", threads: 1 })
      const blocks = { count: 6, blockSize: 4, dim: 8, data: matrix(24, 8, 2).data }
      for (const value of [Number.NaN, Number.POSITIVE_INFINITY]) {
        const data = blocks.data.slice()
        data[4 * 4 * 8 + 9] = value
        const error = yield* Effect.flip(gister.gist({ ...blocks, data }))
        assert.strictEqual(error._tag, "GisterError")
        assert.include(error.message, "block 4 holds a non-finite value")
      }
      assert.deepStrictEqual(yield* gister.gist(blocks), Gister.meanPool(blocks))
    }).pipe(Effect.scoped)
  )

  it.effect("malformed batches fail before running, naming the problem; an empty batch needs no run", () =>
    Effect.gen(function* () {
      const gister = yield* OnnxGister.make({
        executionProvider: "cpu",
        graph: Graphs.meanPoolGist({ dim: 8 })
      })
      const cases = [
        [
          { count: 2, blockSize: 4, dim: 8, data: new Float32Array(63) },
          "data must be a Float32Array of count x blockSize x dim = 64 floats"
        ],
        [
          { count: 1.5, blockSize: 4, dim: 8, data: new Float32Array(48) },
          "count, blockSize and dim must be integers >= 0"
        ],
        [{ count: 2, blockSize: 0, dim: 8, data: new Float32Array(0) }, "blockSize and dim must be >= 1"],
        [{ count: 2, blockSize: 2, dim: 4, data: new Float32Array(16) }, "dim 4 differs from the graph's width 8"]
      ] as const
      for (const [blocks, message] of cases) assert.include((yield* Effect.flip(gister.gist(blocks))).message, message)
      assert.deepStrictEqual(
        yield* gister.gist({ count: 0, blockSize: 4, dim: 8, data: new Float32Array(0) }),
        new Float32Array(0)
      )
    }).pipe(Effect.scoped)
  )
})
