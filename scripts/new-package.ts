// ./heed new <core|adapter> <name> "<description>": copies templates/package into packages/<group>/<name>
// and registers it in the root tsconfig.json. Run ./heed pnpm install afterwards.
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { root } from "./workspace.ts"

const [kind, name, description = ""] = process.argv.slice(2)
const group = kind === "core" ? "core" : kind === "adapter" ? "adapters" : undefined
if (group === undefined || name === undefined || !/^[a-z][a-z0-9-]*$/.test(name)) {
  console.error('usage: ./heed new <core|adapter> <name> "<description>"  (name: lowercase, digits, dashes)')
  process.exit(2)
}
const dir = join(root, "packages", group, name)
if (existsSync(dir)) {
  console.error(`heed: ${dir} already exists`)
  process.exit(1)
}
cpSync(join(root, "templates", "package"), dir, { recursive: true })
for (const file of readdirSync(dir)) {
  const path = join(dir, file)
  writeFileSync(
    path,
    readFileSync(path, "utf8").replaceAll("__NAME__", name).replaceAll("__DESCRIPTION__", description)
  )
}
for (const sub of ["src", "test", "bench"]) mkdirSync(join(dir, sub), { recursive: true })
writeFileSync(
  join(dir, "src", "index.ts"),
  `/**\n * @heed/${name}: ${description}\n *\n * @since 0.1.0\n */\nexport {}\n`
)
const tsconfigPath = join(root, "tsconfig.json")
const tsconfig = JSON.parse(readFileSync(tsconfigPath, "utf8"))
const relative = `packages/${group}/${name}`
tsconfig.references.push({ path: relative }, { path: `${relative}/tsconfig.test.json` })
writeFileSync(tsconfigPath, `${JSON.stringify(tsconfig, null, 2)}\n`)
console.log(`heed: created ${relative}; now run ./heed pnpm install`)
