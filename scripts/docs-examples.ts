// ./heed check: runs every ```ts example of the guides in docs/guides/ under Node, from docs/ with the source
// condition, so the code a reader copies keeps working. When a ```text block follows an example (blank lines
// between are allowed), it is what the example prints: stdout must match it exactly (trailing spaces aside).
import { spawnSync } from "node:child_process"
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import { root } from "./workspace.ts"

export interface GuideExample {
  readonly guide: string
  readonly line: number
  readonly code: string
  readonly expected: string | undefined
}

/** The examples of one guide, each with the output block that follows it, if any. */
export const examplesOf = (guide: string, markdown: string): Array<GuideExample> => {
  const examples: Array<GuideExample> = []
  const fence = /^```(\S*)[^\n]*\n([\s\S]*?)^```[ \t]*$/gm
  let previous: { readonly end: number; readonly example: GuideExample } | undefined
  for (let match = fence.exec(markdown); match !== null; match = fence.exec(markdown)) {
    const [block, language, body] = match as unknown as [string, string, string]
    const line = markdown.slice(0, match.index).split("\n").length
    if (language === "ts") {
      const example = { guide, line, code: body, expected: undefined }
      examples.push(example)
      previous = { end: match.index + block.length, example }
      continue
    }
    if (language === "text" && previous !== undefined && markdown.slice(previous.end, match.index).trim() === "") {
      examples[examples.indexOf(previous.example)] = { ...previous.example, expected: body }
    }
    previous = undefined
  }
  return examples
}

const normalise = (text: string) =>
  text
    .split("\n")
    .map((line) => line.trimEnd())
    .join("\n")
    .trim()

/** Runs one example from `cwd`; returns why it failed, or `undefined`. */
export const runExample = (example: GuideExample, cwd: string): string | undefined => {
  const file = join(cwd, `.guide-example-${process.pid}.ts`)
  writeFileSync(file, example.code)
  const result = spawnSync(process.execPath, ["--conditions=@heed/source", file], {
    cwd,
    encoding: "utf8",
    timeout: 60_000
  })
  rmSync(file, { force: true })
  if (result.status !== 0) return `exit ${result.status ?? result.signal}:\n${result.stderr || result.stdout}`
  if (example.expected === undefined || normalise(result.stdout) === normalise(example.expected)) return undefined
  return `printed\n${result.stdout}\ninstead of\n${example.expected}`
}

/** Runs the guides' examples (all, or those named), printing one line per failure and a closing count. */
const main = (wanted: ReadonlyArray<string>) => {
  const guides = join(root, "docs", "guides")
  let failures = 0
  let count = 0
  const names = readdirSync(guides).filter((file) => file.endsWith(".md"))
  for (const name of names.filter((file) => wanted.length === 0 || wanted.includes(file.replace(/\.md$/, "")))) {
    const path = join(guides, name)
    for (const example of examplesOf(relative(root, path), readFileSync(path, "utf8"))) {
      count += 1
      const problem = runExample(example, join(root, "docs"))
      if (problem === undefined) continue
      failures += 1
      console.error(`heed: the example at ${example.guide}:${example.line} ${problem}`)
    }
  }
  console.log(`guides: ${count - failures} of ${count} examples ran${failures === 0 ? "" : `, ${failures} failed`}`)
  process.exit(failures > 0 ? 1 : 0)
}

// Optional arguments name guides to run (`node scripts/docs-examples.ts awareness`); by default all of them run.
if (process.argv[1] === fileURLToPath(import.meta.url)) main(process.argv.slice(2))
