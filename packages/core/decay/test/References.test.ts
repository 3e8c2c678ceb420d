import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { References } from "../src/index.ts"

const AUTH_SUMMARY = "Fixed 401 errors: refresh tokens never auto-called. Added axios interceptor."

describe("References.extractKeywords", () => {
  it("extracts summary keywords, unstemmed, without stop words (upstream)", () => {
    const keywords = References.extractKeywords(AUTH_SUMMARY)
    for (const word of ["fixed", "401", "refresh", "tokens", "interceptor", "axios", "auto-called"]) {
      assert.isTrue(keywords.has(word), word)
    }
    assert.isFalse(keywords.has("the"))
    assert.isFalse(keywords.has("token"))
    assert.strictEqual(References.extractKeywords("I am ok to go do it").size, 0)
  })

  it("empty, null and undefined give the empty set (upstream)", () => {
    assert.strictEqual(References.extractKeywords("").size, 0)
    assert.strictEqual(References.extractKeywords(null).size, 0)
    assert.strictEqual(References.extractKeywords(undefined).size, 0)
  })

  it("stopwords and short words only give the empty set (upstream)", () => {
    assert.strictEqual(References.extractKeywords("I am ok to go do it").size, 0)
  })

  it("strips punctuation at the ends but keeps hyphenated words (upstream)", () => {
    const keywords = References.extractKeywords('Worked on "auth-bug", (refresh) [tokens]! auto-called.')
    assert.isTrue(keywords.has("auth-bug"))
    assert.isTrue(keywords.has("refresh"))
    assert.isTrue(keywords.has("tokens"))
    assert.isTrue(keywords.has("auto-called"))
  })

  it("returns unstemmed keywords", () => {
    const keywords = References.extractKeywords("queries tokens caches")
    assert.deepStrictEqual([...keywords].sort(), ["caches", "queries", "tokens"])
  })
})

describe("References.isReferenced", () => {
  const keywords = References.extractKeywords(AUTH_SUMMARY)

  it("an id mention (upstream)", () => {
    assert.isTrue(References.isReferenced("What about auth-bug?", "auth-bug", keywords))
  })

  it("the id in space form (upstream)", () => {
    assert.isTrue(References.isReferenced("Show me the auth bug details", "auth-bug", keywords))
  })

  it("two keywords match (upstream)", () => {
    assert.isTrue(References.isReferenced("The refresh tokens are expiring", "auth-bug", keywords))
  })

  it("one keyword does not (upstream)", () => {
    assert.isFalse(References.isReferenced("The refresh rate is fine", "auth-bug", keywords))
  })

  it("unrelated text does not (upstream)", () => {
    assert.isFalse(References.isReferenced("What's the weather like today?", "auth-bug", keywords))
  })

  it("is case-insensitive for ids and keywords (upstream)", () => {
    assert.isTrue(References.isReferenced("Back to AUTH-BUG please", "auth-bug", keywords))
    assert.isTrue(References.isReferenced("REFRESH TOKENS again", "auth-bug", keywords))
  })

  it("heed differs: ids match on word boundaries, so id 'api' does not match 'capital'", () => {
    const none = new Set<string>()
    assert.isFalse(References.isReferenced("The capital of France", "api", none))
    assert.isFalse(References.isReferenced("rapid progress", "api", none))
    assert.isTrue(References.isReferenced("the api is down", "api", none))
    assert.isTrue(References.isReferenced("The API, again.", "api", none))
    assert.isFalse(References.isReferenced("an oauth-bugfix landed", "auth-bug", none))
  })

  it("hyphen, underscore and space forms of an id match each other", () => {
    const none = new Set<string>()
    assert.isTrue(References.isReferenced("the auth_bug ticket", "auth-bug", none))
    assert.isTrue(References.isReferenced("the auth-bug ticket", "auth bug", none))
    assert.isTrue(References.isReferenced("Auth   Bug", "auth-bug", none))
  })

  it("heed differs: plural and singular forms match (light stemming)", () => {
    assert.isTrue(References.isReferenced("the refresh token expired", "auth-bug", keywords))
    const queryKeywords = References.extractKeywords("Slow dashboard queries fixed with an index on caches")
    assert.isTrue(References.isReferenced("that dashboard query", "perf", queryKeywords))
    assert.isTrue(References.isReferenced("the cache index", "perf", queryKeywords))
    assert.isTrue(References.isReferenced("the two apis", "api", new Set()))
  })

  it("overlap counts distinct words", () => {
    assert.isFalse(References.isReferenced("refresh refresh refresh", "auth-bug", keywords))
  })

  it("min_keyword_overlap is configurable; bad values fall back to 2", () => {
    assert.isTrue(References.isReferenced("refresh rate", "auth-bug", keywords, { min_keyword_overlap: 1 }))
    assert.isFalse(References.isReferenced("refresh tokens", "auth-bug", keywords, { min_keyword_overlap: 3 }))
    assert.isFalse(References.isReferenced("refresh rate", "auth-bug", keywords, { min_keyword_overlap: 0 }))
    assert.isFalse(References.isReferenced("refresh rate", "auth-bug", keywords, { min_keyword_overlap: Number.NaN }))
  })

  it("stem folds plural forms", () => {
    assert.strictEqual(References.stem("tokens"), References.stem("token"))
    assert.strictEqual(References.stem("queries"), References.stem("query"))
    assert.strictEqual(References.stem("boxes"), References.stem("box"))
    assert.strictEqual(References.stem("status"), "status")
    assert.strictEqual(References.stem("class"), "class")
  })

  it("never throws and a message always references an id it contains", () => {
    fc.assert(
      fc.property(fc.string(), fc.stringMatching(/^[a-z][a-z0-9]{2,8}(-[a-z0-9]{2,8})?$/), (text, id) => {
        References.isReferenced(text, id, References.extractKeywords(text))
        return References.isReferenced(`${text} ${id} ${text}`, id, new Set())
      })
    )
  })
})
