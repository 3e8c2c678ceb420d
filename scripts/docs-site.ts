// Checks on the built docs site, run by `./heed docs`: every internal link and resource reference resolves (file
// and #anchor), the site loads nothing from another origin (fonts, scripts, stylesheets, images from a CDN), and
// its size is measured for the report.
import { readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, extname, join, relative, resolve } from "node:path"
import { inflateSync } from "node:zlib"

export interface SiteReport {
  readonly files: number
  readonly pages: number
  readonly bytes: number
  readonly largest: { readonly path: string; readonly bytes: number }
  readonly problems: ReadonlyArray<string>
}

const walk = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)]
  )

// A reference with a scheme (https:, mailto:, data:, javascript:) or a protocol-relative one leaves the site.
const external = /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i

/** `href`/`src` values of an HTML or SVG file; `xmlns` declarations are names, not references, so they are skipped. */
const references = (text: string): Array<string> =>
  [...text.matchAll(/\s(?:href|src|xlink:href)="([^"]*)"/g)].map((match) => match[1]!.replaceAll("&amp;", "&"))

/** Elements that make a browser fetch what they point at (as opposed to `<a>`, which only links). */
const fetchedFromElsewhere = (text: string): Array<string> => [
  ...[
    ...text.matchAll(
      /<(?:link|script|img|iframe|source|video|audio|image|use)\b[^>]*?\s(?:href|src|xlink:href)="([^"]*)"/g
    )
  ]
    .map((match) => match[1]!)
    .filter((url) => external.test(url) && !url.startsWith("data:")),
  ...[...text.matchAll(/url\(\s*['"]?([^'")]+)/g)]
    .map((match) => match[1]!)
    .filter((url) => /^(?:https?:)?\/\//.test(url)),
  ...[...text.matchAll(/@import\s+['"]([^'"]+)/g)].map((match) => match[1]!)
]

const anchorsCache = new Map<string, Set<string>>()
const anchorsOf = (file: string): Set<string> => {
  let anchors = anchorsCache.get(file)
  if (anchors === undefined) {
    const text = readFileSync(file, "utf8")
    anchors = new Set([...text.matchAll(/\s(?:id|name)="([^"]*)"/g)].map((match) => match[1]!))
    anchorsCache.set(file, anchors)
  }
  return anchors
}

/** Why `reference` in `file` is broken, or `undefined` when it resolves inside the site. */
const brokenLink = (site: string, file: string, reference: string): string | undefined => {
  if (reference === "" || external.test(reference)) return undefined
  const [pathPart, fragment] = reference.split("#", 2) as [string, string | undefined]
  const path = decodeURIComponent(pathPart.split("?")[0]!)
  let target = path === "" ? file : resolve(dirname(file), path)
  if (!target.startsWith(site)) return `${reference} points outside the site`
  if (statSync(target, { throwIfNoEntry: false })?.isDirectory()) target = join(target, "index.html")
  if (statSync(target, { throwIfNoEntry: false }) === undefined) return `${reference}: no such file`
  if (fragment === undefined || fragment === "" || ![".html", ".svg"].includes(extname(target))) return undefined
  return anchorsOf(target).has(decodeURIComponent(fragment)) ? undefined : `${reference}: no #${fragment} there`
}

interface NavigationEntry {
  readonly path?: string
  readonly children?: ReadonlyArray<NavigationEntry>
}

/** The pages typedoc's sidebar links to: it ships them as deflated, base64-encoded JSON in assets/navigation.js. */
const navigationPaths = (site: string): Array<string> => {
  const script = readFileSync(join(site, "assets", "navigation.js"), "utf8")
  const encoded = /navigationData = "([^"]+)"/.exec(script)?.[1]
  if (encoded === undefined) return []
  const flatten = (entries: ReadonlyArray<NavigationEntry>): Array<string> =>
    entries.flatMap((entry) => [...(entry.path === undefined ? [] : [entry.path]), ...flatten(entry.children ?? [])])
  return flatten(JSON.parse(inflateSync(Buffer.from(encoded, "base64")).toString("utf8")))
}

/** Checks the site in `dir` and measures it. */
export const checkSite = (dir: string): SiteReport => {
  const site = resolve(dir)
  const files = walk(site)
  const problems: Array<string> = []
  let bytes = 0
  let largest = { path: "", bytes: 0 }
  for (const file of files) {
    const size = statSync(file).size
    bytes += size
    const path = relative(site, file)
    if (extname(file) === ".html" && size > largest.bytes) largest = { path, bytes: size }
    if (![".html", ".svg", ".css"].includes(extname(file))) continue
    const text = readFileSync(file, "utf8")
    for (const url of fetchedFromElsewhere(text)) problems.push(`${path}: loads an external resource ${url}`)
    if (extname(file) === ".css") continue
    for (const reference of references(text)) {
      const broken = brokenLink(site, file, reference)
      if (broken !== undefined) problems.push(`${path}: broken link ${broken}`)
    }
  }
  for (const path of navigationPaths(site)) {
    const broken = brokenLink(site, join(site, "index.html"), path)
    if (broken !== undefined) problems.push(`assets/navigation.js: broken link ${broken}`)
  }
  const pages = files.filter((file) => extname(file) === ".html").length
  return { files: files.length, pages, bytes, largest, problems }
}
