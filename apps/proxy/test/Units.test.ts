import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import { References } from "@heed/decay"
import * as Effect from "effect/Effect"
import * as Efforts from "../src/Efforts.ts"
import * as Protocol from "../src/Protocol.ts"
import * as Server from "../src/Server.ts"
import * as SessionState from "../src/SessionState.ts"
import * as SessionStore from "../src/SessionStore.ts"
import * as Transcript from "../src/Transcript.ts"
import * as Upstream from "../src/Upstream.ts"

const appDir = fileURLToPath(new URL("..", import.meta.url))

describe("Transcript.rewrite", () => {
  it("replaces only the unit's text: images, cache_control, other blocks and fields stay", () => {
    const image = { type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } }
    const body = {
      model: "m",
      extra: 1,
      messages: [
        { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "read", input: { path: "a.ts" } }] },
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              tool_use_id: "t1",
              is_error: false,
              cache_control: { type: "ephemeral" },
              content: [{ type: "text", text: "first part" }, image, { type: "text", text: "second part" }]
            },
            { type: "text", text: "and a question", cache_control: { type: "ephemeral" } }
          ]
        }
      ]
    }
    const transcript = Transcript.read("anthropic", body)
    const unit = transcript.messages[1]!.units.find((u) => u.kind === "tool_result")!
    assert.deepStrictEqual(unit.texts, ["first part", "second part"])
    const out = Transcript.rewrite(body, transcript, new Map([[unit.key, "GIST"]])) as typeof body
    assert.deepStrictEqual(out.messages[1]!.content, [
      {
        type: "tool_result",
        tool_use_id: "t1",
        is_error: false,
        cache_control: { type: "ephemeral" },
        content: [{ type: "text", text: "GIST" }, image]
      },
      { type: "text", text: "and a question", cache_control: { type: "ephemeral" } }
    ])
    assert.strictEqual(out.messages[0], body.messages[0])
    assert.strictEqual(out.extra, 1)
    // the client's body is not changed
    assert.strictEqual(JSON.stringify(body).includes("second part"), true)
  })

  it("a body without messages is a TranscriptError naming the field", () => {
    assert.throws(() => Transcript.read("openai", { model: "m" }), /^messages: must be an array/)
    const error = (() => {
      try {
        Transcript.read("openai", { messages: [1] })
      } catch (caught) {
        return caught
      }
    })()
    assert.instanceOf(error, Transcript.TranscriptError)
    assert.strictEqual((error as Transcript.TranscriptError).field, "messages[0]")
  })
})

describe("references", () => {
  it("names most efforts share do not make a reference; an effort's own names, path or call id do", () => {
    const file = (n: number) =>
      Array.from(
        { length: 20 },
        (_, i) => `const step${i} = Effect.gen(function* () { yield* Layer.provide(parseLedger${n}Entry(${i})) })`
      ).join("\n")
    const messages: Array<Record<string, unknown>> = [{ role: "user", content: "go" }]
    for (let n = 0; n < 4; n++) {
      messages.push({
        role: "assistant",
        content: null,
        tool_calls: [
          { id: `call_${n}`, type: "function", function: { name: "read", arguments: `{"path":"src/f${n}.ts"}` } }
        ]
      })
      messages.push({ role: "tool", tool_call_id: `call_${n}`, content: file(n) })
    }
    const transcript = Transcript.read("openai", { messages })
    const efforts = transcript.messages.flatMap((message) =>
      message.units
        .filter((unit) => unit.kind === "tool_result")
        .map((unit) => {
          const text = Efforts.textOf(unit)
          return Efforts.prepare(Efforts.idOf(unit, text), unit, text, "")
        })
    )
    const common = Efforts.commonKeywords(efforts)
    assert.isTrue(common.has("effect.gen"))
    const refers = (text: string) =>
      efforts.map((effort) => Efforts.refersTo(References.prepareMessage(text), effort, 2, common))
    assert.deepStrictEqual(refers("Wrap it in Effect.gen and Layer.provide."), [false, false, false, false])
    assert.deepStrictEqual(refers("parseLedger2Entry still fails"), [false, false, false, false])
    assert.deepStrictEqual(refers("parseLedger2Entry and step3 with Effect.gen"), [false, false, false, false])
    assert.deepStrictEqual(refers("Open src/f2.ts again"), [false, false, true, false])
    assert.deepStrictEqual(refers("the output of call_1"), [false, true, false, false])
  })
})

