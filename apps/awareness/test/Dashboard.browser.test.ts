// The dashboard's real-browser tests: Debian's chromium through playwright-core against a real awareness server on a
// loopback port. Every wait is on a DOM signal, bounded by playwright's timeout.
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { launchBrowser, openPage, pw, skipBrowser } from "./browser.ts"
import { settingsFor, startHttp } from "./harness.ts"

const memory = { _tag: "embedded", dataDir: "memory://" } as const

describe.skipIf(skipBrowser)("the browser harness", () => {
  it.live(
    "headless chromium reaches a real awareness server on loopback: /health reads ok in the page",
    () =>
      Effect.gen(function* () {
        const { base } = yield* startHttp(settingsFor(), memory)
        const browser = yield* launchBrowser
        const { page, errors } = yield* openPage(browser)
        const response = yield* pw(() => page.goto(`${base}/health`))
        assert.strictEqual(response?.status(), 200)
        const body = JSON.parse((yield* pw(() => page.locator("body").textContent())) ?? "null")
        assert.strictEqual(body.status, "ok")
        assert.deepStrictEqual(errors, [])
      }),
    60_000
  )
})
