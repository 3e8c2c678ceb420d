// The dashboard at `/` in a real browser (Debian's chromium through playwright-core) against a real awareness server
// on a loopback port: the page follows the live tree without reloads, acts through the tree's affordances, renders
// "what the agent sees" at a budget, and asks for a token when auth is on. Every wait is on a DOM signal (a selector or
// an attribute), bounded by playwright's timeout; the DOM contract is /work/DASHBOARD_CONTRACT.md (data-testid names).
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type { Page } from "playwright-core"
import type { Settings } from "../src/Settings.ts"
import * as Token from "../src/Token.ts"
import { buildPage, integerIn, launchBrowser, openPage, pw, screenshot, skipBrowser } from "./browser.ts"
import { settingsFor, startHttp } from "./harness.ts"
import { send } from "./slop.ts"

const memory = { _tag: "embedded", dataDir: "memory://" } as const
const secret = "test-secret-that-is-long-enough"
const tokenFor = (sub: string, key = secret) =>
  Token.sign({ sub, secret: key, nowSec: Math.floor(Date.now() / 1000), expiresInSec: 3600 })

/** A real server on a loopback port serving the page built from this checkout's web/. */
const serve = (overrides: Partial<Settings> = {}) =>
  Effect.flatMap(buildPage, (dashboardDir) => startHttp(settingsFor({ ...overrides, dashboardDir }), memory))

const alert = (source: string, alertId: string, level: string, message: string) => ({
  source,
  tags: ["infra"],
  alert_id: alertId,
  level,
  message
})

