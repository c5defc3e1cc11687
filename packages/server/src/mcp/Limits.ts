import { quoteInput } from "../domain/Echo"

/**
 * Limits of what /mcp takes (docs/security.md): one JSON-RPC message or batch is small (the largest legitimate
 * argument, a knowledge_search query, is at most 10,000 characters), so a body over MCP_MAX_BODY_BYTES is refused
 * before it is parsed, and a parsed body nested deeper than MCP_MAX_DEPTH, or a batch of more than
 * MCP_MAX_BATCH messages, before the SDK or a schema walks it.
 */
export const MCP_MAX_BODY_BYTES = 256 * 1024
export const MCP_MAX_DEPTH = 32
export const MCP_MAX_BATCH = 32
/** A JSON-RPC id the answer repeats: a number, or a string this short (absent or null for notifications). */
export const MCP_MAX_ID_CHARS = 128
export const acceptableId = (id: unknown) =>
  id === undefined || id === null || (typeof id === "number" && Number.isFinite(id)) || (typeof id === "string" && id.length <= MCP_MAX_ID_CHARS)

/** Field errors a tool refusal names at most (20,000 unexpected keys make one short answer, not 20,000 lines). */
export const MCP_MAX_FIELD_ERRORS = 10

/** Whether a parsed JSON value nests deeper than `limit` (arrays and objects), walked without recursion. */
export const nestedDeeperThan = (value: unknown, limit: number): boolean => {
  const stack: Array<[unknown, number]> = [[value, 0]]
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!
    if (typeof current !== "object" || current === null) continue
    if (depth >= limit) return true
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (typeof child === "object" && child !== null) stack.push([child, depth + 1])
    }
  }
  return false
}

/**
 * The last guard on what /mcp answers: a JSON-RPC error's message, whoever wrote it (the SDK's own messages may
 * quote a header or a parameter), is cut to what quoteInput allows. Lore's own refusals are in `data` and were
 * written with quoted input at their source. Anything else is returned as it came.
 */
export const capErrorMessages = (body: unknown): unknown => {
  const cap = (message: unknown) => {
    if (typeof message !== "object" || message === null) return message
    const error = (message as { error?: unknown }).error
    if (typeof error !== "object" || error === null) return message
    const { message: text } = error as { message?: unknown }
    if (typeof text !== "string") return message
    return { ...message, error: { ...error, message: quoteInput(text) } }
  }
  return Array.isArray(body) ? body.map(cap) : cap(body)
}
