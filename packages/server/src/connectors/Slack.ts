import { Effect } from "effect"
import type { ConnectionTestResult, ConnectorKindModule, Scope } from "./Kind"
import { failureOf, SlackError, slackClient } from "./slack/Client"
import { parseSlackCredential, readSlackConfig, readSlackCredential } from "./slack/Config"
import { type ChannelRef, channelInfo } from "./slack/Directory"
import { crawlSlack, type CrawlCursor } from "./slack/Crawl"
import { syncSlackPermissions } from "./slack/Permissions"
import { resolveChannelNames, workspaceOf } from "./slack/Workspace"

const failedTest = (errorCode: string): ConnectionTestResult =>
  ({ authenticated: false, accountName: null, identityName: null, canReadContent: false, errorCode })

const INVITE_INSTRUCTION = (name: string) =>
  `Invite the Lore app to #${name} (in the channel: /invite @<app name>): Slack lets a bot read only the channels it is in`

/**
 * SLACK: a workspace's chosen channels through an internal Slack app's bot token (@slack/web-api over the outbound
 * guard). One document per thread (the parent message with its replies), read forward per channel by `oldest` and
 * re-read over the last `rescanDays` for edits, deletions and late replies. A public channel is read by the
 * workspace's organization-wide principal (full members: no guests, bots or Slack Connect users) and the channel's
 * other members; a private channel by its members, a group the permission sync keeps current without content.
 */
export const SlackKind: ConnectorKindModule = {
  sourceSystem: "SLACK",
  displayName: "Slack",
  credentialRequirement: "REQUIRED",
  credentialHint: "{\"token\"}: the internal Slack app's bot token (xoxb-…), from OAuth & Permissions after installing it (docs/connectors/slack.md)",
  validateConfig: (sourceConfig) => {
    const read = readSlackConfig(sourceConfig)
    return read.ok ? [] : read.errors
  },
  readCredential: readSlackCredential,
  resolveConfig: (context) =>
    Effect.promise(async () => {
      const read = readSlackConfig(context.sourceConfig)
      const credential = parseSlackCredential(context.credential)
      if (!read.ok || !credential) return { sourceConfig: context.sourceConfig }
      try {
        const resolved = await resolveChannelNames(slackClient(credential, context.settings), read.config.channels)
        return "errors" in resolved ? resolved : { sourceConfig: { ...context.sourceConfig, channels: resolved.channels } }
      } catch {
        // Slack could not be asked (or refused the token): the names stay, and the crawl resolves them or reports them.
        return { sourceConfig: context.sourceConfig }
      }
    }),
  testCredentials: (context) =>
    Effect.promise(async () => {
      const read = readSlackConfig(context.sourceConfig)
      if (!read.ok) return failedTest("INVALID_CONFIG")
      const credential = parseSlackCredential(context.credential)
      if (!credential) return failedTest("CREDENTIAL_MISSING")
      const client = slackClient(credential, context.settings)
      try {
        const workspace = await workspaceOf(client)
        let canReadContent = true
        try {
          const resolved = await resolveChannelNames(client, read.config.channels.slice(0, 1))
          if ("errors" in resolved) canReadContent = false
          else {
            await client.call("conversations.history", (web) => web.conversations.history({ channel: resolved.channels[0]!, limit: 1 }))
          }
        } catch {
          canReadContent = false
        }
        return { authenticated: true, accountName: workspace.teamName, identityName: workspace.botUserId, canReadContent, errorCode: canReadContent ? null : "CHANNEL_UNREADABLE" }
      } catch (error) {
        return failedTest(failureOf(error).code)
      }
    }),
  listScopes: (context) =>
    Effect.promise(async (): Promise<ReadonlyArray<Scope>> => {
      const read = readSlackConfig(context.sourceConfig)
      const credential = parseSlackCredential(context.credential)
      if (!read.ok || !credential) return []
      const client = slackClient(credential, context.settings)
      const scopes: Array<Scope> = []
      for (const key of read.config.channels) {
        let channel: ChannelRef
        try {
          const resolved = await resolveChannelNames(client, [key])
          if ("errors" in resolved) throw new SlackError(404, "NOT_FOUND", "unknown channel", "channel_not_found")
          channel = await channelInfo(client, resolved.channels[0]!)
        } catch (error) {
          const gone = error instanceof SlackError && error.status === 404
          scopes.push({ key, displayName: key, reachable: false, admissible: false, instruction: gone ? "Slack does not show this channel to the app: check the id, or invite the app to the private channel" : `Lore could not read this channel (${failureOf(error).code})` })
          continue
        }
        const label = `${channel.isPrivate ? "🔒" : "#"}${channel.name}`
        if (!channel.isMember) {
          scopes.push({ key: channel.id, displayName: label, reachable: true, admissible: false, instruction: INVITE_INSTRUCTION(channel.name) })
          continue
        }
        try {
          await client.call("conversations.members", (web) => web.conversations.members({ channel: channel.id, limit: 1 }))
          scopes.push({ key: channel.id, displayName: label, reachable: true, admissible: true, instruction: null })
        } catch (error) {
          scopes.push({ key: channel.id, displayName: label, reachable: true, admissible: false, instruction: `Lore cannot read who is in this channel (${failureOf(error).code}): the app needs ${channel.isPrivate ? "groups:read" : "channels:read"}; until then its threads are not crawled` })
        }
      }
      return scopes
    }),
  describeCheckpoint: (checkpoint) => {
    const cursor = checkpoint as CrawlCursor | null
    return {
      cursor: cursor
        ? { phase: cursor.phase, channel: cursor.channels?.[cursor.index] ?? null, channels: cursor.channels?.length ?? 0, startedAt: cursor.startedAt, newest: cursor.newest, lost: cursor.lost }
        : null,
      inProgress: cursor?.active === true
    }
  },
  crawl: crawlSlack,
  syncPermissions: syncSlackPermissions
}
