import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { Patch } from "../src/index.ts"
import type { Node } from "../src/Node.ts"
import { arbitraryTree, n } from "./fixtures.ts"

const root = (children: ReadonlyArray<Node>) => n("root", children, { type: "root" })

describe("Patch.diff", () => {
  it("identical trees give 0 ops", () => {
    const a = root([n("x", undefined, { properties: { v: 1 } })])
    assert.deepStrictEqual(Patch.diff(a, structuredClone(a)), [])
  })

  it("a summary change produces a meta replace", () => {
    const a = root([n("x", undefined, { meta: { summary: "one" } })])
    const b = root([n("x", undefined, { meta: { summary: "two" } })])
    assert.deepStrictEqual(Patch.diff(a, b), [{ op: "replace", path: "/x/meta", value: { summary: "two" } }])
  })

  it("property ops use node ids: /editor/file/properties/dirty", () => {
    const a = root([n("editor", [n("file", undefined, { properties: { dirty: false, old: 1 } })])])
    const b = root([n("editor", [n("file", undefined, { properties: { dirty: true, fresh: 2 } })])])
    assert.deepStrictEqual(Patch.diff(a, b), [
      { op: "replace", path: "/editor/file/properties/dirty", value: true },
      { op: "remove", path: "/editor/file/properties/old" },
      { op: "add", path: "/editor/file/properties/fresh", value: 2 }
    ])
  })

  it("sliding a window gives 2 removes and 2 adds", () => {
    const a = root([n("i0"), n("i1"), n("i2"), n("i3")])
    const b = root([n("i2"), n("i3"), n("i4"), n("i5")])
    const ops = Patch.diff(a, b)
    assert.deepStrictEqual(ops.filter((op) => op.op === "remove").length, 2)
    assert.deepStrictEqual(ops.filter((op) => op.op === "add").length, 2)
    assert.deepStrictEqual(Patch.apply(a, ops), b)
  })

  it("adding a content_ref produces a patch", () => {
    const ref = { type: "text", mime: "text/plain", summary: "log" } as const
    assert.deepStrictEqual(Patch.diff(root([n("x")]), root([n("x", undefined, { content_ref: ref })])), [
      { op: "add", path: "/x/content_ref", value: ref }
    ])
  })

  it("reordering [a,b,c] → [c,a,b] starts with a move of c to index 0", () => {
    const ops = Patch.diff(root([n("a"), n("b"), n("c")]), root([n("c"), n("a"), n("b")]))
    assert.deepStrictEqual(ops[0], { op: "move", path: "/c", index: 0 })
    assert.strictEqual(ops.length, 1)
  })

  it("an insert in the middle carries its index", () => {
    const b = n("b")
    assert.deepStrictEqual(Patch.diff(root([n("a"), n("c")]), root([n("a"), b, n("c")])), [
      { op: "add", path: "/b", value: b, index: 1 }
    ])
  })

  it("mirror round trip [a,b,c,d] → [d,b,a,c]", () => {
    const a = root([n("a"), n("b"), n("c"), n("d")])
    const b = root([n("d"), n("b"), n("a"), n("c")])
    assert.deepStrictEqual(Patch.apply(a, Patch.diff(a, b)), b)
  })

  it("property keys are escaped per RFC 6901 (a/b → a~1b, c~d → c~0d) and unescaped by apply", () => {
    const a = root([n("x", undefined, { properties: {} })])
    const b = root([n("x", undefined, { properties: { "a/b": 1, "c~d": 2 } })])
    const ops = Patch.diff(a, b)
    assert.deepStrictEqual(
      ops.map((op) => op.path),
      ["/x/properties/a~1b", "/x/properties/c~0d"]
    )
    assert.deepStrictEqual(Patch.apply(a, ops), b)
    assert.strictEqual(Patch.unescapeKey(Patch.escapeKey("~/~")), "~/~")
  })

  it("heed differs: a type change under the same id becomes remove + add", () => {
    const after = n("x", undefined, { type: "status" })
    assert.deepStrictEqual(Patch.diff(root([n("x", undefined, { type: "item" })]), root([after])), [
      { op: "remove", path: "/x" },
      { op: "add", path: "/x", value: after, index: 0 }
    ])
  })

  it("a different root is replaced wholesale", () => {
    const next = n("other", undefined, { type: "root" })
    assert.deepStrictEqual(Patch.diff(root([]), next), [{ op: "replace", path: "", value: next }])
    assert.strictEqual(Patch.apply(root([]), Patch.diff(root([]), next)), next)
  })

  it("roots with the same children that differ only in id, or only in type, are replaced wholesale in both formats", () => {
    const children = [n("x", undefined, { properties: { v: 1 } })]
    const renamed = n("other", children, { type: "root" })
    const retyped = n("root", children, { type: "view" })
    for (const format of ["compact", "slop"] as const) {
      assert.deepStrictEqual(Patch.diff(root(children), renamed, format), [{ op: "replace", path: "", value: renamed }])
      assert.deepStrictEqual(Patch.diff(root(children), retyped, format), [{ op: "replace", path: "", value: retyped }])
    }
  })
})

