import type { ConversationsInfoResponse, ConversationsMembersResponse, UsersListResponse } from "@slack/web-api"
import type { NativeAcl, NativeUser, SourceGroupMembership } from "../Kind"
import type { SlackClient } from "./Client"
import type { Channel, Member } from "./Types"

/** The workspace's organization-wide principal: its full members (never guests, bots or Slack Connect users). */
export const organizationId = (teamId: string) => `team:${teamId}`
/** A channel's source group: a private channel's members, or a public channel's members the organization leaves out. */
export const channelGroupId = (channelId: string) => `channel:${channelId}`

/** Who the workspace holds, as a crawl or a permission sync needs it. */
export interface Directory {
  readonly teamId: string
  /** The organization-wide principal: the workspace's full members. */
  readonly organization: SourceGroupMembership
  /** Full members of the workspace (by id): a public channel admits them through the organization. */
  readonly members: ReadonlySet<string>
  /** Bots and apps: never a reader. */
  readonly bots: ReadonlySet<string>
  /** Everyone users.list names, with email and name for mapping and for the authors of messages. */
  readonly users: ReadonlyMap<string, NativeUser>
}

const MAX_USERS = 200_000
const MAX_MEMBER_PAGES = 500

/** Whether users.list calls this person a full member of the team (not a guest, a bot, deleted, or of another team). */
export const isFullMember = (member: Member, teamId: string) =>
  !member.deleted && !isBot(member) && !member.is_restricted && !member.is_ultra_restricted && !member.is_invited_user && member.team_id === teamId

export const isBot = (member: Member) => member.is_bot === true || member.is_app_user === true || member.is_workflow_bot === true || member.id === "USLACKBOT"

export const nativeUserOf = (member: Member): NativeUser | null => {
  if (!member.id) return null
  const email = member.profile?.email
  const name = member.profile?.real_name || member.real_name || member.profile?.display_name || member.name
  return { id: member.id, ...(email ? { email: email.toLowerCase() } : {}), ...(name ? { displayName: name } : {}) }
}

/** users.list, every page (emails need users:read.email): the organization's members, the bots, everyone's names. */
export const readDirectory = async (client: SlackClient, teamId: string): Promise<Directory> => {
  const members = new Set<string>()
  const bots = new Set<string>()
  const users = new Map<string, NativeUser>()
  const organization: Array<NativeUser> = []
  let cursor: string | undefined
  for (let pages = 0; pages < MAX_MEMBER_PAGES; pages++) {
    const page: UsersListResponse = await client.call("users.list", (web) => web.users.list({ limit: 200, ...(cursor ? { cursor } : {}) }))
    for (const member of page.members ?? []) {
      const user = nativeUserOf(member)
      if (!user || users.size >= MAX_USERS) continue
      users.set(user.id, user)
      if (isBot(member)) bots.add(user.id)
      else if (isFullMember(member, teamId)) {
        members.add(user.id)
        organization.push(user)
      }
    }
    cursor = page.response_metadata?.next_cursor || undefined
    if (!cursor) break
  }
  return {
    teamId,
    organization: { id: organizationId(teamId), kind: "SOURCE_ORGANIZATION", displayName: "Everyone in the Slack workspace", members: { users: organization, groups: [] } },
    members,
    bots,
    users
  }
}

/** A channel's members, every page (conversations.members). */
export const channelMembers = async (client: SlackClient, channelId: string): Promise<ReadonlyArray<string>> => {
  const found: Array<string> = []
  let cursor: string | undefined
  for (let pages = 0; pages < MAX_MEMBER_PAGES; pages++) {
    const page: ConversationsMembersResponse = await client.call("conversations.members", (web) => web.conversations.members({ channel: channelId, limit: 500, ...(cursor ? { cursor } : {}) }))
    found.push(...(page.members ?? []).filter((id) => typeof id === "string"))
    cursor = page.response_metadata?.next_cursor || undefined
    if (!cursor) break
  }
  return found
}

/** What Lore keeps of a channel: its name and whether it is private. */
export interface ChannelRef {
  readonly id: string
  readonly name: string
  readonly isPrivate: boolean
  /** Whether the app is in it (it reads a channel only once invited). */
  readonly isMember: boolean
}

export const channelRefOf = (channel: Channel, id: string): ChannelRef => ({
  id,
  name: channel.name ?? id,
  isPrivate: channel.is_private === true || channel.is_group === true,
  isMember: channel.is_member === true
})

export const channelInfo = async (client: SlackClient, channelId: string): Promise<ChannelRef> => {
  const info: ConversationsInfoResponse = await client.call("conversations.info", (web) => web.conversations.info({ channel: channelId }))
  return channelRefOf(info.channel ?? {}, channelId)
}

/**
 * A channel's source group: for a private channel every member but bots; for a public one only the members the
 * organization leaves out (guests, Slack Connect users, anyone users.list does not name), since the organization-wide
 * principal admits the rest.
 */
export const channelGroup = (channel: ChannelRef, memberIds: ReadonlyArray<string>, directory: Directory): SourceGroupMembership => {
  const users: Array<NativeUser> = []
  for (const id of new Set(memberIds)) {
    if (directory.bots.has(id)) continue
    if (!channel.isPrivate && directory.members.has(id)) continue
    users.push(directory.users.get(id) ?? { id })
  }
  return { id: channelGroupId(channel.id), displayName: `#${channel.name}`, members: { users, groups: [] } }
}

/** Who reads a channel's threads: its group, and for a public channel the workspace's organization-wide principal too. */
export const aclOfChannel = (channel: ChannelRef, teamId: string): NativeAcl => ({
  users: [],
  groups: [{ id: channelGroupId(channel.id), displayName: `#${channel.name}` }],
  ...(channel.isPrivate ? {} : { organizations: [{ id: organizationId(teamId), displayName: "Everyone in the Slack workspace" }] })
})

/** Fails closed: a channel Lore can no longer read (deleted, or the app removed from it) admits nobody. */
export const UNRESOLVED_ACL: NativeAcl = { users: [], groups: [], unresolved: true }
