// Finds the workspace's packages without pnpm, for the ./heed scripts.
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

export interface WorkspacePackage {
  readonly dir: string
  readonly name: string
  readonly shortName: string
  readonly private: boolean
  readonly scripts: Readonly<Record<string, string>>
}

const groups = ["packages/core", "packages/adapters", "packages", "apps"]

// The repository root, found from this file, so tests running in a package folder find the workspace too.
export const root = dirname(dirname(fileURLToPath(import.meta.url)))

export const workspacePackages = (): Array<WorkspacePackage> => {
  const found: Array<WorkspacePackage> = []
  for (const group of groups) {
    const groupDir = join(root, group)
    if (!existsSync(groupDir)) continue
    for (const entry of readdirSync(groupDir, { withFileTypes: true })) {
      const dir = join(groupDir, entry.name)
      const manifest = join(dir, "package.json")
      if (!entry.isDirectory() || !existsSync(manifest)) continue
      const json = JSON.parse(readFileSync(manifest, "utf8"))
      found.push({
        dir,
        name: json.name,
        shortName: String(json.name).replace(/^@heed\//, ""),
        private: json.private === true,
        scripts: json.scripts ?? {}
      })
    }
  }
  return found
}

/** True when `name` is the package's full name (`@heed/x`) or short name (`x`). */
export const isNamed = (pkg: WorkspacePackage, name: string): boolean => pkg.name === name || pkg.shortName === name