describe("Patch.diff fast paths", () => {
  it("property: shared subtrees and fully distinct copies give the same ops", () => {
    fc.assert(
      fc.property(arbitraryTree(), arbitraryTree(), (a, b) => {
        const ops = Patch.diff(a, b)
        assert.deepStrictEqual(Patch.diff(structuredClone(a), structuredClone(b)), ops)
        assert.deepStrictEqual(Patch.diff(a, structuredClone(a)), [])
      }),
      { numRuns: 300 }
    )
  })

  it("equals follows JSON: an undefined array element equals null, an undefined property is absent", () => {
    assert.isTrue(Patch.equals([undefined], [null]))
    assert.isTrue(Patch.equals({ a: 1, b: undefined }, { a: 1 }))
    assert.isFalse(Patch.equals({ a: null }, {}))
    assert.isFalse(Patch.equals([undefined], [0]))
  })

  it("property: equals agrees with comparing key-sorted JSON", () => {
    const canonical = (value: unknown): unknown =>
      Array.isArray(value)
        ? value.map(canonical)
        : typeof value === "object" && value !== null
          ? Object.fromEntries(
              Object.entries(value)
                .filter(([, v]) => v !== undefined)
                .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))
                .map(([key, v]) => [key, canonical(v)])
            )
          : value
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: "small" },
        fc.constantFrom(0, 1, "a", "b", true, null, undefined),
        fc.array(tie("value"), { maxLength: 3 }),
        fc.dictionary(fc.constantFrom("k", "l", "m"), tie("value"), { maxKeys: 3 })
      )
    })).value
    fc.assert(
      fc.property(json, json, (a, b) => {
        const expected = JSON.stringify(canonical(a)) === JSON.stringify(canonical(b))
        assert.strictEqual(Patch.equals(a, b), expected)
        assert.isTrue(Patch.equals(a, structuredClone(a)))
      }),
      { numRuns: 2000 }
    )
  })
})