describe("sessions", () => {
  it("the x-heed-session header wins; otherwise the key follows the system prompt and first user message", () => {
    const a = Transcript.read("openai", {
      messages: [
        { role: "system", content: "s" },
        { role: "user", content: "u1" }
      ]
    })
    const b = Transcript.read("openai", {
      messages: [
        { role: "system", content: "s" },
        { role: "user", content: "u2" }
      ]
    })
    const longer = Transcript.read("openai", {
      messages: [
        { role: "system", content: "s" },
        { role: "user", content: "u1" },
        { role: "assistant", content: "x" },
        { role: "user", content: "more" }
      ]
    })
    assert.strictEqual(Server.sessionKey("mine", a), "mine")
    assert.match(Server.sessionKey(undefined, a), /^[0-9a-f]{16}$/)
    assert.strictEqual(Server.sessionKey(undefined, a), Server.sessionKey(undefined, longer))
    assert.notStrictEqual(Server.sessionKey(undefined, a), Server.sessionKey(undefined, b))
  })

  it.effect("the memory store keeps at most its capacity, dropping the least recently used", () =>
    Effect.gen(function* () {
      const store = SessionStore.makeMemory(2)
      yield* store.put(SessionState.empty("a"))
      yield* store.put(SessionState.empty("b"))
      assert.isDefined(yield* store.get("a")) // a is now the most recently used
      yield* store.put(SessionState.empty("c"))
      assert.isUndefined(yield* store.get("b"))
      assert.isDefined(yield* store.get("a"))
      assert.strictEqual(yield* store.size, 2)
    })
  )
})

describe("Protocol", () => {
  it("appends heed_expand to the tools in each API's shape, and leaves a legacy functions body alone", () => {
    const openai = Protocol.withExpandTool("openai", { tools: [{ type: "function", function: { name: "a" } }] })
    assert.deepStrictEqual(
      (openai.tools as Array<{ function: { name: string } }>).map((tool) => tool.function.name),
      ["a", "heed_expand"]
    )
    const anthropic = Protocol.withExpandTool("anthropic", {})
    assert.strictEqual((anthropic.tools as Array<{ name: string }>)[0]!.name, "heed_expand")
    const legacy = { functions: [{ name: "a" }] }
    assert.strictEqual(Protocol.withExpandTool("openai", legacy), legacy)
  })

  it("splits server-sent events whatever the chunking, keeping each event's bytes", () => {
    const events = ['event: a\ndata: {"x":1}\n\n', "data: [DONE]\r\n\r\n"]
    const text = events.join("")
    for (let cut = 1; cut < text.length; cut++) {
      const splitter = new Protocol.EventSplitter()
      const out = [...splitter.push(text.slice(0, cut)), ...splitter.push(text.slice(cut))]
      assert.deepStrictEqual(out, events)
    }
  })
})

describe("Upstream", () => {
  it("forwards credentials, drops hop-by-hop headers and x-heed-session, and joins paths once", () => {
    const headers = Upstream.forwardHeaders({
      authorization: "Bearer k",
      "x-api-key": "a",
      host: "127.0.0.1:8430",
      connection: "keep-alive",
      "content-length": "10",
      "x-heed-session": "s"
    })
    assert.deepStrictEqual(headers, { authorization: "Bearer k", "x-api-key": "a" })
    assert.strictEqual(
      Upstream.target("https://api.openai.com/v1", "/v1/chat/completions").href,
      "https://api.openai.com/v1/chat/completions"
    )
    assert.strictEqual(
      Upstream.target("http://127.0.0.1:11434/", "/v1/models").href,
      "http://127.0.0.1:11434/v1/models"
    )
  })
})

describe("the command line", () => {
  it("a bad flag value is one line naming the flag and exit status 1", () => {
    const run = (args: Array<string>) =>
      spawnSync(process.execPath, ["--conditions=@heed/source", "src/main.ts", "serve", ...args], {
        cwd: appDir,
        encoding: "utf8"
      })
    const scheme = run(["--upstream", "ftp://example"])
    assert.strictEqual(scheme.status, 1)
    assert.match(scheme.stderr, /heed-proxy: --upstream: must be an http:\/\/ or https:\/\/ URL/)
    const decay = run(["--upstream", "http://127.0.0.1:1", "--decay-turns", "0"])
    assert.strictEqual(decay.status, 1)
    assert.match(decay.stderr, /--decay-turns: must be an integer of at least 1, got 0/)
  })
})
