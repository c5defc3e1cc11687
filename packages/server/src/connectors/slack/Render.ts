import type { NativeAcl, SourceDocument } from "../Kind"
import type { ChannelRef, Directory } from "./Directory"
import type { MessageElement } from "./Types"
import { permalinkOf, type Workspace } from "./Workspace"

/** A thread's external id: its channel and the parent message's ts (`C0123/1700000000.000100`), ordered by time in a channel. */
export const threadExternalId = (channelId: string, ts: string) => `${channelId}/${ts}`
export const parseThreadExternalId = (externalId: string) => {
  const match = /^([CG][A-Z0-9]{6,20})\/(\d{1,12}\.\d{1,8})$/.exec(externalId)
  return match ? { channelId: match[1]!, ts: match[2]! } : null
}

/** Messages that are not conversation (joins, leaves, topic changes): never a thread of their own. */
const SYSTEM_SUBTYPES = new Set([
  "channel_join", "channel_leave", "channel_topic", "channel_purpose", "channel_name", "channel_archive", "channel_unarchive",
  "group_join", "group_leave", "group_topic", "group_purpose", "group_name", "group_archive", "group_unarchive",
  "channel_convert_to_private", "channel_convert_to_public", "pinned_item", "unpinned_item", "reminder_add", "bot_add", "bot_remove"
])

/** Whether a message in conversations.history starts a thread document: not a reply shown in the channel, not a system notice. */
export const startsThread = (message: MessageElement) =>
  typeof message.ts === "string" && /^\d{1,12}\.\d{1,8}$/.test(message.ts)
  && (!message.thread_ts || message.thread_ts === message.ts)
  && !SYSTEM_SUBTYPES.has(message.subtype ?? "")

const MAX_TEXT = 40_000
const MAX_DOCUMENT = 2 * 1024 * 1024

const decodeEntities = (text: string) => text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&")

/**
 * Slack's mrkdwn as plain Markdown: mentions by name (`<@U1>` → `@Ann`), channels (`<#C1|eng>` → `#eng`), special
 * mentions, links (`<https://x|label>` → `[label](https://x)`), entities decoded.
 */
export const plainText = (text: string, nameOf: (userId: string) => string | null) =>
  decodeEntities(
    text.slice(0, MAX_TEXT).replace(/<([^<>]{1,2000})>/g, (_, inner: string) => {
      const [target, label] = inner.split("|", 2) as [string, string | undefined]
      if (target.startsWith("@")) return `@${label ?? nameOf(target.slice(1)) ?? target.slice(1)}`
      if (target.startsWith("#")) return `#${label ?? target.slice(1)}`
      if (target.startsWith("!subteam^")) return label ?? "@group"
      if (target.startsWith("!")) return `@${target.slice(1)}`
      return label ? `[${label}](${target})` : target
    })
  )

const timeOf = (ts: string) => new Date(Math.floor(Number(ts) * 1000)).toISOString().replace(/\.\d{3}Z$/, "Z")

const authorOf = (message: MessageElement, directory: Directory) =>
  (message.user ? directory.users.get(message.user)?.displayName : undefined)
  ?? message.username ?? message.bot_profile?.name ?? message.user ?? "unknown"

/**
 * One thread as a Markdown document: the parent message and its replies in order, each with its author's name and
 * time (and `(edited)` when Slack says so), the files named; titled by the channel and the parent's first line; its
 * URL the permalink to the parent message.
 */
export const threadDocument = (
  workspace: Workspace,
  channel: ChannelRef,
  messages: ReadonlyArray<MessageElement>,
  directory: Directory,
  acl: NativeAcl
): SourceDocument => {
  const parent = messages[0]!
  const ts = parent.ts!
  const nameOf = (id: string) => directory.users.get(id)?.displayName ?? null
  const firstLine = plainText(parent.text ?? "", nameOf).split("\n").find((line) => line.trim().length > 0)?.trim() ?? ""
  const title = `#${channel.name}: ${firstLine.length > 80 ? firstLine.slice(0, 79) + "…" : firstLine || timeOf(ts)}`
  const parts = [`# ${title}`, "", `Slack thread in #${channel.name}, started ${timeOf(ts)}: ${permalinkOf(workspace, channel.id, ts)}`, ""]
  let size = 0
  for (const message of messages) {
    const text = plainText(message.text ?? "", nameOf)
    const files = (message.files ?? []).map((file) => file.name ?? file.title).filter((name): name is string => typeof name === "string").map((name) => `(file: ${name})`)
    const block = [`**${authorOf(message, directory)}** (${timeOf(message.ts ?? ts)})${message.edited ? " (edited)" : ""}:`, text, ...files, ""].join("\n")
    size += block.length
    if (size > MAX_DOCUMENT) {
      parts.push("(the rest of this thread is too long to index)")
      break
    }
    parts.push(block)
  }
  return {
    externalId: threadExternalId(channel.id, ts),
    title,
    bytes: new TextEncoder().encode(parts.join("\n")),
    fileName: `${channel.name}-${ts}.md`.replace(/[\\/:*?"<>|\x00-\x1f]/g, "_"),
    mediaType: "text/markdown",
    url: permalinkOf(workspace, channel.id, ts),
    classification: "INTERNAL",
    acl
  }
}
