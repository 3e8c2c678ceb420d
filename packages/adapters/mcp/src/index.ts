/**
 * @heed/mcp: MCP tools, resources and prompts for the awareness service, on effect/ai/McpServer.
 *
 * @since 0.1.0
 */

/**
 * The registrations layer and ready-made stdio and Streamable HTTP servers.
 *
 * @since 0.1.0
 */
export * as AwarenessMcp from "./AwarenessMcp.ts"

/**
 * How the MCP layers find the `Awareness` service for a request (one owner, or one per bearer token).
 *
 * @since 0.1.0
 */
export * as AwarenessResolver from "./AwarenessResolver.ts"

/**
 * Briefing change notifications (`notifications/resources/updated` for `awareness://briefing`).
 *
 * @since 0.1.0
 */
export * as BriefingNotifier from "./BriefingNotifier.ts"

/**
 * The server instructions.
 *
 * @since 0.1.0
 */
export * as Instructions from "./Instructions.ts"

/**
 * The prompts `agent_instructions`, `system_status`, `catchup`.
 *
 * @since 0.1.0
 */
export * as Prompts from "./Prompts.ts"

/**
 * The resources and their tool mirrors.
 *
 * @since 0.1.0
 */
export * as Resources from "./Resources.ts"

/**
 * Upstream's structured JSON error body with did-you-mean suggestions.
 *
 * @since 0.1.0
 */
export * as ToolError from "./ToolError.ts"

/**
 * The tools on `effect/ai/McpServer`.
 *
 * @since 0.1.0
 */
export * as Tools from "./Tools.ts"
