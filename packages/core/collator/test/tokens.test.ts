/**
 * The collator's o200k counter (pieces found by a scanner, each distinct piece counted once) against
 * `@heed/schema`'s `countO200k`, which runs the tokenizer's own expression: the counts must be equal.
 */
import { assert, describe, it } from "@effect/vitest"
import { TokenCounter } from "@heed/schema"
import * as fc from "fast-check"
import { Collator } from "../src/index.ts"
import { countO200kFast, partsOf } from "../src/internal/tokens.ts"
import { alert, intention, NOW, snapshot, status } from "./fixtures.ts"

// Characters and runs where the expression's alternatives meet: case changes, contractions, digit runs, spaces
// before punctuation, CR/LF runs, the slash after punctuation, control characters.
const tricky = fc.constantFrom(
  ..."aZbQz09 \t\n\r\v\f'\"{}:,./-_!?sStTlLvVeErRdDmM".split(""),
  "\u0000",
  "\u007f",
  "  ",
  "'ll",
  "'S",
  "ABc",
  "\r\n",
  " /",
  "/\n",
  "1234"
)

describe("countO200kFast", () => {
  it("equals countO200k on text built from tricky pieces", () => {
    fc.assert(
      fc.property(
        fc.array(tricky, { maxLength: 60 }).map((parts) => parts.join("")),
        (text) => assert.strictEqual(countO200kFast(text), TokenCounter.countO200k(text), JSON.stringify(text))
      ),
      { numRuns: 5000 }
    )
  })

  it("equals countO200k on arbitrary ASCII and on non-ASCII text (which it hands over)", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: "binary-ascii", maxLength: 80 }), fc.string({ maxLength: 40 })), (text) =>
        assert.strictEqual(countO200kFast(text), TokenCounter.countO200k(text), JSON.stringify(text))
      ),
      { numRuns: 5000 }
    )
  })

  it("equals countO200k on text mixing non-ASCII characters with digits, letters, spaces and punctuation", () => {
    // Letters, numbers (², ٣), punctuation (…, —) and white space (U+00A0, U+0085) outside ASCII, next to the digits
    // where the counter cuts the text.
    const wide = fc.constantFrom("…", "é", "Ü", "²", "٣", "—", "\u00a0", "\u0085", "日本", "🙂")
    fc.assert(
      fc.property(
        fc.array(fc.oneof(tricky, wide), { maxLength: 60 }).map((parts) => parts.join("")),
        (text) => assert.strictEqual(countO200kFast(text), TokenCounter.countO200k(text), JSON.stringify(text))
      ),
      { numRuns: 5000 }
    )
  })

  it("cuts text only before a digit that follows a letter or punctuation, so non-ASCII parts stay short", () => {
    assert.deepStrictEqual(partsOf('{"a":"disk…","t":"2026-03-20","n":12,"x":"b 7"}'), [
      '{"a":"disk…","t":"',
      "2026-",
      "03-",
      '20","n":',
      '12,"x":"b 7"}'
    ])
    // Before 0 and 9 too; never after white space, a digit or a non-ASCII character.
    assert.deepStrictEqual(partsOf("a0 1é2z9"), ["a", "0 1é2z", "9"])
    assert.deepStrictEqual(partsOf("…T12:05"), ["…T", "12:", "05"])
  })

  it("equals countO200k on briefings", () => {
    const { briefing } = Collator.generate(
      snapshot({
        statuses: [status("nas"), status("ci", { age: 500 })],
        alerts: [alert("nas", "raid", "critical", "RAID degraded: disk 3 failed — replace it (it's hot-swap)")],
        intentions: [intention("Call the plumber", { deliverIn: 600 })]
      }),
      NOW
    )
    const json = TokenCounter.toCompactJson(briefing)
    assert.strictEqual(countO200kFast(json), TokenCounter.countO200k(json))
    const pretty = JSON.stringify(briefing, null, 2)
    assert.strictEqual(countO200kFast(pretty), TokenCounter.countO200k(pretty))
  })
})
