import { describe, expect, it } from "@effect/vitest"
import { References } from "@heed/decay"
import { TokenCounter } from "@heed/schema"
import * as fc from "fast-check"
import * as ContextPlan from "../src/ContextPlan.ts"
import * as Efforts from "../src/Efforts.ts"
import * as SessionState from "../src/SessionState.ts"
import * as Transcript from "../src/Transcript.ts"

/** One generated agent step: tool calls (each reading a file of some size), then maybe a user message. */
interface Step {
  readonly reads: ReadonlyArray<{ readonly file: number; readonly lines: number }>
  readonly userRefers: number | undefined
  readonly assistantText: string
}

const step: fc.Arbitrary<Step> = fc.record({
  reads: fc.array(fc.record({ file: fc.nat(30), lines: fc.integer({ min: 1, max: 120 }) }), { maxLength: 3 }),
  userRefers: fc.option(fc.nat(30), { nil: undefined }),
  assistantText: fc.constantFrom("", "Looking at it.", "The test still fails; checking more files.")
})

// A file's content: lines with its path and identifiers of its own, so references are by path or identifier.
const content = (file: number, lines: number) =>
  Array.from(
    { length: lines },
    (_, i) => `src/pkg${file}/mod.ts:${i}: export const pkg${file}Value${i} = computePkg${file}(${i}) // line ${i}`
  ).join("\n")

const openAiBody = (steps: ReadonlyArray<Step>) => {
  const messages: Array<Record<string, unknown>> = [
    { role: "system", content: "You are a coding agent." },
    { role: "user", content: "Fix the build." }
  ]
  steps.forEach((s, n) => {
    if (s.reads.length > 0) {
      messages.push({
        role: "assistant",
        content: s.assistantText === "" ? null : s.assistantText,
        tool_calls: s.reads.map((read, k) => ({
          id: `call_${n}_${k}`,
          type: "function",
          function: { name: "read_file", arguments: JSON.stringify({ path: `src/pkg${read.file}/mod.ts` }) }
        }))
      })
      for (const [k, read] of s.reads.entries()) {
        messages.push({ role: "tool", tool_call_id: `call_${n}_${k}`, content: content(read.file, read.lines) })
      }
    } else messages.push({ role: "assistant", content: s.assistantText || "Ok." })
    if (s.userRefers !== undefined)
      messages.push({ role: "user", content: `Check src/pkg${s.userRefers}/mod.ts again.` })
  })
  return { model: "m", messages }
}

const anthropicBody = (steps: ReadonlyArray<Step>) => {
  const messages: Array<Record<string, unknown>> = [
    { role: "user", content: [{ type: "text", text: "Fix the build." }] }
  ]
  steps.forEach((s, n) => {
    const blocks: Array<Record<string, unknown>> =
      s.assistantText === "" ? [] : [{ type: "text", text: s.assistantText }]
    for (const [k, read] of s.reads.entries()) {
      blocks.push({
        type: "tool_use",
        id: `toolu_${n}_${k}`,
        name: "read_file",
        input: { path: `src/pkg${read.file}/mod.ts` }
      })
    }
    messages.push({ role: "assistant", content: blocks.length === 0 ? "Ok." : blocks })
    const user: Array<Record<string, unknown>> = s.reads.map((read, k) => ({
      type: "tool_result",
      tool_use_id: `toolu_${n}_${k}`,
      content: [{ type: "text", text: content(read.file, read.lines) }],
      ...(k === 0 ? { cache_control: { type: "ephemeral" } } : {})
    }))
    user.push({
      type: "text",
      text: s.userRefers === undefined ? "Continue." : `Check src/pkg${s.userRefers}/mod.ts again.`
    })
    messages.push({ role: "user", content: user })
  })
  return { model: "m", max_tokens: 10, system: "You are a coding agent.", messages }
}

/** OpenAI validity: every assistant tool call is answered by one tool message before the next other message. */
const validOpenAi = (messages: ReadonlyArray<Record<string, unknown>>) => {
  for (let i = 0; i < messages.length; i++) {
    const calls = messages[i]!.tool_calls as ReadonlyArray<{ id: string }> | undefined
    if (calls === undefined) continue
    const answered = new Set<string>()
    let j = i + 1
    while (j < messages.length && messages[j]!.role === "tool") answered.add(messages[j++]!.tool_call_id as string)
    for (const call of calls) if (!answered.has(call.id)) return false
  }
  return true
}

