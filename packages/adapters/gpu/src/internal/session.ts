/**
 * Opening onnxruntime sessions with provider fallback, as scoped resources, and running them one call at a
 * time.
 *
 * @internal
 */

import { existsSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import { InferenceSession, Tensor } from "onnxruntime-node"
import {
  candidates,
  type ExecutionProvider,
  OnnxSessionError,
  type Provider,
  type ProviderEvent,
  ProviderFailed,
  ProviderSelected
} from "../ExecutionProvider.ts"

/** How to open a session. `threads` pins onnxruntime's intra-op thread count (default: one per core). */
export interface SessionOptions {
  readonly requested: ExecutionProvider
  readonly fallback?: boolean | undefined
  readonly threads?: number | undefined
}

/** An open session: the provider it runs on, what opening it reported, and a serialised `run`. */
export interface Session {
  readonly provider: Provider
  readonly events: ReadonlyArray<ProviderEvent>
  readonly metadata: {
    readonly inputs: ReadonlyArray<InferenceSession.ValueMetadata>
    readonly outputs: ReadonlyArray<InferenceSession.ValueMetadata>
  }
  readonly run: (feeds: Record<string, Tensor>) => Effect.Effect<Record<string, Tensor>, string>
}

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error)).trim()

/** onnxruntime's messages name a library or an adapter; say what to do about it. */
const hint = (provider: Provider, message: string): string => {
  if (provider === "cuda" && /providers_(shared|cuda)|shared library/i.test(message)) {
    return `${message} (the CUDA provider libraries are not installed, or CUDA 12 / cuDNN 9 are not on LD_LIBRARY_PATH: see "Adding CUDA" in @heed/gpu's README)`
  }
  if (provider === "webgpu" && /adapter/i.test(message)) {
    return `${message} (no WebGPU adapter: onnxruntime's WebGPU provider needs a Vulkan driver on Linux)`
  }
  return message
}

/**
 * On Linux the CUDA provider is a library beside onnxruntime's binding that the registry package never ships.
 * When it is absent the attempt is reported without asking onnxruntime, which would print a load error of
 * its own on every start of a CPU-only machine.
 */
const missingCudaLibrary = (): string | undefined => {
  if (process.platform !== "linux") return undefined
  const root = dirname(createRequire(import.meta.url).resolve("onnxruntime-node/package.json"))
  const library = join(root, "bin", "napi-v6", "linux", process.arch, "libonnxruntime_providers_cuda.so")
  return existsSync(library) ? undefined : `${library} is missing`
}

const create = (bytes: Uint8Array, provider: Provider, threads: number | undefined) => {
  const missing = provider === "cuda" ? missingCudaLibrary() : undefined
  if (missing !== undefined) return Effect.fail(new ProviderFailed({ provider, message: hint(provider, missing) }))
  return Effect.tryPromise({
    try: () =>
      InferenceSession.create(bytes, {
        executionProviders: [provider],
        graphOptimizationLevel: "all",
        executionMode: "sequential",
        interOpNumThreads: 1,
        logSeverityLevel: 3,
        ...(threads === undefined ? {} : { intraOpNumThreads: threads })
      }),
    catch: (error) => new ProviderFailed({ provider, message: hint(provider, errorText(error)) })
  })
}

const acquire = Effect.fnUntraced(function* (bytes: Uint8Array, options: SessionOptions) {
  const failed: Array<ProviderFailed> = []
  for (const provider of candidates(options.requested, options.fallback)) {
    const attempt = yield* Effect.result(create(bytes, provider, options.threads))
    if (attempt._tag === "Success") {
      const selected = new ProviderSelected({ provider, requested: options.requested })
      yield* Effect.logInfo(`onnxruntime session on ${provider} (requested ${options.requested})`)
      return { session: attempt.success, provider, events: [...failed, selected] as ReadonlyArray<ProviderEvent> }
    }
    failed.push(attempt.failure)
    yield* Effect.logWarning(`onnxruntime provider ${provider} failed: ${attempt.failure.message}`)
  }
  return yield* new OnnxSessionError({
    message: `no execution provider could start a session (requested ${options.requested}): ${failed
      .map((f) => `${f.provider}: ${f.message}`)
      .join("; ")}`,
    attempts: failed
  })
})

/**
 * Opens a session on the first provider that starts; closes it when the scope closes. Runs are serialised:
 * onnxruntime already uses every core for one run, and one at a time keeps results and memory predictable.
 */
export const open = (
  bytes: Uint8Array,
  options: SessionOptions
): Effect.Effect<Session, OnnxSessionError, Scope.Scope> =>
  Effect.gen(function* () {
    const opened = yield* Effect.acquireRelease(acquire(bytes, options), ({ session }) =>
      Effect.promise(() => session.release().catch(() => undefined))
    )
    const lock = yield* Semaphore.make(1)
    const { session } = opened
    return {
      provider: opened.provider,
      events: opened.events,
      metadata: { inputs: session.inputMetadata, outputs: session.outputMetadata },
      run: (feeds) =>
        Semaphore.withPermits(
          lock,
          1,
          Effect.tryPromise({ try: () => session.run(feeds), catch: (error) => errorText(error) })
        )
    }
  })

/** A float32 tensor over `data` (no copy). */
export const float32 = (data: Float32Array, dims: ReadonlyArray<number>): Tensor => new Tensor("float32", data, dims)
