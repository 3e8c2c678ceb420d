/**
 * The heed awareness dashboard: log in (when the server asks for a token), then follow the owner's live SLOP tree,
 * act on it through its affordances, and see what an agent is served under a budget.
 *
 * The token is kept in sessionStorage (gone when the tab closes) and sent in the `Authorization` header of the JSON
 * reads and as a `heed.bearer.…` WebSocket subprotocol; it never goes into a URL.
 */
import type * as SlopNode from "@heed/state-tree/Node"
import * as api from "./api.ts"
import { h, replace } from "./dom.ts"
import { type ConnectionState, connect, type Live } from "./live.ts"
import * as view from "./view.ts"
import "./style.css"

const tokenKey = "heed.awareness.token"
const root = document.getElementById("root")!
const connection = document.querySelector<HTMLElement>("[data-testid=connection]")!
const logout = document.querySelector<HTMLButtonElement>("button.logout")!

const storedToken = (): string | undefined => sessionStorage.getItem(tokenKey) ?? undefined

const setConnection = (state: ConnectionState, detail?: string) => {
  connection.dataset.state = state
  connection.textContent = state === "live" ? "live" : state === "connecting" ? "connecting…" : "disconnected"
  connection.title = detail ?? ""
}

// -----------------------------------------------------------------------------------------------------------------
// Login

const showLogin = (error?: string) => {
  setConnection("closed", "not logged in")
  logout.hidden = true
  const input = h("input", {
    name: "token",
    type: "password",
    id: "token",
    autocomplete: "current-password",
    required: true,
    spellcheck: "false"
  })
  const message = h(
    "p",
    { "data-testid": "login-error", class: "error", role: "alert", hidden: error === undefined },
    error ?? ""
  )
  const form = h(
    "form",
    { "data-testid": "login", class: "login card", "aria-labelledby": "login-title" },
    h("h2", { id: "login-title" }, "Log in"),
    h("p", { class: "muted" }, "This server asks for a bearer token (heed-awareness token --sub <owner>)."),
    h("label", { for: "token" }, "Token"),
    input,
    message,
    h("button", { type: "submit" }, "Log in")
  )
  form.addEventListener("submit", (event) => {
    event.preventDefault()
    const token = input.value.trim()
    if (token === "") return
    void api.briefing(token).then((outcome) => {
      if (outcome._tag === "unauthorized") {
        message.textContent = "That token was refused: it is invalid or has expired."
        message.hidden = false
        input.select()
      } else if (outcome._tag === "failed") {
        message.textContent = `The server could not check the token: ${outcome.message}`
        message.hidden = false
      } else {
        sessionStorage.setItem(tokenKey, token)
        input.value = ""
        void startApp(token, outcome.value)
      }
    })
  })
  replace(root, form)
  input.focus()
}

// -----------------------------------------------------------------------------------------------------------------
// The app

interface App {
  readonly live: Live
  readonly token: string | undefined
  readonly clock: ReturnType<typeof setInterval>
}

let current: App | undefined

const section = (id: string, title: string, ...body: ReadonlyArray<Node>) =>
  h("section", { class: "card", "aria-labelledby": `${id}-title`, id }, h("h2", { id: `${id}-title` }, title), ...body)

/** The page's boxes: one per card, the action result line, and the agent panel. */
const layout = (agent: ReturnType<typeof agentPanel>) => {
  const boxes = {
    briefing: h("div", { "data-testid": "briefing", "aria-live": "polite" }),
    sources: h("div", { "data-testid": "sources" }),
    intentions: h("div", { "data-testid": "intentions" }),
    suppressions: h("div", { "data-testid": "suppressions" }),
    result: h("p", { "data-testid": "action-result", role: "status", "aria-live": "polite", hidden: true })
  }
  const app = h(
    "div",
    { "data-testid": "app", class: "app" },
    boxes.result,
    h(
      "div",
      { class: "grid" },
      section("briefing-card", "Briefing", boxes.briefing),
      section("sources-card", "Sources and alerts", boxes.sources),
      section("intentions-card", "Intentions", boxes.intentions),
      section("suppressions-card", "Suppressions", boxes.suppressions),
      agent.element
    )
  )
  return { app, ...boxes }
}

