import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { AttentionLens, Graphs, OnnxLensScorer } from "../src/index.ts"
import { encode, GraphBuilder, type ValueInfo } from "../src/internal/onnx.ts"
import { matrix, maxAbsDiff } from "./providers.ts"

const dir = mkdtempSync(join(tmpdir(), "heed-gpu-graphs-"))
const file = (name: string, bytes: Uint8Array): string => {
  const path = join(dir, name)
  writeFileSync(path, bytes)
  return path
}

const float = (name: string, shape: ReadonlyArray<number | string>): ValueInfo => ({ name, type: "float", shape })

/** A lens-named model whose `scores` are `levels · factor`, with the `entries` shape given. */
const levelsModel = (entriesShape: ReadonlyArray<number | string>, factor: number): Uint8Array => {
  const g = new GraphBuilder()
  g.opInto("scores", "Mul", ["levels", g.scalar("float", factor)])
  return encode({
    name: "levels_model",
    opset: 17,
    nodes: g.nodes,
    initializers: g.initializers,
    inputs: [
      float("entries", entriesShape),
      float("levels", ["b", "n"]),
      float("positions", ["b", "n"]),
      float("tail", ["b", "t", 8])
    ],
    outputs: [float("scores", ["b", "n"])]
  })
}

describe("Graphs", () => {
  it("builds the same bytes for the same options, and different bytes for different weights", () => {
    assert.deepStrictEqual(Graphs.analyticLens({ maxLevel: 2 }).bytes, Graphs.analyticLens({ maxLevel: 2 }).bytes)
    assert.deepStrictEqual(
      Graphs.attentionLens({ dim: 16, seed: 3 }).bytes,
      Graphs.attentionLens({ dim: 16, seed: 3 }).bytes
    )
    assert.notDeepEqual(
      Graphs.attentionLens({ dim: 16, seed: 3 }).bytes,
      Graphs.attentionLens({ dim: 16, seed: 4 }).bytes
    )
    const head = Graphs.attentionLens({ dim: 32, lensDim: 16 })
    assert.strictEqual(head.kind, "lens")
    assert.strictEqual(head.dim, 32)
    assert.strictEqual(Graphs.meanPoolGist().kind, "gist")
    assert.isUndefined(Graphs.meanPoolGist().dim)
  })

  it("rejects bad builder options with a GraphError naming the option", () => {
    assert.throws(
      () => Graphs.analyticLens({ maxLevel: Number.NaN }),
      Graphs.GraphError,
      "maxLevel must be a finite number"
    )
    assert.throws(() => Graphs.analyticLens({ maxLevel: 2, dim: 0 }), Graphs.GraphError, "dim must be an integer >= 1")
    assert.throws(
      () => Graphs.analyticLens({ maxLevel: 2, precision: "half" as "float32" }),
      Graphs.GraphError,
      'precision must be "float32" or "float64"'
    )
    assert.throws(
      () => Graphs.attentionLens({ dim: 16, lensDim: 2.5 }),
      Graphs.GraphError,
      "lensDim must be an integer >= 1"
    )
    assert.throws(() => Graphs.meanPoolGist({ dim: -1 }), Graphs.GraphError, "dim must be an integer >= 1")
  })

  it.effect("load reads a lens model from a file, finds its port and width, and scores like the built graph", () =>
    Effect.gen(function* () {
      const weights = AttentionLens.weights({ dim: 8, lensDim: 4 })
      const loaded = yield* Graphs.load(file("attention.onnx", Graphs.attentionLens(weights).bytes))
      assert.strictEqual(loaded.kind, "lens")
      assert.strictEqual(loaded.dim, 8)
      const scorer = yield* OnnxLensScorer.make({
        graph: Graphs.load(loaded.name),
        executionProvider: "cpu"
      })
      const entries = matrix(5, 8, 1)
      const tail = matrix(3, 8, 2)
      const scores = yield* scorer.score(entries, [0, 1, 2, 1, 1], [0, 1, 32, 64, 96], tail)
      const want = AttentionLens.score(weights, entries, [0, 1, 2, 1, 1], [0, 1, 32, 64, 96], tail)
      assert.isAtMost(maxAbsDiff(scores, want), 1e-5)
      const wrongWidth = yield* Effect.flip(scorer.score(matrix(2, 4, 1), [1, 1], [0, 32], matrix(1, 4, 2)))
      assert.include(wrongWidth.message, "entries dim 4 differs from the graph's width 8")
      const gist = yield* Graphs.load(file("gist.onnx", Graphs.meanPoolGist({ dim: 8 }).bytes))
      assert.strictEqual(gist.kind, "gist")
      assert.strictEqual(gist.dim, 8)
    }).pipe(Effect.scoped)
  )

  it.effect("a missing file, a truncated file and a non-model fail with a GraphError naming the path", () =>
    Effect.gen(function* () {
      const missing = yield* Effect.flip(Graphs.load(join(dir, "nope.onnx")))
      assert.include(missing.message, `cannot read ${join(dir, "nope.onnx")}`)
      assert.strictEqual(missing.path, join(dir, "nope.onnx"))
      const bytes = Graphs.analyticLens().bytes
      const truncated = yield* Effect.flip(Graphs.load(file("truncated.onnx", bytes.subarray(0, bytes.length >> 1))))
      assert.include(truncated.message, "is not a usable ONNX model")
      assert.strictEqual(truncated.path, join(dir, "truncated.onnx"))
      const text = yield* Effect.flip(Graphs.load(file("text.onnx", new TextEncoder().encode("not a model at all"))))
      assert.include(text.message, "is not a usable ONNX model")
      const folder = yield* Effect.flip(Graphs.load(dir))
      assert.include(folder.message, "not a regular file")
    })
  )

  it.effect("a model with the wrong shapes or inputs is rejected with what the port expects", () =>
    Effect.gen(function* () {
      const rank = yield* Effect.flip(Graphs.load(file("rank.onnx", levelsModel(["n", 8], 1))))
      assert.include(rank.message, "entries must have 3 dimensions, got [n, 8]")
      assert.include(rank.message, "a lens graph takes entries [batch, entries, dim]")
      const widths = yield* Effect.flip(Graphs.load(file("widths.onnx", levelsModel(["b", "n", 16], 1))))
      assert.include(widths.message, "its embedding widths disagree: 16 vs 8")
      const g = new GraphBuilder()
      g.opInto("y", "Identity", ["x"])
      const other = encode({
        name: "other",
        opset: 17,
        nodes: g.nodes,
        initializers: [],
        inputs: [float("x", [2])],
        outputs: [float("y", [2])]
      })
      const noPort = yield* Effect.flip(Graphs.load(file("other.onnx", other)))
      assert.include(noPort.message, "its inputs [x] match no port")
      assert.include(noPort.message, "a gist graph takes blocks [batch, block, dim]")
    })
  )

  it.effect("a model that returns scores outside [-1, 1] is reported, and the session keeps working", () =>
    Effect.gen(function* () {
      const scorer = yield* OnnxLensScorer.make({
        graph: Graphs.load(file("scale.onnx", levelsModel(["b", "n", 8], 0.5))),
        executionProvider: "cpu"
      })
      const entries = matrix(3, 8, 1)
      const tail = matrix(1, 8, 2)
      const error = yield* Effect.flip(scorer.score(entries, [1, 2, 4], [0, 1, 2], tail))
      assert.include(error.message, "the model returned 2 for entry 2, outside [-1, 1]")
      assert.deepStrictEqual(yield* scorer.score(entries, [1, 2, 0], [0, 1, 2], tail), Float32Array.of(0.5, 1, 0))
    }).pipe(Effect.scoped)
  )
})

process.on("exit", () => rmSync(dir, { recursive: true, force: true }))
