/**
 * @heed/mcp: MCP tools, resources and prompts for the awareness service, on effect/ai/McpServer.
 *
 * @since 0.1.0
 */
export {}