const posted = (base: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
  Effect.flatMap(send(base, "POST", path, body, headers), (reply) =>
    reply.status === 200
      ? Effect.succeed(reply.body)
      : Effect.die(new Error(`POST ${path}: ${reply.status} ${JSON.stringify(reply.body)}`))
  )

const text = (page: Page, selector: string) => pw(() => page.locator(selector).first().textContent())
const attribute = (page: Page, selector: string, name: string) =>
  pw(() => page.locator(selector).first().getAttribute(name))
const count = (page: Page, selector: string) => pw(() => page.locator(selector).count())

/** Waits until `document.querySelectorAll(selector).length` satisfies `op` against `n`. */
const waitCount = (page: Page, selector: string, op: "<" | ">" | "=", n: number) =>
  pw(() =>
    page.waitForFunction(
      ([selector, op, n]) => {
        const found = document.querySelectorAll(selector).length
        return op === "<" ? found < n : op === ">" ? found > n : found === n
      },
      [selector, op, n] as const
    )
  )

/** Waits until the first integer in the text of `selector` differs from `before`; returns it. */
const waitIntegerChange = (page: Page, selector: string, before: number) =>
  pw(() =>
    page.waitForFunction(
      ([selector, before]) => {
        const match = /\d[\d,]*/.exec(document.querySelector(selector)?.textContent ?? "")
        const now = match === null ? Number.NaN : Number(match[0].replaceAll(",", ""))
        return Number.isFinite(now) && now !== before ? now : false
      },
      [selector, before] as const
    )
  ).pipe(Effect.flatMap((handle) => pw(() => handle.jsonValue() as Promise<number>)))

/** Loads `/` and waits for the app with a live connection; marks the window so that a reload would show. */
const load = (page: Page, base: string) =>
  Effect.gen(function* () {
    yield* pw(() => page.goto(`${base}/`))
    yield* pw(() => page.waitForSelector("[data-testid=app]"))
    yield* pw(() => page.waitForSelector("[data-testid=connection][data-state=live]"))
    yield* pw(() => page.evaluate(() => Object.assign(window, { heedNotReloaded: true })))
  })

const notReloaded = (page: Page) =>
  pw(() => page.evaluate(() => (window as { heedNotReloaded?: boolean }).heedNotReloaded === true))

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

describe("the dashboard's files", () => {
  it.live(
    "GET / serves the page with the SLOP discovery meta, and its scripts and styles with their content types",
    () =>
      Effect.gen(function* () {
        const { base } = yield* serve()
        const index = yield* send(base, "GET", "/")
        assert.strictEqual(index.status, 200)
        assert.include(index.type, "text/html")
        const html = String(index.body)
        assert.match(html, /<meta\s+name="slop"\s+content="[^"]+"/)
        const scripts = [...html.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)].map((m) => m[1]!)
        const styles = [...html.matchAll(/<link[^>]*rel="stylesheet"[^>]*href="([^"]+)"/g)].map((m) => m[1]!)
        assert.isAbove(scripts.length, 0, "index.html loads at least one script")
        for (const [paths, type] of [
          [scripts, "javascript"],
          [styles, "text/css"]
        ] as const) {
          for (const path of paths) {
            assert.notMatch(path, /^(?:[a-z]+:)?\/\//i, `${path} is served by the app, not another origin`)
            const asset = yield* send(base, "GET", path.startsWith("/") ? path : `/${path}`)
            assert.strictEqual(asset.status, 200, path)
            assert.include(asset.type, type, path)
          }
        }
      }),
    30_000
  )
})

describe.skipIf(skipBrowser)("the dashboard in a real browser", () => {
  it.live(
    "a critical alert reported through REST appears without a reload and changes the token count; suppressing it " +
      "from the page for 10 minutes dims it and counts in active_suppressions",
    () =>
      Effect.gen(function* () {
        const { base } = yield* serve()
        yield* posted(base, "/v1/status", { source: "nas", tags: ["infra"], metrics: { disk: 71 }, headline: "fine" })
        yield* posted(base, "/v1/status", { source: "ci", tags: ["ci"], metrics: {}, headline: "green" })
        const browser = yield* launchBrowser
        const { page, errors } = yield* openPage(browser)
        const requested: Array<string> = []
        page.on("request", (request) => requested.push(request.url()))

        yield* load(page, base)
        yield* pw(() => page.waitForSelector("[data-testid=source][data-source=nas]"))
        assert.strictEqual(yield* count(page, "[data-testid=alert]"), 0)
        const before = yield* send(base, "GET", "/v1/briefing")
        assert.isFalse(before.body.attention_needed, "info headlines alone need no attention (issue 26)")
        assert.strictEqual(
          yield* attribute(page, "[data-testid=attention-needed]", "data-value"),
          String(before.body.attention_needed),
          "the page shows the server's attention_needed"
        )
        const tokensBefore = integerIn(yield* text(page, "[data-testid=briefing-tokens]"))
        assert.isTrue(Number.isInteger(tokensBefore), `briefing-tokens shows an integer (${tokensBefore})`)

        yield* posted(base, "/v1/alerts", alert("nas", "disk", "critical", "Disk almost full on /volume1"))
        const row = '[data-testid=alert][data-alert-id="disk"]'
        yield* pw(() => page.waitForSelector(`${row}[data-level=critical][data-dimmed=false]`))
        const tokensAfter = yield* waitIntegerChange(page, "[data-testid=briefing-tokens]", tokensBefore)
        assert.isAbove(tokensAfter, tokensBefore, "the briefing grew by the alert")
        yield* pw(() => page.waitForSelector("[data-testid=attention-needed][data-value=true]"))
        yield* pw(() => page.waitForSelector("[data-testid=source][data-source=nas][data-status=critical]"))
        assert.include(yield* text(page, row), "Disk almost full")
        assert.match(
          (yield* text(page, "[data-testid=briefing-line]")) ?? "",
          /critical.*nas/i,
          "the most severe line comes first and names the critical source"
        )
        assert.isTrue(yield* notReloaded(page), "the alert arrived without a reload")
        yield* screenshot(page, "live-critical-alert")

        const suppressionsBefore = Number(yield* attribute(page, "[data-testid=active-suppressions]", "data-count"))
        assert.strictEqual(suppressionsBefore, 0)
        yield* pw(() => page.locator(`${row} button[data-action=suppress]`).click())
        const form = page.locator("form[data-testid=suppress-form]")
        yield* pw(() => form.waitFor())
        yield* pw(() => form.locator("input[name=duration_minutes]").fill("10"))
        yield* pw(() => form.locator("input[name=reason]").fill("disk swap scheduled"))
        const suppressedAt = Date.now()
        yield* pw(() => form.locator("button[type=submit]").click())
        yield* pw(() => page.waitForSelector("[data-testid=action-result][data-outcome=ok]"))
        yield* pw(() => page.waitForSelector(`${row}[data-dimmed=true] [data-testid=alert-why]`))
        yield* pw(() =>
          page.waitForSelector(`[data-testid=active-suppressions][data-count="${suppressionsBefore + 1}"]`)
        )
        assert.isTrue(yield* notReloaded(page))

        // The server agrees: one suppression, for about 10 minutes, with the reason typed in the form.
        const briefing = yield* send(base, "GET", "/v1/briefing")
        assert.strictEqual(briefing.body.active_suppressions, suppressionsBefore + 1)
        const suppressions = (yield* send(base, "POST", "/v1/tools/get_suppressions", {})).body
        assert.strictEqual(suppressions.length, 1)
        const stored = JSON.stringify(suppressions[0])
        assert.include(stored, "disk swap scheduled")
        const expiry = /"(?:expires|expires_at|valid_until)":"([^"]+)"/.exec(stored)
        assert.isNotNull(expiry, `the suppression has an expiry: ${stored}`)
        const minutes = (Date.parse(expiry![1]!) - suppressedAt) / 60_000
        assert.isTrue(minutes > 9 && minutes <= 10.5, `suppressed for about 10 minutes, not ${minutes}`)
        yield* screenshot(page, "suppressed-alert")

        assert.deepStrictEqual(
          requested.filter((url) => !url.startsWith(`${base}/`) && !url.startsWith(base.replace("http", "ws"))),
          [],
          "the page loads nothing from another origin"
        )
        assert.deepStrictEqual(errors, [])
      }),
    90_000
  )

  it.live(
    "acknowledge, clear, fire and cancel run from the page through the tree's affordances, each showing its outcome " +
      "and changing what the server holds",
    () =>
      Effect.gen(function* () {
        const { base } = yield* serve()
        yield* posted(base, "/v1/status", { source: "nas", tags: ["infra"], metrics: {}, headline: "fine" })
        yield* posted(base, "/v1/alerts", alert("nas", "disk", "warning", "Disk at 85%"))
        const suppression = yield* posted(base, "/v1/suppressions", {
          source: "ci",
          duration_minutes: 30,
          reason: "deploy window"
        })
        const inAnHour = new Date(Date.now() + 3_600_000).toISOString()
        const keys = yield* posted(base, "/v1/intentions", {
          goal: "Rotate keys",
          source: "me",
          tags: [],
          deliver_at: inAnHour
        })
        const milk = yield* posted(base, "/v1/intentions", {
          goal: "Buy milk",
          source: "me",
          tags: [],
          deliver_at: inAnHour
        })
        const browser = yield* launchBrowser
        const { page, errors } = yield* openPage(browser)
        yield* load(page, base)
        const result = "[data-testid=action-result]"
        // each action's own outcome line: the result names the action and what it acted on
        const outcome = (label: string) =>
          pw(() =>
            page.waitForFunction(
              ([selector, label]) => {
                const line = document.querySelector(selector)
                return line?.getAttribute("data-outcome") === "ok" && (line.textContent ?? "").startsWith(label)
              },
              [result, label] as const
            )
          )

        const row = '[data-testid=alert][data-alert-id="disk"]'
        yield* pw(() => page.locator(`${row} button[data-action=acknowledge]`).click())
        yield* outcome("Acknowledge")
        const acknowledged = (yield* send(base, "GET", "/v1/briefing")).body
        assert.strictEqual(acknowledged.evaluation.acknowledged, 1, "the server holds the alert acknowledged")

        const suppressionRow = `[data-testid=suppression][data-suppression-id="${suppression.id}"]`
        yield* pw(() => page.locator(`${suppressionRow} button[data-action=clear]`).click())
        yield* outcome("Clear")
        yield* waitCount(page, suppressionRow, "=", 0)
        assert.deepStrictEqual((yield* send(base, "POST", "/v1/tools/get_suppressions", {})).body, [])

        const intention = (id: string) => `[data-testid=intention][data-intention-id="${id}"]`
        yield* pw(() => page.locator(`${intention(keys.id)} button[data-action=fire]`).click())
        yield* outcome("Fire")
        yield* pw(() => page.waitForSelector(`${intention(keys.id)}[data-state=fired]`))
        // A fired reminder offers "done" (acknowledge), not "Fire" again; the briefing card names it by its goal.
        yield* pw(() => page.waitForSelector(`${intention(keys.id)} button[data-action=done]`))
        assert.strictEqual(yield* count(page, `${intention(keys.id)} button[data-action=fire]`), 0)
        yield* pw(() =>
          page.waitForFunction(() =>
            [...document.querySelectorAll("[data-testid=briefing-line]")].some(
              (line) => line.textContent === "INTENTION: Rotate keys"
            )
          )
        )
        const briefingLines = yield* pw(() =>
          page.$$eval("[data-testid=briefing-line]", (lines) => lines.map((line) => line.textContent ?? ""))
        )
        assert.isFalse(
          briefingLines.some((line) => line.includes(keys.id)),
          `no raw id on the card: ${briefingLines}`
        )
        yield* pw(() => page.locator(`${intention(keys.id)} button[data-action=done]`).click())
        yield* outcome("Done")
        yield* waitCount(page, intention(keys.id), "=", 0)
        const afterDone = (yield* send(base, "GET", "/v1/briefing")).body
        assert.isUndefined(afterDone.fired_intentions, "the acknowledged reminder left the briefing")
        yield* pw(() => page.locator(`${intention(milk.id)} button[data-action=cancel]`).click())
        yield* outcome("Cancel")
        yield* waitCount(page, intention(milk.id), "=", 0)
        const states = (yield* send(base, "POST", "/v1/tools/get_intentions", {})).body as {
          entries: Array<{ id: string; data: { state: string } }>
        }
        assert.deepStrictEqual(Object.fromEntries(states.entries.map((entry) => [entry.id, entry.data.state])), {
          [keys.id]: "fired",
          [milk.id]: "cancelled"
        })
        assert.deepStrictEqual(errors, [])
      }),
    90_000
  )

  it.live(
    "dragging the budget slider down leaves fewer nodes, shows the cuts as stubs, and keeps the view's token count " +
      "under the budget",
    () =>
      Effect.gen(function* () {
        const { base } = yield* serve()
        for (const [i, source] of ["nas", "router", "ci", "backup", "printer", "camera"].entries()) {
          yield* posted(base, "/v1/status", { source, tags: ["infra"], metrics: { load: i }, headline: `${source} up` })
          yield* posted(base, "/v1/alerts", alert(source, `${source}-a`, i % 2 === 0 ? "warning" : "critical", "a"))
          yield* posted(base, "/v1/alerts", alert(source, `${source}-b`, "warning", `second problem on ${source}`))
        }
        yield* posted(base, "/v1/intentions", { source: "nas", tags: ["chores"], goal: "Replace the disk" })
        const browser = yield* launchBrowser
        const { page, errors } = yield* openPage(browser)
        yield* load(page, base)
        yield* waitCount(page, "[data-testid=alert]", "=", 12)

        const unit = page.locator("[data-testid=budget-unit]")
        if ((yield* pw(() => unit.evaluate((element) => element.tagName))) === "SELECT") {
          yield* pw(() => unit.selectOption("tokens"))
        } else {
          yield* pw(() => unit.locator('[value="tokens"], [data-unit="tokens"]').first().click())
        }
        const slider = page.locator("input[type=range][data-testid=budget]")
        assert.isNotNull(yield* pw(() => slider.getAttribute("aria-label")), "the slider has an accessible name")
        // From the largest budget, the whole tree: nothing cut.
        yield* pw(() => slider.focus())
        yield* pw(() => page.keyboard.press("End"))
        const max = Number(yield* pw(() => slider.getAttribute("max")))
        yield* pw(() =>
          page.waitForFunction(
            (max) => document.querySelector<HTMLInputElement>("[data-testid=budget]")!.value === String(max),
            max
          )
        )
        yield* waitCount(page, "[data-testid=view-stub]", "=", 0)
        const wholeNodes = yield* count(page, "[data-testid=view-node]")
        assert.isAbove(wholeNodes, 12, "the whole tree shows every source and alert")
        const wholeTokens = integerIn(yield* text(page, "[data-testid=view-tokens]"))
        assert.isAtMost(wholeTokens, max)

        // Drag the thumb with the mouse to a third of the way from the smallest view to the whole tree. (The track
        // starts lower, under the briefing's own size, where the tree view cannot shrink further: see the next test.)
        const min = Number(yield* pw(() => slider.getAttribute("min")))
        const floor = (yield* send(base, "GET", "/dashboard/view?unit=tokens&budget=0")).body.floor.tokens as number
        const target = floor + (max - floor) / 3
        const box = (yield* pw(() => slider.boundingBox()))!
        yield* pw(() => page.mouse.move(box.x + box.width - 4, box.y + box.height / 2))
        yield* pw(() => page.mouse.down())
        yield* pw(() =>
          page.mouse.move(box.x + (box.width * (target - min)) / (max - min), box.y + box.height / 2, { steps: 12 })
        )
        yield* pw(() => page.mouse.up())
        const budget = Number(yield* pw(() => slider.inputValue()))
        assert.isBelow(budget, max, "the drag moved the slider down")
        assert.isAtLeast(budget, floor, "the drag stayed above the smallest view")

        yield* waitCount(page, "[data-testid=view-node]", "<", wholeNodes)
        yield* waitCount(page, "[data-testid=view-stub]", ">", 0)
        const stubCounts = yield* pw(() =>
          page.$$eval("[data-testid=view-stub]", (stubs) =>
            stubs.map((stub) => Number(stub.getAttribute("data-count")))
          )
        )
        assert.isTrue(
          stubCounts.every((n) => Number.isInteger(n) && n > 0),
          `every stub counts what it cut: ${stubCounts}`
        )
        const viewTokens = integerIn(yield* text(page, "[data-testid=view-tokens]"))
        assert.isAtMost(viewTokens, budget, "the view fits its token budget")
        assert.isBelow(viewTokens, wholeTokens)
        assert.isNotEmpty((yield* text(page, "[data-testid=view-briefing]"))?.trim() ?? "")
        yield* screenshot(page, "agent-view-budget")

        // The keyboard moves it too: one step up re-renders within the new budget.
        yield* pw(() => slider.focus())
        yield* pw(() => page.keyboard.press("ArrowRight"))
        const stepped = Number(yield* pw(() => slider.inputValue()))
        assert.isAbove(stepped, budget)
        assert.isAtMost(integerIn(yield* text(page, "[data-testid=view-tokens]")), stepped)
        assert.deepStrictEqual(errors, [])
      }),
    90_000
  )

  it.live(
    "a source with alerts and no status says so; the budget slider reaches below the briefing's own size",
    () =>
      Effect.gen(function* () {
        const { base } = yield* serve()
        yield* posted(base, "/v1/alerts", alert("ups", "battery", "critical", "UPS on battery"))
        yield* posted(base, "/v1/status", { source: "nas", tags: ["infra"], metrics: {} })
        const browser = yield* launchBrowser
        const { page, errors } = yield* openPage(browser)
        yield* load(page, base)
        const ups = '[data-testid=source][data-source="ups"]'
        yield* pw(() => page.waitForSelector(`${ups} [data-testid=no-status]`))
        assert.strictEqual(
          (yield* text(page, `${ups} [data-testid=no-status]`))?.trim(),
          "alerts only, no status reported"
        )
        assert.notInclude((yield* text(page, ups)) ?? "", "last report")
        assert.include((yield* text(page, '[data-testid=source][data-source="nas"]')) ?? "", "last report")

        const unit = page.locator("[data-testid=budget-unit]")
        if ((yield* pw(() => unit.evaluate((element) => element.tagName))) === "SELECT") {
          yield* pw(() => unit.selectOption("tokens"))
        } else {
          yield* pw(() => unit.locator('[value="tokens"], [data-unit="tokens"]').first().click())
        }
        const slider = page.locator("input[type=range][data-testid=budget]")
        yield* pw(() =>
          page.waitForFunction(() => Number(document.querySelector<HTMLInputElement>("[data-testid=budget]")!.max) > 0)
        )
        const min = Number(yield* pw(() => slider.getAttribute("min")))
        const briefingTokens = integerIn(yield* text(page, "[data-testid=briefing-tokens]"))
        assert.isBelow(min, briefingTokens, "the slider reaches below the briefing's own size")
        assert.isAtMost(min, 20)
        // At the bottom of the track the collator fits the briefing under it: it shrinks (folded into counts).
        const fitted = "[data-testid=view-briefing] p"
        yield* pw(() => page.waitForSelector(fitted))
        const fullFit = integerIn(yield* text(page, fitted))
        yield* pw(() => slider.focus())
        yield* pw(() => page.keyboard.press("Home"))
        assert.isBelow(yield* waitIntegerChange(page, fitted, fullFit), fullFit)
        assert.deepStrictEqual(errors, [])
      }),
    90_000
  )

  it.live(
    "with auth on, the page asks for a token, rejects a wrong one, accepts the right one and keeps it out of the URL",
    () =>
      Effect.gen(function* () {
        const { base } = yield* serve({ authRequired: true, secret: Option.some(Redacted.make(secret)) })
        const alice = { authorization: `Bearer ${tokenFor("alice")}` }
        yield* posted(base, "/v1/alerts", alert("alice-nas", "disk", "critical", "Disk almost full"), alice)
        const browser = yield* launchBrowser
        const { page } = yield* openPage(browser)

        yield* pw(() => page.goto(`${base}/`))
        const login = page.locator("form[data-testid=login]")
        yield* pw(() => login.waitFor())
        assert.strictEqual(yield* count(page, "[data-testid=app]"), 0, "nothing of the app before a token")
        assert.strictEqual(yield* pw(() => login.locator("input[name=token]").getAttribute("type")), "password")
        yield* screenshot(page, "login")

        yield* pw(() => login.locator("input[name=token]").fill(tokenFor("alice", "a-different-secret-entirely")))
        yield* pw(() => login.locator("[type=submit]").click())
        yield* pw(() => page.waitForSelector("[data-testid=login-error]", { state: "visible" }))
        assert.isNotEmpty((yield* text(page, "[data-testid=login-error]"))?.trim() ?? "")
        assert.isTrue(yield* pw(() => login.isVisible()), "the form stays after a wrong token")
        assert.strictEqual(yield* count(page, "[data-testid=app]"), 0)

        const good = tokenFor("alice")
        yield* pw(() => login.locator("input[name=token]").fill(good))
        yield* pw(() => login.locator("[type=submit]").click())
        yield* pw(() => page.waitForSelector("[data-testid=app]"))
        yield* pw(() => page.waitForSelector("[data-testid=connection][data-state=live]"))
        yield* pw(() => page.waitForSelector('[data-testid=alert][data-alert-id="disk"][data-source=alice-nas]'))
        assert.strictEqual(yield* count(page, "form[data-testid=login]"), 0, "the form is gone")
        assert.notInclude(page.url(), good, "the token is not in the URL")

        // Alice's page follows alice's tree only: bob's alert never shows, alice's next one does.
        yield* posted(base, "/v1/alerts", alert("bob-nas", "bob-disk", "critical", "Bob's disk"), {
          authorization: `Bearer ${tokenFor("bob")}`
        })
        yield* posted(base, "/v1/alerts", alert("alice-nas", "fan", "warning", "Fan noisy"), alice)
        yield* pw(() => page.waitForSelector('[data-testid=alert][data-alert-id="fan"]'))
        assert.strictEqual(yield* count(page, '[data-testid=alert][data-alert-id="bob-disk"]'), 0)
      }),
    90_000
  )

  it.live(
    "at a phone's width the page fits without sideways scrolling",
    () =>
      Effect.gen(function* () {
        const { base } = yield* serve()
        yield* posted(base, "/v1/alerts", alert("nas", "disk", "critical", "Disk almost full on /volume1"))
        const browser = yield* launchBrowser
        const { page, errors } = yield* openPage(browser, { viewport: { width: 390, height: 844 } })
        yield* load(page, base)
        yield* pw(() => page.waitForSelector('[data-testid=alert][data-alert-id="disk"]'))
        const widths = yield* pw(() =>
          page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: window.innerWidth }))
        )
        assert.isAtMost(widths.scroll, widths.client, `page ${widths.scroll}px wide in a ${widths.client}px window`)
        yield* screenshot(page, "phone")
        assert.deepStrictEqual(errors, [])
      }),
    60_000
  )
})
