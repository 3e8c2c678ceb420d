// `./heed docs --serve`: serves the built site on 127.0.0.1 with plain node:http until Ctrl-C. Only files inside the
// site are served; everything else is a 404.
import { createReadStream, statSync } from "node:fs"
import { createServer } from "node:http"
import { extname, join, normalize, resolve, sep } from "node:path"

const types: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".svg": "image/svg+xml",
  ".json": "application/json",
  ".png": "image/png",
  ".ico": "image/x-icon"
}

/** Resolves a request path to a file inside `site`, or `undefined` (outside the site, or missing). */
const fileFor = (site: string, url: string): string | undefined => {
  const path = decodeURIComponent(new URL(url, "http://localhost").pathname)
  let file = normalize(join(site, path))
  if (file !== site && !file.startsWith(site + sep)) return undefined
  if (statSync(file, { throwIfNoEntry: false })?.isDirectory()) file = join(file, "index.html")
  return statSync(file, { throwIfNoEntry: false })?.isFile() ? file : undefined
}

/** Serves `dir` on `port` (0 picks a free one) and resolves with the URL once listening. */
export const serve = (dir: string, port: number): Promise<string> => {
  const site = resolve(dir)
  const server = createServer((request, response) => {
    const file = fileFor(site, request.url ?? "/")
    if (file === undefined) {
      response.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("not found\n")
      return
    }
    response.writeHead(200, { "content-type": types[extname(file)] ?? "application/octet-stream" })
    createReadStream(file).pipe(response)
  })
  return new Promise((resolvePromise, reject) => {
    server.once("error", reject)
    server.listen(port, "127.0.0.1", () => {
      const address = server.address()
      resolvePromise(`http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : port}/`)
    })
  })
}
