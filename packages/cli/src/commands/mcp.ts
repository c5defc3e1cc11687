import type { JSONRPCMessage, JSONRPCRequest } from "@modelcontextprotocol/sdk/types.js"
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
    const [{ StdioServerTransport }, { StreamableHTTPClientTransport, StreamableHTTPError }, { isJSONRPCRequest, isJSONRPCResultResponse }] = await Promise.all([
      import("@modelcontextprotocol/sdk/server/stdio.js"),
      import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
      import("@modelcontextprotocol/sdk/types.js")
    ])
    const connect = () =>
      new StreamableHTTPClientTransport(new URL(`${target.server}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${target.token}`, "user-agent": `lore-cli/${cliVersion} node/${process.versions.node} (mcp)` } }
      })
    let remote = connect()
    const local = new StdioServerTransport()
    const pendingInitialize = new Set<string | number>()
    const diagnose = (message: string) => process.stderr.write(`lore mcp: ${message}\n`)
    /** The agent's initialize request, replayed when the server no longer knows the session (it restarted, or ended it). */
    let initialize: JSONRPCRequest | undefined
    let reinitializations = 0
    let closed = false

    await new Promise<void>((resolve, reject) => {
      const close = () => {
        if (closed) return
        closed = true
        // Ends the server's session (DELETE), then the streams.
        remote.terminateSession().catch(() => undefined)
          .then(() => Promise.allSettled([remote.close(), local.close()]))
          .then(() => resolve(), reject)
      }
      // Closing aborts the notification stream: that is no error to report.
      const report = (error: Error) => (closed || error.name === "AbortError" ? undefined : diagnose(error.message))

      const wire = (transport: InstanceType<typeof StreamableHTTPClientTransport>) => {
        transport.onmessage = (message: JSONRPCMessage) => {
          // The protocol version agreed at initialize goes on every later HTTP request (MCP-Protocol-Version).
          if (isJSONRPCResultResponse(message) && pendingInitialize.delete(message.id)) {
            const version = (message.result as { protocolVersion?: unknown }).protocolVersion
            if (typeof version === "string") transport.setProtocolVersion(version)
            // A replayed initialize is the relay's own: its answer is not the agent's.
            if (typeof message.id === "string" && message.id.startsWith("lore-mcp-reinitialize-")) return
          }
          void local.send(message)
        }
        transport.onerror = report
      }

      /** A new session with the agent's own initialize, so the agent goes on as if nothing happened. */
      const reinitialize = async () => {
        const previous = remote
        remote = connect()
        wire(remote)
        await previous.close().catch(() => undefined)
        await remote.start()
        const id = `lore-mcp-reinitialize-${++reinitializations}`
        pendingInitialize.add(id)
        await remote.send({ ...initialize!, id })
        await remote.send({ jsonrpc: "2.0", method: "notifications/initialized" })
        diagnose("the server no longer knew the session; started a new one")
      }

      let reinitializing: Promise<void> | undefined
      const relay = async (message: JSONRPCMessage, retried = false): Promise<void> => {
        const used = remote
        try {
          await used.send(message)
        } catch (error) {
          const gone = error instanceof StreamableHTTPError && error.code === 404 && initialize !== undefined && used.sessionId !== undefined
          if (!gone || retried || closed) throw error
          // Messages that failed together share one new session.
          if (remote === used) reinitializing ??= reinitialize().finally(() => (reinitializing = undefined))
          await reinitializing
          return relay(message, true)
        }
      }

      local.onmessage = (message: JSONRPCMessage) => {
        if (isJSONRPCRequest(message) && message.method === "initialize") {
          initialize = message
          pendingInitialize.add(message.id)
        }
        relay(message).catch((error: unknown) => {
          const detail = error instanceof Error ? error.message : String(error)
          diagnose(detail)
          if (isJSONRPCRequest(message)) {
            void local.send({ jsonrpc: "2.0", id: message.id, error: { code: relayFailure, message: `The Lore server at ${target.server} did not answer: ${detail}` } })
          }
        })
      }
      wire(remote)
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
