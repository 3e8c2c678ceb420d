/**
 * SLOP discovery: the provider descriptor, served at `/.well-known/slop` and written to (and removed from)
 * `~/.slop/providers/<id>.json` for local consumers, and the page's `<meta name="slop">` tag.
 *
 * @since 0.1.0
 */
import { Message, Provider } from "@heed/state-tree"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as HttpRouter from "effect/http/HttpRouter"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import type * as Layer from "effect/Layer"
import * as Path from "effect/Path"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"

/**
 * How a consumer reaches the provider. heed serves `ws`; the other kinds are SLOP's and are read by {@link list}.
 *
 * @category models
 * @since 0.1.0
 */
export type Transport =
  | { readonly type: "ws"; readonly url: string }
  | { readonly type: "unix"; readonly path: string }
  | { readonly type: "stdio"; readonly command: ReadonlyArray<string> }
  | { readonly type: "pipe"; readonly name: string }
  | { readonly type: "postmessage" }

/**
 * A SLOP provider descriptor (`slop_version: "0.1"`): the document at `/.well-known/slop` and the content of a
 * descriptor file.
 *
 * @category models
 * @since 0.1.0
 */
export interface Descriptor {
  readonly id: string
  readonly name: string
  readonly version?: string | undefined
  readonly slop_version: string
  readonly transport: Transport
  readonly pid?: number | undefined
  readonly capabilities: ReadonlyArray<string>
  readonly description?: string | undefined
}

const NonEmpty = Schema.String.check(Schema.isNonEmpty())

/**
 * Schema of a {@link Descriptor}.
 *
 * @category schemas
 * @since 0.1.0
 */
export const DescriptorSchema: Schema.Codec<Descriptor> = Schema.Struct({
  id: NonEmpty,
  name: NonEmpty,
  version: Schema.optional(Schema.String),
  slop_version: NonEmpty,
  transport: Schema.Union([
    Schema.Struct({ type: Schema.Literal("ws"), url: NonEmpty }),
    Schema.Struct({ type: Schema.Literal("unix"), path: NonEmpty }),
    Schema.Struct({ type: Schema.Literal("stdio"), command: Schema.Array(Schema.String) }),
    Schema.Struct({ type: Schema.Literal("pipe"), name: NonEmpty }),
    Schema.Struct({ type: Schema.Literal("postmessage") })
  ]),
  pid: Schema.optional(Schema.Int),
  capabilities: Schema.Array(Schema.String),
  description: Schema.optional(Schema.String)
}) as never

/**
 * A discovery failure: an id that cannot name a file, no home directory, or a file that cannot be written or
 * removed. The message says which and where.
 *
 * @category errors
 * @since 0.1.0
 */
export class DiscoveryError extends Schema.TaggedError<DiscoveryError>()("DiscoveryError", {
  message: Schema.String
}) {}

/**
 * What describes a provider served over WebSocket: `id` and `name` (as in its `hello`), `url` (`ws://…/slop`), and
 * optionally its app `version`, a `description`, the process `pid` (lets consumers spot a stale file) and its
 * `capabilities` (heed's by default).
 *
 * @category models
 * @since 0.1.0
 */
export interface Info {
  readonly id: string
  readonly name: string
  readonly url: string
  readonly version?: string | undefined
  readonly description?: string | undefined
  readonly pid?: number | undefined
  readonly capabilities?: ReadonlyArray<string> | undefined
}

/**
 * The descriptor of a provider served over WebSocket.
 *
 * @category constructors
 * @since 0.1.0
 */
export const descriptor = (info: Info): Descriptor => {
  const out: { -readonly [K in keyof Descriptor]: Descriptor[K] } = {
    id: info.id,
    name: info.name,
    slop_version: Message.slopVersion,
    transport: { type: "ws", url: info.url },
    capabilities: info.capabilities ?? Provider.capabilities
  }
  if (info.version !== undefined) out.version = info.version
  if (info.pid !== undefined) out.pid = info.pid
  if (info.description !== undefined) out.description = info.description
  return out
}

// -----------------------------------------------------------------------------------------------------------------
// Descriptor files

/**
 * Where descriptor files go: `directory`, by default `~/.slop/providers` (the user's providers; the home directory
 * is read from `HOME`, or `USERPROFILE`, through Effect's `Config`).
 *
 * @category models
 * @since 0.1.0
 */
export interface FileOptions {
  readonly directory?: string | undefined
}

/**
 * The default descriptor directory, `~/.slop/providers`.
 *
 * @category getters
 * @since 0.1.0
 */
export const providersDirectory: Effect.Effect<string, DiscoveryError, Path.Path> = Effect.gen(function* () {
  const path = yield* Path.Path
  const home = yield* Config.NonEmptyString("HOME").pipe(
    Config.orElse(() => Config.NonEmptyString("USERPROFILE")),
    Effect.mapError(
      () => new DiscoveryError({ message: "cannot find the home directory for ~/.slop/providers: HOME is not set" })
    )
  )
  return path.join(home, ".slop", "providers")
})

const fileId = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/

const fileOf = (id: string, options: FileOptions) =>
  Effect.gen(function* () {
    if (!fileId.test(id)) {
      return yield* new DiscoveryError({
        message: `provider id "${id}" cannot name a descriptor file: use letters, digits, ".", "_" and "-" (at most 128)`
      })
    }
    const path = yield* Path.Path
    const directory = options.directory ?? (yield* providersDirectory)
    return { directory, file: path.join(directory, `${id}.json`) }
  })

