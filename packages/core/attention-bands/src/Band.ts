/**
 * Attention bands: `HOT`, `WARM`, `COOL` and `IDLE`, ordered from warmest (polled most often) to coldest.
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"
import * as Ord from "effect/Order"
import * as Schema from "effect/Schema"

/**
 * An attention band, warmest first: `HOT` (0), `WARM` (1), `COOL` (2), `IDLE` (3). Logs and metrics use these
 * upper-case names.
 *
 * @category models
 * @since 0.1.0
 */
export type Band = "HOT" | "WARM" | "COOL" | "IDLE"

/**
 * Every band, warmest first.
 *
 * @category constants
 * @since 0.1.0
 */
export const values = ["HOT", "WARM", "COOL", "IDLE"] as const satisfies ReadonlyArray<Band>

const ranks: Readonly<Record<Band, number>> = { HOT: 0, WARM: 1, COOL: 2, IDLE: 3 }

const schema = Schema.Literals(values).annotate({
  message: `band must be one of ${values.join(", ")}`,
  description: "An attention band: HOT, WARM, COOL or IDLE."
})

/**
 * `0` for `HOT` up to `3` for `IDLE` (the value of the `culture.attention.band` gauge).
 *
 * @category getters
 * @since 0.1.0
 */
export const rank = (band: Band): number => ranks[band]

/**
 * The band of a rank, clamped to `0..3`.
 *
 * @category getters
 * @since 0.1.0
 */
export const fromRank = (rank: number): Band => values[Math.min(3, Math.max(0, Math.trunc(rank)))] ?? "IDLE"

/**
 * The next warmer band (`HOT` saturates).
 *
 * @category combinators
 * @since 0.1.0
 */
export const warmer = (band: Band): Band => fromRank(ranks[band] - 1)

/**
 * The next cooler band (`IDLE` saturates).
 *
 * @category combinators
 * @since 0.1.0
 */
export const cooler = (band: Band): Band => fromRank(ranks[band] + 1)

/**
 * A guard for untrusted input.
 *
 * @category guards
 * @since 0.1.0
 */
export const is = (input: unknown): input is Band => typeof input === "string" && Object.hasOwn(ranks, input)

/**
 * The lower-case configuration key of a band (`"hot"`, ...).
 *
 * @category getters
 * @since 0.1.0
 */
export const key = (band: Band): "hot" | "warm" | "cool" | "idle" =>
  band.toLowerCase() as "hot" | "warm" | "cool" | "idle"

/**
 * An `Order` from warmest to coldest.
 *
 * @category combinators
 * @since 0.1.0
 */
export const Order: Ord.Order<Band> = Ord.mapInput(Ord.Number, rank)

/**
 * Decodes unknown input into a band.
 *
 * @category decoding
 * @since 0.1.0
 */
export const decode: (input: unknown) => Effect.Effect<Band, Schema.SchemaError> = Schema.decodeUnknownEffect(schema)

/**
 * The band schema (`"HOT" | "WARM" | "COOL" | "IDLE"`); the module's functions work on its values.
 *
 * **Example** (Moving between bands)
 *
 * ```ts
 * import { Band } from "@heed/attention-bands"
 *
 * Band.cooler("HOT") // "WARM"
 * Band.warmer("HOT") // "HOT"
 * Band.rank("IDLE") // 3
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const Band = schema
