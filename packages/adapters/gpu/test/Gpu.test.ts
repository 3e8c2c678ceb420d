import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { ExecutionProvider, Graphs, OnnxGister, OnnxLensScorer } from "../src/index.ts"
import { gpuSkipReason, matrix, maxAbsDiff, requiredGpu } from "./providers.ts"

if (gpuSkipReason !== undefined) console.warn(`Skipping the GPU provider tests: ${gpuSkipReason}`)

// The parity grid and the Focus run also run on the required provider (see providers.ts); these tests check
// what only a GPU session can show: no fallback, and the same bytes giving the CPU's results at full size.
describe.skipIf(gpuSkipReason !== undefined)(`GPU provider ${requiredGpu ?? "(none)"}`, () => {
  const gpu = requiredGpu ?? "cuda"

  it.effect("starts on the required provider with no fallback, and gists as the CPU does", () =>
    Effect.gen(function* () {
      const gister = yield* OnnxGister.make({ executionProvider: gpu, fallback: false })
      assert.strictEqual(gister.provider, gpu)
      assert.deepStrictEqual(gister.events, [new ExecutionProvider.ProviderSelected({ provider: gpu, requested: gpu })])
      const cpu = yield* OnnxGister.make({ executionProvider: "cpu" })
      const blocks = { count: 256, blockSize: 32, dim: 768, data: matrix(256 * 32, 768, 3).data }
      assert.isAtMost(maxAbsDiff(yield* gister.gist(blocks), yield* cpu.gist(blocks)), 1e-5)
    }).pipe(Effect.scoped)
  )

  it.effect(
    "the same attention-head bytes score 8 variants of 8,192 × 768 on the GPU as on the CPU within 1e-5",
    () =>
      Effect.gen(function* () {
        const graph = Graphs.attentionLens({ dim: 768 })
        const onGpu = yield* OnnxLensScorer.make({ executionProvider: gpu, fallback: false, graph })
        const onCpu = yield* OnnxLensScorer.make({ executionProvider: "cpu", graph })
        assert.deepStrictEqual(onGpu.graph.bytes, onCpu.graph.bytes)
        const tail = matrix(128, 768, 1)
        const variants = Array.from({ length: 8 }, (_, i) => ({
          entries: matrix(8192 - i * 64, 768, 10 + i),
          levels: Array.from({ length: 8192 - i * 64 }, (_, j) => j % 3),
          positions: Array.from({ length: 8192 - i * 64 }, (_, j) => j * 32),
          tail
        }))
        const gpuScores = yield* onGpu.scoreBatch(variants)
        const cpuScores = yield* onCpu.scoreBatch(variants)
        for (let i = 0; i < variants.length; i++) assert.isAtMost(maxAbsDiff(gpuScores[i]!, cpuScores[i]!), 1e-5)
      }).pipe(Effect.scoped),
    120_000
  )
})
