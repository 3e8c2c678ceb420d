// Writes each package's version from its package.json into its src/internal/version.ts (the packages that report
// their version at run time without reading files: MCP serverInfo, the OpenAPI document). `./heed pnpm
// version-packages` runs it right after `changeset version`; `./heed check` fails while any of them differ.
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { workspacePackages } from "./workspace.ts"

/** The version a version.ts file states, or undefined when it has none. */
export const writtenVersion = (text: string): string | undefined => /export const version = "([^"]+)"/.exec(text)?.[1]

/** Every package with a src/internal/version.ts: its name, the file, its package.json version, the written one. */
export const versionFiles = () =>
  workspacePackages()
    .map((pkg) => ({ pkg, file: join(pkg.dir, "src", "internal", "version.ts") }))
    .filter(({ file }) => existsSync(file))
    .map(({ pkg, file }) => ({
      name: pkg.name,
      file,
      manifest: JSON.parse(readFileSync(join(pkg.dir, "package.json"), "utf8")).version as string,
      written: writtenVersion(readFileSync(file, "utf8"))
    }))

if (import.meta.main) {
  for (const { name, file, manifest, written } of versionFiles()) {
    if (written === manifest) continue
    const text = readFileSync(file, "utf8").replace(
      /export const version = "[^"]*"/,
      `export const version = "${manifest}"`
    )
    writeFileSync(file, text)
    console.log(`sync-versions: ${name} ${written} → ${manifest}`)
  }
}