describe("Patch.apply", () => {
  it("does not modify its input and shares untouched subtrees", () => {
    const untouched = n("keep", [n("deep")])
    const a = root([untouched, n("x", undefined, { properties: { v: 1 } })])
    const frozen = structuredClone(a)
    const b = Patch.apply(a, [{ op: "replace", path: "/x/properties/v", value: 2 }])
    assert.deepStrictEqual(a, frozen)
    assert.strictEqual(b.children![0], untouched)
    assert.strictEqual(b.children![1]!.properties?.v, 2)
  })

  it("throws a PatchError naming the path for an op that does not fit", () => {
    assert.throws(() => Patch.apply(root([]), [{ op: "remove", path: "/nope" }]), /no child "nope"/)
    assert.throws(() => Patch.apply(root([]), [{ op: "replace", path: "/a/b/properties/x", value: 1 }]), /no node "a"/)
  })

  it("the error is tagged PatchError and carries the op's path", () => {
    try {
      Patch.apply(root([]), [{ op: "remove", path: "/nope" }])
      assert.fail("expected a PatchError")
    } catch (error) {
      assert.instanceOf(error, Patch.PatchError)
      assert.strictEqual((error as Patch.PatchError)._tag, "PatchError")
      assert.strictEqual((error as Patch.PatchError).path, "/nope")
    }
  })

  it("property: apply(a, diff(a, b)) equals b", () => {
    fc.assert(
      fc.property(arbitraryTree(), arbitraryTree(), (a, b) => {
        assert.deepStrictEqual(Patch.apply(a, Patch.diff(a, b)), b)
      }),
      { numRuns: 300 }
    )
  })

  it("property: apply(a, diff(a, b)) equals b, also with empty children lists", () => {
    fc.assert(
      fc.property(arbitraryTree(4, true), arbitraryTree(4, true), (a, b) => {
        assert.deepStrictEqual(Patch.apply(a, Patch.diff(a, b)), b)
        assert.deepStrictEqual(Patch.diff(a, structuredClone(a)), [])
      }),
      { numRuns: 500 }
    )
  })

  it("an empty children list survives a round trip (children: [] is not the same as no children)", () => {
    const cases: Array<[Node, Node]> = [
      [root([n("x", [n("y")])]), root([n("x", [])])],
      [root([n("x")]), root([n("x", [])])],
      [root([n("x", [])]), root([n("x")])],
      [root([n("x", [])]), root([n("x", [n("y")])])],
      [root([n("x", [n("y")])]), root([n("x")])],
      [root([n("x")]), root([])],
      [root([]), root([n("x")])],
      [n("root", undefined, { type: "root" }), root([])],
      [root([n("x", [n("y")])]), root([{ id: "x", type: "item", children: null }])],
      [root([{ id: "x", type: "item", children: null }]), root([n("x")])]
    ]
    for (const [a, b] of cases) {
      const ops = Patch.diff(a, b)
      assert.deepStrictEqual(Patch.apply(a, ops), b, JSON.stringify([a, b, ops]))
    }
  })
})

// SLOP's consumer SDK reads a path as node ids, except the field names below, and applies only add/remove/replace.
const slopFields = new Set(["properties", "meta", "affordances", "content_ref"])

/** Why SLOP's consumer would misapply `op`, or undefined when it applies it as heed means it. */
const slopProblem = (op: Patch.Op): string | undefined => {
  if (op.op === "move" || (op.op === "add" && op.index !== undefined)) return "move or index"
  if (op.path.includes("~")) return "an escaped segment"
  const segments = op.path.split("/").filter((segment) => segment !== "")
  const last = segments.at(-1)
  const inField = segments.slice(0, -1).some((segment) => slopFields.has(segment))
  // a whole-field add/remove below the root reads as a child op
  if (op.op !== "replace" && segments.length > 1 && slopFields.has(last!) && !inField) return "a whole-field op"
  // a replace of a child by id sets a property named after it
  if (op.op === "replace" && last !== undefined && last !== "children" && !slopFields.has(last) && !inField) {
    return "a child replace"
  }
  return undefined
}

/** Renames ids g and h (below the root) to ids SLOP forbids: "g/x" and "h~y". */
const oddIds = (node: Node, top = true): Node => {
  const id = top ? node.id : node.id === "g" ? "g/x" : node.id === "h" ? "h~y" : node.id
  return node.children ? { ...node, id, children: node.children.map((child) => oddIds(child, false)) } : { ...node, id }
}

