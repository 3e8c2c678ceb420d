import { assert, describe, it } from "@effect/vitest"
import { Exit, Schema } from "effect"
import { AttentionMeta } from "../src/index.ts"

const decode = Schema.decodeUnknownExit(AttentionMeta.AttentionMeta)

describe("AttentionMeta", () => {
  it("decodes the full set of SLOP attention fields", () => {
    const meta = {
      salience: 0.9,
      pinned: true,
      changed: true,
      focus: false,
      urgency: "high",
      reason: "3 unread messages",
      summary: "Inbox"
    } as const
    const exit = decode(meta)
    assert.isTrue(Exit.isSuccess(exit))
    if (Exit.isSuccess(exit)) assert.deepStrictEqual(exit.value, meta)
  })

  it("accepts an empty object and applies defaults through the helpers", () => {
    const exit = decode({})
    assert.isTrue(Exit.isSuccess(exit))
    assert.strictEqual(AttentionMeta.salienceOf({}), 0.5)
    assert.strictEqual(AttentionMeta.salienceOf(undefined), 0.5)
    assert.strictEqual(AttentionMeta.urgencyOf({}), "none")
    assert.strictEqual(AttentionMeta.salienceOf({ salience: 0 }), 0)
  })

  it("rejects a bad salience or urgency, naming the field", () => {
    const badSalience = decode({ salience: 2 })
    assert.isTrue(Exit.isFailure(badSalience))
    assert.include(String(badSalience), "salience")
    assert.isTrue(Exit.isFailure(decode({ urgency: "soon" })))
    assert.isTrue(Exit.isFailure(decode({ pinned: "yes" })))
  })
})
