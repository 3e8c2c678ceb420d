/**
 * Attention bands: `HOT`, `WARM`, `COOL` and `IDLE`, ordered from warmest (polled most often) to coldest.
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"
import * as Order from "effect/Order"
import * as Schema from "effect/Schema"

/**
 * An attention band, warmest first: `HOT` (0), `WARM` (1), `COOL` (2), `IDLE` (3). Logs and metrics use these
 * upper-case names.
 *
 * @category models
 * @since 0.1.0
 */
export type Band = "HOT" | "WARM" | "COOL" | "IDLE"

const values = ["HOT", "WARM", "COOL", "IDLE"] as const satisfies ReadonlyArray<Band>

const ranks: Readonly<Record<Band, number>> = { HOT: 0, WARM: 1, COOL: 2, IDLE: 3 }

const schema = Schema.Literals(values).annotate({
  message: `band must be one of ${values.join(", ")}`,
  description: "An attention band: HOT, WARM, COOL or IDLE."
})

const rank = (band: Band): number => ranks[band]

const fromRank = (rank: number): Band => values[Math.min(3, Math.max(0, Math.trunc(rank)))] ?? "IDLE"

const warmer = (band: Band): Band => fromRank(ranks[band] - 1)

const cooler = (band: Band): Band => fromRank(ranks[band] + 1)

const isBand = (input: unknown): input is Band => typeof input === "string" && Object.hasOwn(ranks, input)

const key = (band: Band): "hot" | "warm" | "cool" | "idle" => band.toLowerCase() as "hot" | "warm" | "cool" | "idle"

const order: Order.Order<Band> = Order.mapInput(Order.Number, rank)

const decode: (input: unknown) => Effect.Effect<Band, Schema.SchemaError> = Schema.decodeUnknownEffect(schema)

/**
 * The band schema (`"HOT" | "WARM" | "COOL" | "IDLE"`), carrying helpers:
 *
 * - `Band.values`: every band, warmest first;
 * - `Band.rank(b)`: `0` for `HOT` up to `3` for `IDLE` (the value of the `culture.attention.band` gauge);
 * - `Band.fromRank(n)`: the band of a rank, clamped to `0..3`;
 * - `Band.warmer(b)` / `Band.cooler(b)`: the adjacent band (`HOT` and `IDLE` saturate);
 * - `Band.key(b)`: the lower-case configuration key (`"hot"`, ...);
 * - `Band.is(u)`: a guard for untrusted input;
 * - `Band.Order`: an `Order` from warmest to coldest;
 * - `Band.decode(input)`: an Effect that decodes unknown input.
 *
 * **Example** (Moving between bands)
 *
 * ```ts
 * import { Band } from "@heed/attention-bands"
 *
 * Band.Band.cooler("HOT") // "WARM"
 * Band.Band.warmer("HOT") // "HOT"
 * Band.Band.rank("IDLE") // 3
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const Band = Object.assign(schema, {
  values,
  rank,
  fromRank,
  warmer,
  cooler,
  key,
  is: isBand,
  Order: order,
  decode
})
