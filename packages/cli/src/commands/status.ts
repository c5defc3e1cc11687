import { LoreApiError } from "@lore/sdk"
import { defineCommand, type Health, type Me } from "../command"
import type { LoreClient, Target } from "../context"
import { present } from "../output/present"
import { CliError, ExitCode, toCliError } from "../errors"
import { type Block, type Cell, styled, type View } from "../output/view"
import { meFields } from "../views/users"

export interface Status {
  readonly profile: string
  readonly server: string
  readonly serverSource: Target["serverSource"]
  /** Where the token came from: the LORE_TOKEN variable, the saved profile, or none. */
  readonly credentials: "env" | "profile" | "none"
  readonly health: Health
  readonly authenticated: boolean
  readonly user: Me | null
  /** Why the token was not accepted (a revoked or expired token, a deactivated user), when there was one. */
  readonly authError: { readonly status: number; readonly code: string; readonly detail: string; readonly requestId: string | null } | null
}

/**
 * Server health plus, when there is a token, who it belongs to. Works without login; a rejected token is
 * reported in the result rather than failing, because the server itself is fine. An unreachable or
 * failing server is an error (exit 7).
 */
export const status = async (lore: LoreClient, context: { readonly profile: string; readonly target: Target }): Promise<Status> => {
  const { target } = context
  const health = await lore.platform.health().catch((error: unknown) => {
    // "fetch failed" says nothing to a new user: say where we looked and how to start a server there.
    if (LoreApiError.is(error) && error.status === 0) {
      const reason = toCliError(error).detail
      throw new CliError(ExitCode.unreachable, error.code || "NETWORK_ERROR", `is the server running at ${target.server}? (lore serve starts one) — ${reason}`)
    }
    throw error
  })
  let user: Me | null = null
  let authError: Status["authError"] = null
  if (target.token) {
    try {
      user = await lore.me.get()
    } catch (error) {
      if (!LoreApiError.is(error) || (error.status !== 401 && error.status !== 403)) throw error
      authError = { status: error.status, code: error.code, detail: error.detail, requestId: error.requestId ?? null }
    }
  }
  return {
    profile: context.profile,
    server: target.server,
    serverSource: target.serverSource,
    credentials: target.tokenSource ?? "none",
    health,
    authenticated: user !== null,
    user,
    authError
  }
}

const sourceLabel: Record<Target["serverSource"], string> = { flag: "--server", env: "LORE_SERVER", profile: "profile", default: "default" }

/** `uptimeSeconds` -> `Uptime seconds`, for health facts this CLI does not know by name. */
const humanize = (key: string) => {
  const words = key.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase()
  return words.charAt(0).toUpperCase() + words.slice(1)
}

const healthTone = (value: string): Cell => (/^(ok|up|healthy|pass)$/i.test(value) ? styled(value, "success") : value)

/**
 * Vector search as the server runs it: only with an embedding model. Without one the vector store the
 * database could offer (pgvector, exact cosine) is unused, so it is not shown as if it were in use.
 */
const vectorSearchCell = (health: Health): Cell => {
  const search = health.vectorSearch
  const off = search === "off" || health.embeddingModel === "none"
  if (off) return styled("off: no embedding model, lexical (BM25) search only", "muted")
  return [search ?? health.vectorStore ?? "-", health.embeddingModel ? `with ${health.embeddingModel}` : ""].filter(Boolean).join(" ")
}

/** What to do about a rejected token: a deactivated user cannot fix it by logging in again. */
const authErrorBlocks = (result: Status): Array<Block> => {
  const error = result.authError!
  if (error.code === "USER_DEACTIVATED") {
    return [
      { kind: "message", tone: "error", text: `The user of this token${result.credentials === "profile" ? ` (${result.profile})` : ""} is deactivated: ${error.detail}` },
      { kind: "hint", text: "Logging in again will not help: an administrator can reactivate the user (lore admin users update <email> --active)." }
    ]
  }
  return [
    { kind: "message", tone: "error", text: `Token rejected: ${error.detail} (code ${error.code})` },
    { kind: "hint", text: `Log in again: lore login --server ${result.server} --token <token>` }
  ]
}

export const statusView = (result: Status): View => {
  const { health } = result
  const known = ["status", "version", "database", "databaseVersion", "vectorSearch", "vectorStore", "embeddingModel", "migrationLevel"]
  const healthFields: Array<readonly [string, Cell]> = [
    ["Status", healthTone(health.status ?? "unknown")],
    ["Version", health.version ?? "-"],
    ["Database", [health.database, health.databaseVersion].filter(Boolean).join(" ") || "-"],
    ["Vector search", vectorSearchCell(health)],
    ["Migration level", health.migrationLevel ?? "-"],
    ...Object.entries(health)
      .filter(([key]) => !known.includes(key))
      .map(([key, value]) => [humanize(key), String(value)] as const)
  ]
  const credentials = result.credentials === "env" ? "LORE_TOKEN" : result.credentials === "profile" ? "saved token" : "none"
  const login: Array<readonly [string, Cell]> = [["Profile", result.profile], ["Credentials", credentials], ...(result.user ? meFields(result.user) : [])]
  const view: Array<Block> = [
    { kind: "heading", text: "Server" },
    { kind: "fields", fields: [["URL", `${result.server} (${sourceLabel[result.serverSource]})`], ...healthFields] },
    { kind: "heading", text: "Login" },
    { kind: "fields", fields: login }
  ]
  if (result.authError) view.push(...authErrorBlocks(result))
  else if (!result.user) {
    view.push({ kind: "message", tone: "warning", text: "Not logged in" })
    view.push({ kind: "hint", text: `Log in: lore login --server ${result.server} --token <token>` })
  }
  return view
}

export default defineCommand({
  description: "show server health, the server URL, the profile and who you are (works without login)",
  helpGroup: "Getting started",
  examples: ["lore status", "lore --server https://lore.example.com status", "lore --json status | jq .health"],
  notes: "A rejected token is reported (authenticated: false, authError) with exit 0: the server is fine. An unreachable server exits 7.",
  run: async (runtime) => {
    const target = runtime.target()
    const lore = runtime.client()
    await present(runtime, { progress: `Checking ${target.server}`, run: () => status(lore, { profile: runtime.profileName, target }), view: statusView })
  }
})
