/**
 * A deterministic 100-turn, tool-heavy agent session (file reads, searches, test runs; later turns go back to some
 * earlier results, most are never looked at again) and three ways of sending it: no management, Anthropic's
 * "clear the oldest tool results beyond a trigger, keep the last 3" (re-implemented here as the baseline), and
 * heed-proxy's plan. Used by `./heed bench proxy` and the guide's tokens-per-turn picture.
 *
 * @since 0.1.0
 */
import * as ContextPlan from "./ContextPlan.ts"
import type * as Efforts from "./Efforts.ts"
import * as SessionState from "./SessionState.ts"
import * as Transcript from "./Transcript.ts"

/**
 * One tool call of the session and what it refers back to.
 *
 * @category models
 * @since 0.1.0
 */
export interface Step {
  readonly tool: "read_file" | "search" | "run_tests" | "edit_file"
  readonly input: Record<string, string>
  readonly result: string
  /** A short assistant text before the call. */
  readonly text: string
  /** The earlier step whose result this call needs (it names it), if any. */
  readonly needs: number | undefined
}

const mulberry32 = (seed: number) => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const AREAS = ["auth", "billing", "cache", "router", "ledger", "queue", "search", "upload", "report", "notify"]
const NOUNS = ["session", "token", "invoice", "entry", "route", "job", "index", "chunk", "digest", "policy"]

const cap = (word: string) => word[0]!.toUpperCase() + word.slice(1)

const fileLines = (area: string, noun: string, n: number, lines: number) =>
  Array.from({ length: lines }, (_, i) => {
    const name = `${noun}${cap(area)}${n}Step${i}`
    return i % 6 === 0
      ? `export const ${name} = (input: ${cap(noun)}Input) => validate${cap(noun)}(input, { strict: true, limit: ${i * 3} })`
      : i % 6 === 3
        ? `  // ${area}: keep the ${noun} ordered before the retry window closes (${i})`
        : `  if (input.${noun}Id === undefined) return fail("${area} ${noun} ${i} is missing its id")`
  }).join("\n")

/**
 * The session: 100 steps from a fixed seed.
 *
 * @category constructors
 * @since 0.1.0
 */
export const session = (turns = 100, seed = 20261128): ReadonlyArray<Step> => {
  const random = mulberry32(seed)
  const pick = <A>(items: ReadonlyArray<A>): A => items[Math.floor(random() * items.length)]!
  const steps: Array<Step> = []
  const reads: Array<{ step: number; path: string }> = []
  const tests: Array<{ step: number; file: string }> = []
  for (let i = 0; i < turns; i++) {
    const area = pick(AREAS)
    const noun = pick(NOUNS)
    // About one turn in four goes back to an earlier result, 4 to 40 turns old.
    const back = i > 8 && random() < 0.27
    if (back) {
      const candidates = [...reads, ...tests].filter((r) => i - r.step >= 4 && i - r.step <= 40)
      if (candidates.length > 0) {
        const target = pick(candidates)
        if ("path" in target) {
          steps.push({
            tool: "edit_file",
            input: { path: target.path, patch: `fix the ${noun} check` },
            result: "ok: 1 hunk applied",
            text: `Editing ${target.path}, which I read earlier, to fix the ${noun} check.`,
            needs: target.step
          })
        } else {
          steps.push({
            tool: "run_tests",
            input: { filter: target.file },
            result: `PASS ${target.file} (12 tests)`,
            text: `Re-running ${target.file}, which failed in the earlier run.`,
            needs: target.step
          })
        }
        continue
      }
    }
    const kind = random()
    if (kind < 0.5) {
      const path = `src/${area}/${noun}${i}.ts`
      const lines = 60 + Math.floor(random() * 200)
      steps.push({
        tool: "read_file",
        input: { path },
        result: `// ${path}\n${fileLines(area, noun, i, lines)}`,
        text: "",
        needs: undefined
      })
      reads.push({ step: i, path })
    } else if (kind < 0.75) {
      const query = `${noun}${cap(area)}Check${i}`
      const hits = 15 + Math.floor(random() * 60)
      steps.push({
        tool: "search",
        input: { query },
        result: Array.from(
          { length: hits },
          (_, h) =>
            `src/${pick(AREAS)}/${pick(NOUNS)}${h}.ts:${h * 7 + 3}: const ${query}Hit${h} = lookup(${noun}, "${area}")`
        ).join("\n"),
        text: `Searching for ${query}.`,
        needs: undefined
      })
    } else {
      const file = `tests/${area}/${noun}${i}.test.ts`
      const cases = 20 + Math.floor(random() * 80)
      steps.push({
        tool: "run_tests",
        input: { filter: file },
        result: [
          `RUN ${file}`,
          ...Array.from({ length: cases }, (_, c) =>
            c % 9 === 4
              ? `FAIL ${file} > ${noun} ${area} case ${c}: expected ${c} received ${c + 1}\n    at check${cap(noun)}${c} (src/${area}/${noun}.ts:${c + 10}:7)`
              : `ok ${file} > ${noun} ${area} case ${c} (${(c % 7) + 1} ms)`
          ),
          `Tests: ${Math.floor(cases / 9)} failed, ${cases - Math.floor(cases / 9)} passed`
        ].join("\n"),
        text: "",
        needs: undefined
      })
      tests.push({ step: i, file })
    }
  }
  return steps
}

