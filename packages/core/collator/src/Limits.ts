/**
 * The limits on what a caller may write or ask for, in one place: every edge (MCP tools, the REST API, SLOP
 * affordances) checks its parameters against them before anything reaches the store, and answers a value beyond
 * one with an `invalid_parameter` error that names the field and the limit (an entry over {@link maxEntryBytes} is
 * `payload_too_large`).
 *
 * They exist because the stores have hard limits of their own that a caller must never hit: PostgreSQL refuses an
 * index row over 2,704 bytes (a `source`, `tag` or `logical_key` of a few thousand characters), an instant past the
 * year 9999 is not a date every layer can write, and the PostgreSQL store refuses an entry over 1 MiB of JSON.
 *
 * | limit | value | applies to |
 * | --- | --- | --- |
 * | {@link maxIdentifierLength} | 256 characters | `source`, `alert_id`, each tag, `key`, `scope`, `metric`, `logical_key`, `entry_id`, `learned_from`, `platform`, `content_type`, `language`, label names |
 * | {@link maxTags} | 64 | tags per call |
 * | {@link maxTextLength} | 65,536 characters | free text: `message`, `description`, `goal`, `reason`, `headline`, `constraints`, `detail`, `action`, `query`, `hint`, `effect`, a preference `value` |
 * | {@link maxEntryBytes} | 1 MiB | the stored entry as JSON (UTF-8), bodies and JSON objects included |
 * | {@link maxDurationMinutes} | 5,256,000 (10 years) | `duration_minutes` |
 * | {@link maxExpiresDays} | 3,650 (10 years) | `expires_days` |
 * | {@link maxTtlSec} | 315,360,000 (10 years) | `ttl_sec` |
 * | {@link maxCount} | 2,147,483,647 | `limit`, `offset` and other counts |
 * | {@link minYear}..{@link maxYear} | 0001..9999 | every ISO 8601 instant (`deliver_at`, `since`, …) |
 *
 * @since 0.1.0
 */

/**
 * The most characters of an identifier: `source`, `alert_id`, each tag, a preference `key` and `scope`, `metric`,
 * `logical_key`, `entry_id`, `learned_from`, `platform`, `content_type`, `language` and label names. PostgreSQL
 * indexes `(owner, type, source)`, `(owner, source, logical_key)` and every tag; 256 characters (at most 1,024 bytes
 * of UTF-8) keep every index row well under its 2,704-byte limit.
 *
 * @category constants
 * @since 0.1.0
 */
export const maxIdentifierLength = 256

/**
 * The most tags one call may give.
 *
 * @category constants
 * @since 0.1.0
 */
export const maxTags = 64

/**
 * The most characters of a free-text field (`message`, `description`, `goal`, `reason`, `headline`, `constraints`,
 * `detail`, `action`, `query`, `hint`, `effect`, a preference's `value`). A note's `content` and JSON objects
 * (`metrics`, `details`, …) are bounded by {@link maxEntryBytes} instead.
 *
 * @category constants
 * @since 0.1.0
 */
export const maxTextLength = 65_536

/**
 * The largest entry, in bytes of its JSON (UTF-8): the PostgreSQL store's own default limit. A write whose entry
 * would be larger (a large body, or an entry that grew: merged alert details, a long changelog) is refused with
 * `payload_too_large` naming its largest field, before it reaches the store.
 *
 * @category constants
 * @since 0.1.0
 */
export const maxEntryBytes = 1_048_576

/**
 * The longest suppression, in minutes (`duration_minutes`): ten years.
 *
 * @category constants
 * @since 0.1.0
 */
export const maxDurationMinutes = 5_256_000

/**
 * The longest life of a context entry, in days (`expires_days`): ten years.
 *
 * @category constants
 * @since 0.1.0
 */
export const maxExpiresDays = 3650

/**
 * The longest time-to-live of a status, in seconds (`ttl_sec`): ten years.
 *
 * @category constants
 * @since 0.1.0
 */
export const maxTtlSec = 315_360_000

/**
 * The largest count (`limit`, `offset`): PostgreSQL's `integer`.
 *
 * @category constants
 * @since 0.1.0
 */
export const maxCount = 2_147_483_647

/**
 * The earliest year of an instant a caller may give.
 *
 * @category constants
 * @since 0.1.0
 */
export const minYear = 1

/**
 * The latest year of an instant a caller may give (four-digit years: what ISO 8601 without extension, JavaScript's
 * `Date` and PostgreSQL's `timestamptz` all read and write alike).
 *
 * @category constants
 * @since 0.1.0
 */
export const maxYear = 9999

/**
 * The parameters that are identifiers, each at most {@link maxIdentifierLength} characters (`tags`: each tag, and at
 * most {@link maxTags} of them). Every other string parameter is free text of at most {@link maxTextLength}
 * characters; parameters that take JSON (a note's `content`, `metrics`, `details`, …) are bounded by
 * {@link maxEntryBytes}.
 *
 * @category constants
 * @since 0.1.0
 */
export const identifierParameters: ReadonlyArray<string> = [
  "source",
  "alert_id",
  "tags",
  "key",
  "scope",
  "metric",
  "logical_key",
  "entry_id",
  "learned_from",
  "platform",
  "content_type",
  "language"
]

/**
 * The string parameters bounded only by {@link maxEntryBytes}, not by {@link maxTextLength}: a note's `content`.
 *
 * @category constants
 * @since 0.1.0
 */
export const bodyParameters: ReadonlyArray<string> = ["content"]

/**
 * The most characters of the string parameter `name` (an identifier, free text, or a body bounded only by the entry
 * size: `undefined`).
 *
 * @category getters
 * @since 0.1.0
 */
export const maxLengthOf = (name: string): number | undefined =>
  identifierParameters.includes(name) ? maxIdentifierLength : bodyParameters.includes(name) ? undefined : maxTextLength

/**
 * The bytes of `text` in UTF-8, counted without encoding it.
 *
 * @category getters
 * @since 0.1.0
 */
export const utf8Length = (text: string): number => {
  let bytes = text.length
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    // 2 bytes below U+0800, 3 above, 4 for a surrogate pair (2 code units of 2 each).
    if (code >= 0x80) bytes += code >= 0x800 && (code < 0xd800 || code > 0xdfff) ? 2 : 1
  }
  return bytes
}
