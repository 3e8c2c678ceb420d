import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { fakeUpstream, post, startProxy } from "./harness.ts"
import * as T from "./transcripts.ts"

const MARKER = /heed_expand\(\\?"(h[0-9a-f]{8})\\?"\)/g
const markers = (text: string) => [...text.matchAll(MARKER)].map((match) => match[1]!)

// A hand-formatted body (odd spacing, unknown fields): byte identity would break on any re-serialisation.
const openAiRaw = `{"model":"fake-1",  "messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"hi"}],
  "temperature": 0.25, "x_vendor": {"a": [1,2,3]}}`

describe("pass-through when nothing is collapsed", () => {
  it.live("OpenAI JSON: the upstream gets the client's bytes and credentials, the client the upstream's bytes", () =>
    Effect.gen(function* () {
      const answer = `{"id":"x", "choices":[{"index":0,"message":{"role":"assistant","content":"hello"}}],  "odd":true}`
      const upstream = yield* fakeUpstream(() => ({ body: answer, headers: { "x-upstream": "1" } }))
      const proxy = yield* startProxy(upstream.url)
      const reply = yield* Effect.promise(() =>
        post(`${proxy}/v1/chat/completions`, openAiRaw, { authorization: "Bearer sk-secret" })
      )
      assert.strictEqual(reply.status, 200)
      assert.strictEqual(reply.text, answer)
      assert.strictEqual(reply.headers.get("x-upstream"), "1")
      assert.strictEqual(reply.headers.get("x-heed-collapsed"), "0")
      assert.isAbove(Number(reply.headers.get("x-heed-tokens-in")), 0)
      assert.strictEqual(reply.headers.get("x-heed-tokens-in"), reply.headers.get("x-heed-tokens-sent"))
      const received = upstream.received[0]!
      assert.strictEqual(received.url, "/v1/chat/completions")
      assert.strictEqual(received.body.toString("utf8"), openAiRaw)
      assert.strictEqual(received.headers.authorization, "Bearer sk-secret")
    })
  )

  it.live("OpenAI streaming: the event stream reaches the client byte for byte", () =>
    Effect.gen(function* () {
      const chunks = T.openAiStream("streamed text")
      const upstream = yield* fakeUpstream(() => ({ chunks, headers: { "content-type": "text/event-stream" } }))
      const proxy = yield* startProxy(upstream.url)
      const body = T.openAi(2, "Thanks.", { stream: true })
      const reply = yield* Effect.promise(() => post(`${proxy}/v1/chat/completions`, body))
      assert.strictEqual(reply.status, 200)
      assert.strictEqual(reply.text, chunks.join(""))
      assert.strictEqual(reply.headers.get("content-type"), "text/event-stream")
      assert.strictEqual(upstream.received[0]!.body.toString("utf8"), JSON.stringify(body))
    })
  )

  it.live("Anthropic JSON and streaming: bytes and x-api-key go through untouched", () =>
    Effect.gen(function* () {
      const events = T.anthropicStream("streamed")
      const upstream = yield* fakeUpstream((request) =>
        request.json?.stream === true
          ? { chunks: events, headers: { "content-type": "text/event-stream" } }
          : { body: T.anthropicText("ok") }
      )
      const proxy = yield* startProxy(upstream.url)
      const headers = { "x-api-key": "sk-ant-secret", "anthropic-version": "2023-06-01" }
      const json = yield* Effect.promise(() => post(`${proxy}/v1/messages`, T.anthropic(2, "Thanks."), headers))
      assert.strictEqual(json.text, T.anthropicText("ok"))
      const streamed = yield* Effect.promise(() =>
        post(`${proxy}/v1/messages`, T.anthropic(2, "Thanks.", { stream: true }), headers)
      )
      assert.strictEqual(streamed.text, events.join(""))
      assert.strictEqual(upstream.received[0]!.body.toString("utf8"), JSON.stringify(T.anthropic(2, "Thanks.")))
      assert.strictEqual(upstream.received[1]!.headers["x-api-key"], "sk-ant-secret")
      assert.strictEqual(upstream.received[1]!.headers["anthropic-version"], "2023-06-01")
    })
  )

  it.live("GET /v1/models and other paths pass through; upstream errors keep their status and body", () =>
    Effect.gen(function* () {
      const upstream = yield* fakeUpstream((request) =>
        request.url === "/v1/models"
          ? { body: `{"data":[{"id":"fake-1"}]}` }
          : { status: 429, body: `{"error":{"message":"slow down","type":"rate_limit"}}` }
      )
      const proxy = yield* startProxy(upstream.url)
      const models = yield* Effect.promise(() =>
        fetch(`${proxy}/v1/models`, { headers: { authorization: "Bearer k" } })
      )
      assert.strictEqual(yield* Effect.promise(() => models.text()), `{"data":[{"id":"fake-1"}]}`)
      assert.strictEqual(upstream.received[0]!.headers.authorization, "Bearer k")
      const limited = yield* Effect.promise(() => post(`${proxy}/v1/chat/completions`, openAiRaw))
      assert.strictEqual(limited.status, 429)
      assert.strictEqual(limited.text, `{"error":{"message":"slow down","type":"rate_limit"}}`)
      const metrics = yield* Effect.promise(() => fetch(`${proxy}/metrics`).then((r) => r.text()))
      assert.include(metrics, `heed_proxy_requests_total{api="passthrough",status="200"} 1`)
      assert.include(metrics, `heed_proxy_requests_total{api="openai",status="429"} 1`)
    })
  )

  it.live("an upstream that never answers is a 504 in each API's error shape", () =>
    Effect.gen(function* () {
      const upstream = yield* fakeUpstream(() => ({ hang: true }))
      const proxy = yield* startProxy(upstream.url, {}, 300)
      const openai = yield* Effect.promise(() => post(`${proxy}/v1/chat/completions`, openAiRaw))
      assert.strictEqual(openai.status, 504)
      const error = JSON.parse(openai.text).error
      assert.strictEqual(error.type, "upstream_timeout")
      assert.match(error.message, /no response within/)
      const anthropic = yield* Effect.promise(() => post(`${proxy}/v1/messages`, T.anthropic(1, "hi")))
      assert.strictEqual(anthropic.status, 504)
      const body = JSON.parse(anthropic.text)
      assert.strictEqual(body.type, "error")
      assert.strictEqual(body.error.type, "api_error")
    })
  )
})

