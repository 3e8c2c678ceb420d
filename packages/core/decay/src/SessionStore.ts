/**
 * The storage port of a session. `SessionStore.layerMemory` keeps everything in memory;
 * `SessionStore.layerFile(directory)` reads and writes CCM's session directory on Effect's `FileSystem`:
 *
 * - `manifest.yaml`: the efforts;
 * - `raw.jsonl`: ambient messages, `efforts/{id}.jsonl`: each effort's raw log (`{role, content, ts}` lines,
 *   append-only; malformed lines are skipped on load);
 * - `expanded.json`: the expansion state; `session_state.json`: `{turn_count, updated}`.
 *
 * JSON and YAML files are written to a temporary file and renamed, so a crash never leaves half a file.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { readManifest, writeManifest, YamlError } from "./internal/yaml.ts"
import {
  Effort,
  type ExpandedState,
  ExpandedState as ExpandedStateSchema,
  emptyExpanded,
  LogMessage,
  SessionState,
  type Snapshot
} from "./Model.ts"

/**
 * A storage failure, naming the file and what went wrong.
 *
 * @category errors
 * @since 0.1.0
 */
export class SessionStoreError extends Schema.TaggedError<SessionStoreError>()("SessionStoreError", {
  message: Schema.String,
  path: Schema.optional(Schema.String),
  cause: Schema.optional(Schema.Defect())
}) {}

/**
 * The storage interface. Writes are whole-file for the manifest and states, appends for logs.
 *
 * @category models
 * @since 0.1.0
 */
export interface SessionStoreShape {
  /** Loads the whole session (an empty one when nothing is stored yet). */
  readonly load: Effect.Effect<Snapshot, SessionStoreError>
  /** Appends messages to `raw.jsonl`. */
  readonly appendAmbient: (messages: ReadonlyArray<LogMessage>) => Effect.Effect<void, SessionStoreError>
  /** Appends messages to `efforts/{id}.jsonl`. */
  readonly appendEffort: (id: string, messages: ReadonlyArray<LogMessage>) => Effect.Effect<void, SessionStoreError>
  /** Replaces the manifest. */
  readonly saveManifest: (manifest: ReadonlyArray<Effort>) => Effect.Effect<void, SessionStoreError>
  /** Replaces `expanded.json`. */
  readonly saveExpanded: (state: ExpandedState) => Effect.Effect<void, SessionStoreError>
  /** Replaces `session_state.json`. */
  readonly saveSession: (state: SessionState) => Effect.Effect<void, SessionStoreError>
}

/**
 * An initial session for {@link SessionStore.makeMemory}.
 *
 * @category models
 * @since 0.1.0
 */
export interface MemoryInit {
  /** The manifest. */
  readonly manifest?: ReadonlyArray<Effort> | undefined
  /** Ambient messages. */
  readonly ambient?: ReadonlyArray<LogMessage> | undefined
  /** Effort logs by id. */
  readonly logs?: Readonly<Record<string, ReadonlyArray<LogMessage>>> | undefined
  /** The expansion state. */
  readonly expanded?: ExpandedState | undefined
  /** The session state. */
  readonly session?: SessionState | undefined
}

const makeMemoryStore = (init: MemoryInit = {}): SessionStoreShape => {
  let manifest: ReadonlyArray<Effort> = [...(init.manifest ?? [])]
  const ambient: Array<LogMessage> = [...(init.ambient ?? [])]
  const logs = new Map<string, Array<LogMessage>>()
  for (const [id, messages] of Object.entries(init.logs ?? {})) logs.set(id, [...messages])
  let expanded: ExpandedState = init.expanded ?? emptyExpanded
  let session: SessionState = init.session ?? { turn_count: 0 }
  return {
    load: Effect.sync(() => {
      const copy = new Map<string, ReadonlyArray<LogMessage>>()
      for (const effort of manifest) copy.set(effort.id, [...(logs.get(effort.id) ?? [])])
      return { manifest, ambient: [...ambient], logs: copy, expanded, session }
    }),
    appendAmbient: (messages) =>
      Effect.sync(() => {
        for (const message of messages) ambient.push(message)
      }),
    appendEffort: (id, messages) =>
      Effect.sync(() => {
        let log = logs.get(id)
        if (log === undefined) {
          log = []
          logs.set(id, log)
        }
        for (const message of messages) log.push(message)
      }),
    saveManifest: (next) =>
      Effect.sync(() => {
        manifest = [...next]
      }),
    saveExpanded: (next) =>
      Effect.sync(() => {
        expanded = next
      }),
    saveSession: (next) =>
      Effect.sync(() => {
        session = next
      })
  }
}

