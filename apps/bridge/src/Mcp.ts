/**
 * heed-bridge's MCP surface on `effect/ai/McpServer`: SLOP's fixed tools (`list_apps`, `connect_app`,
 * `disconnect_app`, `app_action`, `app_action_batch`) plus `get_state`; with `dynamic` tools, one tool per affordance
 * named as SLOP names them (`{app}__{node}__{action}`, grouped by action and schema with a `target` parameter); the
 * resources `slop://apps` and `slop://apps/{id}` (the budgeted view), updated only on salient changes.
 *
 * @since 0.1.0
 */
import { readFileSync } from "node:fs"
import type { Node } from "@heed/state-tree"
import { Consumer } from "@heed/state-tree"
import * as McpSchema from "effect/ai/McpSchema"
import * as McpServer from "effect/ai/McpServer"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Bridge from "./Bridge.ts"

/**
 * The bridge in context.
 *
 * @category services
 * @since 0.1.0
 */
export class BridgeService extends Context.Service<BridgeService, Bridge.Bridge>()("@heed/bridge/Bridge") {}

/**
 * Hooks the bridge calls on changes, filled in by {@link registrations} once the MCP server exists.
 *
 * @category models
 * @since 0.1.0
 */
export interface Hooks {
  salient: (id: string) => Effect.Effect<void>
  changed: (id: string) => Effect.Effect<void>
}

/**
 * Hooks that do nothing until {@link registrations} replaces them.
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeHooks = (): Hooks => ({ salient: () => Effect.void, changed: () => Effect.void })

/**
 * The server name reported in `initialize`.
 *
 * @category constants
 * @since 0.1.0
 */
export const serverName = "heed-bridge"

/**
 * The server version reported in `initialize` (and by `--version`): the app's package.json version.
 *
 * @category constants
 * @since 0.1.0
 */
export const serverVersion: string = JSON.parse(
  readFileSync(new URL("../package.json", import.meta.url), "utf8")
).version

/**
 * The server's instructions to the agent.
 *
 * @category constants
 * @since 0.1.0
 */
export const instructions =
  "heed-bridge shows the SLOP apps running on this machine (boards, mail, CI, chats, editors...) inside one token " +
  "budget. Read slop://apps (or rely on the injected context) for what matters now; a stub means an app you have not " +
  "mentioned lately (mention it to expand it). Drill into a cut subtree with get_state(app, path). Change an app " +
  "with app_action(app, path, action, params); list_apps shows every app, connect_app connects one."

const text = (body: string, isError = false) =>
  new McpSchema.CallToolResult({ content: [{ type: "text", text: body }], ...(isError ? { isError: true } : {}) })

const failure = (error: Bridge.BridgeError | string) =>
  text(typeof error === "string" ? error : `${error.code}: ${error.message}`, true)

const schema = (properties: Record<string, unknown>, required: ReadonlyArray<string>) =>
  ({ type: "object", properties, required, additionalProperties: false }) as unknown as McpSchema.Tool["inputSchema"]

const appParam = { type: "string", description: "The app id, as list_apps shows it" }

/** Reads a required string argument, or says what is wrong with it. */
const needString = (args: Record<string, unknown>, field: string): string | Bridge.BridgeError => {
  const value = args[field]
  return typeof value === "string" && value !== ""
    ? value
    : new Bridge.BridgeError({ code: "invalid_params", message: `${field}: must be a non-empty string` })
}

const optionalInt = (
  args: Record<string, unknown>,
  field: string,
  min: number
): number | undefined | Bridge.BridgeError => {
  const value = args[field]
  if (value === undefined) return undefined
  return typeof value === "number" && Number.isInteger(value) && value >= min
    ? value
    : new Bridge.BridgeError({ code: "invalid_params", message: `${field}: must be an integer >= ${min}` })
}

const isError = (value: unknown): value is Bridge.BridgeError => value instanceof Bridge.BridgeError

const paramsOf = (args: Record<string, unknown>): Record<string, unknown> | undefined | Bridge.BridgeError => {
  const params = args.params
  if (params === undefined) return undefined
  return typeof params === "object" && params !== null && !Array.isArray(params)
    ? (params as Record<string, unknown>)
    : new Bridge.BridgeError({ code: "invalid_params", message: "params: must be an object" })
}

/**
 * The affordances of a tree as lines `path action(params) [DANGEROUS]`, at most `limit` (then how many more).
 *
 * @category getters
 * @since 0.1.0
 */
