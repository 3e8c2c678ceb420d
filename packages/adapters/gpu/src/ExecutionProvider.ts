/**
 * Execution providers (EPs): where onnxruntime runs a graph. onnxruntime never falls back by itself (a
 * session asked for `cuda` on a machine without CUDA simply fails to start), so heed tries each candidate in
 * its own session and reports every failed attempt and the final choice as typed events and log lines.
 *
 * @since 0.1.0
 */
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

/**
 * The EP to use: `cuda` (NVIDIA, CUDA 12 + cuDNN 9 provider libraries installed by hand, see the README),
 * `webgpu` (onnxruntime's bundled, experimental Dawn provider: Vulkan on Linux), `cpu`, or `auto` (try
 * `cuda`, then `webgpu`, then `cpu`).
 *
 * @category schemas
 * @since 0.1.0
 */
export const ExecutionProvider = Schema.Literals(["cuda", "webgpu", "cpu", "auto"])

/**
 * `"cuda" | "webgpu" | "cpu" | "auto"`.
 *
 * @category models
 * @since 0.1.0
 */
export type ExecutionProvider = typeof ExecutionProvider.Type

/**
 * An EP that a session actually runs on.
 *
 * @category models
 * @since 0.1.0
 */
export type Provider = Exclude<ExecutionProvider, "auto">

/**
 * A provider that could not start a session. `message` is onnxruntime's error, plus a hint where one helps.
 *
 * @category models
 * @since 0.1.0
 */
export class ProviderFailed extends Schema.TaggedClass<ProviderFailed>()("ProviderFailed", {
  provider: Schema.Literals(["cuda", "webgpu", "cpu"]),
  message: Schema.String
}) {}

/**
 * The provider a session runs on, with what was asked for (`requested`).
 *
 * @category models
 * @since 0.1.0
 */
export class ProviderSelected extends Schema.TaggedClass<ProviderSelected>()("ProviderSelected", {
  provider: Schema.Literals(["cuda", "webgpu", "cpu"]),
  requested: ExecutionProvider
}) {}

/**
 * What opening a session reports, in order: one {@link ProviderFailed} per failed attempt, then one
 * {@link ProviderSelected}.
 *
 * @category models
 * @since 0.1.0
 */
export type ProviderEvent = ProviderFailed | ProviderSelected

/**
 * No provider could start a session (every attempt is listed), or the settings are unusable.
 *
 * @category errors
 * @since 0.1.0
 */
export class OnnxSessionError extends Schema.TaggedError<OnnxSessionError>()("OnnxSessionError", {
  message: Schema.String,
  attempts: Schema.Array(ProviderFailed)
}) {}

/**
 * The providers to try, in order. With `fallback` (the default), `cuda` and `webgpu` end on `cpu`, so a
 * missing GPU never stops a session; without it only the named provider is tried (`auto` still tries all
 * three, since that is what it means).
 *
 * @category getters
 * @since 0.1.0
 */
export const candidates = (requested: ExecutionProvider, fallback = true): ReadonlyArray<Provider> => {
  switch (requested) {
    case "auto":
      return ["cuda", "webgpu", "cpu"]
    case "cpu":
      return ["cpu"]
    default:
      return fallback ? [requested, "cpu"] : [requested]
  }
}

/**
 * The EP from the `HEED_EP` setting (any `ConfigProvider`; the environment by default), or `auto` when unset.
 * An unknown value fails with an {@link OnnxSessionError} naming `HEED_EP` and the accepted values.
 *
 * @category constructors
 * @since 0.1.0
 */
export const fromConfig: Effect.Effect<ExecutionProvider, OnnxSessionError> = Config.option(
  Config.String("HEED_EP")
).pipe(
  Effect.mapError((error) => new OnnxSessionError({ message: `cannot read HEED_EP: ${error.message}`, attempts: [] })),
  Effect.flatMap((value) => {
    const raw = Option.getOrUndefined(value)?.trim().toLowerCase()
    if (raw === undefined || raw === "") return Effect.succeed<ExecutionProvider>("auto")
    return Schema.is(ExecutionProvider)(raw)
      ? Effect.succeed(raw)
      : Effect.fail(
          new OnnxSessionError({
            message: `HEED_EP must be one of cuda, webgpu, cpu, auto; got "${Option.getOrUndefined(value)}"`,
            attempts: []
          })
        )
  })
)