const decodeEffort = Schema.decodeUnknownExit(Effort)
const decodeMessage = Schema.decodeUnknownExit(LogMessage)
const decodeExpanded = Schema.decodeUnknownEffect(ExpandedStateSchema)
const decodeSession = Schema.decodeUnknownEffect(SessionState)

const SAFE_RAW_FILE = /^efforts\/[^/\\]+\.jsonl$/

const parseLines = (text: string): Array<LogMessage> => {
  const out: Array<LogMessage> = []
  for (const line of text.split("\n")) {
    if (line.trim().length === 0) continue
    let json: unknown
    try {
      json = JSON.parse(line)
    } catch {
      continue
    }
    const decoded = decodeMessage(json)
    if (decoded._tag === "Success") out.push(decoded.value)
  }
  return out
}

/** Where an effort's log lives: the manifest's `raw_file` when it is a safe path, else `efforts/{id}.jsonl`. */
const rawFileOf = (effort: Effort) =>
  SAFE_RAW_FILE.test(effort.raw_file) ? effort.raw_file : `efforts/${effort.id}.jsonl`

/** The efforts of `manifest.yaml` (CCM's fields; missing file names and dates filled in), or an error naming it. */
const decodeManifest = (manifestFile: string, manifestText: string) =>
  Effect.gen(function* () {
    const raw = yield* Effect.try({
      try: () => readManifest(manifestText),
      catch: (cause) =>
        new SessionStoreError({
          message: cause instanceof YamlError ? cause.message : `could not parse ${manifestFile}`,
          path: manifestFile,
          cause
        })
    })
    const manifest: Array<Effort> = []
    for (const [index, entry] of raw.entries()) {
      const id = entry.id
      const filled = {
        ...entry,
        raw_file: entry.raw_file ?? `efforts/${typeof id === "string" ? id : ""}.jsonl`,
        created: entry.created ?? "",
        updated: entry.updated ?? entry.created ?? ""
      }
      const decoded = decodeEffort(filled)
      if (decoded._tag === "Failure") {
        return yield* new SessionStoreError({
          message: `${manifestFile}: effort #${index + 1} is invalid (needs id, status open|concluded, summary)`,
          path: manifestFile
        })
      }
      manifest.push(decoded.value)
    }
    return manifest
  })

/**
 * The file operations of one session directory, each failing with a {@link SessionStoreError} that names the file:
 * reads where a missing file reads as empty, atomic writes (a temporary file renamed over the old one), appends of
 * JSON lines, and JSON files decoded with a schema.
 */
const fileOps = (fs: FileSystem.FileSystem, directory: string) => {
  const dir = directory.replace(/[/\\]+$/, "") || "/"
  const path = (name: string) => `${dir}/${name}`
  const fail = (file: string, what: string) => (cause: unknown) =>
    new SessionStoreError({
      message: `could not ${what} ${file}: ${cause instanceof Error ? cause.message : String(cause)}`,
      path: file,
      cause
    })

  const readOptional = (file: string) =>
    fs.exists(file).pipe(
      Effect.flatMap((exists) => (exists ? Effect.map(fs.readFileString(file), (text) => text) : Effect.succeed(""))),
      Effect.mapError(fail(file, "read"))
    )

  const ensureDirs = fs.makeDirectory(path("efforts"), { recursive: true }).pipe(Effect.mapError(fail(dir, "create")))

  const writeAtomic = (file: string, text: string) =>
    Effect.gen(function* () {
      yield* ensureDirs
      const temp = `${file}.tmp`
      yield* fs.writeFileString(temp, text).pipe(Effect.mapError(fail(temp, "write")))
      yield* fs.rename(temp, file).pipe(Effect.mapError(fail(file, "replace")))
    })

  const append = (file: string, messages: ReadonlyArray<LogMessage>) =>
    messages.length === 0
      ? Effect.void
      : ensureDirs.pipe(
          Effect.andThen(
            fs
              .writeFileString(file, messages.map((message) => `${JSON.stringify(message)}\n`).join(""), {
                flag: "a"
              })
              .pipe(Effect.mapError(fail(file, "append to")))
          )
        )

  const loadJson = <A>(file: string, decode: (u: unknown) => Effect.Effect<A, Schema.SchemaError>, empty: A) =>
    Effect.gen(function* () {
      const text = yield* readOptional(file)
      if (text.trim().length === 0) return empty
      const json = yield* Effect.try({ try: () => JSON.parse(text) as unknown, catch: fail(file, "parse") })
      return yield* decode(json).pipe(Effect.mapError(fail(file, "decode")))
    })

  return { path, readOptional, writeAtomic, append, loadJson }
}