describe('Patch.diff, "slop" format (what SLOP\'s own consumer applies exactly)', () => {
  const slop = (a: Node, b: Node) => Patch.diff(a, b, "slop")

  it("an append is a plain add; an insert or a reorder replaces the child list", () => {
    const c = n("c")
    assert.deepStrictEqual(slop(root([n("a")]), root([n("a"), c])), [{ op: "add", path: "/c", value: c }])
    const inserted = [n("a"), n("b"), n("c")]
    assert.deepStrictEqual(slop(root([n("a"), n("c")]), root(inserted)), [
      { op: "replace", path: "/children", value: inserted }
    ])
    const reordered = [n("c"), n("a"), n("b")]
    assert.deepStrictEqual(slop(root([n("a"), n("b"), n("c")]), root(reordered)), [
      { op: "replace", path: "/children", value: reordered }
    ])
  })

  it("removes and appends that keep the order are written as they are, changes inside kept children per key", () => {
    const a = root([n("a", undefined, { properties: { v: 1 } }), n("b"), n("c")])
    const d = n("d")
    const b = root([n("a", undefined, { properties: { v: 2 } }), n("c"), d])
    assert.deepStrictEqual(slop(a, b), [
      { op: "remove", path: "/b" },
      { op: "add", path: "/d", value: d },
      { op: "replace", path: "/a/properties/v", value: 2 }
    ])
  })

  it("a field that appears below the root is replaced; one that disappears replaces the parent's list", () => {
    const stamped = root([n("x", [n("y", undefined, { meta: { changed: true } })])])
    const cleared = root([n("x", [n("y")])])
    assert.deepStrictEqual(slop(cleared, stamped), [{ op: "replace", path: "/x/y/meta", value: { changed: true } }])
    assert.deepStrictEqual(slop(stamped, cleared), [{ op: "replace", path: "/x/children", value: [n("y")] }])
    // at the root SLOP's consumer reads `/meta` as the field
    const bare = root([])
    const marked = { ...bare, meta: { salience: 1 } }
    assert.deepStrictEqual(slop(bare, marked), [{ op: "add", path: "/meta", value: { salience: 1 } }])
    assert.deepStrictEqual(slop(marked, bare), [{ op: "remove", path: "/meta" }])
  })

  it("a property key holding / or ~ replaces the properties whole, without escapes", () => {
    const a = root([n("x", undefined, { properties: { plain: 1 } })])
    const b = root([n("x", undefined, { properties: { plain: 2, "a/b": 1 } })])
    assert.deepStrictEqual(slop(a, b), [{ op: "replace", path: "/x/properties", value: { plain: 2, "a/b": 1 } }])
  })

  it("a node whose id holds / or ~ is only sent inside its parent's list", () => {
    const a = root([n("ci/github", undefined, { properties: { v: 1 } }), n("ok")])
    const b = root([n("ci/github", undefined, { properties: { v: 2 } }), n("ok")])
    assert.deepStrictEqual(slop(a, b), [{ op: "replace", path: "/children", value: b.children }])
    // the compact format escapes the id instead
    assert.deepStrictEqual(Patch.diff(a, b), [{ op: "replace", path: "/ci~1github/properties/v", value: 2 }])
    assert.deepStrictEqual(Patch.apply(a, Patch.diff(a, b)), b)
  })

  it("a child list that becomes absent at the root, which SLOP cannot express, replaces the whole tree", () => {
    const next = n("root", undefined, { type: "root" })
    assert.deepStrictEqual(slop(root([n("x")]), next), [{ op: "replace", path: "", value: next }])
    // emptied to [] is a replace of the list
    assert.deepStrictEqual(slop(root([n("x")]), root([])), [{ op: "replace", path: "/children", value: [] }])
  })

  it("property: apply(a, diff(a, b, slop)) equals b and no op is one SLOP's consumer misreads", () => {
    fc.assert(
      fc.property(arbitraryTree(4, true), arbitraryTree(4, true), (x, y) => {
        const [a, b] = [oddIds(x), oddIds(y)]
        const ops = slop(a, b)
        assert.deepStrictEqual(Patch.apply(a, ops), b)
        if (ops.length === 1 && ops[0]!.path === "") return
        for (const op of ops) assert.isUndefined(slopProblem(op), JSON.stringify(op))
        assert.deepStrictEqual(slop(a, structuredClone(a)), [])
      }),
      { numRuns: 1000 }
    )
  })
})
