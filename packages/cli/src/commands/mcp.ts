import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import { defineCommand } from "../command"
import { cliVersion } from "../context"
import { notAuthenticated } from "../errors"

/** What a request failed with when the server could not answer it (unreachable, 401 after a revoked token). */
const relayFailure = -32000

export default defineCommand({
  description: "serve Lore's MCP tools, prompts and resources on stdio for a coding agent (relayed to the server's /mcp)",
  helpGroup: "Knowledge",
  examples: [
    "lore mcp                                      # the profile's server and token",
    "LORE_SERVER=https://lore.example.com LORE_TOKEN=lore_pat_... npx lore mcp"
  ],
  notes:
    "Speaks the Model Context Protocol on stdin/stdout: stdout carries protocol frames only, diagnostics go to stderr. " +
    "The server comes from --server, LORE_SERVER (or LORE_URL), then the profile; the token from LORE_TOKEN, then the profile. " +
    "It never prompts: without a token it exits 3 at once. Every message is relayed to <server>/mcp with the token, so the " +
    "tools answer exactly what the server's /mcp answers for that user.",
  run: async (runtime) => {
    const target = runtime.target()
    if (!target.token) {
      throw notAuthenticated(`no token for ${target.server} (profile ${runtime.profileName}): set LORE_TOKEN or run 'lore login --server ${target.server} --token <token>'`)
    }
    // Loaded here, not with the program: every other command starts without the MCP SDK (and zod).
    const [{ StdioServerTransport }, { StreamableHTTPClientTransport }, { isJSONRPCRequest, isJSONRPCResultResponse }] = await Promise.all([
      import("@modelcontextprotocol/sdk/server/stdio.js"),
      import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
      import("@modelcontextprotocol/sdk/types.js")
    ])
    const remote = new StreamableHTTPClientTransport(new URL(`${target.server}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${target.token}`, "user-agent": `lore-cli/${cliVersion} node/${process.versions.node} (mcp)` } }
    })
    const local = new StdioServerTransport()
    const pendingInitialize = new Set<string | number>()
    const diagnose = (message: string) => process.stderr.write(`lore mcp: ${message}\n`)

    await new Promise<void>((resolve, reject) => {
      let closed = false
      const close = () => {
        if (closed) return
        closed = true
        // Ends the server's session (DELETE), then the streams.
        remote.terminateSession().catch(() => undefined)
          .then(() => Promise.allSettled([remote.close(), local.close()]))
          .then(() => resolve(), reject)
      }
      local.onmessage = (message: JSONRPCMessage) => {
        if (isJSONRPCRequest(message) && message.method === "initialize") pendingInitialize.add(message.id)
        remote.send(message).catch((error: unknown) => {
          const detail = error instanceof Error ? error.message : String(error)
          diagnose(detail)
          if (isJSONRPCRequest(message)) {
            void local.send({ jsonrpc: "2.0", id: message.id, error: { code: relayFailure, message: `The Lore server at ${target.server} did not answer: ${detail}` } })
          }
        })
      }
      remote.onmessage = (message: JSONRPCMessage) => {
        // The protocol version agreed at initialize goes on every later HTTP request (MCP-Protocol-Version).
        if (isJSONRPCResultResponse(message) && pendingInitialize.delete(message.id)) {
          const version = (message.result as { protocolVersion?: unknown }).protocolVersion
          if (typeof version === "string") remote.setProtocolVersion(version)
        }
        void local.send(message)
      }
      // Closing aborts the notification stream: that is no error to report.
      const report = (error: Error) => (closed || error.name === "AbortError" ? undefined : diagnose(error.message))
      remote.onerror = report
      local.onerror = report
      local.onclose = close
      // The agent closing stdin ends the relay (the stdio transport itself does not watch for the end).
      process.stdin.once("end", close)
      remote.start().then(() => local.start()).catch((error: unknown) => {
        closed = true
        reject(error)
      })
    })
  }
})
