import type { AuthTestResponse, ConversationsListResponse } from "@slack/web-api"
import { createHash } from "node:crypto"
import type { FieldError } from "../../domain/Errors"
import type { SlackClient } from "./Client"
import { isChannelId } from "./Config"
import { type Directory, readDirectory } from "./Directory"

/** The workspace a token belongs to (auth.test): its team id and its address, which permalinks are built on. */
export interface Workspace {
  readonly teamId: string
  readonly teamName: string
  /** `https://acme.slack.com/`: a thread's permalink is `{url}archives/{channel}/p{ts without the dot}`. */
  readonly url: string
  readonly botUserId: string | null
}

export const workspaceOf = async (client: SlackClient): Promise<Workspace> => {
  const found: AuthTestResponse = await client.call("auth.test", (web) => web.auth.test())
  let url = "https://slack.com/"
  try {
    const parsed = new URL(found.url ?? "")
    if (parsed.protocol === "https:" || parsed.protocol === "http:") url = parsed.origin + "/"
  } catch {
    // Permalinks fall back to Slack's own host.
  }
  return { teamId: found.team_id ?? "unknown", teamName: found.team ?? found.team_id ?? "Slack", url, botUserId: found.user_id ?? null }
}

export const permalinkOf = (workspace: Workspace, channelId: string, ts: string) =>
  `${workspace.url}archives/${encodeURIComponent(channelId)}/p${ts.replace(".", "")}`

const MAX_LIST_PAGES = 200

/** Every channel the app may see (conversations.list, public and private, archived left out), by name. */
export const channelIdsByName = async (client: SlackClient): Promise<ReadonlyMap<string, string>> => {
  const byName = new Map<string, string>()
  let cursor: string | undefined
  for (let pages = 0; pages < MAX_LIST_PAGES; pages++) {
    const page: ConversationsListResponse = await client.call("conversations.list", (web) =>
      web.conversations.list({ types: "public_channel,private_channel", exclude_archived: true, limit: 999, ...(cursor ? { cursor } : {}) }))
    for (const channel of page.channels ?? []) if (channel.id && channel.name) byName.set(channel.name, channel.id)
    cursor = page.response_metadata?.next_cursor || undefined
    if (!cursor) break
  }
  return byName
}

/**
 * Channel names as ids: each name looked up in conversations.list; a name Slack does not know (or a private channel
 * the app is not in) is a field error naming `sourceConfig.channels[i]`. Ids are kept as given.
 */
export const resolveChannelNames = async (client: SlackClient, channels: ReadonlyArray<string>): Promise<{ readonly channels: ReadonlyArray<string> } | { readonly errors: ReadonlyArray<FieldError> }> => {
  if (channels.every(isChannelId)) return { channels }
  const byName = await channelIdsByName(client)
  const errors: Array<FieldError> = []
  const resolved = channels.map((channel, i) => {
    if (isChannelId(channel)) return channel
    const id = byName.get(channel)
    if (!id) errors.push({ path: `sourceConfig.channels[${i}]`, message: "is not a channel the Slack app can see: check the name, or invite the app to the private channel" })
    return id ?? channel
  })
  return errors.length > 0 ? { errors } : { channels: [...new Set(resolved)] }
}

/**
 * The directory of one crawl or permission sync, kept in memory for its steps (keyed by the run's start and the
 * token), so users.list is read once a run rather than once a step; a step that finds none (another process, a
 * restart) reads it again.
 */
const held = new Map<string, { readonly at: number; readonly directory: Promise<Directory> }>()
const HELD_MS = 30 * 60_000

export const directoryOfRun = (client: SlackClient, token: string, teamId: string, runStartedAt: string): Promise<Directory> => {
  const now = Date.now()
  for (const [key, entry] of held) if (entry.at < now - HELD_MS) held.delete(key)
  const key = `${runStartedAt}|${createHash("sha256").update(token).digest("hex").slice(0, 32)}|${teamId}`
  const found = held.get(key)
  if (found) return found.directory
  const directory = readDirectory(client, teamId)
  held.set(key, { at: now, directory })
  directory.catch(() => held.delete(key))
  return directory
}
