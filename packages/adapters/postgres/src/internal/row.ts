/**
 * Conversion between `Entry` values and `entries` rows.
 *
 * @since 0.1.0
 */
import type { Entry } from "@heed/collator/Entry"
import { StoreError } from "@heed/collator/Store"

const naive = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/

/** Milliseconds since the epoch of an ISO 8601 string (naive means UTC), or `undefined`. */
export const parseIso = (value: unknown): number | undefined => {
  if (typeof value !== "string" || value.length === 0) return undefined
  const ms = Date.parse(naive.test(value) ? `${value}Z` : value)
  return Number.isNaN(ms) ? undefined : ms
}

const invalid = (message: string) => new StoreError({ message, retryable: false })

/** The instant in milliseconds since the epoch, or a `StoreError` naming the field. */
export const instantParam = (field: string, value: unknown): number | StoreError => {
  const ms = parseIso(value)
  return ms === undefined ? invalid(`${field} must be an ISO 8601 timestamp, got ${JSON.stringify(value)}`) : ms
}

/** The instant as the ISO string PostgreSQL receives, or a `StoreError` naming the field. */
export const isoParam = (field: string, value: unknown): string | StoreError => {
  const ms = instantParam(field, value)
  return ms instanceof StoreError ? ms : new Date(ms).toISOString()
}

/**
 * The `SELECT` list of an entry row: the id and one text column, the verbatim envelope, or for rows without one
 * (written or edited by plain SQL) a JSON array of the columns. One text column per row keeps the hot read path
 * cheap: the briefing reads 10k rows at a time, and each extra column costs on every row.
 */
export const selectList =
  "id, CASE WHEN envelope::text <> '{}' THEN envelope::text ELSE " +
  "json_build_array(type, source, tags, created, updated, expires, deleted, data, logical_key)::text END AS envelope"

/** A row of `entries` as both backends return it for {@link selectList}. */
export interface EntryRow {
  readonly id: string
  readonly envelope: string
}

const iso = (value: unknown): string | null => {
  if (value === null || value === undefined) return null
  const ms = value instanceof Date ? value.getTime() : Date.parse(String(value))
  return new Date(ms).toISOString()
}

/**
 * Decodes a row into an `Entry`: the caller's verbatim entry from `envelope` (a JSON object), or, for rows without
 * one, an entry built from the columns (a JSON array in {@link selectList}'s order).
 */
export const toEntry = (row: EntryRow): Entry => {
  const parsed: unknown = JSON.parse(row.envelope)
  if (!Array.isArray(parsed)) return parsed as Entry
  const [type, source, tags, created, updated, expires, deleted, data, logicalKey] = parsed as Array<unknown>
  const entry: Record<string, unknown> = {
    id: row.id,
    type,
    source,
    tags: tags ?? [],
    created: iso(created),
    updated: iso(updated),
    expires: iso(expires),
    deleted: iso(deleted),
    data: data ?? {}
  }
  if (logicalKey !== null && logicalKey !== undefined) entry.logical_key = logicalKey
  return entry as unknown as Entry
}

/** The parameters of an entry row, validated. */
export interface EntryParams {
  readonly id: string
  readonly type: string
  readonly source: string
  readonly tags: string
  readonly created: string
  readonly updated: string | null
  readonly expires: string | null
  readonly deleted: string | null
  readonly data: string
  readonly logical_key: string | null
  readonly envelope: string
  readonly language: string
}

/** The UTF-8 byte length of a string (lone surrogates count as the 3-byte replacement character). */
const utf8Length = (text: string): number => {
  let bytes = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x80) bytes += 1
    else if (code < 0x800) bytes += 2
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4
        i++
      } else bytes += 3
    } else bytes += 3
  }
  return bytes
}

const optionalIso = (field: string, value: unknown): string | null | StoreError =>
  value === null || value === undefined ? null : isoParam(field, value)

/** An escaped NUL (`\u0000`) in JSON text: PostgreSQL's text and jsonb types cannot hold it. */
const escapedNul = /(?<!\\)(?:\\\\)*\\u0000/

const json = (field: string, value: unknown): string | StoreError => {
  let text: string | undefined
  try {
    text = JSON.stringify(value)
  } catch (cause) {
    return invalid(`${field} is not JSON-serialisable: ${String(cause)}`)
  }
  if (text === undefined) return invalid(`${field} is not JSON-serialisable`)
  if (escapedNul.test(text))
    return invalid(`${field} contains a NUL (\\u0000) character, which PostgreSQL cannot store`)
  return text
}

const plainText = (field: string, value: unknown): string | StoreError =>
  typeof value !== "string"
    ? invalid(`${field} must be a string, got ${JSON.stringify(value) ?? typeof value}`)
    : value.includes("\u0000")
      ? invalid(`${field} contains a NUL (\\u0000) character, which PostgreSQL cannot store`)
      : value

/**
 * Validates an entry for writing and encodes it as statement parameters; `language` resolves the entry's
 * text-search configuration. Anything a column cannot hold is rejected with a `StoreError` naming the field, and so
 * is an entry whose JSON exceeds `maxBytes`.
 */
export const toParams = (
  entry: Entry,
  language: (entry: Entry) => string,
  maxBytes: number
): EntryParams | StoreError => {
  if (typeof entry !== "object" || entry === null) return invalid("an entry must be an object")
  const value = entry as unknown as Record<string, unknown>
  const id = plainText("id", value.id)
  if (id instanceof StoreError) return id
  if (id.length === 0) return invalid("id must not be empty")
  const type = plainText("type", value.type)
  if (type instanceof StoreError) return type
  const source = plainText("source", value.source)
  if (source instanceof StoreError) return source
  if (!Array.isArray(value.tags) || !value.tags.every((tag) => typeof tag === "string")) {
    return invalid("tags must be an array of strings")
  }
  if (typeof value.data !== "object" || value.data === null || Array.isArray(value.data)) {
    return invalid("data must be a JSON object")
  }
  const logicalKey = value.logical_key
  if (logicalKey !== undefined && logicalKey !== null) {
    const checked = plainText("logical_key", logicalKey)
    if (checked instanceof StoreError) return checked
  }
  const created = isoParam("created", value.created)
  if (created instanceof StoreError) return created
  const updated = optionalIso("updated", value.updated)
  if (updated instanceof StoreError) return updated
  const expires = optionalIso("expires", value.expires)
  if (expires instanceof StoreError) return expires
  const deleted = optionalIso("deleted", value.deleted)
  if (deleted instanceof StoreError) return deleted
  const tags = json("tags", value.tags)
  if (tags instanceof StoreError) return tags
  const data = json("data", value.data)
  if (data instanceof StoreError) return data
  const envelope = json("entry", entry)
  if (envelope instanceof StoreError) return envelope
  const bytes = utf8Length(envelope)
  if (bytes > maxBytes) {
    return invalid(`entry ${id} is ${bytes} bytes of JSON, over the store's limit of ${maxBytes} bytes`)
  }
  return {
    id,
    type,
    source,
    tags,
    created,
    updated,
    expires,
    deleted,
    data,
    logical_key: typeof logicalKey === "string" ? logicalKey : null,
    envelope,
    language: language(entry)
  }
}