/** Runs an affordance through the live tree and shows its outcome; a suppression first asks for its duration. */
const actions = (result: HTMLElement, live: () => Live | undefined): view.OnAction => {
  const showResult = (outcome: "ok" | "error", message: string) => {
    result.dataset.outcome = outcome
    result.className = `result ${outcome}`
    result.textContent = message
    result.hidden = false
  }
  const run = (request: view.ActionRequest, params?: Readonly<Record<string, unknown>>, done?: string) => {
    const label = request.affordance.label ?? request.affordance.action
    const connection = live()
    if (connection === undefined) return showResult("error", `${label}: the live tree is not connected yet.`)
    connection.invoke(request.path, request.affordance.action, params).then(
      () => showResult("ok", done ?? `${label}: done for ${request.target}.`),
      (error: unknown) =>
        showResult(
          "error",
          `${label} failed for ${request.target}: ${error instanceof Error ? error.message : String(error)}`
        )
    )
  }
  return (request) => {
    if (request.affordance.action === "suppress") suppressDialog.open(request, run)
    else run(request)
  }
}

/**
 * The briefing follows the tree: one read at a time, the latest version wins; `document.body.dataset.version` is the
 * tree version painted last (the benchmark watches it).
 */
const briefingFollower = (box: HTMLElement, token: string | undefined) => {
  let wanted = 0
  let reading = false
  const read = async () => {
    if (reading) return
    reading = true
    try {
      while (true) {
        const version = wanted
        const outcome = await api.briefing(token)
        if (outcome._tag === "unauthorized") return expired()
        if (outcome._tag === "ok") replace(box, view.briefing(outcome.value))
        if (wanted === version) {
          document.body.dataset.version = String(version)
          return
        }
      }
    } finally {
      reading = false
    }
  }
  return (version: number) => {
    wanted = version
    void read()
  }
}

/** The page when the live tree could not be opened: the error and a retry button. */
const showConnectFailure = (error: unknown) => {
  const retry = h("button", { type: "button" }, "Try again")
  retry.addEventListener("click", () => void boot())
  replace(
    root,
    h(
      "div",
      { "data-testid": "app", class: "app" },
      h("p", { class: "error", role: "alert" }, `The live tree could not be opened: ${String(error)}`),
      retry
    )
  )
}

const startApp = async (token: string | undefined, first: api.BriefingReply) => {
  logout.hidden = token === undefined
  const agent = agentPanel(token)
  const boxes = layout(agent)
  replace(root, boxes.app, suppressDialog.element)
  replace(boxes.briefing, view.briefing(first))
  let live: Live | undefined
  const onAction = actions(boxes.result, () => live)
  const followBriefing = briefingFollower(boxes.briefing, token)
  let shownTree: SlopNode.Node | undefined
  const paintTree = (tree: SlopNode.Node) => {
    shownTree = tree
    replace(boxes.sources, view.sources(tree, onAction))
    replace(boxes.intentions, view.intentions(tree, onAction))
    replace(boxes.suppressions, view.suppressions(tree, onAction))
  }
  // relative times ("in 25 min") move on between changes
  const clock = setInterval(() => {
    if (shownTree !== undefined) paintTree(shownTree)
  }, 30_000)
  const onTree = (tree: SlopNode.Node, version: number) => {
    paintTree(tree)
    followBriefing(version)
    agent.refresh()
  }
  setConnection("connecting")
  try {
    live = await connect(token, { onTree, onState: setConnection })
  } catch (error) {
    showConnectFailure(error)
    clearInterval(clock)
    return
  }
  current = { live, token, clock }
}

// a read was refused mid-session (the token expired): start over, which forgets the token and asks for a new one
const expired = () => void boot()

const stop = async () => {
  const app = current
  current = undefined
  if (app === undefined) return
  clearInterval(app.clock)
  await app.live.close()
}

