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
