import { NodeFileSystem } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { TokenCounter } from "@heed/schema"
import { Effect, FileSystem, Layer } from "effect"
import { Session, SessionStore, Summarizer } from "../src/index.ts"
import { concluded, exchange } from "./helpers.ts"

const fileSession = (dir: string) =>
  Session.layer().pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        SessionStore.layerFile(dir).pipe(Layer.provide(NodeFileSystem.layer)),
        Summarizer.layerExtractive,
        TokenCounter.layerO200k
      )
    )
  )

const tempDir = Effect.gen(function* () {
  const fs = yield* FileSystem.FileSystem
  return yield* fs.makeTempDirectoryScoped({ prefix: "heed-decay-" })
}).pipe(Effect.provide(NodeFileSystem.layer))

const readText = (path: string) =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => fs.readFileString(path)).pipe(Effect.provide(NodeFileSystem.layer))

const writeText = (path: string, text: string) =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => fs.writeFileString(path, text)).pipe(
    Effect.provide(NodeFileSystem.layer)
  )

describe("SessionStore.layerMemory", () => {
  it.effect("starts empty and keeps what is written", () =>
    Effect.gen(function* () {
      const store = yield* SessionStore.SessionStore
      const empty = yield* store.load
      assert.deepStrictEqual([empty.manifest.length, empty.ambient.length, empty.session.turn_count], [0, 0, 0])
      yield* store.saveManifest([concluded("a", "A summary")])
      yield* store.appendEffort("a", exchange("q", "r"))
      yield* store.appendAmbient(exchange("hi", "hello"))
      yield* store.saveSession({ turn_count: 3 })
      const loaded = yield* store.load
      assert.strictEqual(loaded.logs.get("a")!.length, 2)
      assert.strictEqual(loaded.ambient.length, 2)
      assert.strictEqual(loaded.session.turn_count, 3)
    }).pipe(Effect.provide(SessionStore.layerMemory))
  )
})