const failure = (what: string) => (error: { readonly message: string }) =>
  new DiscoveryError({ message: `${what}: ${error.message}` })

/**
 * Writes the descriptor file `<directory>/<id>.json` (creating the directory), replacing an older one atomically.
 * Returns the file's path.
 *
 * @category running
 * @since 0.1.0
 */
export const write = (
  descriptor: Descriptor,
  options: FileOptions = {}
): Effect.Effect<string, DiscoveryError, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const { directory, file } = yield* fileOf(descriptor.id, options)
    const temporary = `${file}.${Math.random().toString(36).slice(2)}.tmp`
    yield* fs.makeDirectory(directory, { recursive: true }).pipe(Effect.mapError(failure(`cannot create ${directory}`)))
    yield* fs
      .writeFileString(temporary, `${JSON.stringify(descriptor, null, 2)}\n`)
      .pipe(Effect.andThen(fs.rename(temporary, file)), Effect.mapError(failure(`cannot write ${file}`)))
    return file
  })

/**
 * Removes the descriptor file of `id`; a file that is already gone is fine.
 *
 * @category running
 * @since 0.1.0
 */
export const remove = (
  id: string,
  options: FileOptions = {}
): Effect.Effect<void, DiscoveryError, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const { file } = yield* fileOf(id, options)
    yield* fs.remove(file, { force: true }).pipe(Effect.mapError(failure(`cannot remove ${file}`)))
  })

/**
 * Writes the descriptor file now and removes it when the scope closes (the provider's lifetime).
 *
 * @category running
 * @since 0.1.0
 */
export const register = (
  descriptor: Descriptor,
  options: FileOptions = {}
): Effect.Effect<string, DiscoveryError, FileSystem.FileSystem | Path.Path | Scope.Scope> =>
  Effect.acquireRelease(write(descriptor, options), () => Effect.ignore(remove(descriptor.id, options)))

const decodeDescriptor = Schema.decodeUnknownResult(Schema.fromJsonString(DescriptorSchema))

/**
 * The valid descriptors in the directory (what a local consumer discovers), by file name; files that are not
 * descriptors are skipped with a warning in the log. A missing directory has none.
 *
 * @category running
 * @since 0.1.0
 */
export const list = (
  options: FileOptions = {}
): Effect.Effect<ReadonlyArray<Descriptor>, DiscoveryError, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const directory = options.directory ?? (yield* providersDirectory)
    const read = Effect.mapError(failure(`cannot read ${directory}`))
    if (!(yield* read(fs.exists(directory)))) return []
    const names = (yield* read(fs.readDirectory(directory))).filter((name) => name.endsWith(".json")).sort()
    const out: Array<Descriptor> = []
    for (const name of names) {
      const file = path.join(directory, name)
      const result = decodeDescriptor(yield* read(fs.readFileString(file)))
      if (result._tag === "Success") out.push(result.success)
      else yield* Effect.logWarning(`skipping ${file}: not a SLOP descriptor (${result.failure.message})`)
    }
    return out
  })

// -----------------------------------------------------------------------------------------------------------------
// Web discovery

/**
 * The path of the web discovery document.
 *
 * @category constants
 * @since 0.1.0
 */
export const wellKnownPath = "/.well-known/slop"

/**
 * Options of {@link layer}: the provider's `id` and `name` (and optional `version`, `description`,
 * `capabilities`), and either a fixed WebSocket `url` or the `path` of the SLOP endpoint on the same server (default
 * `"/slop"`), from which each request's URL is derived (`ws://<Host header><path>`, `wss://` when
 * `X-Forwarded-Proto` is `https` and `trustProxy` is set).
 *
 * @category models
 * @since 0.1.0
 */
export interface WebOptions extends Omit<Info, "url" | "pid"> {
  readonly url?: string | undefined
  readonly path?: string | undefined
  readonly trustProxy?: boolean | undefined
}

/**
 * The WebSocket URL a request reached the server by, for the SLOP endpoint at `path`.
 *
 * @category getters
 * @since 0.1.0
 */
export const urlFor = (request: HttpServerRequest.HttpServerRequest, path: string, trustProxy = false): string => {
  const forwarded = trustProxy ? request.headers["x-forwarded-proto"]?.split(",")[0]?.trim() : undefined
  const host = (trustProxy ? request.headers["x-forwarded-host"] : undefined) ?? request.headers.host ?? "localhost"
  return `${forwarded === "https" ? "wss" : "ws"}://${host}${path}`
}

/**
 * Serves the descriptor at `/.well-known/slop` (JSON, readable cross-origin, as browser extensions fetch it).
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options: WebOptions): Layer.Layer<never, never, HttpRouter.HttpRouter> =>
  HttpRouter.add("GET", wellKnownPath, (request) =>
    Effect.succeed(
      HttpServerResponse.jsonUnsafe(
        descriptor({ ...options, url: options.url ?? urlFor(request, options.path ?? "/slop", options.trustProxy) }),
        { headers: { "access-control-allow-origin": "*", "cache-control": "no-store" } }
      )
    )
  )

const escapeHtml = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;")

/**
 * The HTML meta tag that announces a SLOP endpoint on a page: `<meta name="slop" content="ws://…/slop">`.
 *
 * @category constructors
 * @since 0.1.0
 */
export const metaTag = (url: string): string => `<meta name="slop" content="${escapeHtml(url)}">`