export const actionsOf = (tree: Node.Node, limit = 40): string => {
  const lines: Array<string> = []
  let total = 0
  const walk = (node: Node.Node, path: string) => {
    for (const affordance of node.affordances ?? []) {
      total++
      if (lines.length >= limit) continue
      const params = Object.keys(
        ((affordance.params as { properties?: Record<string, unknown> } | undefined)?.properties ?? {}) as object
      )
      lines.push(
        `${path === "" ? "/" : path} ${affordance.action}(${params.join(", ")})${affordance.dangerous ? " [DANGEROUS]" : ""}`
      )
    }
    for (const child of node.children ?? []) walk(child, `${path}/${child.id}`)
  }
  walk(tree, "")
  if (total > lines.length) lines.push(`(${total - lines.length} more actions: get_state shows them where they are)`)
  return lines.join("\n")
}

const listText = (apps: ReadonlyArray<Bridge.AppInfo>) =>
  apps.length === 0
    ? "No SLOP apps found. Providers announce themselves in ~/.slop/providers/ or /tmp/slop/providers/."
    : apps
        .map(
          (app) =>
            `${app.id}: ${app.name} (${app.status}, ${app.band}, ${app.nodes} nodes, ${app.transport})${
              app.problem !== undefined ? ` problem: ${app.problem}` : ""
            }`
        )
        .join("\n")

type Handler = (args: Record<string, unknown>) => Effect.Effect<McpSchema.CallToolResult>

const tool = (
  server: McpServer.McpServer["Service"],
  name: string,
  description: string,
  inputSchema: McpSchema.Tool["inputSchema"],
  handle: Handler,
  hints: { readonly readOnly?: boolean; readonly destructive?: boolean } = {}
) =>
  server.addTool({
    tool: new McpSchema.Tool({
      name,
      description,
      inputSchema,
      annotations: {
        readOnlyHint: hints.readOnly ?? false,
        destructiveHint: hints.destructive ?? false,
        openWorldHint: false
      }
    }),
    annotations: Context.empty(),
    handle: (payload: unknown) =>
      handle(typeof payload === "object" && payload !== null ? (payload as Record<string, unknown>) : {})
  })

const invokeOne = (bridge: Bridge.Bridge, args: Record<string, unknown>) =>
  Effect.gen(function* () {
    const app = needString(args, "app")
    const path = needString(args, "path")
    const action = needString(args, "action")
    const params = paramsOf(args)
    for (const value of [app, path, action, params]) if (isError(value)) return yield* value
    const result = yield* bridge.invoke(
      app as string,
      path as string,
      action as string,
      params as Record<string, unknown> | undefined
    )
    return `${result.status}${result.data !== undefined ? ` ${JSON.stringify(result.data)}` : ""}`
  })

/**
 * Registers the fixed tools and the resources on the `McpServer` in context.
 *
 * @category constructors
 * @since 0.1.0
 */
