/**
 * A generated workday for benchmarks and the guide's picture: five SLOP apps (a board with 500 cards, a mail list
 * with 2,000 messages, CI with 300 jobs, a chat with 1,000 messages, a file tree with 5,000 nodes) and 50 scripted
 * turns, each with the user's prompt and the changes the apps make before it (new mail, jobs finishing or failing,
 * chat messages, cards moving). Deterministic: the same turns every run.
 *
 * @since 0.1.0
 */
import type { Node } from "@heed/state-tree"

type MutableNode = { -readonly [K in keyof Node.Node]: Node.Node[K] }

/**
 * One app of the scenario: its id, display name and tree.
 *
 * @category models
 * @since 0.1.0
 */
export interface App {
  readonly id: string
  readonly name: string
  readonly tree: Node.Node
}

/**
 * One scripted turn: the prompt, and the apps after the changes that happened since the previous turn.
 *
 * @category models
 * @since 0.1.0
 */
export interface Turn {
  readonly prompt: string
  readonly apps: ReadonlyArray<App>
}

const people = ["Ada", "Grace", "Linus", "Margaret", "Ken", "Barbara", "Dennis", "Frances", "Alan", "Radia"]
const topics = [
  "billing",
  "login",
  "search",
  "export",
  "onboarding",
  "reports",
  "sync",
  "alerts",
  "checkout",
  "profile"
]
const verbs = ["Fix", "Add", "Refactor", "Test", "Document", "Speed up", "Review", "Design", "Remove", "Migrate"]

const pick = <A>(items: ReadonlyArray<A>, i: number): A => items[i % items.length]!

// Nodes that did not change between turns are the same objects, as in a consumer's mirror (patches share what they
// do not touch), so diffs between turns skip them.
const nodes = new Map<string, Node.Node>()
const memo = (key: string, build: () => Node.Node): Node.Node => {
  let node = nodes.get(key)
  if (node === undefined) {
    node = build()
    nodes.set(key, node)
  }
  return node
}

const board = (turn: number): Node.Node => {
  const columns = ["backlog", "todo", "doing", "review", "done"]
  return {
    id: "root",
    type: "root",
    properties: { label: "Sprint board" },
    children: columns.map((column, c) => ({
      id: column,
      type: "collection",
      properties: { label: column[0]!.toUpperCase() + column.slice(1), count: 100 },
      meta: { salience: column === "doing" ? 0.8 : column === "done" ? 0.1 : 0.4 },
      children: Array.from({ length: 100 }, (_, i): Node.Node => {
        const n = c * 100 + i
        // a card moves forward every few turns: its column is shown in a property
        const blocked = n === 137 && turn >= 30
        return memo(`card:${n}:${blocked}`, () => ({
          id: `card-${n}`,
          type: "item",
          properties: {
            label: `${pick(verbs, n)} ${pick(topics, n * 7)} ${pick(["flow", "page", "API", "job", "cache"], n * 3)}`,
            assignee: pick(people, n * 3),
            points: 1 + (n % 8)
          },
          meta: blocked
            ? { urgency: "high", salience: 0.95, reason: "blocked for 2 days" }
            : { salience: column === "doing" ? 0.7 : 0.3 },
          affordances: [
            { action: "move", params: { type: "object", properties: { to: { type: "string" } }, required: ["to"] } }
          ]
        }))
      })
    }))
  }
}

const mail = (turn: number): Node.Node => {
  const count = 2000 + turn
  const messages: Array<Node.Node> = []
  for (let i = count - 1; i >= 0; i--) {
    const urgent = i === 2005 || i === 2031
    const unread = i >= count - 20
    messages.push(
      memo(`mail:${i}:${unread}`, () => ({
        id: `msg-${i}`,
        type: "item",
        properties: {
          label: `${pick(["Re:", "Fwd:", "", "Invoice", "Meeting:"], i)} ${pick(topics, i * 3)} ${pick(["update", "question", "plan", "numbers", "notes"], i)}`,
          from: `${pick(people, i * 5).toLowerCase()}@example.com`,
          unread
        },
        meta: urgent
          ? { urgency: "high", salience: 1, reason: "from your manager, due today" }
          : { salience: unread ? 0.6 : 0.1 },
        affordances: [
          { action: "archive" },
          { action: "reply", params: { type: "object", properties: { body: { type: "string" } } } }
        ]
      }))
    )
  }
  return {
    id: "root",
    type: "root",
    properties: { label: "Mail" },
    children: [{ id: "inbox", type: "collection", properties: { label: "Inbox", unread: 20 }, children: messages }]
  }
}

const ci = (turn: number): Node.Node => {
  const pipelines = Array.from(
    { length: 30 },
    (_, p): Node.Node => ({
      id: `pipeline-${p}`,
      type: "collection",
      properties: {
        label: `${pick(topics, p)} service`,
        branch: p % 3 === 0 ? "main" : `feature/${pick(topics, p + 1)}`
      },
      children: Array.from({ length: 10 }, (_, j): Node.Node => {
        const n = p * 10 + j
        const failing = (n === 42 && turn >= 20) || (n === 7 && turn >= 35)
        const status = failing ? "failed" : n % 10 === 9 && (n + turn) % 7 === 0 ? "running" : "passed"
        const run = 1000 + n + (status === "running" ? turn : 0)
        return memo(`job:${n}:${status}:${run}`, () => ({
          id: `job-${n}`,
          type: "status",
          properties: { label: `${pick(["lint", "unit", "integration", "build", "deploy"], j)} #${run}`, status },
          meta: failing
            ? { urgency: n === 42 ? "critical" : "high", salience: 1, reason: "failing on main" }
            : { salience: status === "running" ? 0.5 : 0.1 },
          affordances: [{ action: "retry" }, { action: "cancel", dangerous: true }]
        }))
      })
    })
  )
  return { id: "root", type: "root", properties: { label: "CI" }, children: pipelines }
}

