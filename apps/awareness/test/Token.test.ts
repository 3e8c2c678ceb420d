import { createHmac } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import * as Token from "../src/Token.ts"

const secret = "s3cret"
const b64 = (text: string) => Buffer.from(text).toString("base64url")
const hs256 = b64(JSON.stringify({ alg: "HS256", typ: "JWT" }))

/** A token over raw header and payload JSON texts, signed with `secret`. */
const signedRaw = (header: string, payload: string) => {
  const mac = createHmac("sha256", secret).update(`${header}.${payload}`).digest("base64url")
  return `${header}.${payload}.${mac}`
}
const forge = (claims: unknown) => signedRaw(hs256, b64(JSON.stringify(claims)))

describe("Token.verify", () => {
  it("a token is three dot-separated parts of base64url JSON, or it is malformed", () => {
    const token = Token.sign({ sub: "alice", secret, nowSec: 1000 })
    const [header, payload, signature] = token.split(".") as [string, string, string]
    for (const bad of [`${header}.${payload}`, `${token}.extra`, `!!.${payload}.${signature}`, `${header}.%%.x`]) {
      assert.deepStrictEqual(Token.verify(bad, secret, 1000), { ok: false, reason: "malformed" }, bad)
    }
  })

  it("a header that is not an object naming HS256 is an unsupported algorithm", () => {
    const payload = b64(JSON.stringify({ sub: "alice", iat: 1 }))
    for (const header of ["1", "null", '"HS256"', JSON.stringify({ alg: "HS512" }), JSON.stringify({})]) {
      assert.deepStrictEqual(
        Token.verify(signedRaw(b64(header), payload), secret, 1),
        { ok: false, reason: "unsupported_algorithm" },
        header
      )
    }
  })

  it("a signature of the wrong length, or the right length but wrong bytes, is a bad signature", () => {
    const token = Token.sign({ sub: "alice", secret, nowSec: 1000 })
    const cut = token.slice(0, -4)
    assert.deepStrictEqual(Token.verify(cut, secret, 1000), { ok: false, reason: "bad_signature" })
    const last = token.at(-2) === "A" ? "B" : "A"
    const flipped = `${token.slice(0, -2)}${last}${token.at(-1)}`
    assert.deepStrictEqual(Token.verify(flipped, secret, 1000), { ok: false, reason: "bad_signature" })
    assert.deepStrictEqual(Token.verify(`${token.slice(0, token.lastIndexOf("."))}.`, secret, 1000), {
      ok: false,
      reason: "bad_signature"
    })
  })

  it("signed claims that are not an object are malformed; a subject that is not a non-empty string is refused", () => {
    for (const claims of [1, null, "alice"]) {
      assert.deepStrictEqual(Token.verify(forge(claims), secret, 1), { ok: false, reason: "malformed" })
    }
    for (const sub of [undefined, 42, "", ["alice"]]) {
      assert.deepStrictEqual(Token.verify(forge({ sub, iat: 1 }), secret, 1), { ok: false, reason: "no_subject" })
    }
  })

  it("the verified claims carry sub, iat (0 when absent or not a number), and exp and nbf only when present", () => {
    assert.deepStrictEqual(Token.verify(forge({ sub: "alice" }), secret, 5), {
      ok: true,
      claims: { sub: "alice", iat: 0 }
    })
    assert.deepStrictEqual(Token.verify(forge({ sub: "alice", iat: "7" }), secret, 5), {
      ok: true,
      claims: { sub: "alice", iat: 0 }
    })
    assert.deepStrictEqual(Token.verify(forge({ sub: "bob", iat: 3, nbf: 4, exp: 100, extra: true }), secret, 5), {
      ok: true,
      claims: { sub: "bob", iat: 3, nbf: 4, exp: 100 }
    })
  })

  it("without a skew argument, 30 s of clock skew are allowed on both sides", () => {
    const token = forge({ sub: "alice", iat: 0, nbf: 1000, exp: 2000 })
    assert.deepStrictEqual(Token.verify(token, secret, 969), { ok: false, reason: "not_yet_valid" })
    assert.isTrue(Token.verify(token, secret, 970).ok)
    assert.isTrue(Token.verify(token, secret, 2029).ok)
    assert.deepStrictEqual(Token.verify(token, secret, 2030), { ok: false, reason: "expired" })
  })
})

describe("Token.sign", () => {
  it("adds exp only with expiresInSec, as nowSec plus it", () => {
    const forever = Token.sign({ sub: "alice", secret, nowSec: 1000 })
    const claims = JSON.parse(Buffer.from(forever.split(".")[1]!, "base64url").toString("utf8"))
    assert.deepStrictEqual(claims, { sub: "alice", iat: 1000 })
    assert.deepStrictEqual(Token.verify(forever, secret, 10_000_000_000), {
      ok: true,
      claims: { sub: "alice", iat: 1000 }
    })
  })
})

describe("Token.parseDuration", () => {
  it("reads a positive count of one unit (s, m, h, d, w, y), trimmed and in any case; never is no expiry", () => {
    const cases: ReadonlyArray<readonly [string, number | undefined | null]> = [
      ["1s", 1],
      [" 10 S ", 10],
      ["3m", 180],
      ["2H", 7200],
      ["1d", 86_400],
      ["1w", 604_800],
      ["1y", 31_536_000],
      ["NEVER", undefined],
      [" never ", undefined],
      ["10", null],
      ["-5m", null],
      ["1.5h", null],
      ["5 minutes", null],
      ["x5m", null],
      ["0s", null]
    ]
    assert.deepStrictEqual(
      cases.map(([text]) => [text, Token.parseDuration(text)] as const),
      cases
    )
  })
})

describe("Token.fromAuthorization", () => {
  it("takes the token of a Bearer header (any case, extra spaces), and nothing else", () => {
    const cases: ReadonlyArray<readonly [string | undefined, string | undefined]> = [
      [undefined, undefined],
      ["Bearer abc", "abc"],
      ["bearer   abc  ", "abc"],
      ["BEARER abc", "abc"],
      ["Bearer a b", undefined],
      ["Bearer ", undefined],
      ["Bearerabc", undefined],
      ["xBearer abc", undefined],
      ["Basic abc", undefined]
    ]
    assert.deepStrictEqual(
      cases.map(([header]) => [header, Token.fromAuthorization(header)] as const),
      cases
    )
  })
})
