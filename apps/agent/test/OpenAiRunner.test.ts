import { createServer, type IncomingMessage } from "node:http"
import { assert, describe, it } from "@effect/vitest"
import { NgircdServer } from "@heed/irc"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AttentionControl } from "../src/AttentionControl.ts"
import * as OpenAiRunner from "../src/OpenAiRunner.ts"
import { fastAttention, NICK, nextTurn, person, skipIrc, startAgent, waitForAgentIn, waitForState } from "./harness.ts"

interface ChatRequest {
  readonly model: string
  readonly messages: ReadonlyArray<{ role: string; content: string | null; tool_call_id?: string }>
  readonly tools?: ReadonlyArray<{ function: { name: string } }>
}

const body = (request: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let text = ""
    request.on("data", (chunk) => {
      text += chunk
    })
    request.on("end", () => resolve(text))
  })

/** A fake OpenAI-compatible chat-completions server on loopback; `answer` decides each reply. */
const fakeModel = (answer: (request: ChatRequest, index: number) => unknown) =>
  Effect.acquireRelease(
    Effect.callback<{ url: string; requests: Array<ChatRequest>; close: () => void }>((resume) => {
      const requests: Array<ChatRequest> = []
      const server = createServer(async (request, response) => {
        const parsed = JSON.parse(await body(request)) as ChatRequest
        requests.push(parsed)
        if (request.url !== "/v1/chat/completions" || request.headers.authorization !== "Bearer test-key") {
          response.writeHead(401).end(JSON.stringify({ error: "bad path or key" }))
          return
        }
        response
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify(answer(parsed, requests.length - 1)))
      })
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        const port = typeof address === "object" && address !== null ? address.port : 0
        resume(Effect.succeed({ url: `http://127.0.0.1:${port}/v1`, requests, close: () => server.close() }))
      })
    }),
    (fake) => Effect.sync(() => fake.close())
  )

const text = (content: string) => ({
  choices: [{ message: { role: "assistant", content }, finish_reason: "stop" }],
  usage: { prompt_tokens: 10, completion_tokens: 2 }
})

const toolCall = (name: string, args: unknown) => ({
  choices: [
    {
      message: {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_1", type: "function", function: { name, arguments: JSON.stringify(args) } }]
      },
      finish_reason: "tool_calls"
    }
  ]
})

const openai = (url: string) => ({ type: "openai", url, model: "fake-1", api_key_env: "HEED_TEST_OPENAI_KEY" })
process.env.HEED_TEST_OPENAI_KEY = "test-key"