/** Anthropic validity: each tool_use is answered by a tool_result with its id in the next user message. */
const validAnthropic = (messages: ReadonlyArray<Record<string, unknown>>) => {
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!
    if (message.role !== "assistant" || !Array.isArray(message.content)) continue
    const uses = (message.content as Array<{ type: string; id?: string }>).filter((b) => b.type === "tool_use")
    if (uses.length === 0) continue
    const next = messages[i + 1]
    if (next === undefined) continue
    const results = new Set(
      (next.content as Array<{ type: string; tool_use_id?: string }>)
        .filter((b) => b.type === "tool_result")
        .map((b) => b.tool_use_id)
    )
    for (const use of uses) if (!results.has(use.id)) return false
    for (const block of next.content as Array<{ type: string; text?: string }>) {
      if (block.type === "text" && block.text === "") return false
    }
  }
  return true
}

const count = Efforts.cachedCount(TokenCounter.countO200k)

describe("the plan over generated transcripts", () => {
  it("is a valid request of its API, within --max-context when it can be, with every effort the newest turn names whole", () => {
    const engine = ContextPlan.makeEngine(TokenCounter.countO200k)
    // What the generated sessions exercised, so the property cannot pass by never collapsing anything.
    const seen = { decay: 0, budget: 0, restored: 0, overBudget: 0 }
    fc.assert(
      fc.property(
        fc.constantFrom<Transcript.Api>("openai", "anthropic"),
        fc.array(step, { minLength: 1, maxLength: 14 }),
        fc.option(fc.integer({ min: 3_000, max: 30_000 }), { nil: undefined }),
        fc.integer({ min: 0, max: 6_000 }),
        (api, steps, maxContext, collapseAtLeast) => {
          const config = { ...ContextPlan.defaults, maxContext, collapseAtLeast }
          let state = SessionState.empty("p")
          // Replay the session request by request, carrying the state, as a client resending its history does.
          for (let n = 1; n <= steps.length; n++) {
            const body = (api === "openai" ? openAiBody : anthropicBody)(steps.slice(0, n)) as Record<string, unknown>
            const transcript = Transcript.read(api, body)
            const plan = ContextPlan.plan(transcript, state, config, engine)
            state = plan.state
            seen.restored += plan.restored.length
            for (const id of plan.newlyCollapsed)
              seen[plan.state.efforts[id]!.reason === "budget" ? "budget" : "decay"]++
            const sent = Transcript.rewrite(body, transcript, plan.replacements) as {
              messages: Array<Record<string, unknown>>
            }
            const original = body.messages as Array<Record<string, unknown>>
            // order, count and roles unchanged; pairing valid
            expect(sent.messages.map((m) => m.role)).toEqual(original.map((m) => m.role))
            expect(api === "openai" ? validOpenAi(sent.messages) : validAnthropic(sent.messages)).toBe(true)
            // the counted size matches what is sent
            const sentTranscript = Transcript.read(api, sent)
            expect(ContextPlan.tokensOf(sentTranscript, count)).toBe(plan.tokensSent)
            // every effort a message of the newest turn refers to is sent whole
            const newest = transcript.messages.slice(Math.max(0, transcript.lastAssistant))
            const prepared = newest.map((m) => References.prepareMessage(m.references.join("\n")))
            const efforts: Array<{ unit: Transcript.Unit; info: ContextPlan.Info }> = []
            transcript.messages.forEach((message) => {
              if (message.role === "system") return
              for (const unit of message.units) {
                const text = Efforts.textOf(unit)
                const tokens = unit.texts.reduce((sum, t) => sum + count(t), 0)
                if (tokens < config.effortTokens) continue
                efforts.push({ unit, info: engine.info(Efforts.idOf(unit, text), unit, text, tokens) })
              }
            })
            const common = Efforts.commonKeywords(efforts.map((effort) => effort.info.prepared))
            for (const { unit, info } of efforts) {
              if (unit.message >= Math.max(0, transcript.lastAssistant)) continue
              if (prepared.some((p) => Efforts.refersTo(p, info.prepared, config.minKeywordOverlap, common))) {
                expect(plan.replacements.has(unit.key)).toBe(false)
              }
            }
            // within --max-context, unless every effort left whole is protected
            if (maxContext !== undefined && plan.tokensSent > maxContext) {
              seen.overBudget++
              const recent = transcript.turn - config.keepTurns
              for (const [id, effort] of Object.entries(plan.state.efforts)) {
                if (effort.collapsed || effort.message >= transcript.messages.length) continue
                const protectedEffort =
                  transcript.messages[effort.message]!.turn > recent || effort.lastReferenced > recent
                expect({ id, protectedEffort }).toEqual({ id, protectedEffort: true })
              }
            }
          }
        }
      ),
      { numRuns: 40 }
    )
    expect(seen.decay).toBeGreaterThan(0)
    expect(seen.budget).toBeGreaterThan(0)
    expect(seen.restored).toBeGreaterThan(0)
    console.log(`generated sessions exercised: ${JSON.stringify(seen)}`)
  })
})