const chat = (turn: number): Node.Node => {
  const channels = ["general", "dev", "ops", "random", "design"]
  return {
    id: "root",
    type: "root",
    properties: { label: "Team chat" },
    children: channels.map((channel, c) => {
      const count = 200 + (c === 1 ? turn * 2 : 0)
      return {
        id: channel,
        type: "collection",
        properties: { label: `#${channel}` },
        meta: { salience: c === 1 ? 0.7 : 0.2 },
        affordances: [
          { action: "send", params: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } }
        ],
        children: Array.from({ length: count }, (_, i): Node.Node => {
          const mention = c === 2 && i === 150 && turn >= 10
          const recent = i >= count - 10
          return memo(`chat:${c}:${i}:${mention}:${recent}`, () => ({
            id: `m-${c}-${i}`,
            type: "item",
            properties: {
              label: `${pick(people, i + c)}: ${pick(["can someone look at", "I pushed a fix for", "what is the status of", "thanks for"], i)} ${pick(topics, i * 11)}`
            },
            meta: mention
              ? { urgency: "high", salience: 1, reason: "you were mentioned" }
              : { salience: recent ? 0.5 : 0.1 }
          }))
        })
      }
    })
  }
}

const files = (turn: number): Node.Node => {
  let made = 0
  const dir = (path: string, depth: number, width: number): MutableNode => {
    const children: Array<Node.Node> = []
    for (let i = 0; i < width && made < 4999; i++) {
      made++
      const name = `${pick(topics, i + depth * 3)}${depth < 3 ? "" : `-${i}.ts`}`
      if (depth < 3) children.push(dir(`${path}/${name}-${i}`, depth + 1, depth === 0 ? 10 : depth === 1 ? 12 : 40))
      else {
        const touched = turn >= 5 && depth === 3 && i === 3 && made < 600
        children.push(
          memo(`file:${path}/${name}:${touched}`, () => ({
            id: `${name}`,
            type: "item",
            properties: { label: name, size: 100 + ((i * 37) % 9000) },
            meta: touched ? { changed: true, salience: 0.6 } : { salience: 0.1 }
          }))
        )
      }
    }
    return {
      id: path === "" ? "root" : `${path.split("/").pop()}`,
      type: path === "" ? "root" : "group",
      properties: { label: path === "" ? "Project files" : path.split("/").pop() },
      children
    }
  }
  return dir("", 0, 10)
}

const prompts: ReadonlyArray<string> = [
  "What should I work on first today?",
  "Show me what is in the doing column of the sprint board.",
  "Move the billing flow card to review.",
  "Any cards on the board assigned to Grace?",
  "What is blocked on the sprint board?",
  "Check my mail: anything from my manager?",
  "Summarise the unread mail.",
  "Reply to the invoice thread in mail.",
  "Archive the old newsletters.",
  "Is CI green?",
  "What is happening in the ops channel on chat?",
  "Let me write some code now.",
  "Open the search cache module.",
  "Refactor the export function.",
  "Run the tests again.",
  "What does the login page call?",
  "Explain the sync job.",
  "Add a comment about retries.",
  "Rename the onboarding helper.",
  "Commit this.",
  "Why did CI fail?",
  "Retry the failed CI job.",
  "Which pipeline is the failing job in?",
  "Back to the code: the alerts cache.",
  "Write a test for checkout.",
  "Fix the typo in the profile page.",
  "Any new mail?",
  "What did Radia say in chat?",
  "Reply in chat that the fix is merged.",
  "What is left on the board this sprint?",
  "Who is working on the reports API?",
  "Let me focus on the code for a while.",
  "Split the billing module.",
  "Move the helper into its own file.",
  "Update the imports.",
  "Is CI still red?",
  "Cancel the running deploy in CI.",
  "Check the integration job logs.",
  "Document the migration.",
  "Write release notes.",
  "Anything urgent in mail?",
  "Reply to my manager.",
  "Post the release notes in the dev channel on chat.",
  "Close the done cards on the board.",
  "Plan tomorrow.",
  "What changed in the project files today?",
  "Review the diff.",
  "Run the linter.",
  "Push the branch.",
  "Wrap up: what still needs my attention?"
]

/**
 * The five apps at a turn (0 = the start of the day).
 *
 * @category constructors
 * @since 0.1.0
 */
export const appsAt = (turn: number): ReadonlyArray<App> => [
  { id: "board", name: "Sprint board", tree: board(turn) },
  { id: "mail", name: "Mail", tree: mail(turn) },
  { id: "ci", name: "CI", tree: ci(turn) },
  { id: "chat", name: "Team chat", tree: chat(turn) },
  { id: "files", name: "Project files", tree: files(turn) }
]

/**
 * The 50 scripted turns. Trees are rebuilt only where they change, so an unchanged app keeps its tree object.
 *
 * @category constructors
 * @since 0.1.0
 */
export const turns = (): ReadonlyArray<Turn> => {
  const out: Array<Turn> = []
  let previous = appsAt(0)
  const changesAt = (turn: number): ReadonlySet<string> => {
    const ids = new Set(["mail", "chat"])
    if (turn === 30) ids.add("board")
    if (turn === 20 || turn === 35 || turn % 7 === 0) ids.add("ci")
    if (turn === 5) ids.add("files")
    return ids
  }
  for (let turn = 1; turn <= prompts.length; turn++) {
    const changed = changesAt(turn)
    const next = appsAt(turn)
    previous = previous.map((app, i) => (changed.has(app.id) ? next[i]! : app))
    out.push({ prompt: prompts[turn - 1]!, apps: previous })
  }
  return out
}