describe("context management", () => {
  it.live("old unreferenced tool results go upstream as gist and marker; order, count and pairing are kept", () =>
    Effect.gen(function* () {
      const upstream = yield* fakeUpstream(() => ({ body: T.openAiText("done") }))
      const proxy = yield* startProxy(upstream.url)
      const body = T.openAi(8, "Now summarise what you found.")
      const reply = yield* Effect.promise(() => post(`${proxy}/v1/chat/completions`, body, { "x-heed-session": "s1" }))
      assert.strictEqual(reply.text, T.openAiText("done"))
      const sent = upstream.received[0]!.json
      assert.strictEqual(sent.messages.length, body.messages.length)
      sent.messages.forEach((message: { role: string; tool_call_id?: string }, i: number) => {
        assert.strictEqual(message.role, body.messages[i]!.role)
        assert.strictEqual(message.tool_call_id, body.messages[i]!.tool_call_id)
      })
      const collapsed = sent.messages.filter(
        (m: { role: string; content: string }) => m.role === "tool" && m.content.startsWith("[heed:")
      )
      assert.strictEqual(collapsed.length, 5)
      assert.deepStrictEqual(sent.unknown_field, { kept: true })
      assert.strictEqual(sent.tools.at(-1).function.name, "heed_expand")
      assert.strictEqual(reply.headers.get("x-heed-collapsed"), "5")
      assert.isBelow(Number(reply.headers.get("x-heed-tokens-sent")), Number(reply.headers.get("x-heed-tokens-in")) / 2)
      const session = yield* Effect.promise(() => fetch(`${proxy}/sessions/s1`).then((r) => r.json()))
      assert.strictEqual((session as { collapsed: number }).collapsed, 5)
      const metrics = yield* Effect.promise(() => fetch(`${proxy}/metrics`).then((r) => r.text()))
      assert.match(metrics, /heed_proxy_collapses_total 5/)
      assert.match(metrics, /heed_proxy_requests_total\{api="openai",status="200"\} 1/)
    })
  )

  it.live("--max-context: the budget collapses what decay has not, oldest first, and the request fits", () =>
    Effect.gen(function* () {
      const upstream = yield* fakeUpstream(() => ({ body: T.openAiText("ok") }))
      // Decay alone would collapse nothing here (it needs 1,000,000 tokens at a time).
      const proxy = yield* startProxy(upstream.url, { maxContext: 6_000, collapseAtLeast: 1_000_000 })
      const reply = yield* Effect.promise(() =>
        post(`${proxy}/v1/chat/completions`, T.openAi(8, "Summarise."), { "x-heed-session": "budget" })
      )
      assert.isAtMost(Number(reply.headers.get("x-heed-tokens-sent")), 6_000)
      assert.isAbove(Number(reply.headers.get("x-heed-tokens-in")), 12_000)
      const session = (yield* Effect.promise(() => fetch(`${proxy}/sessions/budget`).then((r) => r.json()))) as {
        efforts: Array<{ state: string; collapse_reason?: string; message: number }>
      }
      const collapsed = session.efforts.filter((effort) => effort.state === "collapsed")
      assert.isAbove(collapsed.length, 0)
      assert.isTrue(collapsed.every((effort) => effort.collapse_reason === "budget"))
      // oldest first: every collapsed effort comes before every whole one
      const whole = session.efforts.filter((effort) => effort.state === "whole")
      assert.isBelow(Math.max(...collapsed.map((e) => e.message)), Math.min(...whole.map((e) => e.message)))
    })
  )

  it.live("a new user message that names a collapsed result restores it whole", () =>
    Effect.gen(function* () {
      const upstream = yield* fakeUpstream(() => ({ body: T.openAiText("ok") }))
      const proxy = yield* startProxy(upstream.url)
      const first = T.openAi(8, "Summarise.")
      yield* Effect.promise(() => post(`${proxy}/v1/chat/completions`, first, { "x-heed-session": "s2" }))
      const toolIndex = first.messages.findIndex((m) => m.tool_call_id === "call_1")
      assert.isTrue(upstream.received[0]!.json.messages[toolIndex].content.startsWith("[heed:"))
      const next = {
        ...first,
        messages: [
          ...first.messages,
          { role: "assistant", content: "Summary given." },
          { role: "user", content: "Go back to src/area1/file.ts and show me its handlers." }
        ]
      }
      const reply = yield* Effect.promise(() => post(`${proxy}/v1/chat/completions`, next, { "x-heed-session": "s2" }))
      assert.strictEqual(upstream.received[1]!.json.messages[toolIndex].content, first.messages[toolIndex]!.content)
      assert.strictEqual(reply.headers.get("x-heed-collapsed"), "4")
    })
  )

  it.live("OpenAI JSON: a heed_expand call is answered by the proxy; the client gets only the final answer", () =>
    Effect.gen(function* () {
      let wanted = ""
      const upstream = yield* fakeUpstream((request, index) => {
        if (index === 0) {
          wanted = markers(request.body.toString("utf8"))[0]!
          return { body: T.openAiExpand(wanted) }
        }
        return { body: T.openAiText("final answer") }
      })
      const proxy = yield* startProxy(upstream.url)
      const body = T.openAi(8, "Summarise.")
      const reply = yield* Effect.promise(() => post(`${proxy}/v1/chat/completions`, body))
      assert.strictEqual(reply.text, T.openAiText("final answer"))
      assert.strictEqual(upstream.received.length, 2)
      const second = upstream.received[1]!.body.toString("utf8")
      assert.notInclude(markers(second), wanted)
      assert.strictEqual(upstream.received[1]!.json.messages.length, body.messages.length)
      assert.strictEqual(reply.headers.get("x-heed-collapsed"), "4")
    })
  )

  it.live("a heed_expand of an unknown id is asked again once, without the tool", () =>
    Effect.gen(function* () {
      const upstream = yield* fakeUpstream((_request, index) => ({
        body: index === 0 ? T.openAiExpand("h00000000") : T.openAiText("answer without it")
      }))
      const proxy = yield* startProxy(upstream.url)
      const reply = yield* Effect.promise(() => post(`${proxy}/v1/chat/completions`, T.openAi(8, "Summarise.")))
      assert.strictEqual(reply.text, T.openAiText("answer without it"))
      assert.strictEqual(upstream.received.length, 2)
      const tools = (upstream.received[1]!.json.tools as Array<{ function: { name: string } }>).map(
        (t) => t.function.name
      )
      assert.deepStrictEqual(tools, ["read_file"])
    })
  )

  it.live("OpenAI streaming: text streams, the heed_expand round is dropped, the next round is streamed", () =>
    Effect.gen(function* () {
      const upstream = yield* fakeUpstream((request, index) => ({
        chunks:
          index === 0
            ? T.openAiStream("Let me look. ", markers(request.body.toString("utf8"))[0])
            : T.openAiStream("Found it."),
        headers: { "content-type": "text/event-stream" }
      }))
      const proxy = yield* startProxy(upstream.url)
      const reply = yield* Effect.promise(() =>
        post(`${proxy}/v1/chat/completions`, T.openAi(8, "Summarise.", { stream: true }))
      )
      assert.strictEqual(upstream.received.length, 2)
      assert.notInclude(reply.text, "heed_expand")
      assert.include(reply.text, "Let me look. ")
      assert.include(reply.text, "Found it.")
      assert.strictEqual(reply.text.match(/\[DONE\]/g)?.length, 1)
      assert.strictEqual(reply.text.match(/"finish_reason":"stop"/g)?.length, 1)
    })
  )

  it.live("a managed stream's text reaches the client before the upstream has finished its round", () =>
    Effect.gen(function* () {
      let release = () => {}
      const until = new Promise<void>((resolve) => {
        release = resolve
      })
      // Two chunks (role, text), then the upstream waits until the client has seen the text.
      const upstream = yield* fakeUpstream(() => ({
        chunks: T.openAiStream("Early words."),
        gate: { after: 2, until },
        headers: { "content-type": "text/event-stream" }
      }))
      const proxy = yield* startProxy(upstream.url)
      const text = yield* Effect.promise(async () => {
        const response = await fetch(`${proxy}/v1/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(T.openAi(8, "Summarise.", { stream: true }))
        })
        assert.strictEqual(response.headers.get("x-heed-collapsed"), "5")
        const reader = response.body!.getReader()
        const decoder = new TextDecoder()
        let seen = ""
        while (!seen.includes("Early words.")) {
          const { value, done } = await reader.read()
          if (done) break
          seen += decoder.decode(value, { stream: true })
        }
        assert.notInclude(seen, "[DONE]")
        release()
        for (;;) {
          const { value, done } = await reader.read()
          if (done) return seen
          seen += decoder.decode(value, { stream: true })
        }
      })
      assert.include(text, "Early words.")
      assert.strictEqual(text.match(/\[DONE\]/g)?.length, 1)
    })
  )

  it.live(
    "Anthropic streaming: one message_start, block indexes continue, no heed_expand block reaches the client",
    () =>
      Effect.gen(function* () {
        const upstream = yield* fakeUpstream((request, index) => ({
          chunks:
            index === 0
              ? T.anthropicStream("Checking. ", markers(request.body.toString("utf8"))[0])
              : T.anthropicStream("Done."),
          headers: { "content-type": "text/event-stream" }
        }))
        const proxy = yield* startProxy(upstream.url)
        const body = T.anthropic(8, "Summarise.", { stream: true })
        const reply = yield* Effect.promise(() => post(`${proxy}/v1/messages`, body))
        assert.strictEqual(upstream.received.length, 2)
        assert.notInclude(reply.text, "heed_expand")
        assert.strictEqual(reply.text.match(/event: message_start/g)?.length, 1)
        assert.strictEqual(reply.text.match(/event: message_stop/g)?.length, 1)
        const starts = [...reply.text.matchAll(/"type":"content_block_start","index":(\d+)/g)].map((m) => Number(m[1]))
        assert.deepStrictEqual(starts, [0, 1])
        // the image and the cache_control marker went upstream untouched
        const sent = upstream.received[0]!.json
        assert.deepStrictEqual(sent.messages[0], body.messages[0])
        assert.deepStrictEqual(sent.messages[2].content[0].cache_control, { type: "ephemeral" })
        assert.strictEqual(sent.tools.at(-1).name, "heed_expand")
      })
  )

  it.live("Claude Code's /v1/messages?beta=true is managed, and the query string goes upstream", () =>
    Effect.gen(function* () {
      const upstream = yield* fakeUpstream(() => ({ body: T.anthropicText("ok") }))
      const proxy = yield* startProxy(upstream.url)
      const reply = yield* Effect.promise(() => post(`${proxy}/v1/messages?beta=true`, T.anthropic(8, "Summarise.")))
      assert.strictEqual(reply.headers.get("x-heed-collapsed"), "5")
      assert.strictEqual(upstream.received[0]!.url, "/v1/messages?beta=true")
    })
  )

  it.live("Anthropic JSON: heed_expand loop", () =>
    Effect.gen(function* () {
      const upstream = yield* fakeUpstream((request, index) =>
        index === 0
          ? {
              body: JSON.stringify({
                type: "message",
                role: "assistant",
                content: [
                  {
                    type: "tool_use",
                    id: "t",
                    name: "heed_expand",
                    input: { id: markers(request.body.toString("utf8"))[1] }
                  }
                ],
                stop_reason: "tool_use"
              })
            }
          : { body: T.anthropicText("final") }
      )
      const proxy = yield* startProxy(upstream.url)
      const reply = yield* Effect.promise(() => post(`${proxy}/v1/messages`, T.anthropic(8, "Summarise.")))
      assert.strictEqual(reply.text, T.anthropicText("final"))
      assert.strictEqual(upstream.received.length, 2)
      assert.strictEqual(markers(upstream.received[1]!.body.toString("utf8")).length, 4)
    })
  )
})
