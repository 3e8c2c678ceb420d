/**
 * The dashboard: a page at `/` (built by Vite from `web/` into `dist/web`, served with its hashed assets under
 * `/assets/`) that mirrors the owner's live SLOP tree over `/slop`, and the two JSON reads it needs that a browser
 * cannot compute itself, because they count o200k tokens (the tokenizer's vocabulary is about 1 MB gzipped):
 * `GET /dashboard/briefing` (the briefing and its token counts) and `GET /dashboard/view` (what an agent is served
 * under a token or node budget: `Pipeline.optimize` and `Digest.make` of the tree, and the briefing cut to the budget).
 *
 * The page and its assets are public (they hold no data); the JSON reads take the same bearer token as `/v1` and
 * `/slop`.
 *
 * @since 0.1.0
 */
import { readFile, stat } from "node:fs/promises"
import { extname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { gzipSync } from "node:zlib"
import { type Briefing, BriefingView } from "@heed/collator"
import { Discovery } from "@heed/http"
import type { ToolFailure } from "@heed/http/RestApi"
import { TokenCounter } from "@heed/schema"
import { Digest, Node, Pipeline, Render } from "@heed/state-tree"
import * as Effect from "effect/Effect"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Layer from "effect/Layer"
import * as Auth from "./Auth.ts"
import type { Backend } from "./Backend.ts"
import type { BriefingReply, ViewReply, ViewRow } from "./DashboardReply.ts"
import { LiveTree } from "./LiveTree.ts"
import { peekBriefingAs } from "./ToolCall.ts"

// -----------------------------------------------------------------------------------------------------------------
// Static assets

/**
 * Where the built page is looked for when `HEED_DASHBOARD_DIR` is not set: `web/` next to the compiled modules
 * (`dist/web`), or `dist/web` when running from source.
 *
 * @category getters
 * @since 0.1.0
 */
export const defaultAssetsDirs = (): ReadonlyArray<string> => [
  fileURLToPath(new URL("./web/", import.meta.url)),
  fileURLToPath(new URL("../dist/web/", import.meta.url))
]

const contentTypes: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
  ".map": "application/json",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8"
}

/**
 * The `Content-Type` of an asset, from its extension (`application/octet-stream` when unknown).
 *
 * @category getters
 * @since 0.1.0
 */
export const contentTypeOf = (file: string): string =>
  contentTypes[extname(file).toLowerCase()] ?? "application/octet-stream"

/**
 * Whether an asset's name carries a content hash (Vite's `name-<hash>.ext`), so that it can be cached forever.
 *
 * @category getters
 * @since 0.1.0
 */
export const isHashed = (file: string): boolean => /-[A-Za-z0-9_-]{8,}\.[a-z0-9]+$/.test(file)

const compressible = (type: string): boolean => /^(text\/|application\/json|image\/svg)/.test(type)

interface Asset {
  readonly body: Uint8Array
  readonly gzip: Uint8Array | undefined
  readonly type: string
}

const assetName = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/

/**
 * Reads the files of the built page, keeping those found (they never change while the server runs). Misses are not
 * kept, so requests for made-up names cannot grow the cache, and a page built after the server started is found.
 */
const makeAssets = (dirs: ReadonlyArray<string>) => {
  const cache = new Map<string, Promise<Asset | undefined>>()
  const findRoot = async (): Promise<string | undefined> => {
    for (const dir of dirs) {
      const found = await stat(join(dir, "index.html")).then(
        (info) => info.isFile(),
        () => false
      )
      if (found) return dir
    }
    return undefined
  }
  let root: Promise<string | undefined> | undefined
  const rootDir = async () => {
    root ??= findRoot()
    const dir = await root
    if (dir === undefined) root = undefined
    return dir
  }
  const load = async (relative: string): Promise<Asset | undefined> => {
    const dir = await rootDir()
    if (dir === undefined) return undefined
    const body = await readFile(join(dir, relative)).catch(() => undefined)
    if (body === undefined) return undefined
    const type = contentTypeOf(relative)
    return { body, type, gzip: compressible(type) && body.length > 512 ? gzipSync(body, { level: 9 }) : undefined }
  }
  const read = (relative: string): Promise<Asset | undefined> => {
    const hit = cache.get(relative)
    if (hit !== undefined) return hit
    const loading = load(relative).then((asset) => {
      if (asset === undefined) cache.delete(relative)
      return asset
    })
    cache.set(relative, loading)
    return loading
  }
  return { read }
}

