/**
 * The attention configuration: culture's `attention:` block with its snake_case keys, defaults, validation, the
 * per-agent merge and the legacy `poll_interval` migration. One config type for every backend.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import * as SchemaTransformation from "effect/SchemaTransformation"
import * as Band from "./Band.ts"

/**
 * One band's timing: how often a target in the band is polled (`interval_s`) and how long it stays in the band
 * without a stimulus before decaying one band cooler (`hold_s`). `IDLE` is terminal and has no `hold_s`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const BandSpec = Schema.Struct({
  interval_s: Schema.Finite,
  hold_s: Schema.optionalKey(Schema.Finite)
}).annotate({ identifier: "BandSpec" })

/**
 * One band's timing (see {@link BandSpec}).
 *
 * @category models
 * @since 0.1.0
 */
export type BandSpec = typeof BandSpec.Type

/**
 * The four band specs under their lower-case configuration keys.
 *
 * @category models
 * @since 0.1.0
 */
export interface BandTable {
  readonly hot: BandSpec
  readonly warm: BandSpec
  readonly cool: BandSpec
  readonly idle: BandSpec
}

/**
 * Raised when an attention block, a per-agent override or a legacy `poll_interval` cannot be used. The message
 * names the offending key and the rule it breaks.
 *
 * @category errors
 * @since 0.1.0
 */
export class AttentionConfigError extends Schema.TaggedError<AttentionConfigError>()("AttentionConfigError", {
  message: Schema.String
}) {}

const bandKeys = ["hot", "warm", "cool", "idle"] as const
type BandKey = (typeof bandKeys)[number]

const defaultBands: BandTable = {
  hot: { interval_s: 30, hold_s: 120 },
  warm: { interval_s: 120, hold_s: 300 },
  cool: { interval_s: 300, hold_s: 600 },
  idle: { interval_s: 600 }
}

const DEFAULT_LEGACY_POLL_INTERVAL = 60

/**
 * Checks the rules every effective config obeys; returns the first broken rule as a message.
 */
const validate = (config: AttentionConfig): string | undefined => {
  if (!(config.tick_s > 0)) return `tick_s must be a positive number of seconds (got ${config.tick_s})`
  if (!(config.thread_window_s > 0)) {
    return `thread_window_s must be a positive number of seconds (got ${config.thread_window_s})`
  }
  for (const key of bandKeys) {
    const spec = config.bands[key]
    if (!(spec.interval_s > 0)) {
      return `bands.${key}.interval_s must be a positive number of seconds (got ${spec.interval_s})`
    }
    if (key !== "idle" && !(spec.hold_s !== undefined && spec.hold_s > 0)) {
      return `bands.${key}.hold_s must be a positive number of seconds (got ${spec.hold_s ?? "nothing"})`
    }
  }
  const { cool, hot, idle, warm } = config.bands
  if (
    !(hot.interval_s <= warm.interval_s && warm.interval_s <= cool.interval_s && cool.interval_s <= idle.interval_s)
  ) {
    return (
      "band intervals must be monotonic (hot <= warm <= cool <= idle), got " +
      `hot=${hot.interval_s} warm=${warm.interval_s} cool=${cool.interval_s} idle=${idle.interval_s}`
    )
  }
  if (config.tick_s > hot.interval_s) {
    return `tick_s (${config.tick_s}) must not exceed the smallest band interval (hot.interval_s=${hot.interval_s})`
  }
  for (const [target, band] of Object.entries(config.pinned ?? {})) {
    if (!Band.is(band)) return `pinned[${JSON.stringify(target)}]: unknown band name: ${String(band)}`
  }
  return undefined
}

const idleHoldWarning = (hold: number) =>
  Effect.logWarning(`attention: bands.idle.hold_s=${hold} is ignored: IDLE is terminal and never decays`)

// IDLE is terminal: a `hold_s` given for it is dropped with a warning, as `decode` does.
const IdleSpec = BandSpec.pipe(
  Schema.decodeTo(
    BandSpec,
    SchemaTransformation.transformEffect({
      decode: (spec: BandSpec) =>
        spec.hold_s === undefined
          ? Effect.succeed(spec)
          : Effect.as(idleHoldWarning(spec.hold_s), { interval_s: spec.interval_s }),
      encode: (spec: BandSpec) => Effect.succeed(spec)
    })
  )
)

// Every key may be absent on the encoded side and takes its default, like upstream's dataclass defaults (heed's
// `pinned` defaults to nothing pinned, the legacy `poll_interval` to 60).
const schema: Schema.Codec<
  AttentionConfig,
  {
    readonly enabled?: boolean
    readonly tick_s?: number
    readonly thread_window_s?: number
    readonly bands?: BandTable
    readonly pinned?: { readonly [target: string]: Band.Band }
    readonly poll_interval?: number
  }
