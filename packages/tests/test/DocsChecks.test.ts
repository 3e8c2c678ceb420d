// The checks behind ./heed docs and ./heed check on small inputs made here: the site checker finds broken links,
// missing anchors and external resources (in pages and in the sidebar data), and the guide-example runner pairs an
// example with its printed output and reports a difference.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { deflateSync } from "node:zlib"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { examplesOf, runExample } from "../../../scripts/docs-examples.ts"
import { checkSite } from "../../../scripts/docs-site.ts"
import { outputMismatch, promisedOutput } from "../../../scripts/readme-examples.ts"

const work = mkdtempSync(join(tmpdir(), "heed-docs-checks-"))
afterAll(() => rmSync(work, { recursive: true, force: true }))

/** Writes a site of the given files (path → content) with a sidebar listing `navigation` paths. */
const site = (name: string, files: Record<string, string>, navigation: ReadonlyArray<string> = []) => {
  const dir = join(work, name)
  const data = deflateSync(JSON.stringify(navigation.map((path) => ({ text: path, path })))).toString("base64")
  const all = { ...files, "assets/navigation.js": `window.navigationData = "${data}"` }
  for (const [path, content] of Object.entries(all)) {
    mkdirSync(join(dir, path, ".."), { recursive: true })
    writeFileSync(join(dir, path), content)
  }
  return dir
}

const page = (body: string) =>
  `<html><head><link rel="stylesheet" href="assets/style.css"></head><body>${body}</body></html>`

describe("checkSite", () => {
  it("accepts internal links, anchors, external hyperlinks and SVG namespaces", () => {
    const dir = site(
      "good",
      {
        "index.html": page(
          '<a href="guides/one.html#usage">one</a> <a href="https://effect.website">Effect</a> <img src="media/p.svg">'
        ),
        "guides/one.html":
          '<link rel="stylesheet" href="../assets/style.css"><h2 id="usage">Usage</h2><a href="../index.html">home</a><a href="#usage">#</a>',
        "media/p.svg": '<svg xmlns="http://www.w3.org/2000/svg"><text>p</text></svg>',
        "assets/style.css": "body { color: black }"
      },
      ["index.html", "guides/one.html"]
    )
    const report = checkSite(dir)
    assert.deepStrictEqual(report.problems, [])
    assert.strictEqual(report.pages, 2)
    assert.strictEqual(report.files, 5)
  })

  it("reports a missing page, a missing anchor, a dead sidebar entry and every external resource", () => {
    const dir = site(
      "bad",
      {
        "index.html": page(
          '<a href="gone.html">gone</a> <a href="other.html#nowhere">x</a> ' +
            '<script src="https://cdn.example.com/lib.js"></script> <img src="//cdn.example.com/p.png">'
        ),
        "other.html": page('<h2 id="somewhere">S</h2>'),
        "assets/style.css":
          "@import 'https://fonts.example.com/inter.css'; body { background: url(https://x.example/b.png) }"
      },
      ["index.html", "missing.html"]
    )
    assert.sameMembers(
      [...checkSite(dir).problems],
      [
        "index.html: broken link gone.html: no such file",
        "index.html: broken link other.html#nowhere: no #nowhere there",
        "index.html: loads an external resource https://cdn.example.com/lib.js",
        "index.html: loads an external resource //cdn.example.com/p.png",
        "assets/style.css: loads an external resource https://x.example/b.png",
        "assets/style.css: loads an external resource https://fonts.example.com/inter.css",
        "assets/navigation.js: broken link missing.html: no such file"
      ]
    )
  })
})

describe("guide examples", () => {
  const guide = [
    "# Guide",
    "```ts",
    'console.log("hello")',
    "```",
    "",
    "```text",
    "hello",
    "```",
    "```sh",
    "npm install x",
    "```",
    "```ts",
    'console.log("no output block")',
    "```",
    "Some prose.",
    "```text",
    "not an output block: prose stands between",
    "```"
  ].join("\n")

  it("pairs a ts block with the text block right after it, and nothing else", () => {
    const examples = examplesOf("guide.md", guide)
    assert.deepStrictEqual(
      examples.map(({ line, code, expected }) => ({ line, code, expected })),
      [
        { line: 2, code: 'console.log("hello")\n', expected: "hello\n" },
        { line: 12, code: 'console.log("no output block")\n', expected: undefined }
      ]
    )
  })

  it("passes an example that prints its output block and names the difference otherwise", () => {
    const [example] = examplesOf("guide.md", guide)
    assert.isUndefined(runExample(example!, work))
    const wrong = runExample({ ...example!, expected: "goodbye\n" }, work)
    assert.include(wrong, "printed\nhello")
    assert.include(wrong, "instead of\ngoodbye")
    assert.include(runExample({ ...example!, code: "process.exit(3)" }, work), "exit 3")
  })
})

describe("README examples", () => {
  const example = 'console.log(1) // => 1\nconsole.log("a\\n  b")\n// => a\n// =>   b\n'

  it("reads each // => comment as one line of the promised output, less one space", () => {
    assert.deepStrictEqual(promisedOutput(example), ["1", "a", "  b"])
  })

  it("passes the promised output with Effect's log lines left out, and names a difference", () => {
    assert.isUndefined(outputMismatch(example, "1\n[12:00:00.000] INFO (#1): started\na\n  b\n"))
    assert.include(outputMismatch(example, "2\na\n  b\n") ?? "", "but its // => comments say\n1\na\n  b")
    assert.include(outputMismatch("console.log(1)", "1\n") ?? "", "comments say\n(nothing)")
  })
})
