/**
 * Which execution providers the tests run on. CI has no GPU: the CPU always runs, and a GPU provider runs
 * only when `HEED_EP_REQUIRE=cuda|webgpu` names it, in which case its tests must pass on that provider
 * (no fallback). Otherwise the GPU suites are skipped with the reason printed once.
 */
import { existsSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { SeededRandom } from "@heed/allocator"
import type { ExecutionProvider } from "../src/index.ts"

const raw = process.env.HEED_EP_REQUIRE?.trim().toLowerCase() || undefined
if (raw !== undefined && raw !== "cuda" && raw !== "webgpu") {
  throw new Error(`HEED_EP_REQUIRE must be cuda or webgpu, got "${process.env.HEED_EP_REQUIRE}"`)
}

/** The GPU provider the run must use, if any. */
export const requiredGpu: "cuda" | "webgpu" | undefined = raw

/** Every provider the provider-parametrised suites run on. */
export const providers: ReadonlyArray<ExecutionProvider.Provider> =
  requiredGpu === undefined ? ["cpu"] : ["cpu", requiredGpu]

/** Why the GPU suites are skipped, or `undefined` when they run. */
export const gpuSkipReason =
  requiredGpu === undefined
    ? "no GPU provider required (set HEED_EP_REQUIRE=cuda or HEED_EP_REQUIRE=webgpu on a GPU host to run them)"
    : undefined

/** Whether onnxruntime-node has the CUDA provider libraries at all (they never come from the registry). */
export const cudaLibraryInstalled = existsSync(
  join(
    dirname(createRequire(import.meta.url).resolve("onnxruntime-node/package.json")),
    "bin/napi-v6",
    process.platform,
    process.arch,
    "libonnxruntime_providers_cuda.so"
  )
)

/** Seeded inputs, uniform in [-0.5, 0.5). */
export const prng = (seed: number): (() => number) => {
  const next = SeededRandom.make(seed)
  return () => next() - 0.5
}

/** A seeded `rows × dim` matrix. */
export const matrix = (rows: number, dim: number, seed: number) => {
  const next = prng(seed)
  return { rows, dim, data: Float32Array.from({ length: rows * dim }, next) }
}

/** Largest absolute difference between two arrays of equal length. */
export const maxAbsDiff = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  if (a.length !== b.length) return Number.POSITIVE_INFINITY
  let max = 0
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i]! - b[i]!))
  return max
}
