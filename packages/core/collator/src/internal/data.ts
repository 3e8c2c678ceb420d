/**
 * Reading untrusted entries: the snapshot comes from a store and may hold anything, so every field is read
 * defensively (a malformed entry is skipped or never matches; it never throws).
 *
 * @since 0.1.0
 */
import type { Entry } from "../Entry.ts"
import { parseIso } from "./time.ts"

export type Data = Record<string, unknown>

export const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)
export const dataOf = (entry: Entry): Data =>
  typeof entry.data === "object" && entry.data !== null ? (entry.data as Data) : {}
export const tagsOf = (entry: Entry): ReadonlyArray<string> => {
  if (!Array.isArray(entry.tags)) return []
  // Tags are nearly always all strings: then the entry's own array serves (it is never mutated here).
  for (const tag of entry.tags) {
    if (typeof tag !== "string") return entry.tags.filter((tag): tag is string => typeof tag === "string")
  }
  return entry.tags
}
export const timeOf = (entry: Entry): number => parseIso(entry.updated) ?? parseIso(entry.created) ?? 0
export const isLive = (entry: Entry, now: number): boolean => {
  if (entry.deleted !== null && entry.deleted !== undefined) return false
  const expires = parseIso(entry.expires)
  return expires === undefined || expires > now
}

/** Items grouped by key, each group in input order, the groups in order of first appearance. */
export const groupBy = <A>(items: Iterable<A>, key: (a: A) => string): Map<string, Array<A>> => {
  const map = new Map<string, Array<A>>()
  for (const item of items) {
    const k = key(item)
    const list = map.get(k)
    if (list === undefined) map.set(k, [item])
    else list.push(item)
  }
  return map
}

/**
 * Sets `record[key]` as an own, enumerable property. Keys such as source names and labels come from clients, and
 * a plain assignment with the key `__proto__` would replace the object's prototype instead, losing the entry.
 */
export const setOwn = <V>(record: Record<string, V>, key: string, value: V): void => {
  if (key === "__proto__")
    Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true })
  else record[key] = value
}