describe("SessionStore.layerFile", () => {
  it.effect("writes CCM's session directory and a new session reloads it", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      yield* Effect.gen(function* () {
        const session = yield* Session.Session
        yield* session.openEffort({ name: "auth-bug" })
        yield* session.processTurn({
          user: "Users get 401 errors after an hour; the refresh token is never sent by the client.",
          assistant: "Add an axios interceptor that refreshes tokens on 401 and retries the request."
        })
        yield* session.closeEffort({})
        yield* session.processTurn({ user: "Works now, done.", assistant: "Great." })
        yield* session.processTurn({ user: "Unrelated chat", assistant: "Sure." })
        yield* session.expandEffort({ id: "auth-bug" })
      }).pipe(Effect.provide(fileSession(dir)))

      const manifest = yield* readText(`${dir}/manifest.yaml`)
      assert.match(manifest, /^efforts:\n- id: "auth-bug"\n {2}status: "concluded"\n/)
      const lines = (yield* readText(`${dir}/efforts/auth-bug.jsonl`)).trim().split("\n")
      assert.strictEqual(lines.length, 4)
      assert.strictEqual(JSON.parse(lines[0]!).role, "user")
      assert.strictEqual((yield* readText(`${dir}/raw.jsonl`)).trim().split("\n").length, 2)
      const state = JSON.parse(yield* readText(`${dir}/session_state.json`))
      assert.strictEqual(state.turn_count, 3)
      const expanded = JSON.parse(yield* readText(`${dir}/expanded.json`))
      assert.deepStrictEqual(expanded.expanded, ["auth-bug"])
      assert.strictEqual(expanded.last_referenced_turn["auth-bug"], 4)

      yield* Effect.gen(function* () {
        const session = yield* Session.Session
        const view = yield* session.state()
        assert.strictEqual(view.turn_count, 3)
        assert.deepStrictEqual(view.expanded, ["auth-bug"])
        assert.strictEqual(view.manifest[0]!.status, "concluded")
        const context = yield* session.buildContext()
        assert.isTrue(context.some((m) => m.content.includes("axios interceptor")))
      }).pipe(Effect.provide(fileSession(dir)))
    }).pipe(Effect.scoped)
  )

  it.effect("reads a directory written by CCM (PyYAML manifest, folded summaries, malformed log lines)", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      yield* writeText(
        `${dir}/manifest.yaml`,
        [
          "# written by oi",
          "efforts:",
          "- id: auth-bug",
          "  status: concluded",
          "  summary: 'Fixed 401 errors: refresh tokens never auto-called. Added axios interceptor",
          "    that retries once. It''s done.'",
          "  raw_file: efforts/auth-bug.jsonl",
          "  created: '2026-02-15T18:00:00'",
          "  updated: '2026-02-15T18:10:00'",
          "- id: perf-fix",
          "  status: concluded",
          "  summary: Dashboard query was slow because of a missing JOIN index, added the",
          "    index and a cache.",
          "  raw_file: efforts/perf-fix.jsonl",
          "  created: '2026-02-15T18:20:00'",
          "  updated: '2026-02-15T18:30:00'",
          "- id: new-feature",
          "  status: open",
          "  active: true",
          "  summary: null",
          "  raw_file: efforts/new-feature.jsonl",
          '  created: "2026-02-15T18:40:00"',
          '  updated: "2026-02-15T18:40:00"',
          ""
        ].join("\n")
      )
      const fs = yield* FileSystem.FileSystem
      yield* fs.makeDirectory(`${dir}/efforts`, { recursive: true })
      yield* fs.writeFileString(
        `${dir}/efforts/auth-bug.jsonl`,
        `${JSON.stringify({ role: "user", content: "401 again", ts: "2026-02-15T18:00:00" })}\nnot json\n{"role":"x"}\n`
      )
      yield* fs.writeFileString(`${dir}/session_state.json`, '{"turn_count": 14, "updated": "2026-02-15T18:10:00"}')
      yield* fs.writeFileString(
        `${dir}/expanded.json`,
        '{"expanded": ["perf-fix"], "expanded_at": {"perf-fix": "2026-02-15T18:05:00"}, "last_referenced_turn": {"perf-fix": 12}}'
      )
      yield* Effect.gen(function* () {
        const store = yield* SessionStore.SessionStore
        const snapshot = yield* store.load
        assert.deepStrictEqual(
          snapshot.manifest.map((e) => [e.id, e.status, e.active]),
          [
            ["auth-bug", "concluded", undefined],
            ["perf-fix", "concluded", undefined],
            ["new-feature", "open", true]
          ]
        )
        assert.strictEqual(
          snapshot.manifest[0]!.summary,
          "Fixed 401 errors: refresh tokens never auto-called. Added axios interceptor that retries once. It's done."
        )
        assert.strictEqual(
          snapshot.manifest[1]!.summary,
          "Dashboard query was slow because of a missing JOIN index, added the index and a cache."
        )
        assert.isNull(snapshot.manifest[2]!.summary)
        assert.deepStrictEqual(
          snapshot.logs.get("auth-bug")!.map((m) => m.content),
          ["401 again"]
        )
        assert.strictEqual(snapshot.session.turn_count, 14)
        assert.deepStrictEqual(snapshot.expanded.last_referenced_turn, { "perf-fix": 12 })
        // Round trip through heed's writer.
        yield* store.saveManifest(snapshot.manifest)
        assert.deepStrictEqual((yield* store.load).manifest, snapshot.manifest)
      }).pipe(Effect.provide(SessionStore.layerFile(dir).pipe(Layer.provide(NodeFileSystem.layer))))
    }).pipe(Effect.scoped, Effect.provide(NodeFileSystem.layer))
  )

  it.effect("a broken manifest fails with SessionStoreError naming the line", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      yield* writeText(`${dir}/manifest.yaml`, 'efforts:\n- id: "a\n  status: open\n')
      const error = yield* Effect.flip(
        Effect.flatMap(SessionStore.SessionStore, (store) => store.load).pipe(
          Effect.provide(SessionStore.layerFile(dir).pipe(Layer.provide(NodeFileSystem.layer)))
        )
      )
      assert.strictEqual(error._tag, "SessionStoreError")
      assert.include(error.message, "line 2")
    }).pipe(Effect.scoped)
  )
})
