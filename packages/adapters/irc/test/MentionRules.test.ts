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
