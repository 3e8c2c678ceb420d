/**
 * Patches between two versions of a tree: SLOP's RFC 6902-style ops with node-id path segments, in two formats:
 * `"slop"`, which SLOP's own consumer SDK applies exactly, and heed's `"compact"` one, with `index` on `add` and
 * SLOP's `move` extension.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { Applier } from "./internal/applyOps.ts"
import { compactOps } from "./internal/diffCompact.ts"
import { slopOps } from "./internal/diffSlop.ts"
import { equals as jsonEquals } from "./internal/equals.ts"
import { escapeSegment, unescapeSegment } from "./internal/pointer.ts"
import type { Node } from "./Node.ts"

/**
 * Schema of an {@link Op}.
 *
 * @category schemas
 * @since 0.1.0
 */
export const OpSchema = Schema.Union([
  Schema.Struct({
    op: Schema.Literal("add"),
    path: Schema.String,
    value: Schema.Unknown,
    index: Schema.optional(Schema.Int)
  }),
  Schema.Struct({ op: Schema.Literal("remove"), path: Schema.String }),
  Schema.Struct({ op: Schema.Literal("replace"), path: Schema.String, value: Schema.Unknown }),
  Schema.Struct({ op: Schema.Literal("move"), path: Schema.String, index: Schema.Int })
])

/**
 * One patch op. Paths are `/`-separated node ids from the served root (`""` is the root itself), followed by a
 * field (`properties`, `meta`, `affordances`, `content_ref`, or `children` for a whole child list) and, under
 * `properties`, an RFC 6901-escaped key. Ids holding `/` or `~` are escaped the same way.
 *
 * - `add`: a child (`value` = the node, `index` = its position) or a field or property;
 * - `remove`: a child or a field or property;
 * - `replace`: a field, a property, a node's whole `children` list, or with path `""` the whole tree;
 * - `move`: reorder a child to `index` (a SLOP extension, not RFC 6902's `from`/`path` move).
 *
 * @category models
 * @since 0.1.0
 */
export type Op = typeof OpSchema.Type

/**
 * Raised by {@link apply} when an op does not fit the tree (unknown node, bad field).
 *
 * @category errors
 * @since 0.1.0
 */
export class PatchError extends Schema.TaggedError<PatchError>()("PatchError", {
  path: Schema.String,
  message: Schema.String
}) {}

/**
 * Escapes a property key for a path (RFC 6901: `~` → `~0`, `/` → `~1`).
 *
 * @category getters
 * @since 0.1.0
 */
export const escapeKey: (key: string) => string = escapeSegment

/**
 * Reverses {@link escapeKey}.
 *
 * @category getters
 * @since 0.1.0
 */
export const unescapeKey: (segment: string) => string = unescapeSegment

/**
 * Structural equality of JSON-like values (key order ignored; `undefined` properties count as absent, and an
 * `undefined` array element equals `null`, as in JSON).
 *
 * @category guards
 * @since 0.1.0
 */
export const equals: (a: unknown, b: unknown) => boolean = jsonEquals

/**
 * How {@link diff} writes a patch.
 *
 * - `"slop"`: what SLOP's own consumer SDK applies exactly. That consumer knows only `add`, `remove` and `replace`,
 *   appends every added child at the end, ignores `move`, does not unescape path segments, and reads a whole-field
 *   `add` or `remove` of a field of a node below the root (`/x/meta`) as a child op. So inserts and reorders are sent
 *   as a `replace` of the child list (`/x/children`), a field that appears is `replace`d, a field that disappears
 *   below the root or a child list that becomes empty or absent replaces the parent's child list, properties are
 *   changed per key unless a key holds `/` or `~` or is empty (then `properties` is replaced whole), and a node whose
 *   id is not a valid SLOP id (see `Node.validateId`) is only ever sent inside its parent's child list. What cannot
 *   be said below the root is a `replace` of the whole tree (path `""`).
 * - `"compact"`: heed's form: removes, adds with `index`, `move`s, per-key property ops and whole-field ops; ids and
 *   keys holding `/` or `~` are escaped per RFC 6901.
 *
 * @category models
 * @since 0.1.0
 */
export type Format = "slop" | "compact"

/**
 * The ops that turn `previous` into `next`, in the given {@link Format} (`"compact"` by default):
 *
 * - properties: one `add`/`remove`/`replace` per key (keys escaped per RFC 6901);
 * - `meta`, `affordances`, `content_ref`: replaced wholesale when they differ;
 * - children (compact): `remove` for gone children, `add` with `index` for new ones, `move` for reordering, then
 *   recursion. A child whose `type` changed under the same id is removed and re-added (SLOP emits nothing), and so is
 *   a child whose children change between an empty list (`children: []`) and none or some, which child ops cannot
 *   express;
 * - children (slop): removes and appends when the kept children keep their order, a `replace` of the child list
 *   otherwise (see {@link Format}).
 *
 * When the roots differ in id or type, or in the same way between an empty and a missing or non-empty children
 * list, or (slop) in a way SLOP's consumer cannot apply at the root, the result is one `replace` of the whole tree
 * (path `""`). Subtrees shared by reference are skipped without comparison.
 *
 * @category combinators
 * @since 0.1.0
 */
export const diff = (previous: Node, next: Node, format: Format = "compact"): Array<Op> => {
  const ops =
    previous.id !== next.id || previous.type !== next.type
      ? undefined
      : format === "slop"
        ? slopOps(previous, next)
        : compactOps(previous, next)
  return ops ?? [{ op: "replace", path: "", value: next }]
}

/**
 * Applies ops (of either {@link Format}) to a tree and returns the new tree; the input is not modified and untouched
 * subtrees are shared. Path segments are unescaped per RFC 6901. Removing the last child removes the `children` key
 * (SLOP treats absent and empty children alike).
 * Throws {@link PatchError} when an op does not fit (use `Consumer` for an error-safe mirror).
 *
 * @category combinators
 * @since 0.1.0
 */
export const apply = (tree: Node, ops: ReadonlyArray<Op>): Node => {
  const applier = new Applier(tree)
  for (const op of ops) {
    const problem = applier.apply(op)
    if (problem !== undefined) throw new PatchError({ path: op.path, message: problem })
  }
  return applier.root
}
