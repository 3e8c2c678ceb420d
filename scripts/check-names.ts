// ./heed check: no doubled module names. Functions, constants and layers live at module level (`Band.cooler`,
// `Awareness.layer`), as effect's own modules do; `Module.Module` names only the type, schema or service tag. So a
// member reached through the doubled name (`Band.Band.cooler`) is a mistake, except the tag's and schema's own
// members listed in ALLOWED (`Store.Store.of`, `Briefing.Briefing.fields`) and effect's `Schema.Schema.Type`.
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { root } from "./workspace.ts"

/** Members of a service tag or schema that are reached through its doubled name on purpose. */
const ALLOWED = new Set(["of", "fields", "Type", "Encoded"])

/** Effect's `Schema.Schema.Type` (a type namespace), and the docs' placeholder `Module.Module.member`. */
const EXTERNAL = new Set(["Schema", "Module"])

const DOUBLED = /\b([A-Z][A-Za-z0-9]*)\.\1\.([A-Za-z_][A-Za-z0-9_]*)/g

/** Sources, tests, benches, scripts, docs and READMEs; changesets are history and keep the names of their day. */
const files = execFileSync(
  "git",
  ["ls-files", "-co", "--exclude-standard", "*.ts", "*.tsx", "*.js", "*.html", "*.md"],
  {
    cwd: root,
    encoding: "utf8"
  }
)
  .split("\n")
  .filter((file) => file !== "" && !file.startsWith(".changeset/") && file !== "scripts/check-names.ts")

const findings: Array<string> = []
for (const file of files) {
  const lines = readFileSync(`${root}/${file}`, "utf8").split("\n")
  lines.forEach((line, index) => {
    for (const [text, module, member] of line.matchAll(DOUBLED)) {
      if (EXTERNAL.has(module!) || ALLOWED.has(member!)) continue
      findings.push(`${file}:${index + 1}: ${text} (write ${module}.${member})`)
    }
  })
}

if (findings.length > 0) {
  console.error(`heed: ${findings.length} doubled module name(s); functions, constants and layers are module-level:`)
  for (const finding of findings) console.error(`  ${finding}`)
  process.exit(1)
}
console.log(`names: no doubled module names in ${files.length} files`)
