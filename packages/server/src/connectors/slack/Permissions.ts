import { Effect } from "effect"
import type { DocumentAcl, KindContext, PermissionPage, SourceGroupMembership } from "../Kind"
import { failureOf, SlackError, slackClient } from "./Client"
import { parseSlackCredential, readSlackConfig } from "./Config"
import { aclOfChannel, type ChannelRef, channelGroup, channelGroupId, channelInfo, channelMembers, UNRESOLVED_ACL } from "./Directory"
import { parseThreadExternalId } from "./Render"
import { directoryOfRun, resolveChannelNames, type Workspace, workspaceOf } from "./Workspace"

/**
 * Where a permission sync is: the directory (the organization-wide principal), then each channel's members (its
 * group), then the ACL of every thread Lore holds, by its channel (public or private, or unreadable now).
 */
export interface PermissionCursor {
  readonly phase: "DIRECTORY" | "CHANNELS" | "ACLS"
  readonly startedAt: string
  readonly workspace: Workspace | null
  readonly channels: ReadonlyArray<string>
  readonly index: number
  /** Each channel read so far: what it is, or null when Lore can no longer read it (its threads then admit nobody). */
  readonly states: Readonly<Record<string, ChannelRef | null>>
  readonly after: string | null
}

const CHANNELS_PER_STEP = 10
const ACL_PAGE = 500

/**
 * One permission-sync step, no content fetched: users.list (the workspace's full members are its organization-wide
 * principal), then conversations.info and conversations.members of a few channels (their groups: a private channel's
 * members, a public channel's guests and Slack Connect users), then the ACLs of a page of the threads Lore holds.
 * A channel Lore can no longer read (deleted, converted to private without the app, the app removed) fails closed:
 * its group is emptied and its threads admit nobody until a crawl retires them.
 */
export const syncSlackPermissions = (context: KindContext, checkpoint: unknown): Effect.Effect<PermissionPage> =>
  Effect.promise(async (): Promise<PermissionPage> => {
    const read = readSlackConfig(context.sourceConfig)
    const credential = parseSlackCredential(context.credential)
    const cursor: PermissionCursor = (checkpoint as PermissionCursor | null)
      ?? { phase: "DIRECTORY", startedAt: new Date().toISOString(), workspace: null, channels: [], index: 0, states: {}, after: null }
    const empty = { acls: [], groups: [] }
    if (!read.ok) return { ...empty, checkpoint: cursor, done: true, failures: [{ code: "INVALID_CONFIG", message: "The Slack configuration is invalid", fatal: true }] }
    if (!credential) return { ...empty, checkpoint: cursor, done: true, failures: [{ code: "CREDENTIAL_MISSING", message: "No Slack credential is set", fatal: true }] }
    const client = slackClient(credential, context.settings)
    try {
      if (cursor.phase === "DIRECTORY" || !cursor.workspace) {
        const workspace = await workspaceOf(client)
        const resolved = await resolveChannelNames(client, read.config.channels)
        if ("errors" in resolved) {
          return { ...empty, checkpoint: cursor, done: true, failures: [{ code: "INVALID_CONFIG", message: resolved.errors.map((e) => `${e.path} ${e.message}`).join("; ").slice(0, 500), fatal: true }] }
        }
        const directory = await directoryOfRun(client, credential.token, workspace.teamId, cursor.startedAt)
        return { acls: [], groups: [directory.organization], checkpoint: { ...cursor, phase: "CHANNELS", workspace, channels: resolved.channels, index: 0 }, done: false }
      }
      if (cursor.phase === "CHANNELS") {
        const directory = await directoryOfRun(client, credential.token, cursor.workspace.teamId, cursor.startedAt)
        const groups: Array<SourceGroupMembership> = []
        const failures: Array<{ code: string; message: string; fatal?: boolean }> = []
        const states = { ...cursor.states }
        const end = Math.min(cursor.channels.length, cursor.index + CHANNELS_PER_STEP)
        for (const id of cursor.channels.slice(cursor.index, end)) {
          try {
            const channel = await channelInfo(client, id)
            if (!channel.isMember) throw new SlackError(404, "NOT_FOUND", `the app is not in #${channel.name}`, "not_in_channel")
            groups.push(channelGroup(channel, await channelMembers(client, id), directory))
            states[id] = channel
          } catch (error) {
            const failure = failureOf(error, "PERMISSION_SYNC_FAILED")
            if (failure.fatal) throw error
            if (error instanceof SlackError && error.status === 404) {
              // Lore cannot tell who reads it now: nobody, until the app is back in it.
              groups.push({ id: channelGroupId(id), members: { users: [], groups: [] } })
              states[id] = null
            }
            failures.push({ ...failure, message: `channel ${id}: ${failure.message}` })
          }
        }
        const more = end < cursor.channels.length
        return { acls: [], groups, failures, checkpoint: more ? { ...cursor, index: end, states } : { ...cursor, phase: "ACLS", states, after: null }, done: false }
      }
      if (!context.documents) return { ...empty, checkpoint: null, done: true }
      const ids = await Effect.runPromise(context.documents.page(cursor.after, ACL_PAGE))
      const acls: Array<DocumentAcl> = []
      for (const externalId of ids) {
        const thread = parseThreadExternalId(externalId)
        if (!thread || !(thread.channelId in cursor.states)) continue
        const channel = cursor.states[thread.channelId]
        acls.push({ externalId, acl: channel ? aclOfChannel(channel, cursor.workspace.teamId) : UNRESOLVED_ACL })
      }
      const more = ids.length === ACL_PAGE
      return { acls, groups: [], checkpoint: more ? { ...cursor, after: ids.at(-1)! } : null, done: !more }
    } catch (error) {
      return { ...empty, checkpoint: cursor, done: true, failures: [failureOf(error, "PERMISSION_SYNC_FAILED")] }
    }
  })
