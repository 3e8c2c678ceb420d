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

describe("References: behaviours pinned by mutation testing", () => {
  const none = new Set<string>()

  it("function words from every part of the stopword list never become keywords", () => {
    const words = "which whose should theirs onto through already okay whether"
    assert.deepStrictEqual([...References.extractKeywords(words)], [])
    for (const word of words.split(" ")) assert.isTrue(References.STOPWORDS.has(word), word)
  })

  it("punctuation only at the start of a word is stripped too", () => {
    assert.deepStrictEqual([...References.extractKeywords("#hashtag (refresh")].sort(), ["hashtag", "refresh"])
  })

  it("a three-letter word keeps its final s; a longer one loses it", () => {
    assert.strictEqual(References.stem("gas"), "gas")
    assert.strictEqual(References.stem("ads"), "ads")
    assert.strictEqual(References.stem("cats"), "cat")
  })

  it("a four-letter word in -ies only drops its s", () => {
    assert.strictEqual(References.stem("ties"), "tie")
    assert.strictEqual(References.stem("lies"), "lie")
  })

  it("a word in -is of five letters or more keeps its s; a shorter one drops it", () => {
    assert.strictEqual(References.stem("basis"), "basis")
    assert.strictEqual(References.stem("analysis"), "analysis")
    assert.strictEqual(References.stem("apis"), "api")
  })

  it("a trailing e is folded only when more than three letters remain", () => {
    assert.strictEqual(References.stem("ices"), "ice")
    assert.strictEqual(References.stem("caches"), "cach")
    assert.strictEqual(References.stem("cache"), "cach")
  })

  it("tabs, Windows line endings and non-breaking spaces separate words like spaces", () => {
    const keywords = References.extractKeywords("The auto-called interceptor")
    assert.isTrue(References.isReferenced("auto-called\tinterceptor", "x", keywords))
    assert.isTrue(References.isReferenced("auto-called\r\ninterceptor", "x", keywords))
    assert.isTrue(References.isReferenced("auto-called\u00a0interceptor", "x", keywords))
    assert.isTrue(References.isReferenced("auto-called\u2003interceptor", "x", keywords))
  })

  it("words with accents are words, not separators", () => {
    const keywords = References.extractKeywords("Café menu prices")
    assert.isTrue(References.isReferenced("the café menu", "x", keywords))
    assert.isFalse(References.isReferenced("caf menu", "x", keywords))
  })

  it("braces, pipes and tildes around a word are stripped", () => {
    const keywords = References.extractKeywords(AUTH_SUMMARY)
    assert.isTrue(References.isReferenced("{refresh} |tokens|", "x", keywords))
    assert.isTrue(References.isReferenced("~refresh~ tokens", "x", keywords))
  })

  it("punctuation between the words of an id does not break the mention", () => {
    assert.isTrue(References.isReferenced("auth / bug", "auth-bug", none))
    assert.isTrue(References.isReferenced("auth — bug", "auth-bug", none))
    assert.isTrue(References.isReferenced("see perf: fix it", "perf-fix", none))
  })

  it("a single word does not name an id that repeats it", () => {
    assert.isFalse(References.isReferenced("the walla report", "walla-walla", none))
    assert.isTrue(References.isReferenced("the walla walla report", "walla-walla", none))
  })

  it("an id with punctuation at its ends matches on its words", () => {
    assert.isTrue(References.isReferenced("the .env leak again", ".env-leak", none))
  })

  it("an id without letters or digits matches as a plain substring; an empty id never matches", () => {
    assert.isTrue(References.isReferenced("ship the 🚀 today", "🚀", none))
    assert.isFalse(References.isReferenced("ship it today", "🚀", none))
    assert.isFalse(References.isReferenced("anything at all", "", none))
  })

  it("keywords given in capitals still match", () => {
    assert.isTrue(References.isReferenced("refresh tokens", "x", ["Refresh", "TOKENS"]))
  })

  it("a message that is not a string references nothing", () => {
    // biome-ignore lint/suspicious/noExplicitAny: an untyped caller
    assert.isFalse(References.isReferenced(null as any, "auth-bug", References.extractKeywords(AUTH_SUMMARY)))
  })

  it("the words of an id in another order, or apart, do not name it", () => {
    assert.isFalse(References.isReferenced("a bug in auth", "auth-bug", none))
    assert.isFalse(References.isReferenced("fix the perf", "perf-fix", none))
  })

  it("a hyphenated keyword counts as one word between spaces, but not glued on by a control character", () => {
    const keywords = References.extractKeywords("The auto-called interceptor")
    assert.isTrue(References.isReferenced("the auto-called interceptor", "x", keywords))
    assert.isFalse(References.isReferenced("auto-called\u0000interceptor", "x", keywords))
  })

  it("words shorter than three letters are never keywords, stopword or not", () => {
    assert.deepStrictEqual([...References.extractKeywords("an ox ate db rows")].sort(), ["ate", "rows"])
  })

  it("an empty keyword from a caller never counts as a hit", () => {
    assert.isFalse(References.isReferenced("!!! refresh", "x", ["", "refresh"]))
  })
  it("a prepared message that is not a string has no words, an empty lower form and an empty padded sequence", () => {
    // biome-ignore lint/suspicious/noExplicitAny: an untyped caller
    const prepared = References.prepareMessage(undefined as any)
    assert.strictEqual(prepared.words.size, 0)
    assert.strictEqual(prepared.lower, "")
    assert.strictEqual(prepared.sequence, "  ")
  })

  it("a prepared message's sequence is its words in order, split at punctuation, space separated and padded", () => {
    const prepared = References.prepareMessage("Fixing the AUTH-bug, now!")
    assert.strictEqual(prepared.sequence, " fixing the auth bug now ")
    assert.deepStrictEqual([...prepared.words].sort(), ["auth", "auth-bug", "bug", "fixing", "now", "the"])
  })
})