describe.skipIf(skipIrc)("the openai runner against a fake chat-completions server", () => {
  it.live(
    "a mention reaches the model with the attention tools; a set_attention call is applied, then the reply posted",
    () =>
      Effect.gen(function* () {
        const model = yield* fakeModel((_request, index) =>
          index === 0
            ? toolCall("set_attention", { target: "#dev", band: "IDLE", ttl_s: 600 })
            : text("Done, going quiet.")
        )
        const server = yield* NgircdServer.start
        const alice = yield* person(server, "alice", ["#dev"])
        const { agent } = yield* startAgent(server, {
          channels: ["#dev"],
          attention: fastAttention(),
          runner: openai(model.url)
        })
        yield* waitForAgentIn(alice, ["#dev"])
        yield* alice.say("#dev", "@bot you can stop watching this channel")
        yield* alice.waitForMessages((m) => m.from === NICK, 1, "the model's reply")
        assert.strictEqual(alice.received.find((m) => m.from === NICK)?.text, "Done, going quiet.")
        const [first, second] = model.requests
        assert.strictEqual(first!.model, "fake-1")
        assert.deepStrictEqual(first!.tools?.map((tool) => tool.function.name).sort(), [
          "get_attention",
          "set_attention"
        ])
        assert.include(
          first!.messages.at(-1)?.content ?? "",
          "[IRC @mention in #dev] <alice> @bot you can stop watching"
        )
        const result = second!.messages.find((message) => message.role === "tool")
        assert.strictEqual(result?.tool_call_id, "call_1")
        assert.include(result?.content ?? "", '"band":"IDLE"')
        // The mention made #dev HOT, then the model's tool call held it IDLE.
        const state = yield* waitForState(agent, "#dev", (s) => s.band === "IDLE", "IDLE by the tool")
        assert.isTrue(state.manualUntil._tag === "Some")
      }).pipe(Effect.scoped)
  )

  it.live("decay collapses a channel's log after N unrelated turns and the prompt shrinks accordingly", () =>
    Effect.gen(function* () {
      const model = yield* fakeModel(() => text("noted"))
      const server = yield* NgircdServer.start
      const alice = yield* person(server, "alice", ["#alpha", "#bravo", "#charlie"])
      const { turns } = yield* startAgent(server, {
        channels: ["#alpha", "#bravo", "#charlie"],
        attention: fastAttention(),
        runner: openai(model.url),
        context: { decay_threshold: 2 }
      })
      yield* waitForAgentIn(alice, ["#alpha", "#bravo", "#charlie"])
      // Long lines (each under IRC's 512-byte limit) give #alpha a big log.
      const long = (round: number) =>
        Array.from({ length: 8 }, (_, i) => `kubernetes rollout ${round}-${i} failed on node${i}`).join("; ")
      const ask = (channel: string, message: string) =>
        Effect.gen(function* () {
          yield* alice.say(channel, `@bot ${message}`)
          return yield* nextTurn(turns, (t) => t.target === channel && t.kind === "mention", `turn in ${channel}`)
        })
      for (const round of [1, 2, 3]) yield* ask("#alpha", long(round))
      const bravo1 = yield* ask("#bravo", "lunch at noon?")
      const charlie = yield* ask("#charlie", "weather today?")
      const bravo2 = yield* ask("#bravo", "lunch at one?")
      assert.deepStrictEqual([bravo1.collapsed, charlie.collapsed, bravo2.collapsed], [[], ["#alpha"], []])
      // While #alpha's log was expanded it rode along in #bravo's prompt; after the collapse only its summary does.
      const request = (index: number) => JSON.stringify(model.requests[index]!.messages)
      assert.include(request(3), "rollout 3-7 failed")
      assert.notInclude(request(5), "rollout 3-7 failed")
      assert.include(request(5), "- #alpha: ")
      assert.isBelow(bravo2.prompt_tokens, bravo1.prompt_tokens - 150)
    }).pipe(Effect.scoped)
  )

  it.live(
    "each thread is its own effort: its log rides along while it is referenced, collapses after N turns elsewhere, and expands when the thread comes back",
    () =>
      Effect.gen(function* () {
        const model = yield* fakeModel(() => text("noted"))
        const server = yield* NgircdServer.start
        const alice = yield* person(server, "alice", ["#dev"])
        const { turns } = yield* startAgent(server, {
          channels: ["#dev"],
          attention: fastAttention(),
          runner: openai(model.url),
          context: { decay_threshold: 2 }
        })
        yield* waitForAgentIn(alice, ["#dev"])
        const long = (round: number) =>
          Array.from({ length: 8 }, (_, i) => `kubernetes rollout ${round}-${i} failed on node${i}`).join("; ")
        const ask = (message: string, thread?: string) =>
          Effect.gen(function* () {
            yield* alice.say("#dev", `${thread === undefined ? "" : `[thread:${thread}] `}@bot ${message}`)
            return yield* nextTurn(turns, (t) => t.kind === "mention" && t.thread === thread, `turn on ${message}`)
          })
        const request = (index: number) => JSON.stringify(model.requests[index]!.messages)
        const deploy1 = yield* ask(long(1), "deploy")
        assert.include(deploy1.prompt, "[IRC @mention in #dev thread:deploy] <alice> @bot kubernetes rollout 1-0")
        yield* ask(long(2), "deploy")
        assert.include(request(1), "[#dev thread:deploy] <alice> @bot kubernetes rollout 1-0 failed")
        // The channel's own conversation is another effort; the thread's log rides along until it decays.
        const lunch = yield* ask("lunch at noon?")
        const lunch2 = yield* ask("lunch at one?")
        const dessert = yield* ask("dessert after?")
        assert.deepStrictEqual([lunch.collapsed, lunch2.collapsed, dessert.collapsed], [[], ["#dev thread:deploy"], []])
        assert.include(request(2), "rollout 2-7 failed")
        assert.notInclude(request(4), "rollout 2-7 failed")
        assert.include(request(4), "- #dev thread:deploy: ")
        // The collapse shrinks the prompt although the channel's own log grew by one exchange.
        assert.isBelow(dessert.prompt_tokens, lunch2.prompt_tokens - 100)
        // Back in the thread: its log expands again, and the reply goes into the thread.
        const back = yield* ask("is the rollout fixed now?", "deploy")
        assert.include(request(5), "[#dev thread:deploy] <alice> @bot kubernetes rollout 2-0 failed")
        assert.isAbove(back.prompt_tokens, dessert.prompt_tokens + 150)
        yield* alice.waitForMessages((m) => m.from === NICK, 6, "six replies")
        assert.deepStrictEqual(
          alice.received.filter((m) => m.from === NICK).map((m) => m.text),
          ["[thread:deploy] noted", "[thread:deploy] noted", "noted", "noted", "noted", "[thread:deploy] noted"]
        )
      }).pipe(Effect.scoped)
  )
})

describe("the openai runner's settings", () => {
  it.effect("an api_key_env naming an unset variable fails at start, naming the field and the variable", () =>
    Effect.gen(function* () {
      const config = { ...openai("http://127.0.0.1:9/v1"), type: "openai" as const, api_key_env: "HEED_TEST_UNSET_KEY" }
      const control = Layer.succeed(AttentionControl, {} as AttentionControl["Service"])
      const error = yield* Effect.flip(Layer.build(OpenAiRunner.layer(config).pipe(Layer.provide(control))))
      assert.strictEqual(
        error.message,
        "runner.api_key_env: the environment variable HEED_TEST_UNSET_KEY is not set (it should hold the API key)"
      )
    }).pipe(Effect.scoped)
  )
})
