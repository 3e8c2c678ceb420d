/**
 * Token counting behind one service, so every core measures budgets the same way.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as o200k from "./internal/o200k.ts"

/**
 * Counts `text` with the o200k_base encoding (GPT-4o and later). Special-token markers such as
 * `<|endoftext|>` are counted as ordinary text rather than rejected, since the text is data, not a prompt.
 *
 * The vocabulary ships with the package as one compact string and is decoded on the first count (some tens of
 * milliseconds, about 4.5 MB of typed arrays); importing the module costs next to nothing.
 *
 * @category combinators
 * @since 0.1.0
 */
export const countO200k = (text: string): number => o200k.countO200k(text)

/**
 * Estimates tokens as characters / 4, rounded up: fast, dependency-free and close for English prose.
 *
 * @category combinators
 * @since 0.1.0
 */
export const countApproximate = (text: string): number => Math.ceil(text.length / 4)

/**
 * Serialises a value the way budgets count it: compact JSON. `undefined` becomes the empty string,
 * bigints become their decimal digits and cycles become `"[Circular]"`, so counting never throws.
 *
 * @category combinators
 * @since 0.1.0
 */
export const toCompactJson = (value: unknown): string => {
  if (value === undefined) return ""
  try {
    return JSON.stringify(value, (_key, inner) => (typeof inner === "bigint" ? inner.toString() : inner)) ?? ""
  } catch {
    return JSON.stringify(value, cycleSafeReplacer()) ?? ""
  }
}

const cycleSafeReplacer = () => {
  const ancestors: Array<unknown> = []
  return function (this: unknown, _key: string, inner: unknown): unknown {
    if (typeof inner === "bigint") return inner.toString()
    if (typeof inner !== "object" || inner === null) return inner
    // `this` is the object holding `inner`; drop ancestors that are not on the current path.
    while (ancestors.length > 0 && ancestors[ancestors.length - 1] !== this) ancestors.pop()
    if (ancestors.includes(inner)) return "[Circular]"
    ancestors.push(inner)
    return inner
  }
}

/**
 * The encodings a {@link TokenCounter} can use: `o200k` (exact for OpenAI's current models) or
 * `approximate` (characters / 4).
 *
 * @category models
 * @since 0.1.0
 */
export type Encoding = "o200k" | "approximate"

/**
 * Options for {@link TokenCounter.make}. `safetyFactor` (default `1`, at least `1`) multiplies every count,
 * rounding up, to stay within budget for model families whose tokenizers split text more finely than
 * o200k (for example `1.2` for Anthropic or Llama models).
 *
 * @category models
 * @since 0.1.0
 */
export const TokenCounterOptions = Schema.Struct({
  encoding: Schema.optional(Schema.Literals(["o200k", "approximate"])),
  safetyFactor: Schema.optional(
    Schema.Finite.check(
      Schema.isBetween({ minimum: 1, maximum: 10 }, { message: "safetyFactor must be a finite number from 1 to 10" })
    )
  )
}).annotate({ identifier: "TokenCounterOptions" })

/**
 * Options for {@link TokenCounter.make}.
 *
 * @category models
 * @since 0.1.0
 */
export type TokenCounterOptions = typeof TokenCounterOptions.Type

/**
 * Raised when {@link TokenCounter.make} gets options it cannot use.
 *
 * @category errors
 * @since 0.1.0
 */
export class TokenCounterConfigError extends Schema.TaggedError<TokenCounterConfigError>()("TokenCounterConfigError", {
  message: Schema.String
}) {}

/**
 * The token counter's interface. Counting is synchronous and pure, so hot paths can call it directly.
 *
 * @category models
 * @since 0.1.0
 */
export interface TokenCounterShape {
  /** The encoding in use. */
  readonly encoding: Encoding
  /** The multiplier applied to every count. */
  readonly safetyFactor: number
  /** Tokens in `text`. */
  readonly count: (text: string) => number
  /** Tokens in `value` serialised as compact JSON (see {@link toCompactJson}). */
  readonly countJson: (value: unknown) => number
}

const build = (encoding: Encoding, safetyFactor: number): TokenCounterShape => {
  const raw = encoding === "o200k" ? countO200k : countApproximate
  const count = safetyFactor === 1 ? raw : (text: string) => Math.ceil(raw(text) * safetyFactor)
  return { encoding, safetyFactor, count, countJson: (value) => count(toCompactJson(value)) }
}

const decodeOptions = Schema.decodeUnknownEffect(TokenCounterOptions)

/**
 * The token counter service. Layers:
 *
 * - `TokenCounter.layerO200k`: exact counts for o200k_base (vocabulary bundled, nothing downloaded);
 * - `TokenCounter.layerApproximate`: characters / 4;
 * - `TokenCounter.layer(options)`: either encoding with a safety factor.
 *
 * `TokenCounter.make(options)` builds an instance directly, failing with {@link TokenCounterConfigError}.
 *
 * **Example** (Counting tokens)
 *
 * ```ts
 * import { TokenCounter } from "@heed/schema"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function*() {
 *   const tokens = yield* TokenCounter.TokenCounter
 *   return tokens.count("hello world") // 2
 * }).pipe(Effect.provide(TokenCounter.layerO200k))
 * ```
 *
 * @category services
 * @since 0.1.0
 */
export class TokenCounter extends Context.Service<TokenCounter, TokenCounterShape>()("@heed/schema/TokenCounter") {}

/**
 * Builds a counter from options, failing with a {@link TokenCounterConfigError} that names the bad option.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (options: TokenCounterOptions = {}): Effect.Effect<TokenCounterShape, TokenCounterConfigError> =>
  decodeOptions(options).pipe(
    Effect.mapError(
      (error) => new TokenCounterConfigError({ message: `invalid token counter options: ${error.message}` })
    ),
    Effect.map((valid) => build(valid.encoding ?? "o200k", valid.safetyFactor ?? 1))
  )

/**
 * A layer for the given options.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options: TokenCounterOptions = {}): Layer.Layer<TokenCounter, TokenCounterConfigError> =>
  Layer.effect(TokenCounter, make(options))

/**
 * Exact o200k_base counts.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerO200k: Layer.Layer<TokenCounter> = Layer.succeed(TokenCounter, build("o200k", 1))

/**
 * Characters / 4 estimates.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerApproximate: Layer.Layer<TokenCounter> = Layer.succeed(TokenCounter, build("approximate", 1))
