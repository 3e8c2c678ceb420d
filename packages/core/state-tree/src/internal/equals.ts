/**
 * Structural equality of JSON-like values: what the diff compares node fields with.
 *
 * @since 0.1.0
 * @internal
 */

/**
 * Structural equality of JSON-like values (key order ignored; `undefined` properties count as absent, and an
 * `undefined` array element equals `null`, as in JSON).

 */
export const equals = (a: unknown, b: unknown): boolean => {
  if (a === b) return true
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) {
      const va = a[i]
      const vb = b[i]
      // JSON writes an `undefined` array element as `null`
      if (va !== vb && (typeof va !== "object" || !equals(va, vb)) && !(va == null && vb == null)) return false
    }
    return true
  }
  if (Array.isArray(b)) return false
  return equalRecords(a as Record<string, unknown>, b as Record<string, unknown>)
}

// Records are compared in two `for…in` passes (no key arrays allocated); primitive values are compared inline and
// only nested objects recurse, so the flat records that make up most nodes (`properties`, `meta`) cost no calls.
const equalRecords = (a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>): boolean => {
  let na = 0
  for (const key in a) {
    const va = a[key]
    if (va === undefined) continue
    na++
    const vb = b[key]
    if (va !== vb && (typeof va !== "object" || !equals(va, vb))) return false
  }
  let nb = 0
  for (const key in b) if (b[key] !== undefined) nb++
  return na === nb
}