const acceptsGzip = (request: HttpServerRequest.HttpServerRequest): boolean =>
  /\bgzip\b/.test(request.headers["accept-encoding"] ?? "")

const serveAsset = (
  request: HttpServerRequest.HttpServerRequest,
  asset: Asset,
  headers: Record<string, string>,
  body: Uint8Array = asset.body
) => {
  const gzip = asset.gzip !== undefined && body === asset.body && acceptsGzip(request)
  return HttpServerResponse.uint8Array(gzip ? asset.gzip! : body, {
    contentType: asset.type,
    headers: {
      "x-content-type-options": "nosniff",
      ...(asset.gzip === undefined ? {} : { vary: "accept-encoding" }),
      ...(gzip ? { "content-encoding": "gzip" } : {}),
      ...headers
    }
  })
}

const notFound = (message: string) =>
  HttpServerResponse.text(message, { status: 404, headers: { "x-content-type-options": "nosniff" } })

const pathOf = (url: string): string => url.split("?")[0] ?? url

/** The page's security policy: everything from this origin, the WebSocket to this host, nothing inline. */
const policyFor = (host: string): string =>
  [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src 'self' ws://${host} wss://${host}`,
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'"
  ].join("; ")

const slopMeta = /<meta\s+name="slop"[^>]*>/

/**
 * The routes of the page: `GET /` (index.html, its `<meta name="slop">` pointing at this server's `/slop`, never
 * cached) and `GET /assets/<file>` (hashed files cached as immutable for a year). Both are public. Without a built
 * page, `/` answers 503 saying how to build it.
 *
 * @category layers
 * @since 0.1.0
 */
export const pageLayer = (options: { readonly assetsDir?: string | undefined } = {}) => {
  const assets = makeAssets(options.assetsDir === undefined ? defaultAssetsDirs() : [options.assetsDir])
  const index = HttpRouter.add("GET", "/", (request) =>
    Effect.promise(async () => {
      const asset = await assets.read("index.html")
      if (asset === undefined) {
        return HttpServerResponse.text(
          "The dashboard is not built: run `./heed build` (or set HEED_DASHBOARD_DIR to a built page).",
          { status: 503, headers: { "cache-control": "no-store" } }
        )
      }
      const host = request.headers.host ?? "localhost"
      const html = new TextDecoder()
        .decode(asset.body)
        .replace(slopMeta, Discovery.metaTag(Discovery.urlFor(request, "/slop")))
      return serveAsset(
        request,
        asset,
        {
          "cache-control": "no-cache",
          "content-security-policy": policyFor(host),
          "referrer-policy": "no-referrer"
        },
        new TextEncoder().encode(html)
      )
    })
  )
  const files = HttpRouter.add("GET", "/assets/*", (request) =>
    Effect.promise(async () => {
      const name = pathOf(request.url).slice("/assets/".length)
      if (!assetName.test(name)) return notFound("no such asset")
      const asset = await assets.read(`assets/${name}`)
      if (asset === undefined) return notFound("no such asset")
      return serveAsset(request, asset, {
        "cache-control": isHashed(name) ? "public, max-age=31536000, immutable" : "no-cache"
      })
    })
  )
  return Layer.mergeAll(index, files)
}

// -----------------------------------------------------------------------------------------------------------------
// The JSON reads

const descendants = (node: Node.Node): number => Node.count(node) - 1

/**
 * The rows of a view, each with how many nodes of `full` the view left out whose nearest shown ancestor it is (so
 * every cut node is counted once, under one stub).
 */
const rowsOf = (view: Node.Node, full: Node.Node | undefined): Array<ViewRow> => {
  const rows: Array<ViewRow> = []
  // returns how many descendants of `original` the view left out under `node`
  const walk = (node: Node.Node, original: Node.Node | undefined, depth: number): number => {
    const missing = original === undefined ? 0 : Math.max(0, descendants(original) - descendants(node))
    const row = { depth, id: node.id, type: node.type, line: Render.line(node), cut: 0 }
    rows.push(row)
    const byId = new Map<string, Node.Node>()
    for (const child of original === undefined ? [] : Node.childrenOf(original)) byId.set(child.id, child)
    let below = 0
    for (const child of Node.childrenOf(node)) below += walk(child, byId.get(child.id), depth + 1)
    row.cut = Math.max(0, missing - below)
    return missing
  }
  walk(view, full, 0)
  return rows
}