> = Schema.Struct({
  enabled: Schema.Boolean.pipe(Schema.withDecodingDefaultKey(Effect.sync(() => defaults.enabled))),
  tick_s: Schema.Finite.pipe(Schema.withDecodingDefaultKey(Effect.sync(() => defaults.tick_s))),
  thread_window_s: Schema.Finite.pipe(Schema.withDecodingDefaultKey(Effect.sync(() => defaults.thread_window_s))),
  bands: Schema.Struct({ hot: BandSpec, warm: BandSpec, cool: BandSpec, idle: IdleSpec }).pipe(
    Schema.withDecodingDefaultKey(Effect.sync(() => defaultBands))
  ),
  pinned: Schema.Record(Schema.String, Band.Band).pipe(Schema.withDecodingDefaultKey(Effect.sync(() => ({})))),
  poll_interval: Schema.Finite.pipe(Schema.withDecodingDefaultKey(Effect.sync(() => DEFAULT_LEGACY_POLL_INTERVAL)))
})
  .check(Schema.makeFilter((config) => validate(config)))
  .annotate({ identifier: "AttentionConfig" })

// The raw shape accepted from YAML/JSON: every key optional, `null` meaning "not given".
const nullable = <S extends Schema.Top>(inner: S) => Schema.optionalKey(Schema.NullOr(inner))

const RawBand = Schema.Struct({ interval_s: nullable(Schema.Finite), hold_s: nullable(Schema.Finite) })

const RawBlock = Schema.Struct({
  enabled: nullable(Schema.Boolean),
  tick_s: nullable(Schema.Finite),
  thread_window_s: nullable(Schema.Finite),
  bands: nullable(Schema.Record(Schema.String, Schema.NullOr(RawBand))),
  pinned: nullable(Schema.Record(Schema.String, Schema.String)),
  poll_interval: nullable(Schema.Finite)
})

type RawBlock = typeof RawBlock.Type

const decodeRawBlock = Schema.decodeUnknownEffect(RawBlock)

const fail = (message: string) =>
  Effect.fail(new AttentionConfigError({ message: `invalid attention config: ${message}` }))

const parseRaw = (raw: unknown, what: string): Effect.Effect<RawBlock, AttentionConfigError> =>
  raw === null || raw === undefined
    ? Effect.succeed({})
    : Predicate.isObject(raw) && !Array.isArray(raw)
      ? decodeRawBlock(raw).pipe(Effect.catch((error) => fail(`${what}: ${error.message}`)))
      : fail(`${what} must be a mapping, got ${Array.isArray(raw) ? "a list" : typeof raw}`)

/**
 * Parses the `bands` mapping of a raw block, one band at a time: a band given replaces that band's whole spec.
 */
const mergeBands = Effect.fnUntraced(function* (base: BandTable, raw: RawBlock["bands"]) {
  const bands: Record<BandKey, BandSpec> = { ...base }
  if (raw === null || raw === undefined) return bands as BandTable
  for (const [name, entry] of Object.entries(raw)) {
    const key = name.toLowerCase()
    if (!(bandKeys as ReadonlyArray<string>).includes(key)) {
      return yield* fail(`unknown band name: ${JSON.stringify(name)} (expected hot, warm, cool or idle)`)
    }
    const bandKey = key as BandKey
    const interval = entry?.interval_s
    if (interval === null || interval === undefined || !(interval > 0)) {
      return yield* fail(
        `bands.${bandKey}.interval_s must be a positive number of seconds (got ${interval ?? "nothing"})`
      )
    }
    const hold = entry?.hold_s
    if (bandKey === "idle") {
      if (hold !== null && hold !== undefined) yield* idleHoldWarning(hold)
      bands.idle = { interval_s: interval }
    } else {
      if (hold === null || hold === undefined || !(hold > 0)) {
        return yield* fail(`bands.${bandKey}.hold_s must be a positive number of seconds (got ${hold ?? "nothing"})`)
      }
      bands[bandKey] = { interval_s: interval, hold_s: hold }
    }
  }
  return bands as BandTable
})

const parsePinned = Effect.fnUntraced(function* (raw: RawBlock["pinned"]) {
  const pinned: Record<string, Band.Band> = {}
  if (raw === null || raw === undefined) return pinned
  for (const [target, name] of Object.entries(raw)) {
    const band = name.toUpperCase()
    if (!Band.is(band)) {
      return yield* fail(
        `pinned[${JSON.stringify(target)}]: unknown band name: ${JSON.stringify(name)} (expected HOT, WARM, COOL or IDLE)`
      )
    }
    pinned[target] = band
  }
  return pinned
})

