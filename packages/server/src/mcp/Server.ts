import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import {
  CallToolRequestSchema, ErrorCode, GetPromptRequestSchema, ListPromptsRequestSchema, ListResourcesRequestSchema, ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema, McpError, ReadResourceRequestSchema
} from "@modelcontextprotocol/sdk/types.js"
import { Effect, type Runtime } from "effect"
import type { Principal } from "../domain/Principal"
import { LORE_VERSION } from "../platform/Version"
import { makePrompts } from "./Prompts"
import { makeResources, RESOURCE_NOT_FOUND } from "./Resources"
import { protocolResult, toolResult } from "./Results"
import { makeTools } from "./Tools"

export const MCP_INSTRUCTIONS =
  "Lore is the organization's knowledge base and registry of governed AI assets. Use knowledge_search to find passages " +
  "(cite their citationId; citation_excerpt gives the text around one), assets_recommend or assets_list to find released prompts, " +
  "work instructions and skills, asset_show for one asset's content, prompt_render and work_instruction_read to use them. " +
  "Everything answered is what the signed-in user may read."

/**
 * The MCP server for one caller, made per HTTP request (the transport is stateless; `lore mcp` relays stdio to
 * it). Handlers run Lore's services as Effects on `runtime`, the request fiber's runtime, so the request id
 * reaches the audit trail.
 */
export const makeMcpServerFactory = Effect.gen(function* () {
  const tools = yield* makeTools
  const prompts = yield* makePrompts
  const resources = yield* makeResources
  const byName = new Map(tools.map((tool) => [tool.name, tool]))
  const listed = tools.map(({ name, title, description, inputSchema }) => ({
    name,
    title,
    description,
    inputSchema,
    annotations: { title, readOnlyHint: true, openWorldHint: false }
  }))

  return (caller: Principal, runtime: Runtime.Runtime<never>) => {
    const server = new Server(
      { name: "lore", title: "Lore", version: LORE_VERSION },
      { capabilities: { tools: { listChanged: false }, prompts: { listChanged: false }, resources: { listChanged: false, subscribe: false } }, instructions: MCP_INSTRUCTIONS }
    )
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }))
    server.setRequestHandler(CallToolRequestSchema, (request) => {
      const tool = byName.get(request.params.name)
      if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool ${request.params.name} (tools: ${[...byName.keys()].join(", ")})`)
      return toolResult(runtime, tool.run(caller, request.params.arguments))
    })
    server.setRequestHandler(ListPromptsRequestSchema, () => protocolResult(runtime, prompts.list(caller), ErrorCode.InvalidParams))
    server.setRequestHandler(GetPromptRequestSchema, (request) =>
      protocolResult(runtime, prompts.get(caller, request.params.name, request.params.arguments ?? {}), ErrorCode.InvalidParams))
    server.setRequestHandler(ListResourcesRequestSchema, () => protocolResult(runtime, resources.list(caller), RESOURCE_NOT_FOUND))
    server.setRequestHandler(ListResourceTemplatesRequestSchema, () => resources.templates())
    server.setRequestHandler(ReadResourceRequestSchema, (request) => protocolResult(runtime, resources.read(caller, request.params.uri), RESOURCE_NOT_FOUND))
    return server
  }
})