/** The o200k tokens of the compact JSON `get_briefing` returns to an agent. */
const agentTokens = (briefing: Briefing.Briefing): number =>
  TokenCounter.countO200k(JSON.stringify(BriefingView.json(briefing)))

/**
 * The briefing at a budget. In tokens it is the collator's own fit under that budget (`fitted`: shorter texts,
 * healthy sources folded into a count, fewer names, counts only as the last resort), counted as an agent gets it;
 * `cut` is how many of the full briefing's lines it no longer has. In nodes it is the full briefing's first `budget`
 * lines, most severe first.
 */
const briefingAt = (
  lines: ReadonlyArray<string>,
  budget: number,
  fitted:
    | { readonly briefing: Briefing.Briefing; readonly summary: string; readonly lines: ReadonlyArray<string> }
    | undefined
): ViewReply["briefing"] => {
  if (fitted !== undefined) {
    const fittedLines = [fitted.summary, ...fitted.lines]
    return {
      lines: fittedLines,
      cut: Math.max(0, lines.length - fittedLines.length),
      tokens: agentTokens(fitted.briefing)
    }
  }
  const kept = lines.slice(0, budget)
  const cut = lines.length - kept.length
  return {
    lines: kept,
    cut,
    tokens: TokenCounter.countO200k([...kept, ...(cut > 0 ? [`+${cut} more lines`] : [])].join("\n"))
  }
}

/**
 * Computes the {@link ViewReply} for a tree and the briefing's text lines; `fitted` is the briefing the collator fits
 * under a token budget (`Awareness.peekBriefingWithin`), shown for `unit: "tokens"`.
 *
 * @category constructors
 * @since 0.1.0
 */
export const viewOf = (
  tree: Node.Node,
  briefingLines: ReadonlyArray<string>,
  unit: "tokens" | "nodes",
  budget: number,
  fitted?: { readonly briefing: Briefing.Briefing; readonly summary: string; readonly lines: ReadonlyArray<string> }
): ViewReply => {
  const request: Pipeline.Request = unit === "tokens" ? { max_tokens: budget } : { max_nodes: budget }
  const view = Pipeline.optimize(tree, request)
  const smallest = Pipeline.optimize(tree, unit === "tokens" ? { max_tokens: 0 } : { max_nodes: 0 })
  const digest = Digest.make(tree, unit === "tokens" ? { maxTokens: budget } : { maxNodes: budget })
  const fullDigest = Digest.make(tree)
  const digestEntries = Node.childrenOf(digest).length
  return {
    unit,
    budget,
    total: { nodes: Node.count(tree), tokens: TokenCounter.countO200k(Render.text(tree)) },
    floor: { nodes: Node.count(smallest), tokens: TokenCounter.countO200k(Render.text(smallest)) },
    view: { nodes: Node.count(view), tokens: TokenCounter.countO200k(Render.text(view)), rows: rowsOf(view, tree) },
    digest: {
      nodes: Node.count(digest),
      tokens: TokenCounter.countO200k(Render.text(digest)),
      summary: digest.meta?.summary ?? "",
      rows: rowsOf(digest, undefined),
      cut: Math.max(0, Node.childrenOf(fullDigest).length - digestEntries)
    },
    briefing: briefingAt(briefingLines, budget, unit === "tokens" ? fitted : undefined)
  }
}

const json = (body: unknown, status = 200) =>
  HttpServerResponse.jsonUnsafe(body, { status, headers: { "cache-control": "no-store" } })

const problem = (status: number, code: string, message: string) =>
  json({ error: code, error_description: message }, status)

const unauthorized = (challenge: string, message: string) =>
  HttpServerResponse.jsonUnsafe(
    { error: "unauthorized", error_description: message },
    { status: 401, headers: { "www-authenticate": challenge, "cache-control": "no-store" } }
  )

const failed = (failure: ToolFailure) => problem(503, failure.code, failure.message)

/** A text line as a person reads it: a reminder by its goal (`INTENTION: goal`), not its entry id. */
const forPeople = (line: string): string => line.replace(/^INTENTION [^:]+: /, "INTENTION: ")