const checked = (config: AttentionConfig): Effect.Effect<AttentionConfig, AttentionConfigError> => {
  const problem = validate(config)
  return problem === undefined ? Effect.succeed(config) : fail(problem)
}

/**
 * Options for `AttentionConfig.decode`.
 *
 * @category models
 * @since 0.1.0
 */
export interface DecodeOptions {
  /**
   * The daemon's top-level `poll_interval` (default 60). Used for the legacy migration when there is no attention
   * block, and kept as the fixed interval of the legacy loop when attention is disabled.
   */
  readonly legacyPollInterval?: number | undefined
}

const legacyMigration = Effect.fnUntraced(function* (legacy: number) {
  if (legacy <= 0) {
    // Legacy `poll_interval <= 0` meant "no polling": keep that meaning instead of failing validation.
    return { ...defaults, enabled: false, poll_interval: legacy }
  }
  const bands: BandTable = {
    hot: { ...defaultBands.hot, interval_s: Math.min(defaultBands.hot.interval_s, legacy) },
    warm: { ...defaultBands.warm, interval_s: Math.min(defaultBands.warm.interval_s, legacy) },
    cool: { ...defaultBands.cool, interval_s: Math.min(defaultBands.cool.interval_s, legacy) },
    idle: { interval_s: legacy }
  }
  let tick_s = defaults.tick_s
  if (tick_s > bands.hot.interval_s) {
    yield* Effect.logWarning(
      `attention: legacy poll_interval=${legacy} is below tick_s=${tick_s}; tick_s clamped to ${bands.hot.interval_s}`
    )
    tick_s = bands.hot.interval_s
  }
  return yield* checked({ ...defaults, tick_s, bands, poll_interval: legacy })
})

/**
 * A raw attention block over `base`: each key given replaces the base's, a band given replaces that band's whole
 * spec, pinned targets are added to the base's; the result is validated.
 */
const overlay = Effect.fnUntraced(function* (base: AttentionConfig, raw: unknown, what: string) {
  const block = yield* parseRaw(raw, what)
  const bands = yield* mergeBands(base.bands, block.bands)
  const pinned = { ...base.pinned, ...(yield* parsePinned(block.pinned)) }
  return yield* checked({
    enabled: block.enabled ?? base.enabled,
    tick_s: block.tick_s ?? base.tick_s,
    thread_window_s: block.thread_window_s ?? base.thread_window_s,
    bands,
    pinned,
    poll_interval: block.poll_interval ?? base.poll_interval
  })
})

/**
 * The daemon's `attention:` block to an effective config. `raw` is the parsed value; `undefined` means "no block", which applies the legacy migration (IDLE polls every `poll_interval`, default 60, and the warmer bands clamp down to it; `poll_interval <= 0` yields `enabled: false`; a `poll_interval` below `tick_s` clamps `tick_s` with a warning). Fails with an {@link AttentionConfigError} naming the broken rule.
 *
 * @category decoding
 * @since 0.1.0
 */
export const decode = Effect.fnUntraced(function* (
  raw: unknown,
  options: DecodeOptions = {}
): Effect.fn.Return<AttentionConfig, AttentionConfigError> {
  const legacy = options.legacyPollInterval ?? DEFAULT_LEGACY_POLL_INTERVAL
  if (!Number.isFinite(legacy)) return yield* fail(`poll_interval must be a finite number of seconds (got ${legacy})`)
  // Presence is what counts: only a missing block migrates; `null` or `{}` is an (empty) block.
  if (raw === undefined) return yield* legacyMigration(legacy)
  return yield* overlay({ ...defaults, poll_interval: legacy }, raw, "the attention block")
})

const isEmptyOverride = (overrides: unknown): boolean =>
  overrides === undefined ||
  overrides === null ||
  (Predicate.isObject(overrides) && !Array.isArray(overrides) && Object.keys(overrides).length === 0)

/**
 * Merges an agent's `attention:` overrides over the daemon config (`enabled`, `tick_s`, `thread_window_s`, `poll_interval` replace; each band given replaces that band's whole spec; `pinned` merges per target), then validates again.
 *
 * @category combinators
 * @since 0.1.0
 */
export const resolve = Effect.fnUntraced(function* (
  daemon: AttentionConfig,
  agentOverrides: unknown
): Effect.fn.Return<AttentionConfig, AttentionConfigError> {
  if (isEmptyOverride(agentOverrides)) return daemon
  return yield* overlay(daemon, agentOverrides, "the agent's attention overrides")
})

