/**
 * The compact o200k_base counter (`src/internal/o200k.ts`) against gpt-tokenizer, the counter it replaced: the
 * vocabulary it decodes must be gpt-tokenizer's rank for rank, and counts must be equal on a large varied corpus.
 *
 * gpt-tokenizer 4.0.0 departs from o200k_base itself (tiktoken) on three characters, where this counter follows
 * tiktoken: U+FEFF (JavaScript's `\s` has it, o200k's does not, and gpt-tokenizer's lookups drop a leading byte-order
 * mark), U+0085 (o200k's `\s` has it, JavaScript's does not) and U+017F after an apostrophe (o200k's contractions
 * fold case, and long s folds to s). The comparison corpus leaves those three out; their counts are pinned below,
 * as tiktoken 1.0.22 gives them.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import ranks from "gpt-tokenizer/bpeRanks/o200k_base"
import { countTokens } from "gpt-tokenizer/encoding/o200k_base"
import { countO200k, countPiece, rankOf, vocabulary } from "../src/internal/o200k.ts"

const reference = (text: string): number => countTokens(text, { disallowedSpecial: new Set() })

/** The characters where gpt-tokenizer is not o200k_base (see the header). */
const departures = /[\ufeff\u0085\u017f]/u

/** mulberry32: a small seeded generator, so the corpus is the same on every run. */
const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const repoRoot = fileURLToPath(new URL("../../../../", import.meta.url))

const sourceFiles = (dir: string, out: Array<string> = []): Array<string> => {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name.startsWith(".")) continue
    const path = join(dir, entry.name)
    if (entry.isDirectory()) sourceFiles(path, out)
    else if (entry.name.endsWith(".md") || entry.name.endsWith(".ts")) out.push(path)
  }
  return out
}

/** Pieces where the pattern's alternatives meet, and text from many scripts. */
const fragments = [
  ..."aZqéÉßǅʰー々ﬁKÅ'’\"sStTlLvVeErRdDmM.,!?/-_={}:#0123456789",
  ...["ll", "LL", "re", "Ve", "'s", "'S", "'ll", "'Ve", "'RE", "DON'T", "we'Ll", "it's", "I'M", "you'D", "they'rE"],
  ...[
    " ",
    "  ",
    "\t",
    "\n",
    "\n\n",
    "\r\n",
    "\r",
    "\v",
    "\f",
    " \n ",
    "\t\r\n",
    "\u00a0",
    "\u2028",
    "\u3000",
    "\u2009"
  ],
  ...["12", "345", "2026-11-22T10:00:00Z", "٣٤٥", "Ⅻ", "½", "１２３"],
  ...["<|endoftext|>", "<|endofprompt|>", "<|im_start|>", "<|fim_prefix|>"],
  ...["日本語", "中文字符", "한국어", "ไทย", "עברית", "العربية", "Привет", "Ελληνικά", "हिन्दी", "தமிழ்"],
  ...["\u0301", "\u0308", "e\u0301", "n\u0303", "\u200d", "\u200b", "\u0000", "\u007f"],
  ...["😀", "👩🏽‍💻", "👨‍👩‍👧‍👦", "🏳️‍🌈", "👍🏿", "🇯🇵", "𝒜𝓑", "\ud800", "\udc00", "\ud83d"],
  ...["Hello", "world", "tokenizer", "qBittorrent", "nas-01", "https://example.com/a/b?c=d", "// comment", "=>"]
]

/** A random code point from the first planes, not a surrogate and not one of the departures. */
const randomCodePoint = (random: () => number): string => {
  for (;;) {
    const code = Math.floor(random() * (random() < 0.7 ? 0x3000 : 0x30000))
    if (code >= 0xd800 && code <= 0xdfff) continue
    const char = String.fromCodePoint(code)
    if (!departures.test(char)) return char
  }
}

const randomText = (random: () => number): string => {
  let text = ""
  const parts = Math.floor(random() * 48)
  for (let i = 0; i < parts; i++) {
    text += random() < 0.15 ? randomCodePoint(random) : fragments[Math.floor(random() * fragments.length)]
  }
  return text
}

const randomWord = (random: () => number, length: number, alphabet: string): string => {
  const chars = [...alphabet]
  let word = ""
  for (let i = 0; i < length; i++) word += chars[Math.floor(random() * chars.length)]
  return word
}

/** Briefing-shaped JSON: keys repeat, values are ids, times, statuses and free text in several scripts. */
const briefing = (random: () => number, i: number): unknown => ({
  generated: `2026-11-${10 + (i % 20)}T${String(i % 24).padStart(2, "0")}:00:00Z`,
  attention_needed: i % 3 === 0,
  summary: `${i % 7} warnings: ${randomText(random)}`,
  alerts: Array.from({ length: 1 + (i % 4) }, (_, k) => ({
    id: Math.floor(random() * 2 ** 40).toString(36),
    source: `host-${k}`,
    message: randomText(random),
    salience: Math.round(random() * 1000) / 1000
  })),
  sources: Object.fromEntries(
    Array.from({ length: 12 }, (_, k) => [
      `host-${(i * 31 + k) % 97}`,
      { status: k % 5 ? "ok" : "degraded", load: k * 0.37 }
    ])
  )
})

/** The first input whose counts differ, so that a failure names it. */
const firstMismatch = (inputs: Iterable<string>): string | undefined => {
  for (const text of inputs) {
    const ours = countO200k(text)
    const theirs = reference(text)
    if (ours !== theirs)
      return `${JSON.stringify(text.slice(0, 300))} (${text.length} chars): ${ours}, gpt-tokenizer ${theirs}`
  }
  return undefined
}

