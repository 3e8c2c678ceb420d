import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Bridge from "../src/Bridge.ts"

/** A local HTTP server answering each path with a fixed body; closed with the scope. */
const serve = (routes: Record<string, { readonly type: string; readonly body: string }>) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly base: string; readonly close: () => void }>((resume) => {
      const server = createServer((request, response) => {
        const route = routes[request.url ?? ""]
        if (route === undefined) {
          response.writeHead(404).end()
          return
        }
        response.writeHead(200, { "content-type": route.type }).end(route.body)
      })
      server.listen(0, "127.0.0.1", () =>
        resume(
          Effect.succeed({
            base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
            close: () => server.close()
          })
        )
      )
    }),
    ({ close }) => Effect.sync(close)
  )

describe("--provider URLs", () => {
  it.live('a ws URL as it is; a /.well-known/slop document; a page with <meta name="slop">; errors name the URL', () =>
    Effect.gen(function* () {
      const { base } = yield* serve({
        "/.well-known/slop": {
          type: "application/json",
          body: JSON.stringify({
            id: "notes",
            name: "Notes",
            slop_version: "0.1",
            transport: { type: "ws", url: "ws://127.0.0.1:4100/slop" },
            capabilities: []
          })
        },
        "/app": {
          type: "text/html",
          body: '<html><head><meta name="slop" content="ws://127.0.0.1:4200/slop?a=1&amp;b=2"></head></html>'
        },
        "/plain": { type: "text/html", body: "<html></html>" }
      })
      const direct = yield* Bridge.resolveProvider("ws://127.0.0.1:4000/slop")
      assert.deepStrictEqual(direct.transport, { type: "ws", url: "ws://127.0.0.1:4000/slop" })
      const known = yield* Bridge.resolveProvider(`${base}/.well-known/slop`)
      assert.deepStrictEqual(
        [known.id, known.name, known.transport],
        ["notes", "Notes", { type: "ws", url: "ws://127.0.0.1:4100/slop" }]
      )
      const page = yield* Bridge.resolveProvider(`${base}/app`)
      assert.deepStrictEqual(page.transport, { type: "ws", url: "ws://127.0.0.1:4200/slop?a=1&b=2" })
      const none = yield* Effect.flip(Bridge.resolveProvider(`${base}/plain`))
      assert.strictEqual(none.code, "not_found")
      assert.include(none.message, `${base}/plain`)
      const missing = yield* Effect.flip(Bridge.resolveProvider(`${base}/gone`))
      assert.include(missing.message, "HTTP 404")
      const bad = yield* Effect.flip(Bridge.resolveProvider("ftp://example"))
      assert.strictEqual(bad.code, "invalid_params")
      assert.include(bad.message, "--provider ftp://example")
    }).pipe(Effect.scoped)
  )
})
