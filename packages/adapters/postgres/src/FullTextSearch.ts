/**
 * Full-text search over the entries of one owner, with upstream's weights (description A, content B, goal B,
 * tags C; an alert's `message` stands in for a missing description) and PostgreSQL's language configurations.
 * Lexical only: it needs no embedding provider (upstream refuses to search without one).
 *
 * @since 0.1.0
 */
import type { Entry, EntryType } from "@heed/collator/Entry"
import type { StoreError } from "@heed/collator/Store"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

/**
 * ISO 639-1 codes and the PostgreSQL text-search configuration (snowball stemmer) each maps to, as upstream.
 *
 * @category constants
 * @since 0.1.0
 */
export const languages: Readonly<Record<string, string>> = {
  ar: "arabic",
  hy: "armenian",
  eu: "basque",
  ca: "catalan",
  da: "danish",
  nl: "dutch",
  en: "english",
  fi: "finnish",
  fr: "french",
  de: "german",
  el: "greek",
  hi: "hindi",
  hu: "hungarian",
  id: "indonesian",
  ga: "irish",
  it: "italian",
  lt: "lithuanian",
  ne: "nepali",
  no: "norwegian",
  nb: "norwegian",
  pt: "portuguese",
  ro: "romanian",
  ru: "russian",
  sr: "serbian",
  es: "spanish",
  sv: "swedish",
  ta: "tamil",
  tr: "turkish",
  yi: "yiddish"
}

/**
 * The configuration for a language given as an ISO 639-1 code (`"en"`), a configuration name (`"english"`) or
 * `"simple"`; `undefined` when it is none of these or the database lacks it.
 *
 * @category getters
 * @since 0.1.0
 */
export const resolveLanguage = (language: string, available: ReadonlySet<string>): string | undefined => {
  const lower = language.trim().toLowerCase()
  const name = languages[lower] ?? lower
  return available.has(name) ? name : undefined
}

/**
 * A search request. `limit` defaults to 10 and is clamped to 1..100 (upstream's bounds).
 *
 * @category models
 * @since 0.1.0
 */
export interface SearchQuery {
  /** Free text, parsed with `plainto_tsquery` (so operators in it are plain words, never syntax). */
  readonly query: string
  /** ISO 639-1 code or configuration name for the query; default: the store's language. */
  readonly language?: string | undefined
  readonly types?: ReadonlyArray<EntryType> | undefined
  readonly source?: string | undefined
  /** Every listed tag must be present (AND). */
  readonly tags?: ReadonlyArray<string> | undefined
  /** Bounds (inclusive) on `COALESCE(updated, created)`. */
  readonly since?: string | undefined
  readonly until?: string | undefined
  /** Leave out entries expired at this ISO instant. */
  readonly activeAt?: string | undefined
  readonly limit?: number | undefined
}

/**
 * One hit: the entry and its `ts_rank_cd` score (higher is better).
 *
 * @category models
 * @since 0.1.0
 */
export interface SearchHit {
  readonly entry: Entry
  readonly rank: number
}

/**
 * The search service of a PostgreSQL/PGlite store (deleted entries never match).
 *
 * @category services
 * @since 0.1.0
 */
export class FullTextSearch extends Context.Service<
  FullTextSearch,
  {
    readonly search: (query: SearchQuery) => Effect.Effect<ReadonlyArray<SearchHit>, StoreError>
  }
>()("@heed/postgres/FullTextSearch") {}
