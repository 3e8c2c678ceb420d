// ./heed check, step 4: runs the first ```ts example of every public package's README under Node, so the
// examples users copy keep working. Each example runs from its package directory with the source condition.
// What an example prints must be what its `// =>` comments say: the text after each `// =>` (less one space), in
// order, is one line of the expected output, and an example without such comments must print nothing. Effect's log
// lines (`[12:00:00.000] INFO (#1): ...`) carry times and fiber ids, so they are left out of the comparison.
import { spawnSync } from "node:child_process"
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import { root, workspacePackages } from "./workspace.ts"

/** The output an example promises: the text after each `// =>` comment, one line each, in order. */
export const promisedOutput = (example: string): Array<string> =>
  example.split("\n").flatMap((line) => {
    const at = line.indexOf("// =>")
    return at < 0
      ? []
      : [
          line
            .slice(at + "// =>".length)
            .replace(/^ /, "")
            .trimEnd()
        ]
  })

const logLine = /^\[\d{2}:\d{2}:\d{2}\.\d{3}\] [A-Z]+ \(#\d+\):/

/** Why the printed output differs from the promised one, or `undefined` when they agree (trailing spaces aside). */
export const outputMismatch = (example: string, stdout: string): string | undefined => {
  const expected = promisedOutput(example)
  const printed = stdout
    .split("\n")
    .map((line) => line.trimEnd())
    .filter((line) => !logLine.test(line))
  while (printed.length > 0 && printed[printed.length - 1] === "") printed.pop()
  if (printed.length === expected.length && printed.every((line, i) => line === expected[i])) return undefined
  return `it printed\n${printed.join("\n") || "(nothing)"}\nbut its // => comments say\n${expected.join("\n") || "(nothing)"}`
}

const main = () => {
  let failures = 0
  for (const pkg of workspacePackages().filter((candidate) => !candidate.private)) {
    const readme = join(pkg.dir, "README.md")
    if (!existsSync(readme)) {
      failures += 1
      console.error(`heed: ${pkg.name} has no README.md`)
      continue
    }
    const example = /```ts\n([\s\S]*?)```/.exec(readFileSync(readme, "utf8"))?.[1]
    if (example === undefined) {
      failures += 1
      console.error(`heed: ${relative(root, readme)} has no \`\`\`ts example`)
      continue
    }
    const file = join(pkg.dir, `.readme-example-${process.pid}.ts`)
    writeFileSync(file, example)
    const result = spawnSync(process.execPath, ["--conditions=@heed/source", file], {
      cwd: pkg.dir,
      encoding: "utf8",
      timeout: 60_000
    })
    rmSync(file, { force: true })
    const mismatch = result.status === 0 ? outputMismatch(example, result.stdout) : undefined
    if (result.status === 0 && mismatch === undefined) {
      console.log(`readme: ${pkg.name} example ok`)
    } else if (mismatch !== undefined) {
      failures += 1
      console.error(`heed: the example in ${relative(root, readme)} ${mismatch}`)
    } else {
      failures += 1
      console.error(`heed: the example in ${relative(root, readme)} failed:\n${result.stderr || result.stdout}`)
    }
  }
  process.exit(failures > 0 ? 1 : 0)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main()