/**
 * The briefing and its lines, peeked (a dashboard read never delivers a due reminder); with `maxTokens`, as the
 * collator fits it under that budget.
 */
const briefingOf = (owner: string, maxTokens?: number) =>
  Effect.map(peekBriefingAs(owner, maxTokens), (value) => {
    const briefing = value as Briefing.Briefing
    const [summary = "", ...lines] = BriefingView.text(briefing).split("\n")
    return { briefing, summary, lines: lines.map(forPeople) }
  })

const searchOf = (url: string) => new URLSearchParams(url.includes("?") ? url.slice(url.indexOf("?") + 1) : "")

/** The largest budget accepted, in tokens or nodes. */
const maxBudget = 1_000_000

/**
 * The dashboard's JSON reads, for the owner of the request's bearer token (`401` without a valid one when auth is
 * on, or with an invalid one at any time): `GET /dashboard/briefing` ({@link BriefingReply}) and
 * `GET /dashboard/view?unit=tokens|nodes&budget=N` ({@link ViewReply}; `400` for another unit or a budget that is
 * not an integer from 0 to 1,000,000).
 *
 * @category layers
 * @since 0.1.0
 */
export const apiLayer = (): Layer.Layer<never, never, HttpRouter.HttpRouter | LiveTree | Backend | Auth.Auth> =>
  Layer.unwrap(
    Effect.gen(function* () {
      const live = yield* LiveTree
      const auth = yield* Auth.Auth
      const context = yield* Effect.context<Backend>()
      // A GET route answered for the request's owner; `401` when the request has none.
      const ownedRoute = <E, R>(
        path: `/${string}`,
        handle: (
          owner: string,
          request: HttpServerRequest.HttpServerRequest
        ) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
      ) =>
        HttpRouter.add(
          "GET",
          path,
          Effect.gen(function* () {
            const request = yield* HttpServerRequest.HttpServerRequest
            const owner = yield* Effect.result(auth.ownerOf(request.headers.authorization))
            if (owner._tag === "Failure") {
              return owner.failure.status === 503
                ? problem(503, "unavailable", owner.failure.message)
                : unauthorized(auth.challenge(owner.failure), owner.failure.message)
            }
            return yield* handle(owner.success, request)
          })
        )
      const briefingRoute = ownedRoute("/dashboard/briefing", (owner) =>
        Effect.gen(function* () {
          const read = yield* Effect.result(Effect.provideContext(briefingOf(owner), context))
          if (read._tag === "Failure") return failed(read.failure)
          const { briefing, lines, summary } = read.success
          const reply: BriefingReply = {
            owner,
            briefing,
            summary,
            lines,
            tokens: agentTokens(briefing),
            text_tokens: TokenCounter.countO200k(BriefingView.text(briefing))
          }
          return json(reply)
        })
      )
      const viewRoute = ownedRoute("/dashboard/view", (owner, request) =>
        Effect.gen(function* () {
          const search = searchOf(request.url)
          const unit = search.get("unit") ?? "tokens"
          const budget = Number(search.get("budget") ?? "")
          if (unit !== "tokens" && unit !== "nodes") {
            return problem(400, "invalid_parameter", `unit must be "tokens" or "nodes" (got ${JSON.stringify(unit)})`)
          }
          if (!Number.isInteger(budget) || budget < 0 || budget > maxBudget) {
            return problem(400, "invalid_parameter", `budget must be an integer from 0 to ${maxBudget}`)
          }
          const read = yield* Effect.result(
            Effect.all([
              live.currentTree(owner),
              Effect.provideContext(briefingOf(owner), context),
              unit === "tokens" ? Effect.provideContext(briefingOf(owner, budget), context) : Effect.succeed(undefined)
            ])
          )
          if (read._tag === "Failure") return failed(read.failure)
          const [tree, full, fitted] = read.success
          return json(viewOf(tree, [full.summary, ...full.lines], unit, budget, fitted))
        })
      )
      return Layer.mergeAll(briefingRoute, viewRoute)
    })
  )

/**
 * Whether a path belongs to the dashboard: the page and its assets (public) and its JSON reads (which check the
 * bearer token themselves), so the global auth check leaves them alone.
 *
 * @category getters
 * @since 0.1.0
 */
export const isDashboardPath = (url: string): boolean => {
  const path = pathOf(url)
  return path === "/" || path.startsWith("/assets/") || path.startsWith("/dashboard/")
}