export const registerFixed = Effect.gen(function* () {
  const server = yield* McpServer.McpServer
  const bridge = yield* BridgeService
  yield* tool(
    server,
    "list_apps",
    "List the SLOP apps on this machine: id, name, connection status, attention band, node count.",
    schema({}, []),
    () => Effect.map(bridge.list, (apps) => text(listText(apps))),
    { readOnly: true }
  )
  yield* tool(
    server,
    "connect_app",
    "Connect to an app (if needed) and return its state at its budget and its actions.",
    schema({ app: appParam }, ["app"]),
    (args) =>
      Effect.gen(function* () {
        const id = needString(args, "app")
        if (isError(id)) return failure(id)
        const connected = yield* Effect.result(bridge.connect(id))
        if (connected._tag === "Failure") return failure(connected.failure)
        const tree = yield* Effect.result(bridge.tree(id))
        const state = yield* Effect.result(bridge.state(id, {}))
        if (tree._tag === "Failure") return failure(tree.failure)
        if (state._tag === "Failure") return failure(state.failure)
        return text(
          `Connected to ${connected.success.name} [${id}].\n\n${state.success}\n\nActions:\n${actionsOf(tree.success)}`
        )
      })
  )
  yield* tool(
    server,
    "disconnect_app",
    "Disconnect from an app (it stays listed; connect_app connects it again).",
    schema({ app: appParam }, ["app"]),
    (args) =>
      Effect.gen(function* () {
        const id = needString(args, "app")
        if (isError(id)) return failure(id)
        const done = yield* Effect.result(bridge.disconnect(id))
        return done._tag === "Failure" ? failure(done.failure) : text(`Disconnected from ${id}.`)
      })
  )
  const actionSchema = {
    app: appParam,
    path: { type: "string", description: "The node's SLOP path, e.g. /todos/t1" },
    action: { type: "string", description: "The affordance to invoke, e.g. toggle" },
    params: { type: "object", description: "The action's parameters, per its schema" }
  }
  yield* tool(
    server,
    "app_action",
    "Invoke an action (affordance) on a node of an app.",
    schema(actionSchema, ["app", "path", "action"]),
    (args) => Effect.match(invokeOne(bridge, args), { onFailure: failure, onSuccess: (result) => text(result) })
  )
  yield* tool(
    server,
    "app_action_batch",
    "Invoke several actions in order; each gets its own result line.",
    schema(
      {
        actions: {
          type: "array",
          items: { type: "object", properties: actionSchema, required: ["app", "path", "action"] }
        }
      },
      ["actions"]
    ),
    (args) =>
      Effect.gen(function* () {
        const actions = args.actions
        if (!Array.isArray(actions) || actions.length === 0) {
          return failure("invalid_params: actions: must be a non-empty array of { app, path, action, params }")
        }
        const lines: Array<string> = []
        let failed = 0
        for (let i = 0; i < actions.length; i++) {
          const entry = actions[i]
          const outcome = yield* Effect.result(
            invokeOne(bridge, typeof entry === "object" && entry !== null ? (entry as Record<string, unknown>) : {})
          )
          if (outcome._tag === "Failure") failed++
          lines.push(
            `${i + 1}. ${outcome._tag === "Success" ? outcome.success : `error ${outcome.failure.code}: ${outcome.failure.message}`}`
          )
        }
        return text(lines.join("\n"), failed === actions.length)
      })
  )
  yield* tool(
    server,
    "get_state",
    "An app's state (or a subtree at path) in SLOP's text format, fitted to max_tokens (default: the bridge budget). " +
      "Use it to drill into what the injected view cut.",
    schema(
      {
        app: appParam,
        path: { type: "string", description: "Subtree path (default /)" },
        depth: { type: "integer", description: "Levels below the path (-1 = all, the default)" },
        max_tokens: { type: "integer", description: "Token budget for the answer" },
        window: {
          type: "array",
          items: { type: "integer" },
          minItems: 2,
          maxItems: 2,
          description: "[offset, count] of the path's children"
        }
      },
      ["app"]
    ),
    (args) =>
      Effect.gen(function* () {
        const id = needString(args, "app")
        if (isError(id)) return failure(id)
        const path = args.path
        if (path !== undefined && typeof path !== "string") return failure("invalid_params: path: must be a string")
        const depth = optionalInt(args, "depth", -1)
        const maxTokens = optionalInt(args, "max_tokens", 1)
        if (isError(depth)) return failure(depth)
        if (isError(maxTokens)) return failure(maxTokens)
        const window = args.window
        if (
          window !== undefined &&
          !(Array.isArray(window) && window.length === 2 && window.every((n) => Number.isInteger(n) && n >= 0))
        ) {
          return failure("invalid_params: window: must be [offset, count], two integers >= 0")
        }
        const state = yield* Effect.result(
          bridge.state(id, {
            path: path as string | undefined,
            depth,
            max_tokens: maxTokens,
            window: window as readonly [number, number] | undefined
          })
        )
        return state._tag === "Failure" ? failure(state.failure) : text(state.success)
      }),
    { readOnly: true }
  )
  yield* McpServer.registerResource({
    uri: "slop://apps",
    name: "apps",
    description: "Every connected SLOP app inside the bridge's token budget (what the prompt hook injects).",
    mimeType: "text/plain",
    content: Effect.map(bridge.peek, (plan) => plan.text || listText([]))
  })
  yield* McpServer.registerResource`slop://apps/${McpSchema.param("id", Schema.String)}`({
    name: "app",
    description: "One app's budgeted view.",
    mimeType: "text/plain",
    content: (_uri, id) =>
      Effect.map(bridge.peek, (plan) => Bridge.sectionOf(plan, decodeURIComponent(id)) ?? `no connected app "${id}"`)
  })
})

/**
 * The minimal JSON Schema check of a dynamic tool's arguments: required keys present, types (`string`, `number`,
 * `integer`, `boolean`, `object`, `array`) and `enum` respected. Returns the problem naming the field, or
 * `undefined`.
 *
 * @category guards
 * @since 0.1.0
 */
