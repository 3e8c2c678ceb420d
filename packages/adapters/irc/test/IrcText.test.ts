import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as IrcText from "../src/IrcText.ts"

const bytes = (text: string) => new TextEncoder().encode(text).length

describe("IrcText", () => {
  it("one line per line of the text, blank lines dropped", () => {
    assert.deepStrictEqual(IrcText.splitMessage("a\r\nb\n\n  \rc", 100), ["a", "b", "c"])
    assert.deepStrictEqual(IrcText.splitMessage("   ", 100), [])
  })

  it("every piece fits the byte limit, no character is split, and nothing is lost", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 400 }), fc.integer({ min: 16, max: 120 }), (text, max) => {
        const lines = IrcText.splitMessage(text.replace(/[\r\n]/g, " "), max)
        for (const line of lines) assert.isAtMost(bytes(line), max)
        assert.strictEqual(lines.join("").replace(/\s/g, ""), text.replaceAll("\u0000", "").replace(/\s/g, ""))
      })
    )
  })

  it("the payload limit leaves room for the relayed prefix", () => {
    assert.isAtMost(IrcText.maxPayloadBytes("#dev") + "PRIVMSG #dev :".length + 2 + 107, 512)
  })
})