logout.addEventListener("click", () => {
  sessionStorage.removeItem(tokenKey)
  void stop().then(() => showLogin())
})

// -----------------------------------------------------------------------------------------------------------------
// Suppress: duration and reason, for an alert or a source

const suppressDialog = (() => {
  const duration = h("input", {
    name: "duration_minutes",
    type: "number",
    min: 1,
    step: 1,
    value: 60,
    id: "duration",
    required: true
  })
  const reason = h("input", { name: "reason", type: "text", id: "reason", maxlength: 500 })
  const title = h("h2", { id: "suppress-title" }, "Suppress")
  const cancel = h("button", { type: "button", class: "secondary" }, "Cancel")
  const form = h(
    "form",
    { "data-testid": "suppress-form", method: "dialog" },
    title,
    h("label", { for: "duration" }, "For how many minutes"),
    duration,
    h("label", { for: "reason" }, "Reason"),
    reason,
    h("div", { class: "actions" }, h("button", { type: "submit" }, "Suppress"), cancel)
  )
  const element = h("dialog", { class: "card", "aria-labelledby": "suppress-title" }, form)
  let pending: { request: view.ActionRequest; run: typeof runner } | undefined
  let runner: (request: view.ActionRequest, params?: Readonly<Record<string, unknown>>, done?: string) => void
  const close = () => {
    const key = pending?.request.key
    pending = undefined
    element.close()
    if (key !== undefined) document.querySelector<HTMLElement>(`[data-key="${CSS.escape(key)}"]`)?.focus()
  }
  cancel.addEventListener("click", close)
  form.addEventListener("submit", (event) => {
    event.preventDefault()
    if (pending === undefined) return
    const minutes = Math.floor(Number(duration.value))
    if (!Number.isFinite(minutes) || minutes < 1) {
      duration.setCustomValidity("At least one minute")
      duration.reportValidity()
      return
    }
    const { request, run } = pending
    const params: Record<string, unknown> = { duration_minutes: minutes }
    if (reason.value.trim() !== "") params.reason = reason.value.trim()
    run(request, params, `Suppressed ${request.target} for ${minutes} min.`)
    close()
  })
  duration.addEventListener("input", () => duration.setCustomValidity(""))
  return {
    element,
    open: (request: view.ActionRequest, run: typeof runner) => {
      pending = { request, run }
      title.textContent = `Suppress ${request.target}`
      reason.value = ""
      element.showModal()
      duration.focus()
      duration.select()
    }
  }
})()

// -----------------------------------------------------------------------------------------------------------------
// What the agent sees

/** The agent panel's controls and boxes. */
const agentElements = () => {
  const els = {
    slider: h("input", {
      type: "range",
      "data-testid": "budget",
      id: "budget",
      min: 0,
      max: 1,
      value: 1,
      step: 1,
      "aria-label": "Budget",
      "aria-describedby": "budget-value"
    }),
    unit: h(
      "select",
      { "data-testid": "budget-unit", "aria-label": "Budget unit" },
      h("option", { value: "tokens" }, "tokens"),
      h("option", { value: "nodes" }, "nodes")
    ),
    value: h("output", { id: "budget-value", for: "budget" }, ""),
    tokens: h("p", { "data-testid": "view-tokens", class: "facts" }, ""),
    tree: h("div", { "data-testid": "agent-view", class: "agent-view" }),
    digest: h("div", { "data-testid": "agent-digest" }),
    briefing: h("div", { "data-testid": "view-briefing" })
  }
  const element = section(
    "agent-card",
    "What the agent sees",
    h(
      "p",
      { class: "muted" },
      "The tree as an agent is served it under a budget (Pipeline.optimize), its digest, and the briefing the collator fits to that budget."
    ),
    h("div", { class: "controls" }, h("label", { for: "budget" }, "Budget"), els.slider, els.value, els.unit),
    els.tokens,
    els.tree,
    h("details", {}, h("summary", {}, "Attention digest (Digest.make)"), els.digest),
    h("h3", {}, "Briefing at this budget"),
    els.briefing
  )
  return { ...els, element }
}