describe("o200k vocabulary", () => {
  it("holds gpt-tokenizer's o200k_base tokens, rank for rank, and every token's bytes look up to its rank", () => {
    const { packed, starts } = vocabulary()
    assert.strictEqual(starts.length, ranks.length)
    const utf8 = new TextEncoder()
    const v = vocabulary()
    for (let rank = 0; rank < ranks.length; rank++) {
      const entry = ranks[rank]!
      const expected = typeof entry === "string" ? utf8.encode(entry) : Uint8Array.from(entry)
      const start = starts[rank]!
      const actual = packed.subarray(start, start + packed[start - 1]!)
      if (actual.length !== expected.length || actual.some((byte, i) => byte !== expected[i])) {
        assert.fail(`rank ${rank}: [${actual.join(",")}], gpt-tokenizer has [${expected.join(",")}]`)
      }
      const found = rankOf(v, expected, 0, expected.length)
      if (found !== rank) assert.fail(`rank ${rank}'s bytes look up to ${found}`)
    }
  })

  it("finds no rank for bytes that are not a token", () => {
    const v = vocabulary()
    const tokens = new Set(ranks.map((entry) => (typeof entry === "string" ? entry : JSON.stringify(entry))))
    const random = seeded(11)
    let checked = 0
    for (let i = 0; i < 20_000; i++) {
      const word = randomWord(random, 2 + Math.floor(random() * 10), "abcdefghijklmnopqrstuvwxyz .")
      const bytes = new TextEncoder().encode(word)
      const rank = rankOf(v, bytes, 0, bytes.length)
      assert.strictEqual(rank !== -1, tokens.has(word), word)
      if (rank === -1) checked++
    }
    assert.isAbove(checked, 10_000)
  })
})

describe("countO200k equals gpt-tokenizer's countTokens", () => {
  it("on every .md and .ts file of the repository's packages, apps and docs", () => {
    const files = ["packages", "apps", "docs"].flatMap((dir) => sourceFiles(join(repoRoot, dir)))
    assert.isAbove(files.length, 100)
    const texts = files.map((file) => readFileSync(file, "utf8")).filter((text) => !departures.test(text))
    assert.isAbove(texts.length, files.length - 5)
    assert.strictEqual(firstMismatch(texts), undefined)
  })

  it("on briefing JSON, compact and pretty", () => {
    const random = seeded(7)
    const jsons = Array.from({ length: 150 }, (_, i) => briefing(random, i)).flatMap((value) => [
      JSON.stringify(value),
      JSON.stringify(value, null, 2)
    ])
    assert.strictEqual(firstMismatch(jsons.filter((text) => !departures.test(text))), undefined)
  })

  it("on seeded random mixes of scripts, emoji, marks, digits, white space, contractions and special-token text", () => {
    const random = seeded(2026)
    const texts = Array.from({ length: 6000 }, () => randomText(random))
    assert.strictEqual(firstMismatch(texts), undefined)
  })

  it("on long single words and runs (the heap merge)", () => {
    const random = seeded(5)
    const texts = [
      randomWord(random, 5000, "abcdefghijklmnopqrstuvwxyz"),
      randomWord(random, 5000, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"),
      "a".repeat(8000),
      " ".repeat(8000),
      "\n".repeat(3000),
      `${" \t".repeat(2000)}x`,
      "=".repeat(6000),
      `${"-".repeat(3000)}\n`,
      randomWord(
        random,
        1500,
        "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对"
      ),
      randomWord(random, 1200, "😀👍🏿🎉🔥✨"),
      randomWord(random, 2000, "aeiouáéíóú\u0301\u0308"),
      `data:image/png;base64,${randomWord(random, 6000, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")}==`
    ]
    assert.strictEqual(firstMismatch(texts), undefined)
  })

  it("on the same texts counted again (the cache of merged pieces)", () => {
    const random = seeded(99)
    const texts = Array.from({ length: 300 }, () => randomText(random))
    assert.strictEqual(firstMismatch([...texts, ...texts.reverse()]), undefined)
  })
})

describe("countO200k", () => {
  it("counts U+FEFF, U+0085 and long s after an apostrophe as o200k_base does (tiktoken's counts)", () => {
    const cases: ReadonlyArray<readonly [string, number]> = [
      ["\ufeff", 1],
      ["\ufeffusing System;", 3],
      ["\ufeff# Title\n", 3],
      ["a\ufeff\n", 2],
      ["x \u0085y", 5],
      ["tab\u0085\u0085 x", 6],
      ["he'\u017f'tthe'\u017f'the", 10],
      ["sthe'\u017f'seee", 7]
    ]
    for (const [text, expected] of cases) assert.strictEqual(countO200k(text), expected, JSON.stringify(text))
  })

  it("does not mistake a piece for the same piece behind a byte-order mark (cache keys keep U+FEFF)", () => {
    assert.strictEqual(countO200k("\ufeffqzxvbnmw"), 6)
    assert.strictEqual(countO200k("qzxvbnmw"), 5)
  })

  it("merges the same way by scan and by heap", () => {
    const v = vocabulary()
    const random = seeded(3)
    const alphabets = ["abcdefghijklmnopqrstuvwxyz", "abc", " ", "=-", "的一是不了人我在", "😀👍🏿", "éèêë"]
    for (let i = 0; i < 400; i++) {
      const piece = randomWord(random, 2 + Math.floor(random() * 400), alphabets[i % alphabets.length]!)
      assert.strictEqual(countPiece(v, piece, "heap"), countPiece(v, piece, "scan"), piece)
    }
  })

  it("counts a lone surrogate as U+FFFD, as TextEncoder encodes it", () => {
    assert.strictEqual(countO200k("a\ud800b"), countO200k("a\ufffdb"))
    assert.strictEqual(countO200k("\udc00"), reference("\udc00"))
  })
})
