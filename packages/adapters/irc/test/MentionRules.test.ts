import { assert, describe, it } from "@effect/vitest"
import * as MentionRules from "../src/MentionRules.ts"

const classify = (target: string, sender: string, text: string) =>
  MentionRules.classify("spark-claude", { target, sender, text })

describe("MentionRules", () => {
  it("the short nick is the part after the first dash", () => {
    assert.strictEqual(MentionRules.shortNick("spark-claude"), "claude")
    assert.strictEqual(MentionRules.shortNick("a-b-c"), "b-c")
    assert.isUndefined(MentionRules.shortNick("claude"))
  })

  it("@fullnick and @short mention on word boundaries, case-insensitively", () => {
    const mentions = MentionRules.mentionMatcher("spark-claude")
    for (const text of ["@spark-claude hi", "hey @claude, look", "(@CLAUDE)", "@claude: done?", "cc @claude"]) {
      assert.isTrue(mentions(text), text)
    }
    for (const text of ["@claudette hi", "mail me@claude.ai", "claude without at", "@spark-claudex", "@claude-bot"]) {
      assert.isFalse(mentions(text), text)
    }
  })

  it("DMs are keyed DM:<peer>, mentions and ambient are exclusive, self and system-* are dropped", () => {
    assert.deepStrictEqual(classify("spark-claude", "alice", "hi"), { kind: "dm", target: "DM:alice" })
    assert.deepStrictEqual(classify("Spark-Claude", "alice", "hi"), { kind: "dm", target: "DM:alice" })
    assert.deepStrictEqual(classify("#dev", "alice", "@claude hi"), { kind: "mention", target: "#dev" })
    assert.deepStrictEqual(classify("#dev", "alice", "hi all"), { kind: "ambient", target: "#dev" })
    assert.deepStrictEqual(classify("#dev", "spark-claude", "@claude"), { kind: "drop", reason: "self" })
    assert.deepStrictEqual(classify("#dev", "system-spark", "@claude up"), { kind: "drop", reason: "system" })
  })

  it("thread prefixes are parsed and validated", () => {
    assert.deepStrictEqual(MentionRules.parseThread("[thread:fix-1] hello"), { thread: "fix-1", text: "hello" })
    assert.deepStrictEqual(MentionRules.parseThread("[thread:bad name] x"), {
      thread: undefined,
      text: "[thread:bad name] x"
    })
    assert.isFalse(MentionRules.isThreadName("x".repeat(33)))
  })
})

describe("MentionRules edges", () => {
  it("a nick ending in a dash has no short nick; one starting with a dash has the rest", () => {
    assert.isUndefined(MentionRules.shortNick("claude-"))
    assert.strictEqual(MentionRules.shortNick("-claude"), "claude")
  })

  it("the mention remover takes out @nick and @short with a trailing , or : and collapses the spaces", () => {
    const remove = MentionRules.mentionRemover("spark-claude")
    assert.strictEqual(remove("@spark-claude, deploy it"), "deploy it")
    assert.strictEqual(remove("hey @CLAUDE: look   here "), "hey look here")
    assert.strictEqual(remove("mail bob@claude.com or @claudette"), "mail bob@claude.com or @claudette")
    assert.strictEqual(MentionRules.mentionRemover("bot")("@bot hi @bot"), "hi")
    assert.strictEqual(remove("ping(@claude) now"), "ping() now")
  })

  it("a channel starts with #, &, + or !; anything else that is not our nick is not for us", () => {
    assert.deepStrictEqual(["#a", "&a", "+a", "!a", "a#b", "alice"].map(MentionRules.isChannel), [
      true,
      true,
      true,
      true,
      false,
      false
    ])
    assert.deepStrictEqual(classify("someone-else", "alice", "hi"), { kind: "drop", reason: "not-for-us" })
  })

  it("a thread prefix counts only at the start of the text and followed by a space", () => {
    assert.deepStrictEqual(MentionRules.parseThread("see [thread:a] x"), {
      thread: undefined,
      text: "see [thread:a] x"
    })
    assert.deepStrictEqual(MentionRules.parseThread("[thread:a]x"), { thread: undefined, text: "[thread:a]x" })
    assert.deepStrictEqual(MentionRules.parseThread("[thread:a] x"), { thread: "a", text: "x" })
    assert.deepStrictEqual(
      ["build-fix", "a", "x".repeat(32), "x".repeat(33), "", "a b"].map(MentionRules.isThreadName),
      [true, true, true, false, false, false]
    )
    assert.strictEqual(MentionRules.threadPrefix("build-fix"), "[thread:build-fix] ")
  })
})
