import { assert, describe, it } from "@effect/vitest"
import { forAudience, invalidReason, withoutTags } from "../src/McpGuard.ts"

describe("JSON-RPC message checks", () => {
  it("names what is wrong with a message, and nothing for a well-formed one", () => {
    assert.strictEqual(invalidReason("text"), "a JSON-RPC message must be a JSON object")
    assert.strictEqual(invalidReason(null), "a JSON-RPC message must be a JSON object")
    assert.strictEqual(invalidReason([]), "a JSON-RPC message must be a JSON object")
    assert.strictEqual(invalidReason({ jsonrpc: "1.0", method: "ping" }), 'field "jsonrpc" must be "2.0"')
    assert.strictEqual(
      invalidReason({ jsonrpc: "2.0", id: 1.5, method: "ping" }),
      'field "id" must be a string or a safe integer (not null, not a fraction)'
    )
    assert.strictEqual(invalidReason({ jsonrpc: "2.0", id: 1 }), 'field "method" is required (a string)')
    assert.strictEqual(invalidReason({ jsonrpc: "2.0", result: {} }), 'field "method" is required (a string)')
    assert.strictEqual(invalidReason({ jsonrpc: "2.0", method: 7 }), 'field "method" must be a string')
    assert.strictEqual(invalidReason({ jsonrpc: "2.0", method: "m", params: 1 }), 'field "params" must be an object')
    assert.strictEqual(invalidReason({ jsonrpc: "2.0", method: "m", params: null }), 'field "params" must be an object')
    assert.isUndefined(invalidReason({ jsonrpc: "2.0", method: "m", params: {} }))
    assert.isUndefined(invalidReason({ jsonrpc: "2.0", method: "m", params: [] }))
    assert.isUndefined(invalidReason({ jsonrpc: "2.0", method: "m" }))
    assert.isUndefined(invalidReason({ jsonrpc: "2.0", id: "a", method: "m" }))
    assert.isUndefined(invalidReason({ jsonrpc: "2.0", id: 3, result: {} }))
    assert.isUndefined(invalidReason({ jsonrpc: "2.0", id: 3, error: { code: 1, message: "m" } }))
  })

  it("error objects lose their _tag in JSON and in SSE data lines; other lines stay as they are", () => {
    const tagged = '{"jsonrpc":"2.0","id":1,"error":{"_tag":"X","code":-1,"message":"m"}}'
    const clean = '{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"m"}}'
    assert.strictEqual(withoutTags(tagged), clean)
    assert.strictEqual(withoutTags(`[${tagged}]`), `[${clean}]`)
    assert.strictEqual(withoutTags(`event: message\ndata: ${tagged}\n\n`), `event: message\ndata: ${clean}\n\n`)
    assert.strictEqual(withoutTags('note "_tag" {\ndata: {"_tag": broken'), 'note "_tag" {\ndata: {"_tag": broken')
    // the fast path: a body without "_tag" is returned as it is, even when it is not canonical JSON
    assert.strictEqual(withoutTags('{ "a" : 1 }'), '{ "a" : 1 }')
  })

  it("a briefing notification reaches its audience without the tag, and no one else", () => {
    const key = "heed.dev/audience"
    const note = (audience: unknown, meta: Record<string, unknown> = {}) =>
      JSON.stringify({
        jsonrpc: "2.0",
        method: "notifications/resources/updated",
        params: { uri: "awareness://briefing", _meta: { ...meta, [key]: audience } }
      })
    const bare = { jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: "awareness://briefing" } }
    assert.strictEqual(forAudience(note("alice"), "alice"), JSON.stringify(bare))
    assert.strictEqual(forAudience(note("alice"), "bob"), "")
    assert.strictEqual(forAudience(note("alice"), undefined), "")
    assert.strictEqual(
      forAudience(note("alice", { other: 1 }), "alice"),
      JSON.stringify({ ...bare, params: { ...bare.params, _meta: { other: 1 } } })
    )
    assert.strictEqual(
      forAudience(`event: message\ndata: ${note("alice")}\n\nevent: message\ndata: ${note("bob")}\n\n`, "bob"),
      `event: message\n\nevent: message\ndata: ${JSON.stringify(bare)}\n\n`
    )
    // untagged, unparseable, or a mention outside _meta: the line passes unchanged
    const plain = '{"jsonrpc":"2.0","method":"notifications/message","params":{"text":"heed.dev/audience"}}'
    assert.strictEqual(forAudience(plain, "bob"), plain)
    const noParams = '{"jsonrpc":"2.0","method":"m","x":"heed.dev/audience"}'
    assert.strictEqual(forAudience(noParams, "bob"), noParams)
    const metaString = '{"jsonrpc":"2.0","method":"m","params":{"_meta":"heed.dev/audience"}}'
    assert.strictEqual(forAudience(metaString, "bob"), metaString)
    const broken = 'data: {"heed.dev/audience": '
    assert.strictEqual(forAudience(`${broken}\n${note("a")}`, "b"), broken)
    assert.strictEqual(forAudience(`x\n${note("a")}`, "a"), `x\n${JSON.stringify(bare)}`)
    // the fast path: a text that never names the key is returned as it is
    assert.strictEqual(forAudience('{ "a" : 1 }', "bob"), '{ "a" : 1 }')
  })
})
