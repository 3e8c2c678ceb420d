/**
 * RFC 6901 escaping of one path segment: node ids in SLOP paths and property keys in patch paths.
 *
 * @since 0.1.0
 * @internal
 */

/** `~` → `~0`, `/` → `~1`; segments without either are returned as they are. */
export const escapeSegment = (segment: string): string =>
  segment.includes("~") || segment.includes("/") ? segment.replace(/~/g, "~0").replace(/\//g, "~1") : segment

/** Reverses {@link escapeSegment}. */
export const unescapeSegment = (segment: string): string =>
  segment.includes("~") ? segment.replace(/~1/g, "/").replace(/~0/g, "~") : segment
