import type {
  AuthTestResponse, ConversationsHistoryResponse, ConversationsInfoResponse, ConversationsListResponse, ConversationsMembersResponse,
  ConversationsRepliesResponse, UsersListResponse
} from "@slack/web-api"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

/**
 * A loopback server speaking Slack's Web API (POST /api/{method}, form-encoded, `Authorization: Bearer`) from a model
 * the test edits: a workspace's users (members, guests, bots, a Slack Connect user of another team), channels with
 * members, messages with threads. Every answer is typed against @slack/web-api's own response types (`satisfies`),
 * so a wrong guess about Slack's shapes fails `tsc -b`. It pages by `cursor` (at most 2 items a page), reads
 * history from `oldest`, answers `token_revoked` once the token is revoked, can throttle one call (429, Retry-After:
 * 1), and counts what it served per method (to tell a permission sync from a crawl).
 */

export interface SlackSiteUser {
  readonly id: string
  readonly name: string
  readonly email?: string
  /** Another team's id: a Slack Connect user. */
  readonly teamId?: string
  readonly bot?: boolean
  guest?: "single" | "multi"
  deleted?: boolean
}
export interface SlackSiteChannel {
  readonly id: string
  name: string
  isPrivate: boolean
  members: Set<string>
}
export interface SlackSiteMessage {
  readonly ts: string
  readonly user: string
  text: string
  /** The parent's ts, for a reply. */
  readonly threadTs?: string
  edited?: boolean
  subtype?: string
}
export interface SlackSiteModel {
  readonly teamId: string
  readonly teamName: string
  readonly botUserId: string
  readonly users: Map<string, SlackSiteUser>
  readonly channels: Map<string, SlackSiteChannel>
  /** Per channel, every message (parents and replies). */
  readonly messages: Map<string, Array<SlackSiteMessage>>
}

const PAGE_LIMIT = 2

