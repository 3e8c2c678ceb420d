/**
 * How entries are shown by the read tools: the full form, upstream's list form, and pages.
 *
 * @since 0.1.0
 */
import type { Entry } from "../Entry.ts"

/** A page of entries, as upstream's list tools return it. */
export interface Page {
  readonly entries: ReadonlyArray<Record<string, unknown>>
  readonly limit: number
  readonly offset: number
  readonly has_more: boolean
}

const withoutHistory = (data: Record<string, unknown>): Record<string, unknown> => {
  if (!("changelog" in data)) return data
  const { changelog: _, ...rest } = data
  return rest
}

const logicalKey = (entry: Entry) =>
  entry.logical_key === undefined || entry.logical_key === null ? {} : { logical_key: entry.logical_key }

/** The whole entry (its changelog only when `keepHistory`). */
export const fullView = (entry: Entry, keepHistory = true): Record<string, unknown> => ({
  id: entry.id,
  type: entry.type,
  source: entry.source,
  tags: entry.tags,
  created: entry.created,
  updated: entry.updated,
  expires: entry.expires,
  data: keepHistory ? entry.data : withoutHistory(entry.data),
  ...logicalKey(entry)
})

/** Upstream's list form: metadata, a description (falling back to an alert's message or a goal), no data. */
export const listView = (entry: Entry): Record<string, unknown> => {
  const description = entry.data.description ?? entry.data.message ?? entry.data.goal
  return {
    id: entry.id,
    type: entry.type,
    source: entry.source,
    tags: entry.tags,
    ...(typeof description === "string" ? { description } : {}),
    created: entry.created,
    updated: entry.updated,
    ...(entry.type === "intention" ? { goal: entry.data.goal, state: entry.data.state } : {}),
    ...logicalKey(entry)
  }
}

/** The view a `mode` parameter asks for. */
export const viewFor = (mode: "full" | "list" | undefined): ((entry: Entry) => Record<string, unknown>) =>
  mode === "list" ? listView : (entry) => fullView(entry)

/** A page from `limit + 1` fetched rows: `has_more` tells whether the extra row exists. */
export const page = (
  rows: ReadonlyArray<Entry>,
  limit: number,
  offset: number,
  view: (entry: Entry) => Record<string, unknown>
): Page => ({
  entries: rows.slice(0, limit).map(view),
  limit,
  offset,
  has_more: rows.length > limit
})
