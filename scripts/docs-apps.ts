// ./heed docs, before typedoc: each app's README becomes a page of the site (docs/guides/apps/<app>.md, git-ignored),
// so the site documents the deployables from the same text as the repository and the two never drift. Links that
// point into the repository are rewritten for the site: a package folder becomes a link to its API page, the
// dashboard picture the guides' copy, and any other file its repository path in code font.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join, posix } from "node:path"
import { root } from "./workspace.ts"

const out = join(root, "docs", "guides", "apps")

/** A Markdown link target inside the repository, rewritten for a page in docs/guides/apps/. */
const rewrite = (app: string, label: string, target: string): string => {
  if (/^(?:[a-z]+:|#)/i.test(target)) return `[${label}](${target})`
  const path = posix.normalize(posix.join("apps", app, target))
  const pkg = /^packages\/(?:core|adapters)\/([a-z-]+)\/?$/.exec(path)
  if (pkg !== null) return `{@link @heed/${pkg[1]}! | ${label.replaceAll("`", "")}}`
  if (path.startsWith("docs/guides/")) return `[${label}](../${path.slice("docs/guides/".length)})`
  return label.includes(path) ? label : `${label} (\`${path}\`)`
}

/** The page for one app: a title from the README's heading, its links rewritten. */
const page = (app: string, readme: string): string => {
  const heading = /^# (.+)$/m.exec(readme)?.[1] ?? app
  const title = heading.replace(/\s*\(apps\/[^)]*\)\s*$/, "")
  const body = readme.replace(/(!?)\[([^\]]*)\]\(([^)\s]+)\)/g, (_, bang: string, label: string, target: string) =>
    bang === "!"
      ? `![${label}](${rewrite(app, "", target).replace(/^\[\]\((.*)\)$/, "$1")})`
      : rewrite(app, label, target)
  )
  return `---\ntitle: ${title}\n---\n\n${body}`
}

rmSync(out, { recursive: true, force: true })
mkdirSync(out, { recursive: true })
const apps = readdirSync(join(root, "apps")).filter((app) => existsSync(join(root, "apps", app, "README.md")))
for (const app of apps) {
  writeFileSync(join(out, `${app}.md`), page(app, readFileSync(join(root, "apps", app, "README.md"), "utf8")))
}
console.log(`docs: app pages for ${apps.join(", ")} in docs/guides/apps/`)