export const validate = (schema: Node.JsonSchema | undefined, args: Record<string, unknown>): string | undefined => {
  if (schema === undefined) return undefined
  for (const key of schema.required ?? []) if (args[key] === undefined) return `${key}: is required`
  for (const [key, value] of Object.entries(args)) {
    const property = schema.properties?.[key] as Node.JsonSchema | undefined
    if (property === undefined) continue
    const type = property.type
    const ok =
      type === undefined ||
      (type === "string" && typeof value === "string") ||
      (type === "number" && typeof value === "number") ||
      (type === "integer" && Number.isInteger(value)) ||
      (type === "boolean" && typeof value === "boolean") ||
      (type === "array" && Array.isArray(value)) ||
      (type === "object" && typeof value === "object" && value !== null && !Array.isArray(value))
    if (!ok)
      return `${key}: must be ${type === "integer" || type === "array" || type === "object" ? `an ${type}` : `a ${type}`}`
    if (property.enum !== undefined && !property.enum.some((allowed) => allowed === value)) {
      return `${key}: must be one of ${property.enum.map((v) => JSON.stringify(v)).join(", ")}`
    }
  }
  return undefined
}

/**
 * Registers one tool per affordance of every connected app (SLOP's naming, prefixed with the app id), and keeps
 * registering new ones as trees change. A tool whose affordance went away answers with an error saying so.
 *
 * @category constructors
 * @since 0.1.0
 */
export const registerDynamic = (hooks: Hooks) =>
  Effect.gen(function* () {
    const server = yield* McpServer.McpServer
    const bridge = yield* BridgeService
    const toolSets = new Map<string, Consumer.ToolSet>()
    const registered = new Set<string>()
    const call = (name: string, args: Record<string, unknown>) =>
      Effect.gen(function* () {
        for (const [app, set] of toolSets) {
          const resolved = set.resolve(name)
          if (resolved === undefined) continue
          const definition = set.tools.find((t) => t.name === name)
          let path = resolved.path
          const params = { ...args }
          if (path === null) {
            const target = params.target
            delete params.target
            if (typeof target !== "string" || !("targets" in resolved) || !resolved.targets.includes(target)) {
              return failure(
                `invalid_params: target: must be one of ${"targets" in resolved ? resolved.targets.join(", ") : "the listed paths"}`
              )
            }
            path = target
          }
          const schemaFor = definition?.inputSchema
          const problem = validate(
            schemaFor === undefined
              ? undefined
              : { ...schemaFor, required: (schemaFor.required ?? []).filter((key) => key !== "target") },
            params
          )
          if (problem !== undefined) return failure(`invalid_params: ${problem}`)
          const result = yield* Effect.result(bridge.invoke(app, path, resolved.action, params))
          return result._tag === "Failure" ? failure(result.failure) : text(result.success.status)
        }
        return failure(`not_found: ${name} is no longer offered (the app changed); list the tools again`)
      })
    const refresh = (id: string) =>
      Effect.gen(function* () {
        const tree = yield* Effect.result(bridge.tree(id))
        if (tree._tag === "Failure") {
          toolSets.delete(id)
          return
        }
        const set = Consumer.tools(tree.success, { provider: id })
        toolSets.set(id, set)
        for (const definition of set.tools) {
          if (registered.has(definition.name)) continue
          registered.add(definition.name)
          yield* tool(
            server,
            definition.name,
            definition.description,
            definition.inputSchema as unknown as McpSchema.Tool["inputSchema"],
            (args) => call(definition.name, args),
            { destructive: definition.dangerous }
          )
        }
      })
    const previous = hooks.changed
    hooks.changed = (id) => Effect.andThen(previous(id), refresh(id))
    for (const id of yield* bridge.connected) yield* refresh(id)
  })

/**
 * Every registration: the fixed tools, the resources, the dynamic tools when asked, and the `resources/updated`
 * notifications of salient changes (for `slop://apps` and the app's own resource).
 *
 * @category layers
 * @since 0.1.0
 */
export const registrations = (
  hooks: Hooks,
  options: { readonly dynamicTools?: boolean | undefined } = {}
): Layer.Layer<never, never, McpServer.McpServer | BridgeService> =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const server = yield* McpServer.McpServer
      yield* registerFixed
      if (options.dynamicTools === true) yield* registerDynamic(hooks)
      hooks.salient = (id) =>
        Effect.gen(function* () {
          yield* server.notifications["notifications/resources/updated"]({ uri: "slop://apps" })
          yield* server.notifications["notifications/resources/updated"]({
            uri: `slop://apps/${encodeURIComponent(id)}`
          })
        }).pipe(Effect.ignore)
    })
  )