const SYSTEM =
  "You are a careful coding agent working in a TypeScript monorepo. Read files before editing them, run the " +
  "tests after each change, and explain what you changed. Prefer small patches. Never invent file contents. " +
  "When a test fails, read the failing test and the code it covers before changing anything."

const TOOLS = ["read_file", "search", "run_tests", "edit_file"].map((name) => ({
  name,
  description: `The ${name} tool.`,
  input_schema: { type: "object", properties: {} }
}))

/**
 * The Anthropic Messages request of turn `t` (1-based): the task, then the first `t` steps, each an assistant
 * tool call answered by its result.
 *
 * @category constructors
 * @since 0.1.0
 */
export const request = (steps: ReadonlyArray<Step>, t: number): Record<string, unknown> => {
  const messages: Array<Record<string, unknown>> = [
    { role: "user", content: "The checkout tests fail after the last merge. Find out why and fix it." }
  ]
  for (let i = 0; i < t; i++) {
    const step = steps[i]!
    messages.push({
      role: "assistant",
      content: [
        ...(step.text === "" ? [] : [{ type: "text", text: step.text }]),
        { type: "tool_use", id: `toolu_${i}`, name: step.tool, input: step.input }
      ]
    })
    messages.push({ role: "user", content: [{ type: "tool_result", tool_use_id: `toolu_${i}`, content: step.result }] })
  }
  return { model: "claude-bench", max_tokens: 1024, system: SYSTEM, tools: TOOLS, messages }
}

/**
 * One strategy's result for one turn.
 *
 * @category models
 * @since 0.1.0
 */
export interface TurnResult {
  readonly tokens: number
  /** The step whose result this turn needs, and whether it was sent whole. */
  readonly needed: number | undefined
  readonly present: boolean
}

/**
 * The strategies compared.
 *
 * @category models
 * @since 0.1.0
 */
export type Strategy = "none" | "clear-oldest" | "heed"

/**
 * Anthropic's context-editing defaults, as the baseline re-implements them: past 100,000 input tokens, every tool
 * result but the last 3 is replaced by a placeholder.
 *
 * @category constants
 * @since 0.1.0
 */
export const clearOldest = { trigger: 100_000, keep: 3, placeholder: "[tool result cleared]" }

const stepOfUnit = (key: string): number | undefined => {
  // Tool results are at messages 2, 4, 6, …: message 2(i + 1) holds step i's result.
  const message = Number(key.split(":")[0])
  return message % 2 === 0 && message >= 2 ? message / 2 - 1 : undefined
}

/**
 * Replays the session with one strategy: input tokens per turn and whether each needed result was there.
 *
 * @category constructors
 * @since 0.1.0
 */
export const replay = (
  strategy: Strategy,
  steps: ReadonlyArray<Step>,
  count: Efforts.Count,
  config: ContextPlan.PlanConfig = ContextPlan.defaults
): Array<TurnResult> => {
  const engine = ContextPlan.makeEngine(count)
  let state = SessionState.empty("bench")
  const out: Array<TurnResult> = []
  for (let t = 1; t <= steps.length; t++) {
    const body = request(steps, t)
    const transcript = Transcript.read("anthropic", body)
    const needed = steps[t - 1]!.needs
    const full = ContextPlan.tokensOf(transcript, engine.count)
    if (strategy === "none") {
      out.push({ tokens: full, needed, present: true })
    } else if (strategy === "clear-oldest") {
      if (full <= clearOldest.trigger) {
        out.push({ tokens: full, needed, present: true })
        continue
      }
      const cleared = new Map<string, string>()
      for (const message of transcript.messages) {
        for (const unit of message.units) {
          const step = stepOfUnit(unit.key)
          if (unit.kind === "tool_result" && step !== undefined && step < t - clearOldest.keep) {
            cleared.set(unit.key, clearOldest.placeholder)
          }
        }
      }
      const sent = Transcript.read("anthropic", Transcript.rewrite(body, transcript, cleared))
      const present = needed === undefined || !cleared.has(`${2 * (needed + 1)}:0`)
      out.push({ tokens: ContextPlan.tokensOf(sent, engine.count), needed, present })
    } else {
      const plan = ContextPlan.plan(transcript, state, config, engine)
      state = plan.state
      const present = needed === undefined || !plan.replacements.has(`${2 * (needed + 1)}:0`)
      out.push({ tokens: plan.tokensSent, needed, present })
    }
  }
  return out
}

/**
 * Totals of a replay: input tokens, needed results and how many were present.
 *
 * @category getters
 * @since 0.1.0
 */
export const totals = (turns: ReadonlyArray<TurnResult>) => {
  const needs = turns.filter((turn) => turn.needed !== undefined)
  return {
    tokens: turns.reduce((sum, turn) => sum + turn.tokens, 0),
    needed: needs.length,
    present: needs.filter((turn) => turn.present).length
  }
}
