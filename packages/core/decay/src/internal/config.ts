/**
 * Normalisation of numeric settings shared by the pure functions.
 *
 * @since 0.1.0
 */

const positiveInt = (value: unknown, fallback: number): number =>
  typeof value === "number" && Number.isFinite(value) && value >= 1 ? Math.floor(value) : fallback

/** Distinct keyword hits needed for a reference; bad values fall back to 2. */
export const normalizeOverlap = (value: number | undefined): number => positiveInt(value, 2)

/** A threshold in turns; bad values fall back to `fallback`. */
export const normalizeTurns = (value: unknown, fallback: number): number => positiveInt(value, fallback)