/**
 * The startup summary log line, e.g. `attention: enabled=true bands=[hot=30/90 warm=60/120 cool=120/300 idle=600] override=no`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const summary = (config: AttentionConfig, options: { readonly override?: boolean | undefined } = {}): string => {
  const bands = bandKeys
    .map((key) => {
      const spec = config.bands[key]
      return key === "idle" || spec.hold_s === undefined
        ? `${key}=${spec.interval_s}`
        : `${key}=${spec.interval_s}/${spec.hold_s}`
    })
    .join(" ")
  const pinned = Object.entries(config.pinned ?? {})
  const pins = pinned.length === 0 ? "" : ` pinned=[${pinned.map(([target, band]) => `${target}=${band}`).join(" ")}]`
  const override = `override=${options.override ? "yes" : "no"}`
  // The spec's exact shape, `attention: enabled=true bands=[hot=30/120 ...] override=yes`; heed's pins come last.
  return config.enabled
    ? `attention: enabled=true bands=[${bands}] ${override}${pins}`
    : `attention: enabled=false poll_interval=${config.poll_interval} ${override}`
}

/**
 * An agent entry's overrides, read from `attention` or, after a dataclass round trip, `attention_overrides` (`attention` wins), so every backend reads them the same way.
 *
 * @category getters
 * @since 0.1.0
 */
export const overridesOf = (agent: unknown): unknown => {
  if (!Predicate.isObject(agent) || Array.isArray(agent)) return undefined
  const entry = agent as { readonly attention?: unknown; readonly attention_overrides?: unknown }
  return entry.attention ?? entry.attention_overrides
}

/**
 * A band's poll interval in seconds.
 *
 * @category getters
 * @since 0.1.0
 */
export const intervalOf = (config: AttentionConfig, band: Band.Band): number => config.bands[Band.key(band)].interval_s

/**
 * A band's hold in seconds (`undefined` for `IDLE`).
 *
 * @category getters
 * @since 0.1.0
 */
export const holdOf = (config: AttentionConfig, band: Band.Band): number | undefined =>
  band === "IDLE" ? undefined : config.bands[Band.key(band)].hold_s

/**
 * The defaults when an attention block exists: enabled, `tick_s` 5, `thread_window_s` 1800, the default band table, nothing pinned, `poll_interval` 60.
 *
 * @category constants
 * @since 0.1.0
 */
export const defaults: AttentionConfig = {
  enabled: true,
  tick_s: 5,
  thread_window_s: 1800,
  bands: defaultBands,
  pinned: {},
  poll_interval: DEFAULT_LEGACY_POLL_INTERVAL
}

/**
 * The effective attention configuration, with upstream's snake_case keys:
 *
 * - `enabled`: adaptive polling on; `false` selects the legacy fixed loop every `poll_interval` seconds
 *   (none at all when `poll_interval <= 0`);
 * - `tick_s`: how often the scheduler looks for due targets;
 * - `thread_window_s`: how long after speaking (or being mentioned) on a target its ambient traffic still counts;
 * - `bands.{hot,warm,cool,idle}.{interval_s,hold_s}`: poll interval and hold per band (no `hold_s` for `idle`);
 * - `pinned`: targets whose band is fixed (`{ "#ops": "HOT" }`);
 * - `poll_interval`: the legacy fixed interval.
 *
 * @category models
 * @since 0.1.0
 */
export interface AttentionConfig {
  readonly enabled: boolean
  readonly tick_s: number
  readonly thread_window_s: number
  readonly bands: BandTable
  readonly pinned: { readonly [target: string]: Band.Band }
  readonly poll_interval: number
}

/**
 * The config schema over the snake_case keys. Decoding with it (`Schema.decodeUnknownEffect(AttentionConfig)`)
 * checks the validation rules; a missing top-level key takes its default (as upstream's dataclass does: `enabled`
 * true, `tick_s` 5, `thread_window_s` 1800, the default band table, nothing `pinned`, `poll_interval` 60), and an
 * IDLE `hold_s` is dropped with a logged warning. It takes whole bands; for a raw `attention:` block with partial
 * bands, legacy migration and clear errors use {@link decode}; {@link resolve} merges an agent's overrides.
 *
 * Both fail with an {@link AttentionConfigError} when intervals are not monotonic (`hot <= warm <= cool <= idle`), a
 * value is not positive, `tick_s` exceeds the smallest interval, a non-IDLE band lacks `hold_s`, or a band name is
 * unknown.
 *
 * **Example** (Decoding a daemon block and an agent override)
 *
 * ```ts
 * import { AttentionConfig } from "@heed/attention-bands"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function*() {
 *   const daemon = yield* AttentionConfig.decode({ tick_s: 5, bands: { idle: { interval_s: 900 } } })
 *   const agent = yield* AttentionConfig.resolve(daemon, { bands: { hot: { interval_s: 15, hold_s: 60 } } })
 *   return AttentionConfig.summary(agent, { override: true })
 *   // "attention: enabled=true bands=[hot=15/60 warm=120/300 cool=300/600 idle=900] override=yes"
 * })
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const AttentionConfig = schema