export const startSlackSite = async (model: SlackSiteModel, token: string) => {
  const state = {
    revoked: false,
    /** The method whose next call answers 429 with Retry-After: 1. */
    throttleOnce: null as string | null,
    /** The method whose next call answers a body larger than Lore reads (its declared length). */
    hugeOnce: null as string | null,
    /** The method whose next call answers something that is not JSON. */
    malformedOnce: null as string | null,
    /** The method whose next call redirects to this URL. */
    redirectOnce: null as { method: string; location: string } | null,
    served: {} as Record<string, number>,
    /** The `oldest` of each conversations.history call, in order (null: the whole history). */
    historyOldest: [] as Array<string | null>,
    answered429: 0
  }

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers })
    res.end(JSON.stringify(body))
  }

  /** Slack's cursor paging: the cursor is the offset, base64 (opaque to clients). */
  const page = <T>(all: ReadonlyArray<T>, params: URLSearchParams) => {
    const start = params.get("cursor") ? Number(Buffer.from(params.get("cursor")!, "base64").toString("utf8").replace("offset:", "")) : 0
    const limit = Math.min(PAGE_LIMIT, Number(params.get("limit") ?? PAGE_LIMIT) || PAGE_LIMIT)
    const items = all.slice(start, start + limit)
    const more = start + limit < all.length
    return { items, more, next_cursor: more ? Buffer.from(`offset:${start + limit}`).toString("base64") : "" }
  }

  const memberJson = (user: SlackSiteUser) => ({
    id: user.id,
    team_id: user.teamId ?? model.teamId,
    name: user.name.toLowerCase().replace(/\s+/g, "."),
    real_name: user.name,
    deleted: user.deleted ?? false,
    is_bot: user.bot ?? false,
    is_app_user: false,
    is_restricted: user.guest !== undefined,
    is_ultra_restricted: user.guest === "single",
    profile: { real_name: user.name, display_name: user.name, ...(user.email ? { email: user.email } : {}) }
  }) satisfies NonNullable<UsersListResponse["members"]>[number]

  const channelJson = (channel: SlackSiteChannel) => ({
    id: channel.id,
    name: channel.name,
    is_channel: true,
    is_group: false,
    is_private: channel.isPrivate,
    is_archived: false,
    is_member: channel.members.has(model.botUserId),
    context_team_id: model.teamId
  }) satisfies NonNullable<ConversationsInfoResponse["channel"]>

  const messageJson = (channelId: string, message: SlackSiteMessage) => {
    const replies = (model.messages.get(channelId) ?? []).filter((m) => m.threadTs === message.ts && m.ts !== message.ts)
    return {
      type: "message",
      ts: message.ts,
      user: message.user,
      text: message.text,
      ...(message.subtype ? { subtype: message.subtype } : {}),
      ...(message.edited ? { edited: { user: message.user, ts: message.ts } } : {}),
      ...(message.threadTs ? { thread_ts: message.threadTs } : replies.length > 0 ? { thread_ts: message.ts } : {}),
      ...(replies.length > 0 ? { reply_count: replies.length, latest_reply: replies.at(-1)!.ts, reply_users: [...new Set(replies.map((r) => r.user))] } : {})
    } satisfies NonNullable<ConversationsHistoryResponse["messages"]>[number]
  }

  const canRead = (channel: SlackSiteChannel | undefined) => channel !== undefined && channel.members.has(model.botUserId)

  const answer = (method: string, params: URLSearchParams, res: ServerResponse) => {
    const channel = model.channels.get(params.get("channel") ?? "")
    switch (method) {
      case "auth.test":
        return send(res, 200, { ok: true, url: "https://acme.slack.com/", team: model.teamName, team_id: model.teamId, user: "lore", user_id: model.botUserId, bot_id: "B0LORE" } satisfies AuthTestResponse)
      case "users.list": {
        const { items, next_cursor } = page([...model.users.values()], params)
        return send(res, 200, { ok: true, members: items.map(memberJson), cache_ts: 0, response_metadata: { next_cursor } } satisfies UsersListResponse)
      }
      case "conversations.list": {
        // Public channels, and the private ones the app is in.
        const visible = [...model.channels.values()].filter((c) => !c.isPrivate || c.members.has(model.botUserId))
        const { items, next_cursor } = page(visible, params)
        return send(res, 200, { ok: true, channels: items.map(channelJson), response_metadata: { next_cursor } } satisfies ConversationsListResponse)
      }
      case "conversations.info":
        if (!channel || (channel.isPrivate && !canRead(channel))) return send(res, 200, { ok: false, error: "channel_not_found" } satisfies ConversationsInfoResponse)
        return send(res, 200, { ok: true, channel: channelJson(channel) } satisfies ConversationsInfoResponse)
      case "conversations.members": {
        if (!channel || (channel.isPrivate && !canRead(channel))) return send(res, 200, { ok: false, error: "channel_not_found" } satisfies ConversationsMembersResponse)
        const { items, next_cursor } = page([...channel.members].sort(), params)
        return send(res, 200, { ok: true, members: items, response_metadata: { next_cursor } } satisfies ConversationsMembersResponse)
      }
      case "conversations.history": {
        if (!channel) return send(res, 200, { ok: false, error: "channel_not_found" } satisfies ConversationsHistoryResponse)
        if (!canRead(channel)) return send(res, 200, { ok: false, error: "not_in_channel" } satisfies ConversationsHistoryResponse)
        state.historyOldest.push(params.get("oldest"))
        const oldest = Number(params.get("oldest") ?? 0)
        // Newest first; replies stay in their thread.
        const all = (model.messages.get(channel.id) ?? [])
          .filter((m) => !m.threadTs || m.threadTs === m.ts)
          .filter((m) => Number(m.ts) >= oldest)
          .sort((a, b) => Number(b.ts) - Number(a.ts))
        const { items, more, next_cursor } = page(all, params)
        return send(res, 200, { ok: true, messages: items.map((m) => messageJson(channel.id, m)), has_more: more, pin_count: 0, response_metadata: { next_cursor } } satisfies ConversationsHistoryResponse)
      }
      case "conversations.replies": {
        if (!canRead(channel)) return send(res, 200, { ok: false, error: "channel_not_found" } satisfies ConversationsRepliesResponse)
        const ts = params.get("ts") ?? ""
        const thread = (model.messages.get(channel!.id) ?? []).filter((m) => m.ts === ts || m.threadTs === ts).sort((a, b) => Number(a.ts) - Number(b.ts))
        if (!thread.some((m) => m.ts === ts)) return send(res, 200, { ok: false, error: "thread_not_found" } satisfies ConversationsRepliesResponse)
        const { items, more, next_cursor } = page(thread.filter((m) => m.ts !== ts), params)
        // Like Slack, every page begins with the parent.
        const parent = thread.find((m) => m.ts === ts)!
        return send(res, 200, { ok: true, messages: [parent, ...items].map((m) => messageJson(channel!.id, m)), has_more: more, response_metadata: { next_cursor } } satisfies ConversationsRepliesResponse)
      }
      default:
        return send(res, 200, { ok: false, error: "unknown_method" })
    }
  }

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://slack")
      const method = url.pathname.replace(/^\/api\//, "")
      state.served[method] = (state.served[method] ?? 0) + 1
      if (state.throttleOnce === method) {
        state.throttleOnce = null
        state.answered429++
        return send(res, 429, { ok: false, error: "ratelimited" }, { "retry-after": "1" })
      }
      if (state.hugeOnce === method) {
        state.hugeOnce = null
        res.writeHead(200, { "content-type": "application/json", "content-length": String(64 * 1024 * 1024) })
        // The declared length is what Lore refuses: the rest never comes (the connection is closed with the server).
        return res.write("{\"ok\":true,\"messages\":[")
      }
      if (state.malformedOnce === method) {
        state.malformedOnce = null
        res.writeHead(200, { "content-type": "application/json" })
        return res.end("{\"ok\": tru")
      }
      if (state.redirectOnce?.method === method) {
        const location = state.redirectOnce.location
        state.redirectOnce = null
        res.writeHead(302, { location })
        return res.end()
      }
      if (state.revoked) return send(res, 200, { ok: false, error: "token_revoked" })
      if (req.headers.authorization !== `Bearer ${token}`) return send(res, 200, { ok: false, error: "invalid_auth" })
      const body = Buffer.concat(chunks).toString("utf8")
      const params = new URLSearchParams(req.headers["content-type"]?.includes("json") ? "" : body)
      for (const [key, value] of url.searchParams) params.set(key, value)
      return answer(method, params, res)
    })
  }

  const server = createServer(handle)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    host: `127.0.0.1:${port}`,
    baseUrl: `http://127.0.0.1:${port}/api`,
    state,
    served: (method: string) => state.served[method] ?? 0,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) })
  }
}
