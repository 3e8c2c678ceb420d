import { assert, describe, it } from "@effect/vitest"
import { LensScorer } from "@heed/allocator"
import { ConfigProvider, Effect, Layer, Logger } from "effect"
import { ExecutionProvider, Graphs, OnnxGister, OnnxLensScorer } from "../src/index.ts"
import { cudaLibraryInstalled, matrix, maxAbsDiff } from "./providers.ts"

const withEnv = (env: Record<string, string>) => Effect.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(env)))

/** Runs `effect` with a logger that records each line's level and text. */
const captureLogs = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const lines: Array<{ level: string; text: string }> = []
    const logger = Logger.make(({ logLevel, message }) => {
      const parts = Array.isArray(message) ? message : [message]
      lines.push({ level: logLevel, text: parts.filter((part) => typeof part === "string").join(" ") })
    })
    const result = yield* Effect.provide(effect, Logger.layer([logger]))
    return { result, lines }
  })

const noCuda = cudaLibraryInstalled
  ? "the CUDA provider libraries are installed here, so a CUDA session may start"
  : undefined
if (noCuda !== undefined) console.warn(`Skipping the no-CUDA fallback tests: ${noCuda}`)

describe("execution providers", () => {
  it("candidates: auto tries cuda, webgpu, cpu; a named GPU falls back to cpu unless told not to", () => {
    assert.deepStrictEqual(ExecutionProvider.candidates("auto"), ["cuda", "webgpu", "cpu"])
    assert.deepStrictEqual(ExecutionProvider.candidates("cuda"), ["cuda", "cpu"])
    assert.deepStrictEqual(ExecutionProvider.candidates("webgpu"), ["webgpu", "cpu"])
    assert.deepStrictEqual(ExecutionProvider.candidates("cpu"), ["cpu"])
    assert.deepStrictEqual(ExecutionProvider.candidates("cuda", false), ["cuda"])
    assert.deepStrictEqual(ExecutionProvider.candidates("auto", false), ["cuda", "webgpu", "cpu"])
  })

  it.effect("HEED_EP selects the provider, defaults to auto, and rejects unknown values naming HEED_EP", () =>
    Effect.gen(function* () {
      assert.strictEqual(yield* ExecutionProvider.fromConfig.pipe(withEnv({ HEED_EP: " CUDA " })), "cuda")
      assert.strictEqual(yield* ExecutionProvider.fromConfig.pipe(withEnv({})), "auto")
      const error = yield* Effect.flip(ExecutionProvider.fromConfig.pipe(withEnv({ HEED_EP: "tpu" })))
      assert.instanceOf(error, ExecutionProvider.OnnxSessionError)
      assert.include(error.message, "HEED_EP must be one of cuda, webgpu, cpu, auto")
      assert.include(error.message, '"tpu"')
    })
  )

  it.effect.skipIf(noCuda !== undefined)(
    "HEED_EP=cuda without CUDA ends on cpu with a ProviderFailed event and a warning line, and scores",
    () =>
      Effect.gen(function* () {
        const { result: scorer, lines } = yield* captureLogs(OnnxLensScorer.make({ threads: 1 }))
        assert.strictEqual(scorer.provider, "cpu")
        assert.strictEqual(scorer.events.length, 2)
        const [failed, selected] = scorer.events
        assert.instanceOf(failed, ExecutionProvider.ProviderFailed)
        assert.strictEqual(failed.provider, "cuda")
        assert.include(failed.message, "Adding CUDA")
        assert.deepStrictEqual(selected, new ExecutionProvider.ProviderSelected({ provider: "cpu", requested: "cuda" }))
        const warning = lines.find((line) => line.level === "Warn")
        assert.include(warning?.text, "onnxruntime provider cuda failed")
        assert.isTrue(
          lines.some((line) => line.level === "Info" && line.text.includes("session on cpu (requested cuda)"))
        )
        const entries = matrix(4, 8, 1)
        const tail = matrix(2, 8, 2)
        const scores = yield* scorer.score(entries, [1, 1, 2, 0], [0, 32, 64, 1088], tail)
        assert.isAtMost(
          maxAbsDiff(scores, LensScorer.analyticScore(entries, [1, 1, 2, 0], [0, 32, 64, 1088], tail, { maxLevel: 2 })),
          1e-6
        )
      }).pipe(withEnv({ HEED_EP: "cuda" }), Effect.scoped)
  )

  it.effect.skipIf(noCuda !== undefined)(
    "without fallback, a missing CUDA is a typed OnnxSessionError listing the attempt",
    () =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(OnnxGister.make({ executionProvider: "cuda", fallback: false }))
        assert.instanceOf(error, ExecutionProvider.OnnxSessionError)
        assert.deepStrictEqual(
          error.attempts.map((a) => a.provider),
          ["cuda"]
        )
        assert.include(error.message, "no execution provider could start a session (requested cuda)")
      }).pipe(Effect.scoped)
  )

  it.effect("auto reports every failed provider in order, then the one it chose", () =>
    Effect.gen(function* () {
      const scorer = yield* OnnxLensScorer.make({ executionProvider: "auto", threads: 1 })
      const order = ["cuda", "webgpu", "cpu"]
      const selected = scorer.events.at(-1)
      assert.instanceOf(selected, ExecutionProvider.ProviderSelected)
      assert.strictEqual(selected.provider, scorer.provider)
      assert.strictEqual(selected.requested, "auto")
      const failed = scorer.events.slice(0, -1)
      assert.isTrue(
        failed.every((event) => event instanceof ExecutionProvider.ProviderFailed && event.message.length > 0)
      )
      assert.deepStrictEqual(
        failed.map((event) => event.provider),
        order.slice(0, order.indexOf(scorer.provider))
      )
    }).pipe(Effect.scoped)
  )

  it.effect("the executionProvider option wins over HEED_EP", () =>
    Effect.gen(function* () {
      const scorer = yield* OnnxLensScorer.make({ executionProvider: "cpu", threads: 1 })
      assert.deepStrictEqual(scorer.events, [
        new ExecutionProvider.ProviderSelected({ provider: "cpu", requested: "cpu" })
      ])
    }).pipe(withEnv({ HEED_EP: "cuda" }), Effect.scoped)
  )

  it.effect("bad settings are typed errors naming the setting", () =>
    Effect.gen(function* () {
      const threads = yield* Effect.flip(OnnxLensScorer.make({ threads: 0 }))
      assert.include(threads.message, "threads must be an integer >= 1, got 0")
      const provider = yield* Effect.flip(OnnxLensScorer.make({ executionProvider: "tpu" as "cpu" }))
      assert.include(provider.message, 'executionProvider must be one of cuda, webgpu, cpu, auto; got "tpu"')
      const wrongPort = yield* Effect.flip(OnnxLensScorer.make({ graph: Graphs.meanPoolGist() }))
      assert.strictEqual(wrongPort._tag, "GraphError")
      assert.include(wrongPort.message, "mean-pool-gist is a gist graph, but the LensScorer needs a lens graph")
    }).pipe(Effect.scoped)
  )

  it.effect("the layer provides the allocator's LensScorer and the same graph bytes whatever the provider", () =>
    Effect.gen(function* () {
      const scorer = yield* OnnxLensScorer.OnnxLensScorer
      const port = yield* LensScorer.LensScorer
      assert.strictEqual(port.score, scorer.score)
      assert.deepStrictEqual(scorer.graph.bytes, Graphs.analyticLens({ maxLevel: 2 }).bytes)
    }).pipe(
      Effect.provide(
        OnnxLensScorer.layer({ threads: 1 }).pipe(
          Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ HEED_EP: "webgpu" })))
        )
      )
    )
  )
})