type AgentElements = ReturnType<typeof agentElements>

/**
 * The lowest budget the slider offers: below the smallest view of the tree and below the briefing's own size, so
 * the briefing's folding into groups and counts can be watched (the tree view then says it is over budget).
 */
const lowestBudget: Readonly<Record<api.Unit, number>> = { tokens: 20, nodes: 1 }

/** Paints a view: the slider's range runs from under the smallest view and the briefing up to the whole tree. */
const paintAgentView = (els: AgentElements, reply: api.ViewReply, full: boolean) => {
  const unitFloor = reply.unit === "tokens" ? reply.floor.tokens : reply.floor.nodes
  const unitTotal = reply.unit === "tokens" ? reply.total.tokens : reply.total.nodes
  els.slider.min = String(Math.min(unitFloor, lowestBudget[reply.unit]))
  els.slider.max = String(Math.max(unitFloor, unitTotal))
  if (full) els.slider.value = els.slider.max
  els.value.textContent = `${els.slider.value} ${reply.unit}`
  els.slider.setAttribute("aria-valuetext", `${els.slider.value} ${reply.unit}`)
  els.tokens.textContent = view.viewFacts(reply)
  replace(els.tree, view.agentView(reply))
  replace(els.digest, ...view.digest(reply))
  replace(els.briefing, ...view.viewBriefing(reply))
}

const agentPanel = (token: string | undefined) => {
  const els = agentElements()
  const { slider, unit } = els
  // full until the user moves the slider; then the chosen budget, kept within the tree's range
  let full = true
  let requested = 0
  let busy = false
  const budget = () => (full ? 1_000_000 : Number(slider.value))
  const paint = (reply: api.ViewReply) => {
    paintAgentView(els, reply, full)
    // the tree's range moved under a chosen budget (the browser clamped the slider): read the view at the new value
    if (!full && reply.budget !== Number(slider.value)) void refresh()
  }
  // one read at a time; the last request made while it ran is read next
  const refresh = async () => {
    requested++
    if (busy) return
    busy = true
    try {
      let done = 0
      while (done !== requested) {
        done = requested
        const outcome = await api.view(token, unit.value as api.Unit, budget())
        if (outcome._tag === "unauthorized") return expired()
        if (outcome._tag === "ok") paint(outcome.value)
        else els.tokens.textContent = `The view could not be read: ${outcome.message}`
      }
    } finally {
      busy = false
    }
  }
  slider.addEventListener("input", () => {
    full = Number(slider.value) >= Number(slider.max)
    els.value.textContent = `${slider.value} ${unit.value}`
    void refresh()
  })
  unit.addEventListener("change", () => {
    full = true
    void refresh()
  })
  return { element: els.element, refresh: () => void refresh() }
}

// -----------------------------------------------------------------------------------------------------------------
// Start

const start = async () => {
  await stop()
  const token = storedToken()
  setConnection("connecting")
  const outcome = await api.briefing(token)
  if (outcome._tag === "unauthorized" && token !== undefined) {
    // a stale token: forget it and look again (a server without auth lets the page in without one)
    sessionStorage.removeItem(tokenKey)
    const again = await api.briefing(undefined)
    if (again._tag === "ok") await startApp(undefined, again.value)
    else showLogin("Your session has expired: log in again.")
  } else if (outcome._tag === "unauthorized") {
    showLogin()
  } else if (outcome._tag === "failed") {
    const retry = h("button", { type: "button" }, "Try again")
    retry.addEventListener("click", () => void boot())
    setConnection("closed", outcome.message)
    replace(root, h("div", { class: "card" }, h("p", { class: "error", role: "alert" }, outcome.message), retry))
  } else {
    await startApp(token, outcome.value)
  }
}

// one start at a time (two reads refused at once start over once)
let starting: Promise<void> | undefined
const boot = (): Promise<void> => {
  starting ??= start().finally(() => {
    starting = undefined
  })
  return starting
}

void boot()