const makeFileStore = (directory: string) =>
  Effect.gen(function* () {
    const { path, readOptional, writeAtomic, append, loadJson } = fileOps(yield* FileSystem.FileSystem, directory)

    // Where each effort's log lives, by id.
    const rawFiles = new Map<string, string>()
    const remember = (manifest: ReadonlyArray<Effort>) => {
      rawFiles.clear()
      for (const effort of manifest) rawFiles.set(effort.id, rawFileOf(effort))
    }

    const load = Effect.gen(function* () {
      const manifestFile = path("manifest.yaml")
      const manifestText = yield* readOptional(manifestFile)
      const manifest = yield* decodeManifest(manifestFile, manifestText)
      remember(manifest)
      const ambient = parseLines(yield* readOptional(path("raw.jsonl")))
      const logs = new Map<string, ReadonlyArray<LogMessage>>()
      for (const effort of manifest) logs.set(effort.id, parseLines(yield* readOptional(path(rawFileOf(effort)))))
      const expanded = yield* loadJson(path("expanded.json"), decodeExpanded, emptyExpanded)
      const session = yield* loadJson(path("session_state.json"), decodeSession, { turn_count: 0 } as SessionState)
      return { manifest, ambient, logs, expanded, session } satisfies Snapshot
    })

    return SessionStore.of({
      load,
      appendAmbient: (messages) => append(path("raw.jsonl"), messages),
      appendEffort: (id, messages) => append(path(rawFiles.get(id) ?? `efforts/${id}.jsonl`), messages),
      saveManifest: (manifest) =>
        Effect.tap(writeAtomic(path("manifest.yaml"), writeManifest(manifest)), () =>
          Effect.sync(() => remember(manifest))
        ),
      saveExpanded: (state) => writeAtomic(path("expanded.json"), `${JSON.stringify(state, null, 2)}\n`),
      saveSession: (state) => writeAtomic(path("session_state.json"), `${JSON.stringify(state, null, 2)}\n`)
    })
  })

/**
 * The session storage service.
 *
 * - `SessionStore.layerMemory`: an empty in-memory session (needs nothing);
 * - `SessionStore.layerMemoryWith(init)`: an in-memory session with initial content;
 * - `SessionStore.layerFile(directory)`: CCM's session directory format on `FileSystem`.
 *
 * @category services
 * @since 0.1.0
 */
export class SessionStore extends Context.Service<SessionStore, SessionStoreShape>()("@heed/decay/SessionStore") {}

/**
 * An in-memory store, optionally pre-filled.
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeMemory = (init?: MemoryInit): SessionStoreShape => makeMemoryStore(init)

/**
 * An empty in-memory session.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerMemory: Layer.Layer<SessionStore> = Layer.sync(SessionStore, () => makeMemoryStore())

/**
 * An in-memory session with initial content.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerMemoryWith = (init: MemoryInit): Layer.Layer<SessionStore> =>
  Layer.sync(SessionStore, () => makeMemoryStore(init))

/**
 * A session directory on Effect's `FileSystem` (created on the first write).
 *
 * @category layers
 * @since 0.1.0
 */
export const layerFile = (directory: string): Layer.Layer<SessionStore, never, FileSystem.FileSystem> =>
  Layer.effect(SessionStore, makeFileStore(directory))
