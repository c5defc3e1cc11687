import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js"
import {
  CallToolRequestSchema, ErrorCode, GetPromptRequestSchema, ListPromptsRequestSchema, ListResourcesRequestSchema, ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema, McpError, ReadResourceRequestSchema
} from "@modelcontextprotocol/sdk/types.js"
import { Effect, type Runtime } from "effect"
import { quoteInput } from "../domain/Echo"
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

/** Who sent the HTTP request being answered and the request fiber's runtime (its request id reaches the audit trail). */
export interface RequestContext {
  readonly caller: Principal
  readonly runtime: Runtime.Runtime<never>
}

/** The request's context as the transport hands it to a handler (HTTP: authInfo of handleRequest). */
export const authInfoOf = (context: RequestContext): AuthInfo => ({
  token: "",
  clientId: context.caller.userId,
  scopes: [],
  extra: { lore: context }
})

const contextOf = (extra: { authInfo?: AuthInfo | undefined }): RequestContext => {
  const context = extra.authInfo?.extra?.lore as RequestContext | undefined
  // Every request reaches the transport with its authenticated caller (mcp/Http.ts); anything else is a bug.
  if (!context) throw new McpError(ErrorCode.InternalError, "The request reached MCP without an authenticated caller")
  return context
}

/**
 * Makes MCP servers. A server holds no caller: each handler reads the caller of the HTTP request it answers
 * (authenticated on every request by mcp/Http.ts), so a session outlives no revoked token or deactivated user.
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

  const make = () => {
    const server = new Server(
      { name: "lore", title: "Lore", version: LORE_VERSION },
      { capabilities: { tools: { listChanged: false }, prompts: { listChanged: true }, resources: { listChanged: false, subscribe: false } }, instructions: MCP_INSTRUCTIONS }
    )
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }))
    server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
      const { caller, runtime } = contextOf(extra)
      const tool = byName.get(request.params.name)
      if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool ${quoteInput(request.params.name, 64)} (tools: ${[...byName.keys()].join(", ")})`)
      return toolResult(runtime, tool.run(caller, request.params.arguments))
    })
    server.setRequestHandler(ListPromptsRequestSchema, (_, extra) => {
      const { caller, runtime } = contextOf(extra)
      return protocolResult(runtime, prompts.list(caller), ErrorCode.InvalidParams)
    })
    server.setRequestHandler(GetPromptRequestSchema, (request, extra) => {
      const { caller, runtime } = contextOf(extra)
      return protocolResult(runtime, prompts.get(caller, request.params.name, request.params.arguments ?? {}), ErrorCode.InvalidParams)
    })
    server.setRequestHandler(ListResourcesRequestSchema, (request, extra) => {
      const { caller, runtime } = contextOf(extra)
      return protocolResult(runtime, resources.list(caller, request.params?.cursor), RESOURCE_NOT_FOUND)
    })
    server.setRequestHandler(ListResourceTemplatesRequestSchema, () => resources.templates())
    server.setRequestHandler(ReadResourceRequestSchema, (request, extra) => {
      const { caller, runtime } = contextOf(extra)
      return protocolResult(runtime, resources.read(caller, request.params.uri), RESOURCE_NOT_FOUND)
    })
    return server
  }

  /** What prompts/list would answer the caller, as one string: a session is told of a change when it differs. */
  const promptsFingerprint = (caller: Principal) => Effect.map(prompts.list(caller), (list) => JSON.stringify(list.prompts))

  return { make, promptsFingerprint }
})
